"""Exceptions raised by cranfield.

Every error caused by a user's input is a :class:`CranfieldError`; the command line turns it
into one readable line on standard error and exit status 2, never a traceback.
Errors about input data say *where* (file, line, field), *what was found* and *what was
expected*, e.g. ``run.txt:1234: expected 6 fields "qid Q0 docno rank score tag", found 4``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["CranfieldError", "InputError", "Interrupted", "MeasureError", "UsageError"]


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


# A message that starts with a library parameter's name (``tau: expected ...``,
# ``cost_fn must be ...``) speaks of the option the user typed (``--tau``) when a command line is
# running: cranfield._params installs its ``display_name`` here (issue 24, cause 4).
_LEADING_NAME = re.compile(r"([a-z][a-z0-9_]*)(?=: | must | is )")
_display_name: Callable[[str], str] | None = None


def set_display_name(function: Callable[[str], str] | None) -> None:
    """Install the function that gives the user's name of a library parameter."""
    global _display_name
    _display_name = function


class UsageError(CranfieldError, ValueError):
    """Options that do not fit together (e.g. a measure that needs a collection size).

    A message starting with a parameter's name names the running command's option instead."""

    def __init__(self, message: object = "", *args: object) -> None:
        if _display_name is not None and isinstance(message, str):
            match = _LEADING_NAME.match(message)
            if match is not None:
                message = _display_name(match.group(1)) + message[match.end():]
        super().__init__(message, *args)


class Interrupted(KeyboardInterrupt):
    """The command line received SIGTERM or SIGHUP (``signum``); raised by its signal handler.

    A ``KeyboardInterrupt``, so that every clean-up that runs on Ctrl-C (removing an atomic
    output's temporary file above all) runs for these signals too. The command line then exits
    with status 128 + ``signum`` (143 for SIGTERM, 129 for SIGHUP), as a shell reports a process
    killed by that signal; Ctrl-C (SIGINT) stays a plain ``KeyboardInterrupt``, exit 130.
    """

    def __init__(self, signum: int) -> None:
        self.signum = int(signum)
        super().__init__(self.signum)
