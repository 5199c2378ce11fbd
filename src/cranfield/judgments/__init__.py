"""Building and questioning judgments (see docs/judgments.md).

* :mod:`.pooling` — depth-k, rank-biased, Move-to-Front and fusion pools, judging sheets, pool
  statistics;
* :mod:`.reusability` — leave-one-run-out / leave-one-group-out re-evaluation;
* :mod:`.agreement` — percentage agreement, Cohen's κ (unweighted, linear, quadratic), Fleiss' κ,
  Krippendorff's α (nominal, ordinal, interval), overlap of relevant sets (Voorhees 2000), per
  query and pooled with bootstrap intervals over queries; system rankings under each set of
  judgments and Kendall's τ / τ_AP between them;
* :mod:`.crowd` — crowd labels (:mod:`cranfield.io.labels`) to qrels by majority vote,
  Dawid–Skene EM, mean or median, with per-worker quality estimates.
"""

from __future__ import annotations

from .agreement import (Agreement, AgreementFigure, RankingAgreement, assessor_agreement, cohen_kappa, fleiss_kappa,
                        krippendorff_alpha, ranking_agreement)
from .crowd import Aggregated, WorkerQuality, aggregate_labels
from .pooling import POOLING_METHODS, Pool, build_pool
from .reusability import Reusability, groups_by_prefix, leave_one_out

__all__ = ["Agreement", "AgreementFigure", "RankingAgreement", "assessor_agreement", "cohen_kappa", "fleiss_kappa",
           "krippendorff_alpha", "ranking_agreement", "Aggregated", "WorkerQuality", "aggregate_labels",
           "POOLING_METHODS", "Pool", "build_pool", "Reusability", "groups_by_prefix", "leave_one_out"]
