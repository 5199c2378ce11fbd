"""Two-way ANOVA against R's aov (one Rscript call) and statsmodels' anova_lm; the mixed model
against the ANOVA it equals in a balanced design."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield.errors import InputError, UsageError
from cranfield.stats.anova import mixed_model, two_way_anova

from ._r import r_vector, run_r


def _matrices():
    rng = np.random.default_rng(21)
    out = []
    for m, n in ((2, 5), (4, 25), (7, 50)):
        out.append(rng.normal(size=(m, n)) * 0.1 + np.linspace(0, 0.1, m)[:, None] + rng.normal(size=n) * 0.2)
    return out


@pytest.fixture(scope="module")
def r_aov():
    lines = []
    for i, x in enumerate(_matrices()):
        m, n = x.shape
        lines.append(f"f <- data.frame(score = {r_vector(x.ravel())}, system = factor(rep(1:{m}, each = {n})), "
                     f"topic = factor(rep(1:{n}, times = {m}))); a <- anova(aov(score ~ system + topic, data = f))")
        lines.append(f"out('ss{i}', a[['Sum Sq']]); out('df{i}', a[['Df']]); out('F{i}', a[['F value']][1:2]); "
                     f"out('p{i}', a[['Pr(>F)']][1:2])")
    return run_r("\n".join(lines))


def test_two_way_anova_equals_r_aov(r_aov):
    for i, x in enumerate(_matrices()):
        t = two_way_anova(x)
        order = ("system", "topic", "residual")
        assert [t.rows[k]["df"] for k in order] == r_aov[f"df{i}"].tolist()
        # sums of squares by another summation order (R: QR of the model matrix): 1e-12 relative
        np.testing.assert_allclose([t.rows[k]["ss"] for k in order], r_aov[f"ss{i}"], rtol=1e-12)
        np.testing.assert_allclose([t.rows[k]["F"] for k in order[:2]], r_aov[f"F{i}"], rtol=1e-11)
        np.testing.assert_allclose([t.rows[k]["p"] for k in order[:2]], r_aov[f"p{i}"], rtol=1e-9)


def test_two_way_anova_equals_statsmodels_and_system_cis():
    import pandas as pd
    import statsmodels.api as sm
    import statsmodels.formula.api as smf
    from scipy import stats

    x = _matrices()[1]
    m, n = x.shape
    frame = pd.DataFrame({"score": x.ravel(), "system": np.repeat(np.arange(m), n), "topic": np.tile(np.arange(n), m)})
    fit = smf.ols("score ~ C(system) + C(topic)", frame).fit()
    table = sm.stats.anova_lm(fit)
    t = two_way_anova(x, systems=list("abcd"))
    assert t.rows["system"]["F"] == pytest.approx(table.loc["C(system)", "F"], rel=1e-10)
    assert t.rows["residual"]["ms"] == pytest.approx(fit.mse_resid, rel=1e-10)
    half = stats.t.ppf(0.975, (m - 1) * (n - 1)) * np.sqrt(fit.mse_resid / n)
    for effect, mean in zip(t.systems, x.mean(axis=1)):
        assert (effect.estimate, effect.ci_low, effect.ci_high) == pytest.approx((mean, mean - half, mean + half), rel=1e-10)
    assert [e.system for e in t.systems] == list("abcd")


def _long(x, collections=None):
    import pandas as pd

    m, n = x.shape
    frame = pd.DataFrame({"score": x.ravel(), "system": np.repeat([f"s{i}" for i in range(m)], n),
                          "topic": np.tile([f"t{j:02d}" for j in range(n)], m)})
    if collections:
        frame["collection"] = np.tile([f"c{j * collections // n}" for j in range(n)], m)
    return frame


def test_mixed_model_equals_the_anova_in_a_balanced_design():
    x = _matrices()[1]
    n = x.shape[1]
    r = mixed_model(_long(x))
    t = two_way_anova(x)
    assert r.reference == "s0" and r.converged
    for effect, diff in zip(r.effects, x.mean(axis=1)[1:] - x.mean(axis=1)[0]):
        assert effect.estimate == pytest.approx(diff, abs=1e-10)  # GLS of a balanced design: the mean difference
        # REML's residual variance is the ANOVA's MSE at the optimum; the optimizer stops at ~1e-5
        assert effect.se == pytest.approx(np.sqrt(2 * t.rows["residual"]["ms"] / n), rel=1e-4)
    assert r.variance_components["residual"] == pytest.approx(t.rows["residual"]["ms"], rel=1e-4)
    # topic variance = (MS_topic - MS_E) / m (method of moments = REML when positive)
    expected = (t.rows["topic"]["ms"] - t.rows["residual"]["ms"]) / x.shape[0]
    assert r.variance_components["topic"] == pytest.approx(expected, rel=1e-3)


def test_mixed_model_over_several_collections():
    x = _matrices()[2]
    r = mixed_model(_long(x, collections=3))
    assert set(r.variance_components) == {"residual", "topic", "collection"}
    for effect, diff in zip(r.effects, x.mean(axis=1)[1:] - x.mean(axis=1)[0]):
        assert effect.estimate == pytest.approx(diff, abs=1e-8) and effect.ci_low < effect.estimate < effect.ci_high
    nested = {c: {s: {t: v for t, v in zip(g.topic, g.score)} for s, g in f.groupby("system")}
              for c, f in _long(x, collections=3).groupby("collection")}
    again = mixed_model(nested)
    assert [e.estimate for e in again.effects] == pytest.approx([e.estimate for e in r.effects], abs=1e-8)


def test_anova_errors():
    with pytest.raises(InputError):
        two_way_anova([[1.0, 2.0]])
    with pytest.raises(UsageError):
        mixed_model(_long(_matrices()[0]), reference="nope")
