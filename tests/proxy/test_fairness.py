"""Overload is shared out by client, through a real ``pagesieve run``: one client's burst turns
filtering off for its own pages, not for another client's.

One worker, ``proxy.max_queue_ms`` 1500, pages that hold the worker 0.3 s each (the fault injector's
``pause``, so the machine's load does not decide the outcome). A greedy client keeps twelve
requests going at once from one address; a light client asks for one page at a time from another.
First come, first served, the light client's page found twelve of the greedy's ahead (3.6 s) and
was refused at once; taking turns, one page of each other client is ahead of it.
"""

from __future__ import annotations

import http.client
import threading
import time

import pytest

from tests.proxy.adversarial import MARKER, NORMAL, page
from tests.proxy.conftest import Origin, Route, start_proxy

pytestmark = pytest.mark.proxy

HTML = {"Content-Type": "text/html; charset=utf-8"}
PAUSE = page(f'<div id=story><h1>Pause</h1><p>{MARKER}.</p></div>',
             head='<meta name="pagesieve-test" content="pause">').encode()
GREEDY, LIGHT = "127.0.0.51", "127.0.0.52"


@pytest.fixture(scope="module")
def origin():
    server = Origin({"/normal.html": Route(headers=HTML, body=NORMAL), "/pause.html": Route(headers=HTML, body=PAUSE)},
                    host="127.0.0.3")
    yield server
    server.close()


def verdict(port: int, url: str, source: str) -> str:
    """The X-Pagesieve header of a GET through the proxy from the loopback address ``source``."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60, source_address=(source, 0))
    try:
        conn.request("GET", url, headers={"Connection": "close"})
        r = conn.getresponse()
        r.read()
        return r.getheader("x-pagesieve", "")
    finally:
        conn.close()


def test_a_greedy_client_does_not_turn_filtering_off_for_a_light_one(tmp_path, origin):
    proxy = start_proxy(tmp_path, workers=1, max_queue_ms=1500)
    try:
        assert verdict(proxy.port, origin.url("/pause.html"), LIGHT).startswith("filtered;")  # warm
        greedy: list[str] = []
        stop = time.monotonic() + 8

        def burst() -> None:
            while time.monotonic() < stop:
                greedy.append(verdict(proxy.port, origin.url("/pause.html"), GREEDY))

        threads = [threading.Thread(target=burst) for _ in range(12)]
        for t in threads:
            t.start()
        time.sleep(1.5)  # the greedy client's queue has filled
        light = []
        while time.monotonic() < stop - 0.5:
            light.append(verdict(proxy.port, origin.url("/normal.html"), LIGHT))
        for t in threads:
            t.join()
        busy = [v for v in greedy if v == "unfiltered; reason=busy"]
        assert len(busy) > len(greedy) / 2, greedy  # the overload is the greedy client's...
        assert len(light) >= 3 and all(v.startswith("filtered;") for v in light), light  # ...not the light one's
        assert f"no worker free for address {GREEDY}" in proxy.log_text()
        assert f"no worker free for address {LIGHT}" not in proxy.log_text()
    finally:
        proxy.stop()
