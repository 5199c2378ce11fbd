"""R as a test oracle: run one Rscript per batch of cases and read back named numbers.

R 4.2 with pROC is installed on the development machines and in CI (``.ci/run``). Where
``Rscript`` is missing the tests that need it are skipped with the reason, except in CI (``CI``
set), where a missing oracle is a failure (as ``tests/retrieval/conftest.py`` does for trec_eval).
Keep R calls few: each costs about 0.2 s to start (and pROC about 1 s to load), so a test module
writes all its cases into one script and calls :func:`run_r` once (a module-scoped fixture).
"""

from __future__ import annotations

import os
import shutil
import subprocess

import numpy as np
import pytest


def _unavailable(reason: str):
    if os.environ.get("CI"):
        pytest.fail(f"R oracle unavailable in CI: {reason}", pytrace=False)
    pytest.skip(f"R oracle unavailable: {reason}")


def r_vector(values) -> str:
    """A numeric R vector literal that reads back the same doubles (17 significant digits)."""
    return "c(" + ", ".join("NA" if not np.isfinite(v) else repr(float(v)) for v in np.ravel(values)) + ")"


# R code defining out(name, x): print "name<TAB>v1<TAB>v2..." with 17 significant digits (NA kept)
_PRELUDE = r"""
out <- function(name, x) {
  x <- as.numeric(x)
  cat(name, paste(ifelse(is.na(x), "NA", sprintf("%.17g", x)), collapse = "\t"), sep = "\t")
  cat("\n")
}
"""


def run_r(script: str, *, packages: tuple[str, ...] = (), timeout: float = 120) -> dict[str, np.ndarray]:
    """Run ``script`` (R code calling ``out(name, x)``) in one Rscript process; ``{name: array}``."""
    rscript = shutil.which("Rscript")
    if rscript is None:
        _unavailable("Rscript not found on PATH")
    loads = "".join(f"suppressPackageStartupMessages(library({p}))\n" for p in packages)
    done = subprocess.run([rscript, "--vanilla", "-"], input=loads + _PRELUDE + script, capture_output=True,
                          text=True, timeout=timeout)
    if done.returncode != 0:
        missing = [p for p in packages if f"no package called ‘{p}’" in done.stderr or f"'{p}'" in done.stderr]
        if missing:
            _unavailable(f"R package {missing[0]} not installed")
        raise AssertionError(f"Rscript failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    values: dict[str, np.ndarray] = {}
    for line in done.stdout.splitlines():
        if "\t" not in line:
            continue
        name, *cells = line.split("\t")
        values[name] = np.array([np.nan if c == "NA" else float(c) for c in cells if c != ""])
    return values
