"""open_input (issue 19, items 1 and 4): every source read once, compression streamed, no
foreign exception.

Each test can fail: the bytes read back are compared exactly, errors by class, message fragment
and source name; the FIFO and pipe tests fail (hang, then time out by their thread join) if a
source were opened twice; the memory test fails if gzip data were inflated whole.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as csv
import pytest

from cranfield.errors import InputError
from cranfield.io import sources
from cranfield.io.sources import open_input, read_all

TEXT = b"q1 0 d1 1\nq1 0 d2 0\nq2 0 d\xc3\xa9 2\n"
SRC = Path(__file__).resolve().parents[2] / "src"


def _lines(stream) -> list[bytes]:
    """What Arrow's CSV reader makes of the stream (one binary column per line)."""
    table = csv.read_csv(stream, read_options=csv.ReadOptions(column_names=["line"], block_size=1 << 16),
                         parse_options=csv.ParseOptions(delimiter="\x1f", quote_char=False),
                         convert_options=csv.ConvertOptions(column_types={"line": pa.binary()}))
    return table.column("line").to_pylist()


def _compress(kind: str, data: bytes) -> bytes:
    if kind == "gzip":
        return gzip.compress(data)
    if kind == "bz2":
        return bz2.compress(data)
    if kind == "xz":
        return lzma.compress(data)
    out = pa.BufferOutputStream()
    with pa.CompressedOutputStream(out, kind) as stream:
        stream.write(data)
    return out.getvalue().to_pybytes()


KINDS = ["gzip", "bz2", "xz"] + [k for k in ("zstd", "lz4") if pa.Codec.is_available(k)]


# ------------------------------------------------------------------------------ plain sources
def test_path_plain_and_pathlike(tmp_path):
    path = tmp_path / "q.txt"
    path.write_bytes(TEXT)
    assert read_all(str(path)) == TEXT
    assert read_all(path) == TEXT
    assert _lines(open_input(path, display_name="q")) == TEXT.splitlines()


def test_binary_and_text_file_objects():
    assert read_all(io.BytesIO(TEXT)) == TEXT
    assert read_all(io.StringIO(TEXT.decode("utf-8"))) == TEXT
    assert read_all(io.TextIOWrapper(io.BytesIO(TEXT), encoding="utf-8")) == TEXT


def test_caller_file_object_is_not_closed():
    handle = io.BytesIO(TEXT)
    stream = open_input(handle, display_name="x")
    assert _lines(stream) == TEXT.splitlines()
    stream.close()
    assert not handle.closed


def test_text_with_lone_surrogate_is_an_input_error():
    with pytest.raises(InputError, match="cannot encode character") as info:
        read_all(io.StringIO("q1 0 d\udcff 1\n"), display_name="qrels dict")
    assert info.value.source == "qrels dict"


def test_stdin_binary_buffer(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(TEXT), encoding="utf-8"))
    stream = open_input("-")
    assert _lines(stream) == TEXT.splitlines()


def test_stdin_text_only_and_gzip(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(TEXT.decode("utf-8")))
    assert read_all("-") == TEXT
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(gzip.compress(TEXT)), encoding="latin-1"))
    assert read_all("-") == TEXT  # the binary buffer is read, not the text layer


def test_stdin_errors_name_stdin(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(gzip.compress(TEXT)[:-9]), encoding="utf-8"))
    with pytest.raises(InputError, match="corrupt or truncated gzip data") as info:
        read_all("-")
    assert info.value.source == "<stdin>"


def test_empty_sources(tmp_path):
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    assert read_all(empty) == b""
    assert read_all(io.BytesIO(b"")) == b""
    assert read_all(io.BytesIO(gzip.compress(b""))) == b""


# ------------------------------------------------------------------------------ compression
@pytest.mark.parametrize("kind", KINDS)
def test_compressed_is_detected_by_magic_and_streamed(tmp_path, kind):
    path = tmp_path / "qrels.txt"  # the name says nothing: the magic bytes decide
    path.write_bytes(_compress(kind, TEXT))
    assert read_all(path) == TEXT
    assert _lines(open_input(path)) == TEXT.splitlines()
    assert read_all(io.BytesIO(_compress(kind, TEXT))) == TEXT


@pytest.mark.parametrize("kind", KINDS)
def test_truncated_compressed_data_is_an_input_error(tmp_path, kind):
    data = _compress(kind, TEXT * 50)
    path = tmp_path / f"run.{kind}"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match=f"corrupt or truncated {kind} data") as info:
        _lines(open_input(path))
    assert info.value.source == str(path)
    assert str(path) in str(info.value)


@pytest.mark.parametrize("kind", ["gzip", "bz2", "xz"])
def test_garbage_after_magic_is_an_input_error(tmp_path, kind):
    path = tmp_path / "bad"
    path.write_bytes(sources.COMPRESSIONS[kind] + b"\x00garbage, not compressed data" * 10)
    with pytest.raises(InputError, match=f"corrupt or truncated {kind} data"):
        read_all(path)


def test_concatenated_gzip_members(tmp_path):
    path = tmp_path / "two.gz"
    path.write_bytes(gzip.compress(TEXT) + gzip.compress(b"q3 0 d9 1\n"))
    assert read_all(path) == TEXT + b"q3 0 d9 1\n"


def test_unsupported_compression_is_an_input_error(monkeypatch):
    monkeypatch.setattr(sources, "_codec_available", lambda name: False)
    with pytest.raises(InputError, match="unsupported compression: zstd"):
        read_all(io.BytesIO(b"\x28\xb5\x2f\xfd" + b"\x00" * 20), display_name="run.zst")


def test_parquet_bytes_are_not_read_as_text(tmp_path):
    import pyarrow.parquet as pq

    path = tmp_path / "run.txt"
    pq.write_table(pa.table({"qid": ["q1"]}), path)
    with pytest.raises(InputError, match="Parquet data where text was expected") as info:
        open_input(path)
    assert info.value.source == str(path)
    with pytest.raises(InputError, match="Parquet data where text was expected"):
        open_input(io.BytesIO(gzip.compress(path.read_bytes())))


# ------------------------------------------------------------------------------ OS errors
def test_missing_file_and_directory(tmp_path):
    with pytest.raises(InputError, match="no such file") as info:
        open_input(tmp_path / "nope.txt")
    assert info.value.source == str(tmp_path / "nope.txt")
    with pytest.raises(InputError, match="is a directory, expected a file"):
        open_input(tmp_path)


def test_permission_denied(tmp_path, monkeypatch):
    path = tmp_path / "secret.txt"
    path.write_bytes(TEXT)

    def denied(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(sources, "open", denied, raising=False)  # tests run as root: chmod would not stop us
    with pytest.raises(InputError, match="permission denied") as info:
        open_input(path, display_name="secret.txt")
    assert info.value.source == "secret.txt"


def test_read_error_in_the_middle_is_an_input_error():
    class Broken(io.RawIOBase):
        calls = 0

        def readable(self):
            return True

        def readinto(self, buffer):
            Broken.calls += 1
            if Broken.calls > 2:
                raise OSError(5, "Input/output error")
            buffer[:10] = b"q1 0 d1 1\n"
            return 10

    with pytest.raises(InputError, match="cannot read \\(Input/output error\\)"):
        _lines(open_input(Broken(), display_name="disk"))


def test_not_a_source():
    with pytest.raises(InputError, match="expected a path, '-' or a file object, found int"):
        open_input(3, display_name="x")
    with pytest.raises(InputError, match="found bytes \\(wrap data in io.BytesIO"):
        open_input(b"q1 0 d1 1\n", display_name="x")


def test_own_handle_closed_on_error(tmp_path, monkeypatch):
    import pyarrow.parquet as pq

    path = tmp_path / "run.txt"
    pq.write_table(pa.table({"qid": ["q1"]}), path)
    opened = []
    real_open = open

    def tracking(*args, **kwargs):
        handle = real_open(*args, **kwargs)
        opened.append(handle)
        return handle

    monkeypatch.setattr(sources, "open", tracking, raising=False)
    with pytest.raises(InputError, match="Parquet data"):
        open_input(path)
    assert len(opened) == 1 and opened[0].closed


# ------------------------------------------------------------------------------ read once
def _writer(path_or_fd, data: bytes, opened: list) -> threading.Thread:
    def write():
        if isinstance(path_or_fd, int):
            with os.fdopen(path_or_fd, "wb") as handle:
                handle.write(data)
        else:
            with open(path_or_fd, "wb") as handle:  # a FIFO opened a second time would block here
                opened.append(1)
                for i in range(0, len(data), 4096):
                    handle.write(data[i:i + 4096])
    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize("compressed", [False, True])
def test_fifo_is_read_once(tmp_path, compressed):
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    payload = TEXT * 2000
    opened: list = []
    thread = _writer(fifo, gzip.compress(payload) if compressed else payload, opened)
    assert read_all(fifo) == payload
    thread.join(timeout=20)
    assert not thread.is_alive() and opened == [1]


def test_pipe_through_dev_fd_process_substitution():
    if not os.path.isdir("/dev/fd"):
        pytest.skip("no /dev/fd")
    read_end, write_end = os.pipe()
    payload = TEXT * 5000  # more than a pipe's buffer: the writer blocks until we read
    thread = _writer(write_end, bz2.compress(payload), [])
    try:
        assert _lines(open_input(f"/dev/fd/{read_end}")) == payload.splitlines()
    finally:
        os.close(read_end)
    thread.join(timeout=20)
    assert not thread.is_alive()


def test_pipe_file_object_short_reads():
    """A pipe returns fewer bytes than asked: the sniff must still see the whole magic."""
    class Trickle(io.RawIOBase):
        def __init__(self, data):
            self.data = data

        def readable(self):
            return True

        def readinto(self, buffer):
            n = min(1, len(buffer), len(self.data))  # one byte per read
            buffer[:n], self.data = self.data[:n], self.data[n:]
            return n

    assert read_all(Trickle(lzma.compress(TEXT)), display_name="pipe") == TEXT


def test_a_real_subprocess_pipe():
    process = subprocess.Popen([sys.executable, "-c", "import sys, gzip; sys.stdout.buffer.write(gzip.compress("
                                f"{TEXT!r} * 100))"], stdout=subprocess.PIPE)
    try:
        assert read_all(process.stdout, display_name="pipe") == TEXT * 100
    finally:
        process.stdout.close()
        process.wait(timeout=30)


# ------------------------------------------------------------------------------ memory
def test_gzip_is_not_decompressed_whole(tmp_path):
    """200 MB of text in ~1 MB of gzip, read through open_input in 4 MB reads (a block reader's
    requests): the stream must not hold the 200 MB (the old reader's gzip.decompress held it, and
    its compressed copy: +400 MB). Peak RSS (VmHWM) of a fresh process; the bound (+64 MB) is
    generous. (Arrow's streaming CSV reader on top adds its own read-ahead, bounded at about
    200 MB whatever the file size: see docs/benchmarks/reading_memory.md.)"""
    path = tmp_path / "big.gz"
    line = b"q1 0 d1 1\n"
    with gzip.open(path, "wb", compresslevel=1) as handle:
        chunk = line * (1 << 20)  # 10 MB
        for _ in range(20):
            handle.write(chunk)
    script = textwrap.dedent(f"""
        import resource, sys
        sys.path.insert(0, {str(SRC)!r})
        import pyarrow
        from cranfield.io.sources import open_input
        def peak_kb():  # this process's own peak (ru_maxrss starts at pytest's, inherited at fork)
            for line in open("/proc/self/status"):
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
            return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        before = peak_kb()
        stream = open_input({str(path)!r})
        total = newlines = 0
        while True:
            block = stream.read(1 << 22)
            if not block:
                break
            total += len(block)
            newlines += block.count(b"\\n")
        print(newlines, total, peak_kb() - before)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=True)
    rows, total, grown_kb = map(int, out.stdout.split())
    assert (rows, total) == (20 * (1 << 20), 200 * (1 << 20))
    assert grown_kb < 64 * 1024, f"peak RSS grew by {grown_kb / 1024:.0f} MB reading 200 MB of gzip text"


def test_is_parquet_decides_by_name_and_never_opens(tmp_path, monkeypatch):
    """A FIFO was opened to sniff Parquet's magic, then reopened by the text reader (a hang)."""
    import pyarrow.parquet as pq

    from cranfield.io.parquet import is_parquet

    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    assert is_parquet(fifo) is False  # returns at once: no open() that waits for a writer
    named_txt = tmp_path / "run.txt"
    pq.write_table(pa.table({"qid": ["q1"]}), named_txt)
    assert is_parquet(named_txt) is False  # the magic does not change how it is read
    assert is_parquet(tmp_path / "missing.parquet") is True
    (tmp_path / "ds").mkdir()
    pq.write_table(pa.table({"qid": ["q1"]}), tmp_path / "ds" / "a.parquet")
    assert is_parquet(tmp_path / "ds") is True and is_parquet(tmp_path / "ds" / "a.parquet") is True
