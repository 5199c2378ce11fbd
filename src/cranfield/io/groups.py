"""Document groups (fairness of exposure): which group(s) each document belongs to.

Grammar (one decision per line, nothing decided from a sample):

* UTF-8 text (compressed or not, any source :func:`cranfield.io.sources.read_all` opens), lines
  ended by ``\\n`` (``\\r\\n`` accepted);
* two fields per line, ``docno`` and ``group``, separated by blanks (spaces or tabs), as TREC files
  are; a document in several groups has one line per group; an optional first line ``docno group``
  is a header;
* a (document, group) listed twice is an error naming both lines; blank lines are errors except at
  the end.

Errors name the file, the line and the field. A mapping ``{docno: group}`` or ``{docno: [groups]}``
is read by :func:`groups_from_mapping` with the same checks.
"""

from __future__ import annotations

from ..errors import InputError
from .sources import blank_separated_pairs, read_text_lines

__all__ = ["read_groups", "groups_from_mapping"]


def read_groups(source) -> dict[str, list[str]]:
    """``{docno: [group, ...]}`` from a groups file (see the module's grammar).

    >>> import io
    >>> read_groups(io.BytesIO(b"docno group\\nd1 europe\\nd1 women\\nd2 asia\\n"))
    {'d1': ['europe', 'women'], 'd2': ['asia']}
    """
    name, lines = read_text_lines(source)
    out: dict[str, list[str]] = {}
    where: dict[tuple, int] = {}
    for number, docno, group in blank_separated_pairs(name, lines, ("docno", "group"), (("docno", "group"),)):
        key = (docno, group)
        if key in where:
            raise InputError(f"document {key[0]!r} is in group {key[1]!r} twice (also on line {where[key]})",
                             source=name, line=number, field="group")
        where[key] = number
        out.setdefault(docno, []).append(group)
    if not out:
        raise InputError("no document listed; expected lines 'docno group'", source=name)
    return out


def groups_from_mapping(mapping) -> dict[str, list[str]]:
    """``{docno: group}`` or ``{docno: [groups]}`` checked as the file grammar checks a file."""
    if not hasattr(mapping, "items"):
        raise InputError(f"expected a mapping docno -> group(s), found {type(mapping).__name__}", source="groups")
    out: dict[str, list[str]] = {}
    for docno, value in mapping.items():
        groups = [value] if isinstance(value, str) else list(value)
        if not all(isinstance(g, str) and g for g in groups) or not isinstance(docno, str):
            raise InputError(f"document {docno!r}: expected text ids and group names, found {value!r}", source="groups")
        if len(set(groups)) != len(groups):
            raise InputError(f"document {docno!r} lists a group twice", source="groups")
        out[docno] = groups
    return out
