"""What one command writes, the next reads as written (issue 27, item 1): each pair of commands
below is run end to end through ``cranfield.cli.main`` on the shipped data."""

from __future__ import annotations

import csv
import json

import pytest

from cranfield import datasets
from cranfield.cli import main

DATA = datasets.cranfield()
QRELS, BM25, TFIDF = str(DATA["qrels"]), str(DATA["runs"]["bm25"]), str(DATA["runs"]["tfidf"])


def _run(args, capsys) -> str:
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert status == 0, err
    return out


def test_interleave_lists_read_back_by_clicks(tmp_path, capsys):
    lists = tmp_path / "lists.csv"
    _run(["online", "interleave", BM25, TFIDF, "-k", "5", "-f", "csv", "-o", lists], capsys)
    rows = list(csv.DictReader(lists.open()))
    assert list(rows[0]) == ["impression", "query", "rank", "doc", "team", "clicked"]
    outcome = json.loads(_run(["online", "interleave", "--clicks", lists, "-f", "json"], capsys))
    assert outcome["ties"] == 225 and outcome["wins"] == outcome["losses"] == 0  # no clicks yet
    # the experiment clicks every document of BM25: BM25 wins every impression
    bm25 = {r["team"] for r in rows} - {"tfidf_cosine"}
    for r in rows:
        r["clicked"] = int(r["team"] in bm25)
    with lists.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    outcome = json.loads(_run(["online", "interleave", "--clicks", lists, "-f", "json"], capsys))
    assert outcome["runs"] == ["bm25s_stem", "tfidf_cosine"] and outcome["wins"] == 225


@pytest.mark.parametrize("fmt", ["trec", "csv"])
def test_pool_sheet_reads_back_as_qrels(tmp_path, capsys, fmt):
    sheet = tmp_path / f"sheet.{'txt' if fmt == 'trec' else 'csv'}"
    _run(["pool", BM25, TFIDF, "-k", "5", "-f", fmt, "-o", sheet], capsys)
    report = json.loads(_run(["evaluate", sheet, BM25, "-m", "P@5", "-f", "json"], capsys))
    assert report  # every document in the pool, none judged relevant yet
    assert "225" in json.dumps(report)


def test_simulated_log_reads_back_in_metrics_and_click_models(tmp_path, capsys):
    log, inferred = tmp_path / "clicks.csv", tmp_path / "inferred.qrels"
    _run(["online", "simulate", QRELS, BM25, "--log-out", log, "--impressions", "300", "--repetitions", "2",
          "-f", "json"], capsys)
    metrics = json.loads(_run(["online", "metrics", log, "-f", "json"], capsys))
    assert metrics
    _run(["online", "click-model", log, "--qrels-out", inferred, "-f", "json"], capsys)
    assert json.loads(_run(["evaluate", inferred, BM25, "-m", "P@5", "-f", "json"], capsys))


def test_evaluate_per_query_csv_is_tidy(tmp_path, capsys):
    """No command reads per-query results back; they are tidy (run, qid, measure, value) for
    pandas and the next tool."""
    out = tmp_path / "pq.csv"
    _run(["evaluate", QRELS, BM25, TFIDF, "-m", "AP", "-q", "-f", "csv", "-o", out], capsys)
    rows = list(csv.reader(out.open()))
    assert rows[0] == ["run", "qid", "measure", "value"] and len(rows) > 2 * 200


def test_aggregated_crowd_labels_are_qrels(tmp_path, capsys):
    qrels, workers = tmp_path / "crowd.qrels", tmp_path / "workers.csv"
    labels = datasets.examples()["crowd-labels"]
    _run(["aggregate-labels", labels, "-o", qrels, "--method", "dawid-skene", "--workers", workers], capsys)
    report = json.loads(_run(["evaluate", qrels, BM25, "-m", "P@5", "-f", "json"], capsys))
    assert report
    assert len(qrels.read_text().splitlines()) == 600


def test_judged_pool_sheet_feeds_move_to_front(tmp_path, capsys):
    """A sheet judged in place (-1 replaced by grades) is the qrels of the next MTF pool."""
    sheet, judged, nxt = tmp_path / "sheet.txt", tmp_path / "judged.txt", tmp_path / "next.txt"
    _run(["pool", BM25, TFIDF, "-k", "3", "-o", sheet], capsys)
    grades = {}
    for line in DATA["qrels"].read_text().splitlines():
        q, _, d, r = line.split()
        grades[(q, d)] = r
    judged.write_text("".join(f"{q} 0 {d} {grades.get((q, d), '0')}\n"
                              for q, _, d, _ in (line.split() for line in sheet.read_text().splitlines())))
    _run(["pool", BM25, TFIDF, "--method", "mtf", "--budget", "5", "--qrels", judged, "-o", nxt], capsys)
    assert nxt.read_text().strip()
