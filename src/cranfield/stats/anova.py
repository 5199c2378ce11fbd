"""Systems × topics: two-way ANOVA and a linear mixed model, for one or several collections.

Per-query scores vary more between topics than between systems. Modelling the topic as a
factor (two-way ANOVA, Tague-Sutcliffe & Blustein 1995; Carterette 2012) or as a random effect
(linear mixed model; Carterette 2012, Ferro & Silvello 2016) removes that variance from the
comparison of systems, and over several test collections adds the collection as a further
random effect — one analysis for all collections at once.

* :func:`two_way_anova` — system + topic, one score per cell (numpy/scipy): the ANOVA table and
  each system's mean with a CI from the residual mean square;
* :func:`mixed_model` — score ~ system + (1 | topic) [+ (1 | collection)] by REML with
  statsmodels (``pip install 'cranfield[stats]'``): each system's effect relative to a
  reference system, with Wald CIs, and the variance components.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError, UsageError
from ._interval import check_confidence

__all__ = ["AnovaTable", "SystemEffect", "two_way_anova", "MixedModelResult", "mixed_model"]


@dataclass(frozen=True)
class SystemEffect:
    """One system's estimate (mean score, or effect against the reference) with its CI."""

    system: str
    estimate: float
    ci_low: float
    ci_high: float
    se: float


@dataclass(frozen=True)
class AnovaTable:
    """Two-way ANOVA without replication (system + topic).

    ``rows``: ``{"system" | "topic" | "residual": {"df", "ss", "ms", "F", "p"}}`` (F and p absent
    for the residual); ``systems``: each system's mean with its CI; ``omega_squared``: ω² of the
    system effect (Sakai 2018, §5), the share of the variance the systems explain.
    """

    rows: dict
    systems: list
    confidence: float
    n_topics: int
    omega_squared: float


def _matrix(values, systems) -> tuple[np.ndarray, list[str]]:
    if hasattr(values, "values") and hasattr(values, "systems") and callable(values.values):
        raise UsageError("pass comparison.values(measure) and systems=comparison.systems")
    x = np.asarray(values, dtype=np.float64) if not isinstance(values, (str, bytes)) else None
    if x is None or x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 2:
        raise InputError(f"expected a (systems, topics) matrix of at least 2 x 2, found {getattr(x, 'shape', values)!r}",
                         field="values")
    if not np.all(np.isfinite(x)):
        raise InputError("expected finite scores, found NaN or infinity", field="values")
    names = [str(s) for s in systems] if systems is not None else [f"s{i + 1}" for i in range(x.shape[0])]
    if len(names) != x.shape[0]:
        raise InputError(f"expected {x.shape[0]} system names, found {len(names)}", field="systems")
    return x, names


def two_way_anova(values, *, systems=None, confidence: float = 0.95) -> AnovaTable:
    r"""Two-way ANOVA of a (systems, topics) matrix of scores: :math:`x_{ij} = \mu + \alpha_i +
    \beta_j + \varepsilon_{ij}`.

    :math:`SS_S = n\sum_i(\bar x_{i\cdot}-\bar x)^2` (df :math:`m-1`), :math:`SS_T =
    m\sum_j(\bar x_{\cdot j}-\bar x)^2` (df :math:`n-1`), :math:`SS_E` the rest (df
    :math:`(m-1)(n-1)`); :math:`F = MS/MS_E`. System means with CIs :math:`\bar x_{i\cdot} \pm
    t_{df_E}\sqrt{MS_E/n}` (the interval of the model with topic effects; Carterette 2012). Same
    table as R's ``anova(aov(score ~ system + topic))`` and statsmodels' ``anova_lm``.
    :math:`\omega^2 = (SS_S - (m-1)MS_E)/(SS_S + SS_T + SS_E + MS_E)`.
    """
    from scipy import stats

    confidence = check_confidence(confidence)
    x, names = _matrix(values, systems)
    m, n = x.shape
    grand = x.mean()
    sys_means, topic_means = x.mean(axis=1), x.mean(axis=0)
    ss_s = n * float(((sys_means - grand) ** 2).sum())
    ss_t = m * float(((topic_means - grand) ** 2).sum())
    ss_e = float(((x - sys_means[:, None] - topic_means[None, :] + grand) ** 2).sum())
    df_s, df_t, df_e = m - 1, n - 1, (m - 1) * (n - 1)
    ms_e = ss_e / df_e
    rows = {"residual": {"df": df_e, "ss": ss_e, "ms": ms_e}}
    for name, ss, df in (("system", ss_s, df_s), ("topic", ss_t, df_t)):
        ms = ss / df
        f = ms / ms_e if ms_e > 0 else (np.inf if ms > 0 else np.nan)
        p = float(stats.f.sf(f, df, df_e)) if np.isfinite(f) else (0.0 if f == np.inf else 1.0)
        rows[name] = {"df": df, "ss": ss, "ms": ms, "F": float(f), "p": p}
    rows = {k: rows[k] for k in ("system", "topic", "residual")}
    se = float(np.sqrt(ms_e / n))
    half = float(stats.t.ppf(0.5 + confidence / 2, df_e)) * se
    effects = [SystemEffect(s, float(v), float(v - half), float(v + half), se) for s, v in zip(names, sys_means)]
    omega = (ss_s - df_s * ms_e) / (ss_s + ss_t + ss_e + ms_e)
    return AnovaTable(rows, effects, confidence, n, float(omega))


@dataclass(frozen=True)
class MixedModelResult:
    """Fixed system effects (against ``reference``) with Wald CIs, variance components, fit."""

    reference: str
    effects: list
    variance_components: dict
    confidence: float
    log_likelihood: float
    n_observations: int
    converged: bool


def _long_frame(data):
    """``data`` as (score, system, topic, collection-or-None) arrays."""
    if type(data).__name__ == "DataFrame" and hasattr(data, "columns"):
        cols = set(map(str, data.columns))
        missing = [c for c in ("system", "topic", "score") if c not in cols]
        if missing:
            raise InputError(f"expected columns system, topic, score (and optionally collection); missing {', '.join(missing)}",
                             source="data")
        collection = data["collection"].astype(str).to_numpy() if "collection" in cols else None
        return (data["score"].to_numpy(dtype=np.float64), data["system"].astype(str).to_numpy(),
                data["topic"].astype(str).to_numpy(), collection)
    if isinstance(data, dict):
        # {collection: {system: {topic: score}}}
        rows = [(float(v), str(s), f"{c}/{t}", str(c)) for c, per in data.items() for s, topics in per.items()
                for t, v in topics.items()]
        if not rows:
            raise InputError("expected {collection: {system: {topic: score}}} with some scores, found none", source="data")
        score, system, topic, collection = (np.array(col) for col in zip(*rows))
        return score.astype(np.float64), system, topic, collection
    raise InputError(f"expected a DataFrame (system, topic, score[, collection]) or {{collection: {{system: {{topic: "
                     f"score}}}}}}, found {type(data).__name__}", source="data")


def mixed_model(data, *, reference: str | None = None, confidence: float = 0.95) -> MixedModelResult:
    r"""Linear mixed model :math:`x = \mu + \alpha_{\text{system}} + b_{\text{topic}} +
    c_{\text{collection}} + \varepsilon` with random topic (and, with several collections,
    collection) intercepts, fitted by REML (statsmodels ``MixedLM``; Carterette 2012; Ferro &
    Silvello 2016).

    ``data``: a long DataFrame with columns ``system``, ``topic``, ``score`` and optionally
    ``collection`` (topics are then nested in collections), or ``{collection: {system: {topic:
    score}}}``. Returns each system's fixed effect against ``reference`` (default: the first
    system in sorted order) with Wald CIs :math:`\hat\alpha \pm z_{1-\alpha/2}\,SE`, and the
    variance components (topic, collection, residual). In a balanced single-collection design the
    effects are the differences of system means and their SEs those of the two-way ANOVA.
    """
    try:
        import pandas as pd
        import statsmodels.formula.api as smf
    except ImportError:  # pragma: no cover - depends on the environment
        raise UsageError("mixed_model needs statsmodels: pip install 'cranfield[stats]'") from None
    from scipy import special

    confidence = check_confidence(confidence)
    score, system, topic, collection = _long_frame(data)
    if not np.all(np.isfinite(score)):
        raise InputError("expected finite scores, found NaN or infinity", field="score")
    names = sorted(set(system))
    if len(names) < 2 or len(set(topic)) < 2:
        raise InputError(f"expected at least 2 systems and 2 topics, found {len(names)} and {len(set(topic))}", source="data")
    reference = names[0] if reference is None else str(reference)
    if reference not in names:
        raise UsageError(f"reference: {reference!r} is not one of the systems: {', '.join(names)}")
    several = collection is not None and len(set(collection)) > 1
    frame = pd.DataFrame({"score": score, "system": pd.Categorical(system, categories=[reference] +
                                                                    [s for s in names if s != reference]),
                          "topic": topic, "collection": collection if collection is not None else "all"})
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence chatter; ``converged`` says it
        if several:
            model = smf.mixedlm("score ~ system", frame, groups="collection", re_formula="1",
                                vc_formula={"topic": "0 + C(topic)"})
        else:
            model = smf.mixedlm("score ~ system", frame, groups="topic")
        fit = model.fit(reml=True)
    z = float(special.ndtri(0.5 + confidence / 2))
    effects = []
    for s in names:
        if s == reference:
            continue
        key = f"system[T.{s}]"
        est, se = float(fit.fe_params[key]), float(fit.bse_fe[key])
        effects.append(SystemEffect(s, est, est - z * se, est + z * se, se))
    components = {"residual": float(fit.scale)}
    if several:
        components["collection"] = float(fit.cov_re.iloc[0, 0])
        components["topic"] = float(np.asarray(fit.vcomp)[0])
    else:
        components["topic"] = float(fit.cov_re.iloc[0, 0])
    return MixedModelResult(reference, effects, components, confidence, float(fit.llf), len(score), bool(fit.converged))
