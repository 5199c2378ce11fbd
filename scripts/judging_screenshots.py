"""Make the screenshots of docs/judging.md: the assessor's page (laptop and tablet widths) and the
organiser's page, on the Cranfield demo data, in Debian's chromium driven by Playwright.

    python scripts/judging_screenshots.py docs/img
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]


def _call(url: str, token: str, path: str, body: dict | None = None):
    headers = {"Authorization": f"Bearer {token}"}
    data = None
    if body is not None:
        data, headers["Content-Type"] = json.dumps(body).encode(), "application/json"
    with urllib.request.urlopen(urllib.request.Request(url + path, data=data, headers=headers)) as response:
        return json.loads(response.read() or b"null")


def _grade(doc: str, *, noise: int = 0) -> int:
    """A made-up assessor: grade from the document id; ``noise`` shifts every 5th document."""
    value = int(doc) * 7 % 5
    grade = 0 if value < 2 else 1 if value < 4 else 2
    return (grade + noise) % 3 if int(doc) % 5 == 0 else grade


def _judge(url: str, token: str, count: int, *, noise: int = 0) -> None:
    pair = _call(url, token, "/api/next")
    for _ in range(count):
        pair = _call(url, token, "/api/judgments", {"topic": pair["topic"]["id"], "doc": pair["doc"]["id"],
                                                    "grade": _grade(pair["doc"]["id"], noise=noise)})["next"]


def main(folder: str) -> None:
    from playwright.sync_api import expect, sync_playwright

    from cranfield import datasets
    from cranfield.judge.storage import open_database
    from cranfield.judgments.pooling import build_pool

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="cranfield-shots-"))
    data = datasets.cranfield()
    build_pool([data["runs"][n] for n in ("bm25", "tfidf", "coord_title")], method="depth", depth=10).write(
        work / "pool.qrels")
    db, port = str(work / "judge.sqlite"), 8791
    server = subprocess.Popen([sys.executable, "-m", "cranfield", "judge", "serve", str(work / "pool.qrels"),
                               "--docs", str(data["documents"]), "--topics", str(data["topics"]), "--db", db,
                               "--port", str(port), "--overlap", "0.5"], stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(url + "/judge")
                break
            except OSError:
                time.sleep(0.1)
        accounts = open_database(db)
        tokens = {name: accounts.add_account(name) for name in ("ana", "ben", "chloe")}
        boss = accounts.add_account("lead", role="organiser")
        accounts.close()
        _judge(url, tokens["ana"], 12)
        _judge(url, tokens["ben"], 8, noise=1)
        _judge(url, tokens["chloe"], 6)
        _judge(url, tokens["ana"], 2)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            for name, viewport in (("judge-assessor.png", {"width": 1280, "height": 760}),
                                   ("judge-tablet.png", {"width": 768, "height": 1024})):
                page = browser.new_page(viewport=viewport)
                page.goto(f"{url}/judge#token={tokens['ana']}")
                expect(page.locator("#progress")).not_to_have_text("")
                page.screenshot(path=str(out / name))
                page.close()
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(f"{url}/organiser#token={boss}")
            expect(page.locator("#judged")).not_to_have_text("")
            page.screenshot(path=str(out / "judge-organiser.png"))
            browser.close()
    finally:
        server.terminate()
        server.wait()
    for name in ("judge-assessor.png", "judge-tablet.png", "judge-organiser.png"):
        print(out / name, os.path.getsize(out / name), "bytes")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/img")
