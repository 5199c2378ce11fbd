"""``cranfield.experiment``: PyTerrier's wide table with a baseline (issue 27, item 5); its
p-values are scipy's paired t test and its corrections statsmodels' ``multipletests``, compared
with ``==``, on the shipped Cranfield runs."""

import numpy as np
import pytest
import scipy.stats
from statsmodels.stats.multitest import multipletests

import cranfield
from cranfield import datasets


@pytest.fixture(scope="module")
def data():
    paths = datasets.cranfield()
    runs = {name: cranfield.read_run(paths["runs"][name]) for name in ("bm25", "tfidf", "coord_title")}
    return cranfield.read_qrels(paths["qrels"]), runs


def test_without_baseline_means_per_system(data):
    qrels, runs = data
    table = cranfield.experiment(qrels, runs, ["map", "nDCG@10"])
    assert list(table.columns) == ["name", "map", "nDCG@10"] and table["name"].tolist() == list(runs)
    for i, name in enumerate(runs):
        result = cranfield.evaluate(qrels, runs[name], ["AP", "nDCG@10"])
        assert table["map"][i] == result.mean["AP"] and table["nDCG@10"][i] == result.mean["nDCG@10"]


@pytest.mark.parametrize("correction, statsmodels_name", [("holm", "holm"), ("fdr_bh", "fdr_bh"),
                                                          ("bonferroni", "bonferroni")])
def test_baseline_columns_against_scipy_and_statsmodels(data, correction, statsmodels_name):
    qrels, runs = data
    table = cranfield.experiment(qrels, runs, ["map", "P@10"], baseline=1, correction=correction)
    measures = ["map", "P@10"]
    assert list(table.columns) == ["name", *measures] + [f"{m} {c}" for m in measures for c in
                                                         ("+", "-", "p-value", "reject", "p-value corrected")]
    per = {n: cranfield.evaluate(qrels, r, ["AP", "P@10"]) for n, r in runs.items()}
    others = [n for n in runs if n != "tfidf"]
    base_row = table[table["name"] == "tfidf"].iloc[0]
    assert np.isnan(base_row["map p-value"]) and np.isnan(base_row["map +"])
    for m, key in (("map", "AP"), ("P@10", "P@10")):
        base = per["tfidf"].per_query[key].to_numpy()
        p = []
        for n in others:
            x = per[n].per_query[key].to_numpy()
            row = table[table["name"] == n].iloc[0]
            assert row[f"{m} +"] == int((x > base).sum()) and row[f"{m} -"] == int((x < base).sum())
            p.append(scipy.stats.ttest_rel(x, base).pvalue)
            assert row[f"{m} p-value"] == p[-1]
        reject, corrected, _, _ = multipletests(p, alpha=0.05, method=statsmodels_name)
        rows = table.set_index("name").loc[others]
        assert rows[f"{m} p-value corrected"].tolist() == corrected.tolist()
        assert rows[f"{m} reject"].tolist() == reject.tolist()


def test_baseline_by_name_and_errors(data):
    qrels, runs = data
    by_name = cranfield.experiment(qrels, runs, ["map"], baseline="tfidf")
    assert by_name.equals(cranfield.experiment(qrels, runs, ["map"], baseline=1))
    assert "map p-value corrected" not in by_name.columns
    with pytest.raises(cranfield.UsageError, match="baseline"):
        cranfield.experiment(qrels, runs, ["map"], baseline=7)
