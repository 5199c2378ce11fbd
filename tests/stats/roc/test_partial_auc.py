"""Partial AUC and McClish's correction (cranfield.stats.roc.partial_auc) against R's pROC."""

from __future__ import annotations

import pytest

from cranfield.stats.roc import partial_auc

from ._proc import BOUNDS, DATA, _close


@pytest.mark.slow  # the pROC oracle: one Rscript call per session (30-40 s)
@pytest.mark.parametrize("name", list(DATA))
@pytest.mark.parametrize("focus", ["specificity", "sensitivity"])
def test_partial_auc_and_mcclish(oracle, name, focus):
    y, a, _ = DATA[name]
    for i, bounds in enumerate(BOUNDS, start=1):
        # a sum of trapezoids over the same points, accumulated in another order: ≤ 16 ulps of 1
        _close(partial_auc(y, a, bounds=bounds, focus=focus), oracle[f"{name}.pauc.{i}.{focus}"], 16)
        _close(partial_auc(y, a, bounds=bounds, focus=focus, correct=True, allow_invalid_correction=True),
               oracle[f"{name}.pauc_corrected.{i}.{focus}"], 64)  # the ratio amplifies the sum's error
