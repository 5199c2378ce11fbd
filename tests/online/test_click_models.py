"""Click models recover the parameters of simulated logs; Dask partitions give the in-memory fit
bit for bit; held-out perplexity and the inferred qrels.

Tolerances come from the sample size. Every simulated user examines rank 1 (γ₁ = 1), so a
pair's click-through rate at rank 1 is an unbiased estimate of its attractiveness α with
standard error ``sqrt(α(1 − α) / n₁)`` (n₁: impressions with the pair at rank 1). The maximum-
likelihood fit uses every rank, so it is asymptotically at least as precise: we allow 5 of
those standard errors (a false alarm per parameter has probability < 10⁻⁶ for a normal error).
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from cranfield.errors import InputError, UsageError
from cranfield.online.click_models import (
    ClickModel,
    evaluate_click_model,
    fit_click_model,
    inferred_relevance,
    write_inferred_qrels,
)
from cranfield.online.simulation import simulate_clicks

Q, D = 2, 4


def _simulated(model: str, n: int, seed: int = 0, **parameters):
    """A log of ``n`` impressions: a random query, its D documents in a random order."""
    rng = np.random.default_rng(seed)
    alpha = rng.uniform(0.15, 0.85, (Q, D))
    sigma = rng.uniform(0.2, 0.8, (Q, D))
    query = rng.integers(0, Q, n)
    order = np.argsort(rng.random((n, D)), axis=1)
    if model == "dbn":
        parameters["satisfaction"] = sigma[query[:, None], order]
    clicks = simulate_clicks(alpha[query[:, None], order], model=model, seed=seed + 1, **parameters)
    log = {"impression": np.repeat(np.arange(n), D), "query": np.repeat(query, D), "doc": order.ravel(),
           "rank": np.tile(np.arange(1, D + 1), n), "clicked": clicks.ravel()}
    first = np.zeros((Q, D))
    np.add.at(first, (query, order[:, 0]), 1)
    return log, alpha, sigma, first


def _tolerance(alpha, n_first):
    return 5 * np.sqrt(alpha * (1 - alpha) / n_first)


@pytest.mark.parametrize("model, parameters", [
    ("pbm", {"examination": [1.0, 0.7, 0.5, 0.35]}),
    ("cascade", {}),
    ("dcm", {"examination": [0.8, 0.6, 0.4, 0.3]}),
    ("ubm", {}),
    ("dbn", {"continuation": 0.7}),
])
def test_recovers_attractiveness(model, parameters):
    n = 20_000 if model == "cascade" else 6000
    log, alpha, sigma, n_first = _simulated(model, n, **parameters)
    fitted = fit_click_model(log, model=model, iterations=300, tol=1e-8)
    assert fitted.settings["converged"]
    estimate = fitted.attractiveness.reshape(Q, D)
    if model == "pbm":
        estimate = estimate * fitted.examination[1]  # PBM knows α·γ only up to a common scale
    if model == "ubm":
        estimate = estimate * fitted.examination[1, 0]
    assert np.all(np.abs(estimate - alpha) <= _tolerance(alpha, n_first)), (estimate - alpha, _tolerance(alpha, n_first))
    if model == "pbm":
        gamma = np.array(parameters["examination"])
        ratio = fitted.examination[1:] / fitted.examination[1]
        # γ_r/γ₁ from the CTR of all pairs at rank r against rank 1: n/D impressions per rank
        ctr = alpha.mean() * gamma
        assert np.all(np.abs(ratio - gamma) <= 5 * np.sqrt(ctr * (1 - ctr) / (n / D)) / ctr.min() * 2)
    if model == "dcm":
        lam = np.array(parameters["examination"])[:D - 1]  # λ of the last rank is not identified
        clicks_at = np.bincount(log["rank"][log["clicked"].astype(bool)], minlength=D + 1)[1:D]
        assert np.all(np.abs(fitted.examination[1:D] - lam) <= 5 * np.sqrt(lam * (1 - lam) / clicks_at))


def test_dbn_recovers_satisfaction_and_continuation():
    log, alpha, sigma, _ = _simulated("dbn", 8000, seed=3, continuation=0.7)
    fitted = fit_click_model(log, model="dbn", iterations=300, tol=1e-8)
    clicks = np.zeros((Q, D))
    np.add.at(clicks, (log["query"], log["doc"]), log["clicked"])
    # σ is seen only when the user would have clicked again; a click reveals it with probability
    # about γ·(1 − Π(1 − α) below) ≥ 0.7·0.15: n_eff ≥ 0.1 · clicks, 5 standard errors of that
    tolerance = 5 * np.sqrt(sigma * (1 - sigma) / (0.1 * clicks))
    assert np.all(np.abs(fitted.satisfaction.reshape(Q, D) - sigma) <= tolerance)
    transitions = (~log["clicked"].astype(bool)).sum()  # skips examined at least once go on with γ
    assert abs(fitted.continuation - 0.7) <= 5 * np.sqrt(0.7 * 0.3 / (0.2 * transitions))


def test_cascade_closed_form_by_hand():
    log = {"impression": [0, 0, 0, 1, 1, 2, 2], "query": [0] * 7, "doc": [0, 1, 2, 1, 0, 2, 1],
           "rank": [1, 2, 3, 1, 2, 1, 2], "clicked": [0, 1, 1, 0, 0, 1, 0]}
    fitted = fit_click_model(log, model="cascade")
    # rows up to each impression's first click: doc 0 seen twice, never clicked (clipped to 10⁻⁶);
    # doc 1 seen twice (impressions 0 and 1; below impression 2's first click it is not), clicked
    # once; doc 2 seen once (impression 2; below impression 0's first click it is not), clicked
    assert fitted.attractiveness.tolist() == [1e-6, 1 / 2, 1 - 1e-6]


def test_pbm_em_step_by_hand():
    # one pair, rank 1: a skip and a click; α₀ = γ₀ = 1/2: P(A | skip) = α(1 − γ)/(1 − αγ) = 1/3
    log = {"impression": [0, 1], "query": [0, 0], "doc": [0, 0], "rank": [1, 1], "clicked": [0, 1]}
    fitted = fit_click_model(log, model="pbm", iterations=1)
    assert fitted.attractiveness[0] == pytest.approx((1 + 1 / 3) / 2, abs=2.0 ** -50)
    assert fitted.examination[1] == pytest.approx((1 + 1 / 3) / 2, abs=2.0 ** -50)


def test_any_log_with_the_canonical_attributes():
    """A ClickLog (attributes, codes + ids), a dict of codes + ids and a dict of ids fit alike."""
    from types import SimpleNamespace

    log, *_ = _simulated("pbm", 500, seed=4, examination=[1.0, 0.6, 0.4, 0.3])
    ids = {"query_ids": np.array(["q0", "q1"]), "doc_ids": np.array(["a", "b", "c", "d"])}
    as_ids = {**log, "query": ids["query_ids"][log["query"]], "doc": ids["doc_ids"][log["doc"]],
              "impression": np.char.add("i", log["impression"].astype(str))}
    fits = [fit_click_model(form, model="dbn", iterations=5) for form in
            (SimpleNamespace(**log, **ids), {**log, **ids}, as_ids)]
    for other in fits[1:]:
        assert np.array_equal(other.attractiveness, fits[0].attractiveness)
        assert other.doc_ids[other.doc].tolist() == fits[0].doc_ids[fits[0].doc].tolist()


def test_held_out_perplexity_and_ctr():
    both, *_ = _simulated("pbm", 8000, seed=5, examination=[1.0, 0.6, 0.4, 0.3])
    half = both["impression"] < 4000
    log = {k: v[half] for k, v in both.items()}
    test = {k: v[~half] for k, v in both.items()}
    pbm = evaluate_click_model(fit_click_model(log, model="pbm"), test)
    shuffled = {**log, "doc": np.random.default_rng(0).permutation(log["doc"])}  # clicks no longer tied to documents
    naive = evaluate_click_model(fit_click_model(shuffled, model="pbm"), test)
    assert pbm["ranks"].tolist() == [1, 2, 3, 4]
    assert np.all((pbm["perplexity_by_rank"] >= 1) & (pbm["perplexity_by_rank"] <= 2))
    assert pbm["log_likelihood"] > naive["log_likelihood"]  # the true model explains the clicks better
    # predicted CTR by rank within 5 binomial standard errors of the observed one (4000 rows per rank)
    se = np.sqrt(pbm["observed_ctr"] * (1 - pbm["observed_ctr"]) / 4000)
    assert np.all(np.abs(pbm["observed_ctr"] - pbm["predicted_ctr"]) <= 5 * se)
    # perplexity at rank r by its definition, from the same rows
    fitted = fit_click_model(log, model="pbm")
    q = fitted.attractiveness[test["query"] * D + test["doc"]] * fitted.examination[test["rank"]]
    c = test["clicked"].astype(bool)
    at1 = test["rank"] == 1
    expected = 2 ** -np.mean(np.where(c[at1], np.log2(q[at1]), np.log2(1 - q[at1])))
    assert pbm["perplexity_by_rank"][0] == pytest.approx(expected, rel=1e-12)
    ll = np.where(c, np.log(q), np.log(1 - q)).sum() / 4000  # PBM: clicks independent given the ranks
    assert pbm["log_likelihood"] == pytest.approx(ll, rel=1e-12)


def test_inferred_qrels(tmp_path):
    log, *_ = _simulated("cascade", 3000, seed=2)
    log = {**log, "query_ids": np.array(["q1", "q2"]), "doc_ids": np.array(["a", "b", "c", "d"])}
    fitted = fit_click_model(log, model="cascade")
    table = inferred_relevance(fitted, thresholds=[0.3, 0.6])
    assert table["grade"].tolist() == np.searchsorted([0.3, 0.6], fitted.attractiveness, side="right").tolist()
    path = tmp_path / "inferred.qrels"
    assert write_inferred_qrels(fitted, path, thresholds=[0.3, 0.6]) == Q * D
    from cranfield.retrieval.qrels import read_qrels

    qrels = read_qrels(str(path))
    assert sorted(set(qrels.qid.to_pylist())) == ["q1", "q2"]
    assert sorted(qrels.rel.tolist()) == sorted(table["grade"].tolist())
    write_inferred_qrels(fitted, tmp_path / "p.qrels", probabilities=True)
    first = (tmp_path / "p.qrels").read_text().splitlines()[0].split()
    assert first[:3] == ["q1", "0", "a"] and float(first[3]) == pytest.approx(fitted.attractiveness[0], abs=1e-6)


def test_bad_input():
    with pytest.raises(UsageError):
        fit_click_model({}, model="nope")
    with pytest.raises(InputError, match="missing column"):
        fit_click_model({"impression": [0]}, model="pbm")
    bad = {"impression": [0, 0], "query": [0, 0], "doc": [0, 1], "rank": [2, 1], "clicked": [0, 1]}
    with pytest.raises(InputError, match="must increase"):
        fit_click_model(bad)
    split = {"impression": ["x", "y", "x"], "query": ["q"] * 3, "doc": ["a", "b", "c"], "rank": [1, 1, 2],
             "clicked": [0, 1, 0]}
    with pytest.raises(InputError, match="not contiguous"):
        fit_click_model(split)
    bad = {"impression": [0], "query": [0], "doc": [0], "rank": [1], "clicked": [2]}
    with pytest.raises(InputError, match="0 or 1"):
        fit_click_model(bad)
    with pytest.raises(UsageError):
        evaluate_click_model("model", bad)
    with pytest.raises(UsageError):
        inferred_relevance(ClickModel("pbm", np.zeros(1, int), np.zeros(1, int), np.ones(1) / 2), thresholds=[0.5, 0.2])


def test_dask_partitions_equal_in_memory():
    distributed = pytest.importorskip("distributed")
    dd = pytest.importorskip("dask.dataframe")
    import pandas as pd

    from cranfield.online.click_models import fit_click_model_dask

    log, *_ = _simulated("dbn", 1500, seed=9, continuation=0.7)
    frame = pd.DataFrame({k: np.asarray(v) for k, v in log.items()})
    frame.index = frame["impression"].to_numpy()
    parts = dd.from_pandas(frame, npartitions=3, sort=True)  # divisions on the impression: none is split
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        for model in ("pbm", "cascade", "dcm", "dbn"):
            memory = fit_click_model(log, model=model, iterations=8, tol=0)
            spread = fit_click_model_dask(parts, model=model, iterations=8, tol=0, client=client)
            assert spread.settings["partitions"] == 3
            for name in ("attractiveness", "satisfaction", "examination", "continuation"):
                a, b = getattr(memory, name), getattr(spread, name)
                assert (a is None and b is None) or np.array_equal(a, b, equal_nan=True), (model, name)
        shuffled = dd.from_pandas(frame.sample(frac=1, random_state=0), npartitions=2, sort=False)
        with pytest.raises(InputError):
            fit_click_model_dask(shuffled, model="pbm", iterations=2, client=client)


def test_click_model_command(tmp_path):
    """Needs the click-log reader (cranfield.online.logs) for its LOG argument."""
    pytest.importorskip("cranfield.online.logs")

    from click.testing import CliRunner

    from cranfield.cli import _registering_inputs
    from cranfield.cli.online_models_cmd import click_model

    log, *_ = _simulated("pbm", 600, seed=2, examination=[1.0, 0.6, 0.4, 0.3])
    path = tmp_path / "clicks.csv"
    rows = zip(log["impression"], log["query"], log["rank"], log["doc"], log["clicked"].astype(int))
    path.write_text("impression,query,rank,doc,clicked\n" + "".join(f"{i},q{q},{r},d{d},{c}\n" for i, q, r, d, c in rows))
    result = CliRunner().invoke(_registering_inputs(click_model), [
        str(path), "-m", "pbm", "-m", "cascade", "-f", "json", "--qrels-out", str(tmp_path / "inferred.qrels"),
        "--plot", str(tmp_path / "ctr.svg")])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    if not document["models"]["pbm"]["settings"]["converged"]:  # said on standard error too
        assert "cranfield: warning: the pbm click model did not converge" in result.stderr
    fitted = fit_click_model(log, model="pbm")
    assert document["models"]["pbm"]["evaluation"]["log_likelihood"] == pytest.approx(
        evaluate_click_model(fitted, log)["log_likelihood"], rel=1e-12)
    assert len((tmp_path / "inferred.qrels").read_text().splitlines()) == Q * D


def test_ctr_by_rank_plot(tmp_path):
    from cranfield.plots._base import save_figure
    from cranfield.plots.online_models import ctr_by_rank_plot

    log, *_ = _simulated("cascade", 400, seed=1)
    evaluations = [evaluate_click_model(fit_click_model(log, model=m, iterations=5), log) for m in ("pbm", "cascade")]
    figure = ctr_by_rank_plot(evaluations)
    ax = figure.axes[0]
    assert [bar.get_height() for bar in ax.patches] == pytest.approx(evaluations[0]["observed_ctr"].tolist())
    assert len(ax.lines) == 2
    assert save_figure(figure, tmp_path / "ctr.pdf").stat().st_size > 0
    with pytest.raises(UsageError):
        ctr_by_rank_plot({"model": "pbm"})


def test_not_converging_warns(tmp_path):
    """Issue 27: a click model that stops at its iteration limit warns (library: a
    ConvergenceWarning; command line: one line on standard error), not only ``converged`` false."""
    from click.testing import CliRunner

    from cranfield.cli import _registering_inputs
    from cranfield.cli.online_models_cmd import click_model
    from cranfield.online.click_models import ConvergenceWarning

    log, *_ = _simulated("pbm", 600, seed=2, examination=[1.0, 0.6, 0.4, 0.3])
    with pytest.warns(ConvergenceWarning, match=r"pbm click model did not converge: after 2 EM iterations"):
        fitted = fit_click_model(log, model="pbm", iterations=2)
    assert fitted.settings["converged"] is False
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        assert fit_click_model(log, model="cascade").settings["converged"]  # closed form: no warning
    path = tmp_path / "clicks.csv"
    rows = zip(log["impression"], log["query"], log["rank"], log["doc"], log["clicked"].astype(int))
    path.write_text("impression,query,rank,doc,clicked\n" + "".join(f"{i},q{q},{r},d{d},{c}\n" for i, q, r, d, c in rows))
    result = CliRunner().invoke(_registering_inputs(click_model), [str(path), "-m", "pbm", "--iterations", "2",
                                                                   "-f", "json"])
    assert result.exit_code == 0
    assert result.stderr.count("did not converge") == 1
    assert "raise --iterations (or --tol)" in result.stderr and "--tol 1e-06;" in result.stderr
    assert json.loads(result.stdout)["models"]["pbm"]["settings"]["converged"] is False
