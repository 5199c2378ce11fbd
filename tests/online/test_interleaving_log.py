"""Scoring a logged interleaving experiment (``interleaving_from_log``, ``cranfield online
interleave --clicks``): lists interleaved and clicked in memory, written as a log (CSV, Parquet,
dict), read back; the credit, the posterior and the outcome must be the in-memory ones (==)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cranfield.cli
from cranfield.errors import InputError, UsageError
from cranfield.io.clicklog import parse_click_table
from cranfield.online import read_click_log
from cranfield.online.interleaving import (
    RankedLists,
    interleave,
    interleaving_credit,
    interleaving_outcome,
    multileaving_preferences,
    ranked_lists,
)
from cranfield.online.interleaving_log import interleaving_from_log
from cranfield.online.simulation import simulate_clicks

DEPTH = 6
METHOD_RUNS = {"team_draft": 2, "balanced": 2, "probabilistic": 2, "multileave": 3}


def _random_lists(seed: int, m: int, n: int = 12, depth: int = DEPTH, pool: int = 10) -> RankedLists:
    """n queries; each run ranks ``depth`` distinct documents of ``pool`` (some lists shorter)."""
    rng = np.random.default_rng(seed)
    docs = np.argsort(rng.random((m, n, pool)), axis=2)[:, :, :depth].astype(np.int64)
    short = rng.random((m, n)) < 0.25
    docs[:, :, max(depth // 2, 1):][short] = -1
    return RankedLists(docs, np.array([f"q{i}" for i in range(n)]), np.array([f"d{i}" for i in range(pool)]),
                       tuple("ABC"[:m]))


def _run_files(lists: RankedLists, folder) -> list:
    """TREC run files of ``lists`` (tags A, B, C; scores falling with the rank)."""
    paths = []
    for i, name in enumerate(lists.names):
        q, r = np.nonzero(lists.docs[i] >= 0)
        path = folder / f"{name}.run"
        path.write_text("".join(f"{lists.query_ids[a]} Q0 {lists.doc_ids[lists.docs[i, a, b]]} {b + 1} {100 - b} {name}\n"
                                for a, b in zip(q.tolist(), r.tolist())))
        paths.append(path)
    return paths


def _experiment(lists: RankedLists, method: str, seed: int, impressions: int = 150):
    """Interleaved lists of random queries and simulated PBM clicks (the simulation code)."""
    rng = np.random.default_rng(seed)
    il = interleave(lists.take(rng.integers(0, len(lists.query_ids), impressions)), method=method, seed=seed)
    attractiveness = np.where(il.docs >= 0, rng.uniform(0.1, 0.9, il.docs.shape), np.nan)
    return il, simulate_clicks(attractiveness, model="pbm", seed=seed)


def _log(il, clicked, *, team: bool = True) -> pd.DataFrame:
    i, j = np.nonzero(il.docs >= 0)
    frame = pd.DataFrame({"impression": [f"i{k:05d}" for k in i.tolist()], "query": il.query_ids[i], "rank": j + 1,
                          "doc": il.doc_ids[il.docs[i, j]], "clicked": clicked[i, j].astype(int)})
    if team:
        frame["team"] = np.asarray(il.names)[il.teams[i, j]]
    return frame


def _same_interleaving(got, clicked, il, clicks) -> None:
    length = got.docs.shape[1]
    assert np.array_equal(clicked, clicks[:, :length]) and not clicks[:, length:].any()
    assert np.array_equal(interleaving_credit(got, clicked), interleaving_credit(il, clicks))
    if il.method == "probabilistic":
        # the generator's arithmetic replayed on the same values: the posterior is the same float (==)
        assert np.array_equal(got.team_probability, il.team_probability[:, :length])
        assert not il.team_probability[:, length:].any()


def _run(argv, capsys):
    status = cranfield.cli.main(argv)
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("method", list(METHOD_RUNS))
def test_round_trip_csv_parquet_library_and_cli(method, tmp_path, capsys):
    lists = ranked_lists(_run_files(_random_lists(3, METHOD_RUNS[method]), tmp_path), depth=DEPTH)
    il, clicks = _experiment(lists, method, seed=5)
    credit = interleaving_credit(il, clicks)
    frame = _log(il, clicks, team=method in ("team_draft", "multileave"))
    frame.to_csv(tmp_path / "log.csv", index=False)
    frame.sample(frac=1.0, random_state=1).to_parquet(tmp_path / "log.parquet", index=False)  # rows shuffled
    runs = [str(tmp_path / f"{name}.run") for name in lists.names]
    for path in ("log.csv", "log.parquet"):
        for run_lists in (None, runs, lists):
            if run_lists is None and method in ("balanced", "probabilistic"):
                continue
            got, clicked = interleaving_from_log(tmp_path / path, method=method, runs=run_lists, depth=DEPTH)
            assert got.names == il.names and got.method == method
            _same_interleaving(got, clicked, il, clicks)
        argv = ["online", "interleave", "--clicks", str(tmp_path / path), "--method", method, "--depth", str(DEPTH),
                "-f", "json", "-o", str(tmp_path / "out.json")]
        status, _, err = _run(argv + ([] if method in ("team_draft", "multileave") else runs), capsys)
        assert status == 0, err
        document = json.loads((tmp_path / "out.json").read_text())
        assert document["runs"] == list(il.names)
        if method == "multileave":
            assert np.array_equal(np.array(document["preferences"]), multileaving_preferences(credit))
            first = interleaving_outcome(credit[:, [0, 1]], seed=0)
            assert {k: document["outcomes"][0][k] for k in first if k != "settings"} == \
                {k: v for k, v in first.items() if k != "settings"}
        else:
            expected = interleaving_outcome(credit, seed=0)
            assert {k: document[k] for k in expected if k != "settings"} == \
                {k: v for k, v in expected.items() if k != "settings"}
            assert document["settings"]["method"] == method and document["settings"]["per"] == "impression"


def test_per_query_and_table_output(tmp_path, capsys):
    lists = _random_lists(4, 2)
    il, clicks = _experiment(lists, "team_draft", seed=2)
    _log(il, clicks).to_csv(tmp_path / "log.tsv", sep="\t", index=False)
    status, out, err = _run(["online", "interleave", "--clicks", str(tmp_path / "log.tsv"), "--per", "query",
                             "-f", "json"], capsys)
    assert status == 0, err
    expected = interleaving_outcome(interleaving_credit(il, clicks), groups=il.query_ids, seed=0)
    assert json.loads(out)["wins"] == expected["wins"] and json.loads(out)["n"] == expected["n"] == 12
    status, out, err = _run(["online", "interleave", "--clicks", str(tmp_path / "log.tsv")], capsys)
    assert status == 0 and "logged clicks (150 impressions)" in out and "wins" in out, err


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), method=st.sampled_from(list(METHOD_RUNS)), n=st.integers(1, 5),
       depth=st.integers(1, 7), tau=st.sampled_from([0.5, 1.0, 3.0, 7.25]))
def test_property_random_lists(seed, method, n, depth, tau):
    lists = _random_lists(seed % 1000, METHOD_RUNS[method], n=n, depth=depth, pool=depth + 3)
    rng = np.random.default_rng(seed)
    il = interleave(lists.take(rng.integers(0, n, 20)), method=method, seed=rng, tau=tau)
    clicks = (rng.random(il.docs.shape) < 0.4) & (il.docs >= 0)
    frame = _log(il, clicks)
    columns = {name: frame[name].to_numpy() for name in frame.sample(frac=1.0, random_state=seed % 97)}
    got, clicked = interleaving_from_log(columns, method=method, tau=tau, depth=depth,
                                         runs=None if method in ("team_draft", "multileave") else lists)
    _same_interleaving(got, clicked, il, clicks)


def test_row_order_does_not_matter():
    lists = _random_lists(7, 2)
    il, clicks = _experiment(lists, "probabilistic", seed=7)
    frame = _log(il, clicks)
    outcomes = []
    for state in (None, 1, 2):
        shuffled = frame if state is None else frame.sample(frac=1.0, random_state=state)
        got, clicked = interleaving_from_log(shuffled, method="probabilistic", runs=lists)
        outcomes.append(interleaving_outcome(interleaving_credit(got, clicked), seed=3))
    assert outcomes[0] == outcomes[1] == outcomes[2]


def test_team_column_in_the_grammar():
    frame = {"impression": [1, 1], "query": ["q", "q"], "rank": [2, 1], "doc": ["b", "a"], "clicked": [0, 1],
             "team": [7, "x"]}
    table = parse_click_table(frame, with_team=True)
    assert table["team_ids"][table["team"]].tolist() == ["x", "7"]  # sorted with the rows, ids as text
    assert "team" not in parse_click_table(frame)
    assert read_click_log(frame).n_rows == 2  # a click log with a team column is still a click log
    with pytest.raises(InputError) as error:
        parse_click_table({**frame, "team": ["x", ""]})
    assert error.value.line == 2 and error.value.field == "team"


def _small(**changes) -> dict:
    """Two impressions of query q; runs A = [a, b, c], B = [b, d, a]."""
    return {"impression": [1, 1, 1, 2, 2], "query": ["q"] * 5, "rank": [1, 2, 3, 1, 2],
            "doc": ["a", "b", "d", "b", "a"], "clicked": [1, 0, 0, 0, 1], "team": ["A", "B", "B", "B", "A"],
            **changes}


SMALL_RUNS = [{"q": {"a": 3, "b": 2, "c": 1}}, {"q": {"b": 3, "d": 2, "a": 1}}]


def _runs():
    from cranfield.retrieval.run import read_run

    return [read_run(r, name=n) for r, n in zip(SMALL_RUNS, "AB")]


@pytest.mark.parametrize("log, options, error, line, field, words", [
    (_small(team=None), {}, InputError, None, "team", "no team column"),
    (_small(team=["A", "B", "B", "Z", "A"]), {"runs": "runs"}, InputError, 5, "team", "team 'Z' is not one of"),
    (_small(team=["A", "B", "A", "B", "A"]), {"runs": "runs"}, InputError, 4, "team", "team 'A' is credited"),
    (_small(team=["A", "B", "C", "B", "A"]), {}, InputError, None, "team", "use method 'multileave'"),
    (_small(team=["A", "B", "", "B", "A"]), {}, InputError, 4, "team", "empty"),
    (_small(doc=["a", "b", "e", "b", "a"]), {"runs": "runs", "method": "probabilistic"}, InputError, 4, "doc",
     "neither run"),
    (_small(doc=["a", "b", "a", "b", "a"]), {}, InputError, 4, "doc", "shown twice"),
    (_small(), {"method": "balanced"}, UsageError, None, None, "give the two runs"),
])
def test_errors_name_line_and_field(log, options, error, line, field, words, tmp_path, capsys):
    if log["team"] is None:
        del log["team"]
    options = {**options, **({"runs": _runs()} if "runs" in options else {})}
    with pytest.raises(error) as raised:
        interleaving_from_log(log, **options)
    assert words in str(raised.value)
    if error is InputError:
        assert (raised.value.line, raised.value.field) == (None if line is None else line - 1, field)  # dict: row 1 first
    # the same log as CSV through the command: one line, exit 2, the line counted with the header
    pd.DataFrame(log).to_csv(tmp_path / "log.csv", index=False)
    runs = []
    if "runs" in options:
        for name, run in zip("AB", SMALL_RUNS):
            (tmp_path / name).write_text("".join(f"q Q0 {d} 1 {s} {name}\n" for d, s in run["q"].items()))
            runs.append(str(tmp_path / name))
    status, _, err = _run(["online", "interleave", "--clicks", str(tmp_path / "log.csv"), *runs,
                           "--method", options.get("method", "team_draft")], capsys)
    assert status == 2 and words in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    if line is not None:
        assert f"log.csv:{line}: field {field}:" in err


@pytest.mark.parametrize("extra, words", [
    (["--qrels", "q.txt"], "--qrels does not apply"),
    (["--length", "3"], "--length does not apply"),
    (["--model", "dbn"], "--model does not apply"),
    (["--tau", "2"], "--tau applies to --method probabilistic"),
    (["A.run"], "found one"),
])
def test_contradictory_options(extra, words, tmp_path, capsys):
    pd.DataFrame(_small()).to_csv(tmp_path / "log.csv", index=False)
    status, _, err = _run(["online", "interleave", "--clicks", str(tmp_path / "log.csv"), *extra], capsys)
    assert status == 2 and words in err and "Traceback" not in err


def test_without_clicks_two_runs_are_still_required(capsys):
    status, _, err = _run(["online", "interleave"], capsys)
    assert status == 2 and "expected RUN_A RUN_B" in err


def test_tiny_p_values_are_printed_not_rounded_to_zero(capsys):
    """A p-value below 1e-4 prints in scientific notation (as the comparison tables do), never 0.0000."""
    from pathlib import Path

    data = Path(cranfield.cli.__file__).parents[1] / "data" / "cranfield"
    args = ["online", "interleave", str(data / "runs" / "bm25.run"), str(data / "runs" / "coord_title.run"),
            "--qrels", str(data / "qrels.graded.trec"), "--impressions", "3000", "-f", "markdown"]
    assert cranfield.cli.main(args) == 0
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in capsys.readouterr().out.splitlines()
            if line.startswith("|")]
    p = rows[2][rows[0].index("p_value")]  # header, rule, first pair
    assert "e-" in p and float(p) < 1e-4, p
