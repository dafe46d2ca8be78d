"""pagesieve.store.state's interface on SQLite (PostgreSQL: tests/scale/test_state_postgres.py)."""

from __future__ import annotations

import pytest

from pagesieve.core.errors import ConfigError
from pagesieve.engine.globals import StateSettings
from pagesieve.store import state

MIGRATIONS = [
    {"sqlite": "CREATE TABLE t (k TEXT PRIMARY KEY, v REAL NOT NULL);",
     "postgresql": "CREATE TABLE t (k TEXT PRIMARY KEY, v DOUBLE PRECISION NOT NULL);"},
    "CREATE INDEX t_v ON t (v);",
]


def test_transactions_are_all_or_nothing_and_other_connections_see_commits(tmp_path):
    path = str(tmp_path / "s.sqlite3")
    a, b = state.open_database(path), state.open_database(path)
    assert a.migrate("t", MIGRATIONS) == 2 and b.migrate("t", MIGRATIONS) == 2
    token = b.change_token()
    with a.transaction() as tx:
        assert tx.execute("INSERT INTO t (k, v) VALUES (?, ?)", ("x", 1.5)) == 1
    assert b.change_token() != token and b.query("SELECT k, v FROM t") == [("x", 1.5)]
    with pytest.raises(ZeroDivisionError):
        with a.transaction() as tx:
            tx.execute("INSERT INTO t (k, v) VALUES (?, ?)", ("y", 2.0))
            raise ZeroDivisionError  # a failure inside the transaction
    assert b.query("SELECT k FROM t ORDER BY k") == [("x",)]
    assert a.available
    a.close()
    b.close()


def test_open_database_picks_the_backend_and_names_the_setting(tmp_path):
    s = StateSettings(path=str(tmp_path / "x.sqlite3"))
    assert isinstance(state.open_database(s), state.SQLiteDatabase)
    assert state.location(s) == str(tmp_path / "x.sqlite3")
    assert state.location(StateSettings(url="postgresql://u@h/d")) == "postgresql://u@h/d"
    with pytest.raises(ConfigError, match=r"state.url = 'mysql://u@h/d': expected postgresql://"):
        state.open_database("mysql://u@h/d")
    with pytest.raises(ConfigError, match="migration has no postgresql script"):
        state.migration_sql({"sqlite": "x"}, "postgresql")
    assert state._redact("postgresql://u:secret@h:5432/d") == "postgresql://u:***@h:5432/d"
