"""Overload is shared out by client, through a real ``pagesieve run``: one client's burst, or its
costly pages, turn filtering off for its own pages, not for another client's.

One worker, and pages that hold it a known time (the fault injector's ``pause``, 0.3 s, and
``costly``, 1.5 s: sleeps, so the machine's load does not decide the outcome). First, a greedy
client keeps twelve requests going at once from one address while a light client asks for one page
at a time from another: first come, first served, the light client's page found twelve of the
greedy's ahead (3.6 s) and was refused at once; shared out, little is ahead of it. Then a client
whose every page is costly against one whose pages are not: taking turns by pages, both were served
as many pages, and the costly client held the worker five sixths of the time; shared by worker time,
the light client is served several times as many pages, all filtered.
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
COSTLY = page(f'<div id=story><h1>Costly</h1><p>{MARKER}.</p></div>',
              head='<meta name="pagesieve-test" content="costly">').encode()
BUSY = "unfiltered; reason=busy"
GREEDY, LIGHT = "127.0.0.51", "127.0.0.52"


@pytest.fixture(scope="module")
def origin():
    server = Origin({"/normal.html": Route(headers=HTML, body=NORMAL), "/pause.html": Route(headers=HTML, body=PAUSE),
                     "/costly.html": Route(headers=HTML, body=COSTLY)},
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
        busy = [v for v in greedy if v == BUSY]
        assert len(busy) > len(greedy) / 2, greedy  # the overload is the greedy client's...
        assert len(light) >= 3 and all(v.startswith("filtered;") for v in light), light  # ...not the light one's
        assert f"no worker free for address {GREEDY}" in proxy.log_text()
        assert f"no worker free for address {LIGHT}" not in proxy.log_text()
    finally:
        proxy.stop()


def test_a_client_with_costly_pages_does_not_take_the_worker_from_a_light_one(tmp_path, origin):
    """The costly client keeps four requests going, the light one two (so one of its pages is
    nearly always waiting). Counted are the pages answered within the twelve seconds both ask: the
    costly client's pages still queued then are served afterwards, with nobody else waiting."""
    proxy = start_proxy(tmp_path, workers=1, max_queue_ms=6000)
    try:
        assert verdict(proxy.port, origin.url("/pause.html"), LIGHT).startswith("filtered;")  # warm
        heavy: list[tuple[bool, str]] = []  # (answered while both clients asked, X-Pagesieve)
        light: list[tuple[bool, str]] = []
        stop = time.monotonic() + 12

        def keep_asking(path: str, source: str, verdicts: list[tuple[bool, str]]) -> None:
            while time.monotonic() < stop:
                v = verdict(proxy.port, origin.url(path), source)
                verdicts.append((time.monotonic() < stop, v))
                if v == BUSY:
                    time.sleep(0.2)  # a refused page comes back at once: ask again soon, not in a tight loop

        threads = [threading.Thread(target=keep_asking, args=("/costly.html", GREEDY, heavy)) for _ in range(4)]
        for t in threads:
            t.start()
        time.sleep(1)  # the costly client has the worker and pages waiting
        light_threads = [threading.Thread(target=keep_asking, args=("/pause.html", LIGHT, light)) for _ in range(2)]
        for t in light_threads:
            t.start()
        for t in threads + light_threads:
            t.join()
        heavy_filtered = sum(v.startswith("filtered;") for _, v in heavy)
        heavy_shared = sum(v.startswith("filtered;") for within, v in heavy if within)
        light_shared = sum(within for within, _ in light)
        # Every light page was filtered, so none waited past proxy.max_queue_ms (it would be refused)...
        assert light_shared >= 6 and all(v.startswith("filtered;") for _, v in light), light
        # ...and it had most of the turns: in turns by pages both clients had about as many.
        assert light_shared >= 2 * heavy_shared, (light, heavy)
        assert heavy_filtered >= 1, heavy  # shared with the costly client, not taken from it
        assert f"no worker free for address {LIGHT}" not in proxy.log_text()
        # The worker time is counted by outcome: at least what the pages slept.
        metrics = http.client.HTTPConnection("127.0.0.1", proxy.port, timeout=30)
        metrics.request("GET", "http://pagesieve.health/metrics")
        values = dict(line.rsplit(" ", 1) for line in metrics.getresponse().read().decode().splitlines()
                      if not line.startswith("#"))
        metrics.close()
        slept = 1.5 * heavy_filtered + 0.3 * (len(light) + 1)
        assert float(values['pagesieve_worker_seconds_total{outcome="filtered"}']) >= slept, values
    finally:
        proxy.stop()
