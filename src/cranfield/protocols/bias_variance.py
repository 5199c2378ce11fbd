"""Bias–variance decomposition by bootstrap rounds, and its curve over a hyper-parameter.

A protocol beside :func:`~cranfield.protocols.cross_validation.cross_validate`: the model is fitted
on ``n_rounds`` bootstrap samples of the training set (each of the training set's size, drawn
with replacement) and predicts the same test set each time; over the rounds' predictions
ŷ_r(x) of each test point x, with y the test target (noise is not separated: it is counted in
the bias, as in mlxtend):

- **squared loss**: main prediction ȳ(x) = mean_r ŷ_r(x); loss = mean_{x,r} (ŷ_r(x) − y)²,
  bias² = mean_x (ȳ(x) − y)², variance = mean_{x,r} (ŷ_r(x) − ȳ(x))², and loss = bias² + variance
  exactly (up to rounding);
- **0-1 loss** (Domingos 2000, "A unified bias-variance decomposition", ICML): main prediction
  y_m(x) = the most frequent prediction (ties: the smallest label); bias B(x) = [y_m(x) ≠ y],
  variance V(x) = P_r(ŷ_r(x) ≠ y_m(x)); loss = mean P_r(ŷ_r(x) ≠ y). Domingos splits the variance
  into the unbiased part (points with B = 0, where variance adds to the loss) and the biased
  part (B = 1, where it subtracts): for two classes loss = bias + V_unbiased − V_biased exactly.

The draws are those of mlxtend's ``bias_variance_decomp`` with the same ``random_state``
(``numpy.random.RandomState(random_state)``, one ``randint(0, n, n)`` per round, in order), and
the three figures equal its (``==``) when fitting is deterministic given the data. Unlike
mlxtend, each round fits a clone: the model passed in is never fitted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from .._params import check_count, check_seed, usage_error
from ..errors import InputError, UsageError
from ..classification._validation import check_labels, check_scores, encode_labels
from ..io.tables import Table
from ._html import TableReport
from . import _scoring as sc

__all__ = ["BiasVariance", "BiasVarianceCurve", "bias_variance_decomposition", "bias_variance_curve", "LOSSES"]

LOSSES = ("0-1", "squared")
_ALIASES = {"0-1": "0-1", "0-1_loss": "0-1", "zero_one": "0-1", "squared": "squared", "mse": "squared"}


@dataclass(eq=False)
class BiasVariance(TableReport):
    """Result of :func:`bias_variance_decomposition` (see the module documentation).

    ``bias`` is the squared bias for the squared loss and the share of biased test points for
    the 0-1 loss; ``variance_unbiased`` / ``variance_biased`` (0-1 loss only, else None) are
    Domingos' parts of ``variance``; ``main_prediction``, ``point_bias`` and ``point_variance``
    are per test point."""

    loss: str
    expected_loss: float
    bias: float
    variance: float
    variance_unbiased: float | None
    variance_biased: float | None
    main_prediction: np.ndarray = field(repr=False)
    point_bias: np.ndarray = field(repr=False)
    point_variance: np.ndarray = field(repr=False)
    settings: dict = field(default_factory=dict)

    @property
    def net_variance(self) -> float:
        """V_unbiased − V_biased (0-1 loss), the variance's net contribution to the loss; the
        variance itself for the squared loss."""
        if self.variance_unbiased is None:
            return self.variance
        return self.variance_unbiased - self.variance_biased

    def to_dict(self) -> dict:
        return {"loss": self.loss, "expected_loss": self.expected_loss, "bias": self.bias, "variance": self.variance,
                "variance_unbiased": self.variance_unbiased, "variance_biased": self.variance_biased,
                "settings": dict(self.settings)}

    def table(self, *, digits: int = 4):
        rows = [["expected loss", self.expected_loss],
                ["bias²" if self.loss == "squared" else "bias", self.bias], ["variance", self.variance]]
        if self.variance_unbiased is not None:
            rows += [["variance (unbiased points)", self.variance_unbiased],
                     ["variance (biased points)", self.variance_biased]]
        return Table(["term", "value"], rows, digits=digits,
                     title=f"bias–variance decomposition, {self.loss} loss, {self.settings.get('n_rounds')} "
                           "bootstrap rounds")


def _loss(loss: str) -> str:
    if not isinstance(loss, str) or loss not in _ALIASES:
        raise usage_error("loss", f"one of {', '.join(LOSSES)} (or mlxtend's '0-1_loss', 'mse')", loss)
    return _ALIASES[loss]


def _rows(X: Any, name: str) -> int:
    if isinstance(X, (str, bytes)) or not (hasattr(X, "__len__") or hasattr(X, "shape")):
        raise InputError(f"expected rows of features, found {type(X).__name__}", field=name)
    n = X.shape[0] if hasattr(X, "shape") and len(getattr(X, "shape", ())) else len(X)
    return int(n)


def _targets(y: Any, name: str, loss: str) -> np.ndarray:
    if loss == "squared":
        return check_scores(y, name, exact=False)
    return check_labels(y, name)


def _check_rounds(n_rounds: Any) -> int:
    return check_count(n_rounds, "n_rounds", 1, 10**6)


def _check_seed(random_state: Any) -> int | None:
    if isinstance(random_state, np.random.Generator):  # a Generator is not reproducible across rounds here
        raise usage_error("random_state", "None or an int >= 0 and < 4294967296", random_state)
    return check_seed(random_state, "random_state")


def _predictions(model: Any, X_train: Any, y_train: np.ndarray, X_test: Any, n_test: int, n_rounds: int,
                 seed: int | None, fit_params: dict) -> list[np.ndarray]:
    rng = np.random.RandomState(seed)
    n = len(y_train)
    out = []
    for _ in range(n_rounds):  # one fit per round
        index = rng.randint(0, n, size=n)
        fitted = sc.clone(model)
        fitted.fit(sc.take(X_train, index), y_train[index], **fit_params)
        pred = np.asarray(fitted.predict(X_test))
        if pred.shape[0] != n_test or pred.ndim != 1:
            raise InputError(f"the model predicted shape {pred.shape} for {n_test} test rows", field="model")
        out.append(pred)
    return out


def bias_variance_decomposition(model: Any, X_train: Any, y_train: Any, X_test: Any, y_test: Any, *,
                                loss: str = "0-1", n_rounds: int = 200, random_state: int | None = None,
                                fit_params: dict | None = None) -> BiasVariance:
    """Decompose the test loss of ``model`` (any object with ``fit`` and ``predict``) into bias
    and variance over ``n_rounds`` bootstrap fits (see the module documentation).

    ``loss``: ``"0-1"`` (classes; any labels) or ``"squared"`` (numbers); mlxtend's names
    ``"0-1_loss"`` and ``"mse"`` are accepted. ``random_state``: the seed of the bootstrap draws
    (mlxtend's ``random_seed``); ``fit_params`` go to every ``fit``.
    """
    kind = _loss(loss)
    rounds = _check_rounds(n_rounds)
    seed = _check_seed(random_state)
    if not hasattr(model, "fit") or not hasattr(model, "predict"):
        raise UsageError(f"expected a model with fit() and predict(), found {type(model).__name__}")
    if fit_params is not None and not isinstance(fit_params, dict):
        raise usage_error("fit_params", "a dict", fit_params)
    train_y, test_y = _targets(y_train, "y_train", kind), _targets(y_test, "y_test", kind)
    if _rows(X_train, "X_train") != len(train_y):
        raise InputError(f"y_train has {len(train_y)} values, expected {_rows(X_train, 'X_train')} (the rows of "
                         "X_train)", field="y_train")
    if _rows(X_test, "X_test") != len(test_y):
        raise InputError(f"y_test has {len(test_y)} values, expected {_rows(X_test, 'X_test')} (the rows of "
                         "X_test)", field="y_test")
    if len(train_y) == 0 or len(test_y) == 0:
        raise InputError("no samples", field="y_train" if len(train_y) == 0 else "y_test")
    preds = _predictions(model, X_train, train_y, X_test, len(test_y), rounds, seed, dict(fit_params or {}))
    settings = {"loss": kind, "n_rounds": rounds, "random_state": seed, "n_train": len(train_y),
                "n_test": len(test_y), "draws": "numpy.random.RandomState(random_state).randint(0, n_train, n_train)"}
    if kind == "squared":
        P = np.vstack([check_scores(p, "predictions", exact=False) for p in preds])
        expected = float(np.mean([np.mean((row - test_y) ** 2) for row in P]))
        main = np.mean(P, axis=0)
        point_bias = (main - test_y) ** 2
        bias = float(np.sum(point_bias) / test_y.size)
        variance = float(np.sum((main - P) ** 2) / P.size)
        return BiasVariance("squared", expected, bias, variance, None, None, main, point_bias,
                            np.mean((main - P) ** 2, axis=0), settings)
    classes, codes = encode_labels((test_y, "y_test"), *((p, "predictions") for p in preds))
    truth, P = codes[0], np.vstack(codes[1:])
    k, n_test = len(classes), len(truth)
    counts = np.bincount((np.arange(n_test)[None, :] * k + P).reshape(-1), minlength=n_test * k).reshape(n_test, k)
    main = np.argmax(counts, axis=1)  # ties: the smallest label
    expected = float(np.mean([np.mean(row != truth) for row in P]))
    biased = main != truth
    point_variance = (P != main).sum(axis=0).astype(np.float64) / rounds
    variance = float(point_variance.sum() / n_test)
    return BiasVariance("0-1", expected, float(np.sum(biased) / n_test), variance,
                        float(point_variance[~biased].sum() / n_test), float(point_variance[biased].sum() / n_test),
                        np.asarray(classes, dtype=object)[main] if test_y.dtype == object
                        else np.asarray(classes)[main], biased.astype(np.float64), point_variance, settings)


@dataclass(eq=False)
class BiasVarianceCurve(TableReport):
    """Bias–variance decompositions at each value ``x`` of the parameter ``param``."""

    param: str
    x: list
    results: list[BiasVariance] = field(repr=False)

    @property
    def loss(self) -> np.ndarray:
        return np.array([r.expected_loss for r in self.results])

    @property
    def bias(self) -> np.ndarray:
        return np.array([r.bias for r in self.results])

    @property
    def variance(self) -> np.ndarray:
        return np.array([r.variance for r in self.results])

    def table(self, *, digits: int = 4):
        rows = [[v if isinstance(v, (int, float, str)) else repr(v), r.expected_loss, r.bias, r.variance]
                for v, r in zip(self.x, self.results)]
        kind = self.results[0].loss if self.results else ""
        return Table([self.param, "expected loss", "bias²" if kind == "squared" else "bias", "variance"], rows,
                     title=f"bias–variance over {self.param} ({kind} loss)", digits=digits)


def bias_variance_curve(model: Any, X_train: Any, y_train: Any, X_test: Any, y_test: Any, *, param: str,
                        values: Sequence[Any], loss: str = "0-1", n_rounds: int = 200,
                        random_state: int | None = None, fit_params: dict | None = None) -> BiasVarianceCurve:
    """:func:`bias_variance_decomposition` of ``model`` with ``param`` set to each of ``values``
    (``set_params`` on a clone, or a factory called as ``model(**{param: value})``), with the
    same bootstrap draws at every value (the same ``random_state``): the bias–variance trade-off
    as model capacity grows (Hastie, Tibshirani & Friedman 2009, §7.3)."""
    if not isinstance(param, str) or not param:
        raise usage_error("param", "a parameter name", param)
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise usage_error("values", "a list of parameter values", values)
    values = list(values)
    if not values:
        raise UsageError("values: no parameter value to try")
    results = [bias_variance_decomposition(sc.configured(model, {param: v}), X_train, y_train, X_test, y_test,
                                           loss=loss, n_rounds=n_rounds, random_state=random_state,
                                           fit_params=fit_params) for v in values]
    return BiasVarianceCurve(param, values, results)
