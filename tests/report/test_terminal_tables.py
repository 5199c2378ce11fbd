"""Terminal tables fit the terminal (issue 27): at COLUMNS=80 and 200 no line is wider than the
terminal, no ellipsis stands for a cut cell, and every number of a command's JSON output is in
its terminal table."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

import cranfield.cli
from cranfield.io.tables import Marked, Table, render_table


WIDTHS = (80, 200)


def click_log_csv(n_impressions: int = 240, seed: int = 3) -> str:
    """A small click log: users in variants A and B, ten ranks per impression, clicks likelier at
    the top and in B."""
    rng = np.random.default_rng(seed)
    user = rng.integers(0, 40, n_impressions)
    variant = np.where(user % 2 == 0, "A", "B")
    rank = np.tile(np.arange(1, 11), n_impressions)
    impression = np.repeat(np.arange(n_impressions), 10)
    clicked = rng.random(rank.size) < 0.4 / rank + 0.05 * (variant[impression] == "B")
    frame = pd.DataFrame({"impression": impression, "query": np.repeat(rng.integers(0, 12, n_impressions), 10),
                          "rank": rank, "doc": rng.integers(0, 60, rank.size), "clicked": clicked.astype(int),
                          "variant": variant[impression], "user": [f"u{u}" for u in user[impression]]})
    return frame.to_csv(index=False)


def _check_fits(text: str, width: int) -> None:
    lines = text.splitlines()
    assert lines, "no output"
    too_wide = [line for line in lines if len(line) > width]
    assert not too_wide, f"{len(too_wide)} line(s) wider than {width}: {too_wide[0]!r}"
    assert "…" not in text


def _numbers(document, skip: frozenset) -> list:
    """Every number in a JSON document, except under the keys in ``skip``."""
    found = []
    if isinstance(document, dict):
        for key, value in document.items():
            if key not in skip:
                found += _numbers(value, skip)
    elif isinstance(document, list):
        for value in document:
            found += _numbers(value, skip)
    elif isinstance(document, (int, float)) and not isinstance(document, bool):
        found.append(document)
    return found


def _shown(x, digits: int = 4) -> list[str]:
    """The ways a table may print ``x``: an integer as is, a float with ``digits`` decimals (or in
    scientific notation when it is below 10^-digits, as p-values are)."""
    if isinstance(x, int):
        return [str(x), f"{x:,}", f"{float(x):.{digits}f}"]
    if not math.isfinite(x):
        return [str(x).lower(), "nan", "inf", ""]
    forms = [f"{x:.{digits}f}", f"{x:.1e}", f"{x:g}", repr(x)]
    if x == int(x):
        forms.append(str(int(x)))
    return forms


# ------------------------------------------------------------------ the renderer itself

def _wide_table() -> Table:
    measures = ["AP", "nDCG@10", "P@10", "RR", "RPrec", "Bpref", "recip_rank_long_name"]
    columns = ["id", "system"]
    for m in measures:
        columns += [m, "95% CI"]
    rows = []
    rng = np.random.default_rng(1)
    for i, name in enumerate(["bm25_with_a_long_name", "tfidf", "coord"]):
        row = ["abc"[i], name]
        for _ in measures:
            v = float(rng.random())
            row += [Marked(f"{v:.4f}", "bc" if i == 0 else ""), f"[{v - 0.03:.4f}, {v + 0.03:.4f}]"]
        rows.append(row)
    return Table(columns, rows, title="Systems", bold={(0, 2)}, column_group=2, notes=["CI: a note " * 20])


@pytest.mark.parametrize("width", [40, 60, 80, 120, 200, 400])
def test_a_wide_table_fits_every_width_and_keeps_every_cell(width):
    table = _wide_table()
    text = render_table(table, "table", width=width)
    _check_fits(text, width)
    for row in table.rows:
        for cell in row:
            assert str(cell) in text  # never cut, never wrapped (short cells stay on one line)


def test_a_table_that_fits_is_one_table_and_a_wide_one_repeats_its_key_columns():
    table = _wide_table()
    wide = render_table(table, "table", width=400)
    assert wide.count("system") == 1 and "(1/" not in wide
    narrow = render_table(table, "table", width=80)
    pieces = narrow.count("Systems (")
    assert pieces > 1 and narrow.count("bm25_with_a_long_name") == pieces
    # a mean stays next to its interval
    for piece in narrow.split("Systems (")[1:]:
        header = next(line for line in piece.splitlines() if "system" in line)
        assert header.count("CI") == sum(header.count(m) for m in ("AP", "nDCG@10", "P@10", "RR ", "RPrec", "Bpref",
                                                                     "recip_rank_long_name"))


def test_the_narrowest_terminal_gets_one_transposed_table_per_row():
    text = render_table(_wide_table(), "table", width=40)
    assert text.count("bm25_with_a_long_name") == 1 and "recip_rank" in text
    _check_fits(text, 40)


def test_the_width_is_the_terminals(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    assert max(map(len, render_table(_wide_table(), "table").splitlines())) <= 80
    monkeypatch.setenv("COLUMNS", "300")
    assert max(map(len, render_table(_wide_table(), "table").splitlines())) > 200


def test_cells_are_text_not_markup():
    text = render_table(Table(["a"], [["[bold]x[/bold]"], ["[0.1, 0.2]"]]), "table", width=80)
    assert "[bold]x[/bold]" in text and "[0.1, 0.2]" in text


# ------------------------------------------------------------------ every command at 80 and 200 columns

@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("terminal")
    qrels = folder / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 d{d} {int((q + d) % 3 == 0)}\n" for q in (1, 2, 10, 100) for d in range(1, 9)))
    qrels2 = folder / "qrels2.txt"
    qrels2.write_text("".join(f"{q} 0 d{d} {int((q + 2 * d) % 3 == 0)}\n" for q in (1, 2, 10, 100)
                              for d in range(1, 9)))
    runs = []
    for name, shift in (("a_long_system_name", 0), ("b", 3), ("c", 5)):
        run = folder / f"{name}.run"
        run.write_text("".join(f"{q} Q0 d{(d + shift) % 8 + 1} {d + 1} {10 - d} {name}\n"
                               for q in (1, 2, 10, 100) for d in range(8)))
        runs.append(str(run))
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 80)
    scores = folder / "scores.csv"
    pd.DataFrame({"label": y, "good": np.round(y * 0.5 + rng.random(80) * 0.5, 4),
                  "poor": np.round(rng.random(80), 4)}).to_csv(scores, index=False)
    clusters = folder / "clusters.csv"
    pd.DataFrame({"truth": rng.integers(0, 3, 40), "pred": rng.integers(0, 3, 40),
                  "y": np.round(rng.random(40), 3), "yhat": np.round(rng.random(40), 3)}).to_csv(clusters, index=False)
    clicks = folder / "clicks.csv"
    clicks.write_text(click_log_csv())
    return {"qrels": str(qrels), "qrels2": str(qrels2), "runs": runs, "scores": str(scores),
            "clusters": str(clusters), "clicks": str(clicks)}


# (name, argv, keys of the JSON document whose numbers are settings or inputs, not results, format option)
COMMANDS = [
    ("evaluate", lambda f: ["evaluate", f["qrels"], *f["runs"], "-m", "AP", "-m", "P@5", "-m", "nDCG@10",
                            "-m", "RR", "-m", "RPrec", "-m", "Bpref", "-m", "recall@5"], frozenset(), "-f"),
    ("compare", lambda f: ["compare", f["qrels"], *f["runs"], "-m", "AP", "-m", "P@5", "-m", "nDCG@10",
                           "--test", "t"], frozenset({"settings", "df", "n"}), "-f"),
    ("classify", lambda f: ["classify", f["scores"], "--truth", "label", "--score", "good", "--score", "poor"],
     frozenset({"settings", "threshold_search", "columns", "n", "positive"}), "--format"),
    ("calibration", lambda f: ["calibration", f["scores"], "--label", "label", "--score", "good"],
     frozenset({"settings", "bins", "n", "edges"}), "--format"),
    ("clustering", lambda f: ["clustering", f["clusters"], "--labels-true", "truth", "--labels-pred", "pred"],
     frozenset({"settings", "n"}), "--format"),
    ("regression", lambda f: ["regression", f["clusters"], "--true", "y", "--pred", "yhat"],
     frozenset({"settings", "n"}), "--format"),
    ("online metrics", lambda f: ["online", "metrics", f["clicks"], "--unit", "user"], frozenset({"settings"}), "-f"),
    ("online ab", lambda f: ["online", "ab", f["clicks"], "--unit", "user"], frozenset({"settings", "expected", "confidence"}), "-f"),
    ("online power", lambda f: ["online", "power", "--baseline", "0.3", "--mde", "0.02"], frozenset({"settings"}), "-f"),
    ("agreement", lambda f: ["agreement", f["qrels"], f["qrels2"], *(x for r in f["runs"] for x in ("--runs", r)), "--resamples", "100"],
     frozenset({"settings"}), "-f"),
    ("reusability", lambda f: ["reusability", f["qrels"], *f["runs"], "--depth", "3"], frozenset({"settings"}), "-f"),
]


def _run(argv, capsys):
    status = cranfield.cli.main(argv)
    out, err = capsys.readouterr()
    assert status == 0, err
    return out


@pytest.mark.parametrize("name,argv,skip,fmt", COMMANDS, ids=[c[0] for c in COMMANDS])
@pytest.mark.parametrize("width", WIDTHS)
def test_every_command_fits_the_terminal_and_shows_every_number(name, argv, skip, fmt, width, files, capsys,
                                                                monkeypatch):
    monkeypatch.setenv("COLUMNS", str(width))
    text = _run(argv(files), capsys)
    _check_fits(text, width)
    document = json.loads(_run([*argv(files), fmt, "json"], capsys))
    missing = [x for x in _numbers(document, skip) if not any(form and form in text for form in _shown(x))]
    assert not missing, f"{name}: {len(missing)} number(s) of the JSON output not in the table, e.g. {missing[:5]}"


def test_measures_fit(capsys, monkeypatch):
    for width in WIDTHS:
        monkeypatch.setenv("COLUMNS", str(width))
        text = _run(["measures"], capsys)
        assert max(map(len, text.splitlines())) <= width and "nDCG" in text


@pytest.mark.slow  # two demos: about 22 s in CI
def test_the_demo_table_fits_80_and_200_columns(tmp_path, capsys, monkeypatch):
    for width in WIDTHS:
        monkeypatch.setenv("COLUMNS", str(width))
        text = _run(["demo", "-o", str(tmp_path / str(width)), "--quiet", "--permutations", "200"], capsys)
        _check_fits(text, width)
        for number in ("0.2997", "0.3695", "[0.2682, 0.3312]", "0.5384"):
            assert number in text
