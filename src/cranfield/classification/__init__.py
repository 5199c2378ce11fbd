"""Detection and classification evaluation: confusion matrices, rates, curves, thresholds.

Modules: :mod:`.confusion` (ConfusionMatrix), :mod:`.rates` (every rate, declared once),
:mod:`.curves` (ROC/PR/DET from one sufficient statistic, AUC, AP, EER, threshold sweep),
:mod:`.gain` (cumulative-gain, lift and CAP curves, accuracy ratio),
:mod:`.thresholds` (best_threshold, operating_point), :mod:`.probabilistic` (log-loss, Brier,
hinge, regression errors, D²), :mod:`.multiclass` (mAP, OvR/OvO ROC AUC, per-class curves, top-k),
:mod:`.multilabel` (per-label confusion matrices, Hamming loss, subset accuracy),
:mod:`.label_ranking` (LRAP, coverage, ranking loss, DCG/nDCG), :mod:`.calibration` (reliability,
ECE, Brier decomposition, calibration slope), :mod:`.clustering` (external and internal
clustering scores), :mod:`.regression` (R², deviances, ...), :mod:`.measures` (functions and
the registry MEASURES).
Names are imported lazily so that ``import cranfield.classification`` stays cheap.
"""

from __future__ import annotations

from .._lazy import lazy_attributes

import importlib
from typing import Any

_LAZY: dict[str, str] = {
    "ConfusionMatrix": "confusion",
    "RATES": "rates", "RateDef": "rates", "get_rate": "rates", "rate_names": "rates",
    "Curve": "curves", "ScoreCounts": "curves", "score_counts": "curves", "roc_curve": "curves",
    "pr_curve": "curves", "det_curve": "curves", "roc_auc": "curves", "average_precision": "curves",
    "interpolated_average_precision": "curves", "equal_error_rate": "curves", "threshold_sweep": "curves",
    "OperatingPoint": "thresholds", "best_threshold": "thresholds", "operating_point": "thresholds",
    "gain_curve": "gain", "lift_curve": "gain", "cap_curve": "gain", "accuracy_ratio": "gain",
    "BinnedCounts": "curves", "auc": "curves", "recall_at_precision": "curves", "precision_at_recall": "curves",
    "average_precision_multiclass": "multiclass", "class_curves": "curves", "top_k_accuracy": "multiclass",
    "multilabel_confusion_matrix": "multilabel", "hamming_loss": "multilabel", "subset_accuracy": "multilabel",
    "label_ranking_average_precision": "label_ranking", "coverage_error": "label_ranking",
    "label_ranking_loss": "label_ranking", "dcg_score": "label_ranking", "ndcg_score": "label_ranking",
    "hinge_loss": "probabilistic", "d2_absolute_error_score": "probabilistic", "d2_pinball_score": "probabilistic",
    "d2_tweedie_score": "probabilistic", "d2_log_loss_score": "probabilistic", "d2_brier_score": "probabilistic",
    "log_loss": "probabilistic", "brier_score": "probabilistic", "roc_auc_multiclass": "multiclass",
    "mean_squared_error": "probabilistic", "root_mean_squared_error": "probabilistic",
    "mean_absolute_error": "probabilistic", "r2_score": "probabilistic",
    "MEASURES": "measures", "MeasureInfo": "measures", "get_measure": "measures", "measure_names": "measures",
    "majority_accuracy": "measures", "no_skill_average_precision": "measures",
    "UndefinedMeasureWarning": "_validation",
    **{name: "calibration" for name in (
        "ReliabilityDiagram", "BrierDecomposition", "CalibrationFit", "CalibrationInterval", "calibration_curve",
        "reliability_diagram", "expected_calibration_error", "maximum_calibration_error",
        "adaptive_calibration_error", "brier_decomposition", "calibration_slope", "calibration_bootstrap")},
    **{name: "clustering" for name in (
        "contingency_matrix", "pair_confusion_matrix", "rand_score", "adjusted_rand_score", "mutual_info_score",
        "normalized_mutual_info_score", "adjusted_mutual_info_score", "homogeneity_score", "completeness_score",
        "v_measure_score", "homogeneity_completeness_v_measure", "fowlkes_mallows_score", "purity_score",
        "silhouette_samples", "silhouette_score", "davies_bouldin_score", "calinski_harabasz_score")},
    **{name: "regression" for name in (
        "explained_variance_score", "mean_absolute_percentage_error", "median_absolute_error",
        "mean_squared_log_error", "root_mean_squared_log_error", "max_error", "mean_tweedie_deviance",
        "mean_poisson_deviance", "mean_gamma_deviance")},
}

__all__ = sorted(_LAZY)


def _rate_function(name: str) -> Any:
    """The per-rate functions (precision, recall, f1, mcc, ...) live in .measures."""
    measures = importlib.import_module(f"{__name__}.measures")
    if name in measures.__all__:
        return getattr(measures, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, globals(), _rate_function)
