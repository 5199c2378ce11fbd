"""Open any input source once, as one Arrow-readable byte stream: the only way readers open data.

:func:`open_input` takes a path, ``-`` (standard input), a binary or text file object, a named
pipe (FIFO), a pipe or ``/dev/fd/N`` (process substitution) and returns a stream that
``pyarrow.csv.read_csv`` / ``open_csv`` (and anything reading a file object) accept.

Rules (issue 19, items 1 and 4):

* **Read once.** A source is opened once and read front to back, as trec_eval does; the first
  bytes are sniffed by reading them into a small prefix that is then served again, never by
  reopening or seeking (a FIFO or a pipe cannot be read twice).
* **Compression is detected by its magic bytes** and streamed: gzip (several members too), bz2,
  xz (Python's modules), zstd and lz4 frames (Arrow's codecs, where this pyarrow has them; else an
  "unsupported compression" error). Memory stays bounded by the block the reader asks for,
  whatever the ratio (a gzip bomb is read in blocks, not inflated whole).
* **Bounded.** Every stream is read in blocks of at most 1 MiB, and refused (an
  :class:`InputError`) when a line runs past :func:`max_line_bytes` (64 MiB by default; the
  environment variable ``CRANFIELD_MAX_LINE_BYTES``) or the whole (decompressed) input past
  :func:`max_input_bytes` (256 GiB; ``CRANFIELD_MAX_INPUT_BYTES``): a character device such as
  ``/dev/zero`` or a gzip bomb is refused with bounded memory instead of filling it.
* **Mapped where it pays.** A reader of blocks of lines (the TREC reader) may ask for a regular,
  uncompressed file as a memory map instead (:mod:`cranfield.io.mapped`): no copy, the same
  refusals and limits, decided on the file's own bytes, never on its name.
* **UTF-8 only.** A UTF-16 (or UTF-32) file, recognised by its byte-order mark or by NUL bytes
  between the characters of its first line, is an error saying so (convert it to UTF-8).
* **Parquet is not text.** Parquet bytes given to a text reader are an error saying so, never a
  guess (Parquet files and datasets are read by :mod:`cranfield.io.parquet`, chosen by the
  caller).
* **No foreign exception.** A missing file, a directory, a permission problem, corrupt or
  truncated compressed data, text that cannot be encoded as UTF-8: an :class:`InputError` that
  names the source (``display_name``) and says what was expected. The error is raised by the
  stream's ``read`` and comes out of Arrow's readers unchanged (Arrow re-raises the Python
  exception of a Python file object).

    >>> import io, pyarrow.csv as csv
    >>> stream = open_input(io.BytesIO(b"q1 0 d1 1\\n"), display_name="qrels")
    >>> csv.read_csv(stream, read_options=csv.ReadOptions(column_names=["line"])).num_rows
    1
"""

from __future__ import annotations

import io
import os
import stat
import sys

from ..errors import InputError, UsageError
from .mapped import MappedFile, input_limit_error, line_limit_error

__all__ = ["open_input", "open_input_counted", "read_all", "display_name_of", "COMPRESSIONS", "SNIFF_BYTES",
           "max_line_bytes", "max_input_bytes"]

SNIFF_BYTES = 8  # enough for every magic below
_READ_SIZE = 1 << 20  # bytes per read of the decompressed stream (the reader asks for its blocks)

# name -> magic bytes (https://www.iana.org/assignments/media-types and the formats' specs)
COMPRESSIONS = {
    "gzip": b"\x1f\x8b",
    "bz2": b"BZh",
    "xz": b"\xfd7zXZ\x00",
    "zstd": b"\x28\xb5\x2f\xfd",
    "lz4": b"\x04\x22\x4d\x18",
}
_PARQUET_MAGIC = b"PAR1"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")
_DEFAULT_MAX_LINE = 1 << 26  # 64 MiB
_DEFAULT_MAX_INPUT = 1 << 38  # 256 GiB


def _limit(variable: str, default: int) -> int:
    text = os.environ.get(variable, "")
    if not text:
        return default
    if not text.isdigit() or int(text) < 1:
        raise UsageError(f"{variable}: expected a positive number of bytes, found {text!r}")
    return int(text)


def max_line_bytes() -> int:
    """The longest line any reader accepts, in bytes: ``CRANFIELD_MAX_LINE_BYTES`` or 64 MiB."""
    return _limit("CRANFIELD_MAX_LINE_BYTES", _DEFAULT_MAX_LINE)


def max_input_bytes() -> int:
    """The most (decompressed) bytes any reader accepts from one source:
    ``CRANFIELD_MAX_INPUT_BYTES`` or 256 GiB."""
    return _limit("CRANFIELD_MAX_INPUT_BYTES", _DEFAULT_MAX_INPUT)


def display_name_of(source) -> str:
    """The name errors use for a source: the path, ``<stdin>`` for ``-``, a file object's name."""
    if source is None or (isinstance(source, str) and source == "-"):
        return "<stdin>"
    if isinstance(source, (str, os.PathLike)):
        return os.fsdecode(source)
    name = getattr(source, "name", None)
    if isinstance(name, (str, bytes)) and name not in ("", b""):
        return "<stdin>" if name == "<stdin>" else os.fsdecode(name)
    return "<stream>"


def open_input(source, *, display_name: str | None = None):
    """An Arrow-readable binary stream of ``source``, decompressed, read once.

    ``source``: a path (str or ``os.PathLike``; a regular file, a FIFO, ``/dev/fd/N``, ``/dev/stdin``),
    ``"-"`` for standard input, or a binary or text file object (text is encoded as UTF-8).
    ``display_name``: the name errors give (default: :func:`display_name_of`).
    The caller owns the returned stream (``close()`` it, or let it be collected); a file object
    given by the caller is not closed.
    """
    import pyarrow as pa

    name = display_name if display_name is not None else display_name_of(source)
    return pa.PythonFile(io.BufferedReader(_open_stream(source, name), buffer_size=_READ_SIZE), mode="r")


def open_input_counted(source, *, display_name: str | None = None,
                       mapped: bool = False) -> "CountedInput | MappedFile":
    """:func:`open_input` for readers that report progress: ``read(n)``, ``close()`` and
    ``position()``, the bytes consumed from the source itself (compressed bytes for a compressed
    file, so that progress is measured against the file's size). ``mapped=True``: a regular,
    uncompressed file of at least one byte comes back as a :class:`cranfield.io.mapped.MappedFile`
    instead (read in blocks of lines through a memory map; the same refusals and limits)."""
    name = display_name if display_name is not None else display_name_of(source)
    raw = _raw_binary(source, name)
    if mapped:
        whole = _mapped_file(raw, name)
        if whole is not None:
            return whole
    return CountedInput(io.BufferedReader(_open_stream(source, name, raw), buffer_size=_READ_SIZE), raw)


def _mapped_file(raw: "_Guarded", name: str) -> "MappedFile | None":
    """Our own handle's file mapped, if it is a regular, uncompressed file of at least one byte
    (the handle is then closed), after the refusals of :func:`_open_stream`; else None."""
    handle = raw.handle_if_owned_file()
    if handle is None:
        return None
    try:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size == 0:
            return None
        head = os.pread(handle.fileno(), SNIFF_BYTES, 0)  # the offset stays at 0 for the stream
    except (OSError, AttributeError):  # (no pread on some systems)
        return None
    if _compression(head) is not None:
        return None
    try:
        _refuse_parquet(head, name)
        _refuse_utf16(head, name)
        try:
            whole = MappedFile(handle, info.st_size, name, max_line_bytes(), max_input_bytes())
        except (OSError, ValueError):  # a file system without maps: read it as a stream
            return None
    except BaseException:
        raw.close()
        raise
    raw.close()
    return whole


class CountedInput:
    """The decompressed bytes of a source, with the count of source bytes consumed so far."""

    def __init__(self, stream, raw: "_Guarded") -> None:
        self._stream, self._raw = stream, raw

    def read(self, size: int = -1) -> bytes:
        return self._stream.read(size)

    def position(self) -> int:
        return self._raw.consumed

    def close(self) -> None:
        self._stream.close()


def _open_stream(source, name: str, raw=None) -> io.RawIOBase:
    """The decompressed bytes of ``source`` as a raw stream (sniffed, never rewound)."""
    raw = _raw_binary(source, name) if raw is None else raw
    try:
        head = _read_exactly(raw, SNIFF_BYTES, name)
        compression = _compression(head)
        stream: io.RawIOBase = _Prefixed(head, raw, name)
        if compression is not None:
            stream = _Decompressed(_decompressor(compression, stream, name), stream, name, compression)
            first = _read_exactly(stream, len(_PARQUET_MAGIC), name)
            _refuse_parquet(first, name)
            _refuse_utf16(first, name)
            stream = _Prefixed(first, stream, name)
        else:
            _refuse_parquet(head, name)
            _refuse_utf16(head, name)
    except BaseException:
        raw.close()  # our own file handle; a caller's file object is left open
        raise
    return _Bounded(stream, name, max_line_bytes(), max_input_bytes())


# ---------------------------------------------------------------------------------------- opening
def _raw_binary(source, name: str):
    """A readable binary file object for the source, opened once (errors as InputError)."""
    if isinstance(source, str) and source == "-":
        stdin = sys.stdin
        if stdin is None:
            raise InputError("no standard input to read", source=name)
        buffer = getattr(stdin, "buffer", None)
        return _Guarded(buffer if buffer is not None else _Encoded(stdin, name), name, owned=False)
    if isinstance(source, (str, os.PathLike)):
        return _Guarded(_open_path(source, name), name, owned=True)
    if isinstance(source, (bytes, bytearray, memoryview)):  # data or a path in bytes? no guess
        raise InputError(f"expected a path, '-' or a file object, found {type(source).__name__} "
                         "(wrap data in io.BytesIO, decode a path with os.fsdecode)", source=name)
    if not hasattr(source, "read"):
        raise InputError(f"expected a path, '-' or a file object, found {type(source).__name__}", source=name)
    if isinstance(source, io.TextIOBase) or _reads_text(source):
        return _Guarded(_Encoded(source, name), name, owned=False)
    return _Guarded(source, name, owned=False)


def _reads_text(handle) -> bool:
    mode = getattr(handle, "mode", None)
    return isinstance(mode, str) and "b" not in mode and "r" in mode


def _open_path(path, name: str):
    try:
        # no stat before open: a FIFO is opened (and waits for its writer) exactly once
        handle = open(path, "rb", buffering=0)
    except FileNotFoundError:
        raise InputError("no such file", source=name) from None
    except IsADirectoryError:
        raise InputError("is a directory, expected a file", source=name) from None
    except PermissionError:
        raise InputError("permission denied, expected a readable file", source=name) from None
    except OSError as error:
        raise InputError(f"cannot open ({error.strerror or error}), expected a readable file", source=name) from None
    try:
        mode = os.fstat(handle.fileno()).st_mode
    except OSError:  # pragma: no cover - fstat of an open descriptor
        mode = 0
    if stat.S_ISDIR(mode):  # some systems open a directory read-only without complaint
        handle.close()
        raise InputError("is a directory, expected a file", source=name)
    return handle


def _read_exactly(stream, size: int, name: str) -> bytes:
    """Up to ``size`` bytes (fewer only at the end of the data): a pipe may return less per read."""
    parts = []
    wanted = size
    while wanted > 0:
        chunk = stream.read(wanted)
        if not chunk:
            break
        parts.append(chunk)
        wanted -= len(chunk)
    return b"".join(parts)


def _compression(head: bytes) -> str | None:
    for name, magic in COMPRESSIONS.items():
        if head.startswith(magic):
            return name
    return None


def _refuse_parquet(head: bytes, name: str) -> None:
    if head.startswith(_PARQUET_MAGIC):
        raise InputError("Parquet data where text was expected; give a Parquet file a .parquet name "
                         "(or read it with the Parquet reader)", source=name)


def _refuse_utf16(head: bytes, name: str) -> None:
    """UTF-16/32 by a byte-order mark, or NULs at every other byte of the first characters."""
    even, odd = head[0:8:2], head[1:8:2]
    nuls = len(head) >= 4 and ((not any(odd) and all(even)) or (not any(even) and all(odd)))
    if head.startswith(_UTF16_BOMS) or nuls:
        raise InputError("this file is UTF-16 (or UTF-32) text; convert it to UTF-8 (e.g. iconv -f UTF-16 -t UTF-8)",
                         source=name)


def _decompressor(kind: str, stream, name: str):
    """A file object yielding the decompressed bytes of ``stream`` (never all at once)."""
    if kind == "gzip":
        import gzip

        return gzip.GzipFile(fileobj=stream, mode="rb")
    if kind == "bz2":
        import bz2

        return bz2.BZ2File(stream, mode="rb")
    if kind == "xz":
        import lzma

        return lzma.LZMAFile(stream, mode="rb")
    import pyarrow as pa

    if not _codec_available(kind):
        raise InputError(f"unsupported compression: {kind} data, which this installation cannot read; "
                         "expected plain text, gzip, bz2 or xz", source=name)
    return _ArrowStream(pa.CompressedInputStream(pa.PythonFile(stream, mode="r"), kind))


def _codec_available(kind: str) -> bool:
    import pyarrow as pa

    return bool(pa.Codec.is_available(kind))


# ---------------------------------------------------------------------------------------- streams
class _Raw(io.RawIOBase):
    """A readable, non-seekable raw stream built on ``_read(size)``."""

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def readinto(self, buffer) -> int:
        data = self.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)


class _Guarded(_Raw):
    """The caller's or our own file object, with OS errors during reading turned into InputError."""

    def __init__(self, handle, name: str, *, owned: bool) -> None:
        self._handle, self._name, self._owned = handle, name, owned
        self.consumed = 0  # bytes read from the source (compressed bytes, for a compressed file)

    def read(self, size: int = -1) -> bytes:
        data = self._guarded(self._handle.read, size)
        if isinstance(data, str):
            raise InputError("text where bytes were expected", source=self._name)
        self.consumed += len(data)
        return bytes(data)

    def handle_if_owned_file(self) -> "io.FileIO | None":
        """The file this opened itself (a path's), untouched so far; None for a caller's stream."""
        return self._handle if self._owned and self.consumed == 0 and isinstance(self._handle, io.FileIO) else None

    def readinto(self, buffer) -> int:
        """Our own file's bytes straight into ``buffer`` (no bytes object between, no copy)."""
        if not isinstance(self._handle, io.FileIO):
            return super().readinto(buffer)
        count = self._guarded(self._handle.readinto, buffer)
        self.consumed += count
        return count

    def _guarded(self, method, argument):
        try:
            result = method(argument)
        except InputError:
            raise
        except IsADirectoryError:
            raise InputError("is a directory, expected a file", source=self._name) from None
        except (OSError, ValueError) as error:  # EIO, a closed file, ...
            raise InputError(f"cannot read ({_reason(error)}), expected a readable file",
                             source=self._name) from None
        if result is None:  # a non-blocking stream with nothing ready: nothing to read yet is not EOF
            raise InputError("non-blocking stream returned no data, expected a blocking file or pipe",
                             source=self._name)
        return result

    def close(self) -> None:
        if self._owned and not self.closed:
            self._handle.close()
        super().close()


class _Encoded(_Raw):
    """A text file object read in pieces and encoded as UTF-8 (an unencodable character is an error)."""

    def __init__(self, handle, name: str) -> None:
        self._handle, self._name, self._pending = handle, name, b""

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:
            text = self._handle.read()
            return self._pending + self._encode(text)
        while len(self._pending) < size:
            text = self._handle.read(max(size // 4, 1))
            if not text:
                break
            self._pending += self._encode(text)
        data, self._pending = self._pending[:size], self._pending[size:]
        return data

    def _encode(self, text) -> bytes:
        if isinstance(text, (bytes, bytearray)):
            return bytes(text)
        try:
            return text.encode("utf-8")
        except UnicodeEncodeError as error:
            raise InputError(f"cannot encode character {text[error.start]!r} as UTF-8 "
                             f"(a lone surrogate?); expected UTF-8 text", source=self._name) from None


class _Prefixed(_Raw):
    """``prefix`` (bytes already read from ``rest``) followed by the rest of the stream."""

    def __init__(self, prefix: bytes, rest, name: str) -> None:
        self._prefix, self._rest, self._name = prefix, rest, name

    def read(self, size: int = -1) -> bytes:
        if self._prefix:
            if size is None or size < 0:
                data, self._prefix = self._prefix + self._rest.read(), b""
                return data
            data, self._prefix = self._prefix[:size], self._prefix[size:]
            return data
        return self._rest.read(size)

    def readinto(self, buffer) -> int:
        return super().readinto(buffer) if self._prefix else self._rest.readinto(buffer)

    def close(self) -> None:
        if not self.closed:
            self._rest.close()
        super().close()


class _ArrowStream:
    """Arrow's input stream with a Python file object's ``read``."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def read(self, size: int = -1) -> bytes:
        return self._stream.read() if size is None or size < 0 else self._stream.read(size)

    def close(self) -> None:
        self._stream.close()


class _Decompressed(_Raw):
    """Decompressed bytes; corrupt or truncated data is an InputError naming the source."""

    def __init__(self, handle, compressed, name: str, kind: str) -> None:
        self._handle, self._compressed, self._name, self._kind = handle, compressed, name, kind

    def read(self, size: int = -1) -> bytes:
        try:
            return self._handle.read(_READ_SIZE if size is None or size < 0 else size)
        except InputError:
            raise
        except MemoryError:
            raise InputError(f"{self._kind} data too large to decompress in memory", source=self._name) from None
        except Exception as error:  # EOFError, BadGzipFile, zlib.error, LZMAError, OSError, ArrowInvalid...
            raise InputError(f"corrupt or truncated {self._kind} data ({_reason(error)})",
                             source=self._name) from None

    def close(self) -> None:
        if not self.closed:
            try:
                self._handle.close()
            except Exception:  # closing a broken decompressor must not hide the real error
                pass
            self._compressed.close()
        super().close()


class _Bounded(_Raw):
    """A stream refused past ``max_line`` bytes without a line end or ``max_total`` bytes in all."""

    def __init__(self, stream, name: str, max_line: int, max_total: int) -> None:
        self._stream, self._name, self._max_line, self._max_total = stream, name, max_line, max_total
        self._total = 0
        self._open_line = 0  # bytes since the last line end

    def read(self, size: int = -1) -> bytes:
        data = self._stream.read(_READ_SIZE if size is None or size < 0 else min(size, _READ_SIZE))
        if data:
            self._count(data)
        return data

    def readinto(self, buffer) -> int:
        """As :meth:`read`, into ``buffer`` (the bytes are not copied; the line ends are looked for
        from both ends of what was read)."""
        view = memoryview(buffer).cast("B")[:_READ_SIZE]
        count = self._stream.readinto(view)
        if count:
            self._count(view[:count])
        return count

    def _count(self, data) -> None:
        """Account for the bytes ``data``: refused once more than ``max_line`` bytes in a row hold no
        line end (LF, or CR: old Mac text), on whatever reads they came, or past ``max_total``."""
        size = len(data)
        self._total += size
        first, last = _line_end(data, last=False), _line_end(data, last=True)
        if first < 0:
            self._open_line += size
        elif self._open_line + first > self._max_line or (size > self._max_line and
                                                          _longest_line(data) > self._max_line):
            raise line_limit_error(self._max_line, self._name)
        else:
            self._open_line = size - last - 1
        if self._open_line > self._max_line:
            raise line_limit_error(self._max_line, self._name)
        if self._total > self._max_total:
            raise input_limit_error(self._max_total, self._name)

    def close(self) -> None:
        if not self.closed:
            self._stream.close()
        super().close()


def _line_end(data, *, last: bool) -> int:
    """The position of the first (or last) line end, LF or CR, in ``data``, or -1; bytes are copied
    only in the windows searched from that end (a line end is usually within the first bytes)."""
    size, window, done = len(data), 4096, 0
    while done < size:
        start, stop = (max(0, size - done - window), size - done) if last else (done, min(size, done + window))
        piece = bytes(data[start:stop])
        search = piece.rfind if last else piece.find
        found = [at for at in (search(b"\n"), search(b"\r")) if at >= 0]
        if found:
            return start + (max(found) if last else min(found))
        done, window = done + (stop - start), window * 16
    return -1


def _longest_line(data) -> int:
    """The most bytes in a row without a line end (LF or CR) in ``data``."""
    import numpy as np

    b = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero((b == 10) | (b == 13))
    return int(np.diff(ends, prepend=-1, append=b.size).max()) - 1


def _reason(error: BaseException) -> str:
    text = getattr(error, "strerror", None) or str(error) or type(error).__name__
    return str(text).splitlines()[0] if str(text) else type(error).__name__


def read_text_lines(source) -> tuple[str, list[str]]:
    """``(display name, lines)`` of a small UTF-8 text source (a table of one line per query, run or
    document), each line without its ``\\n``, a final empty line dropped; a byte that is not UTF-8
    is an error naming its offset (UTF-16 is refused by :func:`open_input`)."""
    name = display_name_of(source)
    data = read_all(source, display_name=name)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(f"expected UTF-8 text, found byte {data[error.start]:#04x} at offset {error.start}",
                         source=name) from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return name, lines


def blank_separated_pairs(name: str, lines: list[str], fields: tuple[str, str], headers=()):
    """``(line number, first, second)`` for each line of two blank-separated fields (a ``\\r`` before
    the line end dropped); a first line equal (case aside) to one of ``headers`` is skipped; a blank
    line or another number of fields is an error naming the line."""
    expected = f"'{fields[0]} {fields[1]}'"
    for number, line in enumerate(lines, start=1):
        parts = (line[:-1] if line.endswith("\r") else line).split()
        if not parts:
            raise InputError(f"blank line; expected {expected}", source=name, line=number)
        if len(parts) != 2:
            raise InputError(f"expected 2 fields {expected}, found {len(parts)}", source=name, line=number)
        if number == 1 and (parts[0].lower(), parts[1].lower()) in headers:
            continue
        yield number, parts[0], parts[1]


def read_all(source, *, display_name: str | None = None) -> bytes:
    """Every (decompressed) byte of a source, read once: for small inputs and tests."""
    stream = open_input(source, display_name=display_name)
    try:
        parts = []
        while True:  # read(None) would ask the stream for its size, which a pipe has not
            part = stream.read(_READ_SIZE)
            if not part:
                return b"".join(parts)
            parts.append(part)
    finally:
        stream.close()

