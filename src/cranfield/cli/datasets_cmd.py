"""``cranfield datasets``: the data files shipped with cranfield, and where they are."""

from __future__ import annotations

import click

from .._params import usage_error
from .. import datasets


@click.command("datasets", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--path", "name", metavar="NAME", default=None,
              help="Print only the path of the file NAME (qrels, qrels_raw, bm25, tfidf, coord_title, detection, "
                   "clicks, crowd-labels, diversity-qrels, multiclass).")
def command(name):
    """List the data shipped with cranfield (offline): the Cranfield 1400 judgments, three real
    runs, a classifier-scores file, and example files for the online, crowd, diversity and
    multiclass commands (a click log, crowd labels, diversity qrels, class scores), with their paths.

    \b
    Examples:
      cranfield datasets
      cranfield evaluate $(cranfield datasets --path qrels) $(cranfield datasets --path bm25)
      cranfield online metrics $(cranfield datasets --path clicks)
    """
    files = datasets.files()
    if name is not None:
        if name not in files:
            raise usage_error("--path", f"one of {', '.join(files)}", name)
        click.echo(str(files[name][0]))
        return
    width = max(map(len, files))
    for key, (path, about) in files.items():
        click.echo(f"{key:<{width}}  {path}\n{'':<{width}}  {about}")
