"""The embedded state database: one SQLite file shared by the parts that remember things.

User profiles (:mod:`pagesieve.profiles`) and per-site memory keep their tables here. Each
part ("component") owns its tables and their schema history: a list of SQL scripts, applied
in order by :func:`migrate` and recorded in ``schema_version``::

    conn = state.connect(cfg.globals["state"].path)
    state.migrate(conn, "profiles", [V1_SQL, V2_SQL])   # applies only what is not applied yet

A later release appends a script to its list; it never edits an applied one. Migrations run in
one ``BEGIN IMMEDIATE`` transaction per component, so two processes starting at once do not
apply the same script twice, and a failing script leaves the database as it was.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from pagesieve.errors import ConfigError
from pagesieve.settings import setting

MEMORY = ":memory:"

#: Permissions of the state database (and of the -wal/-shm files SQLite creates beside it, which
#: take the database file's mode): owner only. It holds the CSRF key and every user's profile.
FILE_MODE = 0o600

BUSY_TIMEOUT_MS = 5000
"""How long a writer waits for another process's lock before failing (milliseconds). Writes
here are a few rows (a profile save, a migration), so a lock held longer means a stuck process."""


@dataclass(frozen=True)
class StateSettings:
    """Where pagesieve keeps what it learns and what users choose (profiles, site memory)."""

    path: str = setting(
        "~/.local/share/pagesieve/state.sqlite3",
        "The SQLite state database (user profiles, per-site memory); ~ is expanded, a relative path "
        "is relative to the working directory, :memory: keeps nothing across restarts.",
        group="advanced")


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
