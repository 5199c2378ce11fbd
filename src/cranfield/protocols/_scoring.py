"""Shared by the protocols (private): metrics by name, the task (binary, multi-class,
regression), cloning and fitting a model on some rows and asking it for outputs on others.

A model is any object with ``fit(X, y)`` and at least one of ``predict``, ``predict_proba`` and
``decision_function`` (scikit-learn's protocol). It is never modified: every fit is on a clone
(``sklearn.base.clone`` for scikit-learn estimators, ``copy.deepcopy`` otherwise).

Outputs, as scikit-learn's scorers ask for them: labels from ``predict``; a binary score from
``decision_function`` (negated when the positive class is ``classes_[0]``), else from the
positive column of ``predict_proba``; probabilities from ``predict_proba`` (columns put in the
order of the classes of the whole ``y``, a class unseen in training getting 0).
"""

from __future__ import annotations

import copy
import inspect
from dataclasses import dataclass, field
from typing import Any, Hashable, Sequence

import numpy as np

from ..classification._validation import resolve_pos_label
from ..classification.measures import MEASURES
from ..errors import InputError, UsageError
from ..measures.base import Measure, parse_measure

__all__ = ["Task", "Metric", "resolve_metrics", "make_task", "clone", "take", "fit", "outputs", "score_all"]


@dataclass(frozen=True)
class Task:
    kind: str  # "binary", "multiclass" or "regression"
    classes: tuple = ()
    positive: Hashable | None = None


@dataclass(frozen=True)
class Metric:
    """A classification measure of the one registry with fixed parameters, as the protocols call
    it; ``name`` is its canonical text (the column name), ``measure`` the registry's value."""

    name: str
    info: Any  # MeasureInfo
    params: dict = field(default_factory=dict)

    @property
    def measure(self) -> Measure:
        return Measure(self.info.name, self.params, area="classification")

    @property
    def needs(self) -> str:
        return self.info.needs

    @property
    def greater_is_better(self) -> bool:
        return self.info.greater_is_better

    def __call__(self, y_true: np.ndarray, out: dict, task: Task, sample_weight=None) -> float:
        function = self.info.function
        accepted = inspect.signature(function).parameters
        kwargs = dict(self.params)
        if self.needs == "labels":
            prediction = out["labels"]
        elif self.needs == "scores":
            prediction = out["scores"]
        elif self.needs == "probabilities":
            prediction = out["probabilities"][:, list(task.classes).index(task.positive)] \
                if "pos_label" in accepted and task.kind == "binary" else out["probabilities"]
        else:
            prediction = out["labels"]
        if task.kind != "regression":
            if "labels" in accepted:
                kwargs.setdefault("labels", list(task.classes))
            if "pos_label" in accepted and task.kind == "binary":
                kwargs.setdefault("pos_label", task.positive)
            if "average" in accepted and task.kind == "multiclass":
                kwargs.setdefault("average", "macro")
        if sample_weight is not None:
            kwargs["sample_weight"] = sample_weight
        return float(function(y_true, prediction, **kwargs))


def resolve_metrics(metrics: Any) -> list[Metric]:
    """``metrics``: a name, a :class:`~cranfield.measures.base.Measure`, or a sequence of names
    (canonical texts such as ``"fbeta(beta=2)"``), Measures and ``(name, {params})`` pairs, e.g.
    ``["accuracy", "roc_auc", ("fbeta", {"beta": 2})]``; each is a classification measure of the
    one registry, named by its canonical text."""
    if isinstance(metrics, (str, Measure)) or (isinstance(metrics, tuple) and len(metrics) == 2
                                               and isinstance(metrics[1], dict)):
        metrics = [metrics]
    result: list[Metric] = []
    for item in metrics:
        if isinstance(item, (str, Measure)):
            measure = parse_measure(item, area="classification")
        elif isinstance(item, (tuple, list)) and len(item) == 2 and isinstance(item[0], str) and isinstance(item[1], dict):
            measure = Measure(item[0], item[1], area="classification")
        else:
            raise UsageError(f"metrics: expected names or (name, {{params}}) pairs, found {item!r}")
        result.append(Metric(str(measure), MEASURES[measure.name], dict(measure.params)))
    if not result:
        raise UsageError("metrics: give at least one measure")
    names = [m.name for m in result]
    if len(set(names)) != len(names):
        raise UsageError(f"metrics: the same measure twice in {names!r}")
    return result


def make_task(y: np.ndarray, metrics: Sequence[Metric], pos_label: Hashable | None) -> Task:
    """Binary, multi-class or regression, from ``y`` and the measures asked for."""
    if any(m.needs == "values" for m in metrics):
        if any(m.needs != "values" for m in metrics):
            raise UsageError("metrics mix regression errors with classification measures")
        return Task("regression")
    classes = np.unique(y)
    if len(classes) < 2:
        raise InputError(f"expected at least two classes, found {classes.tolist()!r}", field="y")
    if len(classes) == 2:
        return Task("binary", tuple(classes.tolist()), resolve_pos_label(classes.tolist(), pos_label))
    for m in metrics:
        if m.needs == "scores":
            raise UsageError(f"{m.name} needs a binary problem; y has {len(classes)} classes "
                             "(use roc_auc_multiclass for probabilities)")
    if pos_label is not None:
        raise UsageError(f"pos_label makes sense for two classes only, found {len(classes)}")
    return Task("multiclass", tuple(classes.tolist()), None)


def as_target(y: Any) -> np.ndarray:
    array = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)
    if array.ndim != 1:
        raise InputError(f"expected a 1-D target, found shape {array.shape}", field="y")
    return array


def n_rows(X: Any) -> int:
    return X.shape[0] if hasattr(X, "shape") else len(X)


def take(X: Any, index: np.ndarray) -> Any:
    """Rows ``index`` of X: a numpy array, a sparse matrix, a pandas/polars frame or a list."""
    if hasattr(X, "iloc"):
        return X.iloc[index]
    if hasattr(X, "shape"):
        return X[index]
    return [X[i] for i in index.tolist()]


def clone(model: Any) -> Any:
    """An unfitted copy: ``sklearn.base.clone`` for estimators, ``copy.deepcopy`` otherwise."""
    if hasattr(model, "get_params"):
        try:
            from sklearn.base import clone as sk_clone

            return sk_clone(model)
        except ImportError:  # pragma: no cover
            pass
    return copy.deepcopy(model)


def check_model(model: Any) -> None:
    if not hasattr(model, "fit") or not any(hasattr(model, a) for a in ("predict", "predict_proba", "decision_function")):
        raise UsageError(f"expected a model with fit() and predict(), predict_proba() or decision_function(); "
                         f"found {type(model).__name__}")


def fit(model: Any, X: Any, y: np.ndarray, index: np.ndarray) -> Any:
    """A clone of ``model`` fitted on rows ``index``."""
    fitted = clone(model)
    fitted.fit(take(X, index), y[index])
    return fitted


def needed_outputs(metrics: Sequence[Metric], task: Task, model: Any) -> set[str]:
    """Outputs to ask for: those the metrics need, plus labels and (binary) scores when the
    model gives them (for the pooled confusion matrix and curves)."""
    wanted = {"labels" if m.needs == "values" else m.needs for m in metrics}
    if hasattr(model, "predict"):
        wanted.add("labels")
    if task.kind == "binary" and (hasattr(model, "decision_function") or hasattr(model, "predict_proba")):
        wanted.add("scores")
    return wanted


def _probability_matrix(fitted: Any, X: Any, task: Task) -> np.ndarray:
    prob = np.asarray(fitted.predict_proba(X), dtype=np.float64)
    model_classes = list(getattr(fitted, "classes_", task.classes))
    if model_classes == list(task.classes):
        return prob
    full = np.zeros((prob.shape[0], len(task.classes)))
    full[:, [list(task.classes).index(c) for c in model_classes]] = prob
    return full


def outputs(fitted: Any, X: Any, task: Task, wanted: set[str]) -> dict[str, np.ndarray]:
    """The outputs of a fitted model on X (see the module docstring)."""
    out: dict[str, np.ndarray] = {}
    for kind in ("labels", "scores", "probabilities"):
        if kind not in wanted:
            continue
        if kind == "labels":
            if not hasattr(fitted, "predict"):
                raise UsageError(f"a measure needs predicted labels but {type(fitted).__name__} has no predict()")
            out[kind] = np.asarray(fitted.predict(X))
        elif kind == "probabilities":
            if not hasattr(fitted, "predict_proba"):
                raise UsageError(f"a measure needs probabilities but {type(fitted).__name__} has no predict_proba()")
            out[kind] = _probability_matrix(fitted, X, task)
        elif hasattr(fitted, "decision_function"):
            score = np.asarray(fitted.decision_function(X), dtype=np.float64)
            if score.ndim != 1:
                raise UsageError(f"decision_function gave shape {score.shape}; expected one score per sample")
            model_classes = list(getattr(fitted, "classes_", task.classes))
            out[kind] = -score if model_classes and model_classes[0] == task.positive else score
        elif hasattr(fitted, "predict_proba"):
            prob = out.get("probabilities")
            prob = _probability_matrix(fitted, X, task) if prob is None else prob
            out[kind] = prob[:, list(task.classes).index(task.positive)]
        else:
            raise UsageError(f"a measure needs scores but {type(fitted).__name__} has neither decision_function() "
                             "nor predict_proba()")
    return out


def score_all(metrics: Sequence[Metric], y_true: np.ndarray, out: dict, task: Task, sample_weight=None) -> dict[str, float]:
    return {m.name: m(y_true, out, task, sample_weight) for m in metrics}


def better(metric: Metric, values: np.ndarray) -> int:
    """Index of the best value (the first among ties)."""
    values = np.asarray(values, dtype=np.float64)
    return int(np.argmax(values) if metric.greater_is_better else np.argmin(values))


def configured(model: Any, params: dict) -> Any:
    """An unfitted model with ``params``: ``clone(model).set_params(**params)``, or ``model(**params)``
    when ``model`` is a factory (a callable without ``fit``)."""
    if not hasattr(model, "fit") and callable(model):
        built = model(**params)
        check_model(built)
        return built
    check_model(model)
    if not params:
        return clone(model)
    if not hasattr(model, "set_params"):
        raise UsageError(f"{type(model).__name__} has no set_params(); pass a factory (a function of the "
                         "parameters that returns a model) instead")
    return clone(model).set_params(**params)


def candidates(params: Any) -> list[dict]:
    """Parameter settings: a dict of lists (their grid, in order) or a list of dicts."""
    import itertools

    if params is None:
        return [{}]
    if isinstance(params, dict):
        for key, values in params.items():
            if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
                raise UsageError(f"params[{key!r}]: expected a list of values, found {values!r}")
        keys = list(params)
        grid = [dict(zip(keys, combo)) for combo in itertools.product(*(list(params[k]) for k in keys))]
    else:
        grid = [dict(p) for p in params]
    if not grid:
        raise UsageError("params: no setting to try")
    return grid
