"""tune_on_queries on the Cranfield runs shipped with the package, and on a hand-made case."""

import numpy as np
import pytest

import cranfield
from cranfield.datasets import cranfield as cranfield_paths
from cranfield.errors import UsageError
from cranfield.protocols.retrieval import tune_on_queries
from cranfield.protocols.splits import relevant_counts, subset_queries


@pytest.fixture(scope="module")
def collection():
    paths = cranfield_paths()
    qrels = cranfield.read_qrels(paths["qrels"])
    runs = {name: cranfield.read_run(path) for name, path in paths["runs"].items()}
    return qrels, runs


def test_hand_made_choice():
    # two settings: A is perfect on q1, q2; B on q3, q4, q5. With a holdout of q3..q5 as test
    # queries the choice is made on q1, q2 (A wins there) and A scores 0 on the test queries.
    qrels = {q: {"rel": 1} for q in ("q1", "q2", "q3", "q4", "q5")}
    a = {q: {"rel": 2.0, "x": 1.0} if q in ("q1", "q2") else {"x": 2.0, "rel": 1.0} for q in qrels}
    b = {q: {"rel": 1.0, "x": 2.0} if q in ("q1", "q2") else {"x": 1.0, "rel": 2.0} for q in qrels}
    strata = {"q1": 0, "q2": 0, "q3": 1, "q4": 1, "q5": 1}
    result = tune_on_queries(qrels, {"A": a, "B": b}, measure="P@1", test_size=0.6, strata=strata, random_state=0)
    train, test = result.splits[0]
    assert len(test) == 3
    # whichever queries were drawn: the chosen run is the best on the training queries
    per_query = {"A": {q: 1.0 if q in ("q1", "q2") else 0.0 for q in qrels},
                 "B": {q: 0.0 if q in ("q1", "q2") else 1.0 for q in qrels}}
    train_means = {r: np.mean([per_query[r][q] for q in train]) for r in per_query}
    best = max(train_means, key=lambda r: (train_means[r], r == "A"))
    assert result.runs[result.chosen[0]] == best
    assert result.test_means[0] == pytest.approx(np.mean([per_query[best][q] for q in test]))
    assert result.run_means == {"A": 0.4, "B": 0.6} and result.oracle == ("B", 0.6)


def test_kfold_on_cranfield(collection):
    qrels, runs = collection
    result = tune_on_queries(qrels, runs, measure="AP", cv=5, repeats=2, strata="relevant", random_state=0)
    counts = relevant_counts(qrels)
    assert len(result.query_ids) == sum(1 for c in counts.values() if c > 0) == 225
    assert len(result.splits) == 10
    for rep in range(2):  # each query is a test query exactly once per repeat
        tested = np.concatenate([test for s, (_, test) in enumerate(result.splits) if result.repeat_of[s] == rep])
        assert sorted(tested.tolist()) == sorted(result.query_ids.tolist())
        assert not np.isnan(result.test_values[rep]).any()
    # choices and test means recomputed by evaluating the sliced qrels and runs
    for s in (0, 7):
        train, test = result.splits[s]
        train_means = [cranfield.evaluate(subset_queries(qrels, train), subset_queries(run, train), ["AP"],
                                          complete=True).mean["AP"] for run in runs.values()]
        np.testing.assert_allclose(result.train_means[s], train_means, atol=1e-12)
        assert result.chosen[s] == int(np.argmax(train_means))
        chosen_run = list(runs.values())[result.chosen[s]]
        test_mean = cranfield.evaluate(subset_queries(qrels, test), subset_queries(chosen_run, test), ["AP"],
                                       complete=True).mean["AP"]
        assert result.test_means[s] == pytest.approx(test_mean, abs=1e-12)
    # the per-query matrix equals evaluate() on the full sets; the mean of all test values is the CV estimate
    bm25 = cranfield.evaluate(qrels, runs["bm25"], ["AP"])
    assert result.run_means["bm25"] == pytest.approx(bm25.mean["AP"], abs=1e-12)
    assert result.mean == pytest.approx(np.mean(result.test_values), abs=1e-12)
    frame = result.to_pandas()
    assert len(frame) == 10 and set(frame["chosen"]) <= set(runs)
    assert "cross-validated AP" in result.render("markdown") and "<table>" in result._repr_html_()
    assert sum(result.chosen_counts.values()) == 10


def test_errors(collection):
    qrels, runs = collection
    with pytest.raises(UsageError):
        tune_on_queries(qrels, {"bm25": runs["bm25"]})
    with pytest.raises(UsageError):
        tune_on_queries(qrels, runs, strata="nonrelevant")
    with pytest.raises(UsageError):
        tune_on_queries(qrels, runs, test_size=0.3, repeats=2)
    with pytest.raises(UsageError):
        tune_on_queries(qrels, runs, complete=False)
    with pytest.raises(UsageError):
        tune_on_queries(qrels, [runs["bm25"], runs["bm25"]])


def test_docs_fusion_example():
    """The figures of docs/protocols.md (tuning a fusion weight on the Cranfield queries)."""
    paths = cranfield_paths()
    frames = {name: cranfield.read_run(paths["runs"][name]).to_pandas() for name in ("bm25", "tfidf")}

    def minmax(frame):
        low = frame.groupby("qid")["score"].transform("min")
        high = frame.groupby("qid")["score"].transform("max")
        return frame.assign(score=(frame["score"] - low) / (high - low).where(high > low, 1.0))

    both = minmax(frames["bm25"]).merge(minmax(frames["tfidf"]), on=["qid", "docno"], how="outer",
                                        suffixes=("_bm25", "_tfidf")).fillna(0.0)
    runs = {f"w={w}": cranfield.Run.from_frame(both.assign(score=w * both["score_bm25"] + (1 - w) * both["score_tfidf"]))
            for w in (0.0, 0.25, 0.5, 0.75, 1.0)}
    choice = tune_on_queries(paths["qrels"], runs, measure="AP", cv=5, strata="relevant", random_state=0)
    assert round(choice.mean, 4) == 0.3063
    assert choice.oracle[0] == "w=0.5" and round(choice.oracle[1], 4) == 0.3094
    assert choice.chosen_counts == {"w=0.0": 0, "w=0.25": 0, "w=0.5": 4, "w=0.75": 1, "w=1.0": 0}
