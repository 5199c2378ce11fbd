"""scikit-learn-style Display objects (issue 27, item 5): ``from_predictions``,
``from_estimator``, ``plot(ax=)`` returning the display with ``figure_``, ``ax_``, ``line_``;
the curve values equal scikit-learn's ``roc_curve`` / ``precision_recall_curve`` /
``det_curve`` (``==``) on inputs with ties and weights."""

import numpy as np
import pytest
from sklearn import metrics
from sklearn.linear_model import LogisticRegression

from cranfield import plots
from cranfield.errors import UsageError


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 300)
    score = np.round(0.6 * y + rng.random(300), 1)  # ties
    return y, score, rng.integers(1, 4, 300)


@pytest.mark.parametrize("weighted", [False, True])
def test_values_equal_scikit_learn(data, weighted):
    y, score, w = data
    w = w if weighted else None
    roc = plots.RocCurveDisplay.from_predictions(y, score, sample_weight=w)
    fpr, tpr, _ = metrics.roc_curve(y, score, sample_weight=w)  # drop_intermediate=True, as the display
    assert roc.fpr.tolist() == fpr.tolist() and roc.tpr.tolist() == tpr.tolist()
    # the areas are summed in another order than scikit-learn's (as in tests/classification/test_curves.py)
    assert roc.roc_auc == pytest.approx(metrics.roc_auc_score(y, score, sample_weight=w), rel=0, abs=1e-14)
    pr = plots.PrecisionRecallDisplay.from_predictions(y, score, sample_weight=w)
    precision, recall, _ = metrics.precision_recall_curve(y, score, sample_weight=w)
    assert pr.precision.tolist() == precision.tolist() and pr.recall.tolist() == recall.tolist()
    # AP sums the same terms in another order than scikit-learn (see tests/classification/test_curves.py)
    assert pr.average_precision == pytest.approx(metrics.average_precision_score(y, score, sample_weight=w),
                                                 rel=0, abs=1e-14)
    det = plots.DetCurveDisplay.from_predictions(y, score, sample_weight=w)
    fpr, fnr, _ = metrics.det_curve(y, score, sample_weight=w)
    assert det.fpr.tolist() == fpr.tolist() and det.fnr.tolist() == fnr.tolist()


@pytest.mark.parametrize("display", ["RocCurveDisplay", "PrecisionRecallDisplay", "DetCurveDisplay"])
def test_plot_returns_the_display_with_figure_axes_and_line(data, display):
    from matplotlib.figure import Figure

    y, score, _ = data
    cls = getattr(plots, display)
    shown = cls.from_predictions(y, score, name="mine")
    assert isinstance(shown.figure_, Figure) and shown.ax_.figure is shown.figure_
    assert shown.line_ in shown.ax_.lines and "mine" in shown.line_.get_label()
    figure = Figure()
    ax = figure.add_subplot()
    again = shown.plot(ax=ax)
    assert again is shown and shown.ax_ is ax and shown.figure_ is figure and shown.line_ in ax.lines
    # built from the points alone, as scikit-learn's constructors
    points = {a: getattr(shown, a) for a in cls._points}
    bare = cls(**points, name="bare").plot()
    assert bare.line_.get_label() == "bare" and isinstance(bare.figure_, Figure)


def test_from_estimator(data):
    y, score, _ = data
    X = np.column_stack([score, np.sin(np.arange(len(y)))])
    model = LogisticRegression().fit(X, y)
    shown = plots.RocCurveDisplay.from_estimator(model, X, y)
    fpr, tpr, _ = metrics.roc_curve(y, model.predict_proba(X)[:, 1])
    assert shown.fpr.tolist() == fpr.tolist() and shown.tpr.tolist() == tpr.tolist()
    assert "LogisticRegression" in shown.line_.get_label()
    det = plots.DetCurveDisplay.from_estimator(model, X, y, response_method="decision_function")
    fpr, fnr, _ = metrics.det_curve(y, model.decision_function(X))
    assert det.fpr.tolist() == fpr.tolist() and det.fnr.tolist() == fnr.tolist()
    with pytest.raises(UsageError, match="response_method"):
        plots.RocCurveDisplay.from_estimator(object(), X, y)
