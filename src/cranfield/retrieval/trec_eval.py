"""A drop-in for the trec_eval program: same options, same measures, same output text.

Output lines are ``"%-22s\\t%s\\t%6.4f"`` (``%ld`` for counts), per query when ``-q`` is
given (queries in byte-wise order, measures in trec_eval's order), then the summary over
``all``. ``version="10"`` follows trec_eval 10.0 (lround recall cut-offs, rbp/unj in
``all_trec``, queries added by ``-c`` printed per query).

The command prints what trec_eval prints, its quirks included (docs/trec_eval.md lists them and
the differences that remain): ``-nan`` for the interpolated precision of a query with nothing
retrieved, ``set_map`` rounded as trec_eval rounds it, ``runid`` from the run's last line, the
``-c`` ``num_rel`` summary over every positive judgment, ``-N`` 0 by default. The library's
measures keep cranfield's own policies (no NaN).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from ..errors import InputError, MeasureError, UsageError
from ..io.sources import read_all
from ..io.trec_grammar import last_tag
from ..measures._gains import gain_view
from ..measures.base import Measure, unknown_measure_message
from . import trec_text
from .evaluate import Evaluator, prepare_and_read
from .large import evaluate_path, use_low_memory
from .parallel import available_threads
from .qrels import read_qrels
from .results import MIN_GEO_MEAN
from ..measures.trec_names import NICKNAMES, TREC_MEASURES, expand

__all__ = ["trec_eval", "trec_eval_text", "TrecEvalOptions"]


@dataclass
class TrecEvalOptions:
    measures: tuple[str, ...] = ()
    query: bool = False
    complete: bool = False
    relevance_level: int = 1
    summary: bool = True
    judged_only: bool = False
    collection_size: int | None = None
    max_results: int | None = None
    version: str = "9"
    zscores: str | None = None


def _marked(measure_args: tuple[str, ...], version: str) -> tuple[list[str], dict[str, str]]:
    """trec_eval's -m handling: nicknames, first parameter string per measure wins."""
    known = {m.name: m for m in TREC_MEASURES if version == "10" or m.since == "9"}
    nicknames = NICKNAMES[version]
    marked: set[str] = set()
    params: dict[str, str] = {}
    for arg in measure_args or ("official",):
        name, dot, param = arg.partition(".")
        if dot:
            if not param:
                raise MeasureError(f"trec_eval: improper measure in parameter '{name}'")
            params.setdefault(name, param)
        if name in nicknames:
            marked.update(nicknames[name])
        elif name in known:
            marked.add(name)
        elif name in NICKNAMES["10"] or any(m.name == name for m in TREC_MEASURES):
            raise MeasureError(f"trec_eval: measure '{name}' is new in trec_eval 10.0; trec_eval 9.0.8 refuses it "
                               f"(use --trec-eval-version 10)")
        else:
            message = unknown_measure_message(name)
            hint = message.split(";", 1)[1] if ";" in message else ""
            raise MeasureError(f"trec_eval: illegal measure '{arg}'" + (f";{hint}" if hint else ""))
    order = [m.name for m in TREC_MEASURES if m.name in marked]
    return order, params


def _line(name: str, qid: str, value, *, long: bool = False) -> str:
    if isinstance(value, str):
        return f"{name:<22}\t{qid}\t{value}\n"
    if long:
        return f"{name:<22}\t{qid}\t{int(value)}\n"
    return f"{name:<22}\t{qid}\t{trec_text.c_fixed4(value)}\n"  # NaN printed with its sign, as printf does


COUNTS = (Measure("NumRet"), Measure("NumRel"))
with np.errstate(invalid="ignore"):
    C_NAN = np.divide(np.float64(0.0), np.float64(0.0))  # trec_eval's 0/0: printf shows its sign (x86-64: -nan)
def last_run_tag(run, version: str = "9") -> str | None:
    """trec_eval's runid for a run file evaluated block-wise: the tag of its last row
    (:func:`cranfield.io.trec_grammar.last_tag`, on the end of the file only; the whole-file
    reader finds it as it reads, standard input too). None when ``run`` is not a file that can be
    read again (standard input, a frame, a dict): the caller falls back to the reader's name."""
    if not isinstance(run, (str, os.PathLike)) or str(run) == "-" or str(run).endswith((".gz", ".bz2", ".xz")):
        return None
    dialect = f"trec_eval-{version}"
    try:
        with open(run, "rb") as handle:
            end = handle.seek(0, os.SEEK_END)
            size = 1 << 16
            while True:  # a longer tail until it holds the last row's whole line (once, nearly always)
                start = max(0, end - size)
                handle.seek(start)
                tail = handle.read(end - start)
                whole = 0 if start == 0 else tail.find(b"\n") + 1  # the first whole line of the tail
                tag = last_tag(tail, whole, len(tail), dialect) if start == 0 or whole else None
                if tag is not None or start == 0:
                    return tag
                size *= 4
    except OSError:
        return None


def _interpolation_nan(values: dict, measures, in_run: np.ndarray, version: str) -> None:
    """trec_eval's NaN in iprec_at_recall and 11pt_avg: for a query with no document retrieved
    (after -J or -M), the precision it interpolates is 0/0; it lands on the recall levels whose
    cut-off in relevant documents is 0, and 11pt_avg averages it in. cranfield's measures are 0
    there (no NaN in the library); the trec_eval command prints what trec_eval prints."""
    nothing = in_run & (values[str(COUNTS[0])] == 0)
    if not nothing.any():
        return
    num_rel = values[str(COUNTS[1])]

    def zero_cutoff(level: float) -> np.ndarray:  # iprec's cut-off rule, interpolated.py
        cut = np.floor(level * num_rel + (0.5 if version == "10" else 0.9))
        return nothing & (cut == 0)

    for measure in measures:
        if measure.name == "IPrec":
            mask = zero_cutoff(float(measure.cutoff))
        elif measure.name == "IPrec11":
            mask = np.zeros(nothing.size, dtype=bool)
            for level in measure.param("levels"):
                mask |= zero_cutoff(float(level))
        else:
            continue
        values[str(measure)] = np.where(mask, C_NAN, values[str(measure)])


_EMPTY_IDEAL = "empty ideal ranking: "


def _empty_ideal(view, measure) -> np.ndarray:
    """Per query of ``view``: whether ``measure``'s (RnDCG) ideal ranking has no positive gain."""
    return gain_view(view, measure.param("gains"), "linear", measure.param("ideal")).ideal_len == 0


def _rndcg_nan(values: dict, measures, in_run: np.ndarray) -> None:
    """trec_eval's Rndcg averages nDCG over the ranks where the ideal gain changes while the ideal
    DCG is positive: a query with relevant documents (at -l) but no positive gain in its ideal
    ranking (-l 0 with grades 0 only, gains ≤ 0) averages over no rank, 0/0 (m_Rndcg.c)."""
    for measure in measures:
        if measure.name == "RnDCG":
            mask = in_run & (values[str(COUNTS[1])] > 0) & values[_EMPTY_IDEAL + str(measure)]
            values[str(measure)] = np.where(mask, C_NAN, values[str(measure)])


def _refuse_negative_first_query(qrels_data, query_ids: np.ndarray, in_run: np.ndarray, source) -> None:
    """trec_eval 9.0.8 sizes its per-level counts by the largest grade + 1 and allocates them at
    the first query it evaluates: when that query's grades are all negative the allocation
    fails and it exits ("Can't calculate measure"). Later such queries reuse the space."""
    if not in_run.any() or not bool((qrels_data.values < 0).any()):
        return
    import pyarrow as pa
    import pyarrow.compute as pc

    first = str(query_ids[int(np.argmax(in_run))])
    grades = pc.filter(pa.array(qrels_data.values), pc.equal(qrels_data.qid, first))
    if pc.max(grades).as_py() < 0:
        raise InputError(f"every judgment of query {first!r}, the first query evaluated, is negative: "
                         f"trec_eval 9.0.8 cannot evaluate it (it exits with status 4)",
                         source=str(source) if isinstance(source, (str, os.PathLike)) else None)


def summary(column: np.ndarray, how: str, in_run: np.ndarray, n: int) -> float:
    """trec_eval's summary: the values of the evaluated queries added in query order, then
    divided by ``n`` (all qrels queries with -c); for a geometric mean (gm_map, gm_bpref) the
    log(1e-5) of each query added by -c comes after that sum (meas_avg.c)."""
    if n == 0:
        return 0.0
    evaluated = column[in_run] if not in_run.all() else column
    if how == "gmean":
        total = float(np.cumsum(np.log(np.maximum(evaluated, MIN_GEO_MEAN)))[-1]) if evaluated.size else 0.0
        total += (n - evaluated.size) * math.log(MIN_GEO_MEAN)
        return math.exp(total / n)
    total = float(np.cumsum(evaluated)[-1]) if evaluated.size else 0.0
    return total if how == "sum" else total / n


def trec_eval(qrels, run, options: TrecEvalOptions) -> str:
    """Return the text trec_eval prints for ``qrels`` and ``run`` with ``options``."""
    return "".join(trec_eval_text(qrels, run, options))


def trec_eval_text(qrels, run, options: TrecEvalOptions) -> Iterator[str]:
    """The text of :func:`trec_eval` in pieces, in order: the per-query lines (``-q``) formatted a
    block of queries at a time, then the summary. Everything is evaluated (and every error raised)
    before the first piece."""
    version = options.version
    if version not in ("9", "10"):
        raise UsageError(f"unknown trec_eval version {version!r}; expected 9 or 10")
    slots, measures, nan_prone = _slots(options.measures, version)
    qrels_data = None

    def make_evaluator():
        nonlocal qrels_data
        qrels_data = read_qrels(qrels, dialect=f"trec_eval-{version}")
        # trec_eval's -N defaults to 0 (utility's 4th coefficient then weighs ret+rel-relret negatively)
        return Evaluator(qrels_data, list(dict.fromkeys(measures)) or ["NumRet"],
                         relevance_level=options.relevance_level, complete=options.complete,
                         max_results=options.max_results, judged_only=options.judged_only,
                         collection_size=0 if options.collection_size is None else options.collection_size)

    shown = {printed: measure for _, printed, measure in slots if isinstance(measure, int) and options.query}
    rndcg = [m for m in measures if m.name == "RnDCG"]

    def extras(view):  # read from each part's ranking: relstring, and Rndcg's empty ideal rankings
        columns = {p: trec_text.relstrings(view, k) for p, k in shown.items()}
        columns.update({_EMPTY_IDEAL + str(m): _empty_ideal(view, m) for m in rndcg})
        return columns

    dialect = f"trec_eval-{version}"
    if use_low_memory(run):  # a run file too large for memory: block by block, whole queries each (same text)
        evaluator = make_evaluator()
        results = evaluate_path(evaluator, run, dialect=dialect, extras=extras if shown or rndcg else None)
        runid = last_run_tag(run, version)
    else:  # the run read (in trec_eval's line grammar) while the qrels are prepared; large runs: all cores
        evaluator, run_data = prepare_and_read(make_evaluator, run, dialect=dialect)
        results = evaluator.evaluate(run_data, extras=extras if shown or rndcg else None)
        runid = getattr(run_data, "last_tag", None)  # found by the reader (standard input too)
    values = dict(results.per_query)
    query_ids = results.query_ids
    n = query_ids.size
    in_run = results.in_run if results.in_run is not None else np.ones(n, dtype=bool)
    if nan_prone:
        _interpolation_nan(values, measures, in_run, version)
        _rndcg_nan(values, measures, in_run)
    if version == "9" and any(spec.name not in ("runid", "num_q") for spec, _, _ in slots):
        _refuse_negative_first_query(qrels_data, query_ids, in_run, qrels)
    zscores = _load_zscores(options.zscores) if options.zscores else None

    def per_query_value(printed: str, measure, q: int):
        value = values[str(measure)][q]
        if zscores is not None:
            value = _zscore(zscores, str(query_ids[q]), printed, value)
        return value

    if options.query:  # formatted column-wise: see trec_text
        yield from _per_query_text(slots, values, query_ids, in_run, version, zscores, per_query_value)
    if options.summary:
        yield "".join(_summary_lines(slots, values, in_run, options, zscores, per_query_value,
                                     qrels_data=qrels_data, runid=runid or results.run_name or "run"))


def _slots(names, version: str):
    """``(slots, measures, nan_prone)``: (trec measure, printed name, Measure | relstring length | None)
    for each value trec_eval prints, the measures to compute, and whether some have trec_eval's NaN."""
    order, params = _marked(names, version)
    by_name = {m.name: m for m in TREC_MEASURES}
    slots = []
    for name in order:
        for printed, measure in expand(name, params.get(name), version=version):
            slots.append((by_name[name], printed, measure))
    measures = [m for _, _, m in slots if m is not None and not isinstance(m, int)]
    nan_prone = any(m.name in ("IPrec", "IPrec11", "RnDCG") for m in measures)
    if nan_prone:  # their NaN (0/0) needs each query's numbers retrieved and relevant
        measures += [COUNTS[0], COUNTS[1]]
    return slots, measures, nan_prone


def _per_query_text(slots, values: dict, query_ids, in_run, version: str, zscores, value_of) -> Iterator[str]:
    """trec_eval's per-query lines (-q), formatted column-wise (see trec_text), in pieces;
    ``value_of(printed, measure, q)`` gives a value with its z-score applied (-Z)."""
    prefix = "Z" if zscores is not None else ""
    keep = np.flatnonzero(in_run | (version != "9"))  # trec_eval 9 prints no line for queries added by -c
    names, columns, kinds = [], [], []
    for spec, printed, measure in slots:
        if not spec.per_query:
            continue
        if isinstance(measure, int):
            names.append(printed)
            columns.append(values[printed][keep])
            kinds.append("s")
            continue
        column = values[str(measure)][keep]
        if zscores is not None:
            column = np.array([value_of(printed, measure, q) for q in keep.tolist()])
        names.append(prefix + printed)
        columns.append(column)
        kinds.append("d" if spec.long and zscores is None else "f")
    threads = available_threads()
    return trec_text.iter_value_lines(names, query_ids[keep], columns, kinds, threads=threads)


def _summary_lines(slots, values: dict, in_run, options: TrecEvalOptions, zscores, value_of, *, qrels_data,
                   runid: str) -> list[str]:
    """trec_eval's summary lines (query ``all``), in the order of ``slots``."""
    n = in_run.size
    prefix = "Z" if zscores is not None else ""
    out: list[str] = []
    for spec, printed, measure in slots:
        if spec.name == "runid":
            out.append(_line("runid", "all", runid))
        elif spec.name == "num_rel" and options.complete and zscores is None:
            # trec_eval -c: every judgment > 0 of the qrels file, whatever -l, -J or -M
            out.append(_line("num_rel", "all", int(np.count_nonzero(qrels_data.values > 0)), long=True))
        elif spec.name == "num_q":
            out.append(_line(prefix + "num_q", "all", n if zscores is None else float(n), long=zscores is None))
        elif isinstance(measure, int):
            continue  # relstring has no summary
        else:
            how = measure.family.aggregate
            column = values[str(measure)]
            if zscores is not None:
                column = np.array([value_of(printed, measure, q) for q in range(n)])
                how = "sum" if spec.long else ("mean" if how == "gmean" else how)
                if measure.family.aggregate == "gmean":
                    column = np.zeros(n)
            out.append(_line(prefix + printed, "all", summary(column, how, in_run, n),
                             long=spec.long and zscores is None))
    return out


MISSING_ZSCORE = -1000000.0


def _load_zscores(path: str) -> dict[tuple[str, str], tuple[float, float]]:
    table: dict[tuple[str, str], tuple[float, float]] = {}
    try:
        text = read_all(path, display_name=path).decode("utf-8")  # the one opener: errors are InputError
    except UnicodeDecodeError as error:  # the whole file's bytes: the line number is exact
        text_line = error.object[:error.start].count(b"\n") + 1
        raise InputError(f"invalid UTF-8 byte 0x{error.object[error.start]:02x}; expected UTF-8 text", source=path,
                         line=text_line) from None
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) != 4:
            raise InputError(f'expected 4 fields "qid measure mean stddev", found {len(fields)}', source=path,
                             line=number)
        try:
            mean, stddev = float(fields[2]), float(fields[3])
            if not (np.isfinite(mean) and np.isfinite(stddev)):  # no silent NaN z-scores
                raise ValueError
            table[(fields[0], fields[1])] = (mean, stddev)
        except ValueError:
            raise InputError(f"expected finite numbers for mean and stddev, found {fields[2]!r} {fields[3]!r}",
                             source=path, line=number) from None
    return table


def _zscore(table, qid: str, name: str, value: float) -> float:
    entry = table.get((qid, name))
    if entry is None:
        return MISSING_ZSCORE
    mean, stddev = entry
    if stddev:
        return (value - mean) / stddev
    return 0.0 if value == mean else MISSING_ZSCORE
