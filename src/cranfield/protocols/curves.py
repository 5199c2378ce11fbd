"""Validation and learning curves as data: a measure on the training rows and on the validation
fold, per fold, as model capacity (a parameter) or the training size grows.

Training and validation values close and low: under-fitting (high bias); training high and
validation much lower: over-fitting (high variance). Reference: Hastie, Tibshirani & Friedman
(2009), *The Elements of Statistical Learning*, §7.2 (Fig. 7.1); the values equal
``sklearn.model_selection.validation_curve`` / ``learning_curve`` on the same splits.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Hashable, Sequence

import numpy as np

from .._params import usage_error
from ..errors import InputError, UsageError
from ..io.tables import Table
from ..stats._resample import as_generator
from ._html import TableReport
from . import _scoring as sc
from .splits import Fold, folds_from_cv

__all__ = ["ScoreCurve", "validation_curve", "learning_curve"]


@dataclass(eq=False)
class ScoreCurve(TableReport):
    """``train[i, j]`` / ``validation[i, j]``: the measure at ``x[i]`` on fold j's training rows
    and on its test fold. ``kind`` is "validation" (x = parameter values) or "learning" (x =
    number of training samples)."""

    kind: str
    x_name: str
    x: np.ndarray
    train: np.ndarray
    validation: np.ndarray
    metric: str
    folds: list[Fold] = field(repr=False, default_factory=list)

    @property
    def train_mean(self) -> np.ndarray:
        return self.train.mean(axis=1)

    @property
    def validation_mean(self) -> np.ndarray:
        return self.validation.mean(axis=1)

    @property
    def train_std(self) -> np.ndarray:
        return self.train.std(axis=1, ddof=1) if self.train.shape[1] > 1 else np.zeros(len(self.x))

    @property
    def validation_std(self) -> np.ndarray:
        return self.validation.std(axis=1, ddof=1) if self.validation.shape[1] > 1 else np.zeros(len(self.x))

    def to_pandas(self):
        """Long form: one row per (x, fold) with ``train`` and ``validation`` values."""
        import pandas as pd

        n_x, n_folds = self.train.shape
        return pd.DataFrame({self.x_name: np.repeat(np.asarray(self.x, dtype=object), n_folds),
                             "fold": np.tile(np.arange(n_folds), n_x),
                             "train": self.train.reshape(-1), "validation": self.validation.reshape(-1)})

    def table(self, *, digits: int = 4):
        rows = [[_cell(x), float(tm), float(ts), float(vm), float(vs)] for x, tm, ts, vm, vs in
                zip(self.x.tolist(), self.train_mean, self.train_std, self.validation_mean, self.validation_std)]
        return Table([self.x_name, "train mean", "train sd", "validation mean", "validation sd"], rows,
                     title=f"{self.kind} curve: {self.metric} over {self.train.shape[1]} folds", digits=digits)


def _cell(value: Any) -> Any:
    return value if isinstance(value, (int, float, str)) or value is None else repr(value)


def _prepare(model: Any, X: Any, y: Any, metric: Any, cv: Any, repeats: int, stratify: bool, groups: Any,
             random_state, pos_label):
    target = sc.as_target(y)
    if sc.n_rows(X) != len(target):
        raise InputError(f"X has {sc.n_rows(X)} rows but y has {len(target)} values", field="y")
    (m,) = sc.resolve_metrics([metric])
    task = sc.make_task(target, [m], pos_label)
    folds = folds_from_cv(cv, target, repeats=repeats, stratify=stratify and task.kind != "regression",
                          groups=groups, random_state=random_state)
    return target, m, task, folds


def _fit_and_score(model: Any, X: Any, y: np.ndarray, train: np.ndarray, test: np.ndarray, metric, task
                   ) -> tuple[float, float]:
    fitted = sc.fit(model, X, y, train)
    wanted = {"labels" if metric.needs == "values" else metric.needs}
    values = []
    for rows in (train, test):
        out = sc.outputs(fitted, sc.take(X, rows), task, wanted)
        values.append(metric(y[rows], out, task))
    return values[0], values[1]


def validation_curve(model: Any, X: Any, y: Any, *, param: str, values: Sequence, metric: Any = "accuracy",
                     cv: Any = 5, repeats: int = 1, stratify: bool = True, groups: Any = None, random_state=None,
                     pos_label: Hashable | None = None) -> ScoreCurve:
    """The measure on training and validation folds for each value of the parameter ``param``
    (set with ``set_params`` on a clone, or passed to a factory ``model(**{param: value})``)."""
    target, m, task, folds = _prepare(model, X, y, metric, cv, repeats, stratify, groups, random_state, pos_label)
    values = list(values)
    if not values:
        raise UsageError("values: give at least one parameter value")
    train = np.empty((len(values), len(folds)))
    valid = np.empty_like(train)
    for i, value in enumerate(values):
        configured = sc.configured(model, {param: value})
        for j, fold in enumerate(folds):
            train[i, j], valid[i, j] = _fit_and_score(configured, X, target, fold.train, fold.test, m, task)
    x = np.asarray(values) if all(isinstance(v, (int, float, np.number)) for v in values) else np.asarray(values, dtype=object)
    return ScoreCurve("validation", param, x, train, valid, m.name, folds)


def _train_sizes(train_sizes: Sequence, n_max: int) -> np.ndarray:
    """Absolute sizes, as scikit-learn: fractions in (0, 1] times ``n_max`` (floored, at least 1),
    integers as given; sorted, duplicates removed."""
    sizes = np.asarray(train_sizes)
    if sizes.ndim != 1 or not len(sizes):
        raise UsageError("train_sizes: expected a non-empty 1-D sequence")
    if sizes.dtype.kind == "f":
        if (sizes <= 0).any() or (sizes > 1).any():
            raise usage_error("train_sizes", "fractions > 0 and <= 1", sizes.tolist())
        absolute = np.clip((sizes * n_max).astype(np.int64), 1, n_max)
    elif sizes.dtype.kind in "iu":
        if (sizes <= 0).any() or (sizes > n_max).any():
            raise usage_error("train_sizes", f"sizes from 1 to {n_max} (the smallest training fold)", sizes.tolist())
        absolute = sizes.astype(np.int64)
    else:
        raise UsageError(f"train_sizes: expected fractions or integers, found {sizes.tolist()!r}")
    return np.unique(absolute)


def learning_curve(model: Any, X: Any, y: Any, *, train_sizes: Sequence = (0.1, 0.325, 0.55, 0.775, 1.0),
                   metric: Any = "accuracy", cv: Any = 5, repeats: int = 1, stratify: bool = True, groups: Any = None,
                   shuffle: bool = True, random_state=None, pos_label: Hashable | None = None) -> ScoreCurve:
    """The measure on the training rows and the validation fold as the training size grows: fold
    j's model at size n is fitted on the first n of its training indices — after one random
    permutation per fold when ``shuffle`` (default; ``shuffle=False`` is scikit-learn's default
    order, sorted, and then equals ``sklearn.model_selection.learning_curve``)."""
    target, m, task, folds = _prepare(model, X, y, metric, cv, repeats, stratify, groups, random_state, pos_label)
    sizes = _train_sizes(train_sizes, len(folds[0].train))  # the first fold, as scikit-learn
    rng = as_generator(random_state)
    train = np.empty((len(sizes), len(folds)))
    valid = np.empty_like(train)
    for j, fold in enumerate(folds):
        order = rng.permutation(fold.train) if shuffle else fold.train
        for i, size in enumerate(sizes):
            train[i, j], valid[i, j] = _fit_and_score(model, X, target, order[:size], fold.test, m, task)
    return ScoreCurve("learning", "n_train", sizes, train, valid, m.name, folds)
