"""THE grammar of the TREC text formats (qrels and runs), and its reference parser.

Every way of reading a TREC text file (whole file in memory, block-wise for huge runs, any
block size) goes through :func:`parse_lines` below, or through the fast path of
:mod:`cranfield.io.trec_fast`, which is only taken when every line of a block is verified to be
inside the subset it reads identically. Nothing is decided from a sample of the file.

Formats::

    qrels:  qid  iter  docno  rel                  exactly 4 fields
    run:    qid  Q0    docno  rank  score  tag     6 fields or more (text after the 6th is ignored)
    diversity qrels:  qid  subtopic  docno  rel    exactly 4 fields: the qrels line, its 2nd field
                                                   kept as the subtopic (intent) id (TREC Web track)

Lines
    A file is split into lines on LF (``\\n``) only. A NUL byte anywhere is an error (binary
    data; the message names its line). A UTF-8 byte-order mark at the very start of the file
    is dropped (in every dialect).
Text
    ``qid`` and ``docno`` (and a diversity qrels' ``subtopic``) must be UTF-8 (an error names the line and the field); the other
    fields (iter/Q0, rank, tag, text after the 6th field) and comment lines are bytes that are
    never decoded (trec_eval ignores them; the run's name, from the first tag, is decoded with
    replacement characters).
Fields
    Fields are separated by runs of the ASCII blanks of C's ``isspace``: space, TAB, CR, VT, FF.
    Blanks before the first field and after the last are not fields. No other character
    separates fields: a no-break space (U+00A0), an em space (U+2003), an ideographic space
    (U+3000) or any other Unicode space is part of an id.
CR
    As in trec_eval, CR is a blank, so CRLF line ends read like LF. In the ``"cranfield"``
    dialect a CR that is not directly followed by LF (an old-Mac line end, or a stray CR inside
    a line) is an error: trec_eval would read it as a blank and join two lines into one (a run
    line's extra fields are ignored: a record would silently vanish). The trec_eval dialects
    read it as trec_eval does (a blank).
Numbers
    relevance: an optional sign and decimal digits (``1``, ``+1``, ``-0``, ``007``), within the
    signed 64-bit range. ``0x10``, ``1.5``, ``1e3``, ``18446744073709551615`` are errors
    (trec_eval's ``atol`` would read 0, 1, 1 and a wrapped value).
    score: a finite decimal number: optional sign, digits with an optional decimal point
    (``1.``, ``.5``), optional exponent (``1e3``), correctly rounded to float64. Hexadecimal
    floats, ``inf``, ``nan`` and numbers that overflow float64 (``1e400``) are errors;
    underflow reads 0 (as ``strtod``).
    The rank, iter/Q0 and tag fields are any non-blank text (trec_eval ignores them).

Dialects (the ``dialect=`` keyword of every reader):

``"cranfield"`` (default)
    blank and whitespace-only lines are skipped; a line whose first field starts with ``#`` is
    a comment; a lone CR is an error (above).
``"trec_eval-9"``
    exactly trec_eval 9.0.8's grammar: ``#`` is an ordinary id character (``#q1 0 d1 1`` is a
    judgment of query ``#q1``); a blank or whitespace-only *qrels* line is an error (trec_eval's
    "Malformed line"), while blank run lines are skipped and blanks before a run line's query id
    are ignored (get_trec_results.c skips them before parsing a line).
``"trec_eval-10"``
    trec_eval 10.0's: in runs, blank lines are skipped and a line whose first non-blank
    character is ``#`` is a comment; in qrels, a line whose very first character is ``#`` is
    a comment and a blank line is an error. (10.0 skips only the first of two consecutive qrels
    comment lines and reads the second as data; every one is a comment here.)

Deliberate differences from trec_eval, in every dialect (each a clear error or a documented
reading, never a silent guess): numbers must match the syntax above (trec_eval's ``atol`` and
``atof`` read any prefix: ``0x10`` → 0, ``1.5`` → 1, ``abc`` → 0, ``nan``); a NUL byte and an id
that is not UTF-8 are errors; a BOM is dropped (trec_eval makes it part of the first query id).

Errors: the first bad line of the file is reported (whatever the block size), with the field
where there is one; within one line the order is: an id that is not UTF-8, a NUL byte, a lone
CR, a blank line / leading blank / wrong number of fields, the value field (``rel``/``score``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._arrow import indices, query_block_starts, take_sorted
from .._arrow import to_numpy as _np
from ..errors import InputError, UsageError

__all__ = ["DIALECTS", "TrecFormat", "QRELS", "RUN", "DIVERSITY_QRELS", "Parsed", "check_dialect", "format_of",
           "parse_lines", "first_nul_error", "BOM"]

DIALECTS = ("cranfield", "trec_eval-9", "trec_eval-10")
BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class TrecFormat:
    kind: str  # "qrels" | "run"
    fields: tuple[str, ...]
    value: int  # index of the value field (rel or score)
    exact: bool  # exactly len(fields) fields (qrels) or at least (runs)
    ids: tuple[int, ...] = (0, 2)  # the text id fields kept (UTF-8): qid, docno (+ subtopic)

    @property
    def value_field(self) -> str:
        return self.fields[self.value]

    @property
    def is_run(self) -> bool:
        """A run line (scores, a tag), whichever of its fields are kept."""
        return self.fields[-1] == "tag"

    def expected(self) -> str:
        return f"expected {len(self.fields)} fields \"{' '.join(self.fields)}\""


QRELS = TrecFormat("qrels", ("qid", "iter", "docno", "rel"), 3, True)
RUN = TrecFormat("run", ("qid", "Q0", "docno", "rank", "score", "tag"), 4, False)
#: the qrels line with its 2nd field kept as the subtopic (intent) id: same grammar, same errors
DIVERSITY_QRELS = TrecFormat("diversity qrels", ("qid", "subtopic", "docno", "rel"), 3, True, ids=(0, 1, 2))


#: the run line with its 2nd field kept as the sample id: several sampled rankings of one system
#: per query (stochastic rankings, expected exposure), the TREC "iter" column
SAMPLED_RUN = TrecFormat("sampled run", ("qid", "sample", "docno", "rank", "score", "tag"), 4, False, ids=(0, 1, 2))


def format_of(kind: str) -> TrecFormat:
    return {"run": RUN, "diversity qrels": DIVERSITY_QRELS, "sampled run": SAMPLED_RUN}.get(kind, QRELS)


def check_dialect(dialect: str) -> str:
    if dialect not in DIALECTS:
        raise UsageError(f"unknown TREC dialect {dialect!r}; expected one of {', '.join(DIALECTS)}")
    return dialect


@dataclass
class Parsed:
    """The rows of a block of whole lines."""

    qid: object  # pyarrow string Array (or ChunkedArray); None where only qid_heads were kept
    docno: object
    value: np.ndarray  # float64 scores or int64 relevance
    lines: "np.ndarray | None"  # 1-based line number of each row; None: row i is line first + i
    first: int  # line number of the block's first line
    n_lines: int  # lines in the block
    tag: "str | None"  # the first row's run tag (runs)
    query_starts: "np.ndarray | None" = None  # first row of each run of equal query ids, if known
    longest_docno: "int | None" = None  # bytes, if known
    subtopic: object = None  # pyarrow string Array of the subtopic ids (diversity qrels only)
    #: the query id of each run of equal ids (at query_starts), where the reader asked for them
    #: instead of one per row (pyarrow string Array; qid is then None)
    qid_heads: object = None
    last_tag: "str | None" = None  # the last row's run tag (runs; see last_tag())

    def __len__(self) -> int:
        return len(self.value)

    def heads(self):
        """The query id at each of :attr:`query_starts` (computed from the rows' ids if need be)."""
        if self.qid_heads is not None:
            return self.qid_heads
        if self.query_starts is None:
            self.query_starts = query_block_starts(self.qid)
        return take_sorted(self.qid, self.query_starts)


def last_tag(data, start: int, end: int, dialect: str) -> "str | None":
    """The run tag (6th field) of the last row of ``data[start:end]`` (whole lines of a run): its
    last line that is neither blank nor, but in dialect trec_eval-9, a ``#`` comment; None if it
    has none. trec_eval prints it as the ``runid``."""
    stop = end
    while stop > start:
        begin = max(start, data.rfind(b"\n", start, stop - 1) + 1)  # the line before stop (its LF excluded)
        fields = bytes(data[begin:stop]).split()
        if fields and (dialect == "trec_eval-9" or not fields[0].startswith(b"#")):
            return fields[5].decode("utf-8", "replace") if len(fields) > 5 else None
        stop = begin
    return None


# ---------------------------------------------------------------------------------- the parser
# precedence of the faults of one line (the first bad line wins; within it, the lowest here)
_UTF8, _NUL, _CR, _SHAPE, _VALUE = range(5)


def parse_lines(data, start: int, end: int, fmt: TrecFormat, dialect: str, first: int, source: str) -> Parsed:
    """Parse ``data[start:end]`` (whole lines; the last one may lack its LF): the reference grammar.

    Raises the :class:`InputError` of the first bad line (``first`` is the line number of the
    block's first line). Vectorised over the bytes: no Python loop over lines.
    """

    view = memoryview(data)[start:end]  # no copy; positions below are relative to start
    size = end - start
    b = np.frombuffer(view, dtype=np.uint8)
    line_starts, line_ends = _line_bounds(b, size)
    n_lines = len(line_ends)
    faults = _byte_faults(data, b, start, end, line_ends, dialect, first, source)  # (line index, precedence, error)

    def fault(index: int, rank: int, message: str, name: "str | None" = None, *, line: bool = True) -> None:
        faults.append((index, rank, InputError(message, source=source, line=first + index if line else None,
                                               field=name)))

    limit = min(f[0] for f in faults) if faults else n_lines  # later lines cannot hold the first fault

    # -- fields: runs of bytes that are not blanks (space, and \t \n \v \f \r: bytes 9..13)
    blank = (b == 32) | (np.subtract(b, 9, dtype=np.uint8) < 5)
    step = np.diff((~blank).view(np.int8), prepend=np.int8(0), append=np.int8(0))
    del blank
    starts = np.flatnonzero(step == 1)  # first byte of each field
    stops = np.flatnonzero(step == -1)  # one past its last byte
    del step
    head = np.searchsorted(starts, line_starts)  # index of each line's first field
    count = np.searchsorted(starts, line_ends) - head
    has = count > 0
    head_byte = np.zeros(n_lines, dtype=np.uint8)
    head_byte[has] = b[starts[head[has]]]
    comment = _comment_lines(b, fmt, dialect, has & (head_byte == ord("#")), line_starts, line_ends)
    data_line = has & ~comment
    if fmt is not RUN and dialect in ("trec_eval-9", "trec_eval-10"):
        blank_line = np.flatnonzero(~has & ~comment)
        if blank_line.size:
            fault(int(blank_line[0]), _SHAPE, f"blank line; expected {_expected(fmt)} "
                  f"(dialect {dialect!r} has no blank lines)")
    wrong = data_line & ((count != len(fmt.fields)) if fmt.exact else (count < len(fmt.fields)))
    if wrong.any():
        index = int(np.flatnonzero(wrong)[0])
        fault(index, _SHAPE, f"{fmt.expected()}, found {int(count[index])}{_swapped_hint(fmt, int(count[index]))}")
    if faults:
        limit = min(f[0] for f in faults)
    good = np.flatnonzero(data_line & ~wrong)
    good = good[good <= limit]  # rows past the first fault do not matter (on its line they may win)

    # -- field values: ids must be UTF-8; the value field per the number syntax
    pieces = _pieces(view, starts, stops, size)
    row_head = head[good]

    def field(j: int):
        return pieces.take(indices(2 * (row_head + j) + 1))

    ids = {}
    for j in fmt.ids:
        name = fmt.fields[j]
        ids[name], bad = _text(field(j))
        if bad is not None:
            index, message = bad
            fault(int(good[index]), _UTF8, message, name)
    value, bad = (_scores if fmt.is_run else _relevance)(field(fmt.value))
    if bad is not None:
        index, message = bad
        fault(int(good[index]), _VALUE, message, fmt.value_field)
    if faults:
        raise min(faults, key=lambda f: (f[0], f[1]))[2]
    tag = None
    if fmt.is_run and good.size:
        tag = pieces[int(2 * (row_head[0] + 5) + 1)].as_py().decode("utf-8", "replace")
    contiguous = good.size == n_lines
    return Parsed(ids["qid"], ids["docno"], value, None if contiguous else good.astype(np.int64) + first, first,
                  n_lines, tag, subtopic=ids.get(fmt.fields[1]))  # the kept 2nd field: subtopic or sample

def _line_bounds(b: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """The first byte of each line and the position of its LF (or the end of a last line without one)."""
    line_ends = np.flatnonzero(b == 10)
    if size and b[size - 1] != 10:
        line_ends = np.append(line_ends, size)
    line_starts = np.zeros(len(line_ends), dtype=np.int64)
    line_starts[1:] = line_ends[:-1] + 1
    return line_starts, line_ends


def _byte_faults(data, b: np.ndarray, start: int, end: int, line_ends: np.ndarray, dialect: str, first: int,
                 source: str) -> list:
    """The line faults ``(line index, precedence, error)``: a NUL byte (binary data), a CR that does not
    end its line."""
    faults: list[tuple[int, int, InputError]] = []
    nul = data.find(b"\0", start, end)
    if nul >= 0:
        index = int(np.searchsorted(line_ends, nul - start))
        faults.append((index, _NUL, first_nul_error(first + index, source)))
    if dialect == "cranfield" and data.find(b"\r", start, end) >= 0:
        cr = np.flatnonzero(b == 13)
        lone = cr[np.append(b, np.uint8(0))[cr + 1] != 10]  # the byte after each CR (0 past the end)
        if lone.size:
            index = int(np.searchsorted(line_ends, lone[0]))
            faults.append((index, _CR, InputError("a carriage return (CR) that does not end the line; expected LF or "
                                                  "CRLF line ends (old-Mac CR line ends must be converted)",
                                                  source=source, line=first + index)))
    return faults


def _comment_lines(b: np.ndarray, fmt: TrecFormat, dialect: str, hash_first: np.ndarray, line_starts: np.ndarray,
                   line_ends: np.ndarray) -> np.ndarray:
    """The comment lines of the dialect; ``hash_first``: lines whose first field starts with '#'."""
    if dialect == "cranfield" or (dialect == "trec_eval-10" and fmt.is_run):
        return hash_first
    comment = np.zeros(len(line_ends), dtype=bool)
    if dialect == "trec_eval-10":  # qrels: '#' as the line's very first byte
        nonempty = line_ends > line_starts
        comment[nonempty] = b[line_starts[nonempty]] == ord("#")
    return comment


def first_nul_error(line: int, source: str) -> InputError:
    # a file-level verdict (binary data), so no line attribute; the line is in the message
    return InputError(f"binary data (a NUL byte on line {line}); expected a text file", source=source)


def _swapped_hint(fmt: TrecFormat, count: int) -> str:
    """A hint when a qrels line has a run's 6 fields, or a run line a qrels' 4."""
    if fmt is QRELS and count == len(RUN.fields):
        return " (a run line: are the QRELS and RUN arguments swapped?)"
    if fmt is RUN and count == len(QRELS.fields):
        return " (a qrels line: are the QRELS and RUN arguments swapped?)"
    return ""


def _expected(fmt: TrecFormat) -> str:
    return f"{len(fmt.fields)} fields \"{' '.join(fmt.fields)}\""


def _pieces(view, starts, stops, size):
    """The bytes cut at every field boundary, as one zero-copy Arrow binary array: piece 2f+1 is
    field f, the even pieces are the blanks around them."""
    import pyarrow as pa

    n = len(starts)
    offsets = np.empty(2 * n + 2, dtype=np.int64)
    offsets[0] = 0
    offsets[1:-1:2] = starts
    offsets[2:-1:2] = stops
    offsets[-1] = size
    large = size >= 2**31 - 1
    offsets = offsets if large else offsets.astype(np.int32)
    return pa.Array.from_buffers(pa.large_binary() if large else pa.binary(), 2 * n + 1,
                                 [None, pa.py_buffer(offsets), pa.py_buffer(view)])


def _text(raw):
    """Binary ids as UTF-8 strings, or (index, message) of the first that is not UTF-8."""
    import pyarrow as pa
    import pyarrow.compute as pc

    target = pa.large_string() if pa.types.is_large_binary(raw.type) else pa.string()

    def convert(array):
        return pc.cast(array, target)

    try:
        text = convert(raw)
    except pa.ArrowInvalid:
        index = _first_failure(raw, convert)
        value = raw[index].as_py()
        try:
            value.decode("utf-8")
            at = len(value)  # pragma: no cover - Arrow and Python disagree
        except UnicodeDecodeError as error:
            at = error.start
        byte = value[at] if at < len(value) else 0
        return None, (index, f"invalid UTF-8 byte 0x{byte:02x} in {value!r}; expected UTF-8 text")
    return (text.cast(pa.string()) if target != pa.string() else text), None


def _first_failure(array, convert) -> int:
    """Index of the first element that ``convert`` rejects (it rejects ``array`` as a whole)."""
    import pyarrow as pa

    lo, hi = 0, len(array)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        try:
            convert(array.slice(lo, mid - lo))
            lo = mid
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            hi = mid
    return lo


def _scores(strings):
    """float64 scores, or (index, message) of the first that is not a finite decimal number.

    Arrow's parser accepts exactly the decimal syntax plus the words nan/inf/infinity (any case,
    signed), which are not finite: parse + finiteness is the grammar."""
    import pyarrow as pa
    import pyarrow.compute as pc

    strings, bad = _as_text(strings, "expected a number")
    if bad is not None:
        return None, bad

    def convert(array):
        return pc.cast(array, pa.float64())

    try:
        values = _np(convert(strings))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        index = _first_failure(strings, convert)
        return None, (index, f"expected a number, found {strings[index].as_py()!r}")
    finite = np.isfinite(values)
    if not finite.all():
        index = int(np.flatnonzero(~finite)[0])
        return None, (index, f"expected a finite number, found {strings[index].as_py()!r}")
    return values, None


_INTEGER = r"^[+-]?[0-9]+$"


def _relevance(strings):
    """int64 relevance, or (index, message) of the first that is not a signed decimal integer in
    the int64 range. (Arrow's integer parser also takes ``0x10`` and refuses ``+1``: the syntax
    is checked here, a leading ``+`` dropped, then Arrow converts.)"""
    import pyarrow as pa
    import pyarrow.compute as pc

    if len(strings) == 0:
        return np.zeros(0, dtype=np.int64), None
    strings, bad = _as_text(strings, "expected an integer relevance")
    if bad is not None:
        return None, bad
    ok = _np(pc.match_substring_regex(strings, _INTEGER))
    if not ok.all():
        index = int(np.flatnonzero(~ok)[0])
        return None, (index, f"expected an integer relevance, found {strings[index].as_py()!r}")
    original = strings
    plus = pc.starts_with(strings, "+")
    if pc.any(plus).as_py():
        strings = pc.if_else(plus, pc.utf8_slice_codeunits(strings, 1), strings)

    def convert(array):
        return pc.cast(array, pa.int64())

    try:
        return _np(convert(strings)).astype(np.int64, copy=False), None
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        index = _first_failure(strings, convert)
        return None, (index, f"expected an integer relevance, found {original[index].as_py()!r} "
                             "(beyond the 64-bit range)")


def _as_text(raw, expected: str):
    """A binary value column as strings, or (index, "expected …, found b'…'") if one is not UTF-8."""
    text, bad = _text(raw)
    if bad is None:
        return text, None
    return None, (bad[0], f"{expected}, found {raw[bad[0]].as_py()!r}")
