"""``cranfield demo``: the whole tool on real data shipped with the package, offline."""

from __future__ import annotations

from pathlib import Path

import click

from ..io.atomic import write_text_output
from ..judge.app import demo
from ..plots._base import save_figures
from ..report.demo import demo_files
from ..report.progress import steps
from ._common import EXIT_CODES
from .online_models_cmd import run_online_demo


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
        files = demo_files(detection=detection, permutations=permutations, seed=seed, step=step)
        step(f"writing {len(files.figures) + len(files.texts) + 1} files to {folder}")
        written = _write(folder, files.figures, fmt, files.report, files.texts)
    table = files.table
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
