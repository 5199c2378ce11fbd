"""Measures as values: a small grammar, typed parameters and one registry.

A :class:`Measure` is a frozen, hashable value: a family name, its parameters and an
optional cut-off. Its canonical text form parses back to an equal object and is used as the
column name and the cache key::

    AP   AP@100   P@10   P(rel=2)@5   nDCG@10   nDCG(gains={1:1,2:3})@10   RBP(p=0.8)

Grammar (whitespace is ignored)::

    measure := NAME [ "(" [ param { "," param } ] ")" ] [ "@" NUMBER ]
    param   := IDENT "=" value
    value   := NUMBER | "true" | "false" | IDENT | "[" NUMBER {"," NUMBER} "]"
             | "{" NUMBER ":" NUMBER { "," NUMBER ":" NUMBER } "}"

trec_eval names (``map``, ``P_10``, ``P.10``, ``ndcg_cut.10,20``) are accepted as aliases;
see :mod:`cranfield.measures.trec_names`.

Each measure family is declared once, next to its kernel, with :func:`register`.
"""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from ..errors import MeasureError

__all__ = ["Measure", "Family", "Param", "register", "register_names", "get_family", "families", "parse_measure",
           "parse_measures"]


# ----------------------------------------------------------------------------- parameters


@dataclass(frozen=True)
class Param:
    """A typed parameter of a measure family.

    ``kind`` is one of ``"int"``, ``"float"``, ``"bool"``, ``"floats"`` (a sorted tuple of
    floats) or ``"gains"`` (a mapping relevance level -> gain, stored as a sorted tuple of pairs).
    ``check`` returns an error text for an invalid value, or None.
    """

    kind: str
    default: Any
    doc: str = ""
    check: Callable[[Any], str | None] | None = None

    def coerce(self, value: Any, *, family: str, name: str) -> Any:
        try:
            if self.kind == "int":
                if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
                    raise ValueError
                value = int(value)
            elif self.kind == "float":
                if isinstance(value, bool):
                    raise ValueError
                value = float(value)
                if not math.isfinite(value):
                    raise ValueError
            elif self.kind == "bool":
                if not isinstance(value, bool):
                    raise ValueError
            elif self.kind == "str":
                if not isinstance(value, str):
                    raise ValueError
            elif self.kind == "floats":
                value = tuple(float(v) for v in value)
                if not value or not all(math.isfinite(v) for v in value):
                    raise ValueError
            elif self.kind == "gains":
                items = value.items() if isinstance(value, Mapping) else value
                value = tuple(sorted((int(k), float(v)) for k, v in items))
                if len({k for k, _ in value}) != len(value) or not all(math.isfinite(v) for _, v in value):
                    raise ValueError
            else:  # pragma: no cover - programming error
                raise AssertionError(self.kind)
        except (TypeError, ValueError, OverflowError):  # OverflowError: int(inf), e.g. gains={1e400:1}
            raise MeasureError(f"{family}: parameter {name}={_format_value(value)} is not a valid {_KIND_TEXT[self.kind]}") from None
        problem = self.check(value) if self.check else None
        if problem:
            raise MeasureError(f"{family}: parameter {name}={_format_value(value)}: {problem}")
        return value


_KIND_TEXT = {
    "int": "integer",
    "float": "finite number",
    "bool": "boolean (true or false)",
    "str": "word",
    "floats": "non-empty list of numbers such as [0.25,0.5]",
    "gains": "gain map such as {1:1,2:3}",
}


def _format_number(value: float | int) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(float(value))


def _format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return _format_number(value)
    if isinstance(value, tuple) and value and isinstance(value[0], tuple):
        return "{" + ",".join(f"{_format_number(k)}:{_format_number(v)}" for k, v in value) + "}"
    if isinstance(value, (tuple, list)):
        return "[" + ",".join(_format_number(v) for v in value) + "]"
    return str(value)


# ----------------------------------------------------------------------------- families


@dataclass(frozen=True)
class Family:
    """One measure family: its parameters, kernel and documentation.

    ``kernel(view, measure)`` takes a :class:`~cranfield.retrieval.ranked.RankedView` and the
    measure and returns one float64 value per query. ``cutoff`` is ``"none"``, ``"optional"`` or
    ``"required"``; ``cutoff_kind`` is ``"int"`` (a rank k ≥ 1) or ``"float"`` (e.g. a recall
    level). ``aggregate`` says how per-query values are summarised: ``"mean"``, ``"gmean"``
    (trec_eval's geometric mean with floor 1e-5) or ``"sum"`` (counts). ``bounds`` are the
    values' bounds for any input (None where unbounded), used by the property tests.
    """

    name: str
    kernel: Callable[..., Any]
    definition: str
    reference: str = ""
    params: Mapping[str, Param] = field(default_factory=dict)
    cutoff: str = "none"
    cutoff_kind: str = "int"
    aggregate: str = "mean"
    aliases: tuple[str, ...] = ()
    bounds: tuple[float | None, float | None] = (0.0, 1.0)
    integer_valued: bool = False
    needs: tuple[str, ...] = ()  # evaluation options a measure needs, e.g. ("collection_size",)
    # micro(view, measure) -> (numerator, denominator) per query, for aggregate="micro"
    # (Σ numerators / Σ denominators); None where the measure has no ratio form.
    micro: Callable[..., Any] | None = None

    def make(self, params: Mapping[str, Any] | None = None, cutoff: float | int | None = None) -> "Measure":
        return Measure(self.name, tuple((params or {}).items()), cutoff)


# Parameters every family accepts. judged_only=true evaluates the measure on the condensed
# list: the ranking with unjudged documents removed (Sakai 2007); see measures/condensed.py.
COMMON_PARAMS: dict[str, Param] = {
    "judged_only": Param("bool", False, "evaluate on the condensed list (unjudged documents removed)"),
}

_REGISTRY: dict[str, Family] = {}
_ALIASES: dict[str, str] = {}  # lower-case name or alias -> canonical family name


def register(family: Family) -> Family:
    """Add a family to the registry (at import of its module)."""
    if family.name in _REGISTRY:
        raise AssertionError(f"measure family {family.name} registered twice")
    _REGISTRY[family.name] = family
    for alias in (family.name, *family.aliases):
        key = alias.lower()
        if key in _ALIASES and _ALIASES[key] != family.name:
            raise AssertionError(f"alias {alias} of {family.name} already names {_ALIASES[key]}")
        _ALIASES[key] = family.name
    return family


# Other names of measures, registered (like the families) by the modules that own them when the
# package is imported (measures/__init__ imports the registry): trec_names (trec_eval's names, e.g.
# ``map``, ``P.5,10``) and condensed (``AP'``, ``condensed_AP``). A resolver maps a text to a list of
# measures or None; they are tried in registration order before the canonical grammar. This module
# imports none of them: it is the bottom of the package.
_RESOLVERS: list[Callable[[str], Any]] = []
_OTHER_NAMES: list[Callable[[], list[str]]] = []  # names offered in "did you mean" hints


def register_names(resolve: Callable[[str], Any], names: Callable[[], list[str]] | None = None) -> None:
    """Register a resolver of other measure names (and, optionally, the names to suggest)."""
    _RESOLVERS.append(resolve)
    if names is not None:
        _OTHER_NAMES.append(names)


def families() -> dict[str, Family]:
    """All registered families by canonical name."""
    return dict(_REGISTRY)


def get_family(name: str) -> Family:
    family = _REGISTRY.get(name)  # a canonical name (every Measure's): no alias lookup
    if family is not None:
        return family
    canonical = _ALIASES.get(name.lower())
    if canonical is None:
        raise MeasureError(_unknown_message(name))
    return _REGISTRY[canonical]


def _unknown_message(name: str) -> str:
    candidates = sorted(set(_REGISTRY).union(*(names() for names in _OTHER_NAMES)))
    close = difflib.get_close_matches(name, candidates, n=3, cutoff=0.5)
    lower = {c.lower(): c for c in candidates}
    if name.lower() in lower:
        close = [lower[name.lower()]]
    hint = f"; did you mean {' or '.join(close)}?" if close else ""
    return f"unknown measure {name!r}{hint} (see `cranfield measures` for the list)"


# ----------------------------------------------------------------------------- measure values


@dataclass(frozen=True, init=False)
class Measure:
    """A measure: family, parameters (defaults omitted) and optional cut-off. Hashable."""

    name: str
    params: tuple[tuple[str, Any], ...]
    cutoff: float | int | None

    def __init__(self, name: str, params: Sequence[tuple[str, Any]] | Mapping[str, Any] = (), cutoff: Any = None):
        family = get_family(name)
        items = dict(params.items() if isinstance(params, Mapping) else params)
        normalised: list[tuple[str, Any]] = []
        for key, value in items.items():
            spec = family.params.get(key) or COMMON_PARAMS.get(key)
            if spec is None:
                allowed = ", ".join([*family.params, *COMMON_PARAMS])
                raise MeasureError(f"{family.name}: unknown parameter {key!r} (parameters: {allowed})")
            value = spec.coerce(value, family=family.name, name=key)
            default = spec.coerce(spec.default, family=family.name, name=key) if spec.default is not None else None
            if value != default:
                normalised.append((key, value))
        normalised.sort()
        cutoff = _check_cutoff(family, cutoff)
        object.__setattr__(self, "name", family.name)
        object.__setattr__(self, "params", tuple(normalised))
        object.__setattr__(self, "cutoff", cutoff)

    @property
    def family(self) -> Family:
        return get_family(self.name)

    def param(self, key: str) -> Any:
        """The value of parameter ``key`` (its default when not given)."""
        for name, value in self.params:
            if name == key:
                return value
        spec = self.family.params.get(key) or COMMON_PARAMS[key]
        return spec.coerce(spec.default, family=self.name, name=key) if spec.default is not None else None

    def __str__(self) -> str:
        text = self.name
        if self.params:
            text += "(" + ",".join(f"{k}={_format_value(v)}" for k, v in self.params) + ")"
        if self.cutoff is not None:
            text += "@" + _format_number(self.cutoff)
        return text

    def __repr__(self) -> str:
        return f"Measure({str(self)!r})"

    def __lt__(self, other: "Measure") -> bool:
        return str(self) < str(other)

    @property
    def definition(self) -> str:
        return self.family.definition


_MAX_CUTOFF = 10**18


def _check_cutoff(family: Family, cutoff: Any) -> float | int | None:
    if cutoff is None:
        if family.cutoff == "required":
            raise MeasureError(f"{family.name} needs a cut-off, e.g. {family.name}@{10 if family.cutoff_kind == 'int' else 0.5}")
        return None
    if family.cutoff == "none":
        raise MeasureError(f"{family.name} takes no cut-off (found @{_format_value(cutoff)})")
    try:
        value = float(cutoff)
    except OverflowError:  # an integer beyond the range of floats
        value = math.inf
    except (TypeError, ValueError):
        raise MeasureError(f"{family.name}: cut-off must be a number, found @{cutoff!r}") from None
    if family.cutoff_kind == "int":
        if isinstance(cutoff, bool) or not (value.is_integer() or value == math.inf) or value < 1:
            raise MeasureError(f"{family.name}: cut-off must be a whole number ≥ 1, found @{_format_value(cutoff)}")
        if value == math.inf or int(cutoff) > _MAX_CUTOFF:  # beyond int64 the kernels overflow
            raise MeasureError(f"{family.name}: cut-off must be at most 10^18, found @{_format_value(cutoff)}")
        return int(cutoff)
    if not math.isfinite(value) or value < 0:
        raise MeasureError(f"{family.name}: cut-off must be a number ≥ 0, found @{_format_value(cutoff)}")
    return value


# ----------------------------------------------------------------------------- grammar

_TOKEN = re.compile(
    r"\s*(?:(?P<number>[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|(?P<ident>[A-Za-z_][A-Za-z0-9_\-]*)|(?P<punct>[()@,=\[\]{}:]))"
)


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.tokens: list[tuple[str, str, int]] = []
        pos = 0
        stripped = text.rstrip()
        while pos < len(stripped):
            match = _TOKEN.match(stripped, pos)
            if not match or match.end() == pos:
                raise self.error(f"unexpected character {stripped[pos:].lstrip()[:1]!r}", pos)
            kind = match.lastgroup
            self.tokens.append((kind, match.group(kind), match.start(kind)))
            pos = match.end()
        self.index = 0

    def error(self, message: str, pos: int | None = None) -> MeasureError:
        where = f" at position {pos + 1}" if pos is not None else ""
        return MeasureError(f"malformed measure {self.text!r}: {message}{where}")

    def peek(self) -> tuple[str, str, int] | None:
        return self.tokens[self.index] if self.index < len(self.tokens) else None

    def take(self, kind: str | None = None, value: str | None = None) -> tuple[str, str, int]:
        token = self.peek()
        if token is None:
            raise self.error(f"unexpected end, expected {value or kind}")
        if (kind and token[0] != kind) or (value and token[1] != value):
            raise self.error(f"expected {value or kind}, found {token[1]!r}", token[2])
        self.index += 1
        return token

    def accept(self, value: str) -> bool:
        token = self.peek()
        if token is not None and token[0] == "punct" and token[1] == value:
            self.index += 1
            return True
        return False

    def number(self) -> float | int:
        token = self.peek()
        if token is None or token[0] != "number":
            found = repr(token[1]) if token else "end"
            raise self.error(f"expected a number, found {found}", token[2] if token else None)
        self.index += 1
        text = token[1]
        return int(text) if re.fullmatch(r"[+-]?\d+", text) else float(text)

    def value(self) -> Any:
        token = self.peek()
        if token is None:
            raise self.error("unexpected end, expected a value")
        if token[0] == "number":
            return self.number()
        if token[0] == "ident":
            self.index += 1
            lowered = token[1].lower()
            return {"true": True, "false": False}.get(lowered, token[1])
        if self.accept("["):
            items = [self.number()]
            while self.accept(","):
                items.append(self.number())
            self.take("punct", "]")
            return tuple(items)
        if self.accept("{"):
            pairs = []
            while True:
                key = self.number()
                self.take("punct", ":")
                pairs.append((key, self.number()))
                if not self.accept(","):
                    break
            self.take("punct", "}")
            return tuple(pairs)
        raise self.error(f"expected a value, found {token[1]!r}", token[2])

    def measure(self) -> Measure:
        name = self.take("ident")[1]
        params: dict[str, Any] = {}
        if self.accept("("):
            if not self.accept(")"):
                while True:
                    key_token = self.take("ident")
                    if key_token[1] in params:
                        raise self.error(f"parameter {key_token[1]!r} given twice", key_token[2])
                    self.take("punct", "=")
                    params[key_token[1]] = self.value()
                    if self.accept(")"):
                        break
                    self.take("punct", ",")
        cutoff = None
        if self.accept("@"):
            cutoff = self.number()
        token = self.peek()
        if token is not None:
            raise self.error(f"unexpected {token[1]!r}", token[2])
        return Measure(name, params, cutoff)


def parse_measure(text: "str | Measure") -> Measure:
    """Parse one measure from its canonical text or a single-measure trec_eval name.

    >>> str(parse_measure("P(rel=1)@10")), str(parse_measure("ndcg_cut_10")), str(parse_measure("map"))
    ('P@10', 'nDCG@10', 'AP')
    """
    measures = parse_measures(text)
    if len(measures) != 1:
        raise MeasureError(f"{text!r} names {len(measures)} measures; expected one")
    return measures[0]


def parse_measures(*texts: "str | Measure | Sequence[str | Measure]") -> list[Measure]:
    """Parse measures; trec_eval specs such as ``P.5,10`` or ``official`` expand to several.

    Duplicates are removed, first occurrence first.
    """
    flat: list[str | Measure] = []
    for item in texts:
        if isinstance(item, (str, Measure)):
            flat.append(item)
        else:
            flat.extend(item)
    result: list[Measure] = []
    for item in flat:
        if isinstance(item, Measure):
            result.append(item)
            continue
        if not isinstance(item, str):
            raise MeasureError(f"a measure is a string or Measure, found {type(item).__name__}")
        text = item.strip()
        if not text:
            raise MeasureError("empty measure name")
        named = next((found for found in (resolve(text) for resolve in _RESOLVERS) if found is not None), None)
        if named is not None:  # a trec_eval name (map, P.5,10) or a condensed form (AP', condensed_P@10)
            result.extend(named)
            continue
        name, dot, _ = text.partition(".")
        if dot and re.fullmatch(r"[A-Za-z_]\w*", name) and name.lower() not in _ALIASES:  # a mistyped trec_eval name
            raise MeasureError(_unknown_message(name))
        result.append(_Parser(text).measure())
    return list(dict.fromkeys(result))
