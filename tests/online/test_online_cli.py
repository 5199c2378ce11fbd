"""``cranfield online metrics | ab | power``: the library's numbers, every format, one-line errors."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import cranfield.cli
from cranfield.online import ab_test, impression_metrics, read_click_log, sample_size, summarize

from .clicklog_factory import random_log_columns


def _run(argv, capsys):
    status = cranfield.cli.main(argv)
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(scope="module")
def log_file(tmp_path_factory):
    folder = tmp_path_factory.mktemp("online")
    columns = random_log_columns(21, n_users=40)
    pd.DataFrame(columns).to_csv(folder / "clicks.csv", index=False)
    users = sorted(set(columns["user"]))
    pd.DataFrame({"user": users, "covariate": range(len(users))}).to_csv(folder / "pre.csv", index=False)
    return folder


def test_group_lists_its_commands(capsys):
    status, out, _ = _run(["online", "--help"], capsys)
    assert status == 0 and "Examples:" in out
    for name in ("metrics", "ab", "power"):
        assert name in out
    for name in ("metrics", "ab", "power"):
        status, out, _ = _run(["online", name, "--help"], capsys)
        assert status == 0 and "Examples:" in out and f"cranfield online {name}" in out


def test_metrics_json_equals_the_library(log_file, capsys):
    path = str(log_file / "clicks.csv")
    status, out, err = _run(["online", "metrics", path, "--unit", "user", "-m", "ctr", "-m", "rr", "-f", "json"], capsys)
    assert status == 0, err
    document = json.loads(out)
    expected = summarize(impression_metrics(read_click_log(path), metrics=["ctr", "rr"]), unit="user")
    assert [[r[k] for k in ("group", "metric", "estimate", "ci_low", "ci_high")] for r in document["rows"]] == \
        [row[:5] for row in expected.rows]
    assert document["settings"]["unit"] == "user" and document["settings"]["ci"] == "delta"
    for fmt in ("table", "csv", "tsv", "markdown"):
        status, out, err = _run(["online", "metrics", path, "--by", "query", "-f", fmt], capsys)
        assert status == 0 and "ctr@3" in out, err


def test_ab_outputs(log_file, capsys):
    path = str(log_file / "clicks.csv")
    plot, html, out_file = log_file / "lift.svg", log_file / "ab.html", log_file / "ab.json"
    status, _, err = _run(["online", "ab", path, "--unit", "user", "--split", "A=1,B=1", "-f", "json", "-o",
                           str(out_file), "--plot", str(plot), "--html", str(html)], capsys)
    assert status == 0, err
    document = json.loads(out_file.read_text())
    expected = ab_test(read_click_log(path), unit="user", expected_split={"A": 1, "B": 1})
    assert [t["p_value"] for t in document["tests"]] == [t.p_value for t in expected.tests]
    assert document["srm"]["p_value"] == expected.srm.p_value and document["settings"]["unit"] == "user"
    assert plot.read_text().startswith("<?xml") and "Sample-ratio mismatch" in html.read_text()
    status, out, err = _run(["online", "ab", path, "--unit", "user", "--test", "welch", "--covariate",
                             str(log_file / "pre.csv"), "-m", "clicks", "-f", "markdown"], capsys)
    assert status == 0 and "CUPED" in out, err
    status, out, err = _run(["online", "ab", path, "--test", "bootstrap", "--resamples", "200", "-m", "ctr"], capsys)
    assert status == 0 and "200 resamples, seed 0" in out, err


def test_power(capsys):
    status, out, err = _run(["online", "power", "--effect-size", "0.1", "-f", "json"], capsys)
    assert status == 0, err
    results = json.loads(out)["results"]
    assert results["units needed, first group"] == int(-(-sample_size(0.1) // 1))
    status, out, err = _run(["online", "power", "--baseline", "0.3", "--mde", "0.05", "--relative", "-n", "5000"],
                            capsys)
    assert status == 0 and "minimum detectable" in out, err


@pytest.mark.parametrize("argv, words", [
    (["power"], "give the effect"),
    (["power", "--baseline", "0.3", "--sd", "2", "--mde", "0.1"], "not both"),
    (["ab", "{bad}"], "click on rank 3, which was not shown"),
    (["ab", "{log}", "--split", "A=1,C=1"], "variant 'C' of the planned split"),
    (["ab", "{log}", "--split", "A=x"], "--split"),
    (["metrics", "{log}", "-m", "ctr@0"], "cut-off must be a whole number"),
    (["metrics", "{log}", "-m", "ctrr"], "unknown online metric 'ctrr'"),
    (["metrics", "{missing}"], "no such file"),
    (["ab", "{log}", "--control", "Z"], "control"),
])
def test_errors_are_one_line(argv, words, log_file, capsys):
    bad = log_file / "bad.csv"
    bad.write_text("impression,query,rank,doc,clicked\ni1,q,1,a,0\ni1,q,3,b,1\n")
    argv = [a.format(log=log_file / "clicks.csv", bad=bad, missing=log_file / "nope.csv") for a in argv]
    status, _, err = _run(["online", *argv], capsys)
    assert status == 2 and words in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    if len(argv) > 1 and "bad" in argv[1]:
        assert f"{bad}:3: field rank:" in err
