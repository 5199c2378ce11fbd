"""Bias–variance decomposition against mlxtend's bias_variance_decomp (same seeds, ==)."""

import numpy as np
import pytest

from cranfield.errors import InputError, UsageError
from cranfield.protocols.bias_variance import bias_variance_curve, bias_variance_decomposition

mlxtend = pytest.importorskip("mlxtend.evaluate")
pytest.importorskip("sklearn")
from sklearn.linear_model import LinearRegression  # noqa: E402
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor  # noqa: E402


def _classification(n=160, seed=0, classes=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(scale=0.8, size=n) > 0).astype(int)
    if classes == 3:
        y = y + (X[:, 2] > 0.8)
    return X[40:], y[40:], X[:40], y[:40]


@pytest.mark.parametrize("seed, depth", [(3, 2), (7, None)])
def test_zero_one_equal_to_mlxtend(seed, depth):
    X, y, Xt, yt = _classification(seed=seed)
    model = DecisionTreeClassifier(max_depth=depth, random_state=0)
    ours = bias_variance_decomposition(model, X, y, Xt, yt, loss="0-1", n_rounds=25, random_state=seed)
    assert not hasattr(model, "tree_")  # the model passed in is never fitted (mlxtend fits it)
    theirs = mlxtend.bias_variance_decomp(model, X, y, Xt, yt, loss="0-1_loss", num_rounds=25, random_seed=seed)
    assert (ours.expected_loss, ours.bias, ours.variance) == theirs
    # Domingos (2000), two classes and no noise term: loss = bias + V_unbiased − V_biased
    assert ours.expected_loss == pytest.approx(ours.bias + ours.net_variance, abs=1e-15)


def test_zero_one_multiclass_and_string_labels():
    X, y, Xt, yt = _classification(seed=1, classes=3)
    model = DecisionTreeClassifier(max_depth=3, random_state=0)
    theirs = mlxtend.bias_variance_decomp(model, X, y, Xt, yt, num_rounds=15, random_seed=2)
    ours = bias_variance_decomposition(model, X, y, Xt, yt, n_rounds=15, random_state=2)
    assert (ours.expected_loss, ours.bias, ours.variance) == theirs
    assert ours.expected_loss <= ours.bias + ours.net_variance + 1e-15  # Domingos: ≤ with more than two classes
    names = np.array(["ant", "bee", "cat"])
    named = bias_variance_decomposition(model, X, names[y], Xt, names[yt], n_rounds=15, random_state=2)
    assert (named.expected_loss, named.bias, named.variance) == theirs
    assert set(named.main_prediction.tolist()) <= set(names)


@pytest.mark.parametrize("model", [LinearRegression(), DecisionTreeRegressor(max_depth=3, random_state=0)])
def test_squared_equal_to_mlxtend(model):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(150, 3))
    y = X @ [1.0, -2.0, 0.5] + rng.normal(size=150)
    theirs = mlxtend.bias_variance_decomp(model, X[30:], y[30:], X[:30], y[:30], loss="mse", num_rounds=20,
                                          random_seed=9)
    ours = bias_variance_decomposition(model, X[30:], y[30:], X[:30], y[:30], loss="squared", n_rounds=20,
                                       random_state=9)
    assert (ours.expected_loss, ours.bias, ours.variance) == theirs
    # squared loss: loss = bias² + variance, three sums of the same terms grouped differently
    assert ours.expected_loss == pytest.approx(ours.bias + ours.variance, rel=1e-13)
    assert ours.settings["random_state"] == 9 and ours.settings["n_rounds"] == 20


def test_curve_and_table():
    X, y, Xt, yt = _classification(seed=4)
    curve = bias_variance_curve(DecisionTreeClassifier(random_state=0), X, y, Xt, yt, param="max_depth",
                                values=[1, 3, 8], n_rounds=8, random_state=1)
    single = bias_variance_decomposition(DecisionTreeClassifier(max_depth=3, random_state=0), X, y, Xt, yt,
                                         n_rounds=8, random_state=1)
    assert curve.loss[1] == single.expected_loss and curve.variance[1] == single.variance
    assert "max_depth" in curve.render("csv")
    assert "variance" in single.render("csv")


def test_bad_input():
    X, y, Xt, yt = _classification()
    model = DecisionTreeClassifier()
    with pytest.raises(UsageError, match="loss"):
        bias_variance_decomposition(model, X, y, Xt, yt, loss="hinge")
    with pytest.raises(UsageError, match="n_rounds"):
        bias_variance_decomposition(model, X, y, Xt, yt, n_rounds=0)
    with pytest.raises(UsageError, match="random_state"):
        bias_variance_decomposition(model, X, y, Xt, yt, random_state=-1)
    with pytest.raises(UsageError, match="fit"):
        bias_variance_decomposition(object(), X, y, Xt, yt)
    with pytest.raises(InputError, match="rows of X_train") as error:
        bias_variance_decomposition(model, X, y[:-1], Xt, yt)
    assert error.value.field == "y_train"
    with pytest.raises(InputError, match="finite") as error:
        bias_variance_decomposition(LinearRegression(), X, np.where(y > 0, np.nan, 1.0), Xt, yt, loss="squared")
    assert error.value.field == "y_train"
    with pytest.raises(UsageError, match="values"):
        bias_variance_curve(model, X, y, Xt, yt, param="max_depth", values=[])


def test_plot_draws_loss_bias_variance():
    pytest.importorskip("matplotlib")
    from cranfield.plots import bias_variance_plot

    X, y, Xt, yt = _classification(seed=6)
    curve = bias_variance_curve(DecisionTreeClassifier(random_state=0), X, y, Xt, yt, param="max_depth",
                                values=[1, 4], n_rounds=4, random_state=0)
    figure = bias_variance_plot(curve)
    (ax,) = figure.axes
    assert [line.get_label() for line in ax.lines] == ["expected loss", "bias", "variance"]
    assert list(ax.lines[2].get_ydata()) == list(curve.variance)
    with pytest.raises(UsageError, match="BiasVarianceCurve"):
        bias_variance_plot({"x": [1]})
