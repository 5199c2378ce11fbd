"""Nothing acknowledged is lost: the server (a real ``cranfield judge serve`` process, on SQLite and
on PostgreSQL) is killed with SIGKILL at random moments while assessors post judgments; after every
kill and at the end, every judgment that got its 201 is in the database with its grade, no pair
is stored twice, and SQLite's integrity check passes."""

from __future__ import annotations

import http.client
import json
import random
import sqlite3
import threading
import time
import urllib.request

import pytest

from .conftest import write_inputs

KILLS = 6
ASSESSORS = 4


def _request(url, token, path, body=None):
    headers = {"Authorization": f"Bearer {token}"}
    data = None
    if body is not None:
        data, headers["Content-Type"] = json.dumps(body).encode(), "application/json"
    request = urllib.request.Request(url + path, data=data, headers=headers, method="POST" if data else "GET")
    with urllib.request.urlopen(request, timeout=5) as response:
        return response.status, response.read()


def _grade(topic: str, doc: str) -> int:
    return (len(topic) * 7 + int(doc[1:])) % 3  # the same grade on a retry


def _assessor(server, token, acknowledged: list, stop: threading.Event) -> None:
    while not stop.is_set():
        try:
            status, body = _request(server.url, token, "/api/next")
            if status == 204:
                return
            pair = json.loads(body)
            topic, doc = pair["topic"]["id"], pair["doc"]["id"]
            status, _ = _request(server.url, token, "/api/judgments",
                                 {"topic": topic, "doc": doc, "grade": _grade(topic, doc)})
            if status == 201:
                acknowledged.append((token, topic, doc, _grade(topic, doc)))
        except (OSError, http.client.HTTPException, ValueError):  # URLError is an OSError
            time.sleep(0.05)  # the server is down: try again


@pytest.mark.slow
def test_kill_9_loses_no_acknowledged_judgment(tmp_path, server_factory, db_url):
    topics = [{"id": f"q{i}", "title": f"topic {i}"} for i in range(40)]
    docs = {f"d{i}": f"text {i}" for i in range(40)}
    pool = [(t["id"], f"d{i}") for t in topics for i in range(40)]
    paths = write_inputs(tmp_path / "in", pool=pool, docs=docs, topics=topics)
    db = db_url
    server = server_factory(paths, db).start()
    tokens = {server.add(f"a{i}"): f"a{i}" for i in range(ASSESSORS)}
    acknowledged: list = []
    stop = threading.Event()
    threads = [threading.Thread(target=_assessor, args=(server, token, acknowledged, stop)) for token in tokens]
    for thread in threads:
        thread.start()
    rng = random.Random(28)
    kills = 0
    try:
        for _ in range(KILLS):
            time.sleep(rng.uniform(0.3, 1.5))
            server.kill()  # SIGKILL: no clean-up at all
            kills += 1
            _check(db, acknowledged[:], tokens)
            server.start()
    finally:
        stop.set()
        for thread in threads:
            thread.join(10)
        server.kill()
    found = _check(db, acknowledged, tokens)
    backend = "postgresql" if db.startswith("postgresql://") else "sqlite"
    print(f"\ncrash test ({backend}): {kills} kills, {len(acknowledged)} acknowledged, {found} found in the database")
    assert kills == KILLS and len(acknowledged) > 50


def _check(db: str, acknowledged: list, tokens: dict) -> int:
    from cranfield.judge.storage import open_database

    if not db.startswith("postgresql://"):
        connection = sqlite3.connect(db)
        try:
            assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        finally:
            connection.close()
    database = open_database(db)
    try:
        with database.transaction(read_only=True) as tx:
            stored = {(name, topic, doc): grade for name, topic, doc, grade in tx.all(
                "SELECT a.name, j.topic, j.doc, j.grade FROM judgments j JOIN assessors a ON a.id = j.assessor")}
            duplicates = tx.one("SELECT count(*) FROM (SELECT assessor, topic, doc FROM judgments GROUP BY "
                                "assessor, topic, doc HAVING count(*) > 1) AS d")[0]
    finally:
        database.close()
    assert duplicates == 0
    missing = [a for a in acknowledged if stored.get((tokens[a[0]], a[1], a[2])) != a[3]]
    assert missing == []
    return sum(1 for a in acknowledged if (tokens[a[0]], a[1], a[2]) in stored)
