"""The judging database: SQLite (a file, the default) or PostgreSQL (``postgresql://…``).

One schema for both, created and upgraded by numbered migrations (table ``schema_version``).
Every write is one transaction, committed before the caller answers the browser: SQLite runs in
WAL mode with ``synchronous=FULL``, so a committed judgment survives the process being killed
(and a power cut). Primary keys make a judgment unique per (assessor, topic, document), so
concurrent requests cannot duplicate one; a judgment is written by a single upsert, so no update
is lost. Topics are claimed under a lock (SQLite: ``BEGIN IMMEDIATE``; PostgreSQL: a transaction
advisory lock), so two assessors never claim the same role on a topic.

Tokens are stored as SHA-256 digests; the token itself is shown once, when it is made.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import sqlite3
import threading
import time

from ..errors import UsageError

__all__ = ["MIGRATIONS", "Database", "open_database", "token_digest"]

# Each entry upgrades the schema by one version; never edit a released entry, append a new one.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        ("CREATE TABLE assessors (id {serial}, name TEXT NOT NULL UNIQUE, token_digest TEXT NOT NULL "
        "UNIQUE, role TEXT NOT NULL CHECK (role IN ('assessor', 'organiser')), created DOUBLE PRECISION NOT NULL)"),
        ("CREATE TABLE pool (topic TEXT NOT NULL, doc TEXT NOT NULL, topic_order INTEGER NOT NULL, "
        "doc_order INTEGER NOT NULL, overlap INTEGER NOT NULL, PRIMARY KEY (topic, doc))"),
        "CREATE INDEX pool_order ON pool (topic_order, doc_order)",
        # role 1: the topic's first assessor (every document); role 2: the second (the overlap documents)
        ("CREATE TABLE claims (topic TEXT NOT NULL, role INTEGER NOT NULL, assessor INTEGER NOT NULL "
        "REFERENCES assessors (id), claimed DOUBLE PRECISION NOT NULL, PRIMARY KEY (topic, role), "
        "UNIQUE (topic, assessor))"),
        ("CREATE TABLE judgments (assessor INTEGER NOT NULL REFERENCES assessors (id), topic TEXT NOT NULL, "
        "doc TEXT NOT NULL, grade INTEGER, seconds DOUBLE PRECISION, at DOUBLE PRECISION NOT NULL, "
        "seq BIGINT NOT NULL, PRIMARY KEY (assessor, topic, doc))"),  # grade NULL: skipped
        ("CREATE TABLE shown (assessor INTEGER PRIMARY KEY REFERENCES assessors (id), topic TEXT NOT NULL, "
        "doc TEXT NOT NULL, at DOUBLE PRECISION NOT NULL)"),
        ("CREATE TABLE log (seq {serial}, assessor INTEGER NOT NULL, topic TEXT NOT NULL, doc TEXT NOT NULL, "
        "action TEXT NOT NULL, grade INTEGER, seconds DOUBLE PRECISION, at DOUBLE PRECISION NOT NULL)"),
    ),
)


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _is_postgres(url: str) -> bool:
    return url.startswith(("postgresql://", "postgres://"))


class Database:
    """A connection per thread to one database; ``transaction()`` yields a cursor-like runner."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.postgres = _is_postgres(url)
        self._local = threading.local()
        self._connections: list = []
        self._lock = threading.Lock()
        self._writer = threading.Lock()
        self._committer: _GroupCommitter | None = None
        if not self.postgres:
            folder = os.path.dirname(os.path.abspath(url))
            if not os.path.isdir(folder):
                raise UsageError(f"{url}: cannot open the database: the folder {folder} does not exist")

    # --------------------------------------------------------------- connections
    def _connect(self):
        if self.postgres:
            try:
                import psycopg  # optional dependency (the judge extra): imported only for PostgreSQL
            except ImportError:  # pragma: no cover - depends on the installation
                raise UsageError("PostgreSQL needs psycopg: pip install 'cranfield[judge]'") from None
            try:
                return psycopg.connect(self.url, autocommit=True)
            except psycopg.Error as error:
                raise UsageError(f"cannot connect to the database: {' '.join(str(error).split())}") from None
        try:
            connection = sqlite3.connect(self.url, timeout=30.0, isolation_level=None, check_same_thread=False)
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=FULL")
            connection.execute("PRAGMA foreign_keys=ON")
        except sqlite3.Error as error:
            raise UsageError(f"{self.url}: cannot open the database: {error}") from None
        return connection

    def connection(self):
        connection = getattr(self._local, "connection", None)
        if connection is None:
            connection = self._local.connection = self._connect()
            with self._lock:
                self._connections.append(connection)
        return connection

    def write(self, function):
        """``function(tx)`` in a write transaction, committed when this returns; its result or its
        exception. On SQLite the writes of concurrent threads are committed together (group
        commit: one fsync for every write waiting), each in its own savepoint, so one failing
        write undoes only itself."""
        if self.postgres:
            with self.transaction() as tx:
                return function(tx)
        with self._lock:
            if self._committer is None:
                self._committer = _GroupCommitter(self)
        return self._committer.submit(function)

    def close(self) -> None:
        committer, self._committer = self._committer, None
        if committer is not None:
            committer.stop()
        with self._lock:
            for connection in self._connections:
                with contextlib.suppress(Exception):
                    connection.close()
            self._connections.clear()
        self._local = threading.local()

    @contextlib.contextmanager
    def transaction(self, *, exclusive: bool = False, read_only: bool = False):
        """A transaction; ``exclusive``: serialised with every other exclusive one. On SQLite a
        transaction that may write takes the write lock at once (``BEGIN IMMEDIATE``), so it never
        fails half-way on a snapshot another writer has made stale."""
        connection = self.connection()
        if self.postgres:
            with connection.transaction():
                runner = _Runner(connection, postgres=True)
                if exclusive:
                    runner.run("SELECT pg_advisory_xact_lock(4242)")
                yield runner
            return
        writing = exclusive or not read_only
        if writing:  # this process's writers queue here, woken at once (SQLite's busy handler sleeps)
            self._writer.acquire()
        try:
            connection.execute("BEGIN IMMEDIATE" if writing else "BEGIN")
            try:
                yield _Runner(connection, postgres=False)
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")
        finally:
            if writing:
                self._writer.release()

    # --------------------------------------------------------------- schema
    def version(self) -> int:
        with self.transaction(read_only=True) as db:
            if self.postgres:
                exists = db.one("SELECT to_regclass('schema_version') IS NOT NULL")[0]
            else:
                exists = db.one("SELECT count(*) FROM sqlite_master WHERE name = 'schema_version'")[0]
            return int(db.one("SELECT version FROM schema_version")[0]) if exists else 0

    def migrate(self) -> None:
        """Create or upgrade the schema to the newest version (each migration one transaction)."""
        with self.transaction(exclusive=True) as db:
            db.run("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = db.one("SELECT version FROM schema_version")
            if row is None:
                db.run("INSERT INTO schema_version (version) VALUES (0)")
                current = 0
            else:
                current = int(row[0])
            if current > len(MIGRATIONS):
                raise UsageError(f"{self.url}: the database has schema version {current}, newer than this cranfield "
                                 f"({len(MIGRATIONS)}): upgrade cranfield")
            serial = "SERIAL PRIMARY KEY" if self.postgres else "INTEGER PRIMARY KEY AUTOINCREMENT"
            for version in range(current, len(MIGRATIONS)):
                for statement in MIGRATIONS[version]:
                    db.run(statement.replace("{serial}", serial))
                db.run("UPDATE schema_version SET version = ?", (version + 1,))

    def require_schema(self) -> None:
        if self.version() == 0:
            raise UsageError(f"{self.url}: not a judging database (start `cranfield judge serve` on it first)")
        self.migrate()

    # --------------------------------------------------------------- meta and accounts
    def get_meta(self, key: str, default: str | None = None) -> str | None:
        with self.transaction(read_only=True) as db:
            row = db.one("SELECT value FROM meta WHERE key = ?", (key,))
        return row[0] if row is not None else default

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction() as db:
            db.run("DELETE FROM meta WHERE key = ?", (key,))
            db.run("INSERT INTO meta (key, value) VALUES (?, ?)", (key, value))

    def add_account(self, name: str, *, role: str = "assessor") -> str:
        """Create an account; returns its token (only its digest is stored)."""
        if not name or any(c.isspace() for c in name) or len(name) > 64:
            raise UsageError(f"NAME: expected 1 to 64 characters without blanks, found {name!r}")
        token = secrets.token_urlsafe(24)
        with self.transaction(exclusive=True) as db:
            if db.one("SELECT 1 FROM assessors WHERE name = ?", (name,)) is not None:
                raise UsageError(f"NAME: an account named {name!r} exists already in {self.url}")
            db.run("INSERT INTO assessors (name, token_digest, role, created) VALUES (?, ?, ?, ?)",
                   (name, token_digest(token), role, time.time()))
        return token

    def account_of(self, token: str) -> tuple[int, str, str] | None:
        """(id, name, role) of the account with this token, or None."""
        with self.transaction(read_only=True) as db:
            row = db.one("SELECT id, name, role FROM assessors WHERE token_digest = ?", (token_digest(token),))
        return (int(row[0]), row[1], row[2]) if row is not None else None

    def has_organiser(self) -> bool:
        with self.transaction(read_only=True) as db:
            return db.one("SELECT 1 FROM assessors WHERE role = 'organiser'") is not None

    # --------------------------------------------------------------- the pool
    def load_pool(self, rows: list[tuple[str, str, int, int, int]], *, source: str) -> None:
        """Store the pool (topic, doc, topic order, doc order, overlap) unless it is there already;
        a database holding another pool is an error."""
        with self.transaction(exclusive=True) as db:
            stored = db.all("SELECT topic, doc, topic_order, doc_order, overlap FROM pool "
                            "ORDER BY topic_order, doc_order")
            if not stored:
                db.many("INSERT INTO pool (topic, doc, topic_order, doc_order, overlap) VALUES (?, ?, ?, ?, ?)",
                        rows)
                return
        if [tuple(r[:4]) for r in stored] != [tuple(r[:4]) for r in rows]:
            raise UsageError(f"{source}: the database {self.url} holds another pool ({len(stored)} documents); "
                             "give the pool it was made with, or a new database (--db)")


class _GroupCommitter:
    """One thread that commits every waiting write of a SQLite database in one transaction."""

    BATCH = 256

    def __init__(self, database: Database) -> None:
        import queue

        self.database = database
        self.queue: queue.SimpleQueue = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._loop, name="cranfield-judge-commit", daemon=True)
        self.thread.start()

    def submit(self, function):
        from concurrent.futures import Future

        future: Future = Future()
        self.queue.put((function, future))
        return future.result()

    def stop(self) -> None:
        self.queue.put(None)
        self.thread.join(10)

    def _loop(self) -> None:
        import queue

        connection = self.database.connection()
        while True:
            item = self.queue.get()
            if item is None:
                return
            batch = [item]
            while len(batch) < self.BATCH:
                try:
                    item = self.queue.get_nowait()
                except queue.Empty:
                    break
                if item is None:
                    self.queue.put(None)
                    break
                batch.append(item)
            self._commit(connection, batch)

    def _commit(self, connection, batch) -> None:
        outcomes = []
        with self.database._writer:
            try:
                connection.execute("BEGIN IMMEDIATE")
                runner = _Runner(connection, postgres=False)
                for function, future in batch:
                    connection.execute("SAVEPOINT one")
                    try:
                        outcomes.append((future, function(runner), None))
                        connection.execute("RELEASE one")
                    except Exception as error:  # noqa: BLE001 - this write alone is undone; the caller gets its error
                        connection.execute("ROLLBACK TO one")
                        connection.execute("RELEASE one")
                        outcomes.append((future, None, error))
                connection.execute("COMMIT")
            except BaseException as error:  # noqa: BLE001 - the commit failed: nothing of the batch is acknowledged
                if connection.in_transaction:
                    connection.execute("ROLLBACK")
                for _, future in batch:
                    future.set_exception(error)
                return
        for future, result, error in outcomes:
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(result)


class _Runner:
    """Runs SQL written with ``?`` placeholders on SQLite or PostgreSQL."""

    def __init__(self, connection, *, postgres: bool) -> None:
        self.connection = connection
        self.postgres = postgres

    def _sql(self, sql: str) -> str:
        return sql.replace("?", "%s") if self.postgres else sql

    def run(self, sql: str, params: tuple = ()):
        return self.connection.execute(self._sql(sql), params)

    def one(self, sql: str, params: tuple = ()):
        return self.run(sql, params).fetchone()

    def all(self, sql: str, params: tuple = ()) -> list:
        return self.run(sql, params).fetchall()

    def many(self, sql: str, rows: list) -> None:
        if self.postgres:
            with self.connection.cursor() as cursor:
                cursor.executemany(self._sql(sql), rows)
        else:
            self.connection.executemany(sql, rows)


def open_database(url: str, *, create: bool = False) -> Database:
    """The database at ``url`` (a SQLite file name or a ``postgresql://`` URL); ``create``: make or
    upgrade its schema, else it must be a judging database already."""
    database = Database(os.fspath(url))
    if create:
        database.migrate()
    else:
        if not database.postgres and not os.path.exists(database.url):
            raise UsageError(f"{database.url}: no such database (start `cranfield judge serve --db` on it first)")
        database.require_schema()
    return database
