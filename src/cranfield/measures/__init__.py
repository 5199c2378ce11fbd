"""Measure families: one module per family, collected by :mod:`cranfield.measures.registry`."""

from .base import Family, Measure, Param, families, get_family, parse_measure, parse_measures, register
from . import registry  # noqa: F401  (registers every family and every other name of a measure)

__all__ = ["Family", "Measure", "Param", "families", "get_family", "parse_measure", "parse_measures", "register"]
