"""``cranfield judge``: relevance assessment in the browser (serve, assessor add, export): thin
shells over :mod:`cranfield.judge` (the ``judge`` extra: starlette, uvicorn, psycopg)."""

from __future__ import annotations

import click

from ..judge.app import add_account, export, parse_scale, prepare, serve

SETTINGS = {"help_option_names": ["-h", "--help"]}
DB_HELP = "The judging database: a SQLite file (made if missing) or a postgresql://USER@HOST:PORT/NAME URL."


@click.group("judge", context_settings=SETTINGS)
def command() -> None:
    """Judge pooled documents in the browser: a server for assessors, an organiser's page, qrels out.

    \b
    Examples:
      cranfield pool a.run b.run --depth 10 -o pool.qrels
      cranfield judge serve pool.qrels --docs docs.jsonl --topics topics.txt --db judge.sqlite
      cranfield judge assessor add judge.sqlite alice
      cranfield judge export judge.sqlite -o qrels.txt
    """


@command.command("serve", context_settings=SETTINGS)
@click.argument("pool", metavar="POOL")
@click.option("--docs", "docs", metavar="FILE", required=True,
              help="Documents: JSONL (id, text, optional title; name ending .jsonl), TSV (id, [title,] text; .tsv), "
                   "TREC text (<DOC>), the Cranfield format (.I/.T/.W), or irds:<dataset id> (an ir_datasets "
                   "docstore).")
@click.option("--topics", "topics", metavar="FILE", required=True,
              help="Topics: TREC topics (<top>), JSONL (id, title, optional description, narrative) or Cranfield "
                   "queries (.I/.W), or irds:<dataset id> (its queries).")
@click.option("--db", "db", metavar="URL", default="judge.sqlite", show_default=True, help=DB_HELP)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(1, 65535), default=8765, show_default=True, help="Port to listen on.")
@click.option("--scale", metavar="G=LABEL,...", default=None,
              help="The grade scale, digits 0-9 (the keys that give them). Default: 0=Not relevant,1=Relevant,"
                   "2=Highly relevant.")
@click.option("--overlap", type=float, default=0.1, show_default=True,
              help="Fraction of the pool judged by two assessors (for agreement).")
@click.option("--mtf", "mtf", metavar="RUN", multiple=True,
              help="Order each topic's documents by adaptive Move-to-Front over these runs (repeat: the runs that "
                   "made the pool), re-ranked after every judgment. Default: the pool's judging order.")
@click.option("-l", "--relevance-level", type=int, default=1, show_default=True,
              help="Minimum grade counted as relevant by --mtf.")
def serve_command(pool, docs, topics, db, host, port, scale, overlap, mtf, relevance_level):
    """Serve the judging of POOL (a judging sheet as `cranfield pool` writes it: 'qid 0 docno -1'
    lines in judging order). The database keeps every judgment; restarting on it resumes."""
    judging = prepare(pool, docs, topics, db, scale=parse_scale(scale), overlap=overlap, mtf=mtf,
                      relevance_level=relevance_level)
    serve(judging, host=host, port=port, announce=lambda line: click.echo(f"cranfield: {line}", err=True))


@command.group("assessor", context_settings=SETTINGS)
def assessor_group() -> None:
    """Accounts of a judging database."""


@assessor_group.command("add", context_settings=SETTINGS)
@click.argument("db", metavar="DB")
@click.argument("name", metavar="NAME")
@click.option("--organiser", is_flag=True, help="An organiser's account (the organiser's page) instead.")
@click.option("--url", metavar="URL", default=None,
              help="The server's address in the link. Default: where `cranfield judge serve` last served DB.")
def assessor_add_command(db, name, organiser, url):
    """Add an assessor NAME to the judging database DB and print the link to their page (with
    their token: give it to them only; it is shown once)."""
    click.echo(add_account(db, name, organiser=organiser, url=url))


@command.command("export", context_settings=SETTINGS)
@click.argument("db", metavar="DB")
@click.option("-o", "--output", metavar="FILE", default=None,
              help="Write the qrels here (atomically). Default: standard output.")
@click.option("--labels", metavar="FILE", default=None,
              help="Also write every assessor's labels as CSV query,document,worker,label (for aggregate-labels).")
@click.option("--times", metavar="FILE", default=None,
              help="Also write the time log as CSV (every judgment, skip and undo, with the seconds spent).")
def export_command(db, output, labels, times):
    """Write the judgments of DB as TREC qrels ('topic 0 doc grade'; for a pair judged twice, the
    topic's first assessor's grade), and optionally the raw labels and the time log."""
    lines = export(db, output, labels=labels, times=times)
    click.echo(f"cranfield: exported {lines} judgments", err=True)
