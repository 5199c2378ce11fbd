"""Every ROC statistic of cranfield, as R's pROC defines them, in one package.

* :mod:`.curve` — the empirical curve: :func:`roc_points`, :func:`sensitivity_at`,
  :func:`specificity_at`;
* :mod:`.partial_auc` — :func:`partial_auc` (McClish's standardisation);
* :mod:`.delong` — DeLong's covariance of correlated AUCs (:func:`delong_covariance`), the
  interval of one AUC (:func:`auc_ci`) and the paired test of two (:func:`delong_test`);
* :mod:`.bootstrap` — percentile intervals of the AUC and of a coordinate of the curve
  (:func:`auc_bootstrap_ci`, :func:`sensitivity_ci`, :func:`specificity_ci`);
* :mod:`.tests` — :func:`roc_test`: DeLong, bootstrap and Venkatraman tests of two curves, paired
  or unpaired (:mod:`.venkatraman` holds the permutation kernels);
* :mod:`.power` — :func:`roc_power` and :func:`roc_power_difference` (pROC's ``power.roc.test``).

The ROC curve itself, its AUC and the threshold choices are measures of a classifier, in
:mod:`cranfield.classification` (scikit-learn's definitions); this package holds the statistics
about them. Every name here is also in :mod:`cranfield.stats`. See docs/roc-statistics.md.
"""

from __future__ import annotations

from .bootstrap import (
    BootstrapInterval,
    auc_bootstrap_ci,
    sensitivity_ci,
    specificity_ci,
)
from .curve import ROCPoints, roc_points, sensitivity_at, specificity_at
from .delong import AUCComparison, auc_ci, delong_covariance, delong_test
from .partial_auc import partial_auc
from .power import ROCPower, roc_power, roc_power_difference
from .tests import ROCTest, roc_test

__all__ = [
    "ROCPoints", "roc_points", "sensitivity_at", "specificity_at", "partial_auc",
    "delong_covariance", "auc_ci", "AUCComparison", "delong_test",
    "BootstrapInterval", "auc_bootstrap_ci", "sensitivity_ci", "specificity_ci",
    "ROCTest", "roc_test", "ROCPower", "roc_power", "roc_power_difference",
]
