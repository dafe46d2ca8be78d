"""The state database shared by the parts that remember things: an embedded SQLite file by default
(nothing to start), or PostgreSQL (``state.url``) for several proxy instances sharing their state.

Both are behind one interface, :func:`open_database` (``SQLiteDatabase``, ``PostgresDatabase``).
User profiles (:mod:`pagesieve.store.profiles`) and per-site memory keep their tables here. Each
part ("component") owns its tables and their schema history: a list of SQL scripts, applied
in order by :func:`migrate` and recorded in ``schema_version``::

    conn = state.connect(cfg.globals["state"].path)
    state.migrate(conn, "profiles", [V1_SQL, V2_SQL])   # applies only what is not applied yet

A later release appends a script to its list; it never edits an applied one. Migrations run in
one ``BEGIN IMMEDIATE`` transaction per component, so two processes starting at once do not
apply the same script twice, and a failing script leaves the database as it was.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any, Iterator, Mapping, Protocol, Sequence
from urllib.parse import urlsplit, urlunsplit

from pagesieve.core.errors import ConfigError, StateUnavailable
from pagesieve.engine.globals import StateSettings

log = logging.getLogger("pagesieve.store.state")

MEMORY = ":memory:"

#: Permissions of the state database (and of the -wal/-shm files SQLite creates beside it, which
#: take the database file's mode): owner only. It holds the CSRF key and every user's profile.
FILE_MODE = 0o600

BUSY_TIMEOUT_MS = 5000
"""How long a writer waits for another process's lock before failing (milliseconds). Writes
here are a few rows (a profile save, a migration), so a lock held longer means a stuck process."""



def resolve_path(path: str) -> str:
    """``path`` with ``~`` expanded; ``:memory:`` unchanged."""
    if path == MEMORY:
        return path
    return str(Path(path).expanduser())


def connect(path: str) -> sqlite3.Connection:
    """An open connection to the state database at ``path`` (created with its parent directory).

    Autocommit mode (``isolation_level=None``: write transactions are explicit), WAL journal so
    readers do not block the writer, and a busy timeout so concurrent processes wait instead of
    failing. Rows come back as :class:`sqlite3.Row`. ``check_same_thread`` is off: callers that
    share a connection between threads serialise their use of it.
    """
    real = resolve_path(path)
    if real != MEMORY:
        try:
            Path(real).parent.mkdir(parents=True, exist_ok=True)
            # Create the file owner-only before SQLite opens it (SQLite would use the umask, 0644);
            # an existing file readable by others is tightened, with its -wal and -shm.
            os.close(os.open(real, os.O_CREAT | os.O_RDWR, FILE_MODE))
            for name in (real, real + "-wal", real + "-shm"):
                if os.path.exists(name) and os.stat(name).st_mode & 0o077:
                    os.chmod(name, FILE_MODE)
        except OSError as err:
            raise ConfigError(f"state.path = {path!r}: cannot create it: {err.strerror or err}") from err
    try:
        conn = sqlite3.connect(real, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                               check_same_thread=False)
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if real != MEMORY:
            conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA foreign_keys = ON")
    except sqlite3.Error as err:
        raise ConfigError(f"state.path = {path!r}: cannot open the state database: {err}") from err
    return conn


_VERSION_TABLE = ("CREATE TABLE IF NOT EXISTS schema_version ("
                  "component TEXT PRIMARY KEY, version INTEGER NOT NULL)")


def _statements(script: str) -> list[str]:
    """``script`` split into complete SQL statements (triggers' inner ``;`` kept together)."""
    out, buf = [], ""
    for piece in script.split(";"):
        buf += piece + ";"
        if sqlite3.complete_statement(buf):
            if buf.strip(" \t\r\n;"):
                out.append(buf.strip())
            buf = ""
    if buf.strip(" \t\r\n;"):
        raise ConfigError(f"migration script ends with an incomplete statement: {buf.strip()[:60]!r}")
    return out


def version(conn: sqlite3.Connection, component: str) -> int:
    """The schema version of ``component`` in ``conn`` (0 when it has none yet)."""
    conn.execute(_VERSION_TABLE)
    row = conn.execute("SELECT version FROM schema_version WHERE component = ?", (component,)).fetchone()
    return int(row[0]) if row else 0


def migrate(conn: sqlite3.Connection, component: str, migrations: list[str]) -> int:
    """Apply the scripts of ``migrations`` that ``component`` has not applied yet; the new version.

    Version N means scripts ``migrations[:N]`` are applied. All pending scripts run in one
    immediate (write-locked) transaction: either all of them apply and the version is recorded,
    or none does. A database newer than this code (version > len(migrations)) is refused rather
    than silently used with a schema the code does not know.
    """
    if conn.in_transaction:
        raise RuntimeError("state.migrate: the connection already has an open transaction")
    conn.execute(_VERSION_TABLE)
    conn.execute("BEGIN IMMEDIATE")
    try:
        row = conn.execute("SELECT version FROM schema_version WHERE component = ?", (component,)).fetchone()
        current = int(row[0]) if row else 0
        if current > len(migrations):
            raise ConfigError(f"state database: {component} schema is version {current}, newer than this "
                              f"pagesieve knows ({len(migrations)}); upgrade pagesieve or use another state.path")
        for script in migrations[current:]:
            for stmt in _statements(script):
                conn.execute(stmt)
        if current < len(migrations):
            conn.execute("INSERT INTO schema_version (component, version) VALUES (?, ?) "
                         "ON CONFLICT(component) DO UPDATE SET version = excluded.version",
                         (component, len(migrations)))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return len(migrations)


# -- the state interface: one database, SQLite or PostgreSQL ----------------------------------------
#
#   db = state.open_database(cfg.globals["state"])      # SQLiteDatabase, or PostgresDatabase (state.url)
#   db.migrate("profiles", MIGRATIONS)                  # the same versioned scripts on both
#   rows = db.query("SELECT preset FROM profiles WHERE \"user\" = ?", (name,))
#   with db.transaction() as tx:                        # all or nothing
#       tx.execute("DELETE FROM profile_sites WHERE \"user\" = ?", (name,))
#
# SQL is written once with ``?`` placeholders and portable statements (``INSERT ... ON CONFLICT``,
# quoted ``"user"``); the PostgreSQL backend turns ``?`` into ``%s``. A migration is a string of
# portable SQL, or a mapping ``{"sqlite": ..., "postgresql": ...}`` where the column types differ
# (version N is the same schema on both). Errors: :class:`StateUnavailable` when the database
# cannot be reached now (callers fall back on what they know; the database recovers by itself).


def migration_sql(migration: "str | Mapping[str, str]", dialect: str) -> str:
    """The script of one migration for ``dialect`` ("sqlite" or "postgresql")."""
    if isinstance(migration, str):
        return migration
    try:
        return migration[dialect]
    except KeyError:
        raise ConfigError(f"migration has no {dialect} script (it has {', '.join(migration)})") from None


class Transaction(Protocol):
    def execute(self, sql: str, params: Sequence[Any] = ()) -> int: ...


class Database(Protocol):
    """What the parts that keep state (profiles, site memory) may rely on."""

    dialect: str
    location: str

    def migrate(self, component: str, migrations: list) -> int: ...
    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]: ...
    def transaction(self) -> AbstractContextManager[Transaction]: ...
    def change_token(self) -> Any: ...
    @property
    def available(self) -> bool: ...
    def close(self) -> None: ...


class SQLiteDatabase:
    """The embedded default: one SQLite file (``state.path``), one connection, a lock around it."""

    dialect = "sqlite"

    def __init__(self, path: str) -> None:
        self.location = path
        self.conn = connect(path)
        self._lock = threading.RLock()

    @property
    def available(self) -> bool:
        return True

    def migrate(self, component: str, migrations: list) -> int:
        with self._lock:
            return migrate(self.conn, component, [migration_sql(m, self.dialect) for m in migrations])

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        with self._lock:
            return [tuple(r) for r in self.conn.execute(sql, tuple(params)).fetchall()]

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        with self._lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield _SQLiteTx(self.conn)
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    def change_token(self) -> Any:
        """Changes when any process commits to the file (``PRAGMA data_version``; a local read)."""
        with self._lock:
            return self.conn.execute("PRAGMA data_version").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self.conn.close()


class _SQLiteTx:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        return self.conn.execute(sql, tuple(params)).rowcount


MIGRATION_LOCK_KEY = 0x70616765  # "page": the advisory lock every instance takes around its migrations
"""PostgreSQL advisory lock key (any constant shared by all pagesieve instances): instances that
start at once against an empty database migrate one after the other, never concurrently."""

POOL_MAX_CONNECTIONS = 4
"""Connections one process keeps to PostgreSQL at most (the proxy's own reads and writes are a few
short statements; each worker process has its own pool for the site memory)."""

CONNECT_TIMEOUT_SECONDS = 2
"""How long opening a connection or waiting for a free one may take before the database counts as
unavailable (on a LAN a connection opens in milliseconds; 2 s rides out a busy server)."""

STATEMENT_TIMEOUT_MS = 5000
"""A statement running longer than this is cancelled by PostgreSQL (our statements touch a few rows)."""


def _pg_sql(sql: str) -> str:
    """``?`` placeholders as psycopg's ``%s`` (our statements have no literal ``?`` or ``%``)."""
    return sql.replace("%", "%%").replace("?", "%s")


class PostgresDatabase:
    """State in PostgreSQL (``state.url``), through a psycopg 3 connection pool.

    A watcher thread asks the database every ``refresh_seconds`` for its change counter (one row,
    bumped by every write transaction of every instance): :meth:`change_token` returns it without
    I/O, so readers that cache (profiles) see another instance's save within ``refresh_seconds``.
    The same thread notices an outage and the recovery, and logs each once; while the database is
    unavailable every call fails at once with :class:`StateUnavailable` instead of waiting.
    """

    dialect = "postgresql"

    def __init__(self, url: str, refresh_seconds: float = 2.0, *, watch: bool = True) -> None:
        try:
            import psycopg
            from psycopg_pool import ConnectionPool
        except ModuleNotFoundError as err:
            raise ConfigError("state.url is a PostgreSQL URL but psycopg is not installed: "
                              "pip install 'psycopg[binary,pool]'") from err
        self._psycopg = psycopg
        # The pool logs every failed reconnection attempt; an outage is logged here, once.
        logging.getLogger("psycopg.pool").setLevel(logging.ERROR)
        self.location = _redact(url)
        self.refresh_seconds = refresh_seconds
        self._available = True
        self._down_since: float | None = None
        self._retry_at = 0.0
        self._watcher: threading.Thread | None = None
        self._generation: Any = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.pool = ConnectionPool(url, min_size=1, max_size=POOL_MAX_CONNECTIONS, timeout=CONNECT_TIMEOUT_SECONDS,
                                   open=False, name="pagesieve-state", reconnect_timeout=0,
                                   kwargs={"connect_timeout": CONNECT_TIMEOUT_SECONDS, "autocommit": False,
                                           "options": f"-c statement_timeout={STATEMENT_TIMEOUT_MS}",
                                           "application_name": "pagesieve"},
                                   check=ConnectionPool.check_connection)
        try:
            self.pool.open(wait=True, timeout=CONNECT_TIMEOUT_SECONDS * 2)
        except Exception as err:  # noqa: BLE001 - psycopg_pool.PoolTimeout and connection errors
            self.pool.close()
            raise StateUnavailable(f"state.url = {self.location!r}: cannot connect: {err}") from err
        self._watcher = None
        if watch:
            self._watcher = threading.Thread(target=self._watch, name="pagesieve-state-watch", daemon=True)

    # -- availability and change detection -------------------------------------------------------
    @property
    def available(self) -> bool:
        return self._available

    def change_token(self) -> Any:
        return self._generation

    def _poll(self) -> None:
        rows = self._run(lambda cur: cur.execute("SELECT n FROM pagesieve_changes WHERE id = 1").fetchall(),
                         check=False)
        self._generation = rows[0][0] if rows else 0

    def _watch(self) -> None:
        while not self._stop.wait(self.refresh_seconds):
            try:
                self._poll()
            except StateUnavailable:
                pass

    def _down(self, err: BaseException) -> StateUnavailable:
        with self._lock:
            first = self._available
            self._available = False
            self._retry_at = time.monotonic() + self.refresh_seconds
            if first:
                self._down_since = time.monotonic()
        if first:
            log.warning("state database %s unavailable (%s); pages are filtered with the last known settings, "
                        "the settings page answers 503 until it is back", self.location,
                        str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__)
        return StateUnavailable(f"the state database ({self.location}) is unavailable")

    def _up(self) -> None:
        if not self._available:
            with self._lock:
                was_down, self._available = not self._available, True
                since, self._down_since = self._down_since, None
            if was_down:
                log.warning("state database %s is back after %.0f s", self.location,
                            time.monotonic() - since if since else 0.0)

    def _failing_fast(self) -> bool:
        """True while down and not yet time to try again (the watcher, if any, does the trying)."""
        if self._available:
            return False
        return self._watcher is not None or time.monotonic() < self._retry_at

    def _run(self, work, *, check: bool = True):
        """``work(cursor)`` in one transaction; StateUnavailable (at once while down) on a connection failure."""
        if check and self._failing_fast():
            raise StateUnavailable(f"the state database ({self.location}) is unavailable")
        psycopg = self._psycopg
        try:
            with self.pool.connection() as conn:
                with conn.cursor() as cur:
                    out = work(cur)
        except (psycopg.OperationalError, psycopg.InterfaceError) as err:
            # psycopg_pool's PoolTimeout, PoolClosed and TooManyRequests are OperationalErrors too
            raise self._down(err) from err
        self._up()
        return out

    # -- the interface ---------------------------------------------------------------------------
    def migrate(self, component: str, migrations: list) -> int:
        """Apply pending scripts under a transaction-level advisory lock (race-free concurrent start)."""
        def work(cur) -> int:
            cur.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK_KEY,))
            cur.execute("CREATE TABLE IF NOT EXISTS schema_version (component TEXT PRIMARY KEY, "
                        "version INTEGER NOT NULL)")
            cur.execute("CREATE TABLE IF NOT EXISTS pagesieve_changes (id INTEGER PRIMARY KEY, n BIGINT NOT NULL)")
            cur.execute("INSERT INTO pagesieve_changes (id, n) VALUES (1, 0) ON CONFLICT (id) DO NOTHING")
            row = cur.execute("SELECT version FROM schema_version WHERE component = %s", (component,)).fetchone()
            current = int(row[0]) if row else 0
            if current > len(migrations):
                raise ConfigError(f"state database: {component} schema is version {current}, newer than this "
                                  f"pagesieve knows ({len(migrations)}); upgrade pagesieve or use another state.url")
            for migration in migrations[current:]:
                cur.execute(migration_sql(migration, self.dialect))
            if current < len(migrations):
                cur.execute("INSERT INTO schema_version (component, version) VALUES (%s, %s) "
                            "ON CONFLICT (component) DO UPDATE SET version = excluded.version",
                            (component, len(migrations)))
            return len(migrations)

        version = self._run(work)
        if self._generation is None:
            self._poll()
        if self._watcher is not None and not self._watcher.is_alive():
            self._watcher.start()
        return version

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        return self._run(lambda cur: [tuple(r) for r in cur.execute(_pg_sql(sql), tuple(params)).fetchall()])

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        if self._failing_fast():
            raise StateUnavailable(f"the state database ({self.location}) is unavailable")
        psycopg = self._psycopg
        try:
            with self.pool.connection() as conn:
                with conn.cursor() as cur:
                    yield _PgTx(cur)
                    cur.execute("UPDATE pagesieve_changes SET n = n + 1 WHERE id = 1")
        except (psycopg.OperationalError, psycopg.InterfaceError) as err:
            # psycopg_pool's PoolTimeout, PoolClosed and TooManyRequests are OperationalErrors too
            raise self._down(err) from err
        self._up()

    def close(self) -> None:
        self._stop.set()
        if self._watcher is not None and self._watcher.is_alive():
            self._watcher.join(self.refresh_seconds + CONNECT_TIMEOUT_SECONDS + 1)
        self.pool.close()


class _PgTx:
    def __init__(self, cur: Any) -> None:
        self.cur = cur

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        self.cur.execute(_pg_sql(sql), tuple(params))
        return self.cur.rowcount


def _redact(url: str) -> str:
    """``url`` without its password (for log lines and errors)."""
    parts = urlsplit(url)
    if parts.password:
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
        return urlunsplit(parts._replace(netloc=netloc))
    return url


def is_postgres_url(url: str) -> bool:
    return url.startswith(("postgresql://", "postgres://"))


def open_database(where: "StateSettings | str", refresh_seconds: float | None = None, *,
                  watch: bool = True) -> Database:
    """The state database ``where`` names: a :class:`StateSettings` (``url`` if set, else ``path``),
    a ``postgresql://`` URL, or an SQLite path. Errors name the setting."""
    if isinstance(where, StateSettings):
        refresh = where.refresh_seconds if refresh_seconds is None else refresh_seconds
        where = where.url or where.path
    else:
        refresh = refresh_seconds if refresh_seconds is not None else StateSettings.refresh_seconds
    where = str(where)
    if is_postgres_url(where):
        return PostgresDatabase(where, refresh, watch=watch)
    if "://" in where:
        raise ConfigError(f"state.url = {where!r}: expected postgresql://user@host:port/dbname (or empty for "
                          "the SQLite file state.path)")
    return SQLiteDatabase(where)


def location(settings: "StateSettings") -> str:
    """What worker processes need to open the same state: the URL, else the expanded path."""
    if settings.url:
        return settings.url
    return resolve_path(settings.path)
