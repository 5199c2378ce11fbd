"""``cranfield pool`` (a judging sheet from runs) and ``cranfield reusability`` (leave-one-run-out
and leave-one-group-out): thin shells over :mod:`cranfield.judgments`."""

from __future__ import annotations

import os

import click

from .._params import check_count
from ..errors import UsageError
from ..io.atomic import write_text_output
from ..judgments.from_files import pool_from_files, reusability_from_files
from ..report.judgments import judgments_page, judgments_section, render_reusability
from ._options import html_option, input_options, run_specs, write_html_report

FORMATS = ("table", "csv", "tsv", "json", "markdown", "latex")


@click.command("pool", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("runs", metavar="RUN...", nargs=-1)
@click.option("-o", "--output", metavar="FILE", default=None,
              help="Write the judging sheet here (atomically). Default: standard output.")
@click.option("--method", type=click.Choice(("depth", "rbp", "mtf", "rrf")), default="depth", show_default=True,
              help="depth: union of every run's top K; rbp: summed RBP weight; mtf: Move-to-Front; rrf: reciprocal "
                   "rank fusion.")
@click.option("-k", "--depth", type=int, default=None, metavar="K",
              help="Ranks of each run considered (required with --method depth).")
@click.option("--budget", type=int, default=None, metavar="N", help="Documents to judge per query (default: all).")
@click.option("--p", "p", type=float, default=0.8, show_default=True, help="RBP persistence (--method rbp).")
@click.option("--rrf-k", type=float, default=60.0, show_default=True, help="RRF constant k in 1/(k + rank).")
@click.option("--qrels", metavar="FILE", default=None,
              help="Judgments MTF simulates (--method mtf); without them MTF is a round robin over the runs.")
@click.option("-l", "--relevance-level", type=int, default=1, show_default=True,
              help="Minimum judgment counted as relevant by MTF.")
@click.option("-f", "--format", "fmt", type=click.Choice(("trec", "csv")), default="trec", show_default=True,
              help="trec: 'qid 0 docno -1' lines in judging order; csv: qid,docno,order,runs,weight,rel (rel -1: not judged yet).")
@click.option("--stats", metavar="PATH", default=None,
              help="Write the pool statistics as CSV (kind,name,statistic,value: pool size per query, documents "
                   "each run contributes, documents unique to each run, the settings).")
@input_options
@html_option
def pool_command(runs, output, method, depth, budget, p, rrf_k, qrels, relevance_level, fmt, stats, names,
                 qrels_columns, run_columns, html):
    """Pool RUNs into a judging sheet: per query, the documents to judge in a stable order
    (priority descending, then best rank, then docno byte-wise; MTF: order of judgment).
    A summary of the pool goes to standard error.

    \b
    Examples:
      cranfield pool a.run b.run c.run --depth 100 -o pool.qrels
      cranfield pool *.run --method rbp --budget 50 --p 0.8 --format csv -o sheet.csv --stats stats.csv
      cranfield pool *.run --method mtf --budget 100 --qrels qrels.txt -o mtf.qrels
      cranfield pool *.run --method rrf --depth 1000 --budget 30
    """
    _check_positive(depth, "--depth")
    _check_positive(budget, "--budget")
    if method == "depth" and depth is None:
        raise UsageError("--method depth needs --depth K (the top K documents of each run are pooled)")
    if qrels is not None and method != "mtf":
        raise UsageError(f"--qrels is used by --method mtf only (found --method {method})")
    if stats is not None and output is not None and os.path.abspath(stats) == os.path.abspath(output):
        raise UsageError(f"--stats and -o name the same file {output}: give two files")
    pool = pool_from_files(run_specs(runs, names), run_columns=run_columns, qrels=qrels, qrels_columns=qrels_columns,
                           method=method, depth=depth, budget=budget, p=p, rrf_k=rrf_k, relevance_level=relevance_level)
    text = pool.sheet_text(fmt)
    if stats is not None:
        write_text_output(pool.stats_text(), stats)
    write_text_output(text, output)
    if html is not None:
        label = f"{method} (depth {depth})" if depth is not None else method
        write_html_report(html, "Pool", [], sections=[("pool", "Pool statistics", judgments_section({label: pool}))],
                          settings={"method": method, "depth": depth, "budget": budget, "p": p, "rrf_k": rrf_k,
                                    "relevance level": relevance_level},
                          inputs=[(f"run {n}", path) for n, path in zip(pool.run_names, runs)]
                          + ([("qrels", qrels)] if qrels else []))
    sizes = pool.pool_size
    click.echo(f"cranfield: pooled {len(pool)} documents over {sizes.size} queries ({method}; per query "
               f"min {int(sizes.min())}, mean {sizes.mean():.1f}, max {int(sizes.max())}); unique per run: "
               + ", ".join(f"{n} {int(u)}" for n, u in zip(pool.run_names, pool.unique)), err=True)


def _check_positive(value, flag: str) -> None:
    if value is not None:
        check_count(value, flag)


@click.command("reusability", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("qrels", metavar="QRELS")
@click.argument("runs", metavar="RUN...", nargs=-1)
@click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE",
              help="Measure (repeatable), e.g. -m AP -m P@10. Default: AP.")
@click.option("-k", "--depth", type=int, default=100, show_default=True, help="Pool depth of the leave-out.")
@click.option("--group-by", type=click.Choice(("run", "prefix")), default="run", show_default=True,
              help="run: leave one run out; prefix: leave one group out, the group being the run name up to its "
                   "first '-', '_' or '.' (or its first --prefix-length characters).")
@click.option("--prefix-length", type=int, default=None, metavar="N", help="With --group-by prefix: N characters.")
@click.option("--groups", metavar="FILE", default=None,
              help="Leave one group out, groups from a CSV (TSV for .tsv) file of lines run,group (run: the run's "
                   "name, i.e. its tag or its --name LABEL; an optional header line run,group).")
@click.option("-l", "--relevance-level", type=int, default=1, show_default=True,
              help="Minimum judgment counted as relevant (trec_eval -l).")
@click.option("-f", "--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option("-o", "--output", metavar="FILE", default=None, help="Write here (atomically) instead of stdout.")
@click.option("--html", metavar="PATH", default=None,
              help="Also write a self-contained HTML page: pool sizes, contributions, a ranking-stability chart.")
@click.option("--digits", type=int, default=4, show_default=True, help="Decimals in tables.")
@input_options
def reusability_command(qrels, runs, measures, depth, group_by, prefix_length, groups, relevance_level, fmt, output,
                        html, digits, names, qrels_columns, run_columns):
    """How reusable are QRELS? Leave each run (or group of runs) out of the pool, remove the
    judgments only it contributed, evaluate it again: the change of each measure and of the
    run's rank, and Kendall's tau / tau_AP between the system rankings with and without.

    \b
    Examples:
      cranfield reusability qrels.txt a.run b.run c.run -m AP -m P@10 --depth 100
      cranfield reusability qrels.txt runs/*.run --group-by prefix -m AP
      cranfield reusability qrels.txt runs/*.run --groups groups.csv -f csv -o reuse.csv
      cranfield reusability qrels.txt a.run b.run c.run --depth 20 --html reuse.html
    """
    _check_positive(depth, "--depth")
    _check_positive(prefix_length, "--prefix-length")
    if groups is not None and group_by != "run":
        raise UsageError("--groups and --group-by prefix: give one way to form groups")
    if prefix_length is not None and group_by != "prefix":
        raise UsageError("--prefix-length needs --group-by prefix")
    result, pool = reusability_from_files(qrels, run_specs(runs, names), measures, depth=depth, groups=groups,
                                          group_by=group_by, prefix_length=prefix_length,
                                          relevance_level=relevance_level, qrels_columns=qrels_columns,
                                          run_columns=run_columns, with_pool=html is not None)
    if html is not None:
        write_text_output(judgments_page({f"depth {depth}": pool}, result, title="cranfield: pool reusability"), html)
    write_text_output(render_reusability(result, fmt, digits=digits), output)
