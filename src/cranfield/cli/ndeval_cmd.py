"""``cranfield ndeval``: NIST ndeval's diversity report (TREC Web track), same CSV output."""

from __future__ import annotations

import click

from ..io.atomic import write_text_output
from ..retrieval.diversity import ndeval_text


@click.command("ndeval", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--alpha", "-alpha", type=float, default=0.5, show_default=True,
              help="Redundancy intolerance α (alpha-nDCG, ERR-IA, NRBP), in [0, 1].")
@click.option("--beta", "-beta", type=float, default=0.5, show_default=True, help="Patience β of NRBP, in [0, 1].")
@click.option("-c", "complete", is_flag=True, help="Average over every qrels topic (missing topics score 0).")
@click.option("-M", "max_results", type=int, default=None, help="Use only the first N documents of each topic.")
@click.option("-l", "--level", "level", type=int, default=1, show_default=True,
              help="Minimum judgment counted as relevant to a subtopic.")
@click.option("--ndeval-nan", "ndeval_nan", is_flag=True,
              help="Print -nan for nNRBP of a topic without relevant subtopics (and its mean), as ndeval does; "
                   "default 0.")
@click.option("-o", "--output", default=None, metavar="FILE", help="Write to FILE (atomically) instead of stdout.")
@click.argument("qrels", metavar="QRELS")
@click.argument("run", metavar="RUN")
def command(alpha, beta, complete, max_results, level, ndeval_nan, output, qrels, run):
    """Diversity measures of RUN against diversity QRELS ("qid subtopic docno rel" lines), printed
    as ndeval prints them: ERR-IA, nERR-IA, alpha-DCG, alpha-nDCG @5,10,20, NRBP, nNRBP, MAP-IA,
    P-IA and strec @5,10,20, one CSV line per topic and the mean ('-' reads RUN from stdin).

    Documents are ranked by score, then docno (ndeval -traditional). The same measures, with
    any cut-off and parameters, are in `cranfield evaluate --diversity -m 'alpha-nDCG(alpha=0.3)@10'`.

    \b
    Examples:
      cranfield ndeval qrels.diversity.txt run.txt
      cranfield ndeval --alpha 0.7 --beta 0.8 -c qrels.diversity.txt run.txt -o run.ndeval.csv
    """
    write_text_output(ndeval_text(qrels, run, alpha=alpha, beta=beta, complete=complete, max_results=max_results,
                                  relevance_level=level, ndeval_nan=ndeval_nan), output)
