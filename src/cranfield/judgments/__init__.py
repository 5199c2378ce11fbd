"""Test collections: assessor agreement between judgments, and crowd labels merged into judgments.

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

__all__ = ["Agreement", "AgreementFigure", "RankingAgreement", "assessor_agreement", "cohen_kappa", "fleiss_kappa",
           "krippendorff_alpha", "ranking_agreement", "Aggregated", "WorkerQuality", "aggregate_labels"]
