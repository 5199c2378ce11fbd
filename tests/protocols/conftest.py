import numpy as np
import pytest


@pytest.fixture(scope="session")
def cancer():
    """scikit-learn's breast cancer data (ships inside the package; no download), standardised."""
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    return X, y


@pytest.fixture(scope="session")
def small_cancer(cancer):
    X, y = cancer
    rng = np.random.default_rng(0)
    keep = np.sort(rng.choice(len(y), 200, replace=False))
    return X[keep][:, :8], y[keep]


@pytest.fixture()
def logreg():
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(max_iter=2000)
