"""The three real Cranfield runs give the figures trec_eval 9.0.8 prints for them
(source: tests/data/cranfield/README.md, computed with trec_eval 9.0.8)."""

from __future__ import annotations

import pytest

import cranfield

FIGURES = {  # run: (map, ndcg_cut_10 on graded qrels, P_10, recip_rank)
    "bm25.run": (0.2997, 0.3695, 0.2338, 0.5384),
    "tfidf.run": (0.2827, 0.3468, 0.2262, 0.5161),
    "coord_title.run": (0.2034, 0.2665, 0.1560, 0.4647),
}


@pytest.mark.parametrize("run_file", sorted(FIGURES))
def test_readme_figures(cranfield_dir, run_file):
    expected = FIGURES[run_file]
    run = cranfield.read_run(cranfield_dir / "runs" / run_file)
    raw = cranfield.evaluate(cranfield_dir / "qrels.raw.trec", run, ["map", "P_10", "recip_rank"])
    graded = cranfield.evaluate(cranfield_dir / "qrels.graded.trec", run, ["ndcg_cut_10"])
    got = (raw.mean["AP"], graded.mean["nDCG@10"], raw.mean["P@10"], raw.mean["RR"])
    assert [f"{v:.4f}" for v in got] == [f"{v:.4f}" for v in expected]


def test_ties_follow_docno_descending(cranfield_dir):
    """coord_title has many tied scores; another tie order gives another MAP."""
    run = cranfield.read_run(cranfield_dir / "runs" / "coord_title.run")
    ours = cranfield.evaluate(cranfield_dir / "qrels.raw.trec", run, ["AP"]).mean["AP"]
    # the same run with ties broken the other way (docno ascending) gives a different number
    ascending = {}
    for q, docs in run.to_dict().items():
        order = sorted(docs, key=lambda d: (-docs[d], d))  # ascending docno among ties
        ascending[q] = {d: float(len(order) - i) for i, d in enumerate(order)}
    other = cranfield.evaluate(cranfield_dir / "qrels.raw.trec", ascending, ["AP"]).mean["AP"]
    assert f"{ours:.4f}" == "0.2034"
    assert abs(ours - other) > 1e-4
