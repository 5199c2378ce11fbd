"""Load on the loopback: 50 assessors at once judge a pool of 5,000 pairs through a real server
(``cranfield judge serve``, SQLite, one process), each posting as fast as the server answers.
Bounded in count (5,000 judgments) and time (the test fails past ``LIMIT_S``); every judgment
acknowledged is in the database and in the export (zero lost). The p95 latency of a judgment (its
POST, whose answer carries the next pair) and the throughput are printed (``-s``)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time

import pytest

from .conftest import write_inputs

ASSESSORS = 50
TOPICS, PER_TOPIC = 250, 20  # 5,000 pairs
LIMIT_S = 60.0


class _Connection:
    """One keep-alive HTTP/1.1 connection: a minimal client, so that the clients' CPU (the test
    shares the machine with the server) goes to the server, not to a general-purpose library."""

    def __init__(self, port: int, token: str) -> None:
        self.port, self.token = port, token

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)

    async def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, object]:
        data = json.dumps(body).encode() if body is not None else b""
        head = (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nAuthorization: Bearer {self.token}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n")
        self.writer.write(head.encode() + data)
        await self.writer.drain()
        status = int((await self.reader.readline()).split()[1])
        length = 0
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        payload = await self.reader.readexactly(length) if length else b""
        return status, json.loads(payload) if payload else None

    def close(self) -> None:
        self.writer.close()


async def _assessor(port: int, token: str, latencies: list, acknowledged: list, deadline: float) -> None:
    connection = _Connection(port, token)
    await connection.open()
    _, pair = await connection.call("GET", "/api/next")  # 204 (None): nothing to judge
    while pair is not None and time.monotonic() < deadline:
        topic, doc = pair["topic"]["id"], pair["doc"]["id"]
        grade = int(doc[1:]) % 3
        start = time.perf_counter()
        status, answer = await connection.call("POST", "/api/judgments", {"topic": topic, "doc": doc, "grade": grade})
        latencies.append(time.perf_counter() - start)
        assert status == 201, answer
        acknowledged.append((topic, doc, grade))
        pair = answer["next"]
    connection.close()


async def _run(port: int, tokens: list, latencies: list, acknowledged: list) -> float:
    start = time.monotonic()
    await asyncio.gather(*(_assessor(port, t, latencies, acknowledged, start + LIMIT_S) for t in tokens))
    return time.monotonic() - start


@pytest.mark.slow
def test_fifty_assessors_five_thousand_judgments(tmp_path, server_factory):
    import numpy as np

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
    client_cpu = time.process_time()
    elapsed = asyncio.run(_run(server.port, tokens, latencies, acknowledged))
    client_cpu = time.process_time() - client_cpu
    server_cpu = _cpu_seconds(server.process.pid)
    server.stop()
    p50, p95, p99 = (float(np.percentile(latencies, q)) * 1000 for q in (50, 95, 99))
    print(f"\nload test: {ASSESSORS} assessors, {len(acknowledged)} judgments in {elapsed:.1f} s "
          f"({len(acknowledged) / elapsed:.0f} judgments/s); latency p50 {p50:.1f} ms, p95 {p95:.1f} ms, "
          f"p99 {p99:.1f} ms; CPU: server {server_cpu:.1f} s, client {client_cpu:.1f} s")
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
    from cranfield.cli import main

    qrels = tmp_path / "qrels.txt"
    assert main(["judge", "export", db, "-o", str(qrels)]) == 0
    exported = [line.split() for line in qrels.read_text().splitlines()]
    assert {(t, d, int(g)) for t, _, d, g in exported} == set(acknowledged) and len(exported) == len(acknowledged)


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux /proc; NaN elsewhere)."""
    import os

    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return float("nan")
