"""The issue's "done when": ``cranfield demo --judge``, judge ten documents with the keyboard in
Chromium, close the tab, come back (also after the demo is restarted), export qrels and evaluate a
shipped run against them."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time

from cranfield import datasets
from cranfield.cli import main

from .conftest import SRC, free_port


def _start_demo(folder, port):
    process = subprocess.Popen([sys.executable, "-m", "cranfield", "demo", "--judge", "--port", str(port), "-o",
                                str(folder)], env={**os.environ, "PYTHONPATH": SRC}, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    lines = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        if not line:
            break
        lines.append(line)
        if "serving on" in line:
            break
    links = {line.split(" page: ")[0].split()[-1]: line.split(" page: ")[1].strip() for line in lines
             if " page: " in line}
    time.sleep(0.5)
    return process, links


@contextlib.contextmanager
def _demo(folder, port):
    process, links = _start_demo(folder, port)
    try:
        yield links
    finally:
        process.terminate()
        process.wait(10)


def _expect_shown(context, port, doc, expect) -> None:
    page = context.new_page()
    page.goto(f"http://127.0.0.1:{port}/judge")
    expect(page.locator("#doc-id")).to_have_text(doc)
    page.close()


def test_demo_judge_resume_export_evaluate(browser, tmp_path, capsys):
    from playwright.sync_api import expect

    folder, port = tmp_path / "demo", free_port()
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    with _demo(folder, port) as links:
        assert links["assessor"].startswith(f"http://127.0.0.1:{port}/judge#token=")
        page = context.new_page()
        page.goto(links["assessor"])
        expect(page.locator("#topic-id")).to_have_text("1")
        for i in range(10):
            expect(page.locator("#progress")).to_contain_text(f"judged {i}")
            page.keyboard.press(str(i % 3))
        expect(page.locator("#progress")).to_contain_text("judged 10")
        eleventh = page.locator("#doc-id").text_content()
        page.close()
        _expect_shown(context, port, eleventh, expect)  # the tab closed, another opened: the same document
    with _demo(folder, port) as again:  # a second start resumes with the same links
        assert again == links
        _expect_shown(context, port, eleventh, expect)
    context.close()
    qrels = tmp_path / "qrels.txt"
    assert main(["judge", "export", str(folder / "judge.sqlite"), "-o", str(qrels)]) == 0
    lines = qrels.read_text().splitlines()
    assert len(lines) == 10 and all(line.startswith("1 0 ") for line in lines)
    assert [int(line.split()[3]) for line in lines] == [i % 3 for i in range(10)]
    capsys.readouterr()
    assert main(["evaluate", str(qrels), str(datasets.cranfield()["runs"]["bm25"]), "-m", "P@10", "-f", "csv"]) == 0
    assert "P@10" in capsys.readouterr().out
