"""cranfield: evaluate retrieval and detection systems.

The import is light: public names are resolved on first use (PEP 562), so ``import cranfield``
loads neither pyarrow, pandas, scipy nor matplotlib. Every public function and class raises only
:class:`CranfieldError` (see :mod:`cranfield._boundary`).
"""

from __future__ import annotations

import importlib
from typing import Any

from . import _boundary
from ._version import __version__
from .errors import CranfieldError, InputError, MeasureError, UsageError


# public name -> module that defines it; one line per name, grouped by area.
_LAZY: dict[str, str] = {
    # retrieval
    "Qrels": "cranfield.retrieval.qrels",
    "Run": "cranfield.retrieval.run",
    "read_qrels": "cranfield.retrieval.qrels",
    "read_run": "cranfield.retrieval.run",
    "evaluate": "cranfield.retrieval.evaluate",
    "DiversityQrels": "cranfield.retrieval.diversity",
    "read_diversity_qrels": "cranfield.retrieval.diversity",
    "evaluate_diversity": "cranfield.retrieval.diversity",
    "evaluate_large": "cranfield.retrieval.large",
    "Evaluator": "cranfield.retrieval.evaluate",
    "Results": "cranfield.retrieval.results",
    "Measure": "cranfield.measures.base",
    "parse_measure": "cranfield.measures.base",
    "parse_measures": "cranfield.measures.base",
    "registry": "cranfield.measures.registry",
    "correlation": "cranfield.correlation",
    "fusion": "cranfield.fusion",
    "fuse": "cranfield.fusion",
    "pr_table": "cranfield.retrieval.pr_table",
    "iprec_table": "cranfield.retrieval.pr_table",
    "with_columns": "cranfield.io.ecosystem",
    # classification
    "ConfusionMatrix": "cranfield.classification.confusion",
    "Curve": "cranfield.classification.curves",
    "roc_curve": "cranfield.classification.curves",
    "pr_curve": "cranfield.classification.curves",
    "det_curve": "cranfield.classification.curves",
    "roc_auc": "cranfield.classification.curves",
    "average_precision": "cranfield.classification.curves",
    "interpolated_average_precision": "cranfield.classification.curves",
    "equal_error_rate": "cranfield.classification.curves",
    "threshold_sweep": "cranfield.classification.curves",
    "best_threshold": "cranfield.classification.thresholds",
    "operating_point": "cranfield.classification.thresholds",
    "OperatingPoint": "cranfield.classification.thresholds",
    "log_loss": "cranfield.classification.probabilistic",
    "brier_score": "cranfield.classification.probabilistic",
    "roc_auc_multiclass": "cranfield.classification.probabilistic",
    # statistics
    "compare": "cranfield.stats.compare",
    "compare_values": "cranfield.stats.compare",
    "Comparison": "cranfield.stats.compare",
    "experiment": "cranfield.stats.experiment",
    # protocols
    "cross_validate": "cranfield.protocols.cross_validation",
    "tune": "cranfield.protocols.tuning",
    "tune_on_queries": "cranfield.protocols.retrieval",
    "corrected_ttest": "cranfield.protocols.corrected_ttest",
    "validation_curve": "cranfield.protocols.curves",
    "learning_curve": "cranfield.protocols.curves",
    "holdout": "cranfield.protocols.splits",
    "train_validation_test": "cranfield.protocols.splits",
    "kfold": "cranfield.protocols.splits",
    "group_kfold": "cranfield.protocols.splits",
    "query_holdout": "cranfield.protocols.splits",
    "query_kfold": "cranfield.protocols.splits",
}

# the entries of _LAZY that are modules themselves (the others are names defined in their module)
_MODULES = frozenset({"registry", "correlation", "fusion"})

# Only cranfield errors escape the public API: every public callable here and in the public
# modules (cranfield.stats, .classification, ...) turns foreign exceptions into CranfieldError.
_boundary.install(_LAZY.values())

__all__ = ["__version__", "CranfieldError", "InputError", "MeasureError", "UsageError", *_LAZY]


def __getattr__(name: str) -> Any:
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module 'cranfield' has no attribute {name!r}")
    module = importlib.import_module(module_name)
    value = module if name in _MODULES else getattr(module, name)
    value = _boundary.guard(value)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
