"""trec_eval's measure names, parameters and printed names, mapped onto cranfield measures.

The table below follows trec_eval's ``measures.c`` (the order in which trec_eval prints) and
its parameter conventions (``P.5,10``, ``ndcg.1=3,2=9``, ``Rprec_mult.0.2``, …). It is used
both to accept trec_eval names anywhere a measure is expected (``map`` → ``AP``,
``P_10``/``P.10`` → ``P@10``, ``ndcg_cut.10,20`` → ``nDCG@10``, ``nDCG@20``) and by the
``cranfield trec_eval`` command to print exactly what trec_eval prints.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from ..errors import MeasureError
from .base import Measure, register_names

__all__ = ["TrecMeasure", "TREC_MEASURES", "NICKNAMES", "from_trec_name", "trec_measure_names", "expand",
           "parse_trec_params"]

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


def _m(name: str, **kwargs) -> Callable[..., object]:
    def build(value=None, version: str = "9"):
        return Measure(name, kwargs, None)

    return build


def _cut(name: str, **fixed) -> Callable[..., object]:
    def build(value, version: str = "9"):
        params = dict(fixed)
        if name in ("IPrec",) and version == "10":
            params["rounding"] = "nearest"
        return Measure(name, params, value)

    return build


def _rprec_mult(value, version: str = "9"):
    return Measure("RPrec", {"mult": value})


def _gains_measure(name: str, **fixed) -> Callable[..., object]:
    def build(pairs, version: str = "9"):
        params = dict(fixed)
        gains = []
        for key, val in pairs or ():
            if re.fullmatch(r"[+-]?\d+", key):
                gains.append((int(key), val))
            elif key == "p" and name == "RBP":
                params["p"] = val
        if gains:
            params["gains"] = tuple(gains)
            if name in ("nDCG", "nDCGRel", "RnDCG", "G") and any(value != int(value) for _, value in gains):
                params["ideal"] = "trec_eval"  # fractional gains: trec_eval's order of the ideal ranking
        return Measure(name, params)

    return build


def _utility(values, version: str = "9"):
    if len(values) != 4:
        raise MeasureError(f"utility takes 4 coefficients a,b,c,d, found {len(values)}")
    return Measure("Utility", dict(zip("abcd", values)))


def _eleven(values, version: str = "9"):
    params = {"levels": tuple(values)}
    if version == "10":
        params["rounding"] = "nearest"
    return Measure("IPrec11", params)


def _set_f(values, version: str = "9"):
    """trec_eval's set_F.x is (1 + x)·P·R / (x·P + R): its x is β², not β (m_set_F.c), and is
    used as given (β = sqrt(x) would give back x only to within a rounding)."""
    if values[0] < 0:
        raise MeasureError(f"set_F.{values[0]}: the parameter must be ≥ 0")
    return Measure("SetF", {"beta2": values[0]} if values[0] != 1.0 else {})


TREC_MEASURES: tuple[TrecMeasure, ...] = (
    TrecMeasure("runid", "special", per_query=False),
    TrecMeasure("num_q", "special", long=True, per_query=False),
    TrecMeasure("num_ret", "single", build=_m("NumRet"), long=True),
    TrecMeasure("num_rel", "single", build=_m("NumRel"), long=True),
    TrecMeasure("num_rel_ret", "single", build=_m("NumRelRet"), long=True),
    TrecMeasure("map", "single", build=_m("AP")),
    TrecMeasure("gm_map", "single", build=_m("GMAP"), per_query=False),
    TrecMeasure("Rprec", "single", build=_m("RPrec")),
    TrecMeasure("bpref", "single", build=_m("Bpref")),
    TrecMeasure("recip_rank", "single", build=_m("RR")),
    TrecMeasure("iprec_at_recall", "cut_double", RECALL_LEVELS, _cut("IPrec")),
    TrecMeasure("P", "cut_long", CUTOFFS, _cut("P")),
    TrecMeasure("relstring", "special", (10.0,)),
    TrecMeasure("recall", "cut_long", CUTOFFS, _cut("R")),
    TrecMeasure("infAP", "single", build=_m("infAP")),
    TrecMeasure("gm_bpref", "single", build=_m("GMBpref"), per_query=False),
    TrecMeasure("Rprec_mult", "cut_double", RPREC_MULTS, _rprec_mult),
    TrecMeasure("utility", "params", (1.0, -1.0, 0.0, 0.0), _utility),
    TrecMeasure("11pt_avg", "params", RECALL_LEVELS, _eleven),
    TrecMeasure("binG", "single", build=_m("BinG")),
    TrecMeasure("G", "params", (), _gains_measure("G"), pairs=True),
    TrecMeasure("dcg", "params", (), _gains_measure("DCG"), pairs=True, since="10"),
    TrecMeasure("ndcg", "params", (), _gains_measure("nDCG"), pairs=True),
    TrecMeasure("ndcg_rel", "params", (), _gains_measure("nDCGRel"), pairs=True),
    TrecMeasure("Rndcg", "params", (), _gains_measure("RnDCG"), pairs=True),
    TrecMeasure("ndcg_cut", "cut_long", CUTOFFS, _cut("nDCG")),
    TrecMeasure("map_cut", "cut_long", CUTOFFS, _cut("AP")),
    TrecMeasure("relative_P", "cut_long", CUTOFFS, _cut("RelP")),
    TrecMeasure("success", "cut_long", (1, 5, 10), _cut("Success")),
    TrecMeasure("set_P", "single", build=_m("SetP")),
    TrecMeasure("set_relative_P", "single", build=_m("SetRelP")),
    TrecMeasure("set_recall", "single", build=_m("SetR")),
    TrecMeasure("set_map", "single", build=_m("SetAP")),
    TrecMeasure("set_F", "params", (1.0,), _set_f),
    TrecMeasure("num_nonrel_judged_ret", "single", build=_m("NumNonRelJudgedRet"), long=True),
    TrecMeasure("rbp", "params", (), _gains_measure("RBP"), pairs=True, since="10"),
    TrecMeasure("rbp_resid", "single", build=_m("RBP", residual=True), since="10"),
    TrecMeasure("unj", "cut_long", (5, 10, 20), _cut("Unjudged"), since="10"),
)

_BY_NAME = {m.name: m for m in TREC_MEASURES}

_OFFICIAL = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
             "recip_rank", "iprec_at_recall", "P")
_ALL_TREC_9 = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
               "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "utility",
               "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel",
               "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map", "set_F",
               "num_nonrel_judged_ret")
_SET = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall", "set_relative_P",
        "set_map", "set_F")

NICKNAMES: dict[str, dict[str, tuple[str, ...]]] = {
    "9": {"official": _OFFICIAL, "all_trec": _ALL_TREC_9, "set": _SET},
    "10": {"official": _OFFICIAL, "all_trec": _ALL_TREC_9 + ("rbp", "rbp_resid", "unj"), "set": _SET},
}


def trec_measure_names() -> list[str]:
    return [m.name for m in TREC_MEASURES]


def parse_trec_params(measure: TrecMeasure, text: str):
    """trec_eval's parameter string → values (sorted and de-duplicated for cut-offs)."""
    items = text.split(",")
    try:
        if measure.kind == "cut_long":
            values = sorted(int(float(x)) for x in items)  # trec_eval: strtol, "23.4" -> 23
            if values[0] <= 0:
                raise MeasureError(f"{measure.name}.{text}: cut-offs must be positive")
        elif measure.kind == "cut_double":
            values = sorted(float(x) for x in items)
        elif measure.pairs:
            values = []
            for item in items:
                key, sep, val = item.partition("=")
                if not sep or not key:
                    raise MeasureError(f"{measure.name}.{text}: malformed pair parameters, expected name=value")
                values.append((key, float(val)))
            return tuple(values)
        else:
            values = [float(x) for x in items]
    except MeasureError:  # a MeasureError is a ValueError: keep its own message
        raise
    except (ValueError, OverflowError):  # OverflowError: int(float("1e400"))
        raise MeasureError(f"{measure.name}.{text}: parameters must be numbers separated by commas") from None
    if measure.kind.startswith("cut") and len(set(values)) != len(values):
        raise MeasureError(f"{measure.name}.{text}: duplicate cut-offs")
    return tuple(values)


def expand(name: str, param_text: str | None = None, *, version: str = "9") -> list[tuple[str, object]]:
    """(printed name, Measure) pairs for one trec_eval measure with optional parameters.

    Special measures (runid, num_q, relstring) give (printed name, None) or the relstring length.
    """
    measure = _BY_NAME[name]
    if measure.kind == "special":
        if name == "relstring":
            length = parse_trec_params(measure, param_text)[0] if param_text else measure.defaults[0]
            printed = f"relstring_{param_text}" if param_text else "relstring"
            return [(printed, int(length))]
        return [(name, None)]
    if measure.kind == "single":
        return [(name, measure.build(None, version))]
    values = parse_trec_params(measure, param_text) if param_text else measure.defaults
    if measure.kind == "cut_long":
        return [(f"{name}_{int(v)}", measure.build(int(v), version)) for v in values]
    if measure.kind == "cut_double":
        return [(f"{name}_{v:3.2f}", measure.build(float(v), version)) for v in values]
    printed = f"{name}_{param_text}" if param_text else name
    return [(printed, measure.build(values, version))]


_PRINTED_CUT = re.compile(r"^(?P<name>.+?)_(?P<value>\d+(?:\.\d+)?)$")


def from_trec_name(text: str, *, version: str = "9") -> list | None:
    """Measures for a trec_eval name (``map``, ``P_10``, ``P.5,10``, ``official``), or None."""
    name, dot, params = text.partition(".")
    if name in NICKNAMES[version] and not dot:
        out = []
        for member in NICKNAMES[version][name]:
            out.extend(m for _, m in expand(member, None, version=version) if m is not None and not isinstance(m, int))
        return out
    if name in _BY_NAME:
        if _BY_NAME[name].kind == "special":
            raise MeasureError(f"{name!r} is printed by `cranfield trec_eval` only; it is not a numeric measure")
        if dot and not params:
            raise MeasureError(f"{text!r}: empty parameter list after '.'")
        return [m for _, m in expand(name, params or None, version=version)]
    match = _PRINTED_CUT.match(text)
    if match and match.group("name") in _BY_NAME:
        measure = _BY_NAME[match.group("name")]
        value = match.group("value")
        if measure.kind == "cut_long" and value.isdigit():
            return [measure.build(int(value), version)]
        if measure.kind == "cut_double":
            return [measure.build(float(value), version)]
    return None


register_names(from_trec_name, trec_measure_names)  # parse_measure accepts trec_eval's names
