"""Fixtures of the judging app: small inputs, a real PostgreSQL server, a real uvicorn server.

PostgreSQL: a throwaway cluster (initdb in a temporary folder, trust authentication, a loopback
port), run as the ``postgres`` user when the tests run as root (PostgreSQL refuses root). The
binaries are found on PATH, in /usr/local/bin or in Debian's /usr/lib/postgresql/*/bin (what
``.ci/run`` installs). Missing PostgreSQL skips the tests, except under CI, where it fails them.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest
from report.test_browser import browser  # noqa: F401 - Debian's chromium through Playwright, for test_browser.py

pytest.importorskip("starlette", reason="the judge extra is not installed (pip install 'cranfield[judge]')")

SRC = str(Path(__file__).resolve().parents[2] / "src")
TOPICS = [{"id": "t1", "title": "wing flutter", "description": "Flutter of wings.", "narrative": "Any wing."},
          {"id": "t2", "title": "heat transfer", "description": "Heat.", "narrative": ""},
          {"id": "t3", "title": "shock waves", "description": "", "narrative": ""}]
DOCS = {f"d{i}": f"document {i} about wing flutter, heat transfer and shock waves <b>bold?</b>" for i in range(1, 9)}
POOL = [("t1", d) for d in ("d3", "d1", "d2", "d4")] + [("t2", d) for d in ("d5", "d6", "d1")] + \
       [("t3", d) for d in ("d7", "d8")]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_inputs(folder: Path, pool=POOL, docs=DOCS, topics=TOPICS) -> dict:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pool.qrels").write_text("".join(f"{t} 0 {d} -1\n" for t, d in pool))
    (folder / "docs.jsonl").write_text("".join(json.dumps({"id": k, "title": f"title {k}", "text": v}) + "\n"
                                               for k, v in docs.items()))
    (folder / "topics.jsonl").write_text("".join(json.dumps(t) + "\n" for t in topics))
    return {"pool": folder / "pool.qrels", "docs": folder / "docs.jsonl", "topics": folder / "topics.jsonl"}


@pytest.fixture
def inputs(tmp_path) -> dict:
    return write_inputs(tmp_path / "inputs")


# ----------------------------------------------------------------------------- PostgreSQL
def _postgres_bin() -> str | None:
    found = shutil.which("initdb")
    if found:
        return os.path.dirname(os.path.realpath(found))
    for folder in ["/usr/local/bin", *sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)]:
        if os.path.exists(os.path.join(folder, "initdb")) and os.path.exists(os.path.join(folder, "pg_ctl")):
            return folder
    return None


def _as_postgres_user(command: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return command
    return ["runuser", "-u", "postgres", "--", *command]


@pytest.fixture(scope="session")
def postgres_server():
    """The base URL of a throwaway PostgreSQL server (session-wide)."""
    folder = _postgres_bin()
    reason = None
    if folder is None:
        reason = "PostgreSQL is not installed (apt-get install postgresql)"
    else:
        try:
            import psycopg  # noqa: F401
        except ImportError:
            reason = "psycopg is not installed (pip install 'cranfield[judge]')"
    if os.geteuid() == 0 and reason is None:
        try:
            import pwd

            pwd.getpwnam("postgres")
        except KeyError:
            reason = "running as root and there is no 'postgres' user to run PostgreSQL as"
    if reason:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but {reason}")
        pytest.skip(reason)
    root = tempfile.mkdtemp(prefix="cranfield-pg-")
    os.chmod(root, 0o777)
    data = os.path.join(root, "data")
    port = free_port()
    subprocess.run(_as_postgres_user([os.path.join(folder, "initdb"), "-D", data, "-U", "postgres", "--auth=trust",
                                      "-E", "UTF8", "--no-sync"]), check=True, capture_output=True)
    subprocess.run(_as_postgres_user([os.path.join(folder, "pg_ctl"), "-D", data, "-w", "-l",
                                      os.path.join(root, "log"), "-o",
                                      f"-c listen_addresses=127.0.0.1 -p {port} -k {root} -c fsync=on",
                                      "start"]), check=True, capture_output=True)
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}"
    finally:
        subprocess.run(_as_postgres_user([os.path.join(folder, "pg_ctl"), "-D", data, "-m", "immediate", "stop"]),
                       check=False, capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def postgres_url(postgres_server, request):
    """A fresh, empty database on the throwaway server."""
    import psycopg

    name = "t_" + "".join(c if c.isalnum() else "_" for c in request.node.name.lower())[:50] + f"_{os.getpid()}"
    with psycopg.connect(f"{postgres_server}/postgres", autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}"')
        connection.execute(f'CREATE DATABASE "{name}"')
    return f"{postgres_server}/{name}"


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    if request.param == "sqlite":
        return str(tmp_path / "judge.sqlite")
    return request.getfixturevalue("postgres_url")


# ----------------------------------------------------------------------------- a real server
class Server:
    """``cranfield judge serve`` in a subprocess on a loopback port."""

    def __init__(self, paths: dict, db: str, *, extra=(), env=None) -> None:
        self.paths, self.db, self.extra = paths, db, list(extra)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {**os.environ, "PYTHONPATH": SRC, **(env or {})}
        self.process = None

    def start(self, timeout: float = 30.0) -> Server:
        command = [sys.executable, "-m", "cranfield", "judge", "serve", str(self.paths["pool"]), "--docs",
                   str(self.paths["docs"]), "--topics", str(self.paths["topics"]), "--db", self.db, "--port",
                   str(self.port), *self.extra]
        self.process = subprocess.Popen(command, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server stopped: {self.process.stderr.read().decode()}")
            try:
                with urllib.request.urlopen(self.url + "/judge", timeout=1):
                    return self
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("the server did not start")

    def add(self, name: str, *, organiser: bool = False) -> str:
        """Add an account; returns its token."""
        command = [sys.executable, "-m", "cranfield", "judge", "assessor", "add", self.db, name]
        out = subprocess.run(command + (["--organiser"] if organiser else []), env=self.env, check=True,
                             capture_output=True, text=True).stdout.strip()
        return out.split("#token=")[1]

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@pytest.fixture
def server_factory():
    started = []

    def make(paths, db, **options) -> Server:
        server = Server(paths, db, **options)
        started.append(server)
        return server

    yield make
    for server in started:
        server.stop()
