"""Options shared by the retrieval commands (``evaluate``, ``compare``, ``report``, ``curves``),
declared once, and the helpers behind them: run naming (``--name LABEL=PATH``), column mappings
of CSV/Parquet inputs, the query-set policy's flags, and errors spelt in the command line's terms.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import sys
from typing import Iterator

import click

from ..errors import CranfieldError, UsageError
from ..io.atomic import write_text_output
from ..io.run_names import run_specs  # noqa: F401  (re-exported: the commands import it here)

# the query-set policy's choices as the command line spells them (see cranfield.stats.compare.QuerySetError)
CLI_TERMS = {"intersect": "--missing intersect", "zero": "--missing zero", "complete": "-c"}


def _stack(function, options):
    for option in reversed(options):
        function = option(function)
    return function


def evaluation_options(function):
    """trec_eval's evaluation options: ``-c -l -M -J -N``."""
    return _stack(function, [
        click.option("-c", "--complete", is_flag=True,
                     help="Evaluate every qrels query; one missing from a run scores 0 (trec_eval -c)."),
        click.option("-l", "--relevance-level", type=int, default=1, show_default=True,
                     help="Minimum judgment counted as relevant (trec_eval -l)."),
        click.option("-M", "--max-results", type=int, default=None, metavar="N",
                     help="Use the first N documents per query (trec_eval -M)."),
        click.option("-J", "--judged-only", is_flag=True, help="Drop unjudged documents before evaluating (trec_eval -J)."),
        click.option("-N", "--collection-size", type=int, default=None, metavar="N",
                     help="Collection size, for measures that need it (trec_eval -N)."),
        click.option("--ignore-self", is_flag=True,
                     help="Drop run rows whose docno equals the query id (BEIR ArguAna/Quora); qrels unchanged."),
        click.option("--propensities", default=None, metavar="FILE",
                     help="'docno propensity' lines, for PSP@k and PSnDCG@k."),
    ])


def input_options(function):
    """How runs are named and how CSV/Parquet columns are read."""
    return _stack(function, [
        click.option("--name", "names", multiple=True, metavar="LABEL=PATH",
                     help="Name the run in PATH (given as RUN or not) LABEL; repeatable. Default: the run's tag; "
                          "runs with the same name are numbered (myrun, myrun#2)."),
        click.option("--qrels-columns", metavar="FIELD=COL,...",
                     help="Columns of a CSV/TSV/Parquet QRELS, e.g. qid=query_id,docno=doc_id,rel=relevance "
                          "(default: cranfield's, ir_measures', PyTerrier's or ranx's names, recognised)."),
        click.option("--run-columns", metavar="FIELD=COL,...",
                     help="Columns of CSV/TSV/Parquet runs, e.g. qid=query_id,docno=doc_id,score=score."),
    ])


def missing_option(function):
    """The query-set policy of comparisons."""
    return click.option("--missing", type=click.Choice(("error", "intersect", "zero")), default="error",
                        show_default=True,
                        help="Runs over different queries: stop (error), compare on the common queries "
                             "(intersect), or count a missing query as 0 (zero); -c evaluates every qrels query.")(function)


def evaluate_options(complete=False, relevance_level=1, max_results=None, judged_only=False,
                     collection_size=None, ignore_self=False, propensities=None, **_ignored) -> dict:
    """The keyword arguments of :class:`cranfield.Evaluator` from the options' values."""
    extra = {key: value for key, value in (("ignore_self", ignore_self), ("propensities", propensities)) if value}
    return dict(complete=complete, relevance_level=relevance_level, max_results=max_results,
                judged_only=judged_only, collection_size=collection_size, **extra)


# keyword arguments that library errors name, and the flags that set them on the command line
CLI_SPELLING = {"aggregate='macro'": "--aggregate macro", "aggregate='micro'": "--aggregate micro"}


@contextlib.contextmanager
def cli_terms() -> Iterator[None]:
    """Errors that name Python keyword arguments, re-raised with the command line's flags."""
    try:
        yield
    except CranfieldError as error:
        # a QuerySetError comes from cranfield.stats.compare, so that module is loaded if one was raised:
        # looked up, not imported (start-up: importing cranfield.stats costs `cranfield evaluate` ~0.1 s)
        compare = sys.modules.get("cranfield.stats.compare")
        if compare is not None and isinstance(error, compare.QuerySetError):
            raise error.in_terms(CLI_TERMS) from None
        text = str(error)
        if any(python in text for python in CLI_SPELLING):
            for python, flag in CLI_SPELLING.items():
                text = text.replace(python, flag)
            raise UsageError(text) from None
        raise


# ------------------------------------------------------------------------------------- run naming

# ------------------------------------------------------------------------- renamed options

_RENAMED = "cranfield.renamed"


def renamed_option(old: str, param: str, metavar: str = "COL"):
    """A hidden option ``old``, the deprecated spelling of the option whose parameter is
    ``param``; :func:`take_renamed` reads it (and warns) in the command."""
    def store(ctx: click.Context, _param: click.Parameter, value):
        if value is not None:
            ctx.meta.setdefault(_RENAMED, {})[param] = (old, value)

    return click.option(old, f"renamed_{param}_{old.strip('-').replace('-', '_')}", hidden=True, expose_value=False,
                        callback=store, metavar=metavar, help=f"Deprecated spelling of the {param} option.")


def take_renamed(param: str, value, flag: str, *, required: bool = True):
    """``value`` of option ``flag``, or the value of its deprecated spelling (with a warning on
    standard error); neither is an error naming ``flag`` when ``required``."""
    found = click.get_current_context().meta.get(_RENAMED, {}).get(param)
    if found is not None:
        old, given = found
        if value is not None and value != given:
            raise UsageError(f"{flag} {value} and {old} {given} (its deprecated spelling) disagree: give {flag} only")
        click.echo(f"cranfield: warning: {old} is deprecated; write {flag}", err=True)
        value = given
    if value is None and required:
        raise UsageError(f"missing option {flag}")
    return value


def html_option(function):
    """``--html FILE``: the command's results also as a self-contained HTML report page (the
    report's layout: tables that fit a 1280 px window, charts, inputs and settings)."""
    return click.option("--html", "html", metavar="FILE", type=click.Path(dir_okay=False), default=None,
                        help="Also write the results as a self-contained HTML report (offline; fits a 1280 px "
                             "window).")(function)


def write_html_report(path: str | None, title: str, tables, *, figures=None, settings=None, inputs=(),
                      subtitle: str = "", sections=()) -> None:
    """Write the page of :func:`cranfield.report.html.results_document` to ``path`` (atomically)
    when ``path`` is given."""
    if path is None:
        return
    from ..report.html import results_document  # lazy (start-up): every command imports _options; few write HTML

    write_text_output(results_document(title, tables, figures=figures, settings=settings, inputs=inputs,
                                       subtitle=subtitle, command=command_line(), sections=sections), path)


# library parameters that the command line spells differently everywhere
_LIBRARY_NAMES = {"random_state": "seed", "n_resamples": "resamples", "n_permutations": "permutations"}


def option_of(name: str) -> str | None:
    """The running command's option for the library parameter ``name`` (``--resamples`` for
    ``resamples``, ``--seed`` for ``random_state``), or None: how :mod:`cranfield._params` errors
    name the user's option."""
    context = click.get_current_context(silent=True)
    wanted = {name, _LIBRARY_NAMES.get(name, name)}
    while context is not None:
        for parameter in context.command.params:
            if isinstance(parameter, click.Option) and parameter.name in wanted:
                longs = [opt for opt in parameter.opts if opt.startswith("--")]
                return (longs or parameter.opts)[0]
        context = context.parent
    return None


def command_line() -> str | None:
    """The command as typed, when this process is the ``cranfield`` program."""
    name = os.path.basename(sys.argv[0]) if sys.argv else ""
    if name in ("cranfield", "__main__.py"):
        return "cranfield " + shlex.join(sys.argv[1:])
    return None
