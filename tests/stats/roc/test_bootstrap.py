"""Bootstrap intervals of ROC statistics (cranfield.stats.roc.bootstrap) against R's pROC (Monte Carlo bounds)."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield.errors import UsageError
from cranfield.stats.roc import auc_bootstrap_ci, sensitivity_ci, specificity_ci

from ._proc import DATA


@pytest.mark.slow  # the pROC oracle: one Rscript call per session (30-40 s)
def test_bootstrap_intervals(oracle):
    name = "d3"
    y, a, _ = DATA[name]
    auc = auc_bootstrap_ci(y, a, n_resamples=2000, random_state=11)
    low, median, high = oracle[f"{name}.ci_auc"]  # pROC: the 2.5 %, 50 % and 97.5 % quantiles of the resamples
    # percentiles of 2000 resamples: the Monte Carlo error of a 2.5 % quantile is about 0.1 × the
    # bootstrap sd, i.e. 2.5 % of the 95 % interval's width; 8 % of the width is over 3 of them
    width = high - low
    for ours, theirs in ((auc.low, low), (auc.median, median), (auc.high, high)):
        assert abs(ours - theirs) <= 0.08 * width, (ours, theirs)
    se = sensitivity_ci(y, a, [0.5, 0.8, 0.9], n_resamples=2000, random_state=11)
    sp = specificity_ci(y, a, [0.5, 0.8, 0.9], n_resamples=2000, random_state=11)
    for ours, key in ((se, "ci_se"), (sp, "ci_sp")):
        theirs = oracle[f"{name}.{key}"].reshape(3, 3, order="F")  # rows: the points; columns: low, median, high
        scale = np.maximum(theirs[:, 2] - theirs[:, 0], 0.05)
        for column, values in enumerate((ours.low, ours.median, ours.high)):
            assert np.all(np.abs(values - theirs[:, column]) <= 0.15 * scale), (key, column, values, theirs[:, column])


def test_roc_plot_band():
    pytest.importorskip("matplotlib")
    from matplotlib.collections import PolyCollection

    from cranfield.plots import roc_plot

    y, a, _ = DATA["d3"]
    figure = roc_plot(y, {"a": a}, band=0.9, band_resamples=200)
    bands = [c for c in figure.axes[0].collections if isinstance(c, PolyCollection)]
    assert len(bands) == 1
    with pytest.raises(UsageError, match="band"):
        roc_plot(y, a, band=0.9, sample_weight=np.ones(y.size))
