r"""The power of ROC AUC tests, as R's pROC's ``power.roc.test``.

* :func:`roc_power` — power, sample size, detectable AUC or significance level of the test that
  one AUC differs from 0.5, with Obuchowski's binormal variance approximation (the constants of
  pROC's ``power.roc.test``);
* :func:`roc_power_difference` — the same for the difference of two paired curves measured in a
  pilot, with DeLong's, Obuchowski's binormal or bootstrap variances and covariance (pROC's
  ``power.roc.test(roc1, roc2, method = )``).

References: Obuchowski, Lieber & Wians (2004), Clin Chem 50:1118 (power of an AUC test);
Obuchowski & McClish (1997), Stat Med 16:1529 (the difference of two AUCs).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..._params import check_choice, check_fraction, check_interval
from ...errors import InputError, UsageError
from .._resample import as_generator
from .bootstrap import check_resamples, paired_bootstrap_aucs
from .curve import _curve_counts, _empirical_auc, _labels_scores
from .delong import delong_covariance

__all__ = ["ROCPower", "roc_power", "roc_power_difference"]


@dataclass(frozen=True)
class ROCPower:
    """Power analysis of the test that an AUC differs from 0.5 (what was solved for is the one
    that was None); for :func:`roc_power_difference`, ``auc`` is the pilot's AUC difference."""

    auc: float
    n_cases: float
    n_controls: float
    sig_level: float
    power: float
    alternative: str
    method: str = "Obuchowski (binormal variance approximation)"
    n_resamples: "int | None" = None  # the bootstrap's resamples (roc_power_difference(method="bootstrap"))
    seed: "int | None" = None


_V0 = 0.0792  # the variance of the AUC under H0 (AUC 0.5), per case, with kappa = 1: Obuchowski's constant


def _variance(theta: float, kappa: float) -> float:
    a = _norm_ppf(theta) * 1.414
    return 0.0099 * np.exp(-a * a / 2) * ((5 * a * a + 8) + (a * a + 8) / kappa)


def _norm_ppf(p: float) -> float:
    from scipy.special import ndtri

    return float(ndtri(p))


def _norm_cdf(x: float) -> float:
    from scipy.special import ndtr

    return float(ndtr(x))


def _solve(delta: float, v0: float, va: float, n_cases, sig_level, power, half: float) -> tuple[float, float, float]:
    r"""``(n_cases, sig_level, power)`` with the one given as None solved from
    :math:`\sqrt{n}\,|\delta| = z_{1-\alpha/h}\sqrt{V_0} + z_{power}\sqrt{V_A}` (``half`` h: 2 two-sided, 1
    one-sided), the power equation of both :func:`roc_power` and :func:`roc_power_difference`."""
    if n_cases is None:
        n_cases = (_norm_ppf(1 - sig_level / half) * np.sqrt(v0) + _norm_ppf(power) * np.sqrt(va)) ** 2 / delta ** 2
    elif power is None:
        z_beta = (np.sqrt(n_cases * delta ** 2) - _norm_ppf(1 - sig_level / half) * np.sqrt(v0)) / np.sqrt(va)
        power = _norm_cdf(z_beta)
    else:
        z_alpha = (np.sqrt(n_cases * delta ** 2) - _norm_ppf(power) * np.sqrt(va)) / np.sqrt(v0)
        sig_level = (1 - _norm_cdf(z_alpha)) * half
    return n_cases, sig_level, power


def roc_power(*, auc: "float | None" = None, n_cases: "float | None" = None, n_controls: "float | None" = None,
              sig_level: "float | None" = 0.05, power: "float | None" = None, kappa: float = 1.0,
              alternative: str = "two-sided") -> ROCPower:
    r"""Solve the power equation of the test H0: AUC = 0.5 for the one argument left None:
    ``power``, ``n_cases`` (with ``n_controls = kappa · n_cases``), ``auc`` or ``sig_level``.

    With :math:`\delta = AUC - 0.5`, :math:`V_0 = 0.0792 (1 + 1/\kappa)` and Obuchowski's
    :math:`V_A = 0.0099 e^{-A^2/2}((5A^2 + 8) + (A^2 + 8)/\kappa)`, :math:`A = 1.414\,\Phi^{-1}(AUC)`:
    :math:`n_{cases} = (z_\alpha \sqrt{V_0} + z_\beta \sqrt{V_A})^2 / \delta^2` (α halved when
    two-sided), as pROC's ``power.roc.test(auc = , ncases = , ncontrols = )``.

    >>> round(roc_power(auc=0.8, n_cases=20, n_controls=20).power, 4)
    0.9479
    """
    from scipy.optimize import brentq

    if alternative not in ("two-sided", "one-sided"):
        raise UsageError(f"alternative: expected 'two-sided' or 'one-sided', found {alternative!r}")
    try:
        kappa = float(kappa)
    except (TypeError, ValueError):
        raise UsageError(f"kappa: expected a positive number, found {kappa!r}") from None
    if n_cases is None and n_controls is not None:
        n_cases = float(n_controls) / kappa
    elif n_controls is None and n_cases is not None:
        n_controls = float(n_cases) * kappa
    unknown = [name for name, value in (("auc", auc), ("n_cases", n_cases), ("sig_level", sig_level),
                                         ("power", power)) if value is None]
    if len(unknown) != 1:
        raise UsageError(f"exactly one of auc, n_cases (or n_controls), sig_level and power must be None, found "
                         f"{len(unknown)}: {', '.join(unknown) or 'none'}")
    for name, value, low, high in (("auc", auc, 0.5, 1.0), ("sig_level", sig_level, 0.0, 1.0),
                                   ("power", power, 0.0, 1.0)):
        if value is not None:
            check_interval(value, name, low=low, high=high, closed="neither")
    for name, value in (("n_cases", n_cases), ("n_controls", n_controls)):
        if value is not None and not float(value) > 0:
            raise UsageError(f"{name}: expected a positive number, found {value!r}")
    if n_cases is not None:
        kappa = float(n_controls) / float(n_cases)
    if not kappa > 0:
        raise UsageError(f"kappa: expected a positive number, found {kappa!r}")
    half = 2.0 if alternative == "two-sided" else 1.0
    v0 = _V0 * (1 + 1 / kappa)
    if auc is None:
        def excess(theta):
            return _solve(theta - 0.5, v0, _variance(theta, kappa), None, sig_level, power, half)[0] - n_cases

        auc = brentq(excess, 0.5 + 1e-9, 1 - 1e-16, xtol=1e-14, rtol=8.9e-16)
    else:
        n_cases, sig_level, power = _solve(auc - 0.5, v0, _variance(auc, kappa), n_cases, sig_level, power, half)
        n_controls = kappa * n_cases if n_controls is None else n_controls
    return ROCPower(float(auc), float(n_cases), float(n_controls), float(sig_level), float(power), alternative)


_POWER_METHODS = {
    "delong": "paired AUC difference, DeLong variances (Obuchowski & McClish 1997)",
    "obuchowski": "paired AUC difference, Obuchowski's binormal variances (Obuchowski & McClish 1997)",
    "bootstrap": "paired AUC difference, bootstrap variances (Obuchowski & McClish 1997)",
}


def _binormal(y: np.ndarray, s: np.ndarray) -> tuple[float, float]:
    r"""pROC's binormal parameters of a curve (``smooth(method = "binormal")``): the intercept A
    and slope B of the least-squares line :math:`\Phi^{-1}(sp) = A + B\,\Phi^{-1}(se)` through the
    curve's points (one per distinct score) where both are finite."""
    from scipy.special import ndtri

    _, negatives, positives = _curve_counts(y, s)
    specificity = np.cumsum(negatives) / negatives.sum()
    sensitivity = (positives.sum() - np.cumsum(positives)) / positives.sum()
    with np.errstate(divide="ignore"):
        qsp, qse = ndtri(specificity), ndtri(sensitivity)
    finite = np.isfinite(qsp) & np.isfinite(qse)
    qsp, qse = qsp[finite], qse[finite]
    if qse.size < 2 or not np.ptp(qse) > 0:
        raise InputError(f"Obuchowski's binormal variance needs a curve with at least two points strictly inside "
                         f"the unit square, found {qse.size}", field="y_score")
    centred = qse - qse.mean()
    slope = float(centred @ (qsp - qsp.mean()) / (centred @ centred))
    return float(qsp.mean() - slope * qse.mean()), slope


def _obuchowski_terms(a: float, b: float) -> tuple[float, float]:
    """Obuchowski's (1997) f and g of a binormal curve (full AUC): the AUC's derivatives in A and B."""
    e1 = np.exp(-a * a / (2 * (1 + b * b)))
    e2 = 1 + b * b
    return e1 * (2 * np.pi * e2) ** -0.5, -e1 * a * b * (2 * np.pi * e2 ** 3) ** -0.5


def _obuchowski_covvar(y, a, b) -> tuple[float, float, float]:
    r"""Per-case variances of the two AUCs and their covariance under Obuchowski & McClish's (1997)
    binormal model, with pROC's parameters: :math:`V = f^2(1 + B^2/\kappa + A^2/2) +
    g^2 B^2 (1 + \kappa)/(2\kappa)` and the covariance with the correlations of the scores among
    the positives (:math:`r_a`) and among the negatives (:math:`r_n`)."""
    kappa = int((~y).sum()) / int(y.sum())
    (a1, b1), (a2, b2) = _binormal(y, a), _binormal(y, b)
    (f1, g1), (f2, g2) = _obuchowski_terms(a1, b1), _obuchowski_terms(a2, b2)
    with np.errstate(invalid="ignore", divide="ignore"):
        ra, rn = (float(np.corrcoef(a[mask], b[mask])[0, 1]) for mask in (y, ~y))
    if not (np.isfinite(ra) and np.isfinite(rn)):
        raise InputError("Obuchowski's covariance needs scores that vary within each class in both curves",
                         field="y_score")

    def variance(f, g, a_, b_):
        return f * f * (1 + b_ * b_ / kappa + a_ * a_ / 2) + g * g * b_ * b_ * (1 + kappa) / (2 * kappa)

    covariance = (f1 * f2 * (ra + rn * b1 * b2 / kappa + ra * ra * a1 * a2 / 2)
                  + g1 * g2 * (b1 * b2 * (rn * rn + kappa * ra * ra) / (2 * kappa))
                  + f1 * g2 * (ra * ra * a1 * b2 / 2) + f2 * g1 * (ra * ra * a2 * b1 / 2))
    return variance(f1, g1, a1, b1), variance(f2, g2, a2, b2), float(covariance)


def roc_power_difference(y_true, y_score_a, y_score_b, *, sig_level: "float | None" = 0.05,
                         power: "float | None" = None, kappa: "float | None" = None,
                         alternative: str = "two-sided", method: str = "delong", n_resamples: int = 2000,
                         stratified: bool = True, random_state=None) -> ROCPower:
    r"""Power of the paired comparison of two AUCs, sized from a pilot (both scores on the same
    examples): solve for ``power`` (at the pilot's size), ``sig_level``, or, with both given, the
    number of cases (``n_controls = kappa · n_cases``; kappa defaults to the pilot's ratio).

    With the per-case variances :math:`V_a, V_b` and covariance :math:`C` of the two AUCs,
    :math:`\delta = AUC_a - AUC_b` (the pilot's empirical AUCs), :math:`V_0 = 2V_a - 2C` (under H0
    the two curves alike) and :math:`V_A = V_a + V_b - 2C`:
    :math:`n = (z_\alpha\sqrt{V_0} + z_\beta\sqrt{V_A})^2/\delta^2` (Obuchowski & McClish 1997) —
    pROC's ``power.roc.test(roc1, roc2, method = )``. ``method`` says where the (co)variances come
    from: ``"delong"`` (default; DeLong et al. 1988, the pilot's placements), ``"obuchowski"``
    (the binormal model's closed form, with pROC's binormal fit of each curve and the
    correlations of the two scores within each class) or ``"bootstrap"`` (the sample variances
    and covariance of ``n_resamples`` paired resamples of the pilot, stratified by class unless
    ``stratified=False``; Monte Carlo, ``random_state`` seeds it).
    """
    check_choice(method, "method", _POWER_METHODS)
    if alternative not in ("two-sided", "one-sided"):
        raise UsageError(f"alternative: expected 'two-sided' or 'one-sided', found {alternative!r}")
    for name, value in (("sig_level", sig_level), ("power", power)):
        if value is not None:
            check_fraction(value, name)
    if (sig_level is None) + (power is None) > 1:
        raise UsageError("at most one of sig_level and power may be None")
    if method == "bootstrap":
        n_resamples = check_resamples(n_resamples)
        rng = as_generator(random_state)
    y, a = _labels_scores(y_true, y_score_a, name="y_score_a")
    _, b = _labels_scores(y_true, y_score_b, name="y_score_b")
    cases, controls = int(y.sum()), int((~y).sum())
    if kappa is None:
        kappa = controls / cases
    elif not (isinstance(kappa, (int, float, np.floating)) and float(kappa) > 0):
        raise UsageError(f"kappa: expected a positive number, found {kappa!r}")
    delta = _empirical_auc(y, a) - _empirical_auc(y, b)
    if delta == 0:
        raise InputError("the pilot's two AUCs are equal: no difference to power a test for", field="y_score_b")
    if method == "delong":
        _, cov = delong_covariance(y, np.stack([a, b]))
        var_a, var_b, cov_ab = cov[0, 0] * cases, cov[1, 1] * cases, cov[0, 1] * cases
    elif method == "obuchowski":
        var_a, var_b, cov_ab = _obuchowski_covvar(y, a, b)
    else:
        pairs = paired_bootstrap_aucs(y, a, b, n_resamples, bool(stratified), rng)
        cov = np.cov(pairs, rowvar=False, ddof=1)
        var_a, var_b, cov_ab = cov[0, 0] * cases, cov[1, 1] * cases, cov[0, 1] * cases
    v0 = 2 * var_a - 2 * cov_ab
    va = var_a + var_b - 2 * cov_ab
    if not (v0 > 0 and va > 0):
        raise InputError(f"the variance of the AUC difference is not positive (V0 = {v0!r}, VA = {va!r}): no power "
                         "analysis", field="y_score_b")
    half = 2.0 if alternative == "two-sided" else 1.0
    both = sig_level is not None and power is not None  # solve for the number of cases
    n_cases, sig_level, power = _solve(delta, v0, va, None if both else float(cases), sig_level, power, half)
    n_controls = float(kappa) * n_cases if both else float(controls)
    resampled = method == "bootstrap"
    seed = random_state if resampled and isinstance(random_state, (int, np.integer)) else None
    return ROCPower(float(delta), n_cases, n_controls, float(sig_level), float(power), alternative,
                    method=_POWER_METHODS[method], n_resamples=n_resamples if resampled else None, seed=seed)
