"""Every output of a comparison says how it was made: JSON (validated against the documented
schema), CSV columns, table footers, the HTML report's settings block."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import numpy as np
import pytest

from cranfield.stats._schema import COMPARISON_SCHEMA
from cranfield.stats.compare import compare_values

DOCS = Path(__file__).resolve().parents[2] / "docs" / "statistics.md"


def _types(value) -> set[str]:
    if value is None:
        return {"null"}
    if isinstance(value, bool):
        return {"boolean"}
    if isinstance(value, int):
        return {"integer", "number"}
    if isinstance(value, float):
        return {"number"}
    return {{str: "string", list: "array", dict: "object"}[type(value)]}


def validate(doc, schema: dict, where: str = "$") -> None:
    """A minimal JSON Schema validator for the keywords COMPARISON_SCHEMA uses."""
    if "enum" in schema:
        assert doc in schema["enum"], f"{where}: {doc!r} not in {schema['enum']}"
    if "type" in schema:
        allowed = {schema["type"]} if isinstance(schema["type"], str) else set(schema["type"])
        assert _types(doc) & allowed, f"{where}: {doc!r} is not {allowed}"
    if isinstance(doc, dict):
        for key in schema.get("required", []):
            assert key in doc, f"{where}: missing {key!r}"
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, value in doc.items():
            if key in properties:
                validate(value, properties[key], f"{where}.{key}")
            elif extra is False:
                raise AssertionError(f"{where}: unexpected key {key!r}")
            elif isinstance(extra, dict):
                validate(value, extra, f"{where}.{key}")
    if isinstance(doc, list) and "items" in schema:
        for i, value in enumerate(doc):
            validate(value, schema["items"], f"{where}[{i}]")


def _values(n=30, seed=0):
    rng = np.random.default_rng(seed)
    base = rng.random(n)
    return {s: {m: {f"q{i}": float(np.clip(base[i] + shift + 0.1 * rng.normal(), 0, 1)) for i in range(n)}
                for m in ("AP", "P@10")} for s, shift in (("bm25", 0.05), ("tfidf", 0.0), ("coord", -0.1))}


OPTIONS = [dict(), dict(test="wilcoxon", zero_method="zsplit", correction="hommel", family="all"),
           dict(test="randomization", n_permutations=999, correction="by", baseline="coord", ci="bootstrap"),
           dict(test="bootstrap", n_permutations=500, correction="randomized-tukey", ci="bca", random_state=7),
           dict(test="sign", correction="tukey"), dict(test="randomization", correction="sidak")]


@pytest.mark.parametrize("options", OPTIONS)
def test_json_validates_against_the_documented_schema(options):
    c = compare_values(_values(), **options)
    doc = json.loads(c.to_json())
    validate(doc, COMPARISON_SCHEMA)
    s = doc["settings"]
    assert s["test"]["name"] == options.get("test", "t") and s["alpha"] == 0.05
    assert s["correction"]["name"] == options.get("correction", "holm")
    assert s["correction"]["family_size"] == (3 if "baseline" not in options else 2) * (2 if options.get("family") == "all" else 1)
    if s["test"]["name"] == "t":
        assert s["test"]["df"] == 29 and all(p["df"] == 29 for m in doc["measures"].values() for p in m["pairs"])
    assert all(p["n"] == 30 for m in doc["measures"].values() for p in m["pairs"])


def test_the_docs_show_the_schema_in_force():
    text = DOCS.read_text(encoding="utf-8")
    block = re.search(r"<!-- comparison schema -->\s*```json\n(.*?)```", text, re.S)
    assert block, "docs/statistics.md lacks the schema block"
    assert json.loads(block.group(1)) == COMPARISON_SCHEMA


def test_csv_rows_carry_the_settings():
    c = compare_values(_values(), test="randomization", n_permutations=999, random_state=3, correction="hochberg")
    rows = list(csv.DictReader(io.StringIO(c.render("csv"))))
    assert len(rows) == 6
    for row in rows:
        assert (row["test"], row["correction"], row["family"], row["family_size"], row["alpha"]) == \
            ("randomization", "hochberg", "measure", "3", "0.05")
        assert (row["ci_method"], row["ci_level"], row["resamples"], row["seed"], row["n"]) == ("t", "0.95", "999", "3", "30")
        assert row["p_method"] == "Monte Carlo, (b+1)/(B+1)" and row["p_floored"] in ("true", "false")
    t_rows = list(csv.DictReader(io.StringIO(compare_values(_values()).render("csv"))))
    assert t_rows[0]["df"] == "29" and t_rows[0]["resamples"] == "" and float(t_rows[0]["statistic"]) != 0


def test_footers_say_what_was_done():
    text = compare_values(_values(), test="randomization", n_permutations=999, random_state=3).render("markdown")
    for fragment in ("randomization test, Holm correction over all pairs per measure (3 tests); Monte Carlo, B = 999, seed 3",
                     "alpha = 0.05", "30 queries", "95% Student t interval", "not the interval of the randomization test"):
        assert fragment in text, fragment
    t = compare_values(_values()).render("markdown")
    assert "paired t test, Holm correction over all pairs per measure (3 tests); t with 29 df" in t and "excludes 0 exactly when the unadjusted t test has p < 0.05" in t
    assert "0.2/0.5/0.8" in t and "not comparable" in t  # no Cohen benchmarks applied to d_z


def test_html_report_shows_the_settings_block(tmp_path):
    from cranfield.report.retrieval import RetrievalStudy, retrieval_html

    c = compare_values(_values(), correction="bh")
    study = RetrievalStudy(tmp_path / "qrels", {}, ["AP", "P@10"], {}, c, {})
    (tmp_path / "qrels").write_text("q1 0 d1 1\n")
    page = retrieval_html(study, figures={})
    block = page[page.index('id="statistics-settings"'):]
    block = block[:block.index("</dl>")]
    for fragment in ("paired t test (t with 29 df)", "Benjamini-Hochberg correction (FDR) over all pairs of one measure: 3 tests",
                     "0.05", "95% Student t", "30 paired by query id"):
        assert fragment in block, fragment
    assert page.index('id="statistics-settings"') < page.index('id="charts"')  # in the summary, above the charts


def test_cli_choices_are_the_librarys():
    from cranfield.cli import compare_cmd
    from cranfield.stats.compare import COMPARE_CORRECTIONS, FAMILIES
    from cranfield.stats.paired import PAIRED_TESTS, ZERO_METHODS

    assert compare_cmd.CORRECTIONS == COMPARE_CORRECTIONS and compare_cmd.FAMILIES == FAMILIES
    assert compare_cmd.ZERO_METHODS == ZERO_METHODS and compare_cmd.TESTS == PAIRED_TESTS
