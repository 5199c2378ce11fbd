"""ranx's JSON qrels and run files (issue 27, item 5): read by ``cranfield.read_qrels`` /
``read_run`` (and every command, through them) under one grammar (io/json_mapping.py, then the
dict backend's checks, errors naming the file and the key path), written by ``to_json`` /
``to_file``, and checked against ranx itself on the shipped Cranfield data."""

import json

import numpy as np
import pytest

import cranfield
from cranfield import datasets
from cranfield.cli import main
from cranfield.errors import InputError

QRELS = {"q1": {"d1": 1, "d2": 0}, "q2": {"d2": 2}}
RUN = {"q1": {"d1": 2.5, "d2": 1.25}, "q2": {"d1": 0.1, "d2": 1e-300}}


def test_json_files_read_as_the_dict_backend(tmp_path):
    (tmp_path / "qrels.json").write_text(json.dumps(QRELS))
    (tmp_path / "bm25.json").write_text(json.dumps(RUN))
    qrels, run = cranfield.read_qrels(tmp_path / "qrels.json"), cranfield.read_run(str(tmp_path / "bm25.json"))
    assert qrels.to_dict() == QRELS and run.to_dict() == RUN and run.name == "bm25.json"
    assert qrels.rel.dtype == np.int64
    from_files = cranfield.evaluate(tmp_path / "qrels.json", tmp_path / "bm25.json", ["AP", "nDCG@10"])
    from_dicts = cranfield.evaluate(QRELS, RUN, ["AP", "nDCG@10"])
    assert from_files.mean == from_dicts.mean


def test_writers_round_trip_exactly(tmp_path):
    paths = datasets.cranfield()
    qrels, run = cranfield.read_qrels(paths["qrels"]), cranfield.read_run(paths["runs"]["bm25"])
    qrels.to_file(tmp_path / "q.json")
    run.to_json(tmp_path / "r.json")
    run.to_file(tmp_path / "r.txt")
    assert json.loads((tmp_path / "q.json").read_text()) == qrels.to_dict()
    assert cranfield.read_run(tmp_path / "r.json").to_dict() == run.to_dict()
    assert cranfield.read_run(tmp_path / "r.txt").to_dict() == run.to_dict()  # TREC text for other names
    assert cranfield.read_qrels(tmp_path / "q.json").to_dict() == qrels.to_dict()


@pytest.mark.parametrize("text, kind, message", [
    ('{"q1": {"d1": 1,}}', "qrels", r"q\.json:1: invalid JSON at column 17"),
    ('{"q1": {"d1": 1},\n "q1": {"d2": 1}}', "qrels", r"q\.json: query 'q1' appears twice"),
    ('{"q1": {"d1": 1, "d1": 0}}', "qrels", r"q\.json: query 'q1', document 'd1': appears twice"),
    ('{"q1": {"d1": 1.5}}', "qrels", r"q\.json.*query 'q1', document 'd1'"),
    ('{"q1": {"d1": NaN}}', "run", r"q\.json: NaN is not a JSON number"),
    ('{"q1": {"d1": "high"}}', "run", r"q\.json.*query 'q1', document 'd1'"),
    ('{"q1": [1, 2]}', "run", r"q\.json.*query 'q1': expected a dict"),
    ('[["q1", "d1", 1]]', "qrels", r"q\.json.*expected a dict"),
])
def test_json_errors_name_the_file_and_the_key_path(tmp_path, text, kind, message):
    (tmp_path / "q.json").write_text(text)
    reader = cranfield.read_qrels if kind == "qrels" else cranfield.read_run
    with pytest.raises(InputError, match=message):
        reader(tmp_path / "q.json")


def test_cli_reads_json(tmp_path, capsys):
    (tmp_path / "qrels.json").write_text(json.dumps(QRELS))
    (tmp_path / "bm25.json").write_text(json.dumps(RUN))
    assert main(["evaluate", str(tmp_path / "qrels.json"), str(tmp_path / "bm25.json"), "-m", "P@1", "-f", "csv"]) == 0
    assert capsys.readouterr().out == "run,queries,P@1\nbm25.json,2,0.5\n"


@pytest.mark.slow  # importing ranx and compiling its numba kernels takes about a minute
def test_same_values_as_ranx_on_cranfield(tmp_path):
    """ranx reads our JSON files and gives the same values (``==``) as cranfield on them;
    ranx objects are accepted wherever qrels and runs are. ranx orders tied scores its own way
    (trec_eval: by docno, descending), so the rank-sensitive AP and nDCG@10 are compared on the
    queries whose scores have no tie."""
    ranx = pytest.importorskip("ranx")
    paths = datasets.cranfield()
    cranfield.read_qrels(paths["qrels"]).to_json(tmp_path / "qrels.json")
    run = cranfield.read_run(paths["runs"]["bm25"])
    run.to_json(tmp_path / "bm25.json")
    rq, rr = ranx.Qrels.from_file(str(tmp_path / "qrels.json")), ranx.Run.from_file(str(tmp_path / "bm25.json"))
    metrics = {"precision@10": "P@10", "mrr": "RR", "recall@100": "R@100", "map": "AP", "ndcg@10": "nDCG@10"}
    theirs = ranx.evaluate(rq, rr, list(metrics), return_mean=False)
    ours = cranfield.evaluate(tmp_path / "qrels.json", tmp_path / "bm25.json", list(metrics.values()))
    assert ours.mean == cranfield.evaluate(rq, rr, list(metrics.values())).mean  # ranx objects accepted
    qids = list(rr.keys())
    untied = [len(set(docs.values())) == len(docs) for docs in (run.to_dict()[q] for q in qids)]
    assert sum(untied) > 100
    for name, measure in metrics.items():
        mine = [ours.per_query[measure][q] for q in qids]
        reference = np.asarray(theirs[name]).tolist()
        if measure in ("AP", "nDCG@10"):
            mine = [v for v, keep in zip(mine, untied) if keep]
            reference = [v for v, keep in zip(reference, untied) if keep]
        assert mine == reference, measure
