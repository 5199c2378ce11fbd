"""The confusion matrix: binary or N classes, any hashable labels, weighted or not.

``matrix[i, j]`` is the (weighted) number of samples whose actual class is ``labels[i]`` and
whose predicted class is ``labels[j]`` (rows = actual, as scikit-learn). A matrix is *binary*
when it has a positive class (``positive``); then ``tp``, ``precision``… are numbers; otherwise
they are arrays with one value per class (one-vs-rest). Every rate of :mod:`.rates` is available
as an attribute under all its names (``cm.recall``, ``cm.sensitivity``, ``cm.tpr``…) and through
:meth:`ConfusionMatrix.rate` (averages, ``zero_division``, ``beta``).
"""

from __future__ import annotations

import html
from typing import Any, Hashable, Sequence

import numpy as np

from .._params import check_choice
from ..errors import InputError, UsageError
from ..io.tables import Table
from ._validation import check_lengths, check_weights, encode_labels, resolve_pos_label, warn_undefined
from .rates import RATES, compute_rate, counts_from_matrix, get_rate

__all__ = ["ConfusionMatrix", "SUMMARY_RATES"]

# rates shown by summary(), to_dict() and the command line, in this order
SUMMARY_RATES = ("precision", "recall", "specificity", "npv", "fpr", "fnr", "fdr", "for", "accuracy",
                 "balanced_accuracy", "f1", "mcc", "kappa", "informedness", "markedness", "lr_plus",
                 "lr_minus", "prevalence")


class ConfusionMatrix:
    """A confusion matrix with labels (rows = actual, columns = predicted).

    Build it with :meth:`from_labels`, :meth:`from_counts` or :meth:`from_matrix`.

    >>> cm = ConfusionMatrix.from_counts(tp=8, fp=2, fn=4, tn=86)
    >>> cm.precision, cm.recall, cm.specificity
    (0.8, 0.6666666666666666, 0.9772727272727273)
    >>> cm.sensitivity == cm.tpr == cm.recall
    True
    """

    __slots__ = ("_labels", "_matrix", "_positive")

    def __init__(self, matrix: Any, labels: Sequence[Hashable], *, pos_label: Hashable | None = None) -> None:
        m = np.array(matrix, copy=True)
        if m.ndim != 2 or m.shape[0] != m.shape[1]:
            raise InputError(f"expected a square matrix, found shape {m.shape}", field="matrix")
        if m.dtype.kind not in "iuf" or m.dtype.kind == "b":
            m = m.astype(np.float64)
        if m.dtype.kind == "f" and (not np.isfinite(m).all() or (m < 0).any()):
            raise InputError("expected finite non-negative counts", field="matrix")
        if m.dtype.kind == "i" and (m < 0).any():
            raise InputError("expected non-negative counts", field="matrix")
        labels = list(labels)
        if len(labels) != m.shape[0]:
            raise InputError(f"{len(labels)} labels for a {m.shape[0]}×{m.shape[0]} matrix", field="labels")
        if len(set(labels)) != len(labels):
            raise UsageError(f"labels contains duplicates: {labels!r}")
        positive = resolve_pos_label(labels, pos_label, required=False) if len(labels) == 2 else None
        if pos_label is not None and len(labels) != 2:
            if pos_label not in labels:
                raise UsageError(f"pos_label={pos_label!r} is not one of the labels {labels!r}")
            raise UsageError(f"pos_label makes sense for two classes only, found {len(labels)}; use one_vs_rest()")
        m.setflags(write=False)
        self._matrix = m
        self._labels = labels
        self._positive = None if positive is None else labels.index(positive)

    # -- construction ---------------------------------------------------------------------
    @classmethod
    def from_labels(cls, y_true: Any, y_pred: Any, labels: Sequence[Hashable] | None = None,
                    sample_weight: Any = None, *, pos_label: Hashable | None = None) -> "ConfusionMatrix":
        """Count (weighted) pairs (actual, predicted). ``labels`` fixes the classes and their order;
        a value outside it is an error. Without it, the classes are the sorted union of the values."""
        classes, (t, p) = encode_labels((y_true, "y_true"), (y_pred, "y_pred"), labels=labels)
        n = check_lengths(y_true=t, y_pred=p)
        weights = check_weights(sample_weight, n)
        if labels is None and len(classes) == 1 and _is_binary_code(classes[0]):
            # one class only, 0, 1 or -1 (or a bool): still a binary problem, as scikit-learn reads it
            found = classes[0]
            classes = [False, True] if isinstance(found, (bool, np.bool_)) else ([-1, 1] if found == -1 else [0, 1])
            t, p = t + classes.index(found), p + classes.index(found)  # all codes were 0
        k = len(classes)
        if k == 0:
            raise InputError("no samples and no labels: cannot build a confusion matrix", field="y_true")
        flat = np.bincount(t * k + p, weights=weights, minlength=k * k)
        if weights is not None and not np.isfinite(flat).all():
            raise InputError("the weighted counts overflow float64 (sums of sample weights beyond 1.8e308); "
                             "divide the weights by a constant: the rates do not change", field="sample_weight")
        return cls(flat.reshape(k, k), classes, pos_label=pos_label)

    @classmethod
    def from_counts(cls, *, tp: float, fp: float, fn: float, tn: float) -> "ConfusionMatrix":
        """A binary matrix with labels ``[0, 1]`` (1 is positive): ``[[tn, fp], [fn, tp]]``."""
        return cls(np.array([[tn, fp], [fn, tp]]), [0, 1], pos_label=1)

    @classmethod
    def from_matrix(cls, matrix: Any, labels: Sequence[Hashable], rows: str = "actual", *,
                    pos_label: Hashable | None = None) -> "ConfusionMatrix":
        """From an N×N array whose rows are the actual (``rows="actual"``) or predicted classes."""
        check_choice(rows, "rows", ("actual", "predicted"))
        m = np.asarray(matrix)
        return cls(m.T if rows == "predicted" else m, labels, pos_label=pos_label)

    # -- basic properties -----------------------------------------------------------------
    @property
    def labels(self) -> list:
        return list(self._labels)

    @property
    def matrix(self) -> np.ndarray:
        """The N×N matrix, rows = actual, columns = predicted (read-only)."""
        return self._matrix

    @property
    def n_classes(self) -> int:
        return len(self._labels)

    @property
    def positive(self) -> Hashable | None:
        """The positive label of a binary matrix, else None."""
        return None if self._positive is None else self._labels[self._positive]

    @property
    def is_binary(self) -> bool:
        return self._positive is not None

    @property
    def total(self) -> float:
        return self._matrix.sum().item()

    @property
    def support(self) -> np.ndarray:
        """Actual (weighted) count of each class."""
        return self._matrix.sum(axis=1)

    def one_vs_rest(self, label: Hashable) -> "ConfusionMatrix":
        """The 2×2 matrix of ``label`` against all other classes (labels ``[False, True]``)."""
        if label not in self._labels:
            raise UsageError(f"{label!r} is not one of the labels {self._labels!r}")
        c = counts_from_matrix(self._matrix)
        i = self._labels.index(label)
        m = np.array([[c.tn[i], c.fp[i]], [c.fn[i], c.tp[i]]])
        return ConfusionMatrix(m.astype(self._matrix.dtype), [False, True], pos_label=True)

    def normalized(self, by: str = "actual") -> np.ndarray:
        """The matrix divided by its row sums (``"actual"``), column sums (``"predicted"``) or
        total (``"all"``); rows/columns that sum to 0 stay 0."""
        m = self._matrix.astype(np.float64)
        axis = {"actual": 1, "predicted": 0, "all": None}
        check_choice(by, "by", tuple(axis))
        sums = m.sum(axis=axis[by], keepdims=True)
        return np.divide(m, sums, out=np.zeros_like(m), where=sums != 0)

    # -- rates ----------------------------------------------------------------------------
    def rate(self, name: str, *, average: str | None = "auto", zero_division="warn", **params) -> Any:
        """The rate ``name`` (any alias). ``average="auto"`` means "binary" for a binary matrix
        and None (one value per class, in label order) otherwise; also "micro", "macro",
        "weighted". Matrix-wide rates (accuracy, MCC, kappa, balanced accuracy) are one number.
        ``zero_division``: "warn" (scikit-learn's default value and an UndefinedMeasureWarning)
        or the number to use for 0/0. ``beta`` for F-beta."""
        rate = get_rate(name)
        if average == "auto":
            average = "binary" if self.is_binary else None
        value, undefined = compute_rate(rate, self._matrix, positive=self._positive, average=average,
                                        zero_division=zero_division, **params)
        if undefined and zero_division == "warn":
            warn_undefined(f"{rate.name} is undefined (0/0) on this confusion matrix; set to {rate.undefined}. "
                           "Pass zero_division= to choose the value and silence this warning.")
        return value

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            get_rate(name)
        except Exception:
            raise AttributeError(f"'ConfusionMatrix' object has no attribute {name!r}") from None
        return self.rate(name)

    def __dir__(self) -> list[str]:
        names = {n for rate in RATES for n in (rate.name, *rate.aliases) if n.isidentifier()}
        return sorted(set(super().__dir__()) | names)

    @property
    def majority_accuracy(self) -> float:
        """Accuracy of always predicting the most frequent actual class (the baseline)."""
        total = self.total
        return float(self.support.max() / total) if total else 0.0

    def to_dict(self, *, zero_division="warn") -> dict:
        """``{"labels", "matrix", "positive", "metrics", "baselines"}`` (JSON-ready). Metrics of an
        N-class matrix are macro averages (accuracy, MCC, kappa, balanced accuracy: matrix-wide)."""
        average = "auto" if self.is_binary else "macro"
        metrics = {name: _json_number(self.rate(name, average=average, zero_division=zero_division))
                   for name in SUMMARY_RATES}
        return {
            "labels": [_json_label(v) for v in self._labels],
            "matrix": self._matrix.tolist(),
            "positive": _json_label(self.positive),
            "metrics": metrics,
            "baselines": {"majority_accuracy": self.majority_accuracy},
        }

    def table(self, *, digits: int = 4):
        """The matrix as a :class:`cranfield.io.tables.Table` (rows = actual)."""
        rows = [[f"actual {label}", *row] for label, row in zip(self._labels, self._matrix.tolist())]
        return Table(["", *[f"predicted {label}" for label in self._labels]], rows, digits=digits)

    # -- dunder ---------------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ConfusionMatrix):
            return NotImplemented
        return (self._labels == other._labels and self._positive == other._positive
                and np.array_equal(self._matrix, other._matrix))

    __hash__ = None  # type: ignore[assignment]

    def __add__(self, other: "ConfusionMatrix") -> "ConfusionMatrix":
        if not isinstance(other, ConfusionMatrix) or other._labels != self._labels:
            raise UsageError("only confusion matrices with the same labels can be added")
        return ConfusionMatrix(self._matrix + other._matrix, self._labels, pos_label=self.positive)

    def __repr__(self) -> str:
        body = np.array2string(self._matrix, prefix="  ")
        pos = f", positive={self.positive!r}" if self.is_binary else ""
        return f"ConfusionMatrix(labels={self._labels!r}{pos},\n  matrix={body})"

    def _repr_html_(self) -> str:
        head = "".join(f"<th>predicted {html.escape(str(v))}</th>" for v in self._labels)
        rows = "".join(
            f"<tr><th>actual {html.escape(str(label))}</th>" + "".join(f"<td>{_fmt(v)}</td>" for v in row) + "</tr>"
            for label, row in zip(self._labels, self._matrix.tolist()))
        rates = ""
        if self.is_binary:
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                items = [(n, self.rate(n)) for n in ("precision", "recall", "specificity", "f1", "mcc", "accuracy")]
            rates = "<p>" + ", ".join(f"{n} = {_fmt(v)}" for n, v in items) + "</p>"
        return (f"<table><thead><tr><th></th>{head}</tr></thead><tbody>{rows}</tbody></table>{rates}")


def _is_binary_code(value: Any) -> bool:
    return isinstance(value, (int, float, bool, np.integer, np.floating, np.bool_)) and value in (0, 1, -1)


def _fmt(value: float) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def _json_label(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    return value


def _json_number(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return [_json_number(v) for v in value.tolist()]
    value = float(value)
    return None if np.isnan(value) else (value if np.isfinite(value) else None)


def rate_of_labels(rate, y_true: Any, y_pred: Any, *, sample_weight: Any = None,
                   labels: Sequence[Hashable] | None = None, pos_label: Hashable | None = None,
                   average: str | None = "binary", zero_division="warn", **params) -> Any:
    """The rate ``rate`` (a :class:`~cranfield.classification.rates.RateDef`) of one label per sample:
    the computation of the label measures of :mod:`cranfield.classification.measures`."""
    select = None
    if labels is not None and (rate.scope == "matrix" or average != "binary"):
        # scikit-learn's labels=: the classes to report (a subset, or classes that never occur), in that
        # order. Counts rates: samples of the other classes still count as errors of these; whole-matrix
        # rates (kappa, MCC, accuracy...): the matrix restricted to these classes (the other samples dropped)
        found, _ = encode_labels((y_true, "y_true"), (y_pred, "y_pred"))
        chosen = list(labels)
        if len(set(chosen)) != len(chosen):
            raise UsageError(f"labels contains duplicates: {chosen!r}")
        labels = chosen + [c for c in found if c not in set(chosen)]
        select = list(range(len(chosen)))
    cm = ConfusionMatrix.from_labels(y_true, y_pred, labels=labels, sample_weight=sample_weight,
                                     pos_label=pos_label if average == "binary" and select is None else None)
    positive = None if cm.positive is None else cm.labels.index(cm.positive)
    matrix = cm.matrix
    if select is not None and rate.scope == "matrix":
        matrix, select = matrix[: len(select), : len(select)], None
    value, undefined = compute_rate(rate, matrix, positive=positive, average=average,
                                    zero_division=zero_division, select=select, **params)
    if undefined and zero_division == "warn":
        warn_undefined(f"{rate.name} is undefined (0/0); set to {rate.undefined}. "
                       "Pass zero_division= to choose the value and silence this warning.")
    return value
