"""The commands on a real PostgreSQL server: ``cranfield judge serve --db postgresql://…`` as a
process, ``assessor add`` and ``export`` on the same URL, and a restart that resumes."""

from __future__ import annotations

import json
import urllib.request

from cranfield.cli import main

from .conftest import POOL, write_inputs


def _call(url, token, path, body=None):
    headers = {"Authorization": f"Bearer {token}"}
    data = None
    if body is not None:
        data, headers["Content-Type"] = json.dumps(body).encode(), "application/json"
    with urllib.request.urlopen(urllib.request.Request(url + path, data=data, headers=headers), timeout=10) as r:
        return r.status, json.loads(r.read() or b"null")


def test_serve_assessor_add_and_export_on_postgres(postgres_url, tmp_path, server_factory, capsys):
    paths = write_inputs(tmp_path / "in")
    server = server_factory(paths, postgres_url).start()
    assert main(["judge", "assessor", "add", postgres_url, "alice"]) == 0
    link = capsys.readouterr().out.strip()
    assert link.startswith(f"{server.url}/judge#token=")
    token = link.split("#token=")[1]
    status, pair = _call(server.url, token, "/api/next")
    for grade in (2, 1):
        status, answer = _call(server.url, token, "/api/judgments",
                               {"topic": pair["topic"]["id"], "doc": pair["doc"]["id"], "grade": grade})
        assert status == 201
        pair = answer["next"]
    server.stop()
    server.start()  # a restart on the same database resumes
    assert _call(server.url, token, "/api/next")[1]["doc"]["id"] == POOL[2][1]
    out = tmp_path / "qrels.txt"
    assert main(["judge", "export", postgres_url, "-o", str(out)]) == 0
    assert out.read_text() == f"t1 0 {POOL[0][1]} 2\nt1 0 {POOL[1][1]} 1\n"
