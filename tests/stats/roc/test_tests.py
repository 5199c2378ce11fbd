"""roc_test (cranfield.stats.roc.tests): DeLong, bootstrap and Venkatraman tests of two curves against R's pROC."""

from __future__ import annotations

import pytest

from cranfield.stats.roc import roc_test

from ._proc import DATA, _mc_p


@pytest.mark.slow  # the pROC oracle: one Rscript call per session (30-40 s)
@pytest.mark.parametrize("name", list(DATA))
def test_delong_unpaired_and_paired(oracle, name):
    y, a, b = DATA[name]
    unpaired = roc_test(y[0::2], a[0::2], b[1::2], y_true_b=y[1::2])
    t, df, p = oracle[f"{name}.unpaired"]
    # placement variances (np.cov against R's sums of squares): relative 1e-12
    assert unpaired.statistic == pytest.approx(t, rel=1e-12) and unpaired.df == pytest.approx(df, rel=1e-12)
    assert unpaired.p_value == pytest.approx(p, rel=1e-10)
    paired = roc_test(y, a, b)
    assert paired.statistic == pytest.approx(oracle[f"{name}.paired"][0], rel=1e-12)
    assert paired.p_value == pytest.approx(oracle[f"{name}.paired"][1], rel=1e-10)


@pytest.mark.slow  # the pROC oracle: one Rscript call per session (30-40 s)
def test_venkatraman(oracle):
    y, a, b = DATA["d3"]
    result = roc_test(y, a, b, method="venkatraman", n_resamples=2000, random_state=7)
    e, p = oracle["d3.venkatraman"]
    assert result.statistic == e  # an integer sum: exactly pROC's E
    assert abs(result.p_value - p) <= _mc_p(p, 2000), (result.p_value, p)


@pytest.mark.slow  # the pROC oracle: one Rscript call per session (30-40 s)
def test_bootstrap_tests(oracle):
    name = "d3"
    y, a, b = DATA[name]
    paired = roc_test(y, a, b, method="bootstrap", n_resamples=2000, random_state=3)
    unpaired = roc_test(y[0::2], a[0::2], b[1::2], y_true_b=y[1::2], method="bootstrap", n_resamples=2000,
                        random_state=3)
    for ours, key in ((paired, "bootstrap_paired"), (unpaired, "bootstrap_unpaired")):
        d, p = oracle[f"{name}.{key}"]
        # D = Δ / sd*: sd* has a relative Monte Carlo error ≈ 1/sqrt(2B) ≈ 1.6 % per estimate: 8 % is
        # over 3.5 standard errors of the difference of two estimates
        assert ours.statistic == pytest.approx(d, rel=0.08), (key, ours.statistic, d)
        assert abs(ours.p_value - p) <= max(0.15 * p, 0.002), (key, ours.p_value, p)
