"""Online evaluation: click logs, interleaving, click models and user simulation."""

from __future__ import annotations

from .._lazy import lazy_attributes

# h5: interleaving, click models, simulation (the lead merges this with h4's logs/metrics/A-B names)
_LAZY: dict[str, str] = {
    **{name: "interleaving" for name in ("interleave", "interleaving_credit", "interleaving_outcome",
                                         "multileaving_preferences", "ranked_lists", "sign_test_pvalue")},
    **{name: "click_models" for name in ("ClickModel", "fit_click_model", "fit_click_model_dask",
                                         "evaluate_click_model", "inferred_relevance", "write_inferred_qrels")},
    **{name: "simulation" for name in ("simulate_clicks", "simulate_log", "simulate_experiment",
                                       "cranfield_online_demo")},
}

__all__ = sorted(_LAZY)

__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, globals())
