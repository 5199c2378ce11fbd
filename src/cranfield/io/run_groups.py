"""The run-groups table: which group (participant, team) each run belongs to.

Grammar (one decision per line, nothing decided from a sample):

* UTF-8 text (compressed or not, any source :func:`cranfield.io.sources.read_all` opens), lines
  ended by ``\\n`` (a ``\\r\\n`` ending is accepted);
* two fields per line, ``run`` and ``group``, separated by a tab in a ``.tsv`` file and by a comma
  otherwise (CSV quoting rules: a field with a comma or a quote is quoted, ``""`` is a quote);
* an optional first line ``run,group`` (``run<TAB>group``), the header, skipped;
* a field is not empty and not only blanks (surrounding blanks are removed); a run is listed once;
* blank lines are errors (they usually mean a broken file), except at the very end; so is a
  carriage return inside a line.

Errors name the file, the 1-based line and the field.
"""

from __future__ import annotations

import csv
import io

from ..errors import InputError
from .sources import read_text_lines

__all__ = ["read_run_groups"]


def _fields(line: str, delimiter: str, name: str, number: int) -> list:
    if "\r" in line:  # the csv module reads a lone CR as a line break it refuses
        raise InputError("a carriage return (\\r) inside the line; expected lines ended by \\n or \\r\\n",
                         source=name, line=number)
    try:
        return next(csv.reader(io.StringIO(line), delimiter=delimiter))
    except csv.Error as error:
        raise InputError(f"cannot read the line as CSV ({error})", source=name, line=number) from None


def read_run_groups(source) -> dict[str, str]:
    """``{run: group}`` from a run-groups table (see the module's grammar).

    >>> import io
    >>> read_run_groups(io.BytesIO(b"run,group\\nuva-bm25,uva\\ncmu-dfr,cmu\\n"))
    {'uva-bm25': 'uva', 'cmu-dfr': 'cmu'}
    """
    name, lines = read_text_lines(source)
    delimiter = "\t" if str(name).lower().endswith((".tsv", ".tsv.gz")) else ","
    out: dict[str, str] = {}
    where: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        line = line[:-1] if line.endswith("\r") else line
        fields = _fields(line, delimiter, name, number) if line.strip() else []
        if not fields:
            raise InputError("blank line; expected 'run" + delimiter + "group'", source=name, line=number)
        if len(fields) != 2:
            raise InputError(f"expected 2 fields 'run{delimiter}group', found {len(fields)}", source=name, line=number)
        run, group = (f.strip() for f in fields)
        if number == 1 and (run, group) == ("run", "group"):
            continue
        for field, value in (("run", run), ("group", group)):
            if not value:
                raise InputError(f"empty {field}; expected a name", source=name, line=number, field=field)
        if run in out:
            raise InputError(f"run {run!r} listed twice (also on line {where[run]})", source=name, line=number,
                             field="run")
        out[run], where[run] = group, number
    if not out:
        raise InputError("no run listed; expected lines 'run" + delimiter + "group'", source=name)
    return out
