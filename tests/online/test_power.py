"""Planning an A/B test (cranfield.online.power): power, sample size and minimum detectable effect
against statsmodels' NormalIndPower and TTestIndPower (power with ==), Cohen's h against
proportion_effectsize."""

from __future__ import annotations

import pytest

from cranfield.errors import UsageError
from cranfield.online import effect_size_from_proportions, minimum_detectable_effect, power, sample_size


@pytest.mark.parametrize("alternative", ["two-sided", "larger", "smaller"])
@pytest.mark.parametrize("d, n1, ratio", [(0.2, 394, 1.0), (0.05, 10_000.5, 2.5), (0.8, 12, 0.5)])
def test_power_equals_statsmodels(d, n1, ratio, alternative):
    from statsmodels.stats.power import NormalIndPower, TTestIndPower

    d = -d if alternative == "smaller" else d
    assert power(d, n1, ratio=ratio, alternative=alternative) == \
        NormalIndPower().power(d, n1, 0.05, ratio=ratio, alternative=alternative)
    assert power(d, n1, ratio=ratio, alternative=alternative, test="t") == \
        TTestIndPower().power(d, n1, 0.05, ratio=ratio, alternative=alternative)
    for test, oracle in (("z", NormalIndPower()), ("t", TTestIndPower())):
        n = sample_size(d, power=0.9, ratio=ratio, alternative=alternative, test=test)
        assert power(d, n, ratio=ratio, alternative=alternative, test=test) == pytest.approx(0.9, abs=1e-10)
        # statsmodels' root finder stops at its own tolerance (measured up to 6e-9 relative)
        assert n == pytest.approx(oracle.solve_power(effect_size=d, alpha=0.05, power=0.9, ratio=ratio,
                                                     alternative=alternative), rel=1e-6)
        mde = minimum_detectable_effect(n1, power=0.9, ratio=ratio, alternative=alternative, test=test)
        assert power(mde, n1, ratio=ratio, alternative=alternative, test=test) == pytest.approx(0.9, abs=1e-10)
        if alternative == "smaller":  # statsmodels' solver looks for a positive root: compare by symmetry
            mirror = minimum_detectable_effect(n1, power=0.9, ratio=ratio, alternative="larger", test=test)
            assert mde == pytest.approx(-mirror, rel=1e-10)  # two root searches, each to 1e-12
        else:  # statsmodels' root finder stops at its own tolerance (measured up to 6e-6 relative)
            assert mde == pytest.approx(oracle.solve_power(nobs1=n1, alpha=0.05, power=0.9, ratio=ratio,
                                                           alternative=alternative), rel=1e-4)


def test_effect_sizes():
    from statsmodels.stats.proportion import proportion_effectsize

    assert effect_size_from_proportions(0.3, 0.33) == proportion_effectsize(0.33, 0.3)
    with pytest.raises(UsageError):
        sample_size(0.0)
    with pytest.raises(UsageError):
        power(0.2, 100, alpha=1.5)
