"""The JSON schema of a comparison document (``Comparison.to_json``, ``cranfield compare -f json``).

A JSON Schema (draft 2020-12 subset: type, properties, required, additionalProperties, items,
enum) kept here as data; docs/statistics.md shows it and a test checks that the two agree and
that every document validates against it.
"""

from __future__ import annotations

__all__ = ["COMPARISON_SCHEMA"]

_NUM = {"type": "number"}
_NUM_OR_NULL = {"type": ["number", "null"]}
_STR_OR_NULL = {"type": ["string", "null"]}
_INT = {"type": "integer"}


def _object(properties: dict, *, optional: tuple = ()) -> dict:
    return {"type": "object", "properties": properties,
            "required": [k for k in properties if k not in optional], "additionalProperties": False}


_TEST = _object({
    "name": {"enum": ["t", "wilcoxon", "sign", "randomization", "bootstrap"]},
    "title": {"type": "string"},
    "statistic": {"type": "string"},
    "df": _NUM_OR_NULL,
    "p_method": {"type": "string"},
    "exact": {"type": "boolean"},
    "two_sided": {"type": "boolean"},
    "zero_method": {"enum": ["wilcox", "pratt", "zsplit"]},
    "rank_digits": _INT,
    "continuity": {"type": "boolean"},
}, optional=("zero_method", "rank_digits", "continuity"))

_CORRECTION = _object({
    "name": {"enum": ["none", "bonferroni", "sidak", "holm", "holm-sidak", "hochberg", "hommel", "bh", "by",
                      "tukey", "randomized-tukey"]},
    "title": {"type": "string"},
    "kind": {"enum": ["none", "FWER", "FDR", "test"]},
    "family": {"enum": ["measure", "all"]},
    "family_size": _INT,
    "family_members": {"type": "string"},
})

_SETTINGS = _object({
    "test": _TEST,
    "correction": _CORRECTION,
    "alpha": _NUM,
    "ci": _object({"method": {"enum": ["normal", "t", "bootstrap", "bca"]}, "title": {"type": "string"},
                   "level": _NUM, "requested": {"enum": ["auto", "normal", "t", "bootstrap", "bca"]},
                   "matches_test": {"type": "boolean"}}),
    "resampling": _object({"resamples": _INT, "seed": {"type": ["integer", "string", "null"]},
                           "p_floor": _NUM_OR_NULL,
                           "used_by": {"type": "array", "items": {"enum": ["test", "correction", "ci"]}}}),
    "effect_size": {"type": "string"},
    "baseline": _STR_OR_NULL,
    "missing": {"enum": ["error", "intersect", "zero"]},
    "n_queries": _INT,
    "queries_per_system": {"type": ["object", "null"], "additionalProperties": _INT},
    "notes": {"type": "array", "items": {"type": "string"}},
})

_PAIR = _object({
    "a": {"type": "string"}, "b": {"type": "string"}, "n": _INT,
    "diff": _NUM, "ci_low": _NUM, "ci_high": _NUM,
    "effect_size": _NUM_OR_NULL, "statistic": _NUM_OR_NULL, "df": _NUM_OR_NULL,
    "p_value": _NUM, "p_method": {"type": "string"}, "p_floored": {"type": "boolean"},
    "p_adjusted": _NUM, "p_adjusted_floored": {"type": "boolean"}, "p_tukey": _NUM_OR_NULL,
    "significant": {"type": "boolean"},
    "wins": _INT, "ties": _INT, "losses": _INT,
})

_MEASURE = _object({
    "systems": {"type": "object", "additionalProperties": _object({"mean": _NUM, "ci_low": _NUM, "ci_high": _NUM})},
    "pairs": {"type": "array", "items": _PAIR},
})

COMPARISON_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "cranfield comparison",
    **_object({
        "schema": {"enum": ["cranfield.comparison/2"]},
        "settings": _SETTINGS,
        "measures": {"type": "object", "additionalProperties": _MEASURE},
    }),
}
