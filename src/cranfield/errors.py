"""Exceptions raised by cranfield.

Every error caused by a user's input is a :class:`CranfieldError`; the command line turns it
into one readable line on standard error and exit status 2, never a traceback.
Errors about input data say *where* (file, line, field), *what was found* and *what was
expected*, e.g. ``run.txt:1234: expected 6 fields "qid Q0 docno rank score tag", found 4``.
"""

from __future__ import annotations

__all__ = ["CranfieldError", "InputError", "MeasureError", "UsageError"]


class CranfieldError(Exception):
    """Base class of every error cranfield raises on purpose."""


class InputError(CranfieldError, ValueError):
    """Malformed or inconsistent input data.

    ``source`` is a file name (or a description such as ``"<stdin>"`` or ``"run dict"``),
    ``line`` a 1-based line number, ``field`` the name of the offending field.
    """

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        self.message = message
        self.source = source
        self.line = line
        self.field = field
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = ""
        if self.source is not None:
            where = str(self.source)
            if self.line is not None:
                where += f":{self.line}"
            where += ": "
        elif self.line is not None:
            where = f"line {self.line}: "
        field = f"field {self.field}: " if self.field else ""
        return f"{where}{field}{self.message}"


class MeasureError(CranfieldError, ValueError):
    """An unknown or malformed measure name or parameter."""


class UsageError(CranfieldError, ValueError):
    """Options that do not fit together (e.g. a measure that needs a collection size)."""
