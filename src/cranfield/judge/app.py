"""What the ``cranfield judge`` commands call: set up a judging database from a pool, documents and
topics; add accounts; serve; export qrels, raw labels and the time log."""

from __future__ import annotations

import json
import os
import re

from .. import datasets
from ..errors import InputError, UsageError
from ..io.atomic import write_text_output
from ..io.documents import read_documents, read_topics
from ..io.trec import read_trec_columns
from ..judgments.pooling import build_pool
from .mtf import MoveToFront
from .queue import labels_text, overlap_flags, qrels_text, times_text
from .server import DEFAULT_SCALE, Judging, make_app
from .storage import Database, open_database

__all__ = ["DEFAULT_URL", "account_url", "add_account", "export", "parse_scale", "prepare", "read_pool", "serve"]

DEFAULT_URL = "http://127.0.0.1:8765"


def read_pool(path) -> list[tuple[str, str, int, int, int]]:
    """The judging sheet (``qid 0 docno -1`` lines as ``cranfield pool`` writes them) as rows
    (topic, doc, topic order, doc order, line): topics in the order they first come, documents
    in the sheet's order (the judging order)."""
    columns = read_trec_columns(path, kind="qrels")
    qids, docnos = columns.qid.to_pylist(), columns.docno.to_pylist()
    lines = columns.line.tolist() if columns.line is not None else range(1, len(qids) + 1)
    topic_order: dict[str, int] = {}
    seen: dict[tuple[str, str], int] = {}
    rows = []
    for qid, docno, line in zip(qids, docnos, lines):
        if (qid, docno) in seen:
            raise InputError(f"query {qid!r}, document {docno!r} is pooled twice (first at line {seen[qid, docno]})",
                             source=columns.source, line=line, field="docno")
        seen[qid, docno] = line
        order = topic_order.setdefault(qid, len(topic_order))
        rows.append((qid, docno, order, len(rows), line))
    if not rows:
        raise InputError("the pool is empty: expected 'qid 0 docno -1' lines", source=columns.source)
    return rows


def parse_scale(text: str | None) -> tuple:
    """``"0=Not relevant,1=Relevant,2=Highly relevant"`` -> ((0, "Not relevant"), …); grades 0-9."""
    if text is None:
        return DEFAULT_SCALE
    scale = []
    for item in text.split(","):
        grade, sep, label = item.partition("=")
        if not sep or not grade.strip().isdigit() or len(grade.strip()) != 1 or not label.strip():
            raise UsageError(f"--scale: expected GRADE=LABEL items (a digit 0-9 each) separated by commas, found "
                             f"{item!r}")
        scale.append((int(grade), label.strip()))
    if len({g for g, _ in scale}) != len(scale) or len(scale) < 2:
        raise UsageError(f"--scale: expected at least two different grades, found {text!r}")
    return tuple(sorted(scale))


def prepare(pool, docs, topics, db_url, *, scale=None, overlap: float = 0.1, seed: str = "cranfield",
            mtf=(), relevance_level: int = 1) -> Judging:
    """Read the inputs, check that every pooled topic and document is there, create or open the
    database and store the pool (the same pool on a restart). ``mtf``: the runs that made the
    pool, to order each topic's documents by adaptive Move-to-Front as judgments arrive (a grade
    ≥ ``relevance_level`` is relevant)."""
    if not 0.0 <= overlap <= 1.0:
        raise UsageError(f"--overlap: expected a fraction in [0, 1], found {overlap}")
    rows = read_pool(pool)
    documents = read_documents(docs, ids=sorted({docno for _, docno, _, _, _ in rows}))
    topic_table = read_topics(topics)
    source = os.fspath(pool)
    for qid, docno, _, _, line in rows:
        if qid not in topic_table:
            raise InputError(f"topic {qid!r} is not in {os.fspath(topics)}", source=source, line=line, field="qid")
        if docno not in documents:
            raise InputError(f"document {docno!r} is not in {os.fspath(docs)}", source=source, line=line,
                             field="docno")
    flags = overlap_flags([(r[0], r[1]) for r in rows], overlap, seed=seed)
    db = open_database(db_url, create=True)
    db.load_pool([(t, d, to, do, f) for (t, d, to, do, _), f in zip(rows, flags)], source=source)
    scale = tuple(scale) if scale is not None else DEFAULT_SCALE
    db.set_meta("scale", json.dumps(scale))
    order = None
    if mtf:
        order = MoveToFront(list(mtf), relevance_level=relevance_level).order
    return Judging(db, documents, topic_table, scale, order)


def add_account(db_url: str, name: str, *, organiser: bool = False, url: str | None = None) -> str:
    """Add an assessor (or the organiser) to a judging database; returns the page's URL with the token."""
    db = open_database(db_url)
    try:
        token = db.add_account(name, role="organiser" if organiser else "assessor")
        return account_url(db, token, organiser=organiser, url=url)
    finally:
        db.close()


def account_url(db: Database, token: str, *, organiser: bool = False, url: str | None = None) -> str:
    base = (url or db.get_meta("url") or DEFAULT_URL).rstrip("/")
    return f"{base}/{'organiser' if organiser else 'judge'}#token={token}"


def serve(judging: Judging, *, host: str = "127.0.0.1", port: int = 8765, announce=print) -> None:
    """Serve until interrupted (uvicorn, one process; the database connections are per thread)."""
    try:
        import uvicorn  # optional dependency (the judge extra)
    except ImportError:  # pragma: no cover - depends on the installation
        raise UsageError("the judging server needs uvicorn and starlette: pip install 'cranfield[judge]'") from None
    _check_port(host, port)
    shown_host = f"[{host}]" if ":" in host else host
    judging.db.set_meta("url", f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else shown_host}:{port}")
    if not judging.db.has_organiser():
        token = judging.db.add_account("organiser", role="organiser")
        announce(f"organiser page (keep this link private): {account_url(judging.db, token, organiser=True)}")
    shown_db = re.sub(r"(://[^:/@]*:)[^@/]*@", r"\1***@", judging.db.url)  # never print a password
    announce(f"judging {len(judging.topics)} topics, serving on http://{shown_host}:{port} (Ctrl-C stops); add an "
             f"assessor with: cranfield judge assessor add {shown_db} NAME")
    uvicorn.run(make_app(judging), host=host, port=port, log_level="warning", access_log=False)


def _check_port(host: str, port: int) -> None:
    """A port another process listens on is a usage error (not uvicorn's log line and exit 1)."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as error:
            raise UsageError(f"--port {port}: cannot listen on {host}:{port} ({error.strerror}); give another "
                             "--port or --host") from None


def export(db_url: str, output: str | None, *, labels: str | None = None, times: str | None = None) -> int:
    """Write the qrels (and optionally the raw labels and the time log), atomically; returns the
    number of qrels lines."""
    named = [os.path.abspath(p) for p in (output, labels, times) if p is not None and p != "-"]
    if len(set(named)) < len(named):
        raise UsageError("-o, --labels and --times name the same file: give one file each")
    db = open_database(db_url)
    inputs = [] if db.postgres else [db.url]  # never write over the database
    try:
        text = qrels_text(db)
        if labels is not None:
            write_text_output(labels_text(db), labels, inputs=inputs)
        if times is not None:
            write_text_output(times_text(db), times, inputs=inputs)
        write_text_output(text, output, inputs=inputs)
        return text.count("\n")
    finally:
        db.close()


def demo(folder, *, host: str = "127.0.0.1", port: int = 8765, depth: int = 10, announce=print) -> None:
    """``cranfield demo --judge``: pool the shipped Cranfield runs (depth ``depth``), serve them with
    the shipped documents and queries from ``folder`` (database, pool and links kept there, so a
    second start resumes), and announce the assessor's and the organiser's links."""
    from pathlib import Path

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    data = datasets.cranfield()
    pool, db_url, links = folder / "pool.qrels", str(folder / "judge.sqlite"), folder / "links.txt"
    if not pool.exists():
        runs = [data["runs"][name] for name in ("bm25", "tfidf", "coord_title")]
        build_pool(runs, method="depth", depth=depth).write(pool)
    judging = prepare(pool, data["documents"], data["topics"], db_url,
                      scale=((0, "Not relevant"), (1, "Relevant"), (2, "Highly relevant")))
    base = f"http://{host}:{port}"
    if not links.exists() or judging.db.get_meta("demo") != "1":
        assessor = account_url(judging.db, judging.db.add_account("demo"), url=base)
        organiser = account_url(judging.db, judging.db.add_account("demo-organiser", role="organiser"), organiser=True,
                                url=base)
        judging.db.set_meta("demo", "1")
        write_text_output(f"assessor: {assessor}\norganiser: {organiser}\n", links)
    for line in links.read_text(encoding="utf-8").splitlines():
        announce(line.replace("assessor: ", "assessor page: ").replace("organiser: ", "organiser page: "))
    announce(f"when done: cranfield judge export {db_url} -o qrels.txt && cranfield evaluate qrels.txt "
             f"{data['runs']['bm25']} -m P@10")
    serve(judging, host=host, port=port, announce=announce)
