"""The HTML report in a real browser: Debian's chromium, headless, driven by Playwright.

The page must load with no console error, every chart must be visible, and clicking a column
header must sort the per-query table. A screenshot is kept under the test's temporary folder.
Skipped only when chromium (or Playwright) is missing and the environment variable CI is unset;
under CI a missing browser is a failure.
"""

import os
import shutil

import pytest

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def _missing() -> str | None:
    if CHROMIUM is None:
        return "chromium is not installed (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install playwright; the browser is Debian's chromium)"
    return None


@pytest.fixture(scope="module")
def browser():
    reason = _missing()
    if reason:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but {reason}")
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def report_file(tmp_path_factory, retrieval_study):
    from cranfield.report.retrieval import retrieval_html

    path = tmp_path_factory.mktemp("browser") / "report.html"
    path.write_text(retrieval_html(retrieval_study), encoding="utf-8")
    return path


def _open(browser, path):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    problems = []
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type in ("error", "warning")
            else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"request failed: {r.url}"))
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(path.as_uri(), wait_until="load")
    return page, problems, requests


def test_report_loads_without_errors_and_shows_every_chart(browser, report_file):
    page, problems, requests = _open(browser, report_file)
    assert problems == []
    assert requests == [report_file.as_uri()]  # nothing fetched but the file itself
    charts = page.locator("figure.chart")
    assert charts.count() == 8
    for i in range(charts.count()):
        chart = charts.nth(i)
        chart.scroll_into_view_if_needed()
        assert chart.is_visible()
        box = chart.locator("svg").bounding_box()
        assert box is not None and box["width"] > 200 and box["height"] > 150
    page.screenshot(path=str(report_file.parent / "report.png"), full_page=True)
    assert (report_file.parent / "report.png").stat().st_size > 10_000
    page.close()


def test_per_query_table_sorts_on_click(browser, report_file):
    page, problems, _ = _open(browser, report_file)
    table = page.locator("#per-query-table")
    header = table.locator("thead th", has_text="AP bm25s_stem")
    column = [h.strip() for h in table.locator("thead th").all_inner_texts()].index("AP bm25s_stem")

    def values():
        return [float(v) for v in table.locator(f"tbody tr td:nth-child({column + 1})").all_inner_texts()]

    before = values()
    assert before != sorted(before)
    header.click()
    assert header.get_attribute("aria-sort") == "ascending"
    assert values() == sorted(before)
    header.click()
    assert header.get_attribute("aria-sort") == "descending"
    assert values() == sorted(before, reverse=True)
    # text column: query ids sort as numbers ("2" before "10")
    query_header = table.locator("thead th").first
    query_header.click()
    ids = table.locator("tbody tr td:nth-child(1)").all_inner_texts()
    assert ids[:3] == ["1", "2", "3"]
    page.screenshot(path=str(report_file.parent / "sorted.png"))
    assert problems == []
    page.close()
