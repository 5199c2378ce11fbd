"""Settings as people write them and query ids in natural order, in every report section and
per-query table (issue 27)."""

from __future__ import annotations

import re

import pytest

import cranfield.cli


@pytest.mark.parametrize("value,text", [
    (None, "none"), ([], "none"), ({}, "none"), ("", "none"), (False, "no"), (True, "yes"),
    (9.999000099990002e-05, "1e-4"), (0.05, "0.05"), (0.95, "0.95"), (1 / 3, "0.333"), (1e-6, "1e-6"),
    (2.5e6, "2500000"), (3.0, "3"), (10_000, "10000"), (float("nan"), "nan"),
    ({"bm25": 225, "tfidf": None}, "bm25=225, tfidf=none"), (["a", "b"], "a, b"), ("holm", "holm"),
])
def test_setting_text(value, text):
    from cranfield.io._format import setting_text

    assert setting_text(value) == text


def test_numpy_scalars_are_written_like_python_ones():
    import numpy as np

    from cranfield.io._format import setting_text

    assert setting_text(np.float64(0.05)) == "0.05" and setting_text(np.int64(7)) == "7"
    assert setting_text(np.bool_(False)) == "no"


def test_settings_items_label_with_spaces():
    from cranfield.io._format import settings_items

    assert settings_items({"n_permutations": 1000, "baseline": None}) == [("n permutations", "1000"),
                                                                          ("baseline", "none")]


def test_natural_order_of_query_ids():
    from cranfield.io._format import natural_key, natural_sorted

    assert natural_sorted(["100", "10", "2", "1", "q10", "q2", "abc", "007", "7"]) == \
        ["1", "2", "7", "007", "10", "100", "abc", "q2", "q10"]
    assert natural_key("9") < natural_key("10") < natural_key("a1") < natural_key("a10")


def _python_reprs(html: str) -> list[str]:
    """Python reprs among the <dd> values of a page's definition lists."""
    values = re.findall(r"<dd>(.*?)</dd>", html, flags=re.S)
    bad = re.compile(r"^(None|True|False|\[\]|\{.*\}|\[.*\]|-?\d+\.\d{6,}(e-?\d+)?)$")
    return [v for v in values if bad.match(v.strip())]


def test_report_settings_are_written_as_people_write_them(retrieval_study, detection_study):
    from cranfield.report.detection import detection_html
    from cranfield.report.retrieval import retrieval_html

    page = retrieval_html(retrieval_study, figures={})
    assert _python_reprs(page) == []
    assert "<dt>baseline</dt><dd>none</dd>" in page and "<dt>exact</dt><dd>yes</dd>" in page
    assert re.search(r"<dt>queries per system</dt><dd>bm25s_stem=225, tfidf_cosine=225, coord_title=225</dd>", page)
    assert _python_reprs(detection_html(detection_study, figures={})) == []


def test_online_and_judgments_settings(tmp_path):
    import numpy as np
    import pandas as pd

    from cranfield.online import ab_test, read_click_log
    from cranfield.report.online import online_document

    rng = np.random.default_rng(0)
    n = 400
    frame = pd.DataFrame({"impression": np.repeat(np.arange(n), 2), "query": np.repeat(np.arange(n) % 7, 2),
                          "rank": np.tile([1, 2], n),
                          "doc": rng.integers(0, 9, 2 * n), "clicked": (rng.random(2 * n) < 0.3).astype(int),
                          "variant": np.repeat(np.where(np.arange(n) % 2, "A", "B"), 2),
                          "user": np.repeat([f"u{i % 50}" for i in range(n)], 2)})
    frame.to_csv(tmp_path / "log.csv", index=False)
    page = online_document(ab_test(read_click_log(str(tmp_path / "log.csv")), unit="user"))
    assert _python_reprs(page) == []


def _qrels_and_run(tmp_path):
    qids = ["100", "10", "2", "1", "q10", "q2"]
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 d{d} {d % 2}\n" for q in qids for d in range(4)))
    runs = []
    for name in ("a", "b"):
        run = tmp_path / f"{name}.run"
        run.write_text("".join(f"{q} Q0 d{(d + (name == 'b')) % 4} {d + 1} {9 - d} {name}\n"
                               for q in qids for d in range(4)))
        runs.append(str(run))
    return str(qrels), runs


EXPECTED = ["1", "2", "10", "100", "q2", "q10"]


def test_per_query_tables_are_in_natural_order(tmp_path, capsys):
    qrels, runs = _qrels_and_run(tmp_path)
    assert cranfield.cli.main(["evaluate", qrels, runs[0], "-m", "AP", "--per-query"]) == 0
    out = capsys.readouterr().out
    shown = [line.split("│")[1].strip() for line in out.splitlines()[8:] if line.startswith("│")]
    assert shown[-len(EXPECTED):] == EXPECTED

    from cranfield.report.retrieval import retrieval_html, retrieval_study

    page = retrieval_html(retrieval_study(qrels, runs, test="t", measures=["AP"]), figures={})
    table = page[page.index('id="per-query-table"'):]
    assert re.findall(r"<tr><td>([^<]*)</td>", table)[:6] == EXPECTED


def test_agreement_per_query_table_is_in_natural_order(tmp_path, capsys):
    qrels, _ = _qrels_and_run(tmp_path)
    other = tmp_path / "other.txt"
    other.write_text("".join(f"{q} 0 d{d} {int(d < 2)}\n" for q in ["100", "10", "2", "1", "q10", "q2"]
                             for d in range(4)))
    assert cranfield.cli.main(["agreement", qrels, str(other), "--per-query", "--resamples", "50"]) == 0
    out = capsys.readouterr().out
    rows = [line.split("│")[1].strip() for line in out.splitlines() if line.startswith("│")]
    listed = [r for r in rows if r in EXPECTED]
    assert listed[:6] == EXPECTED  # (a narrow terminal repeats the query column in each part of the table)
