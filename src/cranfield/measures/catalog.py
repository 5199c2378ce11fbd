"""The catalogue of every registered measure of every area, as records (``cranfield measures``).

One record per family: area, canonical name and its form (``P@k``, ``fbeta(beta=…)``), aliases,
typed parameters with their defaults, the data its kernel reads, the one-line definition, the
reference and (retrieval) the trec_eval names.
"""

from __future__ import annotations

from typing import Any

from .base import AREAS, Family, Param, _format_value, families

__all__ = ["catalog", "measure_form"]


def _default_text(param: Param) -> str:
    if param.default is None or param.default == ():
        return "…"
    return _format_value(param.default)


def measure_form(family: Family) -> str:
    """How the measure is written: ``P@k``, ``AP[@k]``, ``IPrec@r``, ``ctr[@k]``."""
    mark = "k" if family.cutoff_kind == "int" else "r"
    return family.name + {"none": "", "optional": f"[@{mark}]", "required": f"@{mark}"}[family.cutoff]


def catalog(area: str | None = None) -> list[dict[str, Any]]:
    """Every registered measure of ``area`` (every area when None), areas in layer order, names
    sorted case-insensitively.

    >>> rows = catalog("online")
    >>> [row["measure"] for row in rows][:3], rows[0]["area"], rows[0]["data"]
    (['abandonment', 'clicks', 'ctr'], 'online', 'click logs')
    """
    rows = []
    for where in AREAS if area is None else (area,):
        for name, family in sorted(families(where).items(), key=lambda kv: kv[0].lower()):
            rows.append({
                "area": family.area, "measure": name, "form": measure_form(family), "aliases": list(family.aliases),
                "parameters": {key: _default_text(p) for key, p in family.params.items()},
                "data": family.data, "definition": family.definition, "reference": family.reference,
                "trec_eval": [t.name for t in family.trec], "greater_is_better": family.greater_is_better,
            })
    return rows
