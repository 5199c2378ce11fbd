"""Issue 26's measures, each against an independent reference: ``ignore_self``, NCG@k and Hits@k,
PSP@k and PSnDCG@k (the KDD 2016 definitions as loops), Compat (ir_measures), the C/W/L family
(ir_measures' cwl_eval provider, i.e. cwl_eval itself, when installed) and the propensity file
grammar."""

from __future__ import annotations

import logging
import math
import random
import subprocess
import sys

import numpy as np
import pytest

import cranfield
from cranfield.errors import InputError, UsageError
from cranfield.io.propensities import read_propensities


def _instances(seed: int, n: int, *, grades=(0, 0, 1, 2, 3, -1), distinct=True):
    """Random qrels and runs; distinct positive scores when ``distinct`` (the references break
    ties their own way)."""
    rnd = random.Random(seed)
    for _ in range(n):
        qrels, run = {}, {}
        for q in range(rnd.randint(1, 4)):
            docs = [f"d{i}" for i in range(rnd.randint(1, 14))]
            qrels[f"q{q}"] = {d: rnd.choice(grades) for d in rnd.sample(docs, rnd.randint(1, len(docs)))}
            ret = rnd.sample(docs + ["x1", "x2", f"q{q}"], rnd.randint(1, len(docs)))
            scores = rnd.sample(range(1, 200), len(ret)) if distinct else [rnd.choice([1, 2, 3]) for _ in ret]
            run[f"q{q}"] = {d: float(s) for d, s in zip(ret, scores)}
        yield qrels, run


def _ranked(run_q: dict) -> list[str]:
    """trec_eval's order: score descending, then docno descending."""
    by_docno = sorted(run_q.items(), key=lambda kv: kv[0].encode(), reverse=True)
    return [d for d, _ in sorted(by_docno, key=lambda kv: -kv[1])]


def _per_query(results, name):
    return dict(zip(results.query_ids.tolist(), results.per_query[name].tolist()))


# ----------------------------------------------------------------------------- ignore_self


def test_ignore_self_equals_dropping_the_rows_by_hand():
    measures = ["AP", "nDCG@10", "P@5", "RR", "NumRet", "NumRel"]
    for qrels, run in _instances(1, 40, distinct=False):
        kept = {q: {d: s for d, s in docs.items() if d != q} for q, docs in run.items()}
        kept = {q: docs for q, docs in kept.items() if docs}
        if not any(q in qrels for q in kept):
            continue
        got = cranfield.evaluate(qrels, run, measures, ignore_self=True)
        want = cranfield.evaluate(qrels, kept, measures)
        assert got.query_ids.tolist() == want.query_ids.tolist()
        for name in measures:
            np.testing.assert_array_equal(got.per_query[name], want.per_query[name], err_msg=name)
        assert got.settings["ignore_self"] is True


def test_ignore_self_keeps_the_qrels():
    """Only run rows are dropped: a judged query document still counts in R (BEIR's evaluator)."""
    qrels = {"q1": {"q1": 1, "d1": 1}}
    run = {"q1": {"q1": 2.0, "d1": 1.0}}
    results = cranfield.evaluate(qrels, run, ["NumRel", "NumRet", "AP"], ignore_self=True)
    assert results.mean == {"NumRel": 2.0, "NumRet": 1.0, "AP": 0.5}
    assert cranfield.evaluate(qrels, run, ["AP"]).mean["AP"] == 1.0


def test_ignore_self_cli(tmp_path):
    (tmp_path / "qrels").write_text("q1 0 q1 1\nq1 0 d1 1\n")
    (tmp_path / "run").write_text("q1 Q0 q1 1 2.0 r\nq1 Q0 d1 2 1.0 r\n")
    out = subprocess.run([sys.executable, "-m", "cranfield", "evaluate", str(tmp_path / "qrels"), str(tmp_path / "run"),
                          "-m", "AP", "--ignore-self", "-f", "csv"], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines()[1].endswith(",0.5")


# ----------------------------------------------------------------------------- NCG and Hits


@pytest.mark.parametrize("k", [1, 3, 10, None])
def test_ncg_against_the_definition(k):
    name = "NCG" if k is None else f"NCG@{k}"
    for qrels, run in _instances(2, 40, distinct=False):
        got = _per_query(cranfield.evaluate(qrels, run, [name]), name)
        for qid, value in got.items():
            gains = [max(qrels[qid].get(d, 0), 0) for d in _ranked(run[qid])]
            ideal = sorted((g for g in qrels[qid].values() if g > 0), reverse=True)
            depth = len(gains) if k is None else k
            best = sum(ideal) if k is None else sum(ideal[:k])
            want = sum(gains[:depth]) / best if best else 0.0
            assert value == pytest.approx(want, rel=0, abs=1e-15), (qid, name)


def test_hits_against_ranx():
    ranx = pytest.importorskip("ranx")
    for qrels, run in _instances(3, 20):
        for k in (1, 5, 10):
            got = cranfield.evaluate(qrels, run, [f"Hits@{k}"])
            common = [q for q in got.query_ids.tolist()]
            ref = ranx.evaluate(ranx.Qrels({q: {d: r for d, r in qrels[q].items() if r > 0} or {"none": 0}
                                            for q in common}),
                                ranx.Run({q: run[q] for q in common}), f"hits@{k}", return_mean=False)
            np.testing.assert_array_equal(got.per_query[f"Hits@{k}"], np.atleast_1d(ref))


# ----------------------------------------------------------------------------- PSP, PSnDCG

PROPENSITIES = {**{f"d{i}": 1.0 / (i + 1.5) for i in range(14)}, "x1": 0.3, "x2": 0.9,
                **{f"q{i}": 0.5 for i in range(4)}}


@pytest.mark.parametrize("k", [1, 3, 5, 20])
def test_psp_and_psndcg_against_the_definition(k):
    """Jain, Prabhu & Varma (KDD 2016), eq. 3-4, as a loop over ranks."""
    for qrels, run in _instances(4, 30, distinct=False):
        results = cranfield.evaluate(qrels, run, [f"PSP@{k}", f"PSnDCG@{k}"], propensities=PROPENSITIES)
        psp, psndcg = _per_query(results, f"PSP@{k}"), _per_query(results, f"PSnDCG@{k}")
        for qid in psp:
            ranked = _ranked(run[qid])[:k]
            y = [1 if qrels[qid].get(d, 0) >= 1 else 0 for d in ranked]
            want_psp = sum(yl / PROPENSITIES[d] for yl, d in zip(y, ranked)) / k
            dcg = sum(yl / (PROPENSITIES[d] * math.log2(i + 2)) for i, (yl, d) in enumerate(zip(y, ranked)))
            n_rel = sum(1 for r in qrels[qid].values() if r >= 1)
            ideal = sum(1 / math.log2(i + 2) for i in range(min(k, n_rel)))
            assert psp[qid] == pytest.approx(want_psp, rel=1e-14, abs=0)
            assert psndcg[qid] == pytest.approx(dcg / ideal if ideal else 0.0, rel=1e-14, abs=0)


def test_propensity_policies(tmp_path):
    qrels, run = {"q1": {"d1": 1}}, {"q1": {"d1": 1.0, "zz": 2.0}}
    with pytest.raises(UsageError, match="needs propensities"):
        cranfield.evaluate(qrels, run, ["PSP@5"])
    with pytest.raises(UsageError, match="no propensity"):
        cranfield.evaluate(qrels, run, ["PSP@5"], propensities={"zz": 0.5})
    # a non-relevant document needs none; a propensity of 1 is plain precision
    assert cranfield.evaluate(qrels, run, ["PSP@2", "P@2"], propensities={"d1": 1}).mean == {"PSP@2": 0.5, "P@2": 0.5}
    path = tmp_path / "p.txt"
    path.write_text("d1 0.25\n")
    assert cranfield.evaluate(qrels, run, ["PSP@2"], propensities=str(path)).mean["PSP@2"] == 2.0


@pytest.mark.parametrize("text, message", [
    ("d1 0.5\nd2 1 x\n", r"p.txt:2: expected 2 fields \(docno propensity\), found 3"),
    ("d1 0.5\nd1 0.2\n", r"p.txt:2: field docno: docno 'd1' given twice \(also on line 1\)"),
    ("d1 0.5\n\nd2 0\n", r"p.txt:3: field propensity: expected a propensity p with 0 < p ≤ 1, found 0.0"),
    ("d1 nan\n", r"p.txt:1: field propensity: expected a propensity p with 0 < p ≤ 1, found nan"),
    ("d1 1.5\n", r"p.txt:1: field propensity: .* found 1.5"),
    ("d1 abc\n", r"p.txt:1: field propensity: expected a propensity \(a number\), found 'abc'"),
    ("d1\n", r"p.txt:1: expected 2 fields \(docno propensity\), found 1"),
])
def test_propensity_file_errors(tmp_path, text, message):
    path = tmp_path / "p.txt"
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        read_propensities(str(path))


def test_propensity_file_and_dict_agree(tmp_path):
    path = tmp_path / "p.txt"
    path.write_text("d1 0.5\n\n  d2\t1\nd3 2.5e-1\n")
    from_file, from_dict = read_propensities(str(path)), read_propensities({"d1": 0.5, "d2": 1, "d3": 0.25})
    assert from_file.docno.to_pylist() == from_dict.docno.to_pylist() == ["d1", "d2", "d3"]
    assert from_file.value.tolist() == from_dict.value.tolist() == [0.5, 1.0, 0.25]


def test_propensities_cli(tmp_path):
    (tmp_path / "qrels").write_text("q1 0 d1 1\n")
    (tmp_path / "run").write_text("q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\n")
    (tmp_path / "p").write_text("d1 0.25\n")
    base = [sys.executable, "-m", "cranfield", "evaluate", str(tmp_path / "qrels"), str(tmp_path / "run"), "-m", "PSP@2",
            "-f", "csv"]
    out = subprocess.run([*base, "--propensities", str(tmp_path / "p")], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines()[1].endswith(",2.0")
    (tmp_path / "p").write_text("d1 -1\n")
    bad = subprocess.run([*base, "--propensities", str(tmp_path / "p")], capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and "p:1: field propensity" in bad.stderr and "Traceback" not in bad.stderr


# ----------------------------------------------------------------------------- Compat


def _rbo_loop(ranking, ideal, p, depth):
    score = norm = 0.0
    for d in range(1, depth + 1):
        score += p ** (d - 1) * len(set(ranking[:d]) & set(ideal[:d])) / d
        norm += p ** (d - 1)
    return score / norm


@pytest.mark.parametrize("p, normalize", [(0.95, True), (0.8, False), (0.5, True)])
def test_compat_against_ir_measures_and_the_definition(p, normalize):
    """ir_measures' Compat, and RBO written as a loop; float sums in another order: 1e-14."""
    ir_measures = pytest.importorskip("ir_measures")
    name = f"Compat(p={p})" if normalize else f"Compat(normalize=false,p={p})"
    for qrels, run in _instances(5, 40):
        got = _per_query(cranfield.evaluate(qrels, run, [name]), name)
        ref = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.Compat(p=p, normalize=normalize)],
                                                                   qrels, run)}
        for qid, value in got.items():
            assert value == pytest.approx(ref[qid], rel=0, abs=1e-14)
            ranking = _ranked(run[qid])
            rel = [d for d, r in qrels[qid].items() if r > 0]
            ideal = sorted(rel, key=lambda d: (-qrels[qid][d], ranking.index(d) if d in ranking else len(ranking)))
            depth = max(len(ranking), len(ideal))
            want = _rbo_loop(ranking, ideal, p, depth)
            if normalize and ideal:
                want /= _rbo_loop(ideal, ideal, p, depth)
            assert value == pytest.approx(want, rel=0, abs=1e-14)


# ----------------------------------------------------------------------------- C/W/L

CWL_PAIRS = [("INST(T=1, max_rel=3)", "INST(max_rel=3)"), ("INST(T=2.5, max_rel=2)", "INST(T=2.5,max_rel=2)"),
             ("INSQ(T=2, max_rel=3)", "INSQ(T=2,max_rel=3)"), ("BPM(T=1, max_rel=3)@5", "BPM(max_rel=3)@5"),
             ("BPM(T=2, max_rel=3)@10", "BPM(T=2,max_rel=3)@10"), ("RBP(p=0.8, rel=1)", "CWL-RBP(max_rel=1)"),
             ("RR(rel=1)", "CWL-RR(max_rel=1)"), ("AP(rel=1)", "CWL-AP(max_rel=1)")]


@pytest.mark.parametrize("reference, name", CWL_PAIRS)
def test_cwl_against_cwl_eval(reference, name):
    """cwl_eval (through ir_measures' provider) is the reference tool; float sums: 1e-15."""
    pytest.importorskip("cwl")
    ir_measures = pytest.importorskip("ir_measures")
    logging.getLogger("ir_measures.cwl_eval").disabled = True
    measure = ir_measures.parse_measure(reference)
    binary = name.startswith("CWL-") and "RBP" not in name  # cwl_eval's RR and AP read binary gains
    for qrels, run in _instances(6, 25):
        if binary:
            qrels = {q: {d: int(r >= 1) for d, r in docs.items()} for q, docs in qrels.items()}
        got = _per_query(cranfield.evaluate(qrels, run, [name]), name)
        ref = {m.query_id: m for m in ir_measures.cwl_eval.iter_calc([measure], qrels, run)}
        for qid, value in got.items():
            assert value == pytest.approx(ref[qid].value, rel=0, abs=1e-15)
        if name == "INST(max_rel=3)":  # the framework's other statistics
            for stat, field in (("etu", "expected_total_utility"), ("etc", "expected_total_cost"),
                                ("ei", "expected_items")):
                other = f"INST(max_rel=3,stat={stat})"
                values = _per_query(cranfield.evaluate(qrels, run, [other]), other)
                for qid, value in values.items():
                    assert value == pytest.approx(getattr(ref[qid], field), rel=1e-13, abs=0)


def _inst_loop(gains, t, n=1000):
    """INST's expected utility per item, from the C/W/L definitions, as a loop over ranks."""
    gains = (gains + [0.0] * n)[:n]
    reach, weights, cum = 1.0, [], 0.0
    for i, g in enumerate(gains, start=1):
        weights.append(reach)
        cum += g
        remaining = t - cum
        reach *= ((i + t + remaining - 1) / (i + t + remaining)) ** 2
    total = sum(weights)
    return sum(w / total * g for w, g in zip(weights, gains))


def test_inst_against_the_definition():
    for qrels, run in _instances(7, 15):
        got = _per_query(cranfield.evaluate(qrels, run, ["INST(T=2,max_rel=3)"]), "INST(T=2,max_rel=3)")
        for qid, value in got.items():
            gains = [min(max(qrels[qid].get(d, 0), 0), 3) / 3 for d in _ranked(run[qid])]
            assert value == pytest.approx(_inst_loop(gains, 2.0), rel=1e-13, abs=1e-16)


def test_registry_names_and_parameters():
    from cranfield.measures.base import parse_measure

    for text in ("NCG@10", "Hits@10", "PSP@5", "PSnDCG@5", "Compat", "Compat(p=0.8)", "INST(T=3)", "INSQ",
                 "BPM(T=2)@10", "CWL-RBP(p=0.5)", "CWL-AP", "CWL-RR", "INST(stat=ei)"):
        assert str(parse_measure(text)) == text.replace(" ", "")
    with pytest.raises(Exception, match="persistence"):
        parse_measure("Compat(p=1)")
    with pytest.raises(Exception, match="needs a cut-off"):
        parse_measure("BPM")


# ----------------------------------------------------------------------------- every evaluation path


def test_threads_and_blocks_see_the_options(tmp_path, monkeypatch):
    """The threaded parts and the block-wise (low-memory) reader drop self rows and read
    propensities as the in-memory path does."""
    from cranfield.retrieval import parallel
    from cranfield.retrieval.large import evaluate_path

    rnd = random.Random(8)
    qrels = {f"q{q}": {f"d{d}": rnd.choice([0, 1, 2]) for d in range(20)} | {f"q{q}": 1} for q in range(30)}
    lines = [f"q{q} Q0 {d} 0 {rnd.random()} r" for q in range(30) for d in [*(f"d{i}" for i in range(25)), f"q{q}"]]
    (tmp_path / "run").write_text("\n".join(lines) + "\n")
    props = {f"d{d}": 1 / (d + 2) for d in range(25)} | {f"q{q}": 0.5 for q in range(30)}
    names = ["AP", "nDCG@10", "PSP@5", "PSnDCG@10", "Compat", "INST(T=2)"]
    evaluator = cranfield.Evaluator(qrels, names, ignore_self=True, propensities=props)
    in_memory = evaluator.evaluate(str(tmp_path / "run"), threads=1)
    monkeypatch.setattr(parallel, "MIN_ROWS", 0)
    threaded = evaluator.evaluate(str(tmp_path / "run"), threads=2)
    blocks = evaluate_path(evaluator, str(tmp_path / "run"), batch_rows=100)
    without = cranfield.evaluate(qrels, str(tmp_path / "run"), names, propensities=props)
    for name in names:
        np.testing.assert_array_equal(threaded.per_query[name], in_memory.per_query[name], err_msg=name)
        np.testing.assert_array_equal(blocks.per_query[name], in_memory.per_query[name], err_msg=name)
    assert not np.array_equal(without.per_query["AP"], in_memory.per_query["AP"])
    assert blocks.settings["ignore_self"] and threaded.settings["propensities"] == "propensities"


def test_ir_measures_objects_name_the_new_measures():
    ir_measures = pytest.importorskip("ir_measures")
    from cranfield.measures.base import parse_measure

    for reference, name in [*CWL_PAIRS[:5], ("Compat(p=0.9)", "Compat(p=0.9)"), ("Compat", "Compat")]:
        assert parse_measure(ir_measures.parse_measure(reference)) == parse_measure(name)
