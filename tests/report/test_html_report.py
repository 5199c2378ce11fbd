"""Content of the HTML reports: self-contained, summary with CIs and marks, inputs for reproducibility."""

import hashlib
import re

import pytest

import cranfield
from cranfield.report.detection import detection_html
from cranfield.report.html import table_html
from cranfield.report.retrieval import retrieval_html
from cranfield.io.tables import Table


@pytest.fixture(scope="module")
def retrieval_page(retrieval_study):
    return retrieval_html(retrieval_study, title="T <report>")


@pytest.fixture(scope="module")
def detection_page(detection_study):
    return detection_html(detection_study)


def assert_self_contained(page: str) -> None:
    # no external resources: no link/src/href/url() pointing anywhere but the page itself
    assert not re.search(r"<(link|iframe|img|object|embed)\b", page)
    assert not re.search(r"""\b(src|href)\s*=\s*["'](?!#|data:)""", page)  # inline data only
    assert not re.search(r"url\((?!#)", page) and "@import" not in page
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert page.count("<svg") >= 3 and page.count("<script>") == 1


def test_retrieval_report_is_self_contained(retrieval_page):
    assert_self_contained(retrieval_page)
    assert retrieval_page.startswith("<!DOCTYPE html>")
    assert "<title>T &lt;report&gt;</title>" in retrieval_page


def test_retrieval_report_summary_with_cis_and_marks(retrieval_page, retrieval_study):
    summary = retrieval_page[retrieval_page.index('id="summary"'):retrieval_page.index('id="charts"')]
    c = retrieval_study.comparison
    bm25 = c.summary("AP", "bm25s_stem")
    assert f"{bm25.mean:.4f} c" in summary  # better than coord_title (id c) on AP
    assert f"[{bm25.ci_low:.4f}, {bm25.ci_high:.4f}]" in summary
    assert "95% CI" in summary and "Holm correction" in summary


def test_retrieval_report_charts_and_per_query_table(retrieval_page, retrieval_study):
    charts = re.findall(r'data-chart="([^"]+)"', retrieval_page)
    assert charts[0] == "recall_precision" and charts[4] == "forest"
    assert len(charts) == 2 + 3 + 3  # differences of the 3 pairs, per-query curves of the 3 runs
    table = retrieval_page[retrieval_page.index('id="per-query-table"'):]
    table = table[:table.index("</table>")]
    assert table.count("<tr>") == 1 + len(retrieval_study.comparison.query_ids)
    assert 'class="sortable"' in table and "AP bm25s_stem" in table


def test_retrieval_report_inputs_for_reproducibility(retrieval_page, shipped):
    digest = hashlib.sha256(shipped["qrels"].read_bytes()).hexdigest()
    inputs = retrieval_page[retrieval_page.index('id="inputs"'):]
    assert digest in inputs and "qrels.graded.trec" in inputs and "bm25.run" in inputs
    assert cranfield.parse_measure("nDCG@10").definition.split(":")[0] in inputs
    assert f"<dd>{cranfield.__version__}</dd>" in inputs
    assert "<dt>test</dt><dd>t</dd>" in inputs and "<dt>correction</dt><dd>holm</dd>" in inputs


def test_detection_report(detection_page, detection_study):
    assert_self_contained(detection_page)
    charts = re.findall(r'data-chart="([^"]+)"', detection_page)
    assert charts[:3] == ["roc", "pr", "det"] and len(charts) == 7 and charts[-1] == "reliability"
    assert "DeLong" in detection_page and "scores.csv" in detection_page
    assert 'id="calibration"' in detection_page and "ECE" in detection_page  # the scores are probabilities
    assert f"{detection_study.settings['auc']['logistic_regression']:.4f} c" in detection_page
    samples = detection_page[detection_page.index('id="per-query-table"'):]
    assert samples[:samples.index("</table>")].count("<tr>") == 1 + 569


def test_table_html_escapes_and_marks_numbers():
    html = table_html(Table(["a<b", "x"], [["<i>", 0.5], ["y", float("nan")]], bold={(0, 1)}), sortable=True)
    assert "a&lt;b" in html and "&lt;i&gt;" in html
    assert '<td class="num" data-value="0.5"><b>0.5000</b></td>' in html
    assert '<td class="num" data-value="">nan</td>' in html
