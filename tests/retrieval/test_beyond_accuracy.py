"""Beyond-accuracy measures against their definitions written as loops (Abdollahpouri et al. 2019
for ARP and APLT, Castells et al. for novelty, RecBole's Gini and coverage), and the command."""

from __future__ import annotations

import math
import random
import subprocess
import sys

import pytest

from cranfield.errors import UsageError
from cranfield.retrieval.beyond_accuracy import beyond_accuracy


def _reference(run, train, k, head_share=0.2, catalog_size=None):
    lists = {}
    for user, docs in run.items():
        by_docno = sorted(docs.items(), key=lambda kv: kv[0].encode(), reverse=True)
        lists[user] = [d for d, _ in sorted(by_docno, key=lambda kv: -kv[1])][:k]
    pop = {}
    for user, items in train.items():
        for item, rel in items.items():
            pop.setdefault(item, 0)
            if rel > 0:
                pop[item] += 1
    n_users = len(train)
    catalog = set(pop) | {i for items in lists.values() for i in items}
    size = catalog_size or len(catalog)
    recommended = [i for items in lists.values() for i in items]
    exposure = sorted([recommended.count(i) for i in catalog] + [0] * (size - len(catalog)))
    n = len(exposure)
    gini = sum((2 * j - n - 1) * c for j, c in enumerate(exposure, start=1)) / (n * sum(exposure))
    seen = [i for i in recommended if pop.get(i, 0) > 0]
    novelty = sum(-math.log2(pop[i] / n_users) for i in seen) / len(seen) if seen else 0.0
    total = sum(pop.values())
    ranked = sorted(sorted(pop), key=lambda i: -pop[i])
    head, share = set(), 0.0
    for item in ranked:
        head.add(item)
        share += pop[item] / total
        if share >= head_share:
            break
    arp = sum(sum(pop.get(i, 0) for i in items) / len(items) for items in lists.values()) / len(lists)
    aplt = sum(sum(i not in head for i in items) / len(items) for items in lists.values()) / len(lists)
    return {"coverage": len(set(recommended)) / size, "novelty": novelty, "gini": gini, "arp": arp, "aplt": aplt,
            "unseen": 1 - len(seen) / len(recommended)}


@pytest.mark.parametrize("seed", range(30))
def test_against_the_definitions(seed):
    rnd = random.Random(seed)
    items = [f"i{j}" for j in range(rnd.randint(3, 30))]
    train = {f"u{u}": {i: rnd.choice([0, 1, 1, 2]) for i in rnd.sample(items, rnd.randint(1, len(items)))}
             for u in range(rnd.randint(2, 12))}
    run = {f"u{u}": {i: float(rnd.choice([1, 2, 3, 4])) for i in rnd.sample(items + ["new1", "new2"], rnd.randint(1, 8))}
           for u in range(rnd.randint(1, 10))}
    k = rnd.choice([1, 3, 5, 10])
    head_share = rnd.choice([0.2, 0.5])
    got = beyond_accuracy(run, train, k=k, head_share=head_share)
    want = _reference(run, train, k, head_share)
    for key, value in want.items():
        assert got[key] == pytest.approx(value, rel=1e-12, abs=1e-15), key


def test_catalog_size_and_errors():
    train, run = {"u1": {"a": 1}}, {"u1": {"a": 1.0, "b": 0.5}}
    assert beyond_accuracy(run, train, k=2, catalog_size=10)["coverage"] == 0.2
    with pytest.raises(UsageError, match="k: expected a whole number >= 1"):
        beyond_accuracy(run, train, k=0)
    with pytest.raises(UsageError, match="catalog_size"):
        beyond_accuracy(run, train, k=2, catalog_size=1)


def test_command(tmp_path):
    (tmp_path / "train").write_text("u1 0 a 1\nu2 0 a 1\nu2 0 b 1\n")
    (tmp_path / "run").write_text("u1 Q0 a 1 2 r\nu1 Q0 b 2 1 r\nu2 Q0 c 1 1 r\n")
    out = subprocess.run([sys.executable, "-m", "cranfield", "beyond", str(tmp_path / "train"), str(tmp_path / "run"),
                          "-k", "2", "-f", "csv"], capture_output=True, text=True, check=True)
    header, row = out.stdout.splitlines()[:2]
    assert header == "run,coverage,novelty,gini,arp,aplt,unseen,lists"
    assert row.startswith("r,1.0,")
