"""The power of AUC tests (cranfield.stats.roc.power) against R's pROC's power.roc.test."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield.errors import InputError, UsageError
from cranfield.stats.roc import roc_power, roc_power_difference, roc_test

from ._proc import DATA, EQUAL, PILOT, SMALL, _close


@pytest.mark.slow  # the pROC oracle: one Rscript call per session (30-40 s)
def test_power(oracle):
    _close(roc_power(auc=0.8, n_cases=20, n_controls=30).power, oracle["power.power"], 8)
    _close(roc_power(auc=0.8, n_cases=20, n_controls=30, alternative="one-sided").power, oracle["power.one"], 8)
    _close(roc_power(auc=0.72, power=0.9, kappa=1.5).n_cases, oracle["power.ncases"], 8)
    _close(roc_power(auc=0.75, n_cases=30, n_controls=30, power=0.8, sig_level=None).sig_level,
           oracle["power.sig"], 64)
    # pROC solves for the AUC with uniroot's default tolerance (about 1.2e-4); ours to 1e-14
    assert roc_power(n_cases=20, n_controls=25, power=0.9).auc == pytest.approx(oracle["power.auc"][0], abs=2e-4)


@pytest.mark.slow  # the pROC oracle: one Rscript call per session (30-40 s)
def test_power_of_a_difference(oracle):
    y, a, b = DATA["d2"]
    # DeLong's (co)variances through np.cov against pROC's sums: relative 1e-12
    assert roc_power_difference(y, a, b).power == pytest.approx(oracle["power2.power"][0], rel=1e-12)
    assert roc_power_difference(y, a, b, power=0.9).n_cases == pytest.approx(oracle["power2.ncases"][0], rel=1e-12)
    assert roc_power_difference(y, a, b, power=0.9, sig_level=None).sig_level == \
        pytest.approx(oracle["power2.sig"][0], rel=1e-10)


@pytest.mark.slow  # the pROC oracle: one Rscript call per session (30-40 s)
@pytest.mark.parametrize("name", ["pilot", "small"])
def test_power_obuchowski(proc, name):
    y, a, b = PILOT if name == "pilot" else SMALL
    expected = proc[f"{name}.obuchowski"]
    ours = [roc_power_difference(y, a, b, method="obuchowski").power,
            roc_power_difference(y, a, b, method="obuchowski", power=0.9).n_cases,
            roc_power_difference(y, a, b, method="obuchowski", power=0.9, kappa=2).n_controls,
            roc_power_difference(y, a, b, method="obuchowski", power=0.9, sig_level=None).sig_level,
            roc_power_difference(y, a, b, method="obuchowski", alternative="one-sided").power]
    # the binormal fit: R's lm (QR) against our centred sums, both backward stable on ~100
    # well-conditioned points; the rest is the same closed form: relative 1e-10
    np.testing.assert_allclose(ours, expected, rtol=1e-10)
    assert "binormal" in roc_power_difference(y, a, b, method="obuchowski").method


@pytest.mark.slow  # the pROC oracle: one Rscript call per session (30-40 s)
def test_power_bootstrap(proc):
    y, a, b = SMALL
    result = roc_power_difference(y, a, b, method="bootstrap", power=0.9, n_resamples=20_000, random_state=4)
    theirs = proc["small.bootstrap"][0]
    # n = (z_α √V0 + z_β √VA)² / δ² with V0, VA from the resamples' sample (co)variances. Measured
    # on this pilot: the relative standard deviation of n over 30 seeds is 4.0 % at B = 2000 (the
    # normal-theory √(2/B) on the variances alone would give ≤ 3.2 %; the AUCs' bootstrap
    # distribution is not normal), so 1.3 % at our 20 000; the difference of the two estimates
    # has 4.2 %, and 20 % is over 4.5 of those. (The bootstrap estimates DeLong's variances, so
    # this checks the scale and the formula, not a difference of a few per cent.)
    assert result.n_cases == pytest.approx(theirs, rel=0.2), (result.n_cases, theirs)
    assert (result.n_resamples, result.seed) == (20_000, 4) and "bootstrap" in result.method
    again = roc_power_difference(y, a, b, method="bootstrap", power=0.9, n_resamples=20_000, random_state=4)
    assert again == result  # the seed reproduces the result


def test_power_and_venkatraman_errors():
    y, a, b = SMALL
    with pytest.raises(UsageError, match="method"):
        roc_power_difference(y, a, b, method="venkatraman")
    with pytest.raises(UsageError, match="n_resamples"):
        roc_power_difference(y, a, b, method="bootstrap", n_resamples=0)
    with pytest.raises(InputError, match="binormal"):  # two distinct scores: one point inside the square
        roc_power_difference(y, (a > 0.5).astype(float), b, method="obuchowski")
    with pytest.raises(UsageError, match="two-sided"):
        roc_test(*EQUAL[:2], EQUAL[3], y_true_b=EQUAL[2], method="venkatraman", alternative="greater")
