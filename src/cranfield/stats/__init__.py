"""Statistics for comparing systems: intervals, paired tests, corrections, effect sizes.

* :mod:`.intervals` — CIs for a mean (normal, t, bootstrap, BCa), proportions (Wilson,
  Clopper–Pearson) and quantiles (order statistics, bootstrap); every interval is an
  :class:`Interval`;
* :mod:`.paired` — paired t, Wilcoxon, sign, randomization and bootstrap tests; McNemar's test
  for two classifiers;
* :mod:`.corrections` — Bonferroni, Šidák, Holm, Holm–Šidák, Hochberg, Hommel, Benjamini–Hochberg,
  Benjamini–Yekutieli; Tukey HSD and randomized Tukey HSD (tests of their own);
* :mod:`.effects` — mean difference with CI, Cohen's d_z, wins/ties/losses; effect sizes with
  intervals (d_z, g_z, d_av, g_av, common language, probability of superiority);
* :mod:`.equivalence` — equivalence (TOST) and non-inferiority tests;
* :mod:`.power` — power, minimum detectable difference, topic set size design (Sakai);
* :mod:`.anova` — two-way ANOVA (system + topic) and a linear mixed model (statsmodels);
* :mod:`.compare` — :func:`compare` / :func:`compare_values` → :class:`Comparison`;
* :mod:`.seeds` — systems run over several seeds or folds: mean over seeds, variance over seeds
  apart from the variance over topics, comparison of the means over seeds;
* :mod:`.roc` — every ROC statistic, as pROC: DeLong's covariance, interval and test of AUCs,
  partial AUC (McClish), bootstrap intervals of the AUC and of sensitivity/specificity at a
  point, DeLong (paired and unpaired), bootstrap and Venkatraman tests of two curves, the power
  of an AUC test.

scipy and pandas are imported only when a function needs them.
"""

from __future__ import annotations

from .anova import AnovaTable, MixedModelResult, SystemEffect, mixed_model, two_way_anova
from .compare import Comparison, MonteCarloFloorWarning, PairResult, SystemSummary, compare, compare_values, needed_resamples
from .corrections import adjust_pvalues, randomized_tukey_hsd, tukey_hsd
from .effects import EffectSize, cohens_dz, effect_size, hedges_correction, mean_difference, win_tie_loss
from .equivalence import EquivalenceResult, noninferiority_test, tost_paired
from .power import TopicSetSize, anova_power, minimum_detectable_difference, paired_power, pilot_variance, topic_set_size
from ._interval import Interval
from .intervals import mean_ci, proportion_ci, quantile_ci
from .roc import (AUCComparison, BootstrapInterval, ROCPower, ROCTest, auc_bootstrap_ci, auc_ci, delong_covariance,
                  delong_test, partial_auc, roc_points, roc_power, roc_power_difference, roc_test, sensitivity_at,
                  sensitivity_ci, specificity_at, specificity_ci)
from .seeds import SeedResult, SeedSummary, compare_seeds, seed_summary
from .paired import (McNemarResult, TestResult, bootstrap_test, mcnemar_test,
                     paired_pvalues, paired_t_test, paired_test, randomization_test, sign_test, wilcoxon_test)

__all__ = [
    "Comparison", "PairResult", "SystemSummary", "compare", "compare_values", "MonteCarloFloorWarning", "needed_resamples",
    "EffectSize", "effect_size", "hedges_correction", "EquivalenceResult", "tost_paired", "noninferiority_test",
    "TopicSetSize", "paired_power", "minimum_detectable_difference", "anova_power", "pilot_variance", "topic_set_size",
    "AnovaTable", "SystemEffect", "MixedModelResult", "two_way_anova", "mixed_model",
    "SeedResult", "SeedSummary", "compare_seeds", "seed_summary",
    "adjust_pvalues", "tukey_hsd", "randomized_tukey_hsd",
    "cohens_dz", "mean_difference", "win_tie_loss",
    "Interval", "mean_ci", "proportion_ci", "quantile_ci", "auc_ci", "delong_covariance",
    "TestResult", "AUCComparison", "McNemarResult", "paired_pvalues", "paired_test", "paired_t_test",
    "wilcoxon_test", "sign_test", "randomization_test", "bootstrap_test", "delong_test", "mcnemar_test",
    "roc_points", "partial_auc", "sensitivity_at", "specificity_at", "auc_bootstrap_ci", "sensitivity_ci",
    "specificity_ci", "BootstrapInterval", "roc_test", "ROCTest", "roc_power", "roc_power_difference", "ROCPower",
]
