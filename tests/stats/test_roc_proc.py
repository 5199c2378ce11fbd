"""ROC statistics against R's pROC itself (issue 16, item 7).

One Rscript call computes every oracle value on the same data (written to a temporary CSV) and
prints them as ``name value`` lines with 17 significant digits. Deterministic quantities (partial
AUC, McClish's correction, coordinates, the unpaired DeLong t / df / p, Venkatraman's E, the
power equations) are compared within a few ulps (the sums run in another order; each tolerance
says why); Monte Carlo ones (bootstrap intervals and tests, Venkatraman's p) within bounds derived
from the Monte Carlo error. R and pROC are Debian packages (r-base-core, r-cran-proc) that CI
installs; outside CI the test skips when Rscript is missing, under CI it fails.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import numpy as np
import pytest

from cranfield.errors import InputError, UsageError
from cranfield.stats.roc import (auc_bootstrap_ci, partial_auc, roc_points, sensitivity_at, sensitivity_ci,
                                 specificity_at, specificity_ci)
from cranfield.stats.roc import roc_power, roc_power_difference, roc_test


def _rscript() -> str:
    path = shutil.which("Rscript")
    if path is None or subprocess.run([path, "-e", "library(pROC)"], capture_output=True).returncode != 0:
        if os.environ.get("CI"):
            pytest.fail("Rscript with pROC is required under CI (apt-get install r-base-core r-cran-proc)")
        pytest.skip("Rscript with the pROC package is not installed")
    return path


def _data(seed: int, n_neg: int, n_pos: int, shift: float, rounding: int):
    rng = np.random.default_rng(seed)
    y = np.r_[np.zeros(n_neg, int), np.ones(n_pos, int)]
    a = np.round(np.r_[rng.normal(0, 1, n_neg), rng.normal(shift, 1, n_pos)], rounding)  # rounding: ties
    b = np.round(0.6 * a + np.r_[rng.normal(0, 1, n_neg), rng.normal(shift / 2, 1, n_pos)], rounding)
    return y, a, b


DATA = {"d1": _data(1, 60, 40, 1.0, 1), "d2": _data(2, 80, 120, 0.6, 6), "d3": _data(3, 35, 35, 0.8, 2)}
SPECIFICITIES = [0.0, 0.25, 0.5, 0.8, 0.9, 0.95, 1.0]
BOUNDS = [(1.0, 0.8), (0.9, 0.6), (0.7, 0.3)]

R_SCRIPT = r"""
suppressMessages(library(pROC))
args <- commandArgs(TRUE)
out <- function(name, x) cat(name, sprintf("%.17g", x), "\n")
sp <- c(0, 0.25, 0.5, 0.8, 0.9, 0.95, 1)
bounds <- list(c(1, 0.8), c(0.9, 0.6), c(0.7, 0.3))
for (name in c("d1", "d2", "d3")) {
  d <- read.csv(file.path(args[1], paste0(name, ".csv")))
  ra <- roc(d$y, d$a, direction = "<", quiet = TRUE)
  rb <- roc(d$y, d$b, direction = "<", quiet = TRUE)
  out(paste0(name, ".se_at_sp"), coords(ra, x = sp, input = "specificity", ret = "sensitivity", transpose = FALSE)[, 1])
  out(paste0(name, ".sp_at_se"), coords(ra, x = sp, input = "sensitivity", ret = "specificity", transpose = FALSE)[, 1])
  for (i in seq_along(bounds)) {
    for (focus in c("specificity", "sensitivity")) {
      out(paste0(name, ".pauc.", i, ".", focus), as.numeric(auc(ra, partial.auc = bounds[[i]], partial.auc.focus = focus)))
      out(paste0(name, ".pauc_corrected.", i, ".", focus),
          as.numeric(auc(ra, partial.auc = bounds[[i]], partial.auc.focus = focus, partial.auc.correct = TRUE,
                         allow.invalid.partial.auc.correct = TRUE)))
    }
  }
  half <- d$y[seq(1, nrow(d), 2)]
  rc <- roc(d$y[seq(2, nrow(d), 2)], d$b[seq(2, nrow(d), 2)], direction = "<", quiet = TRUE)
  ru <- roc(half, d$a[seq(1, nrow(d), 2)], direction = "<", quiet = TRUE)
  t <- roc.test(ru, rc, method = "delong", paired = FALSE)
  out(paste0(name, ".unpaired"), c(t$statistic, t$parameter, t$p.value))
  t <- roc.test(ra, rb, method = "delong", paired = TRUE)
  out(paste0(name, ".paired"), c(t$statistic, t$p.value))
  if (name == "d3") {  # Monte Carlo: pROC's permutations and resamples are slow (O(n^2) each); one small set
    set.seed(1)
    v <- roc.test(ra, rb, method = "venkatraman", boot.n = 2000, progress = "none")
    out(paste0(name, ".venkatraman"), c(v$statistic, v$p.value))
    set.seed(1)
    b <- roc.test(ra, rb, method = "bootstrap", boot.n = 2000, paired = TRUE, progress = "none")
    out(paste0(name, ".bootstrap_paired"), c(b$statistic, b$p.value))
    set.seed(1)
    b <- roc.test(ru, rc, method = "bootstrap", boot.n = 2000, paired = FALSE, progress = "none")
    out(paste0(name, ".bootstrap_unpaired"), c(b$statistic, b$p.value))
    set.seed(1)
    out(paste0(name, ".ci_auc"), as.numeric(ci.auc(ra, method = "bootstrap", boot.n = 2000, progress = "none")))
    set.seed(1)
    out(paste0(name, ".ci_se"), as.numeric(ci.se(ra, specificities = c(0.5, 0.8, 0.9), boot.n = 2000, progress = "none")))
    set.seed(1)
    out(paste0(name, ".ci_sp"), as.numeric(ci.sp(ra, sensitivities = c(0.5, 0.8, 0.9), boot.n = 2000, progress = "none")))
  }
}
d <- read.csv(file.path(args[1], "d2.csv"))
ra <- roc(d$y, d$a, direction = "<", quiet = TRUE); rb <- roc(d$y, d$b, direction = "<", quiet = TRUE)
out("power2.power", power.roc.test(ra, rb)$power)
out("power2.ncases", power.roc.test(ra, rb, power = 0.9)$ncases)
out("power2.sig", power.roc.test(ra, rb, power = 0.9, sig.level = NULL)$sig.level)
p <- power.roc.test(auc = 0.8, ncases = 20, ncontrols = 30); out("power.power", p$power)
p <- power.roc.test(auc = 0.72, power = 0.9, kappa = 1.5); out("power.ncases", p$ncases)
p <- power.roc.test(ncases = 20, ncontrols = 25, power = 0.9); out("power.auc", p$auc)
p <- power.roc.test(auc = 0.75, ncases = 30, ncontrols = 30, power = 0.8, sig.level = NULL); out("power.sig", p$sig.level)
p <- power.roc.test(auc = 0.8, ncases = 20, ncontrols = 30, alternative = "one.sided"); out("power.one", p$power)
"""


@pytest.fixture(scope="module")
def oracle(tmp_path_factory):
    rscript = _rscript()
    folder = tmp_path_factory.mktemp("proc")
    for name, (y, a, b) in DATA.items():
        lines = ["y,a,b"] + [f"{yi},{ai!r},{bi!r}" for yi, ai, bi in zip(y, a.tolist(), b.tolist())]
        (folder / f"{name}.csv").write_text("\n".join(lines) + "\n")
    script = folder / "oracle.R"
    script.write_text(R_SCRIPT)
    done = subprocess.run([rscript, str(script), str(folder)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    values = {}
    for line in done.stdout.splitlines():
        name, *numbers = line.split()
        values[name] = np.array([float(x) for x in numbers])
    return values


def _close(ours, theirs, ulps: int):
    ours, theirs = np.atleast_1d(np.asarray(ours, float)), np.atleast_1d(np.asarray(theirs, float))
    assert ours.shape == theirs.shape
    assert np.all(np.abs(ours - theirs) <= ulps * np.spacing(np.maximum(np.abs(theirs), 1.0))), (ours, theirs)


@pytest.mark.parametrize("name", list(DATA))
def test_coordinates(oracle, name):
    y, a, _ = DATA[name]
    # interpolation x·(Δy)/(Δx): pROC orders the products differently, hence a few ulps
    _close(sensitivity_at(y, a, SPECIFICITIES), oracle[f"{name}.se_at_sp"], 4)
    _close(specificity_at(y, a, SPECIFICITIES), oracle[f"{name}.sp_at_se"], 4)


@pytest.mark.parametrize("name", list(DATA))
@pytest.mark.parametrize("focus", ["specificity", "sensitivity"])
def test_partial_auc_and_mcclish(oracle, name, focus):
    y, a, _ = DATA[name]
    for i, bounds in enumerate(BOUNDS, start=1):
        # a sum of trapezoids over the same points, accumulated in another order: ≤ 16 ulps of 1
        _close(partial_auc(y, a, bounds=bounds, focus=focus), oracle[f"{name}.pauc.{i}.{focus}"], 16)
        _close(partial_auc(y, a, bounds=bounds, focus=focus, correct=True, allow_invalid_correction=True),
               oracle[f"{name}.pauc_corrected.{i}.{focus}"], 64)  # the ratio amplifies the sum's error


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


def _mc_p(p: float, resamples: int) -> float:
    """Five Monte Carlo standard errors of the difference of two estimates of p, plus the
    (1 + count)/(1 + B) against count/B offset."""
    return 5 * np.sqrt(2 * max(p * (1 - p), 1 / resamples) / resamples) + 2 / resamples


def test_venkatraman(oracle):
    y, a, b = DATA["d3"]
    result = roc_test(y, a, b, method="venkatraman", n_resamples=2000, random_state=7)
    e, p = oracle["d3.venkatraman"]
    assert result.statistic == e  # an integer sum: exactly pROC's E
    assert abs(result.p_value - p) <= _mc_p(p, 2000), (result.p_value, p)


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


def test_bootstrap_intervals(oracle):
    name = "d3"
    y, a, _ = DATA[name]
    auc = auc_bootstrap_ci(y, a, n_resamples=2000, random_state=11)
    low, median, high = oracle[f"{name}.ci_auc"]  # pROC: the 2.5 %, 50 % and 97.5 % quantiles of the resamples
    # percentiles of 2000 resamples: the Monte Carlo error of a 2.5 % quantile is about 0.1 × the
    # bootstrap sd, i.e. 2.5 % of the 95 % interval's width; 8 % of the width is over 3 of them
    width = high - low
    for ours, theirs in ((auc.low, low), (auc.median, median), (auc.high, high)):
        assert abs(ours - theirs) <= 0.08 * width, (ours, theirs)
    se = sensitivity_ci(y, a, [0.5, 0.8, 0.9], n_resamples=2000, random_state=11)
    sp = specificity_ci(y, a, [0.5, 0.8, 0.9], n_resamples=2000, random_state=11)
    for ours, key in ((se, "ci_se"), (sp, "ci_sp")):
        theirs = oracle[f"{name}.{key}"].reshape(3, 3, order="F")  # rows: the points; columns: low, median, high
        scale = np.maximum(theirs[:, 2] - theirs[:, 0], 0.05)
        for column, values in enumerate((ours.low, ours.median, ours.high)):
            assert np.all(np.abs(values - theirs[:, column]) <= 0.15 * scale), (key, column, values, theirs[:, column])


def test_power(oracle):
    _close(roc_power(auc=0.8, n_cases=20, n_controls=30).power, oracle["power.power"], 8)
    _close(roc_power(auc=0.8, n_cases=20, n_controls=30, alternative="one-sided").power, oracle["power.one"], 8)
    _close(roc_power(auc=0.72, power=0.9, kappa=1.5).n_cases, oracle["power.ncases"], 8)
    _close(roc_power(auc=0.75, n_cases=30, n_controls=30, power=0.8, sig_level=None).sig_level,
           oracle["power.sig"], 64)
    # pROC solves for the AUC with uniroot's default tolerance (about 1.2e-4); ours to 1e-14
    assert roc_power(n_cases=20, n_controls=25, power=0.9).auc == pytest.approx(oracle["power.auc"][0], abs=2e-4)


def test_power_of_a_difference(oracle):
    y, a, b = DATA["d2"]
    # DeLong's (co)variances through np.cov against pROC's sums: relative 1e-12
    assert roc_power_difference(y, a, b).power == pytest.approx(oracle["power2.power"][0], rel=1e-12)
    assert roc_power_difference(y, a, b, power=0.9).n_cases == pytest.approx(oracle["power2.ncases"][0], rel=1e-12)
    assert roc_power_difference(y, a, b, power=0.9, sig_level=None).sig_level == \
        pytest.approx(oracle["power2.sig"][0], rel=1e-10)


def test_curve_path_and_errors():
    points = roc_points([0, 1, 0, 1], [0.1, 0.4, 0.4, 0.9])
    assert points.specificity.tolist() == [0.0, 0.5, 1.0, 1.0]
    assert points.sensitivity.tolist() == [1.0, 1.0, 0.5, 0.0]
    with pytest.raises(InputError, match="at least one positive"):
        partial_auc([1, 1], [0.1, 0.2])
    with pytest.raises(UsageError, match="bounds"):
        partial_auc([0, 1], [0.1, 0.2], bounds=(0.8, 0.8))
    with pytest.raises(InputError, match="below the diagonal"):
        partial_auc([0, 0, 1, 1], [0.9, 0.8, 0.1, 0.2], bounds=(1, 0.5), correct=True)
    with pytest.raises(UsageError, match="two-sided"):
        roc_test([0, 1], [0.1, 0.2], [0.3, 0.4], y_true_b=[0, 1], method="venkatraman", alternative="less")
    with pytest.raises(UsageError, match="exactly one"):
        roc_power(auc=0.8, n_cases=10, power=0.8)
    with pytest.raises(InputError, match="finite"):
        sensitivity_at([0, 1], [0.1, np.nan], 0.5)


def test_roc_plot_band():
    pytest.importorskip("matplotlib")
    from matplotlib.collections import PolyCollection

    from cranfield.plots import roc_plot

    y, a, _ = DATA["d3"]
    figure = roc_plot(y, {"a": a}, band=0.9, band_resamples=200)
    bands = [c for c in figure.axes[0].collections if isinstance(c, PolyCollection)]
    assert len(bands) == 1
    with pytest.raises(UsageError, match="band"):
        roc_plot(y, a, band=0.9, sample_weight=np.ones(y.size))
