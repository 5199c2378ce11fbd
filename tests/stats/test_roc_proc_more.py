"""Venkatraman's unpaired test and the power of a two-curve comparison by Obuchowski's and the
bootstrap variances, against R's pROC itself (one Rscript call, through ``tests/stats/_r.py``:
skipped with the reason where R or pROC is missing, a failure under CI).

* Unpaired Venkatraman: E is compared with ``==`` (we sum in pROC's order and, as R's ``sum``,
  in long double); pROC mixes the two classes with the proportion (cases₁ + cases₂)/(2 n₁), which
  is the pooled proportion we use only when n₁ = n₂, so with equal sizes the whole
  ``roc.test(paired = FALSE)`` is compared, with unequal sizes pROC's own statistic and
  permutation functions called with the pooled proportion. The p-values are Monte Carlo.
* ``roc_power_difference(method="obuchowski")``: deterministic but for the binormal fit (R's
  ``lm``, a QR factorisation, against our centred sums): relative 1e-10.
* ``method="bootstrap"``: Monte Carlo, the bound derived below.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cranfield.errors import InputError, UsageError
from cranfield.stats.roc import roc_power_difference, roc_test, venkatraman

from ._r import r_vector, run_r


def _curve(rng, n, positives, shift, rounding):
    y = np.zeros(n, int)
    y[rng.choice(n, positives, replace=False)] = 1
    return y, np.round(rng.normal(shift * y, 1.0), rounding)  # rounding: ties, broken by position in pROC


_RNG = np.random.default_rng(2024)
# equal sizes (pROC's mixing proportion is then the pooled one): the full roc.test is compared
EQUAL = (*_curve(_RNG, 40, 15, 0.9, 1), *_curve(_RNG, 40, 22, 0.4, 1))
# unequal sizes and many ties: E from pROC's statistic with the pooled proportion
UNEQUAL = {
    "u1": (*_curve(_RNG, 30, 12, 1.0, 2), *_curve(_RNG, 55, 20, 0.5, 2)),
    "u2": (*_curve(_RNG, 25, 5, 1.5, 0), *_curve(_RNG, 60, 40, 1.0, 0)),
    "u3": (*_curve(_RNG, 8, 3, 0.0, 6), *_curve(_RNG, 120, 70, 2.0, 6)),
}
# the power pilots: paired scores
_Y = np.r_[np.zeros(80, int), np.ones(120, int)]
_A = np.round(_RNG.normal(0.6 * _Y, 1.0), 6)
PILOT = (_Y, _A, np.round(0.6 * _A + _RNG.normal(0.3 * _Y, 1.0), 4))
_Y3 = np.r_[np.zeros(35, int), np.ones(35, int)]
_A3 = _RNG.normal(1.0 * _Y3, 1.0)
SMALL = (_Y3, _A3, 0.6 * _A3 + _RNG.normal(0.4 * _Y3, 1.0))
B_R = 2000  # pROC's permutations and resamples (its R loops cost about 1 ms each here)


def _script() -> str:
    lines = ["pooled <- function(ya, sa, yb, sb) (sum(ya) + sum(yb)) / (length(ya) + length(yb))",
             ("stat <- function(ya, sa, yb, sb, mp) pROC:::venkatraman.unpaired.stat(rank(sa, ties.method = 'first'), "
              "rank(sb, ties.method = 'first'), ya, yb, c(0, 1), c(0, 1), mp)")]
    ya, sa, yb, sb = (r_vector(v) for v in EQUAL)
    lines += [f"ya <- {ya}; sa <- {sa}; yb <- {yb}; sb <- {sb}",
              "ra <- roc(ya, sa, levels = c(0, 1), direction = '<', quiet = TRUE)",
              "rb <- roc(yb, sb, levels = c(0, 1), direction = '<', quiet = TRUE)",
              (f"set.seed(1); v <- roc.test(ra, rb, method = 'venkatraman', paired = FALSE, boot.n = {B_R}, "
               "progress = 'none')"),
              "out('equal', c(v$statistic, v$p.value))"]
    for name, data in UNEQUAL.items():
        ya, sa, yb, sb = (r_vector(v) for v in data)
        lines += [f"ya <- {ya}; sa <- {sa}; yb <- {yb}; sb <- {sb}; mp <- pooled(ya, sa, yb, sb)",
                  f"out('{name}', stat(ya, sa, yb, sb, mp))"]
    # u1's permutation p-value, by pROC's own permutation function given the pooled proportion
    ya, sa, yb, sb = (r_vector(v) for v in UNEQUAL["u1"])
    lines += [f"ya <- {ya}; sa <- {sa}; yb <- {yb}; sb <- {sb}; mp <- pooled(ya, sa, yb, sb)",
              "R <- rank(sa, ties.method = 'first'); S <- rank(sb, ties.method = 'first')",
              (f"set.seed(2); ep <- sapply(seq_len({B_R}), pROC:::venkatraman.unpaired.permutation, R = R, S = S, "
               "D1 = ya, D2 = yb, levels1 = c(0, 1), levels2 = c(0, 1), mp = mp, ties.method = 'first')"),
              "out('u1.p', mean(ep >= stat(ya, sa, yb, sb, mp)))"]
    for name, (y, a, b) in (("pilot", PILOT), ("small", SMALL)):
        lines += [f"y <- {r_vector(y)}",
                  f"ra <- roc(y, {r_vector(a)}, levels = c(0, 1), direction = '<', quiet = TRUE)",
                  f"rb <- roc(y, {r_vector(b)}, levels = c(0, 1), direction = '<', quiet = TRUE)",
                  "o <- function(...) power.roc.test(ra, rb, method = 'obuchowski', ...)",
                  (f"out('{name}.obuchowski', c(o()$power, o(power = 0.9)$ncases, "
                   "o(power = 0.9, kappa = 2)$ncontrols, o(power = 0.9, sig.level = NULL)$sig.level, "
                   "o(alternative = 'one.sided')$power))")]
    # ra, rb: the last pilot's curves (SMALL)
    lines += [(f"set.seed(3); p <- power.roc.test(ra, rb, method = 'bootstrap', power = 0.9, boot.n = {B_R}, "
               "progress = 'none')"),
              "out('small.bootstrap', p$ncases)"]
    return "\n".join(lines)


@pytest.fixture(scope="module")
def proc():
    return run_r(_script(), packages=("pROC",))


def _same_as_r(ours: float, theirs: float) -> None:
    """E is summed as R sums (sequentially, in long double): bit-identical where numpy's long
    double is R's x87 extended type (x86-64 Linux, CI); elsewhere (long double = double) the
    sum of ~100 positive terms may differ by a few ulps of the total: relative 1e-13."""
    if np.finfo(np.longdouble).nmant >= 63:
        assert ours == theirs, (ours, theirs)
    else:
        assert ours == pytest.approx(theirs, rel=1e-13)


def _labels_first(y, s):
    return y.astype(bool)[np.argsort(s, kind="stable")][None, :]


def _p_tolerance(p: float, ours: int, theirs: int) -> float:
    """Five standard errors of the difference of two independent Monte Carlo estimates of p,
    plus 2/B for (1 + count)/(1 + B) against count/B."""
    return 5 * np.sqrt(max(p * (1 - p), 0.01) * (1 / ours + 1 / theirs)) + 2 / ours


def test_unpaired_venkatraman_equal_sizes(proc):
    ya, sa, yb, sb = EQUAL
    result = roc_test(ya, sa, sb, y_true_b=yb, method="venkatraman", n_resamples=10_000, random_state=5)
    e, p = proc["equal"]
    _same_as_r(result.statistic, e)  # pROC's sums in pROC's order, in long double as R's sum
    assert abs(result.p_value - p) <= _p_tolerance(p, 10_000, B_R), (result.p_value, p)
    assert (result.method, result.paired, result.n_resamples, result.seed, result.exact) == \
        ("venkatraman", False, 10_000, 5, False)
    assert result.statistic_name == "E"


@pytest.mark.parametrize("name", list(UNEQUAL))
def test_unpaired_venkatraman_statistic(proc, name):
    ya, sa, yb, sb = UNEQUAL[name]
    mixing = (ya.sum() + yb.sum()) / (ya.size + yb.size)
    ours = venkatraman._unpaired_statistic(_labels_first(ya, sa), _labels_first(yb, sb), mixing)[0]
    _same_as_r(ours, proc[name][0])


def test_unpaired_venkatraman_permutations(proc):
    ya, sa, yb, sb = UNEQUAL["u1"]
    result = roc_test(ya, sa, sb, y_true_b=yb, method="venkatraman", n_resamples=10_000, random_state=9)
    _same_as_r(result.statistic, proc["u1"][0])
    p = proc["u1.p"][0]
    assert abs(result.p_value - p) <= _p_tolerance(p, 10_000, B_R), (result.p_value, p)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(4, 30), st.integers(4, 30))
def test_unpaired_statistic_properties(seed, n_a, n_b):
    rng = np.random.default_rng(seed)
    ya, yb = rng.permutation(np.arange(n_a) < n_a // 2), rng.permutation(np.arange(n_b) < (n_b + 1) // 2)
    sa, sb = rng.normal(ya * 1.0, 1.0), rng.normal(yb * 0.5, 1.0)
    mixing = (ya.sum() + yb.sum()) / (n_a + n_b)
    la, lb = _labels_first(ya, sa), _labels_first(yb, sb)
    e = venkatraman._unpaired_statistic(la, lb, mixing)[0]
    assert e >= 0 and e == venkatraman._unpaired_statistic(lb, la, mixing)[0]  # symmetric in the curves
    assert venkatraman._unpaired_statistic(la, la, mixing)[0] == 0  # a curve against itself
    # ranks only: a strictly increasing transform of a curve's scores leaves E unchanged
    moved = roc_test(ya, 3 * sa + 1, sb, y_true_b=yb, method="venkatraman", n_resamples=20, random_state=1)
    plain = roc_test(ya, sa, sb, y_true_b=yb, method="venkatraman", n_resamples=20, random_state=1)
    assert (moved.statistic, moved.p_value) == (plain.statistic, plain.p_value)


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
