"""trec_eval's measure names, parameters and printed names, mapped onto cranfield measures.

Each retrieval family declares its own trec_eval names next to its kernel (``Family.trec``,
see :mod:`cranfield.measures.trec`); this module is a view of the registry: it collects them in
the order trec_eval's ``measures.c`` prints them, adds the printer's own entries (runid, num_q,
relstring) and the nicknames (``official``, ``all_trec``, ``set``). It is used both to accept
trec_eval names anywhere a measure is expected (``map`` → ``AP``, ``P_10``/``P.10`` → ``P@10``,
``ndcg_cut.10,20`` → ``nDCG@10``, ``nDCG@20``) and by the ``cranfield trec_eval`` command to print
exactly what trec_eval prints.
"""

from __future__ import annotations

import re

from ..errors import MeasureError
from .base import families, register_resolver
from .trec import CUTOFFS, RECALL_LEVELS, RPREC_MULTS, TrecMeasure

__all__ = ["TrecMeasure", "TREC_MEASURES", "NICKNAMES", "from_trec_name", "trec_measure_names", "expand",
           "parse_trec_params", "CUTOFFS", "RECALL_LEVELS", "RPREC_MULTS"]

# trec_eval 9.0.8's measures.c order (the order in which it prints); the printer's own entries
# are declared here, every other name by its family.
_PRINT_ORDER = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult",
                "utility", "11pt_avg", "binG", "G", "dcg", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut",
                "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
                "num_nonrel_judged_ret", "rbp", "rbp_resid", "unj")
_PRINTER = (TrecMeasure("runid", "special", per_query=False), TrecMeasure("num_q", "special", long=True, per_query=False),
            TrecMeasure("relstring", "special", (10.0,)))


def _collect() -> tuple[TrecMeasure, ...]:
    # families() imports the retrieval area (measures.registry) when this module is imported first
    declared = {m.name: m for m in _PRINTER}
    for family in families("retrieval").values():
        for measure in family.trec:
            if measure.name in declared:
                raise AssertionError(f"trec_eval name {measure.name} declared twice")
            declared[measure.name] = measure
    if set(declared) != set(_PRINT_ORDER):
        raise AssertionError(f"trec_eval names out of the print order: {sorted(set(declared) ^ set(_PRINT_ORDER))}")
    return tuple(declared[name] for name in _PRINT_ORDER)


TREC_MEASURES: tuple[TrecMeasure, ...] = _collect()

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


_LEVEL = re.compile(r"[+-]?\d+")
_ATOL = re.compile(r"\s*([+-]?\d+)")


def _pair(measure: TrecMeasure, text: str, item: str, strict: bool) -> tuple:
    """One ``level=gain`` pair (RBP: ``p=value``) as (int level or 'p', float).

    trec_eval reads the level with C's ``atol``: leading blanks and digits, the rest ignored
    (``1.5`` is level 1, ``abc`` and an empty level are level 0). ``strict`` (the measure grammar)
    refuses a level that is not a whole number instead of truncating it; the ``cranfield
    trec_eval`` command reads it as trec_eval does, to print trec_eval's numbers."""
    key, sep, val = item.partition("=")
    if not sep or (strict and not key):
        raise MeasureError(f"{measure.name}.{text}: malformed pair parameters, expected name=value")
    if key == "p" and measure.name == "rbp":
        return "p", float(val)
    if _LEVEL.fullmatch(key):
        return int(key), float(val)
    if strict:
        raise MeasureError(f"{measure.name}.{text}: gain level {key!r} is not a whole number (a relevance "
                           "level such as 1 or 2)")
    digits = _ATOL.match(key)
    return (int(digits.group(1)) if digits else 0), float(val)


def parse_trec_params(measure: TrecMeasure, text: str, *, strict: bool = False):
    """trec_eval's parameter string → values (sorted and de-duplicated for cut-offs); gain
    levels as :func:`_pair` reads them (``strict``: whole numbers only)."""
    items = text.split(",")
    try:
        if measure.kind == "cut_long":
            values = sorted(int(float(x)) for x in items)  # trec_eval: strtol, "23.4" -> 23
            if values[0] <= 0:
                raise MeasureError(f"{measure.name}.{text}: cut-offs must be positive")
        elif measure.kind == "cut_double":
            values = sorted(float(x) for x in items)
        elif measure.pairs:
            return tuple(_pair(measure, text, item, strict) for item in items)
        else:
            values = [float(x) for x in items]
    except MeasureError:  # a MeasureError is a ValueError: keep its own message
        raise
    except (ValueError, OverflowError):  # OverflowError: int(float("1e400"))
        raise MeasureError(f"{measure.name}.{text}: parameters must be numbers separated by commas") from None
    if measure.kind.startswith("cut") and len(set(values)) != len(values):
        raise MeasureError(f"{measure.name}.{text}: duplicate cut-offs")
    return tuple(values)


def expand(name: str, param_text: str | None = None, *, version: str = "9",
           strict: bool = False) -> list[tuple[str, object]]:
    """(printed name, Measure) pairs for one trec_eval measure with optional parameters.

    Special measures (runid, num_q, relstring) give (printed name, None) or the relstring length.
    ``strict``: a gain level that is not a whole number is an error (trec_eval truncates it).
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
    values = parse_trec_params(measure, param_text, strict=strict) if param_text else measure.defaults
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
        return [m for _, m in expand(name, params or None, version=version, strict=True)]
    match = _PRINTED_CUT.match(text)
    if match and match.group("name") in _BY_NAME:
        measure = _BY_NAME[match.group("name")]
        value = match.group("value")
        if measure.kind == "cut_long" and value.isdigit():
            return [measure.build(int(value), version)]
        if measure.kind == "cut_double":
            return [measure.build(float(value), version)]
    return None


register_resolver("retrieval", from_trec_name, trec_measure_names)
