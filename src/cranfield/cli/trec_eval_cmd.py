"""``cranfield trec_eval``: a drop-in for the trec_eval program (same flags, same output)."""

from __future__ import annotations

import itertools

import click

from .._arrow import use_jemalloc
from ..io.atomic import atomic_write, write_text_output


@click.command("trec_eval", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-q", "--query_eval_wanted", "query", is_flag=True, help="Also print each query's values.")
@click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE[.PARAMS]",
              help="Measure or nickname (official, all_trec, set); repeatable. Default: official.")
@click.option("-c", "--complete_rel_info_wanted", "complete", is_flag=True,
              help="Average over all qrels queries; queries missing from the run score 0.")
@click.option("-l", "--level_for_rel", "level", type=int, default=1, show_default=True,
              help="Minimum judgment counted as relevant.")
@click.option("-n", "--nosummary", "nosummary", is_flag=True, help="Print no summary.")
@click.option("-D", "--Debug_level", "debug", default=None, hidden=True)
@click.option("-J", "--Judged_docs_only", "judged_only", is_flag=True, help="Drop unjudged documents first.")
@click.option("-N", "--Number_docs_in_coll", "collection_size", type=int, default=None, help="Collection size.")
@click.option("-M", "--Max_retrieved_per_topic", "max_results", type=int, default=None,
              help="Use only the first N documents per query.")
@click.option("-R", "--Rel_info_format", "rel_format", default="qrels", show_default=True,
              type=click.Choice(["qrels"]), help="Relevance format (qrels).")
@click.option("-T", "--Results_format", "results_format", default="trec_results", show_default=True,
              type=click.Choice(["trec_results"]), help="Results format.")
@click.option("-Z", "--Zscore", "zscores", default=None, metavar="FILE", help="Print z-scores (qid measure mean sd).")
@click.option("--trec-eval-version", "version", type=click.Choice(["9", "10"]), default="9", show_default=True,
              help="9 = trec_eval 9.0.8 (textbook recall cut-offs); 10 = trec_eval 10.0.")
@click.option("-o", "--output", default=None, metavar="FILE", help="Write to FILE (atomically) instead of stdout.")
@click.argument("qrels", metavar="QRELS")
@click.argument("run", metavar="RUN")
def command(query, measures, complete, level, nosummary, debug, judged_only, collection_size, max_results,
            rel_format, results_format, zscores, version, output, qrels, run):
    """Evaluate RUN against QRELS exactly as trec_eval does ('-' reads RUN from stdin).

    \b
    Examples:
      cranfield trec_eval qrels.txt run.txt
      cranfield trec_eval -q -m all_trec qrels.txt run.txt
      cranfield trec_eval -m P.5,10 -m ndcg_cut.10 -c -M100 qrels.txt run.txt
    """
    # lazy (start-up): `cranfield trec_eval --help` and a usage error load no numpy, no evaluation engine
    from ..retrieval.trec_eval import TrecEvalOptions, trec_eval_text

    use_jemalloc()

    options = TrecEvalOptions(measures=tuple(measures), query=query, complete=complete, relevance_level=level,
                              summary=not nosummary, judged_only=judged_only, collection_size=collection_size,
                              max_results=max_results, version=version, zscores=zscores)
    write_pieces(trec_eval_text(qrels, run, options), output)


def write_pieces(pieces, output) -> None:
    """Write the text ``pieces`` to ``output`` (atomically) or standard output as they come, so that
    a large output (-q on 100M run lines: 326 MB) is never held whole. The first piece is made
    before anything is opened: the evaluation's errors come first, and no file is written."""
    pieces = iter(pieces)
    first = next(pieces, "")
    if output is None or output == "-":
        for piece in itertools.chain([first], pieces):
            write_text_output(piece, None)
        return
    with atomic_write(output) as handle:
        for piece in itertools.chain([first], pieces):
            handle.write(piece)
