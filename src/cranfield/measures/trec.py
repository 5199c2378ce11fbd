"""trec_eval names as the families declare them: :class:`TrecMeasure` and its builders.

Each retrieval family lists its trec_eval names next to its kernel (``Family.trec``), e.g. AP
has ``map`` and ``map_cut``; :mod:`cranfield.measures.trec_names` collects them in the order
trec_eval prints them. The parameter conventions follow trec_eval 9.0.8's ``measures.c``
(``P.5,10``, ``ndcg.1=3,2=9``, ``Rprec_mult.0.2``, …).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .base import Measure

__all__ = ["TrecMeasure", "CUTOFFS", "RECALL_LEVELS", "RPREC_MULTS", "single", "cut", "gains_measure"]

CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
RPREC_MULTS = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)


@dataclass(frozen=True)
class TrecMeasure:
    """One trec_eval measure (a name that may stand for several values).

    kind: ``single`` (no parameters), ``cut_long`` / ``cut_double`` (one value per cut-off,
    printed ``name_k`` or ``name_%3.2f``), ``params`` (one value; parameters change its
    meaning and are appended to the printed name as given), ``special`` (runid, num_q,
    relstring: handled by the trec_eval printer).
    """

    name: str
    kind: str
    defaults: tuple = ()
    build: Callable[..., object] | None = None  # (value, version) -> Measure
    long: bool = False  # printed as an integer (%ld)
    per_query: bool = True
    since: str = "9"  # "10" for trec_eval 10.0 additions
    pairs: bool = False  # parameters are name=value pairs (gains)


def single(name: str, **params) -> Callable[..., Measure]:
    """A builder of the measure ``name(params)`` (a trec_eval measure without parameters)."""
    def build(value=None, version: str = "9") -> Measure:
        return Measure(name, params, None)

    return build


def cut(name: str) -> Callable[..., Measure]:
    """A builder of ``name@value`` (trec_eval's cut-offs; IPrec rounds to nearest in 10.0)."""
    def build(value, version: str = "9") -> Measure:
        params = {"rounding": "nearest"} if name == "IPrec" and version == "10" else {}
        return Measure(name, params, value)

    return build


def gains_measure(name: str) -> Callable[..., Measure]:
    """A builder for trec_eval's gain pairs ``level=gain`` (and RBP's ``p=``)."""
    def build(pairs, version: str = "9") -> Measure:
        params: dict = {}
        gains = []
        for key, val in pairs or ():  # levels already read (trec_names._pair)
            if key == "p":
                params["p"] = val
            else:
                gains.append((int(key), val))
        if gains:
            params["gains"] = tuple(gains)
            if name in ("nDCG", "nDCGRel", "RnDCG", "G") and any(value != int(value) for _, value in gains):
                params["ideal"] = "trec_eval"  # fractional gains: trec_eval's order of the ideal ranking
        return Measure(name, params)

    return build

