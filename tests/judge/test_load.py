"""Load on the loopback: 50 assessors at once judge a pool of 5,000 pairs through a real server
(``cranfield judge serve``, SQLite, one process), each posting as fast as the server answers.
Bounded in count (5,000 judgments) and time (the test fails past ``LIMIT_S``); every judgment
acknowledged is in the database and in the export (zero lost). The p95 latency of a judgment (its
POST, whose answer carries the next pair) and the throughput are printed (``-s``)."""

from __future__ import annotations

import asyncio
import sqlite3
import time

import pytest

from .conftest import write_inputs

ASSESSORS = 50
TOPICS, PER_TOPIC = 250, 20  # 5,000 pairs
LIMIT_S = 120.0


async def _assessor(client, token: str, latencies: list, acknowledged: list, deadline: float) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    response = await client.get("/api/next", headers=headers)
    pair = response.json() if response.status_code == 200 else None
    while pair is not None and time.monotonic() < deadline:
        topic, doc = pair["topic"]["id"], pair["doc"]["id"]
        grade = int(doc[1:]) % 3
        start = time.perf_counter()
        response = await client.post("/api/judgments", json={"topic": topic, "doc": doc, "grade": grade},
                                     headers=headers)
        latencies.append(time.perf_counter() - start)
        assert response.status_code == 201, response.text
        acknowledged.append((topic, doc, grade))
        pair = response.json()["next"]


async def _run(url: str, tokens: list, latencies: list, acknowledged: list) -> float:
    import httpx

    limits = httpx.Limits(max_connections=ASSESSORS, max_keepalive_connections=ASSESSORS)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=30.0) as client:
        start = time.monotonic()
        await asyncio.gather(*(_assessor(client, t, latencies, acknowledged, start + LIMIT_S) for t in tokens))
        return time.monotonic() - start


@pytest.mark.slow
def test_fifty_assessors_five_thousand_judgments(tmp_path, server_factory):
    import numpy as np

    pytest.importorskip("httpx")
    topics = [{"id": f"q{i}", "title": f"topic {i}"} for i in range(TOPICS)]
    docs = {f"d{i}": f"text of document {i}" for i in range(PER_TOPIC * 2)}
    pool = [(t["id"], f"d{(i * 7 + j) % (PER_TOPIC * 2)}") for i, t in enumerate(topics) for j in range(PER_TOPIC)]
    paths = write_inputs(tmp_path / "in", pool=pool, docs=docs, topics=topics)
    db = str(tmp_path / "judge.sqlite")
    server = server_factory(paths, db, extra=["--overlap", "0"]).start()
    from cranfield.judge.storage import open_database

    accounts = open_database(db)
    tokens = [accounts.add_account(f"a{i:02d}") for i in range(ASSESSORS)]
    accounts.close()
    latencies: list = []
    acknowledged: list = []
    elapsed = asyncio.run(_run(server.url, tokens, latencies, acknowledged))
    server.stop()
    p50, p95, p99 = (float(np.percentile(latencies, q)) * 1000 for q in (50, 95, 99))
    print(f"\nload test: {ASSESSORS} assessors, {len(acknowledged)} judgments in {elapsed:.1f} s "
          f"({len(acknowledged) / elapsed:.0f} judgments/s); latency p50 {p50:.1f} ms, p95 {p95:.1f} ms, "
          f"p99 {p99:.1f} ms")
    assert elapsed < LIMIT_S
    assert len(acknowledged) == len(pool)  # every pair judged once, within the bound
    connection = sqlite3.connect(db)
    try:
        stored = set(connection.execute("SELECT topic, doc, grade FROM judgments"))
        assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        connection.close()
    lost = set(acknowledged) - stored
    print(f"load test: lost {len(lost)}")
    assert lost == set() and len(stored) == len(acknowledged)
