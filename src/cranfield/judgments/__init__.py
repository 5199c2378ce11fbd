"""Building and questioning judgments: pooling, reusability (and, from other modules, assessor
agreement and crowd labels). See docs/judgments.md."""

from .pooling import POOLING_METHODS, Pool, build_pool
from .reusability import Reusability, groups_by_prefix, leave_one_out

__all__ = [
    "POOLING_METHODS", "Pool", "build_pool",
    "Reusability", "groups_by_prefix", "leave_one_out",
]
