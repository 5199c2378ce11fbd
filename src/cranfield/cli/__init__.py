"""The ``cranfield`` command line: a thin shell over the library.

Subcommands live in their own modules and are imported only when used, so that
``cranfield --version`` stays fast.

Exit status: 0 success; 2 bad input or usage, including an output that cannot be written (no
space, file too large, permission denied, read-only file system) or that would overwrite an
input, and running out of memory: one readable line on standard error, never a traceback;
130 interrupted (Ctrl-C, SIGINT); 128 + N on signal N: 143 for SIGTERM, 129 for SIGHUP
(SIGTERM and SIGHUP are turned into an interruption, so an output being written is removed
as on Ctrl-C, unless the signal was ignored when cranfield started, e.g. under ``nohup``).
An unexpected exception (a bug) is one line ``cranfield: internal error: ...`` and exit 2;
``CRANFIELD_DEBUG=1`` shows its traceback instead.

Every input file of every command (its arguments and its file options) is registered with
:func:`cranfield.io.atomic.reading`, so no output can overwrite an input.
"""

from __future__ import annotations

import atexit
import gc
import importlib
import os
import signal
import sys
import threading

import click

from .._version import __version__
from .._option_names import set_option_resolver
from ..errors import CranfieldError, Interrupted
from ._inputs import OUTPUT_PARAMETERS, _registering_inputs, input_paths  # noqa: F401  (the online group, tests)

# name -> "module:attribute" of a click command; add a line here to add a subcommand.
SUBCOMMANDS: dict[str, str] = {
    "trec_eval": "cranfield.cli.trec_eval_cmd:command",
    "evaluate": "cranfield.cli.evaluate_cmd:command",
    "measures": "cranfield.cli.measures_cmd:command",
    "classify": "cranfield.cli.classify_cmd:command",
    "compare": "cranfield.cli.compare_cmd:command",
    "curves": "cranfield.cli.curves_cmd:command",
    "report": "cranfield.cli.report_cmd:command",
    "demo": "cranfield.cli.demo_cmd:command",
    "datasets": "cranfield.cli.datasets_cmd:command",
    "agreement": "cranfield.cli.agreement_cmd:agreement_command",
    "aggregate-labels": "cranfield.cli.agreement_cmd:aggregate_command",
    "calibration": "cranfield.cli.ml_cmd:calibration_command",
    "clustering": "cranfield.cli.ml_cmd:clustering_command",
    "regression": "cranfield.cli.ml_cmd:regression_command",
    "pool": "cranfield.cli.pool_cmd:pool_command",
    "reusability": "cranfield.cli.pool_cmd:reusability_command",
    "online": "cranfield.cli.online_cmd:command",
    "ndeval": "cranfield.cli.ndeval_cmd:command",
    "fuse": "cranfield.cli.fuse_cmd:command",
    "qpp": "cranfield.cli.qpp_cmd:command",
    "judges": "cranfield.cli.judges_cmd:command",
    "nuggets": "cranfield.cli.nuggets_cmd:command",
    "exposure": "cranfield.cli.exposure_cmd:command",
    "judge": "cranfield.cli.judge_cmd:command",
    "beyond": "cranfield.cli.beyond_cmd:command",
}


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(SUBCOMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = SUBCOMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attribute = target.split(":")
        return _registering_inputs(getattr(importlib.import_module(module_name), attribute))


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", "-V", prog_name="cranfield")
def cli() -> None:
    """cranfield: evaluate retrieval and detection systems.

    \b
    Examples:
      cranfield demo
      cranfield trec_eval -m all_trec -q qrels.txt run.txt
      cranfield evaluate qrels.txt run1.txt run2.txt -m AP -m nDCG@10 --format markdown
    """


def _interrupt(signum, frame) -> None:
    signal.signal(signum, signal.SIG_IGN)  # a second signal must not interrupt the clean-up
    raise Interrupted(signum)


def _install_signal_handlers() -> dict:
    """SIGTERM and SIGHUP raise :class:`~cranfield.errors.Interrupted` (unless ignored, e.g.
    under nohup); SIGXFSZ is ignored so that a file-size limit is an error (EFBIG), not a
    crash. Returns the previous handlers."""
    previous: dict = {}
    if threading.current_thread() is not threading.main_thread():
        return previous
    for name, handler in (("SIGTERM", _interrupt), ("SIGHUP", _interrupt), ("SIGXFSZ", signal.SIG_IGN)):
        signum = getattr(signal, name, None)
        if signum is None or signal.getsignal(signum) != signal.SIG_DFL:
            continue
        try:
            previous[signum] = signal.signal(signum, handler)
        except (OSError, ValueError):  # pragma: no cover - not the main thread of the main interpreter
            pass
    return previous


def _tolerant_streams() -> list:
    """Standard output and error write characters their encoding lacks (an ASCII-only terminal,
    ``PYTHONIOENCODING=ascii``) as backslash escapes instead of failing. Returns what to restore."""
    changed = []
    for stream in (sys.stdout, sys.stderr):
        if getattr(stream, "errors", None) == "strict" and hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors="backslashreplace")
                changed.append(stream)
            except (AttributeError, ValueError, OSError):  # pragma: no cover - a closed or odd stream
                pass
    return changed


def _say(message: str) -> None:
    """One line on standard error, whatever its encoding (and even if it is closed)."""
    message = " ".join(message.split()) if "\n" in message else message
    try:
        click.echo(message, err=True)
    except UnicodeEncodeError:
        encoding = getattr(sys.stderr, "encoding", None) or "ascii"
        click.echo(message.encode(encoding, "backslashreplace").decode(encoding), err=True)
    except (OSError, ValueError):  # pragma: no cover - standard error closed
        pass


def _signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:  # pragma: no cover
        return f"signal {signum}"


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script; returns the exit status (see the module's documentation)."""
    previous = _install_signal_handlers()
    streams = _tolerant_streams()
    try:
        return _main(argv)
    finally:
        for stream in streams:
            try:
                stream.reconfigure(errors="strict")
            except (AttributeError, ValueError, OSError):  # pragma: no cover
                pass
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _option_of(name: str) -> "str | None":
    """The running command's option for library parameter ``name`` (see ``_options.option_of``)."""
    from ._options import option_of  # lazy (start-up): _options loads io.atomic and numpy, which --version does not need

    return option_of(name)


def _main(argv: list[str] | None) -> int:
    token = set_option_resolver(_option_of)  # library checks name the command's options
    try:
        cli.main(args=argv, prog_name="cranfield", standalone_mode=False)
    except CranfieldError as error:
        _say(f"cranfield: error: {error}")
        return 2
    except click.exceptions.Exit as exit_:
        return exit_.exit_code
    except click.exceptions.NoArgsIsHelpError as error:  # a group without its command: its help
        error.show()
        return 2
    except click.UsageError as error:  # a bad option or argument: one line, in the user's option names
        _say(f"cranfield: error: {_usage_line(error)}")
        return 2
    except click.ClickException as error:
        try:
            error.show()
        except UnicodeEncodeError:  # pragma: no cover - click writes its own messages
            _say(f"cranfield: error: {error.format_message()}")
        return 2
    except (click.Abort, KeyboardInterrupt) as interruption:  # click turns KeyboardInterrupt into Abort
        signalled = next((e for e in (interruption, interruption.__cause__, interruption.__context__)
                          if isinstance(e, Interrupted)), None)
        if signalled is not None:
            _say(f"cranfield: interrupted ({_signal_name(signalled.signum)})")
            return 128 + signalled.signum
        _say("cranfield: interrupted")
        return 130
    except BrokenPipeError:
        return 0
    except MemoryError:
        _say("cranfield: error: not enough memory for this input with these options")
        return 2
    except UnicodeEncodeError as error:  # output to a stream or file whose encoding lacks a character
        bad = error.object[error.start:error.end]
        _say(f"cranfield: error: cannot write {bad!r} in the encoding {error.encoding}")
        return 2
    except OSError as error:
        where = f"{error.filename}: " if error.filename is not None else ""
        _say(f"cranfield: error: {where}{error.strerror or error}")
        return 2
    except Exception as error:  # a bug: one line for users, the traceback with CRANFIELD_DEBUG=1
        if os.environ.get("CRANFIELD_DEBUG", "") not in ("", "0"):
            raise
        _say(f"cranfield: internal error: {type(error).__name__}: {error} (a bug: please report it; "
             "CRANFIELD_DEBUG=1 shows the traceback)")
        return 2
    finally:
        token.var.reset(token)
    return 0


def _usage_line(error: click.UsageError) -> str:
    """click's message for a bad command line as one line: the command, the message (naming the
    option as the user typed it) and where the help is."""
    command = error.ctx.command_path if error.ctx is not None else "cranfield"
    message = " ".join(error.format_message().split())
    sub = command.partition(" ")[2]
    return f"{sub + ': ' if sub else ''}{message} (see '{command} -h')"


def run() -> None:  # pragma: no cover - used by ``python -m cranfield``
    single_threaded_blas()
    fewer_collections()
    end(main())


#: the console script's thresholds of the cyclic garbage collector (Python's own: 700, 10, 10)
COMMAND_GC_THRESHOLDS = (50_000, 20, 20)


def fewer_collections() -> None:
    """Collect cyclic garbage less often in a command's process. With Python's thresholds the
    collector runs every 700 new container objects, so dozens of times while a command imports
    its engine (numpy, pyarrow, cranfield's modules), each pass walking the objects made so far;
    a command makes little cyclic garbage after that. Measured, ``python -m cranfield``, 12 runs
    alternating with the tree before: a one-line ``cranfield trec_eval`` 0.185 → 0.179 s median,
    1M ``-q -m all_trec`` 0.323 → 0.316 s (the same as with the collector off). Called by the
    console script; the library leaves it as it is."""
    gc.set_threshold(*COMMAND_GC_THRESHOLDS)


def end(status: int) -> None:
    """End the console script with ``status``: the atexit functions run and the standard streams
    are flushed, then the process ends without tearing the interpreter down (freeing every module
    and object one by one took 45-50 ms after ``cranfield trec_eval -q -m all_trec`` on 1M lines;
    the system frees the memory at once). A stream that cannot be flushed (a reader that closed
    the pipe) is left as it is, with the command's status. With a thread of its own still running
    (none of the commands leaves one: a thread pool not shut down would), or without atexit's
    runner, the interpreter ends as usual."""
    run_exit_functions = getattr(atexit, "_run_exitfuncs", None)
    others = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon]
    if run_exit_functions is None or others:
        sys.exit(status)
    run_exit_functions()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing more can be said there
            pass
    os._exit(status)


def single_threaded_blas(environ=os.environ) -> None:
    """One BLAS thread for a command (unless ``OPENBLAS_NUM_THREADS`` is set): cranfield's own
    threads do the parallel work, and the worker threads that numpy's OpenBLAS starts at import
    spin for a while, about 0.1 CPU-s a start taken from those threads on a small machine
    (measured: ``python -c "import numpy"`` 0.22 user-s, 0.11 with one BLAS thread). Called by
    the console script before numpy is imported; the library itself leaves BLAS as it is."""
    environ.setdefault("OPENBLAS_NUM_THREADS", "1")
