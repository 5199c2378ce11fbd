"""Declared argument constraints: one check and one error wording for every public function.

In the spirit of scikit-learn's ``validate_params``: a public function declares what each
parameter accepts, and a wrong value is a :class:`~cranfield.errors.UsageError` of one line,

    ``<name>: expected <what is accepted>, found <the value>``

where ``<name>`` is the name the *user* wrote: the parameter's name in Python, the option's name
(``--baseline``) on the command line. The command line maps names with :func:`option_names`
(explicitly) and :func:`set_option_resolver` (the running command's own options), so that a
library check deep down still speaks of the user's option.

Constraints are small callables ``constraint(value, name) -> value`` that return the value
normalised (an ``int`` for a count, a ``float`` for a number, a ``numpy.random.Generator`` for a
seed):

* :class:`Interval` — a real or whole number within bounds, open or closed at each end;
  always finite (``nan`` and ``inf`` are refused unless an end is infinite and ``finite=False``);
* :class:`Choice` — one of a fixed set of values (strings, typically);
* :class:`Count` — a whole number from ``low`` to ``high`` (``1e4`` is accepted as 10000);
* :class:`Seed` — ``None``, an int >= 0 or a ``numpy.random.Generator``;
* :class:`Optional` — ``None`` or what the inner constraint accepts.

>>> check_interval(0.5, "alpha", low=0, high=1, closed="neither")
0.5
>>> check_interval(1.5, "alpha", low=0, high=1, closed="neither")
Traceback (most recent call last):
...
cranfield.errors.UsageError: alpha: expected a number strictly between 0 and 1, found 1.5
>>> with option_names(correction="--correction"):
...     check_choice("holm", "correction", ("none", "bonferroni"))
Traceback (most recent call last):
...
cranfield.errors.UsageError: --correction: expected one of none, bonferroni, found 'holm'
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ._option_names import display_name, option_names, set_option_resolver
from .errors import UsageError

__all__ = ["Interval", "Choice", "Count", "Seed", "Optional", "validate_params", "option_names",
           "set_option_resolver", "display_name", "usage_error", "check_interval", "check_fraction",
           "check_probability", "check_finite", "check_flag", "check_choice", "check_count", "check_seed",
           "as_generator",
           "seed_int"]



def _shown(value: Any) -> str:
    text = " ".join(repr(value).split())  # one line, whatever the value (an array's repr has several)
    return text if len(text) <= 60 else text[:59] + "…"


def usage_error(name: str, expected: str, value: Any) -> UsageError:
    """The one wording: ``<name>: expected <expected>, found <value>``."""
    return UsageError(f"{display_name(name)}: expected {expected}, found {_shown(value)}")


def _number_text(value: float) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _is_real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


@dataclass(frozen=True)
class Interval:
    """A number within ``low`` .. ``high`` (None: unbounded); ``closed`` is ``"both"``,
    ``"left"``, ``"right"`` or ``"neither"``; ``integer=True`` asks for a whole number (returned as
    an int); ``finite=False`` lets an unbounded end reach infinity."""

    low: float | None = None
    high: float | None = None
    closed: str = "both"
    integer: bool = False
    finite: bool = True

    def expected(self) -> str:
        kind = "a whole number" if self.integer else "a number"
        low_closed = self.closed in ("both", "left")
        high_closed = self.closed in ("both", "right")
        low, high = self.low, self.high
        if low is not None and high is not None:
            if low_closed and high_closed:
                return f"{kind} from {_number_text(low)} to {_number_text(high)}"
            if not low_closed and not high_closed:
                return f"{kind} strictly between {_number_text(low)} and {_number_text(high)}"
            return (f"{kind} {'>=' if low_closed else '>'} {_number_text(low)} and "
                    f"{'<=' if high_closed else '<'} {_number_text(high)}")
        if low is not None:
            return f"{kind} {'>=' if low_closed else '>'} {_number_text(low)}"
        if high is not None:
            return f"{kind} {'<=' if high_closed else '<'} {_number_text(high)}"
        return f"a finite {kind[2:]}" if self.finite else kind

    def __call__(self, value: Any, name: str):
        if not _is_real(value):
            raise usage_error(name, self.expected(), value)
        number = float(value) if not isinstance(value, numbers.Integral) else value
        if math.isnan(number) or (self.finite and math.isinf(number)):
            raise usage_error(name, self.expected(), value)
        if self.integer and not (isinstance(value, numbers.Integral) or float(number).is_integer()):
            raise usage_error(name, self.expected(), value)
        low_closed = self.closed in ("both", "left")
        high_closed = self.closed in ("both", "right")
        if self.low is not None and (number < self.low or (number == self.low and not low_closed)):
            raise usage_error(name, self.expected(), value)
        if self.high is not None and (number > self.high or (number == self.high and not high_closed)):
            raise usage_error(name, self.expected(), value)
        return int(value) if self.integer else float(value)


@dataclass(frozen=True)
class Choice:
    """One of ``options`` (compared with ``==``; the value is returned unchanged)."""

    options: tuple

    def expected(self) -> str:
        return "one of " + ", ".join(str(option) for option in self.options)

    def __call__(self, value: Any, name: str):
        try:
            found = any(isinstance(value, str) == isinstance(option, str) and isinstance(value, bool) ==
                        isinstance(option, bool) and bool(value == option) for option in self.options)
        except (TypeError, ValueError):  # an array compared with a string
            found = False
        if not found:
            raise usage_error(name, self.expected(), value)
        return value


@dataclass(frozen=True)
class Count:
    """A whole number from ``low`` to ``high`` (a whole float such as ``1e4`` is accepted);
    ``why`` says why ``high`` is the limit."""

    low: int = 1
    high: int | None = None
    why: str = ""

    def __call__(self, value: Any, name: str) -> int:
        whole = isinstance(value, numbers.Integral) or (_is_real(value) and math.isfinite(value)
                                                         and float(value).is_integer())
        if isinstance(value, (bool, np.bool_)) or not whole or value < self.low:
            raise usage_error(name, f"a whole number >= {self.low}", value)
        if self.high is not None and value > self.high:
            raise usage_error(name, f"at most {self.high:,}{f' ({self.why})' if self.why else ''}", value)
        return int(value)


@dataclass(frozen=True)
class Seed:
    """``None``, an int >= 0 or a ``numpy.random.Generator``; returned as a Generator."""

    def __call__(self, value: Any, name: str) -> np.random.Generator:
        if isinstance(value, np.random.Generator):
            return value
        if isinstance(value, np.random.SeedSequence):
            return np.random.default_rng(value)
        if value is not None and (isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral)
                                  or value < 0):
            raise usage_error(name, "an int >= 0, None or a numpy.random.Generator", value)
        return np.random.default_rng(None if value is None else int(value))


@dataclass(frozen=True)
class Optional:
    """``None``, or what ``inner`` accepts."""

    inner: Callable[[Any, str], Any]

    def __call__(self, value: Any, name: str):
        return None if value is None else self.inner(value, name)


def validate_params(**constraints: Callable[[Any, str], Any]):
    """Decorator: check (and normalise) the arguments the caller passed against the declared
    ``constraints`` (defaults are trusted), then call the function.

    >>> @validate_params(alpha=Interval(0, 1, closed="neither"))
    ... def f(*, alpha=0.05):
    ...     return alpha
    >>> f(alpha=1)
    Traceback (most recent call last):
    ...
    cranfield.errors.UsageError: alpha: expected a number strictly between 0 and 1, found 1
    """
    def decorate(function):
        signature = inspect.signature(function)
        unknown = set(constraints) - set(signature.parameters)
        if unknown:  # pragma: no cover - a programming error
            raise AssertionError(f"{function.__qualname__} has no parameter {sorted(unknown)}")

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError as error:
                raise UsageError(f"{function.__name__}: {error}") from None
            arguments = bound.arguments
            for name, constraint in constraints.items():
                if name in arguments:
                    arguments[name] = constraint(arguments[name], name)
            return function(*bound.args, **bound.kwargs)

        wrapper.__cranfield_params__ = dict(constraints)
        return wrapper
    return decorate


# Function forms of the constraints, for checks inside a function.

def check_interval(value: Any, name: str, *, low=None, high=None, closed: str = "both", integer: bool = False):
    return Interval(low, high, closed, integer)(value, name)


def check_fraction(value: Any, name: str) -> float:
    """A number strictly between 0 and 1 (a level, a confidence, a persistence)."""
    return _FRACTION(value, name)


def check_probability(value: Any, name: str) -> float:
    """A number from 0 to 1."""
    return _PROBABILITY(value, name)


def check_finite(value: Any, name: str) -> float:
    """A finite number (no nan, no inf)."""
    return _FINITE(value, name)


def check_flag(value: Any, name: str) -> bool:
    """True or False (NumPy booleans accepted)."""
    if not isinstance(value, (bool, np.bool_)):
        raise usage_error(name, "True or False", value)
    return bool(value)


def check_choice(value: Any, name: str, options) -> Any:
    return Choice(tuple(options))(value, name)


def check_count(value: Any, name: str, low: int = 1, high: int | None = None, why: str = "") -> int:
    return Count(low, high, why)(value, name)


def as_generator(value: Any, name: str = "seed") -> np.random.Generator:
    """A ``numpy.random.Generator`` from ``None``, an int >= 0 or a Generator."""
    return Seed()(value, name)


def check_seed(value: Any, name: str = "random_state") -> int | None:
    """``None`` or an int in [0, 2**32) (for libraries such as scikit-learn that take ints);
    a Generator is accepted and draws one."""
    if isinstance(value, np.random.Generator):
        return int(value.integers(0, 2**31 - 1))
    if value is None:
        return None
    return Interval(0, 2**32, closed="left", integer=True)(value, name)


seed_int = check_seed

_FRACTION = Interval(0, 1, closed="neither")
_PROBABILITY = Interval(0, 1)
_FINITE = Interval()
