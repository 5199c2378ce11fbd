"""Cumulative-gain, lift and CAP curves: hand-worked examples, the definitions computed by brute
force (a loop over the distinct scores, top-x shares counted directly), the accuracy ratio against
scikit-learn's roc_auc_score (Gini = 2 AUC - 1), and the `cranfield curves --only` figures."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

import cranfield.cli
from cranfield.classification import accuracy_ratio, cap_curve, gain_curve, lift_curve
from cranfield.errors import InputError


def test_hand_worked_example_with_ties():
    # scores 0.9 (+), 0.5 (+, -) tied, 0.2 (-), 0.1 (+): 5 samples, 3 positives
    y, s = [1, 1, 0, 0, 1], [0.9, 0.5, 0.5, 0.2, 0.1]
    g = gain_curve(y, s)
    assert g.x.tolist() == [0.0, 0.2, 0.6, 0.8, 1.0]  # the tied pair enters together
    assert g.y.tolist() == [0.0, 1 / 3, 2 / 3, 2 / 3, 1.0]
    assert g.thresholds.tolist() == [np.inf, 0.9, 0.5, 0.2, 0.1]
    lift = lift_curve(y, s)
    assert lift.y.tolist() == [(1 / 3) / 0.2, (2 / 3) / 0.6, (2 / 3) / 0.8, 1.0]
    assert cap_curve(y, s).y.tolist() == g.y.tolist() and cap_curve(y, s).kind == "cap"
    # CAP area by hand: trapezoids 0.2*(1/3)/2 + 0.4*(1/3+2/3)/2 + 0.2*(2/3) + 0.2*(2/3+1)/2 = 0.6333...
    area = 0.2 * (1 / 3) / 2 + 0.4 * 1 / 2 + 0.2 * (2 / 3) + 0.2 * (5 / 3) / 2
    assert accuracy_ratio(y, s) == pytest.approx((area - 0.5) / ((1 - 0.6) / 2), rel=1e-15)


def _brute(y, s, w):
    """Per distinct score (descending), the weighted shares of samples and positives scoring >= it."""
    xs, gains = [0.0], [0.0]
    for t in sorted(set(s.tolist()), reverse=True):
        top = s >= t
        xs.append(w[top].sum() / w.sum())
        gains.append(w[top & (y == 1)].sum() / w[y == 1].sum())
    return np.array(xs), np.array(gains)


@pytest.mark.parametrize("seed", range(6))
def test_definitions_and_accuracy_ratio_against_scikit_learn(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 300))
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    s = np.round(rng.normal(y * 0.7, 1.0), 1)  # rounding makes ties
    w = rng.integers(1, 4, n).astype(float) if seed % 2 else np.ones(n)
    x_ref, gain_ref = _brute(y, s, w)
    g = gain_curve(y, s, sample_weight=w if seed % 2 else None)
    assert g.x == pytest.approx(x_ref, rel=1e-14) and g.y == pytest.approx(gain_ref, rel=1e-14)
    lift = lift_curve(y, s, sample_weight=w if seed % 2 else None)
    assert lift.y == pytest.approx(gain_ref[1:] / x_ref[1:], rel=1e-14)
    ar = accuracy_ratio(y, s, sample_weight=w if seed % 2 else None)
    gini = 2 * roc_auc_score(y, s, sample_weight=w if seed % 2 else None) - 1
    assert ar == pytest.approx(gini, abs=1e-12)  # a different sum of the same area: float reordering only


def test_integer_weights_equal_repeated_samples():
    y, s, w = np.array([1, 0, 1, 0, 1]), np.array([0.3, 0.8, 0.8, 0.1, 0.5]), np.array([2, 1, 3, 1, 1])
    weighted = gain_curve(y, s, sample_weight=w)
    repeated = gain_curve(np.repeat(y, w), np.repeat(s, w))
    assert weighted.x.tolist() == repeated.x.tolist() and weighted.y.tolist() == repeated.y.tolist()


def test_policies():
    with pytest.raises(InputError, match="positive"):
        gain_curve([0, 0], [0.1, 0.2])
    with pytest.raises(InputError, match="negative"):
        accuracy_ratio([1, 1], [0.1, 0.2])
    assert accuracy_ratio([0, 1, 0, 1], [0.1, 0.9, 0.2, 0.8]) == 1.0  # perfect ordering


def test_cli_only_lift_gain_cap(tmp_path):
    from cranfield import datasets

    status = cranfield.cli.main(["curves", str(datasets.detection()), "--truth", "malignant", "--score",
                                 "naive_bayes", "--only", "gain", "--only", "lift", "--only", "cap", "-o",
                                 str(tmp_path), "--format", "svg", "-q"])
    assert status == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cap.svg", "gain.svg", "lift.svg"]
    assert "AR = " in (tmp_path / "cap.svg").read_text()
