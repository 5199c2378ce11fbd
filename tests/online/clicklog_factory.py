"""Random click logs for the online tests (vectorised; seeded)."""

from __future__ import annotations

import numpy as np


def random_log_columns(seed: int = 0, *, n_users: int = 60, variants=("A", "B"), max_depth: int = 8,
                       lift: float = 0.05, sessions_per_user: int = 2, impressions_per_session: int = 2,
                       with_time: bool = True):
    """A dict of click-log columns: users randomised into ``variants``, each with sessions of
    impressions; clicks more likely at the top and in later variants (by ``lift``)."""
    rng = np.random.default_rng(seed)
    user_variant = rng.integers(0, len(variants), n_users)
    n_imp = n_users * sessions_per_user * impressions_per_session
    imp_user = np.repeat(np.arange(n_users), sessions_per_user * impressions_per_session)
    imp_session = np.repeat(np.arange(n_users * sessions_per_user), impressions_per_session)
    depth = rng.integers(1, max_depth + 1, n_imp)
    rows_imp = np.repeat(np.arange(n_imp), depth)
    starts = np.repeat(np.cumsum(depth) - depth, depth)
    rank = np.arange(len(rows_imp)) - starts + 1
    variant = user_variant[imp_user][rows_imp]
    user_effect = rng.normal(0, 0.1, n_users)[imp_user][rows_imp]  # users differ: clustering matters
    prob = np.clip(0.5 / rank + lift * variant + user_effect, 0.01, 0.95)
    clicked = rng.random(len(rank)) < prob
    dwell = np.where(clicked, np.round(rng.exponential(40, len(rank)), 1), np.nan)
    shown = np.round(rng.uniform(0, 1e6, n_imp), 3)[rows_imp]
    timestamp = np.where(clicked, shown + np.round(rng.exponential(5, len(rank)), 3), shown)
    columns = {
        "impression": np.array([f"i{i}" for i in rows_imp]),
        "query": np.array([f"q{q}" for q in rng.integers(0, 15, n_imp)[rows_imp]]),
        "rank": rank,
        "doc": np.array([f"d{d}" for d in rng.integers(0, 50, len(rank))]),
        "clicked": clicked,
        "dwell": dwell,
        "variant": np.array(variants)[variant],
        "user": np.array([f"u{u}" for u in imp_user[rows_imp]]),
        "session": np.array([f"s{s}" for s in imp_session[rows_imp]]),
    }
    if with_time:
        columns["timestamp"] = timestamp
    return columns
