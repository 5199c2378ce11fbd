"""Issue 24, root causes 6 and 7: endless inputs are refused with bounded memory, and messages
that help (UTF-16 text, a directory as a run, QRELS and RUN swapped).

The memory checks run each read in a subprocess and compare its peak resident size
(``resource.getrusage``) with a subprocess that only imports the same modules: the old code read
``/dev/zero`` and a gzip bomb until the memory ran out.
"""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cranfield
from cranfield.errors import InputError

_PROBE = textwrap.dedent("""
    import resource, sys
    import cranfield
    from cranfield.io.labels import read_labels
    from cranfield.io.sources import read_all
    from cranfield.online import read_click_log
    readers = {"run": cranfield.read_run, "qrels": cranfield.read_qrels, "click log": read_click_log,
               "labels": read_labels, "bytes": read_all, "none": None}
    reader = readers[sys.argv[1]]
    outcome = "none"
    if reader is not None:
        try:
            reader(sys.argv[2])
            outcome = "accepted"
        except cranfield.InputError as error:
            outcome = str(error)
    try:  # this process's own peak (ru_maxrss also counts the forking parent's size before exec)
        with open("/proc/self/status") as status:
            print(next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) // 1024)
    except OSError:
        print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
    print(outcome)
""")
LIMIT = 1 << 22  # 4 MiB: the lowered line limit of these tests


def _probe(reader: str, path: str) -> tuple[int, str]:
    env = {**os.environ, "CRANFIELD_MAX_LINE_BYTES": str(LIMIT), "CRANFIELD_MAX_INPUT_BYTES": str(1 << 26)}
    done = subprocess.run([sys.executable, "-c", _PROBE, reader, path], capture_output=True, text=True, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    peak, outcome = done.stdout.splitlines()[:2]
    return int(peak), outcome


@pytest.fixture(scope="module")
def baseline() -> int:
    return _probe("none", "")[0]


@pytest.fixture(scope="module")
def bombs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bombs")
    zeros = folder / "zeros.gz"
    zeros.write_bytes(gzip.compress(bytes(10 << 20), compresslevel=9))  # 10 MiB of NULs in ~10 KB
    lines = folder / "lines.gz"
    lines.write_bytes(gzip.compress(b"q1 0 d1 1\n" * (8 << 20), compresslevel=9))  # 80 MiB of lines
    return {"zeros": str(zeros), "lines": str(lines)}


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
@pytest.mark.parametrize("reader", ["run", "qrels", "click log", "labels", "bytes"])
def test_dev_zero_is_refused_in_bounded_memory(reader, baseline):
    peak, outcome = _probe(reader, "/dev/zero")
    assert "CRANFIELD_MAX_LINE_BYTES" in outcome or "no line break" in outcome, outcome
    assert peak - baseline < 200, (peak, baseline)


@pytest.mark.parametrize("reader", ["run", "qrels", "click log", "bytes"])
def test_gzip_bomb_is_refused_in_bounded_memory(reader, bombs, baseline):
    peak, outcome = _probe(reader, bombs["zeros"])
    assert "CRANFIELD_MAX_LINE_BYTES" in outcome or "no line break" in outcome, outcome
    assert peak - baseline < 200, (peak, baseline)


def test_decompressed_size_limit(bombs, baseline):
    """Valid lines past CRANFIELD_MAX_INPUT_BYTES (lowered to 64 MiB here): refused, not read whole."""
    peak, outcome = _probe("bytes", bombs["lines"])
    assert "CRANFIELD_MAX_INPUT_BYTES" in outcome, outcome
    assert peak - baseline < 300, (peak, baseline)


def test_limits_must_be_numbers(tmp_path, monkeypatch):
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 1 t\n")
    monkeypatch.setenv("CRANFIELD_MAX_LINE_BYTES", "lots")
    with pytest.raises(cranfield.UsageError, match="CRANFIELD_MAX_LINE_BYTES"):
        cranfield.read_run(path)


# ----------------------------------------------------------------------------------- root cause 7
@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("kind", ["run", "qrels", "click log", "labels"])
def test_utf16_text_says_so(tmp_path, encoding, kind):
    text = {"run": "q1 Q0 d1 1 2.5 tag\n", "qrels": "q1 0 d1 1\n",
            "click log": "impression,query,rank,doc,clicked\n1,q,1,d,1\n",
            "labels": "query,document,worker,label\nq1,d1,w1,1\n"}[kind]
    path = tmp_path / ("input.csv" if kind in ("click log", "labels") else "input.txt")
    path.write_bytes(text.encode(encoding))
    from cranfield.io.labels import read_labels
    from cranfield.online import read_click_log

    read = {"run": cranfield.read_run, "qrels": cranfield.read_qrels, "click log": read_click_log,
            "labels": read_labels}[kind]
    with pytest.raises(InputError, match="this file is UTF-16 .*convert it to UTF-8"):
        read(path)


def _cli(*arguments):
    return subprocess.run([sys.executable, "-m", "cranfield", *map(str, arguments)], capture_output=True, text=True,
                          timeout=120)


def test_directory_with_subfolders_as_a_run(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\n")
    folder = tmp_path / "runs"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "notes.txt").write_text("q1 Q0 d1 1 2.5 tag\n")
    (folder / "part.parquet").write_bytes(b"PAR1")
    result = _cli("trec_eval", qrels, folder)
    assert result.returncode == 2
    message = result.stderr.strip()
    assert message.count("\n") == 0 and str(folder) in message and "'sub/notes.txt'" in message, message
    assert "a directory of Parquet files only" in message


@pytest.mark.parametrize("order", ["swapped", "run twice", "qrels twice"])
def test_swapped_qrels_and_run_hint(tmp_path, order):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\n")
    run = tmp_path / "run.txt"
    run.write_text("q1 Q0 d1 1 2.5 tag\n")
    arguments = {"swapped": [run, qrels], "run twice": [run, run], "qrels twice": [qrels, qrels]}[order]
    result = _cli("trec_eval", *arguments)
    assert result.returncode == 2
    assert "are the QRELS and RUN arguments swapped?" in result.stderr, result.stderr


# Issue 25: our own files are read straight into the reader's buffer (readinto, no copy); the
# limits see the same bytes as when they are read by read(): the same data, the same errors.
_LINE_BYTES = st.lists(st.sampled_from([b"a", b"b", b"\n", b"\r", b"\r\n", b"xyz" * 500, b"q" * 5000]),
                       max_size=60).map(b"".join)


def _read_by(path, method: str, limit: int, read_size: int, monkeypatch) -> tuple[str, bytes]:
    from cranfield.io import sources

    monkeypatch.setattr(sources, "_READ_SIZE", read_size)
    monkeypatch.setenv("CRANFIELD_MAX_LINE_BYTES", str(limit))
    raw = sources._Guarded(open(path, "rb", buffering=0), str(path), owned=True)
    stream = sources._Bounded(sources._Prefixed(b"", raw, str(path)), str(path), sources.max_line_bytes(), 1 << 30)
    parts = []
    try:
        while True:
            if method == "read":
                data = stream.read(read_size)
            else:
                buffer = bytearray(read_size + 3)
                data = bytes(buffer[:stream.readinto(buffer)])
            if not data:
                return "end", b"".join(parts) + str(raw.consumed).encode()
            parts.append(data)
    except InputError as error:
        return str(error), b"".join(parts)
    finally:
        stream.close()


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=_LINE_BYTES, limit=st.integers(1, 12000), read_size=st.sampled_from([1, 7, 4096, 70000, 1 << 20]))
def test_readinto_and_read_agree(tmp_path_factory, monkeypatch, data, limit, read_size):
    path = tmp_path_factory.mktemp("readinto") / "f"
    path.write_bytes(data)
    by_read = _read_by(path, "read", limit, read_size, monkeypatch)
    assert _read_by(path, "readinto", limit, read_size, monkeypatch) == by_read


def test_a_file_is_read_into_the_buffer_without_a_copy(tmp_path, monkeypatch):
    """No bytes object between the file and the reader's buffer: no layer reads and copies."""
    from cranfield.io import sources

    path = tmp_path / "run"
    path.write_bytes(b"q1 Q0 d1 1 1.0 r\n" * 200_000)
    calls = []
    original = sources._Raw.readinto
    monkeypatch.setattr(sources._Raw, "readinto", lambda self, buffer: calls.append(type(self)) or original(self, buffer))
    stream = sources.open_input_counted(str(path))
    assert len(stream.read(1 << 21)) == 1 << 21
    stream.close()
    assert sources._Guarded not in calls and sources._Bounded not in calls  # (the sniffed head is copied)


@settings(max_examples=300, deadline=None)
@given(data=_LINE_BYTES, pad=st.integers(0, 70000))
def test_line_end_is_find_and_rfind(data, pad):
    from cranfield.io.sources import _line_end

    for text in (data, data + b"z" * pad, b"\r" + b"z" * pad, b"\n" + b"y" * pad + b"\r" + b"z" * 10,
                 b"z" * pad + data):
        ends = [at for at in (text.find(b"\n"), text.find(b"\r")) if at >= 0]
        assert _line_end(memoryview(text), last=False) == (min(ends) if ends else -1)
        assert _line_end(text, last=True) == max(text.rfind(b"\n"), text.rfind(b"\r"))


def _longest_run(data: bytes) -> int:
    """The reference: the most bytes in a row without LF or CR."""
    return max(len(piece) for piece in data.replace(b"\r", b"\n").split(b"\n"))


def _mapped_blocks(path, limit: int, size: int, start: int) -> tuple[str, bytes]:
    from cranfield.io import sources

    raw = sources._Guarded(open(path, "rb", buffering=0), str(path), owned=True)
    mapped = sources.MappedFile(raw.handle_if_owned_file(), path.stat().st_size, str(path), limit, 1 << 30)
    raw.close()
    parts = []
    try:
        for data, begin, end in mapped.blocks(size, start):
            assert begin < end and (end == len(data) or data[end - 1:end] == b"\n")
            parts.append(data[begin:end])
            mapped.release(begin, end)
    except InputError as error:
        return str(error), b"".join(parts)
    return "end", b"".join(parts)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=_LINE_BYTES, limit=st.integers(1, 12000), read_size=st.sampled_from([1, 7, 4096, 70000, 1 << 20]),
       size=st.integers(1, 9000), bom=st.booleans())
def test_the_line_limit_is_exact_on_every_read_and_through_the_map(tmp_path_factory, monkeypatch, data, limit,
                                                                    read_size, size, bom):
    """The stream (on reads of any size) and the mapped file refuse exactly the bytes that hold
    more than the limit's bytes in a row without a line end, with the same message; the map's
    blocks are whole lines that put the file back together."""
    data = (b"\xef\xbb\xbf" if bom else b"") + data
    path = tmp_path_factory.mktemp("limit") / "f"
    path.write_bytes(data)
    refused = _longest_run(data) > limit
    outcome, _ = _read_by(path, "read", limit, read_size, monkeypatch)
    assert (outcome != "end") == refused and (not refused or "CRANFIELD_MAX_LINE_BYTES" in outcome), outcome
    if not data:
        return
    mapped, text = _mapped_blocks(path, limit, size, 3 if bom else 0)
    assert mapped == (outcome if refused else "end")
    if not refused:
        assert text == data[3 if bom else 0:]


def test_a_mapped_file_is_let_go_as_it_is_read(tmp_path, baseline):
    """A 48 MB qrels file of long comment lines read through the map: its pages are let go block
    by block, so the resident set stays far below the file's size (without the release it held
    all of them)."""
    path = tmp_path / "qrels.txt"
    comment = b"# " + b"c" * 1021 + b"\n"
    with open(path, "wb") as handle:
        for _ in range(48):
            handle.write(comment * 1024)
        handle.write(b"q1 0 d1 1\n")
    assert path.stat().st_size > 48 << 20
    peak, outcome = _probe("qrels", str(path))
    assert outcome == "accepted"
    assert peak - baseline < 30, (peak, baseline)
