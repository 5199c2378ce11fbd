"""The empirical ROC curve (cranfield.stats.roc.curve) against R's pROC: coordinates and errors."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield.errors import InputError, UsageError
from cranfield.stats.roc import partial_auc, roc_points, roc_power, roc_test, sensitivity_at, specificity_at

from ._proc import DATA, SPECIFICITIES, _close


@pytest.mark.slow  # the pROC oracle: one Rscript call per session (30-40 s)
@pytest.mark.parametrize("name", list(DATA))
def test_coordinates(oracle, name):
    y, a, _ = DATA[name]
    # interpolation x·(Δy)/(Δx): pROC orders the products differently, hence a few ulps
    _close(sensitivity_at(y, a, SPECIFICITIES), oracle[f"{name}.se_at_sp"], 4)
    _close(specificity_at(y, a, SPECIFICITIES), oracle[f"{name}.sp_at_se"], 4)


def test_curve_path_and_errors():
    points = roc_points([0, 1, 0, 1], [0.1, 0.4, 0.4, 0.9])
    assert points.specificity.tolist() == [0.0, 0.5, 1.0, 1.0]
    assert points.sensitivity.tolist() == [1.0, 1.0, 0.5, 0.0]
    with pytest.raises(InputError, match="at least one positive"):
        partial_auc([1, 1], [0.1, 0.2])
    with pytest.raises(UsageError, match="bounds"):
        partial_auc([0, 1], [0.1, 0.2], bounds=(0.8, 0.8))
    with pytest.raises(InputError, match="below the diagonal"):
        partial_auc([0, 0, 1, 1], [0.9, 0.8, 0.1, 0.2], bounds=(1, 0.5), correct=True)
    with pytest.raises(UsageError, match="two-sided"):
        roc_test([0, 1], [0.1, 0.2], [0.3, 0.4], y_true_b=[0, 1], method="venkatraman", alternative="less")
    with pytest.raises(UsageError, match="exactly one"):
        roc_power(auc=0.8, n_cases=10, power=0.8)
    with pytest.raises(InputError, match="finite"):
        sensitivity_at([0, 1], [0.1, np.nan], 0.5)
