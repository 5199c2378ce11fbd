"""``cranfield demo``: the whole tool on real data shipped with the package, offline."""

from __future__ import annotations

from pathlib import Path

import click

from .. import datasets
from ..io.atomic import write_text_output
from ..judge.app import demo
from ..plots._base import save_figures
from ..report.agreement import demo_agreement_files
from ..report.detection import detection_figures, detection_html, detection_study
from ..report.judgments import add_section, demo_section, demo_text, pools_at_depths
from ..report.progress import steps
from ..report.retrieval import retrieval_figures, retrieval_html, retrieval_study
from ._common import EXIT_CODES, unique_stems
from .online_models_cmd import run_online_demo

RETRIEVAL_ORDER = ("bm25", "tfidf", "coord_title")  # strongest to weakest


@click.command("demo", epilog=EXIT_CODES, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--detection", is_flag=True,
              help="Demo of detection: three classifiers' scores on the breast-cancer data, instead of retrieval.")
@click.option("-o", "--output-dir", metavar="DIR", default=None,
              help="Folder for the plots and the report. Default: ./cranfield-demo (./cranfield-demo-detection "
                   "with --detection).")
@click.option("-f", "--format", "fmt", type=click.Choice(("png", "svg", "pdf")), default="png", show_default=True,
              help="Format of the plots.")
@click.option("--permutations", type=int, default=10_000, show_default=True,
              help="Permutations of the randomization test (retrieval).")
@click.option("--seed", type=int, default=0, show_default=True, help="Random seed.")
@click.option("-q", "--quiet", is_flag=True, help="No progress and no messages; the table is still printed.")
@click.option("--online", is_flag=True, help="Demo of online evaluation: simulated users click on two Cranfield runs; "
                                             "how many impressions an A/B test and interleaving need.")
@click.option("--judge", is_flag=True, help="Demo of judging in the browser: serve a depth-10 pool of the Cranfield runs "
                                            "with the Cranfield documents and queries, and print the assessor's link.")
@click.option("--port", type=click.IntRange(1, 65535), default=8765, show_default=True,
              help="Port of the judging server (--judge).")
def command(detection, output_dir, fmt, permutations, seed, quiet, online=False, judge=False, port=8765):
    """Evaluate and compare systems on real data shipped with cranfield, print the table, and
    write the plots and a self-contained HTML report into a folder.

    \b
    Retrieval (default): the Cranfield 1400 collection (225 queries, graded judgments) and three
    real runs (BM25, TF-IDF, title term overlap), compared on AP (MAP), nDCG@10, P@10, RR and
    R-precision with 95% confidence intervals and a paired randomization test with Holm's
    correction.
    Detection (--detection): breast-cancer diagnosis (569 samples) scored by three scikit-learn
    models; ROC AUC with DeLong intervals and tests, AP, EER, the F1-optimal threshold.

    \b
    Examples:
      cranfield demo
      cranfield demo --detection --output-dir /tmp/demo
      cranfield demo --judge
    """
    folder = Path(output_dir or ("cranfield-demo-detection" if detection else "cranfield-demo"))
    if judge:  # issue 28: judging in the browser (cranfield.judge)
        return demo(output_dir or "cranfield-demo-judge", port=port,
                    announce=lambda line: click.echo(f"cranfield: {line}", err=True))
    if online:  # h5: the online demo (cranfield.cli.online_models_cmd)
        return run_online_demo(output_dir or "cranfield-demo-online", fmt=fmt, seed=seed, quiet=quiet)
    with steps(enabled=not quiet) as step:
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
        step(f"writing {len(figures) + len(extra) + 3} files to {folder}")
        written = _write(folder, figures, fmt, report, {"summary.txt": table,
                                                       "summary.md": study.summary_text("markdown"), **extra})
    click.echo(table, nl=False)
    if not quiet:
        click.echo(f"\ncranfield: wrote {len(written)} files to {folder}/ "
                   f"({', '.join(p.name for p in written)})\nOpen {folder / 'report.html'} in a browser.", err=True)


def _write(folder: Path, figures: dict, fmt: str, report: str, texts: dict) -> list[Path]:
    written = save_figures(figures, folder, format=fmt)
    for name, text in {**texts, "report.html": report}.items():
        write_text_output(text, folder / name)
        written.append(folder / name)
    return written
