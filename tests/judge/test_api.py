"""The judging API on SQLite and on a real PostgreSQL server (the ``db_url`` fixture runs each test
on both): judging order, refusals, tokens, CSRF, isolation between assessors, undo and skip,
agreement (against scikit-learn and the krippendorff package) and the export."""

from __future__ import annotations

import json
import random
import threading
import time

import pytest

from cranfield.judge.app import prepare
from cranfield.judge.server import make_app

from .conftest import POOL


@pytest.fixture
def make_client(inputs):
    from starlette.testclient import TestClient

    clients = []

    def make(db_url, **options):
        judging = prepare(inputs["pool"], inputs["docs"], inputs["topics"], db_url, **options)
        client = TestClient(make_app(judging))
        client.judging = judging
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()
        client.judging.db.close()


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def post(client, path, token, body, **headers):
    data = body if isinstance(body, (bytes, str)) else json.dumps(body)
    return client.post(path, content=data, headers={**bearer(token), "Content-Type": "application/json", **headers})


def test_next_is_stable_and_follows_the_judging_order(db_url, make_client):
    client = make_client(db_url, overlap=0.0)
    alice = client.judging.db.add_account("alice")
    first = client.get("/api/next", headers=bearer(alice))
    assert first.status_code == 200
    assert (first.json()["topic"]["id"], first.json()["doc"]["id"]) == POOL[0]
    assert client.get("/api/next", headers=bearer(alice)).json()["doc"]["id"] == "d3"  # same until judged
    seen = []
    pair = first.json()
    while pair is not None:
        seen.append((pair["topic"]["id"], pair["doc"]["id"]))
        response = post(client, "/api/judgments", alice, {"topic": pair["topic"]["id"], "doc": pair["doc"]["id"],
                                                         "grade": 1})
        assert response.status_code == 201
        pair = response.json()["next"]
    assert seen == POOL  # one assessor judges every topic, in the sheet's order
    assert client.get("/api/next", headers=bearer(alice)).status_code == 204


def test_a_201_means_committed(db_url, make_client):
    from cranfield.judge.storage import open_database

    client = make_client(db_url)
    alice = client.judging.db.add_account("alice")
    client.get("/api/next", headers=bearer(alice))
    assert post(client, "/api/judgments", alice, {"topic": "t1", "doc": "d3", "grade": 2}).status_code == 201
    other = open_database(db_url)  # another connection sees it at once
    try:
        with other.transaction(read_only=True) as tx:
            assert tx.all("SELECT topic, doc, grade FROM judgments") == [("t1", "d3", 2)]
    finally:
        other.close()


@pytest.mark.parametrize("body, status, message", [
    ({"topic": "t1", "doc": "d3", "grade": 3}, 422, "outside the scale"),
    ({"topic": "t1", "doc": "d3", "grade": -1}, 422, "outside the scale"),
    ({"topic": "t1", "doc": "d3", "grade": 1.5}, 422, "outside the scale"),
    ({"topic": "t1", "doc": "d3", "grade": True}, 422, "outside the scale"),
    ({"topic": "t1", "doc": "d3", "grade": "1"}, 422, "outside the scale"),
    ({"topic": "t1", "doc": "d3"}, 422, "missing field 'grade'"),
    ({"topic": "t1", "grade": 1}, 422, "missing field 'doc'"),
    ({"doc": "d3", "grade": 1}, 422, "missing field 'topic'"),
    ({"topic": 1, "doc": "d3", "grade": 1}, 422, "expected a string"),
    ({"topic": "t2", "doc": "d5", "grade": 1}, 409, "not in your queue"),  # t2 is not claimed yet
    ({"topic": "t1", "doc": "d8", "grade": 1}, 409, "not in your queue"),  # d8 is not pooled for t1
    ({"topic": "t1", "doc": "../../../etc/passwd", "grade": 1}, 409, "not in your queue"),
    ('{"topic": "t1", "doc": "d3", "grade": 1', 400, "malformed JSON"),
    ("[1, 2]", 400, "expected a JSON object"),
    (b"\xff\xfe", 400, "malformed JSON"),
    ({"topic": "t1", "doc": "d3", "grade": 1, "seconds": -2}, 422, "seconds"),
])
def test_refusals(tmp_path, make_client, body, status, message):
    client = make_client(str(tmp_path / "j.sqlite"))
    alice = client.judging.db.add_account("alice")
    client.get("/api/next", headers=bearer(alice))
    response = post(client, "/api/judgments", alice, body)
    assert response.status_code == status
    assert message in response.json()["error"]
    with client.judging.db.transaction(read_only=True) as tx:
        assert tx.one("SELECT count(*) FROM judgments")[0] == 0


def test_refusals_on_postgres(postgres_url, make_client):
    client = make_client(postgres_url)
    alice = client.judging.db.add_account("alice")
    client.get("/api/next", headers=bearer(alice))
    assert post(client, "/api/judgments", alice, {"topic": "t1", "doc": "d3", "grade": 9}).status_code == 422
    assert post(client, "/api/judgments", alice, {"topic": "t2", "doc": "d5", "grade": 1}).status_code == 409
    assert post(client, "/api/judgments", alice, "{").status_code == 400
    assert post(client, "/api/judgments", alice, {"topic": "t1", "grade": 1}).status_code == 422


def test_tokens_and_roles(tmp_path, make_client):
    client = make_client(str(tmp_path / "j.sqlite"))
    alice = client.judging.db.add_account("alice")
    boss = client.judging.db.add_account("boss", role="organiser")
    assert client.get("/api/next").status_code == 401
    assert client.get("/api/next", headers=bearer("not-a-token")).status_code == 401
    assert client.get("/api/next", headers={"Authorization": f"Basic {alice}"}).status_code == 401
    assert client.get("/api/next", headers=bearer(boss)).status_code == 403  # the organiser does not judge
    assert client.get("/api/status", headers=bearer(alice)).status_code == 403
    assert client.get("/api/export/qrels", headers=bearer(alice)).status_code == 403
    assert client.get("/api/status", headers=bearer(boss)).status_code == 200
    with client.judging.db.transaction(read_only=True) as tx:  # only digests are stored
        stored = [row[0] for row in tx.all("SELECT token_digest FROM assessors")]
    assert alice not in stored and boss not in stored


def test_csrf_origin_check(tmp_path, make_client):
    client = make_client(str(tmp_path / "j.sqlite"))
    alice = client.judging.db.add_account("alice")
    client.get("/api/next", headers=bearer(alice))
    body = {"topic": "t1", "doc": "d3", "grade": 1}
    assert post(client, "/api/judgments", alice, body, Origin="http://evil.example").status_code == 403
    assert post(client, "/api/judgments", alice, body, **{"Sec-Fetch-Site": "cross-site"}).status_code == 403
    assert post(client, "/api/undo", alice, {}, Origin="http://evil.example").status_code == 403
    form = client.post("/api/judgments", content="topic=t1&doc=d3&grade=1",
                       headers={**bearer(alice), "Content-Type": "application/x-www-form-urlencoded"})
    assert form.status_code == 415  # what a cross-site form could send
    assert post(client, "/api/judgments", alice, body, Origin="http://testserver").status_code == 201


def test_no_path_from_a_url_to_the_file_system(tmp_path, make_client):
    client = make_client(str(tmp_path / "j.sqlite"))
    boss = client.judging.db.add_account("boss", role="organiser")
    for path in ("/static/../../../../etc/passwd", "/static/%2e%2e/%2e%2e/etc/passwd", "/static/storage.py",
                 "/static/judge.html", "/static/..%2fserver.py", "/etc/passwd"):
        response = client.get(path)
        assert response.status_code == 404, path
        assert b"root:" not in response.content
    response = client.get("/api/export/..%2f..%2fetc%2fpasswd", headers=bearer(boss))
    assert response.status_code == 404
    assert client.get("/static/judge.js").status_code == 200
    page = client.get("/judge")
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert "<script>" not in page.text  # no inline script: the page runs only /static/judge.js


def test_an_assessor_cannot_read_or_change_another_s_judgments(db_url, make_client):
    client = make_client(db_url, overlap=1.0)
    alice, bob = (client.judging.db.add_account(n) for n in ("alice", "bob"))
    pair = client.get("/api/next", headers=bearer(alice)).json()
    assert post(client, "/api/judgments", alice, {"topic": "t1", "doc": "d3", "grade": 2}).status_code == 201
    assert pair["doc"]["id"] == "d3"
    seen = client.get("/api/next", headers=bearer(bob)).json()  # bob: second assessor of t1 (overlap 1.0)
    assert (seen["topic"]["id"], seen["doc"]["id"]) == ("t1", "d3")
    assert seen["progress"]["judged"] == 0
    assert "grade" not in json.dumps(seen)  # nothing of alice's label
    # bob's judgment of the same pair is his own row; alice's stays 2
    assert post(client, "/api/judgments", bob, {"topic": "t1", "doc": "d3", "grade": 0}).status_code == 201
    # bob's undo removes his own judgment, not alice's
    assert client.post("/api/undo", content="{}", headers={**bearer(bob), "Content-Type": "application/json"}
                       ).json()["undone"] == {"topic": "t1", "doc": "d3"}
    with client.judging.db.transaction(read_only=True) as tx:
        rows = tx.all("SELECT a.name, j.grade FROM judgments j JOIN assessors a ON a.id = j.assessor")
    assert rows == [("alice", 2)]
    # a pair of a topic bob holds no claim on is refused
    assert post(client, "/api/judgments", bob, {"topic": "t2", "doc": "d5", "grade": 1}).status_code == 409


def test_skip_and_undo(db_url, make_client):
    client = make_client(db_url)
    alice = client.judging.db.add_account("alice")
    json_headers = {**bearer(alice), "Content-Type": "application/json"}
    assert client.post("/api/undo", content="{}", headers=json_headers).status_code == 409  # nothing yet
    client.get("/api/next", headers=bearer(alice))
    assert post(client, "/api/judgments", alice, {"topic": "t1", "doc": "d3", "grade": 1}).json()["next"]["doc"][
        "id"] == "d1"
    skipped = post(client, "/api/skip", alice, {"topic": "t1", "doc": "d1"})
    assert skipped.status_code == 201 and skipped.json()["next"]["doc"]["id"] == "d2"
    undone = client.post("/api/undo", content="{}", headers=json_headers).json()
    assert undone["undone"] == {"topic": "t1", "doc": "d1"} and undone["next"]["doc"]["id"] == "d1"
    assert client.get("/api/next", headers=bearer(alice)).json()["doc"]["id"] == "d1"  # stays until judged
    assert client.post("/api/undo", content="{}", headers=json_headers).json()["undone"]["doc"] == "d3"
    assert client.get("/api/next", headers=bearer(alice)).json()["doc"]["id"] == "d3"
    with client.judging.db.transaction(read_only=True) as tx:
        assert tx.one("SELECT count(*) FROM judgments")[0] == 0
        assert [r[0] for r in tx.all("SELECT action FROM log ORDER BY seq")] == ["judge", "skip", "undo", "undo"]


def test_concurrent_posts_of_one_pair_give_one_row(db_url, make_client):
    client = make_client(db_url)
    alice = client.judging.db.add_account("alice")
    client.get("/api/next", headers=bearer(alice))
    statuses = []

    def worker(grade):
        statuses.append(post(client, "/api/judgments", alice, {"topic": "t1", "doc": "d3", "grade": grade}).status_code)

    threads = [threading.Thread(target=worker, args=(i % 3,)) for i in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert statuses == [201] * 12
    with client.judging.db.transaction(read_only=True) as tx:
        rows = tx.all("SELECT grade, seq FROM judgments")
        last = tx.one("SELECT grade, seq FROM log ORDER BY seq DESC LIMIT 1")
        assert tx.one("SELECT count(*) FROM log")[0] == 12
    assert len(rows) == 1 and tuple(rows[0]) == tuple(last)  # the last write is the one kept: none lost


def _judge_all(client, token, rng, made, name):
    pair = client.get("/api/next", headers=bearer(token)).json()
    while pair is not None:
        grade = rng.choice([0, 1, 2])
        response = post(client, "/api/judgments", token, {"topic": pair["topic"]["id"], "doc": pair["doc"]["id"],
                                                         "grade": grade})
        assert response.status_code == 201
        made[name, pair["topic"]["id"], pair["doc"]["id"]] = grade
        pair = response.json()["next"]


def test_agreement_and_export_match_the_judgments_made(db_url, make_client, tmp_path):
    import krippendorff
    import numpy as np
    from sklearn.metrics import cohen_kappa_score

    from cranfield.cli import main
    from cranfield.io.labels import read_labels

    client = make_client(db_url, overlap=1.0)
    tokens = {n: client.judging.db.add_account(n) for n in ("alice", "bob")}
    boss = client.judging.db.add_account("boss", role="organiser")
    rng, made = random.Random(7), {}
    for name, token in tokens.items():  # alice takes t1 (first), bob t1 (second), then the rest in turn
        client.get("/api/next", headers=bearer(token))
    for name, token in tokens.items():
        _judge_all(client, token, rng, made, name)
    claims = {}
    with client.judging.db.transaction(read_only=True) as tx:
        for topic, role, name in tx.all("SELECT c.topic, c.role, a.name FROM claims c JOIN assessors a ON "
                                        "a.id = c.assessor"):
            claims[topic, role] = name
    expected = "".join(f"{t} 0 {d} {made[claims[t, 1], t, d]}\n" for t, d in POOL)
    qrels = client.get("/api/export/qrels", headers=bearer(boss))
    assert qrels.text == expected
    twice = [(t, d) for t, d in POOL if (t, 2) in claims]
    assert twice
    first = [made[claims[t, 1], t, d] for t, d in twice]
    second = [made[claims[t, 2], t, d] for t, d in twice]
    agreement = client.get("/api/status", headers=bearer(boss)).json()["agreement"]
    assert agreement["pairs"] == len(twice)
    assert agreement["kappa"] == round(cohen_kappa_score(first, second), 4)
    names = sorted(tokens)
    data = np.full((2, len(twice)), np.nan)
    for unit, (t, d) in enumerate(twice):
        for role in (1, 2):
            data[names.index(claims[t, role]), unit] = made[claims[t, role], t, d]
    assert agreement["alpha"] == round(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"), 4)
    # the command line writes the same qrels, labels every assessor's grades, and the qrels evaluate
    out, labels, times = tmp_path / "qrels.txt", tmp_path / "labels.csv", tmp_path / "times.csv"
    assert main(["judge", "export", db_url, "-o", str(out), "--labels", str(labels), "--times", str(times)]) == 0
    assert out.read_text() == expected
    read = read_labels(str(labels))
    assert {(w, q, d): int(v) for q, d, w, v in zip(read.query.to_pylist(), read.document.to_pylist(), read.worker.to_pylist(), read.label.tolist())} == made
    assert times.read_text().count("\n") == len(made) + 1
    run = tmp_path / "run.txt"
    run.write_text("".join(f"{t} Q0 {d} {i + 1} {10 - i} sys\n" for i, (t, d) in enumerate(POOL)))
    assert main(["evaluate", str(out), str(run), "-m", "P@2", "-f", "csv", "-o", str(tmp_path / "e.csv")]) == 0


def test_restart_resumes_and_refuses_another_pool(tmp_path, make_client, inputs):
    from cranfield.errors import UsageError

    db = str(tmp_path / "j.sqlite")
    client = make_client(db)
    alice = client.judging.db.add_account("alice")
    client.get("/api/next", headers=bearer(alice))
    post(client, "/api/judgments", alice, {"topic": "t1", "doc": "d3", "grade": 1})
    shown = client.get("/api/next", headers=bearer(alice)).json()["doc"]["id"]
    again = make_client(db)  # a restarted server on the same database
    assert again.get("/api/next", headers=bearer(alice)).json()["doc"]["id"] == shown == "d1"
    inputs["pool"].write_text("t1 0 d1 -1\n")
    with pytest.raises(UsageError, match="holds another pool"):
        prepare(inputs["pool"], inputs["docs"], inputs["topics"], db)


def test_adaptive_move_to_front_follows_the_judgments(tmp_path):
    """With --mtf, the documents come in the order MTF gives when it knows every label in
    advance (the labels the assessor gives), which is not the pool's order."""
    from starlette.testclient import TestClient

    from cranfield.judgments.pooling import build_pool

    from .conftest import write_inputs

    rng = random.Random(3)
    docs = {f"d{i}": f"text {i}" for i in range(1, 13)}
    runs = []
    for r in range(3):
        ranked = list(docs)
        rng.shuffle(ranked)
        path = tmp_path / f"run{r}.txt"
        path.write_text("".join(f"t1 Q0 {d} {i + 1} {20 - i} r{r}\n" for i, d in enumerate(ranked[:9])))
        runs.append(path)
    labels = {d: rng.choice([0, 0, 1, 2]) for d in docs}
    pool = build_pool(runs, method="depth", depth=9)
    paths = write_inputs(tmp_path / "in", pool=list(zip(pool.qid.tolist(), pool.docno.tolist())), docs=docs,
                         topics=[{"id": "t1", "title": "t"}])
    judging = prepare(paths["pool"], paths["docs"], paths["topics"], str(tmp_path / "j.sqlite"), mtf=runs)
    alice = judging.db.add_account("alice")
    seen = []
    with TestClient(make_app(judging)) as client:
        pair = client.get("/api/next", headers=bearer(alice)).json()
        while pair is not None:
            doc = pair["doc"]["id"]
            seen.append(doc)
            pair = post(client, "/api/judgments", alice, {"topic": "t1", "doc": doc, "grade": labels[doc]}).json()[
                "next"]
    judging.db.close()
    expected = build_pool(runs, method="mtf", qrels={"t1": labels}).docno.tolist()
    assert seen == expected
    assert seen != pool.docno.tolist()


def test_a_configured_scale_and_the_time_of_each_judgment(tmp_path, make_client):
    from cranfield.judge.app import parse_scale

    client = make_client(str(tmp_path / "j.sqlite"), scale=parse_scale("0=No,1=Yes"))
    alice = client.judging.db.add_account("alice")
    assert client.get("/api/me", headers=bearer(alice)).json()["scale"] == [{"grade": 0, "label": "No"},
                                                                            {"grade": 1, "label": "Yes"}]
    client.get("/api/next", headers=bearer(alice))
    assert post(client, "/api/judgments", alice, {"topic": "t1", "doc": "d3", "grade": 2}).status_code == 422
    saved = post(client, "/api/judgments", alice, {"topic": "t1", "doc": "d3", "grade": 1, "seconds": 3.5})
    assert saved.json()["saved"]["seconds"] == 3.5
    time.sleep(0.2)  # without "seconds", the time since the document was shown is recorded
    assert post(client, "/api/judgments", alice, {"topic": "t1", "doc": "d1", "grade": 0}).json()["saved"][
        "seconds"] >= 0.2
    with client.judging.db.transaction(read_only=True) as tx:
        assert tx.one("SELECT seconds FROM judgments ORDER BY seq")[0] == 3.5
    assert main_export_times(tmp_path, client.judging.db.url)[1].split(",")[6] == "3.500"


def main_export_times(tmp_path, db_url):
    from cranfield.cli import main

    out = tmp_path / "times.csv"
    assert main(["judge", "export", db_url, "-o", str(tmp_path / "q.txt"), "--times", str(out)]) == 0
    return out.read_text().splitlines()
