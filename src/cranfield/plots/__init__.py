"""Plots (matplotlib, headless): each function returns a ``matplotlib.figure.Figure``.

Retrieval: :func:`recall_precision_plot`, :func:`per_query_pr_plot`, :func:`difference_plot`,
:func:`forest_plot`. Classification: :func:`roc_plot`, :func:`pr_plot`, :func:`det_plot`,
:func:`confusion_matrix_plot`, :func:`threshold_plot`; multiclass and multilabel: :func:`class_roc_plot`,
:func:`class_pr_plot` (``roc_plot`` and ``pr_plot`` draw these for an n×C score matrix); scikit-learn-style
displays :class:`RocCurveDisplay`, :class:`PrecisionRecallDisplay`, :class:`DetCurveDisplay`
(``from_predictions``, ``from_estimator``, ``plot(ax=)``),
:func:`reliability_plot`. Regression: :func:`predicted_vs_true_plot`, :func:`residual_plot`. Online experiments:
:func:`lift_plot`, :func:`power_curve_plot`, :func:`ctr_by_rank_plot`, :func:`interleaving_outcome_plot`,
:func:`sensitivity_plot`. Protocols: :func:`validation_curve_plot`, :func:`learning_curve_plot`,
:func:`score_curve_plot`, :func:`bias_variance_plot`. Output: :func:`save_figure` (PNG, SVG,
PDF, written atomically) and :func:`figure_svg` (an inline ``<svg>`` for HTML).
matplotlib is imported on first use; figures are made without pyplot, so no display is needed.
"""

from __future__ import annotations

from .._lazy import lazy_attributes


_LAZY: dict[str, str] = {
    "recall_precision_plot": "retrieval", "per_query_pr_plot": "retrieval", "difference_plot": "retrieval",
    "forest_plot": "retrieval", "ELEVEN_POINT_MEASURES": "retrieval", "RECALL_LEVELS": "retrieval",
    "roc_plot": "classification", "pr_plot": "classification", "det_plot": "classification",
    "confusion_matrix_plot": "classification", "threshold_plot": "classification", "DET_TICKS": "classification",
    "class_roc_plot": "multiclass", "class_pr_plot": "multiclass",
    "gain_plot": "classification", "lift_curve_plot": "classification", "cap_plot": "classification",
    "reliability_plot": "calibration", "predicted_vs_true_plot": "regression", "residual_plot": "regression",
    "lift_plot": "online", "power_curve_plot": "online",
    "ctr_by_rank_plot": "online_models", "interleaving_outcome_plot": "online_models", "sensitivity_plot": "online_models",
    "score_curve_plot": "protocols", "validation_curve_plot": "protocols", "learning_curve_plot": "protocols",
    "bias_variance_plot": "protocols",
    "RocCurveDisplay": "displays", "PrecisionRecallDisplay": "displays", "DetCurveDisplay": "displays",
    "save_figure": "_base", "save_figures": "_base", "figure_svg": "_base", "FORMATS": "_base",
}

__all__ = sorted(_LAZY)


__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, globals())
