"""trec_eval's output text, formatted column-wise: no Python work per line or per value.

Each line is ``"%-22s\\t%s\\t%6.4f\\n"`` (``%ld`` for counts, ``%s`` for text such as relstring).
A measure's values are formatted all at once with numpy and Arrow string kernels; the lines of
a block of queries are then put in trec_eval's order (per query, every measure in order) by one
``take``, and the text is the data buffer of the resulting Arrow string array. Blocks of queries
are formatted by several threads (Arrow's kernels release the GIL) and joined in order.

``%6.4f`` is reproduced exactly as C's printf writes it: the exact binary value rounded to four
decimals, halfway cases to even; ``-0.0000`` for negative values that round to zero; ``nan``
and ``inf`` right-aligned in six characters, with a minus sign when the sign bit is set (glibc
prints the NaN that 0/0 gives on x86 as ``-nan``).
"""

from __future__ import annotations

from typing import Iterator, Sequence

import numpy as np

from .._arrow import indices, query_block_starts
from .._threads import in_order

try:  # the compiled line writer (built by pip install); without it the lines are formatted with Arrow
    from .._native import trec_lines as _lines
except ImportError:  # pragma: no cover - a source checkout without the compiled core
    _lines = None

__all__ = ["c_fixed4", "fixed4", "integers", "texts", "strings", "formatted", "lines", "iter_lines",
           "iter_value_lines", "relstrings", "run_text", "BLOCK_LINES"]

BLOCK_LINES = 1 << 16  # lines per formatted block: small enough to stay in cache, large enough to amortise
SCALE = 10_000.0  # four decimals
SAFE = float(1 << 30)  # |value·10⁴| below this: the double product is within 1.2e-7 of the exact one
NEAR_HALF = 1e-6  # products this close to a halfway point are rounded from the exact value


def _pa():
    import pyarrow as pa
    import pyarrow.compute as pc

    return pa, pc


def fixed4(values: np.ndarray):
    """``"%6.4f"`` of each value followed by a newline, as an Arrow string array."""
    pa, pc = _pa()
    values = np.ascontiguousarray(values, dtype=np.float64)
    with np.errstate(over="ignore"):  # beyond 1.8e304: inf, undecided, written exactly below
        x = values * SCALE
    finite = np.isfinite(values)
    with np.errstate(invalid="ignore"):
        decided = finite & (np.abs(x) < SAFE) & (np.abs(x - np.floor(x) - 0.5) > NEAR_HALF)
    scaled = np.where(decided, np.rint(np.where(decided, x, 0.0)), 0.0)  # round half even, on the exact value
    whole = np.abs(scaled).astype(np.int64)
    text = pc.binary_join_element_wise(_SIGNS().take(indices(np.signbit(values))),
                                       pc.cast(indices(whole // 10_000), pa.string()), _text("."),
                                       _FOUR_DIGITS().take(indices(whole % 10_000)), _text("\n"), _text(""))
    undecided = np.flatnonzero(~decided)
    if undecided.size:  # NaN, infinities, halfway cases and huge values: few, each written exactly
        exact = strings(np.array([c_fixed4(v) + "\n" for v in values[undecided].tolist()], dtype=object))
        text = _put(text, undecided, exact)
    return text


def c_fixed4(value: float) -> str:
    """One value as C's printf("%6.4f") writes it (Python's % operator agrees except for NaN's sign)."""
    if value != value:
        return "  -nan" if np.signbit(value) else "   nan"
    return "%6.4f" % value


def _put(array, index: np.ndarray, replacement):
    """``array`` with the elements at ``index`` replaced by ``replacement`` (in order)."""
    pa, _ = _pa()
    source = np.arange(len(array), dtype=np.int64)
    source[index] = len(array) + np.arange(index.size)
    return pa.concat_arrays([array, replacement]).take(indices(source))


_CONSTANTS: dict = {}


def _text(value: str):
    """An Arrow string scalar (taken from an array: ``pa.scalar`` would import pandas)."""
    key = ("scalar", value)
    if key not in _CONSTANTS:
        _CONSTANTS[key] = strings(np.array([value], dtype=object))[0]
    return _CONSTANTS[key]


def _SIGNS():
    """"" and "-"."""
    if "signs" not in _CONSTANTS:
        _CONSTANTS["signs"] = strings(np.array(["", "-"], dtype=object))
    return _CONSTANTS["signs"]


def _FOUR_DIGITS():
    """"0000" … "9999", built once."""
    if "digits" not in _CONSTANTS:
        pa, pc = _pa()
        _CONSTANTS["digits"] = pc.utf8_lpad(pc.cast(indices(np.arange(10_000)), pa.string()), 4, "0")
    return _CONSTANTS["digits"]


def strings(values: np.ndarray):
    """An Arrow string array of a numpy array of str (object) or bytes, built from buffers
    (``pa.array`` would import pandas first: 0.2–0.3 s). Trailing NUL characters are dropped."""
    return _from_fixed_width(_utf8(values))


def _utf8(values: np.ndarray) -> np.ndarray:
    """A numpy bytes (S) array of the UTF-8 text of ``values`` (str objects, or bytes as they are)."""
    return values if values.dtype.kind == "S" else np.char.encode(values.astype(str), "utf-8")


def integers(values: np.ndarray):
    """``"%ld"`` of each (integer-valued) value followed by a newline."""
    pa, pc = _pa()
    ints = np.asarray(values, dtype=np.float64).astype(np.int64)
    return pc.binary_join_element_wise(pc.cast(indices(ints), pa.string()), _text("\n"), _text(""))


def texts(values):
    """Each text value (``%s``) followed by a newline."""
    pa, pc = _pa()
    array = values if isinstance(values, (pa.Array, pa.ChunkedArray)) else strings(np.asarray(values))
    return pc.binary_join_element_wise(pc.cast(array, pa.string()), _text("\n"), _text(""))


def _from_fixed_width(values: np.ndarray):
    """An Arrow string array of a numpy bytes array, without the NUL padding."""
    pa, _ = _pa()
    width = values.dtype.itemsize
    grid = np.ascontiguousarray(values).view(np.uint8).reshape(values.size, width)
    lengths = np.char.str_len(values).astype(np.int32)
    offsets = np.concatenate(([0], np.cumsum(lengths, dtype=np.int64))).astype(np.int32)
    data = grid[np.arange(width) < lengths[:, None]]
    return pa.Array.from_buffers(pa.string(), values.size, [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def formatted(columns: Sequence, kinds: Sequence[str], *, threads: int = 1) -> list:
    """Each column formatted by its kind: ``"f"`` ``%6.4f``, ``"d"`` ``%ld``, ``"s"`` ``%s`` (text); the
    columns of one kind in one call, cut in pieces formatted by ``threads`` threads."""
    pa, _ = _pa()
    out: list = [None] * len(columns)
    for kind, fmt in (("f", fixed4), ("d", integers)):
        which = [i for i, k in enumerate(kinds) if k == kind]
        if not which:
            continue
        values = np.concatenate([np.asarray(columns[i], dtype=np.float64) for i in which])
        pieces = np.array_split(values, max(1, min(threads, values.size // BLOCK_LINES)))
        if len(pieces) > 1:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(max_workers=threads) as pool:
                text = pa.concat_arrays(list(pool.map(fmt, pieces)))
        else:
            text = fmt(values)
        start = 0
        for i in which:
            out[i] = text.slice(start, len(columns[i]))
            start += len(columns[i])
    for i, kind in enumerate(kinds):
        if kind == "s":
            out[i] = texts(columns[i])
    return out


def lines(names: Sequence[str], query_ids, columns: Sequence, *, threads: int = 1) -> str:
    """The text of ``len(query_ids) × len(names)`` lines: for each query in order, one line per
    measure ``names[m]`` with its value formatted in ``columns[m]`` (Arrow strings ending in a
    newline, one per query, from :func:`fixed4`, :func:`integers` or :func:`texts`)."""
    return "".join(iter_lines(names, query_ids, columns, threads=threads))


def iter_lines(names: Sequence[str], query_ids, columns: Sequence, *, threads: int = 1) -> Iterator[str]:
    """The text of :func:`lines` in pieces of about ``threads`` × :data:`BLOCK_LINES` lines, in order
    (a large output is written as it is formatted, never held whole)."""
    pa, pc = _pa()
    n, m = len(query_ids), len(names)
    if n == 0 or m == 0:
        return
    heads = strings(np.array([f"{name:<22}" for name in names], dtype=object))
    qids = query_ids if isinstance(query_ids, pa.Array) else strings(np.asarray(query_ids, dtype=object))
    values = pa.concat_arrays([c.combine_chunks() if isinstance(c, pa.ChunkedArray) else c for c in columns])
    per_block = max(1, BLOCK_LINES // m)

    def block(first: int) -> bytes:
        q = np.arange(first, min(n, first + per_block), dtype=np.int64)
        which = np.tile(np.arange(m, dtype=np.int64), q.size)
        query = np.repeat(q, m)
        joined = pc.binary_join_element_wise(heads.take(indices(which)), qids.take(indices(query)),
                                             values.take(indices(which * n + query)), _text("\t"))
        return _data(joined)

    yield from _blocks_in_order(block, n, per_block, threads)


def _blocks_in_order(block, n: int, per_block: int, threads: int) -> Iterator[str]:
    """The texts ``block(first)`` (bytes) of the blocks of ``per_block`` queries among ``n``, in
    order, one piece a block: ``threads`` threads write the blocks ahead (at most 2 × ``threads``
    waiting), so that the next blocks are written while the caller outputs a piece."""
    starts = range(0, n, per_block)
    if threads > 1 and len(starts) > 1:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=threads) as pool:
            for _, text in in_order(pool, block, starts, 2 * threads):  # a loop over blocks of lines, not lines
                yield text.decode("utf-8")
    else:
        for first in starts:
            yield block(first).decode("utf-8")


def iter_value_lines(names: Sequence[str], query_ids, columns: Sequence, kinds: Sequence[str], *,
                     threads: int = 1) -> Iterator[str]:
    """:func:`iter_lines` of the values ``columns`` printed as ``kinds`` (see :func:`formatted`): by
    the compiled writer (:mod:`cranfield._native.trec_lines`, one pass, the same text) where it is
    built and takes the values (counts within int64, texts as numpy bytes), else formatted
    column-wise with Arrow. In pieces of about ``threads`` × :data:`BLOCK_LINES` lines, in order."""
    n, m = len(query_ids), len(names)
    values = [np.asarray(c, dtype=np.float64) if k != "s" else np.asarray(c) for c, k in zip(columns, kinds)]
    if _lines is None or not n or not m or not all(_compiled_takes(v, k) for v, k in zip(values, kinds)):
        yield from iter_lines(names, query_ids, formatted(columns, kinds, threads=threads), threads=threads)
        return
    heads = _utf8(np.array([f"{name:<22}" for name in names], dtype=object))
    qids = _utf8(np.asarray(query_ids))
    code = "".join(kinds).encode()
    per_block = max(1, BLOCK_LINES // m)

    def block(first: int) -> bytes:
        return _lines.lines(heads, m, qids, n, values, code, first, min(n, first + per_block))

    yield from _blocks_in_order(block, n, per_block, threads)


def _compiled_takes(values: np.ndarray, kind: str) -> bool:
    """Whether the compiled writer prints ``values`` (it refuses counts beyond int64)."""
    if kind == "s":
        return values.dtype.kind == "S"
    if kind == "d":
        return bool(np.all((values >= -2.0**63) & (values < 2.0**63)))
    return True


def run_text(qid, docno, score: np.ndarray, tag: str) -> str:
    """TREC run lines ``qid Q0 docno rank score tag`` in trec_eval's order (per query, score
    descending, ties by docno descending byte-wise), ranks from 1, each score in the shortest text
    that reads back to the same double. ``qid`` and ``docno``: Arrow string arrays."""
    pa, pc = _pa()
    table = pa.table({"qid": qid, "score": score, "docno": docno})
    n = table.num_rows
    if n == 0:
        return ""
    table = table.take(pc.sort_indices(table, sort_keys=[("qid", "ascending"), ("score", "descending"),
                                                          ("docno", "descending")]))
    starts = query_block_starts(table.column("qid"))
    rank = np.arange(1, n + 1, dtype=np.int64) - np.repeat(starts, np.diff(np.append(starts, n)))
    joined = pc.binary_join_element_wise(table.column("qid"), _text("Q0"), table.column("docno"),
                                         pc.cast(indices(rank), pa.string()),
                                         pc.cast(table.column("score"), pa.string()), _text(tag + "\n"), _text(" "))
    return "".join(_data(chunk).decode("utf-8") for chunk in joined.chunks)


def _data(array) -> bytes:
    """The concatenated characters of an Arrow string array (its data buffer, no copy per value)."""
    offsets = np.frombuffer(array.buffers()[1], dtype=np.int32, count=len(array) + 1, offset=array.offset * 4)
    data = array.buffers()[2]
    return data[int(offsets[0]):int(offsets[-1])].to_pybytes() if data is not None else b""


_REL_CHARS = np.frombuffer(b"-.", dtype=np.uint8)  # NONPOOL (-1), UNJUDGED (-2)


def relstrings(view, length: int) -> np.ndarray:
    """trec_eval's relstring of each query: the relevance codes of the top ``length`` documents,
    quoted (``'10-.2>'``: a digit per judgment 0–9, ``>`` above 9, ``-`` not in the pool, ``.``
    pooled but unjudged), as a numpy bytes array (one per query)."""
    index, q, pos = view.top_rows(length)
    rel = view.rel[index]
    chars = np.where(rel > 9, ord(">"), np.where(rel >= 0, 48 + np.clip(rel, 0, 9),
                                                 np.where(rel == -1, ord("-"), np.where(rel == -2, ord("."),
                                                                                          ord("<")))))
    width = length + 2
    grid = np.zeros((view.n_queries, width), dtype=np.uint8)
    shown = np.minimum(view.num_ret, length)
    grid[:, 0] = ord("'")
    grid[q, pos + 1] = chars
    grid[np.arange(view.n_queries), shown + 1] = ord("'")
    return grid.view(f"S{width}").reshape(view.n_queries)
