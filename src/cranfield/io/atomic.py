"""Atomic output: a file is either fully written or not touched at all.

Every output of cranfield (tables, reports, figures, TREC and Parquet files) goes through
:func:`atomic_write`, the one mechanism for writing:

* **Regular files**: content goes to a temporary file in the destination's folder, which is
  flushed, synced and renamed over the destination (``os.replace`` is atomic on POSIX and
  Windows). Any exception, ``KeyboardInterrupt`` (and the command line's SIGTERM/SIGHUP
  interrupts) included, removes the temporary file and leaves the destination as it was.
  An existing destination keeps its permission bits.
* **Symbolic links** are written through: the temporary file is made next to the link's
  resolved target and renamed over the target, so the link stays a link.
* **Special files** (character devices such as ``/dev/null`` or a terminal, FIFOs, sockets, and
  the names of open descriptors ``/dev/stdout``, ``/dev/stderr``, ``/dev/fd/N``,
  ``/proc/self/fd/N``) are written directly, in append mode: there is nothing to rename over.
* **Inputs are never overwritten**: a destination that is, or resolves to (through symbolic or
  hard links), one of the inputs is refused (``os.path.samefile``). Inputs are passed as
  ``inputs=`` or registered for a whole command with :func:`reading` (the command line
  registers every input file of every command).
* Errors while writing (no space left, file too large, permission denied, read-only file
  system, a character the encoding cannot represent) are one :class:`~cranfield.errors.UsageError`
  line naming the file; the destination is intact and no temporary file is left behind.
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import os
import re
import stat
import sys
import tempfile
from pathlib import Path
from typing import IO, Iterable, Iterator

from .._params import check_choice
from ..errors import UsageError

__all__ = ["atomic_write", "write_text_output", "reading", "registered_inputs", "check_output"]

# Errors of the writing itself (as opposed to an error of the code producing the content).
_WRITE_ERRNOS = frozenset(getattr(errno, name) for name in (
    "ENOSPC", "EFBIG", "EDQUOT", "EROFS", "EACCES", "EPERM", "EIO", "ENXIO", "EPIPE", "ETXTBSY", "ELOOP",
    "ENAMETOOLONG", "ENOTDIR", "ENOENT", "EISDIR") if hasattr(errno, name))

# Names of already open descriptors: writing them means writing that descriptor.
_DESCRIPTOR_NAME = re.compile(r"/dev/(stdout|stderr|fd/\d+)|/proc/(self|thread-self|\d+)/fd/\d+")

_INPUTS: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar("cranfield_inputs", default=())

_UMASK: list[int] = []


def _umask() -> int:
    """The process umask, read once (reading it means setting it, briefly)."""
    if not _UMASK:
        value = os.umask(0o022)
        os.umask(value)
        _UMASK.append(value)
    return _UMASK[0]


@contextlib.contextmanager
def reading(paths: Iterable[str | os.PathLike]) -> Iterator[None]:
    """Within the block, :func:`atomic_write` refuses to write over any of ``paths`` (inputs).

    Only existing regular files count (standard input, pipes and devices are not files one
    could lose). Blocks nest; the registry is per thread and per asyncio task (a context
    variable).
    """
    found = []
    for path in paths:
        try:
            name = os.fspath(path)
            if name != "-" and stat.S_ISREG(os.stat(name).st_mode):
                found.append(name)
        except (OSError, TypeError, ValueError):
            continue
    token = _INPUTS.set(_INPUTS.get() + tuple(found))
    try:
        yield
    finally:
        _INPUTS.reset(token)


def registered_inputs() -> tuple[str, ...]:
    """The input files registered by the enclosing :func:`reading` blocks."""
    return _INPUTS.get()


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _cannot_write(target, reason) -> UsageError:
    return UsageError(f"{target}: cannot write the output: {_one_line(reason)}")


def _reason(error: BaseException) -> str:
    if isinstance(error, UnicodeEncodeError):
        bad = error.object[error.start:error.end]
        return f"{bad!r} cannot be written in {error.encoding} ({error.reason})"
    if isinstance(error, OSError):
        return error.strerror or str(error)
    return str(error)


def _is_write_error(error: BaseException) -> bool:
    """An error of writing the output itself (not of the code that produces the content)."""
    if isinstance(error, UnicodeEncodeError):
        return True
    return isinstance(error, OSError) and error.errno in _WRITE_ERRNOS and error.filename is None


def _check_name(path) -> str:
    try:
        name = os.fspath(path)
    except TypeError:
        raise UsageError(f"output: expected a file name, found {path!r}") from None
    if isinstance(name, bytes):
        name = os.fsdecode(name)
    if not name:
        raise UsageError("output: expected a file name, found an empty one")
    if "\0" in name:
        raise UsageError(f"output: a file name cannot contain a NUL character, found {name!r}")
    return name


def _refuse_inputs(target: str, inputs: Iterable) -> None:
    for source in (*registered_inputs(), *inputs):
        try:
            same = os.path.samefile(target, source)
        except (OSError, TypeError, ValueError):
            continue
        if same:
            described = "" if os.fspath(source) == target else f" ({os.fspath(source)})"
            raise UsageError(f"{target}: refusing to write the output over an input{described}: they are the "
                             "same file; choose another output name")


def check_output(path, inputs: Iterable[str | os.PathLike] = ()) -> None:
    """Refuse, before any work, an output ``path`` that is one of the inputs (``inputs`` and
    those registered with :func:`reading`); :func:`atomic_write` checks again when it writes."""
    if path is None or (isinstance(path, str) and path == "-"):
        return
    _refuse_inputs(_check_name(path), inputs)


def _is_special(name: str) -> bool:
    """A destination to write directly: a descriptor's name, or an existing non-regular file."""
    if _DESCRIPTOR_NAME.fullmatch(os.path.abspath(name)):
        return True
    try:
        mode = os.stat(name).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def _text_options(mode: str, encoding: str | None) -> dict:
    return {} if "b" in mode else {"encoding": encoding, "newline": ""}


@contextlib.contextmanager
def _write_directly(name: str, mode: str, encoding: str | None) -> Iterator[IO]:
    try:
        handle = open(name, mode.replace("w", "a"), **_text_options(mode, encoding))
    except OSError as error:
        raise _cannot_write(name, _reason(error)) from None
    in_body = False
    try:
        with handle:
            in_body = True
            yield handle
            in_body = False
            handle.flush()
    except BaseException as error:
        if _is_write_error(error) or (not in_body and isinstance(error, OSError)):
            raise _cannot_write(name, _reason(error)) from None
        raise


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike, *, mode: str = "w", encoding: str | None = "utf-8",
                 inputs: Iterable[str | os.PathLike] = ()) -> Iterator[IO]:
    """Open a temporary file next to ``path`` (or next to the target of the link ``path``); on
    success rename it over the target. ``inputs``: files the output must not overwrite (in
    addition to those registered with :func:`reading`). See the module's documentation."""
    name = _check_name(path)
    check_choice(mode, "mode", ("w", "wb"))
    if os.path.isdir(name):
        raise UsageError(f"{name}: cannot write the output: is a folder, expected a file name")
    _refuse_inputs(name, inputs)
    if _is_special(name):
        with _write_directly(name, mode, encoding) as handle:
            yield handle
        return
    target = Path(os.path.realpath(name) if os.path.islink(name) else name)  # write through links
    if target.is_dir():
        raise UsageError(f"{name}: cannot write the output: the link points to a folder, expected a file")
    try:
        previous_mode = stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        previous_mode = 0o666 & ~_umask()  # as a plain open() would create it (mkstemp makes 0600)
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as error:  # missing folder, no permission, read-only file system
        raise _cannot_write(name, _reason(error)) from None
    in_body = False
    try:
        try:
            os.chmod(tmp_name, previous_mode)
            handle = os.fdopen(fd, mode, **_text_options(mode, encoding))
        except BaseException:
            os.close(fd)
            raise
        with handle:
            in_body = True
            yield handle
            in_body = False
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, target)
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        if _is_write_error(error) or (not in_body and isinstance(error, OSError)):
            raise _cannot_write(name, _reason(error)) from None
        raise


def write_text_output(text: str, output: str | os.PathLike | None, *,
                      inputs: Iterable[str | os.PathLike] = ()) -> None:
    """Write ``text`` to ``output`` atomically, or to standard output when ``output`` is None or '-'.

    On standard output, characters its encoding cannot represent (an ASCII-only terminal) are
    written as backslash escapes instead of failing.
    """
    if output is None or (isinstance(output, str) and output == "-"):
        stream = sys.stdout
        try:
            stream.write(text)
        except UnicodeEncodeError:
            encoding = getattr(stream, "encoding", None) or "ascii"
            stream.write(text.encode(encoding, "backslashreplace").decode(encoding))
        stream.flush()
        return
    with atomic_write(output, inputs=inputs) as handle:
        handle.write(text)
