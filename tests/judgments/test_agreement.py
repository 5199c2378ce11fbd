"""Assessor agreement against the reference implementations: scikit-learn's cohen_kappa_score,
statsmodels' fleiss_kappa, the krippendorff package; properties; qrels-level policies; rankings.

Tolerance: cranfield and the references compute the same ratio from the same integer counts and
differ only in the order of the float sums (of at most K² products; cranfield forms the counts
exactly as integers first). Measured worst difference over the random cases below: 2 ulps of
max(1, |value|); the tests allow 8 ulps of max(1, |value|)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

krippendorff = pytest.importorskip("krippendorff")
sklearn_metrics = pytest.importorskip("sklearn.metrics")
inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
from hypothesis import given, settings, strategies as st  # noqa: E402

from cranfield import datasets  # noqa: E402
from cranfield.errors import InputError, UsageError  # noqa: E402
from cranfield.judgments import (assessor_agreement, cohen_kappa, fleiss_kappa, krippendorff_alpha,  # noqa: E402
                                 ranking_agreement)

ULPS = 8


def close(mine: float, reference: float) -> bool:
    if np.isnan(reference):
        return bool(np.isnan(mine))
    return abs(mine - reference) <= ULPS * np.spacing(max(1.0, abs(reference)))


def sklearn_kappa(a, b, weights):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return sklearn_metrics.cohen_kappa_score(a, b, weights=weights)


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_cohen_kappa_is_sklearns(weights):
    rng = np.random.default_rng(7)
    for _ in range(60):
        n, k = int(rng.integers(2, 80)), int(rng.integers(2, 6))
        a = rng.integers(0, k, n) - 1
        b = np.where(rng.random(n) < 0.6, a, rng.integers(0, k, n) - 1)
        assert close(cohen_kappa(a, b, weights=weights), sklearn_kappa(a, b, weights)), (a, b)


def test_fleiss_kappa_is_statsmodels():
    rng = np.random.default_rng(8)
    for _ in range(60):
        ratings = rng.integers(0, int(rng.integers(2, 5)), (int(rng.integers(2, 40)), int(rng.integers(2, 6))))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reference = inter_rater.fleiss_kappa(inter_rater.aggregate_raters(ratings)[0], method="fleiss")
        assert close(fleiss_kappa(ratings), reference), ratings


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_krippendorff_alpha_is_krippendorffs(level):
    rng = np.random.default_rng(9)
    for _ in range(40):
        raters, units = int(rng.integers(2, 5)), int(rng.integers(3, 30))
        data = (rng.integers(0, 4, (raters, units)) * rng.choice([1.0, 2.5]) - 1.0)
        data[rng.random((raters, units)) < 0.2] = np.nan  # missing values
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                reference = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
            except ValueError:  # one value in the whole domain: undefined
                reference = np.nan
        assert close(krippendorff_alpha(data, level=level), reference), data


def _random_qrels(rng, sets: int, queries: int = 6, docs: int = 15, k: int = 3, drop: float = 0.0):
    base = {f"q{q}": {f"d{d}": int(rng.integers(0, k)) for d in range(docs)} for q in range(queries)}
    out = []
    for _ in range(sets):
        qrels = {}
        for q, judged in base.items():
            qrels[q] = {d: (r if rng.random() < 0.7 else int(rng.integers(0, k))) for d, r in judged.items()
                        if rng.random() >= drop}
        out.append(qrels)
    return out


def _aligned(qrels, keys):
    return np.array([[q.get(qid, {}).get(doc, np.nan) for qid, doc in keys] for q in qrels], dtype=float)


def test_qrels_figures_are_the_references():
    rng = np.random.default_rng(3)
    qrels = _random_qrels(rng, 3)
    result = assessor_agreement(qrels, names=["A", "B", "C"], n_resamples=0)
    keys = [(q, d) for q in sorted(qrels[0]) for d in sorted(qrels[0][q])]
    data = _aligned(qrels, keys).astype(np.int64)
    for weights, name in ((None, "cohen_kappa"), ("linear", "cohen_kappa_linear"), ("quadratic", "cohen_kappa_quadratic")):
        assert close(result.figure(name, ("A", "C")).overall, sklearn_kappa(data[0], data[2], weights))
    one_query = [i for i, (q, _) in enumerate(keys) if q == "q2"]
    q_index = result.query_ids.index("q2")
    assert close(result.figure("cohen_kappa", ("A", "B")).per_query[q_index],
                 sklearn_kappa(data[0, one_query], data[1, one_query], None))
    table = inter_rater.aggregate_raters(data.T)[0]
    assert close(result.figure("fleiss_kappa").overall, inter_rater.fleiss_kappa(table, method="fleiss"))
    for level in ("nominal", "ordinal", "interval"):
        assert close(result.figure(f"krippendorff_alpha_{level}").overall,
                     krippendorff.alpha(reliability_data=data.astype(float), level_of_measurement=level))
    agree = result.figure("percent_agreement", ("A", "B"))
    assert agree.overall == np.mean(data[0] == data[1]) and agree.pairs == len(keys)


def test_missing_keep_gives_alpha_with_missing_values():
    rng = np.random.default_rng(4)
    qrels = _random_qrels(rng, 3, drop=0.25)
    keys = sorted({(q, d) for s in qrels for q in s for d in s[q]})
    data = _aligned(qrels, keys)
    result = assessor_agreement(qrels, names=["A", "B", "C"], missing="keep", n_resamples=0)
    assert close(result.figure("krippendorff_alpha_ordinal").overall,
                 krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal"))
    both = ~np.isnan(data[0]) & ~np.isnan(data[1])
    assert close(result.figure("cohen_kappa", ("A", "B")).overall,
                 sklearn_kappa(data[0, both].astype(int), data[1, both].astype(int), None))
    complete = ~np.isnan(data).any(axis=0)
    assert result.figure("fleiss_kappa").pairs == int(complete.sum())


def test_missing_policies_and_overlap_by_hand():
    a = {"q1": {"d1": 1, "d2": 1, "d3": 0}}
    b = {"q1": {"d1": 1, "d2": 0, "d4": 1}}
    inter = assessor_agreement([a, b], n_resamples=0)
    assert inter.figure("overlap").overall == 1 / 2 and inter.figure("overlap").pairs == 2  # d1, d2
    zero = assessor_agreement([a, b], missing="nonrelevant", n_resamples=0)
    assert zero.figure("overlap").overall == 1 / 3  # relevant: {d1, d2} vs {d1, d4}
    assert zero.figure("percent_agreement").pairs == 4
    keep = assessor_agreement([a, b], missing="keep", n_resamples=0)
    assert keep.figure("overlap").pairs == 2


def test_percent_agreement_with_nonrelevant_counts_absent_as_zero():
    a = {"q1": {"d1": 1, "d2": 1, "d3": 0}}
    b = {"q1": {"d1": 1, "d2": 0, "d4": 1}}
    zero = assessor_agreement([a, b], missing="nonrelevant", n_resamples=0)
    # pairs d1 (1,1) d2 (1,0) d3 (0,0) d4 (0,1): two agree
    assert zero.figure("percent_agreement").overall == 0.5


def test_bootstrap_is_seeded_and_brackets_the_value():
    rng = np.random.default_rng(5)
    qrels = _random_qrels(rng, 2, queries=20)
    one = assessor_agreement(qrels, n_resamples=300, random_state=11)
    two = assessor_agreement(qrels, n_resamples=300, random_state=11)
    for f, g in zip(one.figures, two.figures):
        assert (f.low, f.high) == (g.low, g.high)
        if not np.isnan(f.overall):
            assert f.low <= f.overall <= f.high or f.statistic.startswith("krippendorff")
    assert one.settings["n_resamples"] == 300 and one.settings["random_state"] == 11
    none = assessor_agreement(qrels, n_resamples=0)
    assert np.isnan(none.figures[0].low)


def test_undefined_is_nan_by_policy():
    same = {"q1": {"d1": 1, "d2": 1}}
    result = assessor_agreement([same, same], n_resamples=0)
    assert result.figure("percent_agreement").overall == 1.0
    assert np.isnan(result.figure("cohen_kappa").overall)  # expected disagreement 0
    assert np.isnan(cohen_kappa([1, 1], [1, 1]))
    table = result.to_dict()
    assert table["figures"][1]["overall"] is None


def test_bad_inputs():
    with pytest.raises(UsageError):
        assessor_agreement([{"q1": {"d1": 1}}])
    with pytest.raises(UsageError):
        assessor_agreement([{"q1": {"d1": 1}}, {"q1": {"d1": 1}}], missing="zero")
    with pytest.raises(InputError, match="no .* pair is judged by every set"):
        assessor_agreement([{"q1": {"d1": 1}}, {"q2": {"d1": 1}}])
    with pytest.raises(InputError):
        cohen_kappa([1, 2], [1])
    with pytest.raises(InputError):
        fleiss_kappa([1, 2, 3])


def test_a_pair_judged_twice_names_the_line(tmp_path):
    (tmp_path / "a.qrels").write_text("q1 0 d1 1\nq1 0 d2 0\nq1 0 d1 0\n")
    (tmp_path / "b.qrels").write_text("q1 0 d1 1\n")
    with pytest.raises(InputError) as info:
        assessor_agreement([str(tmp_path / "b.qrels"), str(tmp_path / "a.qrels")])
    assert info.value.line == 3 and info.value.source.endswith("a.qrels")


labels = st.lists(st.integers(-1, 3), min_size=2, max_size=30)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_properties(data):
    a = np.array(data.draw(labels))
    b = np.array(data.draw(st.lists(st.integers(-1, 3), min_size=len(a), max_size=len(a))))
    for weights in (None, "linear", "quadratic"):
        k_ab, k_ba = cohen_kappa(a, b, weights=weights), cohen_kappa(b, a, weights=weights)
        assert (np.isnan(k_ab) and np.isnan(k_ba)) or abs(k_ab - k_ba) <= 4 * np.spacing(1.0)  # symmetric
        if len(np.unique(a)) > 1:
            assert cohen_kappa(a, a, weights=weights) == 1.0
    mapping = dict(zip(range(-1, 4), data.draw(st.permutations([10, 20, 30, 40, 50]))))
    relabel = np.vectorize(mapping.get)
    one, two = krippendorff_alpha(np.stack((a, b)), level="nominal"), \
        krippendorff_alpha(np.stack((relabel(a), relabel(b))), level="nominal")
    assert (np.isnan(one) and np.isnan(two)) or abs(one - two) <= 4 * np.spacing(1.0)  # relabelling: same
    assert fleiss_kappa(np.stack((a, a), 1)) == 1.0 or len(np.unique(a)) == 1


def test_cranfield_raw_and_graded_and_rankings():
    data = datasets.cranfield()
    result = assessor_agreement([data["qrels_raw"], data["qrels"]], names=["raw", "graded"], n_resamples=200)
    assert result.figure("overlap").overall == 1.0  # the same relevant documents
    assert result.figure("percent_agreement").overall == 0.0  # the codes run the other way
    assert result.figure("cohen_kappa").pairs == 1837
    runs = [data["runs"][n] for n in ("bm25", "tfidf", "coord_title")]
    ranking = ranking_agreement([data["qrels_raw"], data["qrels"]], runs, measure="AP", names=["raw", "graded"])
    import cranfield

    assert ranking.scores[1, 0] == cranfield.evaluate(data["qrels"], data["runs"]["bm25"], ["AP"]).mean["AP"]
    assert (ranking.kendall_tau == 1.0).all() and (ranking.tau_ap == 1.0).all()
    with pytest.raises(UsageError):
        ranking_agreement([data["qrels_raw"], data["qrels"]], runs[:1])


def test_three_sets_on_the_command_line(tmp_path, capsys):
    from cranfield.cli import main

    rng = np.random.default_rng(12)
    paths = []
    for i, qrels in enumerate(_random_qrels(rng, 3, drop=0.2)):
        path = tmp_path / f"s{i}.qrels"
        path.write_text("".join(f"{q} 0 {d} {r}\n" for q, docs in qrels.items() for d, r in docs.items()))
        paths.append(str(path))
    code = main(["agreement", *paths, "--missing", "keep", "--per-query", "-f", "tsv", "--resamples", "20"])
    out = capsys.readouterr().out
    assert code == 0
    assert "Fleiss' kappa\tall" in out and "percentage agreement\ts0.qrels vs s2.qrels" in out
    assert out.count("\nq") >= 6  # one row per query


def test_order_of_queries_and_documents_changes_nothing():
    rng = np.random.default_rng(13)
    qrels = _random_qrels(rng, 2, queries=8)
    reordered = [{q: dict(reversed(list(docs.items()))) for q, docs in reversed(list(s.items()))} for s in qrels]
    one = assessor_agreement(qrels, n_resamples=50, random_state=1)
    two = assessor_agreement(reordered, n_resamples=50, random_state=1)
    assert one.query_ids == two.query_ids
    for f, g in zip(one.figures, two.figures):
        assert close(f.overall, g.overall) and np.allclose(f.per_query, g.per_query, equal_nan=True, rtol=0,
                                                           atol=1e-14)
        assert (np.isnan(f.low) and np.isnan(g.low)) or close(f.low, g.low)
