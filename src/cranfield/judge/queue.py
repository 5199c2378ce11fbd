"""Assessors' queues, judgments, undo, progress, agreement and export, over :mod:`.storage`.

Queues. Topics are judged in the pool's order (the order of the judging sheet that ``cranfield
pool`` writes: topics as they come, documents in judging order). An assessor with nothing left
claims a topic: first a topic that another assessor judges and that still needs its second
assessor (its overlap documents, a fraction of the pool chosen by a seeded hash, are judged twice
for agreement), else the next topic nobody has claimed. The first assessor of a topic judges
every pooled document of it, the second only its overlap documents. An assessor sees only their
own labels; no request reads another assessor's judgments.

``next`` returns the same pair until it is judged or skipped (the pair shown is stored with the
time it was shown, which gives the time spent when the browser does not send it). ``undo``
removes the assessor's latest judgment or skip and shows that pair again.
"""

from __future__ import annotations

import csv
import hashlib
import io
import time
from dataclasses import dataclass

from ..errors import UsageError
from ..judgments.agreement import cohen_kappa, krippendorff_alpha
from .storage import Database

__all__ = [
    "Refused",
    "labels_text",
    "next_pair",
    "overlap_flags",
    "progress",
    "qrels_text",
    "record",
    "status",
    "times_text",
    "undo",
]

_QUEUE = ("SELECT p.topic, p.doc FROM claims c JOIN pool p ON p.topic = c.topic AND (c.role = 1 OR p.overlap = 1) "
          "LEFT JOIN judgments j ON j.assessor = c.assessor AND j.topic = p.topic AND j.doc = p.doc "
          "WHERE c.assessor = ? AND j.doc IS NULL ORDER BY c.claimed, p.topic_order, p.doc_order LIMIT 1")
_IN_QUEUE = ("SELECT 1 FROM claims c JOIN pool p ON p.topic = c.topic AND (c.role = 1 OR p.overlap = 1) "
             "WHERE c.assessor = ? AND p.topic = ? AND p.doc = ?")


class Refused(UsageError):
    """A request the API refuses: ``status`` is its HTTP status."""

    def __init__(self, message: str, status: int = 422) -> None:
        super().__init__(message)
        self.status = status


def overlap_flags(pairs: list[tuple[str, str]], fraction: float, *, seed: str = "cranfield") -> list[int]:
    """1 for the pairs judged by two assessors: those whose seeded SHA-256 falls below ``fraction``
    (stable whatever the order or the number of pairs)."""
    limit = fraction * 2.0 ** 64
    return [int(int.from_bytes(hashlib.sha256(f"{seed}\0{t}\0{d}".encode()).digest()[:8], "big") < limit)
            for t, d in pairs]


def _claim(db: Database, assessor: int) -> bool:
    """Claim a topic for ``assessor`` (see the module's documentation); False when none is left."""
    return db.write(lambda tx: _claim_in(tx, assessor))


def _claim_in(tx, assessor: int) -> bool:
    if tx.postgres:
        tx.run("SELECT pg_advisory_xact_lock(4242)")  # claims one at a time (SQLite: one writer at a time)
    second = tx.one(
        "SELECT c.topic FROM claims c JOIN (SELECT topic, min(topic_order) AS o FROM pool GROUP BY topic "
        "HAVING max(overlap) = 1) p ON p.topic = c.topic WHERE c.role = 1 AND c.assessor <> ? AND NOT EXISTS "
        "(SELECT 1 FROM claims d WHERE d.topic = c.topic AND (d.role = 2 OR d.assessor = ?)) ORDER BY p.o LIMIT 1",
        (assessor, assessor))
    if second is not None:
        tx.run("INSERT INTO claims (topic, role, assessor, claimed) VALUES (?, 2, ?, ?)",
               (second[0], assessor, time.time()))
        return True
    first = tx.one("SELECT p.topic FROM pool p WHERE NOT EXISTS (SELECT 1 FROM claims c WHERE c.topic = p.topic) "
                   "ORDER BY p.topic_order LIMIT 1")
    if first is None:
        return False
    tx.run("INSERT INTO claims (topic, role, assessor, claimed) VALUES (?, 1, ?, ?)",
           (first[0], assessor, time.time()))
    return True


def _advance(tx, assessor: int) -> tuple[str, str] | None:
    """Within a transaction: the pair shown to the assessor if still pending, else the first
    pending pair of their claimed topics (now shown); None if their claimed topics are done."""
    shown = tx.one("SELECT s.topic, s.doc FROM shown s WHERE s.assessor = ? AND NOT EXISTS (SELECT 1 FROM "
                   "judgments j WHERE j.assessor = s.assessor AND j.topic = s.topic AND j.doc = s.doc)", (assessor,))
    if shown is not None:
        return shown[0], shown[1]
    pair = tx.one(_QUEUE, (assessor,))
    if pair is not None:
        _show(tx, assessor, pair[0], pair[1], time.time())
        return pair[0], pair[1]
    return None


def next_pair(db: Database, assessor: int, order=None) -> tuple[str, str] | None:
    """The assessor's next (topic, doc), the same until it is judged or skipped; None when done.
    ``order(topic, {doc: grade})``: the topic's documents in the order to judge them given the
    assessor's judgments so far (adaptive Move-to-Front, :mod:`.mtf`); default the pool's order."""
    def advance(tx):
        _lock(tx, assessor)
        return _advance(tx, assessor)

    for _ in range(3):
        pair = db.write(advance) if order is None else _next_by(db, assessor, order)
        if pair is not None:
            return pair
        if not _claim(db, assessor):
            return None
    return None  # pragma: no cover - a claimed topic always has a document


def _lock(tx, assessor: int) -> None:
    """Serialise one assessor's writes (PostgreSQL; SQLite serialises every write), so that the
    order of the log's sequence numbers is the order of the commits."""
    if tx.postgres:
        tx.run("SELECT id FROM assessors WHERE id = ? FOR UPDATE", (assessor,))


def _show(tx, assessor: int, topic: str, doc: str, at: float) -> None:
    tx.run("INSERT INTO shown (assessor, topic, doc, at) VALUES (?, ?, ?, ?) ON CONFLICT (assessor) DO UPDATE SET "
           "topic = excluded.topic, doc = excluded.doc, at = excluded.at", (assessor, topic, doc, at))


def _next_by(db: Database, assessor: int, order) -> tuple[str, str] | None:
    """:func:`next_pair` with an adaptive order, computed outside any transaction."""
    with db.transaction(read_only=True) as tx:
        shown = tx.one("SELECT s.topic, s.doc FROM shown s WHERE s.assessor = ? AND NOT EXISTS (SELECT 1 FROM "
                       "judgments j WHERE j.assessor = s.assessor AND j.topic = s.topic AND j.doc = s.doc)",
                       (assessor,))
        if shown is not None:
            return shown[0], shown[1]
        first = tx.one(_QUEUE, (assessor,))
        if first is None:
            return None
        topic = first[0]
        pending = [r[0] for r in tx.all(
            "SELECT p.doc FROM claims c JOIN pool p ON p.topic = c.topic AND (c.role = 1 OR p.overlap = 1) WHERE "
            "c.assessor = ? AND c.topic = ? AND NOT EXISTS (SELECT 1 FROM judgments j WHERE j.assessor = c.assessor "
            "AND j.topic = p.topic AND j.doc = p.doc) ORDER BY p.doc_order", (assessor, topic))]
        judged = dict(tx.all("SELECT doc, grade FROM judgments WHERE assessor = ? AND topic = ?", (assessor, topic)))
    waiting = set(pending)
    doc = next((d for d in order(topic, judged) if d in waiting), first[1])

    def show(tx):
        _lock(tx, assessor)
        if tx.one("SELECT 1 FROM judgments WHERE assessor = ? AND topic = ? AND doc = ?", (assessor, topic, doc)):
            return _advance(tx, assessor)  # judged meanwhile (another tab): fall back to the pool's order
        _show(tx, assessor, topic, doc, time.time())
        return topic, doc

    return db.write(show)


@dataclass(frozen=True)
class Recorded:
    topic: str
    doc: str
    grade: int | None
    seconds: float
    seq: int
    next: tuple[str, str] | None  # the next pair, shown in the same transaction (None: claim a topic)


def record(db: Database, assessor: int, topic: str, doc: str, grade: int | None,
           seconds: float | None = None, *, advance: bool = True) -> Recorded:
    """Store a judgment (``grade``) or a skip (``grade`` None) of a pair in the assessor's queue,
    committed when this returns. Judging a pair again replaces its grade (one upsert).
    ``advance``: show the next pair in the pool's order in the same transaction."""
    return db.write(lambda tx: _record(tx, assessor, topic, doc, grade, seconds, advance))


def _record(tx, assessor: int, topic: str, doc: str, grade: int | None, seconds: float | None,
            advance: bool) -> Recorded:
    now = time.time()
    _lock(tx, assessor)
    if tx.one(_IN_QUEUE, (assessor, topic, doc)) is None:
        raise Refused(f"topic {topic!r}, doc {doc!r} is not in your queue", 409)
    shown = tx.one("SELECT at FROM shown WHERE assessor = ? AND topic = ? AND doc = ?", (assessor, topic, doc))
    if seconds is None:
        seconds = now - shown[0] if shown is not None else 0.0
    action = "skip" if grade is None else "judge"
    seq = tx.one("INSERT INTO log (assessor, topic, doc, action, grade, seconds, at) VALUES (?, ?, ?, ?, ?, ?, ?) "
                 "RETURNING seq", (assessor, topic, doc, action, grade, seconds, now))[0]
    tx.run("INSERT INTO judgments (assessor, topic, doc, grade, seconds, at, seq) VALUES (?, ?, ?, ?, ?, ?, ?) "
           "ON CONFLICT (assessor, topic, doc) DO UPDATE SET grade = excluded.grade, seconds = excluded.seconds, "
           "at = excluded.at, seq = excluded.seq", (assessor, topic, doc, grade, seconds, now, seq))
    if shown is not None:
        tx.run("DELETE FROM shown WHERE assessor = ?", (assessor,))
    following = _advance(tx, assessor) if advance else None  # one commit for the judgment and the next pair
    return Recorded(topic, doc, grade, float(seconds), int(seq), following)


def undo(db: Database, assessor: int) -> tuple[str, str] | None:
    """Remove the assessor's latest judgment or skip and show that pair next; None if none."""
    return db.write(lambda tx: _undo(tx, assessor))


def _undo(tx, assessor: int) -> tuple[str, str] | None:
    now = time.time()
    _lock(tx, assessor)
    last = tx.one("SELECT topic, doc FROM judgments WHERE assessor = ? ORDER BY seq DESC LIMIT 1", (assessor,))
    if last is None:
        return None
    tx.run("DELETE FROM judgments WHERE assessor = ? AND topic = ? AND doc = ?", (assessor, last[0], last[1]))
    tx.run("INSERT INTO log (assessor, topic, doc, action, grade, seconds, at) VALUES (?, ?, ?, 'undo', NULL, "
           "NULL, ?)", (assessor, last[0], last[1], now))
    _show(tx, assessor, last[0], last[1], now)
    return last[0], last[1]


def progress(db: Database, assessor: int, topic: str) -> dict:
    """The assessor's own progress: on ``topic`` and over their claimed topics."""
    with db.transaction(read_only=True) as tx:
        rows = tx.all("SELECT p.topic, count(*), count(j.doc), count(j.grade) FROM claims c JOIN pool p ON "
                      "p.topic = c.topic AND (c.role = 1 OR p.overlap = 1) LEFT JOIN judgments j ON "
                      "j.assessor = c.assessor AND j.topic = p.topic AND j.doc = p.doc WHERE c.assessor = ? "
                      "GROUP BY p.topic", (assessor,))
        can_undo = tx.one("SELECT 1 FROM judgments WHERE assessor = ?", (assessor,)) is not None
    here = next((r for r in rows if r[0] == topic), (topic, 0, 0, 0))
    return {"topic": {"done": int(here[2]), "total": int(here[1])},
            "judged": sum(int(r[3]) for r in rows), "skipped": sum(int(r[2]) - int(r[3]) for r in rows),
            "topics_done": sum(int(r[1]) == int(r[2]) for r in rows), "can_undo": can_undo}


def _agreement(pairs: list[tuple]) -> dict:
    """Cohen's κ (first vs second assessor of each doubly judged pair) and Krippendorff's α
    (nominal; assessors × pairs, missing where an assessor did not judge)."""
    import numpy as np

    out = {"pairs": len(pairs), "kappa": None, "alpha": None}
    if len(pairs) < 2:
        return out
    first = [p[3] for p in pairs]
    second = [p[5] for p in pairs]
    kappa = cohen_kappa(first, second)
    names = sorted({p[2] for p in pairs} | {p[4] for p in pairs})
    index = {name: i for i, name in enumerate(names)}
    data = np.full((len(names), len(pairs)), np.nan)
    for unit, p in enumerate(pairs):
        data[index[p[2]], unit] = p[3]
        data[index[p[4]], unit] = p[5]
    alpha = krippendorff_alpha(data, level="nominal")
    out["kappa"] = None if np.isnan(kappa) else round(kappa, 4)
    out["alpha"] = None if np.isnan(alpha) else round(alpha, 4)
    return out


def status(db: Database) -> dict:
    """What the organiser sees: progress per topic and per assessor, agreement, throughput."""
    now = time.time()
    with db.transaction(read_only=True) as tx:
        topics = tx.all(
            "SELECT p.topic, count(*), sum(p.overlap), "
            "(SELECT a.name FROM claims c JOIN assessors a ON a.id = c.assessor WHERE c.topic = p.topic AND c.role = 1), "
            "(SELECT a.name FROM claims c JOIN assessors a ON a.id = c.assessor WHERE c.topic = p.topic AND c.role = 2), "
            "(SELECT count(j.grade) FROM judgments j JOIN claims c ON c.assessor = j.assessor AND c.topic = j.topic "
            "AND c.role = 1 WHERE j.topic = p.topic), "
            "(SELECT count(j.grade) FROM judgments j JOIN claims c ON c.assessor = j.assessor AND c.topic = j.topic "
            "AND c.role = 2 WHERE j.topic = p.topic) "
            "FROM pool p GROUP BY p.topic ORDER BY min(p.topic_order)")
        assessors = tx.all(
            "SELECT a.name, count(j.grade), count(j.doc) - count(j.grade), coalesce(sum(j.seconds), 0), "
            "(SELECT count(*) FROM claims c WHERE c.assessor = a.id), min(j.at), max(j.at) FROM assessors a "
            "LEFT JOIN judgments j ON j.assessor = a.id WHERE a.role = 'assessor' GROUP BY a.id, a.name ORDER BY a.name")
        pairs = tx.all(
            "SELECT j1.topic, j1.doc, a1.name, j1.grade, a2.name, j2.grade FROM claims c1 JOIN claims c2 ON "
            "c2.topic = c1.topic AND c2.role = 2 JOIN judgments j1 ON j1.assessor = c1.assessor AND j1.topic = c1.topic "
            "JOIN judgments j2 ON j2.assessor = c2.assessor AND j2.topic = j1.topic AND j2.doc = j1.doc "
            "JOIN assessors a1 ON a1.id = c1.assessor JOIN assessors a2 ON a2.id = c2.assessor "
            "WHERE c1.role = 1 AND j1.grade IS NOT NULL AND j2.grade IS NOT NULL ORDER BY j1.topic, j1.doc")
        recent = tx.one("SELECT count(*) FROM log WHERE action = 'judge' AND at >= ?", (now - 600.0,))[0]
        total = tx.one("SELECT count(*) FROM judgments WHERE grade IS NOT NULL")[0]
    return {
        "topics": [{"topic": t[0], "pool": int(t[1]), "overlap": int(t[2] or 0), "first": t[3], "second": t[4],
                    "judged_first": int(t[5]), "judged_second": int(t[6])} for t in topics],
        "assessors": [{"name": a[0], "judged": int(a[1]), "skipped": int(a[2]), "topics": int(a[4]),
                       "seconds_per_judgment": round(float(a[3]) / a[1], 1) if a[1] else None,
                       "per_hour": round(3600.0 * a[1] / max(a[6] - a[5], 60.0), 1) if a[1] else None}
                      for a in assessors],
        "agreement": _agreement(pairs),
        "judged": int(total), "pool": sum(int(t[1]) for t in topics),
        "per_minute_last_10": round(recent / 10.0, 1),
    }


def qrels_text(db: Database) -> str:
    """TREC qrels ``topic 0 doc grade``: per pair, the first assessor's grade (else the second's),
    in the pool's order; skipped and unjudged pairs are left out."""
    with db.transaction(read_only=True) as tx:
        rows = tx.all(
            "SELECT p.topic, p.doc, j.grade, c.role FROM pool p JOIN judgments j ON j.topic = p.topic AND j.doc = p.doc "
            "JOIN claims c ON c.topic = j.topic AND c.assessor = j.assessor WHERE j.grade IS NOT NULL "
            "ORDER BY p.topic_order, p.doc_order, c.role")
    out, seen = [], set()
    for topic, doc, grade, _ in rows:
        if (topic, doc) not in seen:
            seen.add((topic, doc))
            out.append(f"{topic} 0 {doc} {grade}\n")
    return "".join(out)


def labels_text(db: Database) -> str:
    """Every assessor's grades as crowd labels (``query,document,worker,label``) for
    ``cranfield aggregate-labels`` and ``cranfield agreement``."""
    with db.transaction(read_only=True) as tx:
        rows = tx.all("SELECT j.topic, j.doc, a.name, j.grade FROM judgments j JOIN assessors a ON a.id = j.assessor "
                      "JOIN pool p ON p.topic = j.topic AND p.doc = j.doc WHERE j.grade IS NOT NULL "
                      "ORDER BY p.topic_order, p.doc_order, a.name")
    return _csv([("query", "document", "worker", "label"), *rows])


def times_text(db: Database) -> str:
    """The time log: every judgment, skip and undo with the seconds spent and when (UTC)."""
    with db.transaction(read_only=True) as tx:
        rows = tx.all("SELECT l.seq, a.name, l.topic, l.doc, l.action, l.grade, l.seconds, l.at FROM log l "
                      "JOIN assessors a ON a.id = l.assessor ORDER BY l.seq")
    stamp = time.strftime
    return _csv([("seq", "assessor", "topic", "doc", "action", "grade", "seconds", "at_utc"),
                 *((s, n, t, d, a, "" if g is None else g, "" if x is None else f"{x:.3f}",
                    stamp("%Y-%m-%dT%H:%M:%S", time.gmtime(at)) + f".{int(at % 1 * 1000):03d}Z")
                   for s, n, t, d, a, g, x, at in rows)])


def _csv(rows) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue()
