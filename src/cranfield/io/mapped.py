"""A regular, uncompressed file read through a memory map, in blocks of whole lines.

The TREC reader takes its blocks from here when its input is such a file (see
:func:`cranfield.io.sources.open_input_counted`): the parsers read the file's pages where the
system keeps them, without a copy into fresh memory, and each block's pages are let go once it is
parsed (so the resident set does not grow with the file). Every other input (standard input, a
pipe, a compressed file, a file object) is read as a stream.

Both ways apply the same limits of :mod:`cranfield.io.sources` with the same messages (one home:
:func:`line_limit_error`, :func:`input_limit_error`): more than ``CRANFIELD_MAX_INPUT_BYTES``
bytes, or a line of more than ``CRANFIELD_MAX_LINE_BYTES`` bytes without a line end.

As with every memory-mapped reader, a file cut short by another program *while* it is read stops
the process (SIGBUS): replace a file by writing a new one and renaming it over the old (as
cranfield writes its own outputs) rather than truncating it in place.
"""

from __future__ import annotations

import mmap

from ..errors import InputError

__all__ = ["MappedFile", "line_limit_error", "input_limit_error"]

_PAGE = mmap.PAGESIZE


def line_limit_error(max_line: int, name: str) -> InputError:
    return InputError(f"a line longer than {max_line} bytes (no line end); expected text lines "
                      "(the limit is CRANFIELD_MAX_LINE_BYTES)", source=name)


def input_limit_error(max_total: int, name: str) -> InputError:
    return InputError(f"more than {max_total} bytes (decompressed); refused (the limit is "
                      "CRANFIELD_MAX_INPUT_BYTES)", source=name)


class MappedFile:
    """The bytes of an open regular file of ``size`` > 0 bytes, mapped read-only (the caller
    closes its handle: the map keeps its own). Raises the input limit's error up front."""

    def __init__(self, handle, size: int, name: str, max_line: int, max_total: int) -> None:
        if size > max_total:
            raise input_limit_error(max_total, name)
        self.data = mmap.mmap(handle.fileno(), size, access=mmap.ACCESS_READ)
        self._size, self._name, self._max_line = size, name, max_line
        self._position = 0

    def startswith(self, prefix: bytes) -> bool:
        return self.data[:len(prefix)] == prefix

    def blocks(self, size: int, start: int = 0):
        """``(data, start, end)`` from byte ``start`` on: ``data[start:end]`` is a block of whole
        lines (the file's last line may lack its LF) of about ``size`` bytes; a longer line makes a
        longer block. Raises the line limit's error at a line longer than the limit."""
        data, total = self.data, self._size
        window = max(1, min(int(size), self._max_line))  # a longer line crosses a window's end
        position = start
        if start >= total:  # nothing but the skipped bytes: they are still a line's bytes to the limit
            self._line_end(0)
        while position < total:
            line = 0 if position == start else position  # the first line counted from the file's start, as the stream
            stop = line + window
            if stop >= total:
                end = total
            else:
                end = data.rfind(b"\n", position, stop) + 1
                if end == 0:  # the line that starts here is longer than the window
                    end = self._line_end(line)
            self._position = end
            yield data, position, end
            position = end

    def _line_end(self, position: int) -> int:
        """One past the LF that ends the line from ``position`` on (or the file's end), after
        checking that no more than the limit's bytes in a row hold no line end (LF or CR: old Mac
        text, whose lines the grammar then names), as the stream's limit does."""
        data, total = self.data, self._size
        while True:
            limit = min(position + self._max_line + 1, total)  # a line end there leaves max_line bytes before it
            newline = data.find(b"\n", position, limit)
            if newline >= 0:
                return newline + 1
            if total - position <= self._max_line:  # the file's last line, within the limit
                return total
            position = data.rfind(b"\r", position, limit) + 1  # the last CR of the window: shorter runs before it
            if position == 0:
                raise line_limit_error(self._max_line, self._name)

    def release(self, start: int, end: int) -> None:
        """Lets go of the pages wholly inside ``[start, end)`` (read again from the file if touched)."""
        first = start - start % _PAGE
        last = end - end % _PAGE
        if last > first and hasattr(mmap, "MADV_DONTNEED"):
            self.data.madvise(mmap.MADV_DONTNEED, first, last - first)

    def position(self) -> int:
        """Bytes of the file handed out in blocks so far (for progress)."""
        return self._position

    def close(self) -> None:
        """Nothing to do: the map is unmapped when the last block referring to it is gone."""
