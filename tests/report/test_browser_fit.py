"""Every report page fits a 1280 px window (issue 27), in a real browser (Debian's chromium driven
by Playwright, as in test_browser.py): for every section, table and figure of the retrieval,
detection, multiclass, online (A/B, metrics, interleaving, click models) and judgments (pool,
reusability, agreement) reports, scrollWidth <= clientWidth and nothing reaches past the right
edge; the page itself has no horizontal scroll. A full-page screenshot of each is kept under the
test's temporary folder."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import cranfield.cli
from cranfield import datasets

from .test_browser import browser  # noqa: F401  (the chromium fixture)

WIDTH = 1280

OVERFLOW = """(width) => {
  const problems = [];
  const name = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
                       " in " + ((el.closest("section") || {}).id || "page");
  for (const el of document.querySelectorAll("section, table, figure, .wide-table, .scroll, .charts, dl, svg")) {
    if (el.scrollWidth > el.clientWidth && el.tagName !== "svg") {
      problems.push(name(el) + ": scrollWidth " + el.scrollWidth + " > clientWidth " + el.clientWidth);
    }
    const right = el.getBoundingClientRect().right;
    if (right > width) { problems.push(name(el) + ": right edge at " + Math.round(right) + " px"); }
  }
  const page = document.documentElement.scrollWidth;
  if (page > width) { problems.push("document scrollWidth " + page); }
  return {problems: problems, tables: document.querySelectorAll("table").length,
          figures: document.querySelectorAll("figure").length,
          sections: Array.from(document.querySelectorAll("section")).map((s) => s.id)};
}"""


def _main(argv) -> None:
    assert cranfield.cli.main(argv) == 0


@pytest.fixture(scope="module")
def pages(tmp_path_factory, retrieval_study, detection_study):
    from cranfield.report.detection import detection_html
    from cranfield.report.retrieval import retrieval_html

    folder = tmp_path_factory.mktemp("fit")
    (folder / "retrieval.html").write_text(retrieval_html(retrieval_study), encoding="utf-8")
    (folder / "detection.html").write_text(detection_html(detection_study), encoding="utf-8")
    data = datasets.cranfield()
    qrels, raw = str(data["qrels"]), str(data["qrels_raw"])
    runs = [str(data["runs"][n]) for n in ("bm25", "tfidf", "coord_title")]
    # multiclass: three classes, their scores in columns named after them
    rng = np.random.default_rng(3)
    classes = np.array(["barbera", "barolo", "grignolino"])
    truth = classes[rng.integers(0, 3, 120)]
    logits = rng.normal(0, 1, (120, 3)) + 2.0 * (truth[:, None] == classes[None, :])
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    frame = pd.DataFrame({"truth": truth, **{f"p_{c}": np.round(p[:, i], 6) for i, c in enumerate(classes)}})
    frame.to_csv(folder / "wine.csv", index=False)
    _main(["report", str(folder / "wine.csv"), "--truth", "truth", "--class-score", "p_barbera", "--class-score",
           "p_barolo", "--class-score", "p_grignolino", "-o", str(folder / "multiclass.html"), "-q"])
    # multilabel: a 0/1 truth column and a score column per class
    labels = (rng.random((120, 3)) < [0.3, 0.5, 0.2]).astype(int)
    pd.DataFrame({**{f"is_{c}": labels[:, i] for i, c in enumerate(classes)},
                  **{f"s_{c}": np.round(labels[:, i] * 0.4 + rng.random(120) * 0.6, 4) for i, c in enumerate(classes)}}
                 ).to_csv(folder / "labels.csv", index=False)
    _main(["report", str(folder / "labels.csv"), *[x for c in classes for x in ("--class-truth", f"{c}=is_{c}")],
           *[x for c in classes for x in ("--class-score", f"s_{c}")], "-o", str(folder / "multilabel.html"), "-q"])
    # online: a click log with three variants
    n = 600
    user = rng.integers(0, 90, n)
    variant = np.array(["control", "treatment_one", "treatment_two"])[user % 3]
    rank = np.tile(np.arange(1, 9), n)
    impression = np.repeat(np.arange(n), 8)
    clicked = rng.random(rank.size) < 0.45 / rank + 0.03 * (user[impression] % 3)
    log = folder / "clicks.csv"
    pd.DataFrame({"impression": impression, "query": np.repeat(rng.integers(0, 20, n), 8), "rank": rank,
                  "doc": rng.integers(0, 80, rank.size), "clicked": clicked.astype(int),
                  "variant": variant[impression], "user": [f"u{u}" for u in user[impression]]}).to_csv(log, index=False)
    _main(["online", "ab", str(log), "--unit", "user", "--control", "control", "--html", str(folder / "ab.html")])
    _main(["online", "metrics", str(log), "--unit", "user", "--html", str(folder / "metrics.html")])
    _main(["online", "interleave", *runs[:2], "--qrels", qrels, "--impressions", "300",
           "--html", str(folder / "interleave.html")])
    _main(["online", "click-model", str(log), "-m", "pbm", "-m", "dbn", "--iterations", "10",
           "--html", str(folder / "click_model.html")])
    # judgments
    _main(["pool", *runs, "--depth", "10", "-o", str(folder / "pool.qrels"), "--html", str(folder / "pool.html")])
    _main(["reusability", qrels, *runs, "--depth", "10", "-m", "AP", "-m", "P@10",
           "--html", str(folder / "reusability.html")])
    _main(["agreement", raw, qrels, "--runs", runs[0], "--runs", runs[1], "--per-query", "--resamples", "50",
           "--html", str(folder / "agreement.html")])
    return folder


PAGES = ["retrieval", "detection", "multiclass", "multilabel", "ab", "metrics", "interleave", "click_model", "pool",
         "reusability", "agreement"]


@pytest.mark.parametrize("name", PAGES)
def test_every_section_fits_1280_px(browser, pages, name, capsys):  # noqa: F811
    capsys.readouterr()
    page = browser.new_page(viewport={"width": WIDTH, "height": 900})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto((pages / f"{name}.html").as_uri(), wait_until="load")
    found = page.evaluate(OVERFLOW, WIDTH)
    page.screenshot(path=str(pages / f"{name}.png"), full_page=True)
    page.close()
    assert errors == []
    assert found["tables"] >= 1 and found["sections"], found
    assert found["problems"] == [], f"{name}: " + "; ".join(found["problems"][:5])
    if name in ("retrieval", "detection", "multiclass", "multilabel", "ab", "interleave", "click_model", "reusability"):
        assert found["figures"] >= 1
