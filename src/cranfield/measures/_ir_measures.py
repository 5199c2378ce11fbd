"""ir_measures measure objects (``from ir_measures import AP, nDCG``; ``nDCG@10``, ``P(rel=2)@5``)
as cranfield measure texts, accepted wherever a measure name is (issue 27).

An object is recognised by its type's module (``ir_measures.…``), so ir_measures is never
imported here. It is converted through its canonical text: its name and parameters (what
``str(measure)`` prints, with ir_measures' own defaults where they differ from ours, e.g. RBP's
``p=0.8``) are mapped onto cranfield's names and parameters by :data:`IR_MEASURES`; an
ir_measures measure cranfield does not compute is an error that names it.
"""

from __future__ import annotations

from typing import Any

from ..errors import MeasureError

__all__ = ["IR_MEASURES", "ir_measures_text", "is_ir_measure"]

# ir_measures name -> (cranfield name, {ir_measures parameter: cranfield parameter}, {parameter: the
# ir_measures default to state explicitly}). "cutoff" (and IPrec's "recall") become the @ cut-off.
_REL = {"rel": "rel", "judged_only": "judged_only"}
IR_MEASURES: dict[str, tuple[str, dict[str, str], dict[str, Any]]] = {
    "AP": ("AP", _REL, {}),
    "P": ("P", _REL, {}),
    "R": ("R", _REL, {}),
    "RR": ("RR", _REL, {}),
    "nDCG": ("nDCG", {"gains": "gains", "judged_only": "judged_only"}, {}),
    "Rprec": ("RPrec", _REL, {}),
    "Bpref": ("Bpref", {"rel": "rel"}, {}),
    "infAP": ("infAP", {"rel": "rel"}, {}),
    "IPrec": ("IPrec", _REL, {}),
    "Judged": ("Judged", {}, {}),
    "Success": ("Success", _REL, {}),
    "NumRel": ("NumRel", {"rel": "rel"}, {}),
    "NumRet": ("NumRet", {}, {}),  # NumRet(rel=r) is NumRelRet: see _name
    "ERR": ("ERR", {}, {}),
    "RBP": ("RBP", {"p": "p"}, {"p": 0.8}),  # ir_measures' default persistence is 0.8, ours 0.9
    "SetP": ("SetP", _REL, {}),
    "SetR": ("SetR", _REL, {}),
    "SetAP": ("SetAP", _REL, {}),
    "SetF": ("SetF", {"rel": "rel", "judged_only": "judged_only", "beta": "beta"}, {}),
    "alpha_nDCG": ("alpha-nDCG", {"alpha": "alpha", "judged_only": "judged_only"}, {"alpha": 0.5}),
    "ERR_IA": ("ERR-IA", {"judged_only": "judged_only"}, {}),
    "nERR_IA": ("nERR-IA", {"judged_only": "judged_only"}, {}),
    "NRBP": ("NRBP", {"alpha": "alpha", "beta": "beta"}, {"alpha": 0.5, "beta": 0.5}),
    "nNRBP": ("nNRBP", {"alpha": "alpha", "beta": "beta"}, {"alpha": 0.5, "beta": 0.5}),
    "P_IA": ("P-IA", {"judged_only": "judged_only"}, {}),
    "StRecall": ("strec", {}, {}),
    "AP_IA": ("MAP-IA", {"judged_only": "judged_only"}, {}),
    # issue 26: the C/W/L measures (gains scaled by max_rel, min_rel 0) and Compat
    "INST": ("INST", {"T": "T", "max_rel": "max_rel"}, {}),
    "INSQ": ("INSQ", {"T": "T", "max_rel": "max_rel"}, {}),
    "BPM": ("BPM", {"T": "T", "max_rel": "max_rel"}, {}),
    "Compat": ("Compat", {"p": "p", "normalize": "normalize"}, {}),
}


def is_ir_measure(obj: Any) -> bool:
    """Whether ``obj`` is an ir_measures measure object (without importing ir_measures)."""
    module = type(obj).__module__ or ""
    return (module == "ir_measures" or module.startswith("ir_measures.")) and hasattr(obj, "NAME") \
        and hasattr(obj, "params")


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{v}" for k, v in sorted(value.items())) + "}"
    return str(value)


def ir_measures_text(obj: Any) -> str | None:
    """The cranfield text of an ir_measures measure object, or None if ``obj`` is not one.

    Raises MeasureError naming the measure when cranfield has no equivalent."""
    if not is_ir_measure(obj):
        return None
    shown = str(obj)
    rule = IR_MEASURES.get(obj.NAME)
    if rule is None:
        raise MeasureError(f"the ir_measures measure {shown} has no cranfield equivalent; supported: "
                           f"{', '.join(sorted(IR_MEASURES))} (see `cranfield measures`)")
    name, mapping, defaults = rule
    params = {**defaults, **{k: v for k, v in dict(obj.params).items() if v is not None}}
    cutoff = params.pop("recall" if obj.NAME == "IPrec" else "cutoff", None)
    if obj.NAME == "NumRet" and "rel" in params:  # ir_measures' NumRet(rel=r) counts relevant retrieved
        name, mapping = "NumRelRet", {"rel": "rel"}
    if obj.NAME == "SetP" and params.pop("relative", False):  # SetRelP is SetP(relative=True) there
        name = "SetRelP"
    if obj.NAME == "nDCG" and "dcg" in params:  # log2: gain = level (trec_eval); exp-log2: 2^level − 1
        dcg = params.pop("dcg")
        if dcg not in ("log2", "exp-log2"):
            raise MeasureError(f"the ir_measures measure {shown}: dcg={dcg} has no cranfield equivalent")
        if dcg == "exp-log2":
            params["gain"], mapping = "exp", {**mapping, "gain": "gain"}
    pairs = []
    for key, value in params.items():
        if key not in mapping:
            raise MeasureError(f"the ir_measures measure {shown}: parameter {key} has no cranfield equivalent")
        pairs.append(f"{mapping[key]}={_text(value)}")
    return name + (f"({','.join(pairs)})" if pairs else "") + (f"@{cutoff}" if cutoff is not None else "")
