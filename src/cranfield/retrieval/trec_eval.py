"""A drop-in for the trec_eval program: same options, same measures, same output text.

Output lines are ``"%-22s\\t%s\\t%6.4f"`` (``%ld`` for counts), per query when ``-q`` is
given (queries in byte-wise order, measures in trec_eval's order), then the summary over
``all``. ``version="10"`` follows trec_eval 10.0 (lround recall cut-offs, rbp/unj in
``all_trec``, queries added by ``-c`` printed per query).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import MeasureError, UsageError
from . import trec_text
from .evaluate import Evaluator, prepare_and_read
from .parallel import available_threads
from .results import aggregate
from .trec_names import NICKNAMES, TREC_MEASURES, expand

__all__ = ["trec_eval", "TrecEvalOptions"]


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
        else:
            from ..measures.base import _unknown_message

            hint = _unknown_message(name).split(";", 1)[1] if ";" in _unknown_message(name) else ""
            raise MeasureError(f"trec_eval: illegal measure '{arg}'" + (f";{hint}" if hint else ""))
    order = [m.name for m in TREC_MEASURES if m.name in marked]
    return order, params


def _line(name: str, qid: str, value, *, long: bool = False) -> str:
    if isinstance(value, str):
        return f"{name:<22}\t{qid}\t{value}\n"
    if long:
        return f"{name:<22}\t{qid}\t{int(value)}\n"
    return f"{name:<22}\t{qid}\t{trec_text.c_fixed4(value)}\n"  # NaN printed with its sign, as printf does


def trec_eval(qrels, run, options: TrecEvalOptions) -> str:
    """Return the text trec_eval prints for ``qrels`` and ``run`` with ``options``."""
    version = options.version
    if version not in ("9", "10"):
        raise UsageError(f"unknown trec_eval version {version!r}; expected 9 or 10")
    order, params = _marked(options.measures, version)
    by_name = {m.name: m for m in TREC_MEASURES}
    slots = []  # (trec measure, printed name, Measure | relstring length | None)
    for name in order:
        for printed, measure in expand(name, params.get(name), version=version):
            slots.append((by_name[name], printed, measure))
    measures = [m for _, _, m in slots if m is not None and not isinstance(m, int)]
    def make_evaluator():
        return Evaluator(qrels, list(dict.fromkeys(measures)) or ["NumRet"],
                         relevance_level=options.relevance_level, complete=options.complete,
                         max_results=options.max_results, judged_only=options.judged_only,
                         collection_size=options.collection_size)

    evaluator, run_data = prepare_and_read(make_evaluator, run)  # the run is read while the qrels are prepared
    shown = {printed: measure for _, printed, measure in slots if isinstance(measure, int) and options.query}
    results = evaluator.evaluate(  # large runs: all cores, same numbers; relstring read from each part's ranking
        run_data, extras=(lambda view: {p: trec_text.relstrings(view, k) for p, k in shown.items()}) if shown else None)
    values = results.per_query
    query_ids = results.query_ids
    n = query_ids.size
    in_run = results.in_run if results.in_run is not None else np.ones(n, dtype=bool)
    zscores = _load_zscores(options.zscores) if options.zscores else None
    prefix = "Z" if zscores is not None else ""

    def per_query_value(printed: str, measure, q: int):
        value = values[str(measure)][q]
        if zscores is not None:
            value = _zscore(zscores, str(query_ids[q]), printed, value)
        return value

    out: list[str] = []
    if options.query:  # formatted column-wise: see trec_text
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
                column = np.array([per_query_value(printed, measure, q) for q in keep.tolist()])
            names.append(prefix + printed)
            columns.append(column)
            kinds.append("d" if spec.long and zscores is None else "f")
        threads = available_threads()
        out.append(trec_text.lines(names, query_ids[keep], trec_text.formatted(columns, kinds, threads=threads),
                                   threads=threads))
    if options.summary:
        for spec, printed, measure in slots:
            if spec.name == "runid":
                out.append(_line("runid", "all", run_data.name or "run"))
            elif spec.name == "num_q":
                out.append(_line(prefix + "num_q", "all", n if zscores is None else float(n), long=zscores is None))
            elif isinstance(measure, int):
                continue  # relstring has no summary
            else:
                how = measure.family.aggregate
                column = values[str(measure)]
                if zscores is not None:
                    column = np.array([per_query_value(printed, measure, q) for q in range(n)])
                    how = "sum" if spec.long else ("mean" if how == "gmean" else how)
                    if measure.family.aggregate == "gmean":
                        column = np.zeros(n)
                out.append(_line(prefix + printed, "all", aggregate(column, how, n), long=spec.long and zscores is None))
    return "".join(out)


MISSING_ZSCORE = -1000000.0


def _load_zscores(path: str) -> dict[tuple[str, str], tuple[float, float]]:
    from ..errors import InputError

    table: dict[tuple[str, str], tuple[float, float]] = {}
    try:
        with open(path, "rb") as handle:
            text = handle.read().decode("utf-8")
    except OSError as error:
        raise InputError(f"cannot read z-score file: {error.strerror}", source=path) from None
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
