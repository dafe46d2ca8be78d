"""The worker processes under attack, through real ``pagesieve run`` processes on loopback: they die
with the proxy, a page that holds a worker in C code past the time limit costs that worker
(killed and replaced), not the pool and not other users' pages, and a tag of 80,000 attributes
never reaches the parser."""

from __future__ import annotations

import os
import signal
import threading
import time

import httpx
import lxml.html
import pytest

from tests.proxy.adversarial import MARKER, NORMAL, page
from pagesieve.engine.document import MAX_ATTRIBUTES
from pagesieve.proxy_addons.metrics import CONTENT_TYPE
from pagesieve.proxy_addons.pool import KILL_GRACE_SECONDS
from tests.proxy.conftest import TIMEOUT, Origin, Route, start_proxy

pytestmark = pytest.mark.proxy

HTML = {"Content-Type": "text/html; charset=utf-8"}
#: Attributes on one <img>: libxml2's parser checks each new attribute against every earlier one
#: (quadratic, in C: the worker's alarm cannot interrupt it); 80,000 kept a worker ~75 s before the
#: page was refused ahead of parsing (pagesieve.engine.document.MAX_ATTRIBUTES).
MANY_ATTRIBUTES = 80_000
#: Bytes of the widest page the parsers still read: tags of one attribute fewer than the limit each,
#: and an end after </html> that makes it read the HTML5 way too (lexbor, then libxml2 again).
WIDE_PAGE_BYTES = 8_000_000
#: The stuck-page test's proxy.timeout_seconds: a worker interrupts itself half a second past it, unless it
#: is in C code then; the pool kills it at the limit + KILL_GRACE_SECONDS.
STUCK_TIMEOUT = 1.0
#: The first parser call on the stuck page runs this many times the time to the kill, so that the worker's
#: own alarm finds it in C code until the kill on a fast machine as on a loaded one.
STUCK_MARGIN = 1.6


def many_attributes_page(n: int = MANY_ATTRIBUTES) -> bytes:
    attrs = " ".join(f"a{i}=x" for i in range(n))
    return page(f"<div id=story><p>{MARKER}.</p><img {attrs}></div>").encode()


def widest_tags_page(size: int = WIDE_PAGE_BYTES) -> bytes:
    img = "<img " + " ".join(f"a{i}=x" for i in range(MAX_ATTRIBUTES - 1)) + ">"
    return (page(f"<div id=story><p>{MARKER}.</p>" + img * (size // len(img)) + "</div>")
            + "<p>after the end</p>").encode()


def stuck_page() -> bytes:
    """A page of wide tags whose first libxml2 parse alone runs :data:`STUCK_MARGIN` times the time to the
    kill, sized by timing libxml2 here (8 to 40 MB): a fixed 8 MB ran past the kill in C code on one
    machine, but on a faster one its parser calls returned between the worker's alarm and the kill."""
    sample = widest_tags_page(2_000_000).decode()
    t0 = time.perf_counter()
    lxml.html.document_fromstring(sample)
    seconds_a_byte = (time.perf_counter() - t0) / len(sample)
    size = (STUCK_TIMEOUT + KILL_GRACE_SECONDS) * STUCK_MARGIN / seconds_a_byte
    return widest_tags_page(int(min(40_000_000, max(WIDE_PAGE_BYTES, size))))


def unclosed_blocks_page(n: int = 1600) -> bytes:
    """``<div><p>`` opened ``n`` times and never closed (100 KB): each div nests in the last."""
    return page(f"<p>{MARKER}.</p>" + "<div><p>Some words of text in a paragraph, with a comma here. " * n).encode()


@pytest.fixture(scope="module")
def origin():
    server = Origin({"/normal.html": Route(headers=HTML, body=NORMAL),
                     "/many-attributes.html": Route(headers=HTML, body=many_attributes_page()),
                     "/widest-tags.html": Route(headers=HTML, body=stuck_page()),
                     "/unclosed-blocks.html": Route(headers=HTML, body=unclosed_blocks_page())},
                    host="127.0.0.3")  # outside EasyList's loopback exceptions
    yield server
    server.close()


def get(proxy, url: str) -> httpx.Response:
    with httpx.Client(proxy=proxy.url, trust_env=False, timeout=120) as c:
        return c.get(url)


def alive(pid: int) -> bool:
    try:
        state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_workers_and_forkserver_die_with_a_killed_proxy(tmp_path, origin):
    proxy = start_proxy(tmp_path, workers=2)
    try:
        assert get(proxy, origin.url("/normal.html")).headers["x-pagesieve"].startswith("filtered;")
        below = proxy.descendants()
        assert len(proxy.workers()) == 2 and len(below) >= 3, below  # forkserver + 2 workers (+ tracker)
    finally:
        os.kill(proxy.proc.pid, signal.SIGKILL)
        proxy.proc.wait(10)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(alive(p) for p in below):
        time.sleep(0.1)
    left = [p for p in below if alive(p)]
    for p in left:  # do not leave them behind when the test fails
        os.kill(p, signal.SIGKILL)
    assert not left, f"still running 5 s after the proxy was killed: {left}"


def test_a_tag_of_80000_attributes_is_served_as_sent_at_once(tmp_path, origin):
    """Two requests at once on one worker, each refused before parsing (one linear scan), not after the
    worker's time limit: the original bytes, the fail-safe script policy, the reason; the worker is the same
    one, and filters the next page."""
    proxy = start_proxy(tmp_path, workers=1)
    try:
        first = proxy.workers()
        answers: list[httpx.Response] = []
        threads = [threading.Thread(target=lambda: answers.append(get(proxy, origin.url("/many-attributes.html"))))
                   for _ in range(2)]  # two at once, on the one worker
        t0 = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.monotonic() - t0
        assert len(answers) == 2
        for r in answers:
            assert r.headers["x-pagesieve"] == "unfiltered; reason=unparsable", r.headers["x-pagesieve"]
            assert r.headers.get_list("content-security-policy") == ["script-src 'none'; object-src 'none'"]
            assert r.content == origin.routes["/many-attributes.html"].body
        assert elapsed < TIMEOUT, elapsed  # the kill would come after TIMEOUT + its grace
        r = get(proxy, origin.url("/normal.html"))
        assert r.headers["x-pagesieve"].startswith("filtered;"), r.headers["x-pagesieve"]
        assert MARKER in r.text
        assert proxy.workers() == first and "killed" not in proxy.log_text()
    finally:
        proxy.stop()


def test_a_page_stuck_in_c_code_costs_its_worker_not_the_others(tmp_path, origin):
    """Two pages that keep their workers in the parsers' C code far past the time limit: each answered
    unfiltered (the original bytes) at the limit, its worker killed and replaced; a page filtering
    meanwhile on another worker is not failed, and a page 12 s later is filtered."""
    size = len(origin.routes["/widest-tags.html"].body)
    proxy = start_proxy(tmp_path, workers=2, max_queue_ms=2000, max_body_bytes=2 * size, timeout_seconds=STUCK_TIMEOUT)
    try:
        first = proxy.workers()
        stuck: list[httpx.Response] = []
        threads = [threading.Thread(target=lambda: stuck.append(get(proxy, origin.url("/widest-tags.html"))))
                   for _ in range(2)]
        t0 = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for r in stuck:
            assert r.headers["x-pagesieve"] == "unfiltered; reason=timeout", r.headers["x-pagesieve"]
            assert r.content == origin.routes["/widest-tags.html"].body
        time.sleep(max(0.0, 12 - (time.monotonic() - t0)))
        r = get(proxy, origin.url("/normal.html"))
        assert r.headers["x-pagesieve"].startswith("filtered;"), r.headers["x-pagesieve"]
        assert MARKER in r.text
        assert not set(first) & set(proxy.workers())  # both stuck workers were replaced
        # One stuck page again, and normal pages on the other worker meanwhile, through the kill.
        other: list[str] = []
        t = threading.Thread(target=lambda: stuck.append(get(proxy, origin.url("/widest-tags.html"))))
        t.start()
        t0 = time.monotonic()
        while time.monotonic() - t0 < 8:
            other.append(get(proxy, origin.url("/normal.html")).headers["x-pagesieve"])
        t.join()
        assert all(v.startswith("filtered;") for v in other), other
        assert "killed, another one starts" in proxy.log_text()
        # What happened is counted, for monitoring.
        metrics = get(proxy, "http://pagesieve.health/metrics")
        assert metrics.headers["content-type"] == CONTENT_TYPE  # Prometheus' text format
        values = dict(line.rsplit(" ", 1) for line in metrics.text.splitlines() if not line.startswith("#"))
        assert float(values["pagesieve_worker_replacements_total"]) >= 3
        assert float(values['pagesieve_pages_total{outcome="unfiltered",reason="timeout"}']) == 3
        assert float(values['pagesieve_pages_total{outcome="filtered",reason=""}']) == 1 + len(other)
        # Each stuck page kept its worker past the limit until the kill: that time is counted (and charged
        # to its client, whose next pages then wait behind others').
        assert float(values['pagesieve_worker_seconds_total{outcome="timeout"}']) >= 3 * STUCK_TIMEOUT
        assert float(values['pagesieve_worker_seconds_total{outcome="filtered"}']) > 0
        assert float(values["pagesieve_workers"]) == 2
        # Each filtered page's worker time and wait for a worker, as histograms.
        assert float(values["pagesieve_filter_seconds_count"]) == 1 + len(other)
        assert float(values["pagesieve_queue_seconds_count"]) == 1 + len(other)
        assert 0 < float(values["pagesieve_filter_seconds_sum"]) < (1 + len(other)) * STUCK_TIMEOUT
        assert float(values['pagesieve_filter_seconds_bucket{le="+Inf"}']) == 1 + len(other)
        assert float(values["pagesieve_state_available"]) == 1
    finally:
        proxy.stop()


def test_the_reader_filters_100_kb_of_unclosed_blocks_in_time(tmp_path, origin):
    """The reader's cleanup walked every element's ancestors once per level of nesting (cubic):
    this page took 97 s, past any time limit; now it is filtered (0.5 s of CPU: the limit here is
    10 times that, for a loaded machine)."""
    proxy = start_proxy(tmp_path, "--preset", "reader", workers=1, timeout_seconds=30)
    try:
        r = get(proxy, origin.url("/unclosed-blocks.html"))
        assert r.headers["x-pagesieve"].startswith("filtered; preset=reader"), r.headers["x-pagesieve"]
        assert MARKER in r.text
    finally:
        proxy.stop()
