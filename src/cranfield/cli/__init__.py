"""The ``cranfield`` command line: a thin shell over the library.

Subcommands live in their own modules and are imported only when used, so that
``cranfield --version`` stays fast. Exit codes: 0 success, 2 bad input or usage
(one readable message on standard error, never a traceback), 130 interrupted.
"""

from __future__ import annotations

import importlib
import sys

import click

from .._version import __version__

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
        return getattr(importlib.import_module(module_name), attribute)


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


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script; returns the exit status."""
    from ..errors import CranfieldError

    try:
        cli.main(args=argv, prog_name="cranfield", standalone_mode=False)
    except CranfieldError as error:
        click.echo(f"cranfield: error: {error}", err=True)
        return 2
    except click.exceptions.Exit as exit_:
        return exit_.exit_code
    except click.ClickException as error:
        error.show()
        return 2
    except click.Abort:
        click.echo("cranfield: interrupted", err=True)
        return 130
    except KeyboardInterrupt:
        click.echo("cranfield: interrupted", err=True)
        return 130
    except BrokenPipeError:
        return 0
    return 0


def run() -> None:  # pragma: no cover - used by ``python -m cranfield``
    sys.exit(main())
