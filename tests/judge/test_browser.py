"""The assessor's and the organiser's pages in a real browser (Debian's chromium, headless, driven by
Playwright) against a real server (``cranfield judge serve`` on a loopback port, SQLite): judging
with the keyboard, undo, skip, closing the tab and coming back, markup shown as text, a tablet
width, and no console error. Skipped when chromium or Playwright is missing, unless CI is set (the
``browser`` fixture of tests/report/test_browser.py, through conftest.py)."""

from __future__ import annotations

from cranfield.judge.storage import open_database

from .conftest import POOL, write_inputs


def _watch(page) -> list:
    problems = []
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type in ("error", "warning")
            else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    return problems


def _judged(db_url) -> list:
    db = open_database(db_url)
    try:
        with db.transaction(read_only=True) as tx:
            return [tuple(r) for r in tx.all("SELECT topic, doc, grade FROM judgments ORDER BY seq")]
    finally:
        db.close()


def _wait_doc(page, doc: str) -> None:
    # expect, not wait_for_function: the pages' CSP forbids evaluating a string
    from playwright.sync_api import expect

    expect(page.locator("#doc-id")).to_have_text(doc)


def test_judge_with_the_keyboard_undo_and_resume(browser, tmp_path, server_factory):
    paths = write_inputs(tmp_path / "in")
    db = str(tmp_path / "judge.sqlite")
    server = server_factory(paths, db).start()
    token = server.add("alice")
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    problems = _watch(page)
    page.goto(f"{server.url}/judge#token={token}")
    _wait_doc(page, "d3")
    assert "#token" not in page.url  # the token leaves the address bar (kept in localStorage)
    assert page.locator("#topic-title").text_content() == "wing flutter"
    text = page.locator("#doc-text")
    assert "<b>bold?</b>" in text.text_content()  # markup shown as text
    assert text.locator("b").count() == 0
    assert [m.text_content() for m in text.locator("mark").all()][:2] == ["wing", "flutter"]
    page.keyboard.press("2")
    _wait_doc(page, "d1")
    page.keyboard.press("0")
    _wait_doc(page, "d2")
    page.keyboard.press("9")  # not a grade of the scale: nothing happens
    page.keyboard.press("s")
    _wait_doc(page, "d4")
    page.keyboard.press("u")  # the skip is undone: d2 again
    _wait_doc(page, "d2")
    page.keyboard.press("1")
    _wait_doc(page, "d4")
    assert page.locator("#progress").text_content().startswith("topic t1: 3 / 4")
    assert _judged(db) == [("t1", "d3", 2), ("t1", "d1", 0), ("t1", "d2", 1)]
    page.close()  # close the tab, restart the server, come back
    server.stop()
    server.start()
    page = context.new_page()
    problems += _watch(page)
    page.goto(f"{server.url}/judge")  # no token in the link: the browser kept it
    _wait_doc(page, "d4")
    page.keyboard.press("1")
    _wait_doc(page, "d5")
    assert page.locator("#topic-id").text_content() == "t2"
    page.screenshot(path=str(tmp_path / "assessor.png"))
    assert problems == []
    context.close()


def test_tablet_width_and_buttons(browser, tmp_path, server_factory):
    paths = write_inputs(tmp_path / "in")
    db = str(tmp_path / "judge.sqlite")
    server = server_factory(paths, db).start()
    token = server.add("bob")
    context = browser.new_context(viewport={"width": 768, "height": 1024}, has_touch=True)
    page = context.new_page()
    problems = _watch(page)
    page.goto(f"{server.url}/judge#token={token}")
    _wait_doc(page, "d3")
    assert page.evaluate("document.documentElement.scrollWidth") <= 768  # nothing wider than the screen
    buttons = page.locator("#grades button")
    assert buttons.count() == 3
    for i in range(3):
        box = buttons.nth(i).bounding_box()
        assert box["height"] >= 44 and box["x"] + box["width"] <= 768  # touch-sized, on screen
    page.locator("#grades button[data-grade='1']").tap()
    _wait_doc(page, "d1")
    assert _judged(db) == [("t1", "d3", 1)]
    assert problems == []
    context.close()


def test_organiser_page(browser, tmp_path, server_factory):
    import json
    import urllib.request

    paths = write_inputs(tmp_path / "in")
    db = str(tmp_path / "judge.sqlite")
    server = server_factory(paths, db, extra=["--overlap", "1"]).start()
    tokens = [server.add(name) for name in ("alice", "bob")]
    boss = server.add("boss", organiser=True)
    for token, grades in zip(tokens, ([2, 0, 1, 1], [2, 0, 0, 1])):  # both judge t1 (first and second)
        for grade in grades:
            request = urllib.request.Request(f"{server.url}/api/next", headers={"Authorization": f"Bearer {token}"})
            pair = json.loads(urllib.request.urlopen(request).read())
            body = json.dumps({"topic": pair["topic"]["id"], "doc": pair["doc"]["id"], "grade": grade}).encode()
            request = urllib.request.Request(f"{server.url}/api/judgments", data=body, method="POST", headers={
                "Authorization": f"Bearer {token}", "Content-Type": "application/json"})
            assert urllib.request.urlopen(request).status == 201
    context = browser.new_context(viewport={"width": 1280, "height": 800}, accept_downloads=True)
    page = context.new_page()
    problems = _watch(page)
    page.goto(f"{server.url}/organiser#token={boss}")
    from playwright.sync_api import expect

    expect(page.locator("#judged")).to_have_text(f"8 / {len(POOL)}")
    assert page.locator("#pairs").text_content() == "4"
    assert page.locator("#kappa").text_content() not in ("", "–")
    rows = page.locator("#assessors tbody tr")
    assert rows.count() == 2 and rows.nth(0).locator("td").nth(1).text_content() == "4"
    with page.expect_download() as download:
        page.locator("[data-export=qrels]").click()
    from pathlib import Path

    assert Path(download.value.path()).read_text() == "t1 0 d3 2\nt1 0 d1 0\nt1 0 d2 1\nt1 0 d4 1\n"
    assert problems == []
    context.close()
