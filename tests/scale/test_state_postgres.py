"""pagesieve.store.state on a real PostgreSQL: the same migrations, race-free start, change detection,
an outage that fails fast and recovers by itself."""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

import pytest
import yaml

from pagesieve.core.errors import ConfigError, StateUnavailable
from pagesieve.engine import config as C
from pagesieve.store import state
from pagesieve.store.profiles import MIGRATIONS, Profile, ProfileStore, SiteRule
from pagesieve.store.site_memory import MIGRATIONS as SITE_MIGRATIONS
from pagesieve.store.site_memory import SiteMemory
from tests.conftest import REPO

pytestmark = pytest.mark.slow


def cfg_for(tmp_path: Path, url: str, refresh: float = 0.2):
    data = yaml.safe_load((REPO / "config.yaml").read_text())
    data["state"].update({"url": url, "refresh_seconds": refresh, "path": str(tmp_path / "unused.sqlite3")})
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return C.load(str(path))


def test_concurrent_start_on_an_empty_database_migrates_once(postgres):
    url = postgres.create_database("race")
    errors, versions = [], []
    barrier = threading.Barrier(8)

    def start():
        try:
            barrier.wait()
            db = state.open_database(url, watch=False)
            versions.append(db.migrate("profiles", MIGRATIONS))
            db.migrate("site_blocks", SITE_MIGRATIONS)
            db.close()
        except Exception as err:  # noqa: BLE001 - collected and asserted
            errors.append(repr(err))

    threads = [threading.Thread(target=start) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == [] and versions == [len(MIGRATIONS)] * 8
    db = state.open_database(url, watch=False)
    assert db.query("SELECT component, version FROM schema_version ORDER BY component") == [
        ("profiles", len(MIGRATIONS)), ("site_blocks", 1)]
    db.close()


def test_a_newer_schema_is_refused(postgres, tmp_path):
    url = postgres.create_database("newer")
    cfg = cfg_for(tmp_path, url)
    ProfileStore(cfg).close()
    db = state.open_database(url, watch=False)
    with db.transaction() as tx:
        tx.execute("UPDATE schema_version SET version = ? WHERE component = 'profiles'", (len(MIGRATIONS) + 1,))
    db.close()
    with pytest.raises(ConfigError, match="newer than this pagesieve knows"):
        ProfileStore(cfg)


def test_profiles_round_trip_and_another_instance_sees_a_save_within_refresh(postgres, tmp_path):
    url = postgres.create_database("profiles")
    cfg = cfg_for(tmp_path, url, refresh=0.2)
    a, b = ProfileStore(cfg), ProfileStore(cfg)
    try:
        assert b.effective("ann", "example.org")["preset"] is None  # cached in b now
        ann = Profile("ann", preset="reader", overrides={"output.format": "text"}, toggles={"ads": False},
                      sites={"example.org": SiteRule(bypass=True)})
        a.save(ann)
        assert a.get("ann") == ann
        t0 = time.monotonic()
        while b.effective("ann", "news.org")["preset"] != "reader":
            assert time.monotonic() - t0 < 10, "instance b never saw the save"
            time.sleep(0.05)
        assert b.effective("ann", "www.example.org")["bypass"] is True
        assert b.csrf_token("ann") == a.csrf_token("ann")  # one key per installation
        assert a.delete("ann") and not a.delete("ann")
        assert a.users() == []
    finally:
        a.close()
        b.close()


def test_outage_fails_fast_keeps_last_known_settings_and_recovers(postgres, tmp_path, caplog):
    url = postgres.create_database("outage")
    cfg = cfg_for(tmp_path, url, refresh=0.2)
    store = ProfileStore(cfg)
    memory = SiteMemory(url)
    try:
        store.save(Profile("ann", preset="reader"))
        assert store.effective("ann", "x.org")["preset"] == "reader"
        memory.site("example.org").remember("/a", [["b"]], max_pages=5)
        caplog.set_level(logging.WARNING, logger="pagesieve.store.state")
        postgres.stop()
        try:
            t0 = time.monotonic()
            while store.available:
                assert time.monotonic() - t0 < 15, "the outage was never noticed"
                time.sleep(0.05)
            t1 = time.perf_counter()
            for _ in range(20):
                assert store.effective("ann", "x.org")["preset"] == "reader"  # last known
                assert store.effective("bob", "x.org")["preset"] is None      # never seen: defaults
            with pytest.raises(StateUnavailable):
                store.save(Profile("ann"))
            with pytest.raises(StateUnavailable):
                store.get("bob")
            assert time.perf_counter() - t1 < 5, "calls while down must fail fast, not wait for a connection"
            assert memory.site("example.org").pages() == []  # no memory while down, no error
            memory.site("example.org").remember("/b", [["c"]], max_pages=5)
            downs = [r for r in caplog.records if "unavailable" in r.getMessage()]
            assert len(downs) == 2, [r.getMessage() for r in caplog.records]  # store's and memory's, once each
        finally:
            postgres.start()
        t0 = time.monotonic()
        while not store.available:
            assert time.monotonic() - t0 < 30, "never recovered"
            time.sleep(0.1)
        store.save(Profile("ann", preset="declutter"))
        assert store.effective("ann", "x.org")["preset"] == "declutter"
        t0 = time.monotonic()
        while memory.site("example.org").pages() != [[["b"]]]:
            assert time.monotonic() - t0 < 30, "site memory never recovered"
            time.sleep(0.2)
        assert any("is back" in r.getMessage() for r in caplog.records)
    finally:
        memory.close()
        store.close()


def test_sqlite_and_postgres_take_the_same_migration_list():
    for migrations in (MIGRATIONS, SITE_MIGRATIONS):
        for m in migrations:
            assert state.migration_sql(m, "sqlite") and state.migration_sql(m, "postgresql")


def test_a_url_that_is_not_postgres_is_refused():
    with pytest.raises(ConfigError, match="expected postgresql://"):
        state.open_database("mysql://x@y/z")
