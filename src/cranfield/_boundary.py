"""The boundary of the public API: only cranfield errors escape (issue 19, item 6).

Every public callable — the names of ``cranfield.__all__`` and of the ``__all__`` of the public
modules :data:`PUBLIC_MODULES` — is guarded: an exception that a bad argument causes deep
inside (numpy's ``ValueError``, pyarrow's ``ArrowInvalid``, a ``TypeError`` from a wrong type,
an ``OSError`` from a file, ``MemoryError``...) leaves it as the matching
:class:`~cranfield.errors.CranfieldError`, with the original message and the original exception
chained (``raise ... from error``) and marked ``boundary = True`` (a check the function itself
lacks: the garbage-argument test can list them):

=========================================================  =====================================
foreign exception                                          raised as
=========================================================  =====================================
``OSError`` (file not found, permission denied, ...)       :class:`InputError` naming the file
``ValueError``, ``LookupError`` (``KeyError``,             :class:`InputError`
``IndexError``), pyarrow / pandas / polars errors
``TypeError``, ``AttributeError``, ``ArithmeticError``     :class:`UsageError`
(``OverflowError``, ``ZeroDivisionError``),
``MemoryError``, ``RecursionError``
anything else (``AssertionError``, ``RuntimeError``...)    unchanged: a bug, to be reported
=========================================================  =====================================

The translated exception is also an instance of the original's built-in class (an
``InputError`` that is also a ``KeyError``, a ``UsageError`` that is also a ``TypeError``), so
existing ``except KeyError`` / ``except TypeError`` code keeps working. Classes are guarded in
place (their public methods, ``__init__`` and ``__call__``), functions by a wrapper that keeps
their name, signature and documentation (and pickles by reference). Validation belongs in the
functions themselves; this is the safety net.
"""

from __future__ import annotations

import functools
import importlib
import importlib.abc
import inspect
import sys
import types
from typing import Any

from .errors import CranfieldError, InputError, UsageError

__all__ = ["PUBLIC_MODULES", "guard", "guard_module", "translate", "install"]

PUBLIC_MODULES = ("cranfield.stats", "cranfield.classification", "cranfield.protocols", "cranfield.plots",
                  "cranfield.correlation", "cranfield.dask", "cranfield.judgments",
                  "cranfield.online")

# Foreign libraries whose own exception classes (not built-in ones) mean bad data.
_DATA_LIBRARIES = frozenset({"pyarrow", "pandas", "polars", "numpy", "scipy"})

# Built-in classes a translated exception may also belong to (same instance layout as ValueError
# or a compatible one, and an __init__ that takes one message).
_MIXABLE = (FileNotFoundError, PermissionError, IsADirectoryError, NotADirectoryError, FileExistsError, OSError,
            KeyError, IndexError, LookupError, TypeError, AttributeError, OverflowError, ZeroDivisionError,
            ArithmeticError, MemoryError, RecursionError, ValueError)

_MIXED: dict[tuple[type, type], type] = {}
_WRAPPERS: dict[Any, Any] = {}
_MARK = "__cranfield_boundary__"


def _one_line(text: str, limit: int = 500) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _kind(error: BaseException) -> type[CranfieldError] | None:
    if isinstance(error, CranfieldError):
        return None
    if isinstance(error, (MemoryError, RecursionError, TypeError, AttributeError, ArithmeticError)):
        return UsageError
    if isinstance(error, (OSError, ValueError, LookupError)):
        return InputError
    if type(error).__module__.split(".")[0] in _DATA_LIBRARIES and isinstance(error, Exception):
        return InputError
    return None


def _mixed(kind: type[CranfieldError], error: BaseException) -> type[CranfieldError]:
    """``kind``, also a subclass of the built-in class of ``error`` (so ``except`` clauses written
    for the original exception still catch it)."""
    base = next((b for b in type(error).__mro__ if b in _MIXABLE), None)
    if base is None or issubclass(kind, base):
        return kind
    key = (kind, base)
    if key not in _MIXED:
        _MIXED[key] = type(kind.__name__, (kind, base), {"__module__": kind.__module__,
                                                         "__qualname__": kind.__qualname__,
                                                         "__str__": kind.__str__ if kind is InputError
                                                         else CranfieldError.__str__,
                                                         "__reduce__": _reduce})
    return _MIXED[key]


def _reduce(self):  # pickle a translated exception as its cranfield class
    kind = next(k for k in type(self).__mro__ if k in (InputError, UsageError))
    if kind is InputError:
        return (_rebuild_input_error, (self.message, self.source, self.line, self.field))
    return (UsageError, (str(self),))


def _rebuild_input_error(message, source, line, field):
    return InputError(message, source=source, line=line, field=field)


def translate(error: BaseException, where: str = "") -> CranfieldError | None:
    """The :class:`CranfieldError` that ``error`` (raised inside ``where``) becomes at the
    boundary, or None when it passes unchanged (a cranfield error already, or a bug)."""
    kind = _kind(error)
    if kind is None:
        return None
    prefix = f"{where}: " if where else ""
    if isinstance(error, MemoryError):
        message = "not enough memory for these arguments" + (f" ({_one_line(error)})" if str(error) else "")
    elif isinstance(error, RecursionError):
        message = "the arguments are nested too deeply"
    elif isinstance(error, OSError):
        message = error.strerror or _one_line(error)
        if error.filename is not None:
            translated = _mixed(InputError, error)(f"{prefix}{message}", source=str(error.filename))
            translated.boundary = True
            return translated
    else:
        name = type(error).__name__
        message = _one_line(error) or name
        if not isinstance(error, ValueError) or type(error).__module__ != "builtins":
            message = f"{name}: {message}"
    translated = _mixed(kind, error)(f"{prefix}{message}")
    translated.boundary = True  # made by the guard: a check the function itself lacks
    return translated


def _wrap_function(function, where: str):
    if getattr(function, _MARK, False):
        return function
    if function in _WRAPPERS:
        return _WRAPPERS[function]
    if inspect.isgeneratorfunction(function):
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            try:
                return (yield from function(*args, **kwargs))
            except Exception as error:
                translated = translate(error, where)
                if translated is None:
                    raise
                raise translated from error
    else:
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            try:
                return function(*args, **kwargs)
            except Exception as error:
                translated = translate(error, where)
                if translated is None:
                    raise
                raise translated from error
    setattr(wrapper, _MARK, True)
    _WRAPPERS[function] = wrapper
    return wrapper


_METHODS = ("__init__", "__call__")


def _guard_class(cls: type) -> type:
    if issubclass(cls, BaseException):
        return cls
    for klass in cls.__mro__:
        if klass is object or not klass.__module__.startswith("cranfield") or klass.__dict__.get(_MARK):
            continue
        for name, value in list(vars(klass).items()):
            if name.startswith("_") and name not in _METHODS:
                continue
            where = f"{klass.__name__}.{name}" if name not in _METHODS else klass.__name__
            if isinstance(value, staticmethod):
                setattr(klass, name, staticmethod(_wrap_function(value.__func__, where)))
            elif isinstance(value, classmethod):
                setattr(klass, name, classmethod(_wrap_function(value.__func__, where)))
            elif isinstance(value, types.FunctionType):
                setattr(klass, name, _wrap_function(value, where))
        type.__setattr__(klass, _MARK, True)
    return cls


def guard(value: Any) -> Any:
    """``value`` guarded: a function wrapped, a class's methods wrapped in place, a public
    module's names guarded; anything else unchanged."""
    if isinstance(value, types.FunctionType):
        return _wrap_function(value, value.__name__)
    if isinstance(value, type):
        return _guard_class(value)
    if isinstance(value, types.ModuleType) and _is_guarded_module(value.__name__):
        return guard_module(value)
    return value


_MODULES: set[str] = set(PUBLIC_MODULES)


def _is_guarded_module(name: str) -> bool:
    """The public modules, their public submodules, and the modules that define the top-level
    names of ``cranfield`` (registered by :func:`install`)."""
    if name in _MODULES:
        return True
    return any(name.startswith(package + ".") for package in PUBLIC_MODULES) and \
        not any(part.startswith("_") for part in name.split("."))


def guard_module(module: types.ModuleType) -> types.ModuleType:
    """Guard the names of ``module.__all__``, those defined already and those its ``__getattr__``
    (PEP 562, lazy names) resolves later."""
    if module.__dict__.get(_MARK):
        return module
    names = frozenset(getattr(module, "__all__", ()))
    namespace = module.__dict__
    for name in names:
        value = namespace.get(name)
        if isinstance(value, types.ModuleType) and not _is_guarded_module(value.__name__):
            continue
        if not isinstance(value, (types.FunctionType, type, types.ModuleType)):
            continue  # constants, registries
        defined_here = getattr(value, "__module__", None) == module.__name__
        if defined_here or hasattr(module, "__path__") or value in _WRAPPERS:  # a package re-exports
            namespace[name] = guard(value)
    lazy = namespace.get("__getattr__")
    if lazy is not None:
        def __getattr__(name: str) -> Any:
            value = lazy(name)
            if name in names:
                value = guard(value)
                namespace[name] = value
            return value

        namespace["__getattr__"] = __getattr__
    namespace[_MARK] = True
    return module


class _GuardingLoader(importlib.abc.Loader):
    """Runs the real loader, then guards the module's public names."""

    def __init__(self, loader) -> None:
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module) -> None:
        self._loader.exec_module(module)
        guard_module(module)

    def __getattr__(self, name: str) -> Any:  # get_source, get_resource_reader, ... of the real loader
        return getattr(self._loader, name)


class _Finder(importlib.abc.MetaPathFinder):
    """Finds the public modules with the other finders, and loads them guarded."""

    def find_spec(self, fullname, path, target=None):
        if not _is_guarded_module(fullname):
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _GuardingLoader(spec.loader)
                return spec
        return None


def install(modules=()) -> None:
    """Guard the public modules and ``modules`` (which define public names): right after each is
    executed, before any other module imports its functions, so that every reference to a
    public function (``cranfield.kfold``, ``cranfield.protocols.splits.kfold``, a registry entry)
    is the same guarded object."""
    _MODULES.update(modules)
    if not any(isinstance(finder, _Finder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
    for name in list(sys.modules):
        if _is_guarded_module(name):
            guard_module(sys.modules[name])
