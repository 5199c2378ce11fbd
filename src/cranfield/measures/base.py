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
each retrieval family carries its own (``Family.trec``), collected by
:mod:`cranfield.measures.trec_names`.

One registry holds the measures of every area (DESIGN 15): retrieval (this package),
classification and regression (:mod:`cranfield.classification.measures`), clustering
(:mod:`cranfield.classification.clustering`) and online metrics of click logs
(:mod:`cranfield.online.metrics`). Each family is declared once, next to its kernel,
with :func:`register`; an area's module registers its families when it is imported, and a lookup
imports it on demand through :data:`AREA_MODULES` (no import of a higher layer here). Canonical
names are unique across areas; aliases belong to an area (``ap`` is retrieval AP, and
classification's ``average_precision`` when parsed with ``area="classification"``).
"""

from __future__ import annotations

import difflib
import functools
import importlib
import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from ..errors import MeasureError
from ._ir_measures import ir_measures_text

__all__ = ["Measure", "Family", "Param", "register", "get_family", "families", "parse_measure", "parse_measures",
           "areas", "AREAS", "AREA_MODULES", "register_resolver"]


# ----------------------------------------------------------------------------- parameters


@dataclass(frozen=True)
class Param:
    """A typed parameter of a measure family.

    ``kind`` is one of ``"int"``, ``"float"``, ``"bool"``, ``"str"`` (a word), ``"value"`` (a
    number, word or boolean), ``"floats"`` (a sorted tuple of floats) or ``"gains"`` (a mapping
    relevance level -> gain, stored as a sorted tuple of pairs).
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
            elif self.kind in ("bool", "str"):
                if not isinstance(value, bool if self.kind == "bool" else str):
                    raise ValueError
            elif self.kind == "value":  # a scalar whose type the kernel checks (e.g. zero_division)
                if value is not None and not isinstance(value, (bool, int, float, str)):
                    raise ValueError
            elif self.kind == "floats":
                value = tuple(float(v) for v in value)
                if not value or not all(math.isfinite(v) for v in value):
                    raise ValueError
            elif self.kind == "gains":
                items = value.items() if isinstance(value, Mapping) else value
                value = tuple(sorted((_level_key(k), float(v)) for k, v in items))
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


def _level_key(key: Any) -> int:
    """A gain map's key: a whole relevance level (1.5 is refused, not truncated to 1)."""
    if isinstance(key, bool) or (isinstance(key, float) and not key.is_integer()):
        raise ValueError(key)
    if isinstance(key, str):
        return int(key.strip())
    return int(key)


_KIND_TEXT = {"int": "integer", "float": "finite number", "bool": "boolean (true or false)", "str": "word",
              "value": "number, word or boolean", "floats": "non-empty list of numbers such as [0.25,0.5]",
              "gains": "gain map such as {1:1,2:3}"}


def _format_number(value: float | int) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(float(value))


def _format_value(value: Any) -> str:
    if isinstance(value, (int, float)):  # (a bool too: an int)
        return _format_number(value)
    if isinstance(value, tuple) and value and isinstance(value[0], tuple):
        return "{" + ",".join(f"{_format_number(k)}:{_format_number(v)}" for k, v in value) + "}"
    if isinstance(value, (tuple, list)):
        return "[" + ",".join(_format_number(v) for v in value) + "]"
    return str(value)


# ----------------------------------------------------------------------------- families


@dataclass(frozen=True)
class Family:
    """One measure family of any area: its parameters, kernel, data and documentation.

    ``area`` is one of :data:`AREAS` (retrieval, classification, clustering, online); ``data``
    names what the kernel reads (see :data:`DATA`). Retrieval kernels ``kernel(view, measure)`` take a
    :class:`~cranfield.retrieval.ranked.RankedView` and return one float64 value per query;
    classification kernels are the functions ``f(y_true, y_pred_or_score, **params)``; online
    kernels give each impression's (numerator, denominator). ``cutoff`` is ``"none"``,
    ``"optional"`` or ``"required"``; ``cutoff_kind`` is ``"int"`` (a rank k ≥ 1) or ``"float"``
    (e.g. a recall level). ``aggregate`` says how per-query values are summarised: ``"mean"``,
    ``"gmean"`` (trec_eval's geometric mean with floor 1e-5) or ``"sum"`` (counts). ``bounds`` are
    the values' bounds for any input (None where unbounded), used by the property tests.
    ``trec`` holds the family's trec_eval names (:class:`~cranfield.measures.trec.TrecMeasure`);
    ``spec`` an area's own declaration (a classification rate's ``RateDef``).
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
    area: str = "retrieval"
    data: str = "ranked judged lists"
    greater_is_better: bool = True
    trec: tuple = ()
    spec: Any = None

    def make(self, params: Mapping[str, Any] | None = None, cutoff: float | int | None = None) -> "Measure":
        return Measure(self.name, tuple((params or {}).items()), cutoff, area=self.area)

    @property
    def all_params(self) -> dict[str, Param]:
        """The family's parameters, with ``judged_only`` for retrieval families."""
        return {**self.params, **COMMON_PARAMS} if self.area == "retrieval" else dict(self.params)


# Parameters every retrieval family accepts. judged_only=true evaluates the measure on the condensed
# list: the ranking with unjudged documents removed (Sakai 2007); see measures/condensed.py.
COMMON_PARAMS: dict[str, Param] = {
    "judged_only": Param("bool", False, "evaluate on the condensed list (unjudged documents removed)"),
}

# The areas, bottom layer first, and the module that registers each one's families when imported.
# A lookup of a measure of a higher area imports that module by name (importlib) instead of an
# import statement: measures/ is layer 1 and never imports the layers above it (DESIGN 13).
AREA_MODULES: dict[str, str] = {
    "retrieval": "cranfield.measures.registry",
    "classification": "cranfield.classification.measures",
    "clustering": "cranfield.classification.clustering",
    "online": "cranfield.online.metrics",
}
AREAS = tuple(AREA_MODULES)

# What a family's kernel reads, by area.
DATA = {
    "retrieval": ("ranked judged lists", "ranked lists with intent judgments"),
    "classification": ("labels", "scores", "probabilities", "values"),
    "clustering": ("cluster labels", "features and cluster labels"),
    "online": ("click logs",),
}

_REGISTRY: dict[str, Family] = {}  # canonical name (unique across areas) -> family
_ALIASES: dict[str, dict[str, str]] = {area: {} for area in AREAS}  # area -> lower-case name/alias -> canonical
# Extra name forms of an area (trec_eval names, condensed names), registered by their modules:
# (area, resolve(text) -> list of Measures or None, names() -> names for "did you mean").
_RESOLVERS: list[tuple[str, Callable[[str], Any], Callable[[], Sequence[str]]]] = []
_LOADED: set[str] = set()


def register(family: Family) -> Family:
    """Add a family to the registry (at import of its module)."""
    if family.area not in AREA_MODULES:
        raise AssertionError(f"measure family {family.name}: unknown area {family.area!r}")
    if family.data not in DATA[family.area]:
        raise AssertionError(f"measure family {family.name}: unknown data {family.data!r}")
    if family.name in _REGISTRY:
        raise AssertionError(f"measure family {family.name} registered twice")
    aliases = _ALIASES[family.area]
    for alias in (family.name, *family.aliases):
        key = alias.lower()
        if key in aliases and aliases[key] != family.name:
            raise AssertionError(f"alias {alias} of {family.name} already names {aliases[key]}")
    _REGISTRY[family.name] = family
    for alias in (family.name, *family.aliases):
        aliases[alias.lower()] = family.name
    return family


def register_resolver(area: str, resolve: Callable[[str], Any], names: Callable[[], Sequence[str]]) -> None:
    """Add a name form of ``area`` tried before the grammar (e.g. trec_eval's ``P.5,10``)."""
    _RESOLVERS.append((area, resolve, names))


def _load(area: str | None = None) -> None:
    """Import the module(s) that register the families of ``area`` (every area when None)."""
    for name in AREAS if area is None else (_check_area(area),):
        if name not in _LOADED:
            importlib.import_module(AREA_MODULES[name])
            _LOADED.add(name)


def _check_area(area: str) -> str:
    if area not in AREA_MODULES:
        raise MeasureError(f"unknown measure area {area!r}; expected one of {', '.join(AREAS)}")
    return area


def areas() -> tuple[str, ...]:
    """The measure areas, in layer order."""
    return AREAS


def families(area: str | None = "retrieval") -> dict[str, Family]:
    """Registered families of ``area`` (every area when None) by canonical name."""
    _load(area)
    return {name: f for name, f in _REGISTRY.items() if area is None or f.area == area}


def get_family(name: str, area: str | None = None) -> Family:
    """The family called ``name`` (canonical or alias, case-insensitive) in ``area``.

    Without an area the retrieval names come first (``rr`` is retrieval RR), then the canonical
    names of every area (``roc_auc``)."""
    family = _REGISTRY.get(name)
    if family is not None and (family.area == area or (area is None and family.area == "retrieval")):
        return family
    for where in (area,) if area is not None else ("retrieval", None):
        _load(where)
        if where is None:
            family = _REGISTRY.get(name)
            if family is not None:
                return family
            continue
        key = name.lower()
        canonical = _ALIASES[where].get(key) or _ALIASES[where].get(key.replace("-", "_").replace(" ", "_"))
        if canonical is not None:
            return _REGISTRY[canonical]
    raise MeasureError(unknown_measure_message(name, area))


def _family_of(canonical: str) -> Family:
    """The family of a canonical name (a Measure's), in any area."""
    family = _REGISTRY.get(canonical)
    if family is None:
        _load()
        family = _REGISTRY[canonical]
    return family


def unknown_measure_message(name: str, area: str | None = None) -> str:
    """The one error text for an unknown measure, with close matches among the area's names."""
    where = area or "retrieval"
    _load(where)
    candidates = sorted({n for f in _REGISTRY.values() if f.area == where
                         for n in (f.name, *(f.aliases if where != "retrieval" else ()))}
                        | {n for a, _, names in _RESOLVERS if a == where for n in names()})
    close = difflib.get_close_matches(name, candidates, n=3, cutoff=0.5)
    lower = {c.lower(): c for c in candidates}
    if name.lower() in lower:
        close = [lower[name.lower()]]
    hint = f"; did you mean {' or '.join(close)}?" if close else ""
    _load()
    elsewhere = sorted({f.area for f in _REGISTRY.values()
                        if f.area != where and name.lower() in _ALIASES[f.area]})
    if elsewhere:
        hint += f"; {name!r} is a{'n' if elsewhere[0][0] in 'aeiou' else ''} {elsewhere[0]} measure"
    option = "" if where == "retrieval" else f" --area {where}"
    return f"unknown {_NOUN[where]} {name!r}{hint} (see `cranfield measures{option}` for the list)"


_NOUN = {"retrieval": "measure", "classification": "classification measure", "clustering": "clustering measure",
         "online": "online metric"}


# ----------------------------------------------------------------------------- measure values


@functools.lru_cache(maxsize=None)
def _default(spec: Param, family: str, key: str) -> Any:
    """A parameter's default, coerced once (measures ask for their defaults at every evaluation)."""
    return spec.coerce(spec.default, family=family, name=key) if spec.default is not None else None


@dataclass(frozen=True, init=False)
class Measure:
    """A measure of any area: family, parameters (defaults omitted) and optional cut-off. Hashable.

    ``name`` is looked up in ``area`` (see :func:`get_family`); the value keeps the family's
    canonical name, so its text parses back to an equal object in that area."""

    name: str
    params: tuple[tuple[str, Any], ...]
    cutoff: float | int | None

    def __init__(self, name: str, params: Sequence[tuple[str, Any]] | Mapping[str, Any] = (), cutoff: Any = None,
                 *, area: str | None = None):
        family = get_family(name, area)
        items = dict(params.items() if isinstance(params, Mapping) else params)
        normalised: list[tuple[str, Any]] = []
        accepted = family.all_params
        for key, value in items.items():
            spec = accepted.get(key)
            if spec is None:
                allowed = ", ".join(accepted) or "none"
                raise MeasureError(f"{family.name}: unknown parameter {key!r} (parameters: {allowed})")
            value = spec.coerce(value, family=family.name, name=key)
            if value != _default(spec, family.name, key):
                normalised.append((key, value))
        normalised.sort()
        cutoff = _check_cutoff(family, cutoff)
        object.__setattr__(self, "name", family.name)
        object.__setattr__(self, "params", tuple(normalised))
        object.__setattr__(self, "cutoff", cutoff)

    @property
    def family(self) -> Family:
        return _family_of(self.name)

    @property
    def area(self) -> str:
        return self.family.area

    def param(self, key: str) -> Any:
        """The value of parameter ``key`` (its default when not given)."""
        for name, value in self.params:
            if name == key:
                return value
        return _default(self.family.params.get(key) or COMMON_PARAMS[key], self.name, key)

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
    def __init__(self, text: str, area: str | None = "retrieval"):
        self.text = text
        self.area = area
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
        return Measure(name, params, cutoff, area=self.area)


def parse_measure(text: "str | Measure | Any", *, area: str = "retrieval") -> Measure:
    """Parse one measure of ``area`` from its canonical text, an alias, a single-measure trec_eval
    name or an ir_measures measure object.

    >>> str(parse_measure("P.10")), str(parse_measure("ndcg_cut_10")), str(parse_measure("map"))
    ('P@10', 'nDCG@10', 'AP')
    >>> str(parse_measure("fbeta(beta=2)", area="classification")), str(parse_measure("ctr@3", area="online"))
    ('fbeta(beta=2)', 'ctr@3')
    """
    measures = parse_measures(text, area=area)
    if len(measures) != 1:
        raise MeasureError(f"{text!r} names {len(measures)} measures; expected one")
    return measures[0]


def parse_measures(*texts: "str | Measure | Any", area: str = "retrieval") -> list[Measure]:
    """Parse measures of ``area``: texts, :class:`Measure` values and ir_measures measure objects
    (``AP``, ``nDCG@10``), alone or in sequences. trec_eval specs such as ``P.5,10`` or
    ``official`` expand to several. Duplicates are removed, first occurrence first.

    The one parse function of every area: the CLI's ``-m``, ``compare``, the protocols'
    ``metrics=``, ``online`` metrics and the report name measures through it.
    """
    _load(area)
    flat: list[Any] = []
    for item in texts:
        if isinstance(item, (str, Measure)) or ir_measures_text(item) is not None:
            flat.append(item)
        elif isinstance(item, (list, tuple)) or (hasattr(item, "__iter__") and not isinstance(item, Mapping)):
            flat.extend(item)
        else:
            flat.append(item)
    result: list[Measure] = []
    for item in flat:
        if isinstance(item, Measure):
            if item.area != area:
                raise MeasureError(f"{item} is a{'n' if item.area[0] in 'aeiou' else ''} {item.area} measure; "
                                   f"expected a{'n' if area[0] in 'aeiou' else ''} {area} measure")
            result.append(item)
            continue
        converted = ir_measures_text(item)
        if converted is not None:
            item = converted
        if not isinstance(item, str):
            raise MeasureError(f"a measure is a string, a Measure or an ir_measures measure, found {type(item).__name__}")
        result.extend(_parse_text(item, area))
    return list(dict.fromkeys(result))


def _plain_name(text: str, area: str) -> bool:
    return text.lower().replace("-", "_").replace(" ", "_") in _ALIASES[area]


def _parse_text(item: str, area: str) -> list[Measure]:
    text = item.strip()
    if not text:
        raise MeasureError("empty measure name")
    for where, resolve, _ in _RESOLVERS:  # trec_eval names, condensed names (retrieval)
        if where == area:
            found = resolve(text)
            if found is not None:
                return [found] if isinstance(found, Measure) else list(found)
    if text.lower() in _ALIASES[area] or area != "retrieval" and _plain_name(text, area):
        return [Measure(text, area=area)]  # a bare name, also one outside the grammar (lr+, Youden-J)
    name, dot, _ = text.partition(".")
    if (area == "retrieval" and dot and re.fullmatch(r"[A-Za-z_]\w*", name)
            and name.lower() not in _ALIASES[area]):  # a mistyped trec_eval name
        raise MeasureError(unknown_measure_message(name, area))
    return [_Parser(text, area).measure()]
