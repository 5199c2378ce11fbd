"""Model judges against people (judgments.judges, ``cranfield judges``): the confusion matrix and κ
against scikit-learn, τ against scipy, τ_AP against correlation.tau_ap, bootstrap intervals against
a loop over the same resamples, merging against a dict oracle."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score, confusion_matrix

from cranfield import datasets, read_qrels
from cranfield.correlation import tau_ap
from cranfield.errors import UsageError
from cranfield.judgments.judges import _ranking_figures, judge_agreement, merge_judgments
from cranfield.stats._resample import bootstrap_counts


def lenient_model(qrels: dict, seed: int = 0, drop: float = 0.1, extra: int = 3) -> dict:
    """A simulated model judge: grades one up 30% of the time, one down 10%, forgets some pairs
    and judges a few pairs no person judged."""
    rng = random.Random(seed)
    out = {}
    for q, docs in qrels.items():
        for d, rel in docs.items():
            if rng.random() < drop:
                continue
            step = 1 if rng.random() < 0.3 else -1 if rng.random() < 0.1 else 0
            out.setdefault(q, {})[d] = max(0, min(4, rel + step))
        for i in range(extra):
            out.setdefault(q, {})[f"model-only-{i}"] = rng.choice([0, 1])
    return out


@pytest.fixture(scope="module")
def shipped():
    data = datasets.cranfield()
    human = read_qrels(data["qrels"]).to_dict()
    human = {q: {d: max(r, 0) for d, r in docs.items()} for q, docs in human.items()}
    return human, lenient_model(human), [data["runs"][n] for n in ("bm25", "tfidf", "coord_title")]


def test_confusion_kappa_and_leniency(shipped):
    human, model, _ = shipped
    result = judge_agreement(human, model, n_resamples=0)
    pairs = [(human[q][d], model[q][d]) for q in human for d in human[q] if d in model.get(q, {})]
    h, m = np.array(pairs).T
    labels = sorted(set(h) | set(m))
    assert result.grades == labels
    assert (result.confusion == confusion_matrix(h, m, labels=labels)).all()
    for weights, name in ((None, "cohen_kappa"), ("linear", "cohen_kappa_linear"), ("quadratic", "cohen_kappa_quadratic")):
        assert result.agreement.figure(name).overall == pytest.approx(cohen_kappa_score(h, m, weights=weights),
                                                                       rel=1e-14)
    assert result.mean_shift == np.mean(m - h)
    for g in labels:
        mine = result.grade_rates[g]
        sel = h == g
        assert mine["pairs"] == sel.sum()
        assert (mine["lower"], mine["same"], mine["higher"]) == (np.mean(m[sel] < g), np.mean(m[sel] == g),
                                                                  np.mean(m[sel] > g))


def test_ranking_figures_against_scipy_and_tau_ap():
    rng = np.random.default_rng(0)
    a = rng.random((40, 9))
    b = a + rng.normal(0, 0.15, a.shape)
    f = _ranking_figures(a, b, 3)
    names = [f"s{i}" for i in range(9)]
    for r in range(40):
        # τ-b: the same count of pairs as scipy, divided once (scipy's arithmetic differs in the last bit)
        assert f["kendall_tau"][r] == pytest.approx(stats.kendalltau(a[r], b[r]).statistic, rel=1e-15, abs=1e-15)
        assert f["tau_ap"][r] == tau_ap(dict(zip(names, b[r])), dict(zip(names, a[r])))
        discordant = sum((a[r, i] - a[r, j]) * (b[r, i] - b[r, j]) < 0 for i in range(9) for j in range(i + 1, 9))
        assert f["discordant_pairs"][r] == discordant
        top_a = set(np.argsort(-a[r])[:3])
        assert f["top_k_changes"][r] == len(top_a - set(np.argsort(-b[r])[:3]))
        head = sum((a[r, i] - a[r, j]) * (b[r, i] - b[r, j]) < 0 and (i in top_a or j in top_a)
                   for i in range(9) for j in range(i + 1, 9))
        assert f["top_k_discordant_pairs"][r] == head


def test_bootstrap_intervals_are_the_loop_over_resamples(shipped):
    human, model, runs = shipped
    result = judge_agreement(human, model, runs, measure="AP", n_resamples=200, random_state=5)
    ranking = result.ranking
    from cranfield.retrieval.evaluate import Evaluator

    qids = sorted(set(human) & set(model), key=str.encode)
    per = {}
    for label, qrels in (("human", human), ("model", model)):
        ev = Evaluator(qrels, ["AP"], complete=True)
        per[label] = np.array([[ev.evaluate(r).per_query["AP"].to_dict().get(q, 0.0) for q in qids] for r in runs])
    taus = []
    for counts in bootstrap_counts(len(qids), 200, np.random.default_rng(5)):
        for row in counts:
            h, m = per["human"] @ row / len(qids), per["model"] @ row / len(qids)
            taus.append(stats.kendalltau(h, m).statistic)
    low, high = np.quantile(np.array(taus)[~np.isnan(taus)], [0.025, 0.975])
    value, got_low, got_high = ranking.figures["kendall_tau"]
    assert (got_low, got_high) == pytest.approx((low, high), rel=1e-15, abs=1e-15)
    assert value == pytest.approx(stats.kendalltau(per["human"].mean(1), per["model"].mean(1)).statistic, rel=1e-15)


@pytest.mark.parametrize("policy", ["human-first", "model-first"])
def test_merge(shipped, policy):
    human, model, _ = shipped
    first, second = (human, model) if policy == "human-first" else (model, human)
    expected = {q: dict(docs) for q, docs in second.items()}
    for q, docs in first.items():
        expected.setdefault(q, {}).update(docs)
    assert merge_judgments(human, model, policy=policy).to_dict() == expected


def test_errors(shipped):
    human, model, runs = shipped
    with pytest.raises(UsageError, match="at least two runs"):
        judge_agreement(human, model, runs[:1])
    with pytest.raises(UsageError, match="policy: expected one of"):
        merge_judgments(human, model, policy="model")
    with pytest.raises(UsageError, match="top_k"):
        judge_agreement(human, model, top_k=0)


def test_cli_json_and_merged_qrels(tmp_path, shipped):
    human, model, runs = shipped
    paths = []
    for name, qrels in (("human", human), ("model", model)):
        path = tmp_path / f"{name}.qrels"
        path.write_text("".join(f"{q} 0 {d} {r}\n" for q, docs in qrels.items() for d, r in docs.items()))
        paths.append(str(path))
    merged = tmp_path / "merged.qrels"
    done = subprocess.run([sys.executable, "-m", "cranfield", "judges", *paths, *map(str, runs), "-f", "json",
                           "--bootstrap", "50", "--merged", str(merged)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    expected = judge_agreement(human, model, runs, n_resamples=50)
    assert out["confusion"] == expected.confusion.tolist()
    assert out["ranking"]["figures"]["kendall_tau"]["value"] == expected.ranking.figures["kendall_tau"][0]
    assert read_qrels(merged).to_dict() == merge_judgments(human, model).to_dict()
    done = subprocess.run([sys.executable, "-m", "cranfield", "evaluate", str(merged), str(runs[0]), "-m", "AP"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
