"""Crowd labels → qrels against crowd-kit (MajorityVote, DawidSkene), the tie rules, the graded
variants, worker quality, atomic output and the two commands."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

crowdkit = pytest.importorskip("crowdkit.aggregation")
pytestmark = pytest.mark.filterwarnings("ignore::Warning:crowdkit.*")  # its pandas deprecations

import cranfield  # noqa: E402
from cranfield.cli import main  # noqa: E402
from cranfield.errors import InputError, UsageError  # noqa: E402
from cranfield.judgments import aggregate_labels  # noqa: E402


def _crowd(seed: int, pairs: int = 150, workers: int = 15, k: int = 3, per: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, pairs)
    skill = rng.uniform(0.35, 0.95, workers)
    who = np.stack([rng.choice(workers, per, replace=False) for _ in range(pairs)])
    right = rng.random((pairs, per)) < skill[who]
    label = np.where(right, truth[:, None], rng.integers(0, k, (pairs, per)))
    pair = np.repeat(np.arange(pairs), per)
    return pd.DataFrame({"query": [f"q{p % 7}" for p in pair], "document": [f"d{p}" for p in pair],
                         "worker": [f"w{w}" for w in who.ravel()], "label": label.ravel()})


def _tasks(frame):
    return frame.assign(task=frame["query"] + "|" + frame["document"])[["task", "worker", "label"]]


def _reference_posteriors(model, result):
    tasks = [f"{q}|{d}" for q, d in zip(result.query, result.document)]
    return model.probas_.loc[tasks][sorted(model.probas_.columns)].to_numpy(), model.labels_.loc[tasks].to_numpy()


# crowd-kit floors its final posteriors at 1e-10 (it clips them in place while computing its loss)
# without renormalising: posteriors agree to 1e-10 plus float noise of log2/exp2 vs log/exp.
TOLERANCE = 2e-10


@pytest.mark.parametrize("iterations", [1, 3, 8])
def test_dawid_skene_is_crowdkits_iteration_for_iteration(iterations):
    frame = _crowd(1)
    model = crowdkit.DawidSkene(n_iter=iterations, tol=-np.inf).fit(_tasks(frame))
    result = aggregate_labels(frame, method="dawid-skene", max_iter=iterations, tol=None)
    posteriors, labels = _reference_posteriors(model, result)
    assert result.n_iter == iterations == len(model.loss_history_)
    assert np.abs(posteriors - result.posteriors).max() <= TOLERANCE
    assert (labels == result.label).all()
    errors = model.errors_  # (worker, answer) x true label
    worker = result.workers.worker.index("w3")
    for answer in range(3):
        if ("w3", answer) in errors.index:
            assert np.abs(errors.loc[("w3", answer)][[0, 1, 2]].to_numpy()
                          - result.confusion[worker, answer]).max() <= 1e-12


@pytest.mark.parametrize("seed", [2, 3])
def test_dawid_skene_converged_labels_are_crowdkits(seed):
    frame = _crowd(seed, pairs=80)
    model = crowdkit.DawidSkene().fit(_tasks(frame))  # crowd-kit's own stopping rule
    ours = aggregate_labels(frame, method="dawid-skene")
    posteriors, labels = _reference_posteriors(model, ours)
    assert (labels == ours.label).all()
    same_steps = aggregate_labels(frame, method="dawid-skene", max_iter=len(model.loss_history_), tol=None)
    assert np.abs(posteriors - same_steps.posteriors).max() <= TOLERANCE
    assert ours.log_likelihood == sorted(ours.log_likelihood)  # EM never lowers the likelihood here


def test_majority_is_crowdkits_where_there_is_no_tie():
    frame = _crowd(4, per=4)
    model = crowdkit.MajorityVote().fit(_tasks(frame))
    result = aggregate_labels(frame)
    probas, labels = _reference_posteriors(model, result)
    top = np.sort(probas, axis=1)
    untied = top[:, -1] > top[:, -2]
    assert untied.sum() > 50 and (labels[untied] == result.label[untied]).all()
    assert np.array_equal(probas.max(axis=1), result.score)


def test_tie_rules():
    labels = {"q1": {"d1": {"a": 0, "b": 2, "c": 2, "d": 0}, "d2": {"a": 1, "b": 2}}}
    assert aggregate_labels(labels).label.tolist() == [0, 1]
    assert aggregate_labels(labels, ties="highest").label.tolist() == [2, 2]
    mean_low = aggregate_labels(labels, method="mean")
    assert mean_low.score.tolist() == [1.0, 1.5] and mean_low.label.tolist() == [1, 1]
    assert aggregate_labels(labels, method="mean", ties="highest").label.tolist() == [1, 2]
    assert aggregate_labels(labels, method="median").label.tolist() == [0, 1]
    assert aggregate_labels(labels, method="median", ties="highest").label.tolist() == [2, 2]
    odd = {"q1": {"d1": {"a": 0, "b": 3, "c": 1}}}
    assert aggregate_labels(odd, method="median").label.tolist() == [1]
    assert aggregate_labels(odd, method="median", ties="highest").label.tolist() == [1]


def test_worker_quality_and_order():
    labels = {"q2": {"d9": {"a": 1, "b": 1, "c": 0}}, "q1": {"d1": {"a": 0, "b": 0, "c": 0}}}
    result = aggregate_labels(labels)
    assert (result.query, result.document) == (["q2", "q1"], ["d9", "d1"])  # first appearance
    assert result.workers.worker == ["a", "b", "c"]
    assert result.workers.agreement.tolist() == [1.0, 1.0, 0.5]
    assert result.workers.n_labels.tolist() == [2, 2, 2]
    ds = aggregate_labels(_crowd(5), method="dawid-skene")
    assert ds.workers.accuracy.shape == (15,) and ((0 <= ds.workers.accuracy) & (ds.workers.accuracy <= 1)).all()


def test_qrels_written_atomically_and_read_back(tmp_path):
    frame = _crowd(6, pairs=30)
    result = aggregate_labels(frame, method="dawid-skene")
    path = tmp_path / "qrels.txt"
    result.write_qrels(path)
    back = cranfield.read_qrels(str(path)).to_dict()
    assert sum(len(v) for v in back.values()) == 30
    assert back[result.query[0]][result.document[0]] == int(result.label[0])
    assert not list(tmp_path.glob(".*"))  # no temporary file left


def test_bad_options_and_input():
    with pytest.raises(UsageError):
        aggregate_labels({"q1": {"d1": {"a": 1}}}, method="vote")
    with pytest.raises(UsageError):
        aggregate_labels({"q1": {"d1": {"a": 1}}}, ties="random")
    with pytest.raises(UsageError):
        aggregate_labels({"q1": {"d1": {"a": 1}}}, method="dawid-skene", tol=-1)
    with pytest.raises(InputError, match="no labels"):
        aggregate_labels({"query": [], "document": [], "worker": [], "label": []})


def run(argv, capsys):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_aggregate_labels_command(tmp_path, capsys):
    frame = _crowd(7, pairs=20)
    frame.to_csv(tmp_path / "labels.csv", index=False)
    code, _, err = run(["aggregate-labels", tmp_path / "labels.csv", "-o", tmp_path / "q.txt", "--method",
                        "dawid-skene", "--workers", tmp_path / "w.csv"], capsys)
    assert code == 0, err
    assert len((tmp_path / "q.txt").read_text().splitlines()) == 20
    workers = pd.read_csv(tmp_path / "w.csv", comment="#")
    assert list(workers.columns[:4]) == ["worker", "labels", "agreement_with_aggregate", "ds_accuracy"]
    (tmp_path / "dup.csv").write_text("query,document,worker,label\nq1,d1,w1,1\nq1,d1,w1,0\n")
    code, out, err = run(["aggregate-labels", tmp_path / "dup.csv", "-o", tmp_path / "x.txt"], capsys)
    assert code == 2 and err.count("\n") == 1 and "dup.csv:3: field worker" in err
    assert not (tmp_path / "x.txt").exists()
    code, out, err = run(["aggregate-labels", tmp_path / "labels.csv", "-o", tmp_path / "y.txt", "--workers",
                          tmp_path / "labels.csv"], capsys)
    assert code == 2 and "refusing to write the output over an input" in err and not (tmp_path / "y.txt").exists()


def test_agreement_command(capsys):
    from cranfield import datasets

    data = datasets.cranfield()
    code, out, err = run(["agreement", data["qrels_raw"], data["qrels"], "--name", "raw", "--name", "graded",
                          "--runs", data["runs"]["bm25"], "--runs", data["runs"]["tfidf"], "--resamples", "50",
                          "-f", "json"], capsys)
    assert code == 0, err
    document = json.loads(out)
    overlap = next(f for f in document["figures"] if f["statistic"] == "overlap")
    assert overlap["overall"] == 1.0 and document["settings"]["n_resamples"] == 50
    assert document["rankings"]["kendall_tau"] == [[1.0, 1.0], [1.0, 1.0]]
    code, out, err = run(["agreement", data["qrels"]], capsys)
    assert code == 2 and "at least two" in err
    code, out, err = run(["agreement", data["qrels_raw"], data["qrels"], "-f", "markdown", "--resamples", "0"], capsys)
    assert code == 0 and "| Cohen's kappa |" in out


def test_row_order_changes_nothing():
    frame = _crowd(8, pairs=60)
    shuffled = frame.sample(frac=1.0, random_state=3).reset_index(drop=True)
    for method in ("majority", "dawid-skene", "mean", "median"):
        one, two = aggregate_labels(frame, method=method), aggregate_labels(shuffled, method=method)
        first = dict(zip(zip(one.query, one.document), one.label.tolist()))
        second = dict(zip(zip(two.query, two.document), two.label.tolist()))
        assert first == second, method
        if method == "dawid-skene":  # the same EM up to the order of float sums
            by_pair = dict(zip(zip(two.query, two.document), two.posteriors))
            assert max(np.abs(by_pair[key] - p).max() for key, p in zip(zip(one.query, one.document),
                                                                         one.posteriors)) < 1e-9
