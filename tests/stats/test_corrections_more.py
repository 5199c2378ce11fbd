"""Šidák, Holm–Šidák, Hochberg, Hommel, Benjamini–Yekutieli (and the older ones) against
statsmodels' multipletests and R's p.adjust; families across measures."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cranfield.stats.compare import compare_values
from cranfield.stats.corrections import CORRECTIONS, adjust_pvalues

from ._r import r_vector, run_r

STATSMODELS = {"bonferroni": "bonferroni", "sidak": "sidak", "holm": "holm", "holm-sidak": "holm-sidak",
               "hochberg": "simes-hochberg", "hommel": "hommel", "bh": "fdr_bh", "by": "fdr_by"}
R_NAMES = {"bonferroni": "bonferroni", "holm": "holm", "hochberg": "hochberg", "hommel": "hommel", "bh": "BH", "by": "BY"}


def _families():
    rng = np.random.default_rng(2026)
    out = []
    for trial in range(60):
        m = int(rng.integers(1, 40))
        p = rng.random(m) ** rng.uniform(0.5, 4)
        out.append(np.round(p, 2) if trial % 3 == 0 else p)  # ties every third family
    out.append(np.array([0.0, 1.0, 1.0, 0.5, 0.0]))
    return out


def _ulps(a, b) -> float:
    return float(np.max(np.abs(a - b) / np.spacing(np.maximum(np.abs(b), np.finfo(float).tiny)), initial=0))


def test_every_correction_equals_statsmodels_multipletests():
    from statsmodels.stats.multitest import multipletests

    assert set(STATSMODELS) | {"none"} == set(CORRECTIONS)
    for i, p in enumerate(_families()):
        for ours, theirs in STATSMODELS.items():
            if ours == "holm" and i % 10:
                continue  # statsmodels' holm takes 0.3 s a call; R's p.adjust checks every family below
            with np.errstate(divide="ignore"):  # statsmodels' log1p(-1) for sidak at p = 1
                ref = multipletests(p, method=theirs)[1]
            got = adjust_pvalues(p, method=ours)
            # == except BH: ours is m p / i (= scipy's false_discovery_control), statsmodels'
            # p / (i / m): two roundings apart, measured at most 2 ulps
            assert _ulps(got, ref) <= (2 if ours == "bh" else 0), (ours, p)


@pytest.fixture(scope="module")
def r_adjusted():
    lines = [f"p <- {r_vector(p)}; " + "; ".join(f"out('{name}_{i}', p.adjust(p, '{r}'))" for name, r in R_NAMES.items())
             for i, p in enumerate(_families())]
    return run_r("\n".join(lines))


def test_corrections_equal_r_p_adjust(r_adjusted):
    worst = 0.0
    for i, p in enumerate(_families()):
        for name in R_NAMES:
            ref = r_adjusted[f"{name}_{i}"]
            # R computes in its own order (e.g. cummin over n/i * p): a few ulps; measured <= 3
            np.testing.assert_allclose(adjust_pvalues(p, method=name), ref, rtol=4 * np.finfo(float).eps, atol=0)
            worst = max(worst, _ulps(adjust_pvalues(p, method=name), ref))
    assert worst <= 4


@given(st.lists(st.floats(0, 1), min_size=1, max_size=30))
@settings(max_examples=60, deadline=None)
def test_orderings_between_procedures(p):
    p = np.array(p)
    a = {m: adjust_pvalues(p, method=m) for m in CORRECTIONS}
    tol = 1e-12
    assert np.all(a["holm"] <= a["bonferroni"] + tol) and np.all(a["hochberg"] <= a["holm"] + tol)
    assert np.all(a["hommel"] <= a["hochberg"] + tol) and np.all(a["sidak"] <= a["bonferroni"] + tol)
    assert np.all(a["holm-sidak"] <= a["holm"] + tol) and np.all(a["bh"] <= a["by"] + tol)
    for m in CORRECTIONS:
        assert np.all(a[m] >= p - tol) and np.all(a[m] <= 1)


def test_family_across_measures():
    rng = np.random.default_rng(4)
    values = {s: {m: {f"q{i}": float(rng.random() + 0.05 * k) for i in range(25)} for m in ("AP", "P@10", "RR")}
              for k, s in enumerate(("a", "b", "c"))}
    per = compare_values(values, correction="hommel")
    together = compare_values(values, correction="hommel", family="all")
    raw = np.array([p.p_value for p in together.pairs])
    assert raw.tolist() == [p.p_value for p in per.pairs]
    assert [p.p_adjusted for p in together.pairs] == adjust_pvalues(raw, method="hommel").tolist()
    for i in range(3):
        block = raw[3 * i:3 * i + 3]
        assert [p.p_adjusted for p in per.pairs[3 * i:3 * i + 3]] == adjust_pvalues(block, method="hommel").tolist()
    assert together.settings["family_size"] == 9 and per.settings["family_size"] == 3
    with pytest.raises(Exception, match="family"):
        compare_values(values, correction="tukey", family="all")
