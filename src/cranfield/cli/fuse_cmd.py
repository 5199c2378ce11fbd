"""``cranfield fuse``: one run fused from several (a thin shell over :func:`cranfield.fusion.fuse`)."""

from __future__ import annotations

import click

from ..errors import UsageError
from ..fusion import FUSION_METHODS, NORMALISATIONS, fuse_files
from ..io.atomic import write_text_output
from ..retrieval.trec_text import run_text
from ._options import input_options, run_specs


@click.command("fuse", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("runs", metavar="RUN...", nargs=-1)
@click.option("--method", type=click.Choice(FUSION_METHODS), default="rrf", show_default=True,
              help="rrf, rbc: fuse ranks; combsum (wsum), combmnz, combanz, combmax, combmin, combmed: fuse "
                   "normalised scores.")
@click.option("--norm", type=click.Choice(NORMALISATIONS), default=None,
              help="Score normalisation per run and query for the comb* methods [default: minmax].")
@click.option("--weights", metavar="W,W,...", default=None,
              help="One weight per RUN, in order (rrf, rbc, combsum/wsum); default 1 each.")
@click.option("--rrf-k", type=float, default=60.0, show_default=True, help="RRF constant k in 1/(k + rank).")
@click.option("--p", "p", type=float, default=0.8, show_default=True, help="RBC persistence (--method rbc).")
@click.option("-k", "--depth", type=int, default=None, metavar="K", help="Ranks of each run considered (default: all).")
@click.option("--tag", default=None, help="Tag (last field) of the fused run's lines [default: the method].")
@click.option("-o", "--output", metavar="FILE", default=None,
              help="Write the fused run here (TREC format, atomically). Default: standard output.")
@input_options
def command(runs, method, norm, weights, rrf_k, p, depth, tag, output, names, qrels_columns, run_columns):
    """Fuse RUNs into one run (TREC format): reciprocal rank fusion by default.

    Documents are ranked in each run as trec_eval ranks them (score descending, ties by docno
    descending); the fused run covers every query and document of the RUNs.

    \b
    Examples:
      cranfield fuse bm25.run tfidf.run -o rrf.run
      cranfield fuse bm25.run tfidf.run --method combmnz --norm zscore -o mnz.run
      cranfield fuse a.run b.run c.run --method wsum --weights 0.5,0.3,0.2 -o w.run
    """
    if len(runs) < 2:
        raise UsageError(f"fuse needs at least two RUN files, found {len(runs)}")
    specs = run_specs(runs, names)
    fused = fuse_files(specs, run_columns=run_columns, method=method, norm=norm, weights=_weights(weights),
                       rrf_k=rrf_k, p=p, depth=depth, name=tag or method)  # errors name the options (display_name)
    write_text_output(run_text(fused.qid, fused.docno, fused.score, fused.name), output)
    click.echo(f"cranfield: fused {len(specs)} runs ({fused.settings.text()}): {len(fused)} documents over "
               f"{len(fused.query_ids)} queries", err=True)


def _weights(text: str | None):
    if text is None:
        return None
    values = []
    for item in text.split(","):
        try:
            values.append(float(item))
        except ValueError:
            raise UsageError(f"--weights: expected numbers separated by commas, found {item.strip()!r}") from None
    return values
