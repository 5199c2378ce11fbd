"""Imports every measure family module, which registers its families (DESIGN principle 2), and the
modules that register other names of measures (trec_eval's, the condensed forms), in that order."""

from . import ap, bpref, counts, gain, interpolated, judged, ndcg, precision, rr, sets, user_models  # noqa: F401
from . import err, f_measures, fallout  # noqa: F401  (issue 3: ERR, F, E, SysEff, Fallout)
from . import diversity  # noqa: F401  (issue 14: ndeval's diversity measures)
from . import trec_names, condensed  # noqa: F401  (trec_eval names first, then AP', condensed_AP)
from .base import families, get_family, parse_measure, parse_measures

__all__ = ["families", "get_family", "parse_measure", "parse_measures"]
