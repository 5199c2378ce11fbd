"""Runs over seeds: the variance components against statsmodels' two-way ANOVA table (anova_lm of
an OLS fit score ~ C(seed) + C(topic)) and the expected-mean-square formulas, the interval against
scipy's t interval over the seed means, the comparison against compare_values on averages made
here with pandas, and `cranfield compare --seeds` on the shipped runs."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import cranfield.cli
from cranfield import datasets
from cranfield.errors import UsageError
from cranfield.stats import compare_values
from cranfield.stats.seeds import compare_seeds, parse_seed_groups, seed_summary

smf = pytest.importorskip("statsmodels.formula.api")
sm = pytest.importorskip("statsmodels.api")


def _matrices(seed, systems=2, seeds=4, topics=30):
    rng = np.random.default_rng(seed)
    topic = rng.normal(0.4, 0.15, topics)
    runs, groups = {}, {}
    for s in range(systems):
        groups[f"S{s}"] = []
        for k in range(seeds):
            name = f"S{s}_seed{k}"
            runs[name] = topic + 0.05 * s + rng.normal(0, 0.03) + rng.normal(0, 0.05, topics)
            groups[f"S{s}"].append(name)
    return {"AP": runs}, groups, np.array([f"q{i}" for i in range(topics)])


@pytest.mark.parametrize("seed", range(3))
def test_components_against_statsmodels_anova(seed):
    matrices, groups, _ = _matrices(seed)
    rows = seed_summary(matrices, groups)
    for row in rows:
        x = np.vstack([matrices["AP"][r] for r in groups[row.system]])
        frame = pd.DataFrame({"score": x.ravel(), "seed": np.repeat(np.arange(x.shape[0]), x.shape[1]),
                              "topic": np.tile(np.arange(x.shape[1]), x.shape[0])})
        table = sm.stats.anova_lm(smf.ols("score ~ C(seed) + C(topic)", frame).fit())
        ms = table["sum_sq"] / table["df"]
        s, t = x.shape
        assert row.var_residual == pytest.approx(ms["Residual"], rel=1e-9)
        assert row.var_seed == pytest.approx(max(0.0, (ms["C(seed)"] - ms["Residual"]) / t), rel=1e-9, abs=1e-15)
        assert row.var_topic == pytest.approx(max(0.0, (ms["C(topic)"] - ms["Residual"]) / s), rel=1e-9)
        means = x.mean(axis=1)
        low, high = stats.t.interval(0.95, s - 1, loc=means.mean(), scale=stats.sem(means))
        assert (row.mean, row.ci_low, row.ci_high) == pytest.approx((means.mean(), low, high), rel=1e-12)
        assert row.sd_over_seeds == pytest.approx(means.std(ddof=1), rel=1e-12)


def test_comparison_is_of_the_means_over_seeds():
    matrices, groups, qids = _matrices(5)
    result = compare_seeds(matrices, groups, qids, test="t")
    averaged = {system: {"AP": pd.DataFrame({r: matrices["AP"][r] for r in runs}, index=qids).mean(axis=1).to_dict()}
                for system, runs in groups.items()}
    ref = compare_values(averaged, test="t")
    assert result.comparison.pairs[0].p_value == pytest.approx(ref.pairs[0].p_value, rel=1e-9)
    assert result.comparison.pairs[0].diff == pytest.approx(ref.pairs[0].diff, rel=1e-12)


def test_parse_and_policies():
    assert parse_seed_groups(["A=a.run, b.run", "B=c"]) == {"A": ["a.run", "b.run"], "B": ["c"]}
    for bad in (["A"], ["=a"], ["A="], ["A=a", "A=b"]):
        with pytest.raises(UsageError, match="--seeds"):
            parse_seed_groups(bad)
    matrices, groups, _ = _matrices(1)
    with pytest.raises(UsageError, match="2 or more"):
        seed_summary(matrices, {"S0": groups["S0"][:1]})


def test_cli_seeds_on_shipped_runs(capsys):
    d = datasets.cranfield()
    runs = [str(d["runs"][n]) for n in ("bm25", "tfidf", "coord_title")]
    status = cranfield.cli.main(["compare", str(d["qrels"]), *runs, "--seeds", "A=bm25,tfidf",
                                 "--seeds", "B=coord_title.run,tfidf", "-m", "AP", "-f", "json"])
    out, _ = capsys.readouterr()
    document = json.loads(out)
    assert status == 0 and [s["system"] for s in document["seeds"]] == ["A", "B"]
    assert document["seeds"][0]["n_topics"] == 225 and document["comparison"]["measures"]
    assert cranfield.cli.main(["compare", str(d["qrels"]), *runs, "--seeds", "A=nope,tfidf"]) == 2
