"""The oracle data and helpers of the ROC tests against R's pROC itself (issue 16, item 7).

Two Rscript calls, one per session (fixtures ``oracle`` and ``proc`` in conftest.py), compute every
oracle value on the same data and print them as ``name value`` lines with 17 significant digits.
Deterministic quantities (partial AUC, McClish's correction, coordinates, the unpaired DeLong t /
df / p, Venkatraman's E, the power equations) are compared within a few ulps (the sums run in
another order; each tolerance says why); Monte Carlo ones (bootstrap intervals and tests,
Venkatraman's p) within bounds derived from the Monte Carlo error. R and pROC are Debian packages
(r-base-core, r-cran-proc) that CI installs; outside CI the tests skip when Rscript is missing,
under CI they fail.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import numpy as np
import pytest

from .._r import r_vector


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


def _close(ours, theirs, ulps: int):
    ours, theirs = np.atleast_1d(np.asarray(ours, float)), np.atleast_1d(np.asarray(theirs, float))
    assert ours.shape == theirs.shape
    assert np.all(np.abs(ours - theirs) <= ulps * np.spacing(np.maximum(np.abs(theirs), 1.0))), (ours, theirs)


def _mc_p(p: float, resamples: int) -> float:
    """Five Monte Carlo standard errors of the difference of two estimates of p, plus the
    (1 + count)/(1 + B) against count/B offset."""
    return 5 * np.sqrt(2 * max(p * (1 - p), 1 / resamples) / resamples) + 2 / resamples


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
