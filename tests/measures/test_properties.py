"""Metamorphic properties over EVERY registered retrieval measure (DESIGN principle 9).

A new family must be listed in FAMILY_PROPERTIES (with the properties that apply to it), or
``test_every_family_is_covered`` fails.
"""

from __future__ import annotations

import random

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cranfield
from cranfield.measures.base import Measure, families

# family -> extra properties beyond the generic ones (bounds, order invariance)
FAMILY_PROPERTIES: dict[str, set[str]] = {
    "AP": {"truncation", "ideal_is_one"}, "GMAP": set(), "infAP": set(), "RR": {"truncation", "ideal_is_one"},
    "P": {"truncation"}, "R": {"truncation", "monotone_k"}, "RPrec": {"ideal_is_one"}, "RelP": {"truncation"},
    "Success": {"truncation", "monotone_k"}, "SetP": set(), "SetR": set(), "SetRelP": set(), "SetAP": set(),
    "SetF": set(), "Utility": set(), "IPrec": set(), "IPrec11": set(), "nDCG": {"truncation", "ideal_is_one"},
    "DCG": {"truncation"}, "nDCGRel": set(), "RnDCG": set(), "G": set(), "BinG": set(), "Bpref": set(),
    "GMBpref": set(), "RBP": set(), "Unjudged": {"truncation"}, "Judged": {"truncation"},
    "NumRet": set(), "NumRel": set(), "NumRelRet": set(), "NumNonRelJudgedRet": set(),
    "ERR": {"truncation"}, "F": {"truncation"}, "E": {"truncation"}, "Fallout": set(), "SysEff": set(),
    # diversity (ndeval's; on ordinary qrels each query has one intent)
    "alpha-nDCG": {"truncation"}, "alpha-DCG": {"truncation"}, "ERR-IA": {"truncation"},
    "nERR-IA": {"truncation"}, "P-IA": {"truncation"}, "strec": {"truncation", "monotone_k"},
    "NRBP": set(), "nNRBP": {"ideal_is_one"}, "MAP-IA": {"ideal_is_one"},
    # issue 26
    "NCG": {"truncation", "ideal_is_one"}, "Hits": {"truncation", "monotone_k"},
    "PSP": {"truncation"}, "PSnDCG": {"truncation"}, "Compat": {"ideal_is_one"},
    "INST": set(), "INSQ": set(), "BPM": set(), "CWL-RBP": set(), "CWL-RR": set(), "CWL-AP": set(),
}

DOCS = ["d1", "d10", "d2", "d20", "d3", "D4", "d5", "e"]
PROPENSITIES = {d: (i + 1) / len(DOCS) for i, d in enumerate(DOCS)}  # for PSP and PSnDCG


@st.composite
def instances(draw):
    n_queries = draw(st.integers(1, 4))
    qrels, run = {}, {}
    for q in range(n_queries):
        qid = f"q{q}"
        judged = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=len(DOCS), unique=True))
        qrels[qid] = {d: draw(st.integers(-1, 3)) for d in judged}
        retrieved = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=len(DOCS), unique=True))
        run[qid] = {d: float(draw(st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, -1.0]))) for d in retrieved}
    return qrels, run


def all_measures(k: int) -> list[Measure]:
    out = []
    for family in families().values():
        if family.cutoff == "required":
            out.append(Measure(family.name, {}, k if family.cutoff_kind == "int" else 0.5))
        else:
            out.append(Measure(family.name))
            if family.cutoff == "optional":
                out.append(Measure(family.name, {}, k))
    return out


def evaluate(qrels, run, measures):
    return cranfield.evaluate(qrels, run, measures, collection_size=100, propensities=PROPENSITIES)


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def test_every_family_is_covered():
    missing = sorted(set(families()) - set(FAMILY_PROPERTIES))
    assert not missing, f"add these families to FAMILY_PROPERTIES in {__file__}: {missing}"


@SETTINGS
@given(instances(), st.integers(1, 6))
def test_bounds(instance, k):
    qrels, run = instance
    results = evaluate(qrels, run, all_measures(k))
    for measure in results.measures:
        values = results.per_query[str(measure)]
        lo, hi = measure.family.bounds
        assert np.isfinite(values).all(), measure
        if lo is not None:
            assert (values >= lo - 1e-12).all(), (measure, values)
        if hi is not None:
            assert (values <= hi + 1e-12).all(), (measure, values)
        if measure.family.integer_valued:
            assert (values == np.round(values)).all(), measure


@SETTINGS
@given(instances(), st.integers(1, 6), st.randoms(use_true_random=False))
def test_row_order_does_not_matter(instance, k, rnd):
    """Query order and document order in the input change nothing (ties follow docno)."""
    qrels, run = instance
    measures = all_measures(k)
    base = evaluate(qrels, run, measures)

    def shuffled(mapping):
        items = [(q, d, v) for q, docs in mapping.items() for d, v in docs.items()]
        rnd.shuffle(items)
        import pyarrow as pa
        return pa.table({"qid": [i[0] for i in items], "docno": [i[1] for i in items],
                         "value": [i[2] for i in items]})

    other = cranfield.evaluate(cranfield.Qrels.from_frame(shuffled(qrels), value="value"),
                               cranfield.Run.from_frame(shuffled(run), value="value"), measures, collection_size=100,
                               propensities=PROPENSITIES)
    for name in base.per_query:
        np.testing.assert_array_equal(base.per_query[name], other.per_query[name], err_msg=name)


@SETTINGS
@given(instances(), st.integers(1, 6), st.integers(1, 5))
def test_appending_below_k_changes_nothing_at_k(instance, k, extra):
    qrels, run = instance
    measures = [m for m in all_measures(k) if m.cutoff is not None and "truncation" in FAMILY_PROPERTIES[m.name]]
    base = evaluate(qrels, run, measures)
    longer = {q: dict(docs) for q, docs in run.items()}
    for q, docs in longer.items():
        if len(docs) >= k:
            lowest = min(docs.values())
            docs.update({f"zz{j}": lowest - 1 - j for j in range(extra)})  # unjudged, below everything
    after = evaluate(qrels, longer, measures)
    for name in base.per_query:
        np.testing.assert_array_equal(base.per_query[name], after.per_query[name], err_msg=name)


@SETTINGS
@given(instances(), st.integers(1, 5))
def test_monotone_in_k(instance, k):
    qrels, run = instance
    for name in [n for n, props in FAMILY_PROPERTIES.items() if "monotone_k" in props]:
        low = evaluate(qrels, run, [Measure(name, {}, k)]).per_query[f"{name}@{k}"]
        high = evaluate(qrels, run, [Measure(name, {}, k + 1)]).per_query[f"{name}@{k + 1}"]
        assert (high >= low - 1e-12).all(), name


@SETTINGS
@given(instances())
def test_ideal_ranking_scores_one(instance):
    qrels, _ = instance
    ideal = {q: {d: float(rel) for d, rel in docs.items() if rel > 0} for q, docs in qrels.items()}
    ideal = {q: docs for q, docs in ideal.items() if docs}
    if not ideal:
        return
    measures = [Measure(n) for n, props in FAMILY_PROPERTIES.items() if "ideal_is_one" in props]
    results = evaluate(qrels, ideal, measures)
    for name, values in results.per_query.items():
        np.testing.assert_allclose(values, 1.0, rtol=0, atol=1e-12, err_msg=name)


@SETTINGS
@given(instances())
def test_rprec_is_precision_at_r(instance):
    qrels, run = instance
    for qid in qrels:
        r = sum(1 for rel in qrels[qid].values() if rel >= 1)
        if r == 0 or qid not in run:
            continue
        single_q, single_r = {qid: qrels[qid]}, {qid: run[qid]}
        values = evaluate(single_q, single_r, ["RPrec", Measure("P", {}, r)]).mean
        assert values["RPrec"] == values[f"P@{r}"]


def test_gmap_is_geometric_mean_of_ap():
    rng = random.Random(3)
    qrels = {f"q{i}": {f"d{j}": rng.randint(0, 2) for j in range(6)} for i in range(5)}
    run = {f"q{i}": {f"d{j}": rng.random() for j in range(6)} for i in range(5)}
    result = evaluate(qrels, run, ["AP", "GMAP"])
    ap = result.per_query["AP"]
    expected = float(np.exp(np.mean(np.log(np.maximum(ap, 1e-5)))))
    assert abs(result.mean["GMAP"] - expected) < 1e-12
