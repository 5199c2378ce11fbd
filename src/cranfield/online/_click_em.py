"""The E steps of the click models (see :mod:`cranfield.online.click_models`): rows of a log
prepared once, the expected counts of one partition under given parameters, and the exact
fixed-point sums that let partitions be merged in any order."""

from __future__ import annotations

import numpy as np

from ._clicklog import positions

_BITS, _HALF = 56, 28
_CHUNK = 1 << 24  # rows per bincount: integer sums of 28-bit parts stay exact in float64


# ---------------------------------------------------------------- fixed-point sums (exact merge)

def _fixed_sums(index: np.ndarray, values: np.ndarray, size: int) -> np.ndarray:
    """Σ values per index, as two int64 rows: the sums of the high and of the low 28 bits of
    round(value·2⁵⁶) (values in [0, 1]). Integer sums are associative: the same in any order or
    partitioning. Both halves are whole floats < 2²⁸, so float64 bincounts of up to 2²⁴ rows
    add them exactly."""
    scaled = np.clip(values, 0.0, 1.0) * float(1 << _HALF)
    high = np.floor(scaled)
    low = np.rint((scaled - high) * float(1 << _HALF))  # exact: v·2²⁸ − ⌊v·2²⁸⌋ loses no bit
    out = np.zeros((2, size), dtype=np.int64)
    for start in range(0, len(index), _CHUNK):
        part = index[start:start + _CHUNK]
        out[0] += np.bincount(part, weights=high[start:start + _CHUNK], minlength=size).astype(np.int64)
        out[1] += np.bincount(part, weights=low[start:start + _CHUNK], minlength=size).astype(np.int64)
    return out


def _fixed_value(sums: np.ndarray) -> np.ndarray:
    return sums[0] * 2.0 ** -_HALF + sums[1] * 2.0 ** -_BITS


# ---------------------------------------------------------------- rows of a log, prepared once

def _prepare(columns: dict, *, max_rank: int | None, n_docs: int, pairs: np.ndarray | None = None) -> dict:
    """Rows (up to ``max_rank``) with their pair index, rank, click, impression and position."""
    rank, clicked, offsets = columns["rank"], columns["clicked"], columns["impression_offsets"]
    key = columns["query"] * n_docs + columns["doc"]
    if max_rank is not None and len(rank) and rank.max() > max_rank:
        keep = rank <= max_rank
        lengths = np.add.reduceat(keep.astype(np.int64), offsets[:-1]) if len(rank) else np.zeros(0, np.int64)
        offsets = np.r_[0, np.cumsum(lengths[lengths > 0])]
        rank, clicked, key = rank[keep], clicked[keep], key[keep]
    if pairs is None:
        pairs, pair = np.unique(key, return_inverse=True)
        pair = pair.reshape(-1)
    else:
        pair = np.searchsorted(pairs, key)
    pair[pair >= len(pairs)] = 0
    known = pairs[pair] == key if len(pairs) else np.zeros(len(key), bool)
    owner, position = positions(offsets)
    width = int(np.diff(offsets).max()) if len(offsets) > 1 else 0
    return {"pair": pair, "known": known, "rank": rank, "clicked": clicked, "offsets": offsets, "owner": owner,
            "position": position, "shape": (len(offsets) - 1, width), "keys": pairs}


def _previous_click_rank(rows: dict) -> np.ndarray:
    """Rank of the last click above each row in its impression (0: none)."""
    n = len(rows["rank"])
    if n == 0:
        return np.zeros(0, np.int64)
    big = int(rows["rank"].max()) + 1
    value = rows["owner"] * big + np.where(rows["clicked"], rows["rank"], 0)
    running = np.maximum.accumulate(value) - rows["owner"] * big
    previous = np.r_[0, running[:-1]]
    previous[rows["position"] == 0] = 0
    return previous


def _first_last_click(rows: dict) -> tuple[np.ndarray, np.ndarray]:
    """Per row: position of its impression's first click (length if none) and last click (-1)."""
    starts = rows["offsets"][:-1]
    if len(starts) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    big = rows["shape"][1]
    first = np.minimum.reduceat(np.where(rows["clicked"], rows["position"], big), starts)
    last = np.maximum.reduceat(np.where(rows["clicked"], rows["position"], -1), starts)
    return first[rows["owner"]], last[rows["owner"]]


# ---------------------------------------------------------------- E steps: statistics of one partition

def _statistics(model: str, rows: dict, params: dict, sizes: dict) -> dict:
    """The sufficient statistics of ``rows`` under ``params`` (sums to be added over partitions)."""
    pair, rank, clicked = rows["pair"], rows["rank"], rows["clicked"]
    n_pairs, n_ranks = sizes["pairs"], sizes["ranks"]
    if model == "cascade":
        first, _ = _first_last_click(rows)
        seen = rows["position"] <= first
        return {"views": np.bincount(pair[seen], minlength=n_pairs),
                "clicks": np.bincount(pair[seen & clicked], minlength=n_pairs)}
    if model in ("pbm", "ubm"):
        alpha = params["attractiveness"][pair]
        slot = rank if model == "pbm" else _cached(rows, "ubm_slot", lambda: rank * n_ranks + _previous_click_rank(rows))
        gamma = params["examination"].reshape(-1)[slot]
        rest = 1.0 - alpha * gamma
        p_attr = alpha - alpha * gamma
        p_attr /= rest
        p_attr[clicked] = 1.0
        p_exam = gamma - alpha * gamma
        p_exam /= rest
        p_exam[clicked] = 1.0
        n_slots = n_ranks if model == "pbm" else n_ranks * n_ranks
        return {"attr": _fixed_sums(pair, p_attr, n_pairs), "views": _counts(rows, "pair", pair, n_pairs),
                "exam": _fixed_sums(slot, p_exam, n_slots), "slot_views": _counts(rows, model, slot, n_slots)}
    return _sum_statistics([_chain_statistics(model, chunk, params, sizes)
                            for chunk in _cached(rows, "chunks", lambda: _chunks(rows))])


def _chunks(rows: dict) -> list[dict]:
    """Impressions in chunks of about 2²⁰ rows (bounded memory for the E step's matrices)."""
    offsets, chunks, start = rows["offsets"], [], 0
    while start < len(offsets) - 1:
        stop = max(int(np.searchsorted(offsets, offsets[start] + (_CHUNK >> 4), side="right")) - 1, start + 1)
        chunks.append(_slice(rows, start, stop))
        start = stop
    return chunks


def _cached(rows: dict, name: str, make):
    """A value that depends on the rows only (not on the parameters), computed once per partition."""
    cache = rows.setdefault("cache", {})
    if name not in cache:
        cache[name] = make()
    return cache[name]


def _counts(rows: dict, name: str, index: np.ndarray, size: int) -> np.ndarray:
    return _cached(rows, f"counts:{name}:{size}", lambda: np.bincount(index, minlength=size))


def _slice(rows: dict, start: int, stop: int) -> dict:
    """Impressions ``start:stop`` of prepared rows."""
    lo, hi = int(rows["offsets"][start]), int(rows["offsets"][stop])
    offsets = rows["offsets"][start:stop + 1] - lo
    owner = rows["owner"][lo:hi] - start
    width = int(np.diff(offsets).max()) if stop > start else 0
    return {"pair": rows["pair"][lo:hi], "rank": rows["rank"][lo:hi], "clicked": rows["clicked"][lo:hi],
            "offsets": offsets, "owner": owner, "position": rows["position"][lo:hi], "shape": (stop - start, width)}


def _chain_statistics(model: str, rows: dict, params: dict, sizes: dict) -> dict:
    """E step of the chain models (DCM, DBN): forward filtering and a scaled backward pass over
    positions, vectorised over impressions (Chuklin et al. 2015, ch. 4; Chapelle & Zhang 2009).
    After a click the user goes on with κ₁ (DCM: λ_r; DBN: (1 − σ)γ), after a skip with κ₀
    (DCM: 1; DBN: γ). Work is on (positions × impressions) matrices, each position's row
    contiguous; empty cells have α = 0, which leaves every probability unchanged."""
    pair, clicked, position, rank = rows["pair"], rows["clicked"], rows["position"], rows["rank"]
    n, width = rows["shape"]
    shape, n_pairs = (width, n), sizes["pairs"]
    flat = _cached(rows, "flat", lambda: position * n + rows["owner"])  # row -> cell of the matrices

    def matrix(values, fill=0.0):
        out = np.full(width * n, fill, dtype=np.asarray(values).dtype)
        out[flat] = values
        return out.reshape(shape)

    a, c = matrix(params["attractiveness"][pair]), _cached(rows, "c", lambda: matrix(clicked, False))
    if model == "dbn":
        g = float(params["continuation"][0])
        s = matrix(params["satisfaction"][pair])
        k1, k0 = (1 - s) * g, np.full(shape, g)
    else:
        k1, k0 = matrix(params["examination"][rank]), np.ones(shape)
    forward = _filter(a, c, k1, k0)[0]
    beta1, beta0 = np.ones(n), np.ones(n)  # scaled P(clicks below r | E_{r+1} = 1), (... | E_{r+1} = 0)
    next1, next0 = np.ones(shape), np.ones(shape)
    emit = np.where(c, a, 1 - a)  # P(C_r = c_r | E_r = 1)
    go_on = np.where(c, k1, k0)
    for r in range(width - 1, -1, -1):  # a loop over positions, vectorised over impressions
        next1[r], next0[r] = beta1, beta0
        b1 = emit[r] * (go_on[r] * beta1 + (1 - go_on[r]) * beta0)
        b0 = np.where(c[r], 0.0, beta0)
        scale = np.maximum(b1, b0)
        scale[scale == 0] = 1.0
        beta1, beta0 = b1 / scale, b0 / scale
    mixed = go_on * next1 + (1 - go_on) * next0
    e1 = forward * emit * mixed  # ∝ P(E_r = 1, clicks); the proportionality constant cancels below
    total = e1 + (1 - forward) * np.where(c, 0.0, next0)
    p_attr = np.where(c, 1.0, a * (1 - e1 / total)).reshape(-1)[flat]
    stats = {"attr": _fixed_sums(pair, p_attr, n_pairs), "views": _counts(rows, "pair", pair, n_pairs)}
    has_next = _cached(rows, "has_next", lambda: matrix(np.r_[position[1:] > 0, False] if len(position) else
                                                        np.zeros(0, bool), False))
    if model == "dcm":
        # P(E_{r+1} = 1 | C) after a click at r: the expected number of continuations at rank r
        on = (k1 * next1 / np.maximum(k1 * next1 + (1 - k1) * next0, 1e-300)).reshape(-1)[flat]
        use = _cached(rows, "dcm_use", lambda: clicked & has_next.reshape(-1)[flat])
        stats.update(cont=_fixed_sums(rank[use], on[use], sizes["ranks"]),
                     cont_views=_counts(rows, "dcm", rank[use], sizes["ranks"]))
        return stats
    sat_den = (1 - s) * g * next1 + (s + (1 - s) * (1 - g)) * next0
    p_sat = (s * next0 / np.where(sat_den > 0, sat_den, 1.0)).reshape(-1)[flat]
    stay = forward * np.where(c, a * (1 - s), 1 - a) / total  # ∝ P(E_r = 1, S_r = 0, C_r)
    cont, cont_den = (stay * g * next1)[has_next], (stay * (g * next1 + (1 - g) * next0))[has_next]
    zero = np.zeros(len(cont), np.int64)
    stats.update(sat=_fixed_sums(pair[clicked], p_sat[clicked], n_pairs),
                 clicks=_counts(rows, "clicked", pair[clicked], n_pairs),
                 cont=_fixed_sums(zero, cont, 1), cont_den=_fixed_sums(zero, cont_den, 1))
    return stats


def _filter(a, c, cont_click, cont_skip):
    """Forward filtering of a chain model on padded (positions × impressions) matrices:
    P(E_r = 1 | clicks above r), the conditional click probabilities P(C_r = 1 | clicks above)
    and the marginal ones P(C_r = 1)."""
    width, n = a.shape
    filtered, conditional, marginal = np.zeros((width, n)), np.zeros((width, n)), np.zeros((width, n))
    f1, m1 = np.ones(n), np.ones(n)
    for r in range(width):
        ar = a[r]
        filtered[r], conditional[r], marginal[r] = f1, f1 * ar, m1 * ar
        after_skip = f1 * (1 - ar) / np.maximum(1 - f1 * ar, 1e-300)
        f1 = np.where(c[r], cont_click[r], after_skip * cont_skip[r])
        m1 = m1 * (ar * cont_click[r] + (1 - ar) * cont_skip[r])
    return filtered, conditional, marginal


def _sum_statistics(parts: list[dict]) -> dict:
    return {name: np.sum([part[name] for part in parts], axis=0) for name in parts[0]}
