"""User simulation: clicks follow the click model's probabilities; logs are canonical columns;
the A/B vs interleaving experiment is reproducible and finds a large offline difference."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield import datasets
from cranfield.errors import InputError, UsageError
from cranfield.online._clicklog import log_columns
from cranfield.online.click_models import fit_click_model
from cranfield.online.simulation import (
    grade_attractiveness,
    simulate_clicks,
    simulate_experiment,
    simulate_log,
)

N = 20_000


def _within(observed, expected, n):
    """Observed rates within 5 binomial standard errors of the expected probabilities."""
    expected = np.asarray(expected, dtype=float)
    return np.all(np.abs(np.asarray(observed) - expected) <= 5 * np.sqrt(expected * (1 - expected) / n) + 1e-12)


def test_grade_attractiveness():
    assert grade_attractiveness([0, 1, 2, 4]).tolist() == [0.05, 1 / 16, 3 / 16, 15 / 16]
    assert np.isnan(grade_attractiveness([np.nan, 1])[0])


def test_pbm_clicks_follow_rank_probabilities():
    alpha = np.tile([0.9, 0.6, 0.3], (N, 1))
    gamma = [1.0, 0.5, 0.25]
    clicks = simulate_clicks(alpha, model="pbm", examination=gamma, seed=1)
    assert _within(clicks.mean(axis=0), alpha[0] * gamma, N)


def test_cascade_clicks_once_from_the_top():
    alpha = np.tile([0.5, 0.4, 0.3, np.nan], (N, 1))
    clicks = simulate_clicks(alpha, model="cascade", seed=2)
    assert clicks.sum(axis=1).max() == 1 and not clicks[:, 3].any()
    expected = [0.5, 0.5 * 0.4, 0.5 * 0.6 * 0.3]  # α_r Π_{j<r} (1 − α_j)
    assert _within(clicks.mean(axis=0)[:3], expected, N)


def test_dbn_and_dcm_continuation():
    alpha = np.tile([0.6, 0.5], (N, 1))
    dbn = simulate_clicks(alpha, model="dbn", satisfaction=np.full((N, 2), 0.5), continuation=0.8, seed=3)
    # second click: skip then continue (0.4·0.8) or click, unsatisfied, continue (0.6·0.5·0.8); then α = 0.5
    assert _within(dbn[:, 1].mean(), (0.4 * 0.8 + 0.6 * 0.5 * 0.8) * 0.5, N)
    dcm = simulate_clicks(alpha, model="dcm", examination=[0.3, 0.3], seed=4)
    assert _within(dcm[:, 1].mean(), (0.4 + 0.6 * 0.3) * 0.5, N)
    ubm = simulate_clicks(alpha, model="ubm", seed=5)
    # γ[2, 1] = 1 after a click at rank 1, γ[2, 0] = 1/2 otherwise
    assert _within(ubm[:, 1].mean(), (0.6 * 1 + 0.4 * 0.5) * 0.5, N)
    assert np.array_equal(ubm, simulate_clicks(alpha, model="ubm", seed=5))


def test_simulated_log_is_a_click_log_and_fits():
    data = datasets.cranfield()
    log = simulate_log(data["qrels"], data["runs"]["bm25"], model="cascade", impressions=3000, seed=0)
    columns = log_columns(log)
    assert np.array_equal(columns["impression"], log["impression"]) and log["query"].dtype.kind == "U"
    assert set(np.unique(log["rank"]).tolist()) == set(range(1, 11))
    fitted = fit_click_model(log, model="cascade")
    # documents judged relevant get higher inferred attractiveness than unjudged ones, on average
    from cranfield.retrieval.qrels import read_qrels

    qrels = read_qrels(str(data["qrels"]))
    judged = {(q, d): r for q, d, r in zip(qrels.qid.to_pylist(), qrels.docno.to_pylist(), qrels.rel.tolist())}
    grade = np.array([judged.get((q, d), 0) for q, d in zip(fitted.query_ids[fitted.query].tolist(),
                                                            fitted.doc_ids[fitted.doc].tolist())])
    assert fitted.attractiveness[grade >= 3].mean() > fitted.attractiveness[grade == 0].mean() + 0.2
    again = simulate_log(data["qrels"], data["runs"]["bm25"], model="cascade", impressions=3000, seed=0)
    assert np.array_equal(again["clicked"], log["clicked"])


def test_experiment_detects_a_large_difference():
    data = datasets.cranfield()
    out = simulate_experiment(data["qrels"], data["runs"]["bm25"], data["runs"]["coord_title"], repetitions=8,
                              impressions=(50, 400, 3000), seed=1)
    assert out["offline"]["run_a"] > out["offline"]["run_b"]
    for name in ("ab", "interleaving"):
        rate = out[name]["detection_rate"]
        assert rate.shape == (3,) and np.all((rate >= 0) & (rate <= 1))
        assert np.all(out[name]["error_rate"] == 0)
    assert out["interleaving"]["detection_rate"][-1] == 1.0
    assert out["interleaving"]["impressions_needed"] is not None
    again = simulate_experiment(data["qrels"], data["runs"]["bm25"], data["runs"]["coord_title"], repetitions=8,
                                impressions=(50, 400, 3000), seed=1)
    assert np.array_equal(again["ab"]["detection_rate"], out["ab"]["detection_rate"])


def test_bad_arguments():
    with pytest.raises(InputError):
        simulate_clicks([[1.5]])
    with pytest.raises(UsageError):
        simulate_clicks([[0.5]], model="nope")
    with pytest.raises(UsageError):
        simulate_clicks([[0.5]], model="pbm", examination=[2.0])
    data = datasets.cranfield()
    with pytest.raises(UsageError):
        simulate_experiment(data["qrels"], data["runs"]["bm25"], data["runs"]["tfidf"], alpha=2)


def test_simulate_command_and_demo(tmp_path):
    import json

    from click.testing import CliRunner

    from cranfield.cli import _registering_inputs
    from cranfield.cli.online_models_cmd import simulate

    data = datasets.cranfield()
    runner = CliRunner()
    args = [str(data["qrels"]), str(data["runs"]["bm25"]), str(data["runs"]["coord_title"]), "--repetitions", "4",
            "--impressions", "100,800", "-f", "json", "--plot", str(tmp_path / "s.png")]
    result = runner.invoke(_registering_inputs(simulate), args)
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    direct = simulate_experiment(data["qrels"], data["runs"]["bm25"], data["runs"]["coord_title"], repetitions=4,
                                 impressions=(100, 800))
    assert document["interleaving"]["detection_rate"] == direct["interleaving"]["detection_rate"].tolist()
    assert (tmp_path / "s.png").stat().st_size > 0
    log = tmp_path / "clicks.csv"
    result = runner.invoke(_registering_inputs(simulate), [str(data["qrels"]), str(data["runs"]["bm25"]),
                                                           "--log-out", str(log), "--impressions", "50"])
    assert result.exit_code == 0, result.output
    lines = log.read_text().splitlines()
    assert lines[0] == "impression,query,rank,doc,clicked" and len(lines) == 1 + 50 * 10
    result = runner.invoke(_registering_inputs(simulate), [str(data["qrels"]), str(data["runs"]["bm25"])])
    assert result.exit_code != 0


def test_online_demo_is_small(monkeypatch, tmp_path):
    from click.testing import CliRunner

    from cranfield.cli.demo_cmd import command
    from cranfield.online import simulation

    original = simulation.cranfield_online_demo
    monkeypatch.setattr(simulation, "cranfield_online_demo",
                        lambda **kw: original(repetitions=3, impressions=(100, 400), **kw))
    result = CliRunner().invoke(command, ["--online", "-o", str(tmp_path), "-q"])
    assert result.exit_code == 0, result.output
    assert "interleaving" in result.output and (tmp_path / "online_sensitivity.png").exists()
