"""The vectorised calibration bootstrap (issue 27, item 7): the same resamples as one statistic
per resample (the old loop, kept for the other statistics and run here as the reference), the
same interval ends — ``==`` for ECE and MCE (the loop's sums and arithmetic), 1e-13 (relative) for the Newton fits,
which stop one or two steps earlier (documented in classification/_bootstrap_kernels.py) — and
progress reported as blocks of resamples are done. Speed: benchmarks/bench_calibration_bootstrap.py."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield.classification import calibration as cal
from cranfield.errors import InputError


def _loop(monkeypatch, *args, **kwargs):
    with monkeypatch.context() as patch:
        patch.setattr(cal, "_vectorised", lambda *a, **k: None)
        return cal.calibration_bootstrap(*args, **kwargs)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    p = rng.random(700)
    y = (rng.random(700) < p ** 1.3).astype(int)
    return y, p, rng.integers(1, 4, 700).astype(float)


@pytest.mark.parametrize(("statistic", "options", "rel"), [
    ("ece", {"n_bins": 10}, 0.0), ("ece", {}, 0.0), ("mce", {"n_bins": 7}, 0.0),
    ("slope", {}, 1e-13), ("intercept", {}, 1e-13), ("intercept_in_the_large", {}, 1e-13),
    ("slope", {"clip": 1e-6}, 1e-13),
])
@pytest.mark.parametrize("weighted", [False, True])
def test_vectorised_equals_the_loop(data, monkeypatch, statistic, options, rel, weighted):
    y, p, w = data
    weights = w if weighted else None
    fast = cal.calibration_bootstrap(y, p, statistic=statistic, n_resamples=300, random_state=5,
                                     sample_weight=weights, **options)
    slow = _loop(monkeypatch, y, p, statistic=statistic, n_resamples=300, random_state=5, sample_weight=weights,
                 **options)
    assert fast.estimate == slow.estimate
    if rel == 0.0:
        assert (fast.low, fast.high) == (slow.low, slow.high)
    else:
        assert fast.low == pytest.approx(slow.low, rel=rel, abs=0) and fast.high == pytest.approx(slow.high, rel=rel,
                                                                                                    abs=0)


def test_pos_label_and_string_labels(data, monkeypatch):
    y, p, _ = data
    labels = np.where(y == 1, "spam", "ham")
    fast = cal.calibration_bootstrap(labels, p, statistic="ece", n_resamples=200, pos_label="spam", n_bins=10)
    slow = _loop(monkeypatch, labels, p, statistic="ece", n_resamples=200, pos_label="spam", n_bins=10)
    assert (fast.low, fast.high) == (slow.low, slow.high)


def test_the_others_still_use_the_loop(data, monkeypatch):
    y, p, _ = data
    for statistic, options in (("ece", {"strategy": "quantile"}), ("adaptive_ece", {}), ("reliability", {})):
        a = cal.calibration_bootstrap(y, p, statistic=statistic, n_resamples=50, **options)
        b = _loop(monkeypatch, y, p, statistic=statistic, n_resamples=50, **options)
        assert (a.low, a.high) == (b.low, b.high)


def test_progress_counts_every_resample(data):
    y, p, _ = data
    for statistic, options in (("ece", {}), ("slope", {}), ("adaptive_ece", {})):
        done = []
        cal.calibration_bootstrap(y, p, statistic=statistic, n_resamples=250, progress=done.append, **options)
        assert sum(done) == 250


def test_separable_resample_is_an_error():
    y = np.array([0, 0, 0, 1, 1, 1])
    p = np.array([0.1, 0.2, 0.3, 0.7, 0.8, 0.35])
    with pytest.raises(InputError, match="no finite maximum"):
        cal.calibration_bootstrap(y, p, statistic="slope", n_resamples=200)


def test_the_command_reports_bootstrap_progress(tmp_path, data):
    """``calibration --bootstrap`` advances a progress step per statistic (shown on a terminal
    only, by cranfield.report.progress.steps)."""
    from cranfield.classification.table_reports import calibration_report

    y, p, _ = data
    path = tmp_path / "preds.csv"
    path.write_text("y,prob\n" + "".join(f"{a},{b!r}\n" for a, b in zip(y.tolist(), p.tolist())))
    shown: dict = {}

    def step(description, total=None):
        shown[description] = 0

        def advance(k=1):
            shown[description] += k
        return advance

    report = calibration_report(str(path), truth="y", score="prob", bootstrap=120, step=step)
    assert shown == {"bootstrap of the ece (120 resamples)": 120, "bootstrap of the slope (120 resamples)": 120}
    assert set(report["intervals"]) == {"ece", "slope"}
