"""The protocols name their metrics through the one registry: canonical texts with parameters,
aliases and Measure values are accepted, and results are addressed by any of them."""

import numpy as np
import pytest

from cranfield.errors import MeasureError
from cranfield.measures.base import parse_measure
from cranfield.protocols.corrected_ttest import corrected_ttest
from cranfield.protocols.cross_validation import cross_validate

sklearn = pytest.importorskip("sklearn")
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.naive_bayes import GaussianNB  # noqa: E402


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] + rng.normal(scale=1.0, size=120) > 0).astype(int)
    return X, y


def test_metrics_by_canonical_text_alias_and_value(data):
    X, y = data
    metrics = ["AUC", ("fbeta", {"beta": 2}), "fbeta(beta=0.5)", parse_measure("Youden-J", area="classification")]
    a = cross_validate(LogisticRegression(), X, y, metrics=metrics, cv=4, random_state=1)
    b = cross_validate(GaussianNB(), X, y, metrics=metrics, cv=4, random_state=1)
    assert list(a.metrics) == ["roc_auc", "fbeta(beta=2)", "fbeta(beta=0.5)", "informedness"]
    assert a["auc"] == a["roc_auc"] and a["fbeta(beta=2.0)"] == a["fbeta(beta=2)"]
    assert a["fbeta(beta=0.5)"] != a["fbeta(beta=2)"]
    r = corrected_ttest(a, b, metric="fbeta(beta=2.0)")
    assert r.metric == "fbeta(beta=2)"
    with pytest.raises(MeasureError, match="unknown classification measure 'aucc'; did you mean auc"):
        cross_validate(GaussianNB(), X, y, metrics=["aucc"], cv=4)
