"""Run fusion (cranfield.fusion, ``cranfield fuse``) against ranx's fusion (test-only oracle) and a
brute-force oracle written from the definitions in the module's docstring."""

from __future__ import annotations

import statistics
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cranfield import read_run
from cranfield.errors import InputError, UsageError
from cranfield.fusion import FUSION_METHODS, NORMALISATIONS, fuse

ranx = pytest.importorskip("ranx")

SCORE_METHODS = ("combsum", "combmnz", "combanz", "combmax", "combmin", "combmed")
RANX_METHOD = {"combsum": "sum", "combmnz": "mnz", "combanz": "anz", "combmax": "max", "combmin": "min",
               "combmed": "med", "rrf": "rrf", "wsum": "wsum", "rbc": "rbc"}
RANX_NORM = {"minmax": "min-max", "zscore": "zmuv", "sum": "sum", "rank": "rank", "none": None}
_FLATTEN = []  # ranx.Run -> (queries, documents joined by "\n", scores), compiled on first use


def _ranx_to_dict(run) -> dict:
    """``run.to_dict()``, the same dict (keys in ranx's order, every score the same double), without
    boxing each of the ~40,000 entries of a fused run through numba's typed dict one at a time (ranx's
    ``to_dict`` took ~10 of the test's 12 s). TREC document ids hold no whitespace, so "\n" joins them."""
    if not _FLATTEN:
        from numba import njit  # ranx's own dependency

        @njit
        def flatten(typed):
            queries, documents, scores = [], [], []
            for q in typed:
                inner = typed[q]
                ids, values = [], np.empty(len(inner))
                for i, d in enumerate(inner):
                    ids.append(d)
                    values[i] = inner[d]
                queries.append(q)
                documents.append("\n".join(ids))
                scores.append(values)
            return queries, documents, scores
        _FLATTEN.append(flatten)
    queries, documents, scores = _FLATTEN[0](run.run)
    out = {}
    for q, ids, values in zip(list(queries), list(documents), list(scores)):
        ids = ids.split("\n") if len(values) else []
        assert len(ids) == len(values)
        out[q] = dict(zip(ids, values.tolist()))
    return out


def _trec_order(scores: dict) -> list:
    """Documents as trec_eval ranks them: score descending, docno descending (byte-wise)."""
    return sorted(sorted(scores, key=str.encode, reverse=True), key=lambda d: -scores[d])  # stable


def _normalised(scores: dict, norm: str) -> dict:
    values = list(scores.values())
    n = len(values)
    if norm == "none":
        return dict(scores)
    if norm == "rank":
        return {d: 1.0 - i / n for i, d in enumerate(_trec_order(scores))}
    low = min(values)
    if norm == "minmax":
        spread = max(values) - low
        return {d: (s - low) / spread if spread > 0 else 0.0 for d, s in scores.items()}
    if norm == "sum":
        total = 0.0
        for s in _trec_order(scores):
            total += scores[s]
        spread = total - low * n
        return {d: (s - low) / spread if spread > 0 else 0.0 for d, s in scores.items()}
    total = 0.0
    for d in _trec_order(scores):
        total += scores[d]
    mean = total / n
    ss = 0.0
    for d in _trec_order(scores):
        ss += (scores[d] - mean) ** 2
    sd = (ss / n) ** 0.5
    return {d: (s - mean) / sd if sd > 0 else 0.0 for d, s in scores.items()}


def brute_force(runs: list, method: str, norm: str, weights=None, k=60.0, p=0.8) -> dict:
    """The definitions, one query and one document at a time (the oracle)."""
    weights = weights or [1.0] * len(runs)
    method = "combsum" if method == "wsum" else method
    out: dict = {}
    for q in sorted({q for run in runs for q in run}):
        per_run = []
        for run in runs:
            scores = run.get(q, {})
            if method == "rrf":
                per_run.append({d: 1.0 / (k + i + 1) for i, d in enumerate(_trec_order(scores))})
            elif method == "rbc":
                per_run.append({d: (1.0 - p) * p ** i for i, d in enumerate(_trec_order(scores))})
            else:
                per_run.append(_normalised(scores, norm) if scores else {})
        docs = {d for values in per_run for d in values}
        for d in docs:
            present = [(w, values[d]) for w, values in zip(weights, per_run) if d in values]
            vals = [v for _, v in present]
            if method in ("rrf", "rbc", "combsum"):
                total = 0.0
                for w, v in present:
                    total += w * v if w != 1.0 else v
                value = total
            elif method in ("combmnz", "combanz"):
                total = 0.0
                for v in vals:
                    total += v
                value = total * len(vals) if method == "combmnz" else total / len(vals)
            elif method == "combmax":
                value = max(vals)
            elif method == "combmin":
                value = min(vals)
            else:
                value = statistics.median(sorted(vals))
            out.setdefault(q, {})[d] = value
    return out


scores = st.sampled_from([0.5, 1.0, 2.0, -1.0, 3.25, 0.0, 7.0])  # few values: many ties


@st.composite
def run_dicts(draw):
    n_runs = draw(st.integers(2, 4))
    runs = []
    for _ in range(n_runs):
        run = {}
        for q in draw(st.lists(st.sampled_from(["q1", "q2", "q10"]), min_size=1, max_size=3, unique=True)):
            docs = draw(st.lists(st.sampled_from([f"d{i}" for i in range(12)]), min_size=1, max_size=8, unique=True))
            values = [draw(scores) for _ in docs]
            run[q] = dict(zip(docs, values))
        runs.append(run)
    return runs


@settings(max_examples=60, deadline=None)
@given(runs=run_dicts(), method=st.sampled_from(FUSION_METHODS), norm=st.sampled_from(NORMALISATIONS))
def test_equals_the_definitions(runs, method, norm):
    """Every method and normalisation, ties included, equals the brute-force oracle with ==."""
    norm = "none" if method in ("rrf", "rbc") else norm
    weights = [0.5, 2.0, 1.0, 0.25][:len(runs)] if method in ("rrf", "rbc", "combsum", "wsum") else None
    fused = fuse(runs, method=method, norm=None if method in ("rrf", "rbc") else norm, weights=weights).to_dict()
    assert fused == brute_force(runs, method, norm, weights)


@pytest.mark.slow
def test_equals_ranx_on_the_shipped_runs():
    """The same values as ranx's ``fuse`` (==) on the three shipped Cranfield runs (225 queries,
    40,713 fused documents), for every method and normalisation ranx shares. ranx orders tied
    scores by its sort's internal order, so the rank-based values (rrf, rbc, norm rank) are compared
    on the queries where no run has a tie (see cranfield.fusion's docstring)."""
    from cranfield import datasets

    data = datasets.cranfield()
    runs = [read_run(data["runs"][name]).to_dict() for name in ("bm25", "tfidf", "coord_title")]
    # ranx ranks by its dicts' order: give it the documents in trec_eval's order
    ranx_runs = [ranx.Run({q: {d: run[q][d] for d in _trec_order(run[q])} for q in run}) for run in runs]
    # coord_title ties nearly everywhere: the rank-based methods fuse bm25 and tfidf, on their untied queries
    untied = [q for q in runs[0] if all(len(set(run[q].values())) == len(run[q]) for run in runs[:2])]
    assert 150 < len(untied) < 225
    compared = 0
    for method in FUSION_METHODS:
        for norm in (("none",) if method in ("rrf", "rbc") else NORMALISATIONS):
            ranked = method in ("rrf", "rbc") or norm == "rank"
            n = 2 if ranked else 3
            weights = [0.5, 0.3, 0.2][:n]
            params = {"weights": weights} if method == "wsum" else {"phi": 0.8} if method == "rbc" else {}
            expected = ranx.fuse(ranx_runs[:n], norm=RANX_NORM[norm], method=RANX_METHOD[method],
                                 params=params)
            if compared == 0:  # the conversion is ranx's own, entry for entry and in order
                assert [list(d.items()) for d in _ranx_to_dict(expected).values()] == [
                    list(d.items()) for d in expected.to_dict().values()]
            expected = _ranx_to_dict(expected)
            fused = fuse(runs[:n], method=method, norm=None if method in ("rrf", "rbc") else norm,
                         weights=weights if method == "wsum" else None).to_dict()
            queries = untied if ranked else list(expected)
            if method == "rbc":  # numba's p**i multiplies (an ulp or so off); cranfield takes the C library's pow
                assert all(fused[q].keys() == expected[q].keys() for q in queries)
                got = np.array([fused[q][d] for q in queries for d in expected[q]])
                want = np.array([expected[q][d] for q in queries for d in expected[q]])
                np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)
            else:
                assert {q: fused[q] for q in queries} == {q: dict(expected[q]) for q in queries}, (method, norm)
            compared += sum(len(expected[q]) for q in queries)
    assert compared > 700_000


def test_union_of_queries_and_tie_rule():
    a = {"q1": {"d1": 1.0, "d2": 1.0}, "q2": {"d9": 5.0}}
    b = {"q1": {"d2": 3.0}}
    fused = fuse([a, b]).to_dict()
    assert fused["q2"] == {"d9": 1 / 61}  # a query of one run only is kept
    assert fused["q1"] == {"d2": 1 / 61 + 1 / 61, "d1": 1 / 62}  # d2 ranks first in a (docno descending)


def test_weights_by_name_and_depth():
    a = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
    b = {"q1": {"d3": 3.0, "d4": 2.0}}
    by_name = fuse({"a": a, "b": b}, method="rrf", weights={"b": 2.0, "a": 1.0}).to_dict()
    assert by_name == fuse([a, b], method="rrf", weights=[1.0, 2.0]).to_dict()
    assert by_name["q1"]["d3"] == 1 / 63 + 2 / 61
    assert set(fuse([a, b], depth=1).to_dict()["q1"]) == {"d1", "d3"}


@pytest.mark.parametrize("kwargs, message", [
    ({"method": "borda"}, "method: expected one of"),
    ({"method": "rrf", "norm": "zscore"}, "norm: rrf fuses ranks"),
    ({"method": "combsum", "norm": "max"}, "norm: expected one of"),
    ({"method": "combmnz", "weights": [1, 2]}, "weights: combmnz takes no weights"),
    ({"weights": [1]}, "weights: expected 2 numbers"),
    ({"weights": [1, float("nan")]}, "weights: expected a finite number"),
    ({"rrf_k": -1}, "rrf_k: expected a number >= 0"),
    ({"p": 1.0, "method": "rbc"}, "p: expected a number >= 0 and < 1"),
    ({"depth": 0}, "depth: expected a whole number ≥ 1"),
])
def test_errors_name_the_parameter(kwargs, message):
    with pytest.raises(UsageError, match=message):
        fuse([{"q1": {"d1": 1.0}}, {"q1": {"d2": 1.0}}], **kwargs)


def test_one_run_and_duplicates_are_errors(tmp_path):
    with pytest.raises(UsageError, match="at least two runs"):
        fuse([{"q1": {"d1": 1.0}}])
    path = tmp_path / "dup.run"
    path.write_text("q1 Q0 d1 1 2.0 x\nq1 Q0 d1 2 1.0 x\n")
    with pytest.raises(InputError, match=r"dup.run:2.*retrieved twice"):
        fuse([path, {"q1": {"d1": 1.0}}])


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "cranfield", *args], capture_output=True, text=True, cwd=cwd)


def test_cli_writes_a_run_that_reads_back_and_evaluates(tmp_path):
    from cranfield import datasets

    data = datasets.cranfield()
    runs = [data["runs"][name] for name in ("bm25", "tfidf", "coord_title")]
    for method, extra in (("rrf", []), ("combmnz", ["--norm", "zscore"]), ("wsum", ["--weights", "0.5,0.3,0.2"])):
        out = tmp_path / f"{method}.run"
        done = _cli("fuse", *map(str, runs), "--method", method, *extra, "-o", str(out), cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        weights = [0.5, 0.3, 0.2] if method == "wsum" else None
        expected = fuse(runs, method=method, norm="zscore" if extra[:1] == ["--norm"] else None, weights=weights)
        back = read_run(out)
        assert back.to_dict() == expected.to_dict()  # every score reads back to the same double
        assert back.name == method
    done = _cli("evaluate", str(data["qrels"]), str(tmp_path / "rrf.run"), "-m", "AP", "-f", "csv", cwd=tmp_path)
    assert done.returncode == 0 and "rrf" in done.stdout


def test_cli_errors_speak_in_options(tmp_path):
    run = tmp_path / "a.run"
    run.write_text("q1 Q0 d1 1 2.0 x\n")
    done = _cli("fuse", str(run), str(run), "--method", "rrf", "--norm", "zscore", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.strip() == (
        "cranfield: error: --norm: rrf fuses ranks, not scores; leave it out (found 'zscore')")
    done = _cli("fuse", str(run), cwd=tmp_path)
    assert done.returncode == 2 and "at least two RUN files" in done.stderr
    for option, value, message in (("--depth", "0", "--depth: expected a whole number ≥ 1"),
                                   ("--rrf-k", "-1", "--rrf-k: expected a number >= 0"),
                                   ("--weights", "1,inf", "--weights: expected a finite number")):
        done = _cli("fuse", str(run), str(run), option, value, cwd=tmp_path)
        assert done.returncode == 2 and done.stderr.startswith(f"cranfield: error: {message}"), done.stderr


def test_fused_scores_are_vectorised_at_scale():
    """10⁴ queries × 3 runs × 100 documents fuse without a Python loop per query (a smoke test of
    the shape; the timing is in benchmarks/bench_fusion.py)."""
    rng = np.random.default_rng(0)
    runs = []
    for _ in range(3):
        q = np.repeat(np.arange(10_000), 100).astype(str)
        d = rng.integers(0, 1_000, size=q.size).astype(str)
        key = np.char.add(np.char.add(q, "/"), d)
        _, first = np.unique(key, return_index=True)
        import pyarrow as pa

        runs.append(pa.table({"qid": q[first], "docno": d[first], "score": rng.random(first.size)}))
    fused = fuse(runs, method="combmnz")
    assert len(fused.query_ids) == 10_000
