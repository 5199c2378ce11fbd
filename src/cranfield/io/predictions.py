"""Per-query predictions (query performance prediction): one query id and one number per line.

Grammar (one decision per line, nothing decided from a sample):

* UTF-8 text (compressed or not, any source :func:`cranfield.io.sources.read_all` opens), lines
  ended by ``\\n`` (a ``\\r\\n`` ending is accepted);
* two fields per line, ``qid`` and ``value``, separated by blanks (spaces or tabs), as the TREC
  files are; an optional first line ``qid value`` (any blank between), the header, is skipped;
* ``value`` is a finite decimal number (``0.25``, ``-3``, ``1e-4``); NaN and infinity are errors;
* a query is listed once; blank lines are errors, except at the very end.

Errors name the file, the 1-based line and the field. A file holds one value per query (thousands
of lines at most), so it is read line by line.
"""

from __future__ import annotations

import math

from ..errors import InputError
from .sources import blank_separated_pairs, read_text_lines

__all__ = ["read_predictions"]


def read_predictions(source) -> dict[str, float]:
    """``{qid: value}`` from a predictions file (see the module's grammar).

    >>> import io
    >>> read_predictions(io.BytesIO(b"qid value\\n1 0.25\\n2 1e-3\\n"))
    {'1': 0.25, '2': 0.001}
    """
    name, lines = read_text_lines(source)
    out: dict[str, float] = {}
    where: dict[str, int] = {}
    for number, qid, text_value in blank_separated_pairs(name, lines, ("qid", "value"),
                                                          (("qid", "value"), ("qid", "score"))):
        try:
            value = float(text_value)
        except ValueError:
            raise InputError(f"expected a number, found {text_value!r}", source=name, line=number,
                             field="value") from None
        if not math.isfinite(value) or text_value.lower().lstrip("+-") in ("nan", "inf", "infinity"):
            raise InputError(f"expected a finite number, found {text_value!r}", source=name, line=number,
                             field="value")
        if qid in out:
            raise InputError(f"query {qid!r} listed twice (also on line {where[qid]})", source=name, line=number,
                             field="qid")
        out[qid], where[qid] = value, number
    if not out:
        raise InputError("no query listed; expected lines 'qid value'", source=name)
    return out
