"""Evaluation protocols: splits, cross-validation, tuning without touching the test set,
the corrected resampled t-test, validation/learning curves, and tuning on queries.

Modules: :mod:`.splits` (holdout, train/validation/test, (repeated, stratified, group) k-fold,
query splits), :mod:`.cross_validation` (cross_validate), :mod:`.tuning` (tune),
:mod:`.corrected_ttest` (Nadeau–Bengio), :mod:`.curves` (validation_curve, learning_curve),
:mod:`.bias_variance` (bias_variance_decomposition, bias_variance_curve), :mod:`.retrieval`
(tune_on_queries). Names are imported lazily. Their plots are in :mod:`cranfield.plots`
(validation_curve_plot, learning_curve_plot, bias_variance_plot).
"""

from __future__ import annotations

from .._lazy import lazy_attributes


_LAZY: dict[str, str] = {
    "Fold": "splits", "holdout": "splits", "train_validation_test": "splits", "kfold": "splits",
    "group_kfold": "splits", "query_holdout": "splits", "query_kfold": "splits", "relevant_counts": "splits",
    "subset_queries": "splits",
    "CrossValidation": "cross_validation", "cross_validate": "cross_validation",
    "Tuning": "tuning", "tune": "tuning",
    "CorrectedTTest": "corrected_ttest", "corrected_ttest": "corrected_ttest", "corrected_interval": "corrected_ttest",
    "ScoreCurve": "curves", "validation_curve": "curves", "learning_curve": "curves",
    "BiasVariance": "bias_variance", "BiasVarianceCurve": "bias_variance",
    "bias_variance_decomposition": "bias_variance", "bias_variance_curve": "bias_variance",
    "QueryTuning": "retrieval", "tune_on_queries": "retrieval",
}

__all__ = sorted(_LAZY)


__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, globals())
