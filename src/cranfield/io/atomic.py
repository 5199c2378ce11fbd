"""Atomic output: a file is either fully written or not touched at all.

Content goes to a temporary file in the destination's folder, which is flushed, synced and
renamed over the destination (``os.replace`` is atomic on POSIX and Windows). Any exception,
``KeyboardInterrupt`` included, removes the temporary file and leaves the destination as it was.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from pathlib import Path
from typing import IO, Iterator

from ..errors import UsageError

__all__ = ["atomic_write", "write_text_output"]


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike, *, mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO]:
    """Open a temporary file next to ``path``; on success rename it to ``path``."""
    target = Path(path)
    binary = "b" in mode
    if target.is_dir():
        raise UsageError(f"{target}: cannot write the output: is a folder, expected a file name")
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent or ".")
    except OSError as error:  # missing folder, no permission, read-only file system
        raise UsageError(f"{target}: cannot write the output: {error.strerror or error}") from None
    umask = os.umask(0)
    os.umask(umask)
    try:
        os.chmod(tmp_name, 0o666 & ~umask)  # mkstemp makes 0600; a plain open() would honour the umask
        with os.fdopen(fd, mode, **({} if binary else {"encoding": encoding, "newline": ""})) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise


def write_text_output(text: str, output: str | os.PathLike | None) -> None:
    """Write ``text`` to ``output`` atomically, or to standard output when ``output`` is None or '-'."""
    if output is None or str(output) == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    with atomic_write(output) as handle:
        handle.write(text)
