"""Classification measures as functions ``f(y_true, y_pred_or_score, *, sample_weight=None, ...)``
and one registry to look them up by name or alias.

- For every rate of :data:`.rates.RATES` a function of labels, e.g.
  ``precision(y_true, y_pred, *, sample_weight=None, labels=None, pos_label=None,
  average="binary", zero_division="warn")``, named after the rate (``false_omission_rate`` for
  ``for``). ``average="binary"`` needs two classes and a positive one; ``None`` gives one value
  per class; ``"micro"``, ``"macro"``, ``"weighted"`` as scikit-learn.
- Score-based (:mod:`.curves`), probabilistic and numeric (:mod:`.probabilistic`) functions.
- Baselines: :func:`majority_accuracy` and :func:`no_skill_average_precision` (= prevalence).

Each measure registers here, next to its function, into the one measure registry
(:mod:`cranfield.measures.base`, area ``"classification"``): name, aliases, typed parameters,
definition, reference and the data it reads ("labels", "scores", "probabilities" or "values").
:data:`MEASURES` is a view of those entries: every name and alias -> a :class:`MeasureInfo`
(canonical name, function, ``needs``, ``greater_is_better``), so that cross-validation, reports
and the command line look measures up by name.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable, Hashable, Sequence

import numpy as np

from ..errors import MeasureError
from ..measures.base import Family, Param, families, get_family, register, unknown_measure_message
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
    """A classification measure as the protocols and the CLI call it: a view of its registry entry
    (:func:`cranfield.measures.base.get_family` with ``area="classification"``)."""

    name: str
    function: Callable
    needs: str  # "labels" (y_pred), "scores" (y_score), "probabilities" (y_prob) or "values" (regression)
    greater_is_better: bool = True
    aliases: tuple[str, ...] = ()

    @property
    def family(self) -> Family:
        return get_family(self.name, "classification")


# The registry entries of this area (DESIGN 15): name, function, data it reads, greater is better,
# aliases, one-line definition, reference. Rates come from rates.RATES (their formula and reference).
_SK = "scikit-learn"
_DECLARED = (
    ("roc_auc", roc_auc, "scores", True, ("auc", "auroc", "roc_auc_score"),
     "Area under the ROC curve: the probability that a random positive scores above a random negative "
     "(ties count ½); max_fpr gives the standardised partial AUC.", "Hanley & McNeil 1982; McClish 1989"),
    ("average_precision", average_precision, "scores", True, ("ap", "auprc", "average_precision_score"),
     "Average precision of the scores: Σ (R_n − R_{n−1}) P_n over thresholds (no interpolation).",
     f"{_SK} average_precision_score; Zhu 2004"),
    ("interpolated_average_precision", interpolated_average_precision, "scores", True, ("interpolated_ap", "11pt_ap"),
     "Mean interpolated precision at n_points equally spaced recall levels (11 by default).",
     "Salton & McGill 1983; Everingham et al. 2010 (VOC)"),
    ("eer", equal_error_rate, "scores", False, ("equal_error_rate",),
     "Equal error rate: the error where the false positive and false negative rates are equal.",
     "Martin et al. 1997 (DET curve)"),
    ("log_loss", log_loss, "probabilities", False, ("cross_entropy", "logloss"),
     "Log loss: − mean of log p(true class).", f"{_SK} log_loss; Bishop 2006 §4.3"),
    ("brier_score", brier_score, "probabilities", False, ("brier", "brier_score_loss"),
     "Brier score: mean squared difference between the probability and the outcome.", "Brier 1950"),
    ("roc_auc_multiclass", roc_auc_multiclass, "probabilities", True, ("roc_auc_ovr",),
     "Multi-class ROC AUC: one-vs-rest (or one-vs-one) AUCs of class probabilities, averaged.",
     "Hand & Till 2001; Provost & Domingos 2000"),
    ("mse", mean_squared_error, "values", False, ("mean_squared_error",),
     "Mean squared error: mean of (y − ŷ)².", f"{_SK} mean_squared_error"),
    ("rmse", root_mean_squared_error, "values", False, ("root_mean_squared_error",),
     "Root mean squared error: √MSE.", f"{_SK} root_mean_squared_error"),
    ("mae", mean_absolute_error, "values", False, ("mean_absolute_error",),
     "Mean absolute error: mean of |y − ŷ|.", f"{_SK} mean_absolute_error"),
    ("r2", r2_score, "values", True, ("r2_score", "r_squared", "coefficient_of_determination"),
     "Coefficient of determination: 1 − Σ(y − ŷ)² / Σ(y − ȳ)².", f"{_SK} r2_score"),
    ("d2_log_loss", d2_log_loss_score, "probabilities", True, ("d2_log_loss_score",),
     "D² of the log loss: 1 − log loss / log loss of the class prevalences.", f"{_SK} d2_log_loss_score"),
    ("d2_brier", d2_brier_score, "probabilities", True, ("d2_brier_score",),
     "D² of the Brier score: 1 − Brier score / Brier score of the class prevalences.", f"{_SK} d2_brier_score"),
    ("hinge_loss", hinge_loss, "scores", False, (),
     "Hinge loss: mean of max(0, 1 − y·s) with y in {−1, +1}.", f"{_SK} hinge_loss; Crammer & Singer 2001"),
    ("explained_variance", explained_variance_score, "values", True, ("explained_variance_score",),
     "Explained variance: 1 − Var(y − ŷ) / Var(y).", f"{_SK} explained_variance_score"),
    ("median_absolute_error", median_absolute_error, "values", False, ("medae",),
     "Median of |y − ŷ|.", f"{_SK} median_absolute_error"),
    ("mape", mean_absolute_percentage_error, "values", False, ("mean_absolute_percentage_error",),
     "Mean absolute percentage error: mean of |y − ŷ| / max(|y|, ε).", f"{_SK} mean_absolute_percentage_error"),
    ("msle", mean_squared_log_error, "values", False, ("mean_squared_log_error",),
     "Mean squared logarithmic error: mean of (log(1 + y) − log(1 + ŷ))².", f"{_SK} mean_squared_log_error"),
    ("rmsle", root_mean_squared_log_error, "values", False, ("root_mean_squared_log_error",),
     "Root mean squared logarithmic error: √MSLE.", f"{_SK} root_mean_squared_log_error"),
    ("mean_tweedie_deviance", mean_tweedie_deviance, "values", False, ("tweedie_deviance",),
     "Mean Tweedie deviance of power p (0: squared error, 1: Poisson, 2: gamma).", "Jørgensen 1997; "
     f"{_SK} mean_tweedie_deviance"),
    ("mean_poisson_deviance", mean_poisson_deviance, "values", False, ("poisson_deviance",),
     "Mean Poisson deviance: mean of 2 (y log(y/ŷ) − y + ŷ).", f"{_SK} mean_poisson_deviance"),
    ("mean_gamma_deviance", mean_gamma_deviance, "values", False, ("gamma_deviance",),
     "Mean gamma deviance: mean of 2 (log(ŷ/y) + y/ŷ − 1).", f"{_SK} mean_gamma_deviance"),
    ("d2_absolute_error", d2_absolute_error_score, "values", True, ("d2_absolute_error_score",),
     "D² of the absolute error: 1 − Σ|y − ŷ| / Σ|y − median(y)|.", f"{_SK} d2_absolute_error_score"),
    ("d2_pinball", d2_pinball_score, "values", True, ("d2_pinball_score",),
     "D² of the pinball loss at quantile alpha, against the empirical quantile.", f"{_SK} d2_pinball_score"),
    ("d2_tweedie", d2_tweedie_score, "values", True, ("d2_tweedie_score",),
     "D² of the Tweedie deviance: 1 − deviance / deviance of the mean.", f"{_SK} d2_tweedie_score"),
    ("majority_accuracy", majority_accuracy, "labels", True, ("baseline_accuracy",),
     "Baseline: accuracy of always predicting the most frequent class.", "Japkowicz & Shah 2011 §5"),
    ("no_skill_ap", no_skill_average_precision, "scores", True, ("no_skill_average_precision",),
     "Baseline: average precision of a random ranking, the prevalence P / (P + N).", "Saito & Rehmsmeier 2015"),
)

# Arguments that carry data or the problem's setting, not a measure's parameter.
_CONTEXT = ("y_true", "y_pred", "y_score", "y_prob", "sample_weight", "labels", "pos_label")
_KINDS = {bool: "bool", int: "int", float: "float"}
_OVERRIDE = {("mean_tweedie_deviance", "power"): "float", ("d2_tweedie", "power"): "float"}


def _params(name: str, function: Callable, extra: Sequence[str] = ()) -> dict[str, Param]:
    """Typed parameters from the function's keyword defaults (a word or None default: any scalar)."""
    params: dict[str, Param] = {}
    for p in inspect.signature(function).parameters.values():
        if p.name in _CONTEXT or p.default is inspect.Parameter.empty:
            continue
        kind = _OVERRIDE.get((name, p.name)) or _KINDS.get(type(p.default), "value")
        params[p.name] = Param(kind, p.default)
    for key in extra:  # a rate's own parameters (beta, adjusted, weights)
        params.setdefault(key, Param(*_RATE_PARAMS[key]))
    return params


_RATE_PARAMS = {"beta": ("float", 1.0, "weight of recall"), "adjusted": ("bool", False, "chance-adjusted"),
                "weights": ("value", None, "linear or quadratic (weighted kappa)")}
_INFO: dict[str, MeasureInfo] = {}


def _register(name, function, data, better, aliases, definition, reference, spec=None, extra=()) -> None:
    register(Family(name, function, definition, reference, params=_params(name, function, extra),
                    aliases=tuple(aliases), area="classification", data=data, greater_is_better=better,
                    bounds=(None, None), spec=spec))


for _rate in RATES:
    _register(_rate.name, globals()[_rate.function_name], "labels", _rate.greater_is_better, _rate.aliases,
              f"{_rate.name}: {_rate.formula}.", _rate.reference, spec=_rate, extra=_rate.parameters)
for _entry in _DECLARED:
    _register(*_entry)


class _MeasuresView(Mapping):
    """``MEASURES``: every name and alias of a classification measure -> its :class:`MeasureInfo`,
    read from the one registry."""

    def __getitem__(self, key: str) -> MeasureInfo:
        try:
            family = get_family(str(key), "classification")
        except MeasureError:
            raise KeyError(key) from None
        info = _INFO.get(family.name)
        if info is None:  # built once per measure, so that every name gives the same object
            info = _INFO[family.name] = MeasureInfo(family.name, family.kernel, family.data,
                                                    family.greater_is_better, family.aliases)
        return info

    def __iter__(self):
        for family in families("classification").values():
            yield from (family.name, *family.aliases)

    def __len__(self) -> int:
        return sum(1 for _ in self)


MEASURES: Mapping[str, MeasureInfo] = _MeasuresView()


def get_measure(name: str) -> MeasureInfo:
    """The measure called ``name`` (canonical or alias; case-insensitive, '-' and ' ' read as '_')."""
    text = str(name).strip()
    for key in (text, text.lower().replace("-", "_").replace(" ", "_")):
        if key in MEASURES:
            return MEASURES[key]
    raise MeasureError(unknown_measure_message(text, "classification"))


def measure_names() -> list[str]:
    """Canonical names of all registered measures."""
    return list(families("classification"))
