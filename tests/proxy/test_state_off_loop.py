"""The state database is read off the event loop, through a real ``pagesieve run``: while reads
of it are slow (3 s each here, injected by ``inject/sitecustomize.py``; a locked SQLite file waits
up to its 5 s busy timeout, PostgreSQL its statement timeout), a page waits for its profile, and
the proxy keeps answering everyone else at once."""

from __future__ import annotations

import threading
import time

import httpx
import pytest

from tests.proxy.adversarial import NORMAL
from tests.proxy.conftest import Origin, Route, start_proxy

pytestmark = pytest.mark.proxy


@pytest.fixture(scope="module")
def origin():
    server = Origin({"/normal.html": Route(headers={"Content-Type": "text/html"}, body=NORMAL)}, host="127.0.0.3")
    yield server
    server.close()


def get(proxy, url: str) -> httpx.Response:
    with httpx.Client(proxy=proxy.url, trust_env=False, timeout=60) as c:
        return c.get(url)


def test_a_slow_state_database_does_not_stall_the_proxy(tmp_path, origin, monkeypatch):
    marker = tmp_path / "slow-state"
    monkeypatch.setenv("PAGESIEVE_TEST_SLOW_STATE", str(marker))
    proxy = start_proxy(tmp_path)
    try:
        assert get(proxy, origin.url("/normal.html")).status_code == 200
        marker.touch()  # from now on every read of the state database takes 3 s
        slow = threading.Thread(target=get, args=(proxy, origin.url("/normal.html?slow")))
        slow.start()
        time.sleep(0.5)  # that page is waiting for its profile
        t0 = time.monotonic()
        r = get(proxy, "http://pagesieve.health/")
        took = time.monotonic() - t0
        marker.unlink()
        slow.join()
        assert r.status_code == 200 and took < 2.0, took  # the event loop waited with the page before
    finally:
        proxy.stop()
