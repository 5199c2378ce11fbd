"""What ``cranfield demo`` writes, from the data shipped with cranfield: the retrieval study of
the Cranfield 1400 runs (with pools, reusability and assessor agreement) or the detection study
of the breast-cancer models; the command writes the files and prints the table."""

from __future__ import annotations

from dataclasses import dataclass

from .. import datasets
from ..plots.stems import unique_stems
from .agreement import demo_agreement_files
from .detection import detection_figures, detection_html, detection_study
from .judgments import add_section, demo_section, demo_text, pools_at_depths
from .retrieval import retrieval_figures, retrieval_html, retrieval_study

__all__ = ["DemoFiles", "demo_files", "RETRIEVAL_ORDER"]

RETRIEVAL_ORDER = ("bm25", "tfidf", "coord_title")  # strongest to weakest


@dataclass
class DemoFiles:
    """``table``: the summary printed; ``figures``: ``{stem: (figure, caption)}``; ``report``: the
    HTML page; ``texts``: the other files, ``{file name: text}``."""

    table: str
    figures: dict
    report: str
    texts: dict


def demo_files(*, detection: bool = False, permutations: int = 10_000, seed: int = 0, step=None) -> DemoFiles:
    """The demo's study and files; ``step(description)`` (the
    :func:`cranfield.report.progress.steps` protocol) is told what runs."""
    step = step or (lambda description, total=None: (lambda n=1: None))
    if detection:
        figures_of, to_html = detection_figures, detection_html
        study = detection_study(datasets.detection(), truth=datasets.DETECTION_TRUTH,
                                scores=datasets.DETECTION_SYSTEMS, criterion="f1", step=step)
        title = "cranfield demo: detection (breast-cancer diagnosis)"
        extra = {}
    else:
        figures_of, to_html = retrieval_figures, retrieval_html
        data = datasets.cranfield()
        runs = [data["runs"][name] for name in RETRIEVAL_ORDER]
        study = retrieval_study(data["qrels"], runs, test="randomization", correction="holm",
                                n_permutations=permutations, random_state=seed, step=step)
        title = "cranfield demo: retrieval (Cranfield 1400)"
        extra = {"comparison.json": study.comparison.to_json()}
        extra.update(demo_agreement_files(data, runs, random_state=seed))
        step("pooling the runs at depths 10, 20, 50 and leaving each out")  # issue 14: pools, reusability
        pools, reuse = pools_at_depths(data["qrels"], runs)
    table = study.summary_text("table")
    if not detection:
        table += "\n" + demo_text(pools, reuse)
    step("drawing")
    figures = unique_stems(figures_of(study))
    report = to_html(study, figures=figures, title=title, command=None)
    if not detection:
        report = add_section(report, "judgments", "Pools and reusability", demo_section(pools, reuse))
    return DemoFiles(table, figures, report, {"summary.txt": table, "summary.md": study.summary_text("markdown"),
                                              **extra})
