"""Measure families: one module per family, collected by :mod:`cranfield.measures.registry`; the
one registry of every area's measures is :mod:`cranfield.measures.base`."""

from .base import AREAS, Family, Measure, Param, areas, families, get_family, parse_measure, parse_measures, register

__all__ = ["AREAS", "Family", "Measure", "Param", "areas", "families", "get_family", "parse_measure", "parse_measures",
           "register"]
