"""The retrieval area: imports every measure family module, which registers its families
(DESIGN principle 2), then the modules of the other name forms (trec_eval names, condensed names)."""

from . import ap, bpref, counts, gain, interpolated, judged, ndcg, precision, rr, sets, user_models  # noqa: F401
from . import err, f_measures, fallout  # noqa: F401  (issue 3: ERR, F, E, SysEff, Fallout)
from . import diversity  # noqa: F401  (issue 14: ndeval's diversity measures)
from . import compat, cumulative, cwl, propensity  # noqa: F401  (issue 26: Compat, C/W/L, NCG, Hits, PSP…)
from . import condensed, trec_names  # noqa: F401  (name forms: AP', P.5,10; after every family)
from .base import families, get_family, parse_measure, parse_measures

__all__ = ["families", "get_family", "parse_measure", "parse_measures"]
