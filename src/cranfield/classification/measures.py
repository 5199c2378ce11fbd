"""Classification measures as functions ``f(y_true, y_pred_or_score, *, sample_weight=None, ...)``
and one registry to look them up by name or alias.

- For every rate of :data:`.rates.RATES` a function of labels, e.g.
  ``precision(y_true, y_pred, *, sample_weight=None, labels=None, pos_label=None,
  average="binary", zero_division="warn")``, named after the rate (``false_omission_rate`` for
  ``for``). ``average="binary"`` needs two classes and a positive one; ``None`` gives one value
  per class; ``"micro"``, ``"macro"``, ``"weighted"`` as scikit-learn.
- Score-based (:mod:`.curves`), probabilistic and numeric (:mod:`.probabilistic`) functions.
- Baselines: :func:`majority_accuracy` and :func:`no_skill_average_precision` (= prevalence).

:data:`MEASURES` maps every name and alias to a :class:`MeasureInfo` (canonical name, function,
``needs``: "labels", "scores", "probabilities" or "values", ``greater_is_better``), so that
cross-validation, reports and the command line can look measures up by name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Hashable, Sequence

import numpy as np

from ..errors import MeasureError
from ._validation import binary_truth, check_lengths, check_weights
from .confusion import ConfusionMatrix, rate_of_labels
from .curves import average_precision, equal_error_rate, interpolated_average_precision, roc_auc
from .probabilistic import (brier_score, d2_absolute_error_score, d2_brier_score, d2_log_loss_score, d2_pinball_score,
                            d2_tweedie_score, hinge_loss, log_loss, mean_absolute_error, mean_squared_error, r2_score,
                            roc_auc_multiclass, root_mean_squared_error)
from .multilabel import is_multilabel, multilabel_rate
from .rates import RATES, RateDef
from .regression import (explained_variance_score, mean_absolute_percentage_error, mean_gamma_deviance,
                         mean_poisson_deviance, mean_squared_log_error, mean_tweedie_deviance, median_absolute_error,
                         root_mean_squared_log_error)

__all__ = ["MeasureInfo", "MEASURES", "get_measure", "measure_names", "majority_accuracy",
           "no_skill_average_precision", *[rate.function_name for rate in RATES]]


def _label_measure(rate: RateDef) -> Callable:
    def measure(y_true: Any, y_pred: Any, *, sample_weight: Any = None, labels: Sequence[Hashable] | None = None,
                pos_label: Hashable | None = None, average: str | None = "binary", zero_division="warn",
                **params) -> Any:
        if is_multilabel(y_true, y_pred):
            return multilabel_rate(rate.name, y_true, y_pred, average=average, labels=labels,
                                   sample_weight=sample_weight, zero_division=zero_division, **params)
        return rate_of_labels(rate, y_true, y_pred, sample_weight=sample_weight, labels=labels, pos_label=pos_label,
                              average=average, zero_division=zero_division, **params)

    measure.__name__ = measure.__qualname__ = rate.function_name
    names = ", ".join((rate.name, *rate.aliases))
    measure.__doc__ = (f"{rate.name}: {rate.formula} (names: {names}). Reference: {rate.reference}.\n\n"
                       "Computed on ``ConfusionMatrix.from_labels(y_true, y_pred, ...)``; see "
                       ":mod:`cranfield.classification.measures` for the options. Indicator matrices (multilabel) "
                       "go to :func:`cranfield.classification.multilabel.multilabel_rate`.")
    return measure


for _rate in RATES:
    globals()[_rate.function_name] = _label_measure(_rate)


def majority_accuracy(y_true: Any, y_pred: Any = None, *, sample_weight: Any = None) -> float:
    """Baseline: the accuracy of always predicting the most frequent class of ``y_true``
    (``y_pred`` is ignored; it is accepted so that the signature is the common one)."""
    return ConfusionMatrix.from_labels(y_true, y_true, sample_weight=sample_weight).majority_accuracy


def no_skill_average_precision(y_true: Any, y_score: Any = None, *, sample_weight: Any = None,
                               pos_label: Hashable | None = None) -> float:
    """Baseline: the expected AP of a random ranking, i.e. the prevalence P / (P + N)
    (Saito & Rehmsmeier 2015, PLOS ONE 10)."""
    positive = binary_truth(y_true, pos_label)
    weights = check_weights(sample_weight, check_lengths(y_true=positive))
    w = np.ones(len(positive)) if weights is None else weights
    return float(w[positive].sum() / w.sum()) if w.sum() else 0.0


@dataclass(frozen=True)
class MeasureInfo:
    name: str
    function: Callable
    needs: str  # "labels" (y_pred), "scores" (y_score), "probabilities" (y_prob) or "values" (regression)
    greater_is_better: bool = True
    aliases: tuple[str, ...] = ()


# regression measures with the common signature f(y_true, y_pred, *, sample_weight=None, ...)
# (max_error takes no weights: called directly, not through the registry)
_REGRESSION = (
    ("explained_variance", explained_variance_score, True, ("explained_variance_score",)),
    ("median_absolute_error", median_absolute_error, False, ("medae",)),
    ("mape", mean_absolute_percentage_error, False, ("mean_absolute_percentage_error",)),
    ("msle", mean_squared_log_error, False, ("mean_squared_log_error",)),
    ("rmsle", root_mean_squared_log_error, False, ("root_mean_squared_log_error",)),
    ("mean_tweedie_deviance", mean_tweedie_deviance, False, ("tweedie_deviance",)),
    ("mean_poisson_deviance", mean_poisson_deviance, False, ("poisson_deviance",)),
    ("mean_gamma_deviance", mean_gamma_deviance, False, ("gamma_deviance",)),
    ("d2_absolute_error", d2_absolute_error_score, True, ("d2_absolute_error_score",)),
    ("d2_pinball", d2_pinball_score, True, ("d2_pinball_score",)),
    ("d2_tweedie", d2_tweedie_score, True, ("d2_tweedie_score",)),
)


def _entries() -> list[MeasureInfo]:
    g = globals()
    entries = [MeasureInfo(rate.name, g[rate.function_name], "labels", rate.greater_is_better, rate.aliases)
               for rate in RATES]
    entries += [
        MeasureInfo("roc_auc", roc_auc, "scores", True, ("auc", "auroc", "roc_auc_score")),
        MeasureInfo("average_precision", average_precision, "scores", True, ("ap", "auprc", "average_precision_score")),
        MeasureInfo("interpolated_average_precision", interpolated_average_precision, "scores", True,
                    ("interpolated_ap", "11pt_ap")),
        MeasureInfo("eer", equal_error_rate, "scores", False, ("equal_error_rate",)),
        MeasureInfo("log_loss", log_loss, "probabilities", False, ("cross_entropy", "logloss")),
        MeasureInfo("brier_score", brier_score, "probabilities", False, ("brier", "brier_score_loss")),
        MeasureInfo("roc_auc_multiclass", roc_auc_multiclass, "probabilities", True, ("roc_auc_ovr",)),
        MeasureInfo("mse", mean_squared_error, "values", False, ("mean_squared_error",)),
        MeasureInfo("rmse", root_mean_squared_error, "values", False, ("root_mean_squared_error",)),
        MeasureInfo("mae", mean_absolute_error, "values", False, ("mean_absolute_error",)),
        MeasureInfo("r2", r2_score, "values", True, ("r2_score", "r_squared", "coefficient_of_determination")),
        MeasureInfo("d2_log_loss", d2_log_loss_score, "probabilities", True, ("d2_log_loss_score",)),
        MeasureInfo("d2_brier", d2_brier_score, "probabilities", True, ("d2_brier_score",)),
        MeasureInfo("hinge_loss", hinge_loss, "scores", False, ()),
        *[MeasureInfo(name, function, "values", better, aliases) for name, function, better, aliases in _REGRESSION],
        MeasureInfo("majority_accuracy", majority_accuracy, "labels", True, ("baseline_accuracy",)),
        MeasureInfo("no_skill_ap", no_skill_average_precision, "scores", True, ("no_skill_average_precision",)),
    ]
    return entries


MEASURES: dict[str, MeasureInfo] = {}
for _info in _entries():
    for _key in (_info.name, *_info.aliases):
        assert _key not in MEASURES, _key
        MEASURES[_key] = _info


def get_measure(name: str) -> MeasureInfo:
    """The measure called ``name`` (canonical or alias; case-insensitive, '-' and ' ' read as '_')."""
    info = MEASURES.get(name) or MEASURES.get(str(name).strip().lower().replace("-", "_").replace(" ", "_"))
    if info is None:
        raise MeasureError(f"unknown classification measure {name!r}; expected one of {', '.join(measure_names())}")
    return info


def measure_names() -> list[str]:
    """Canonical names of all registered measures."""
    return list(dict.fromkeys(info.name for info in MEASURES.values()))
