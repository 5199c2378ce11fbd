"""Validation and learning curves equal scikit-learn's on the same splits; plots render."""

import numpy as np
import pytest

from cranfield.errors import UsageError
from cranfield.protocols.curves import learning_curve, validation_curve
from cranfield.protocols.splits import kfold


def test_validation_curve_equals_sklearn(small_cancer, logreg):
    from sklearn.model_selection import validation_curve as sk_validation_curve

    X, y = small_cancer
    folds = kfold(y, n_splits=3, stratify=True, random_state=0)
    values = [0.001, 0.1, 10.0]
    ours = validation_curve(logreg, X, y, param="C", values=values, metric="roc_auc", cv=folds)
    train, valid = sk_validation_curve(logreg, X, y, param_name="C", param_range=values, cv=folds, scoring="roc_auc")
    np.testing.assert_allclose(ours.train, train, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours.validation, valid, rtol=0, atol=1e-12)
    assert ours.train_mean.shape == (3,) and ours.kind == "validation"


def test_learning_curve_equals_sklearn_without_shuffle(small_cancer, logreg):
    from sklearn.model_selection import learning_curve as sk_learning_curve

    X, y = small_cancer
    folds = kfold(y, n_splits=3, stratify=True, random_state=0)
    sizes = (0.3, 0.6, 1.0)
    ours = learning_curve(logreg, X, y, train_sizes=sizes, metric="accuracy", cv=folds, shuffle=False)
    n, train, valid = sk_learning_curve(logreg, X, y, train_sizes=sizes, cv=folds, scoring="accuracy")
    assert np.array_equal(ours.x, n)
    np.testing.assert_allclose(ours.train, train, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours.validation, valid, rtol=0, atol=1e-12)
    shuffled = learning_curve(logreg, X, y, train_sizes=[40, 80], metric="accuracy", cv=3, random_state=1)
    again = learning_curve(logreg, X, y, train_sizes=[40, 80], metric="accuracy", cv=3, random_state=1)
    assert np.array_equal(shuffled.validation, again.validation) and list(shuffled.x) == [40, 80]
    with pytest.raises(UsageError):
        learning_curve(logreg, X, y, train_sizes=[0.0, 0.5], cv=3)
    with pytest.raises(UsageError):
        learning_curve(logreg, X, y, train_sizes=[10_000], cv=3)


def test_exports_and_plots(small_cancer, logreg, tmp_path):
    import matplotlib

    X, y = small_cancer
    curve = validation_curve(logreg, X, y, param="C", values=[0.01, 1.0, 100.0], metric="f1", cv=3, random_state=0)
    frame = curve.to_pandas()
    assert len(frame) == 9 and list(frame.columns) == ["C", "fold", "train", "validation"]
    assert "validation mean" in curve.render("markdown") and "<table>" in curve._repr_html_()
    from cranfield.plots import learning_curve_plot, validation_curve_plot

    fig = validation_curve_plot(curve)
    assert isinstance(fig, matplotlib.figure.Figure) and fig.axes[0].get_xscale() == "log"
    fig.savefig(tmp_path / "vc.png")
    lc = learning_curve(logreg, X, y, train_sizes=[0.5, 1.0], cv=3, random_state=0)
    assert learning_curve_plot(lc).axes[0].get_xlabel() == "training samples"
    import matplotlib.pyplot as plt

    plt.close("all")
