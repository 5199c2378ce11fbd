"""A PyTerrier-friendly entry point: results frames in, the frame ``pt.Experiment`` gives out.

PyTerrier users hold a results frame (``qid, docno, score``, often with ``docid``, ``rank``,
``query``) and a qrels frame (``qid, docno, label``). :func:`evaluate_frame` takes them as they
are (no pyterrier import, no dependency) and returns what ``pt.Experiment(..., perquery=True)``
returns: a long frame with columns ``name, qid, measure, value``; with ``perquery=False``, one
row per system with a column per measure. Measures are named as asked (``"map"`` stays
``"map"``); their values are trec_eval's.

>>> import pandas as pd
>>> res = pd.DataFrame({"qid": ["1", "1", "2"], "docno": ["d1", "d2", "d1"], "score": [2.0, 1.0, 1.0],
...                     "query": ["a", "a", "b"]})
>>> qrels = pd.DataFrame({"qid": ["1", "2"], "docno": ["d2", "d1"], "label": [1, 1]})
>>> evaluate_frame(res, qrels, ["map", "P.1"])
  name qid measure  value
0   BR   1     map    0.5
1   BR   2     map    1.0
2   BR   1     P.1    0.0
3   BR   2     P.1    1.0
>>> evaluate_frame({"bm25": res}, qrels, ["map"], perquery=False)
   name   map
0  bm25  0.75
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .errors import UsageError
from .measures.base import parse_measures
from .retrieval.evaluate import Evaluator

__all__ = ["evaluate_frame"]


def evaluate_frame(results, qrels, measures: Sequence[str] = ("map", "ndcg_cut_10", "P_10"), *,
                   names: Sequence[str] | None = None, perquery: bool = True, **evaluate_options):
    """Evaluate one results frame, a list of them, or a mapping name -> frame, against ``qrels``.

    ``names`` (as ``pt.Experiment``'s) name the systems of a list (default ``BR``, ``BR#2``, …;
    a repeated name is numbered ``#2``, ``#3``).
    ``evaluate_options`` go to :class:`cranfield.Evaluator` (``relevance_level``, ``complete``,
    ``max_results``, ``judged_only``, ``collection_size``). Frames may use PyTerrier's, ir_measures'
    or ranx's column names (see :mod:`cranfield.io.ecosystem`). Each system is evaluated over its
    own queries (see the query-set policy in :func:`cranfield.compare`).
    """
    import pandas as pd

    if isinstance(measures, str):
        measures = [measures]
    systems = _named(results, names)
    evaluator = Evaluator(qrels, list(measures), **evaluate_options)
    expanded = _requested_names(measures)
    rows = []
    for name, frame in systems:
        r = evaluator.evaluate(frame, name=name)
        if perquery:
            qids = [str(q) for q in r.query_ids]
            for asked, key in expanded:
                values = r.per_query[key].tolist()
                rows += [(name, q, asked, v) for q, v in zip(qids, values)]
        else:
            rows.append({"name": name, **{asked: r.mean[key] for asked, key in expanded}})
    if perquery:
        return pd.DataFrame(rows, columns=["name", "qid", "measure", "value"])
    return pd.DataFrame(rows, columns=["name", *[asked for asked, _ in expanded]])


def _requested_names(measures) -> list[tuple[str, str]]:
    """(name as asked, canonical key) for each measure; ``"P.5,10"`` asks for two."""
    pairs = []
    for asked in measures:
        parsed = parse_measures([asked])
        if len(parsed) == 1:
            pairs.append((str(asked), str(parsed[0])))
        else:
            pairs += [(str(m), str(m)) for m in parsed]
    return pairs


def _named(results, names) -> list[tuple[str, object]]:
    if isinstance(results, Mapping):
        if names is not None:
            raise UsageError("names: give either a mapping name -> frame or names=, not both")
        return [(str(k), v) for k, v in results.items()]
    frames = [results] if type(results).__name__ == "DataFrame" else list(results)
    if names is not None and len(names) != len(frames):
        raise UsageError(f"names: expected {len(frames)} names (one per results frame), found {len(names)}")
    chosen = [str(n) for n in names] if names is not None else ["BR"] * len(frames)
    seen: dict[str, int] = {}
    out = []
    for name, frame in zip(chosen, frames):
        seen[name] = seen.get(name, 0) + 1
        out.append((name if seen[name] == 1 else f"{name}#{seen[name]}", frame))
    return out
