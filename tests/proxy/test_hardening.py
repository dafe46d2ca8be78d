"""Proxy defects through real ``pagesieve run`` processes on loopback, one test each
(the hostile bodies themselves — gzip bomb, endless chunked stream… — are in test_adversarial.py).

Timings here are orders of magnitude (a loaded 2-core machine runs several suites at once):
speed itself is measured by ``benchmarks/bench_load.py``.
"""

from __future__ import annotations

import os
import random
import signal
import statistics
import threading
import time

import httpx
import pytest
import yaml

from tests.proxy.adversarial import MARKER, NORMAL, gzip_bomb
from tests.proxy.conftest import Origin, Route, add_user, html_page, peak_rss_mb, start_proxy, write_config

pytestmark = pytest.mark.proxy

HTML = {"Content-Type": "text/html; charset=utf-8"}


def slow_page() -> bytes:
    """Makes the ignore filter sleep (tests/proxy/inject): the worker is busy until the time limit."""
    return html_page("Slow", "A slow page.", '<meta name="pagesieve-test" content="slow">')


@pytest.fixture(scope="module")
def origin():
    routes = {
        "/normal.html": Route(headers=HTML, body=NORMAL),
        "/slow.html": Route(headers=HTML, body=slow_page()),
        "/claims-unfiltered.html": Route(headers={**HTML, "X-Pagesieve": "unfiltered; reason=bypassed"}, body=NORMAL),
        "/cached.html": Route(headers={**HTML, "ETag": '"v1-strong"', "Accept-Ranges": "bytes",
                                       "Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT",
                                       "Cache-Control": "public, max-age=3600"}, body=NORMAL),
        "/bomb.html": Route(headers={**HTML, "Content-Encoding": "gzip"}, body=gzip_bomb()),
    }
    server = Origin(routes, host="127.0.0.3")  # outside EasyList's loopback exceptions
    yield server
    server.close()


@pytest.fixture(scope="module")
def one_worker(tmp_path_factory):
    """One worker, a long queue limit: a page waits for it rather than being refused."""
    p = start_proxy(tmp_path_factory.mktemp("one-worker"), workers=1, max_queue_ms=15000)
    yield p
    p.stop()


def get(proxy, url: str, **kw) -> httpx.Response:
    with httpx.Client(proxy=proxy.url, trust_env=False, timeout=60) as c:
        return c.get(url, **kw)


def test_origin_cannot_switch_filtering_off(one_worker, origin):
    r = get(one_worker, origin.url("/claims-unfiltered.html"))
    assert r.headers["x-pagesieve"].startswith("filtered;"), r.headers["x-pagesieve"]
    assert len(r.headers.get_list("x-pagesieve")) == 1
    assert MARKER in r.text and "<script" not in r.text


def test_filtered_page_drops_the_origins_validators(one_worker, origin):
    r = get(one_worker, origin.url("/cached.html"))
    assert r.headers["x-pagesieve"].startswith("filtered;")
    assert "accept-ranges" not in r.headers and "last-modified" not in r.headers
    assert r.headers["etag"].startswith('W/"ps-')
    assert r.headers["cache-control"] == "private, max-age=3600"
    # The origin's strong tag is never ours, so a browser cannot splice original bytes into it.
    assert '"v1-strong"' not in r.headers["etag"]


def test_gzip_bomb_is_not_inflated(one_worker, origin):
    """1.1 MB of gzip inflating to 1.1 GB: served as it came, and the proxy stays small."""
    with httpx.Client(proxy=one_worker.url, trust_env=False, timeout=60) as c:
        with c.stream("GET", origin.url("/bomb.html")) as r:
            body = b"".join(r.iter_raw())
    assert r.headers["x-pagesieve"] == "unfiltered; reason=too-large"
    assert r.headers["content-security-policy"] == "script-src 'none'; object-src 'none'"
    assert body == origin.routes["/bomb.html"].body
    assert peak_rss_mb(one_worker.proc.pid) < 900  # it reached 2.3 GB when the bomb was inflated


def test_queueing_does_not_count_against_the_time_limit(one_worker, origin):
    """The one worker is busy with a slow page (until the time limit); a page queued behind it is
    still filtered, because only its own filtering time counts."""
    slow: dict = {}
    t = threading.Thread(target=lambda: slow.update(r=get(one_worker, origin.url("/slow.html"))))
    t.start()
    time.sleep(0.5)
    r = get(one_worker, origin.url("/normal.html"))
    t.join()
    assert slow["r"].headers["x-pagesieve"] == "unfiltered; reason=timeout"
    assert r.headers["x-pagesieve"].startswith("filtered;"), r.headers["x-pagesieve"]


def wait_for(predicate, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError(f"not within {seconds} s: {what}")


def test_a_worker_killed_while_idle_is_replaced(one_worker, origin):
    assert get(one_worker, origin.url("/normal.html")).headers["x-pagesieve"].startswith("filtered;")
    [worker] = one_worker.workers()
    before = one_worker.log_text().count("replacement worker")
    os.kill(worker, signal.SIGKILL)
    wait_for(lambda: one_worker.log_text().count("replacement worker") > before, 180, "the worker replaced")
    r = get(one_worker, origin.url("/normal.html"))
    assert r.headers["x-pagesieve"].startswith("filtered;"), r.headers["x-pagesieve"]
    assert worker not in one_worker.workers()


def test_an_overloaded_proxy_serves_pages_unfiltered_at_once(tmp_path, origin):
    """proxy.max_queue_ms: with the one worker busy, a page is not kept waiting: reason=busy."""
    proxy = start_proxy(tmp_path, workers=1, max_queue_ms=100)
    try:
        done: list[str] = []

        def slow():
            get(proxy, origin.url("/slow.html"))
            done.append("slow")

        t = threading.Thread(target=slow)
        t.start()
        time.sleep(0.5)
        r = get(proxy, origin.url("/normal.html"))
        done.append("normal")
        t.join()
        assert r.headers["x-pagesieve"] == "unfiltered; reason=busy"
        assert r.content == NORMAL
        assert r.headers["content-security-policy"] == "script-src 'none'; object-src 'none'"
        assert done == ["normal", "slow"]  # answered while the worker was still busy (TIMEOUT s)
        assert "reason=busy" in proxy.log_text()
        # Once the worker has interrupted the slow page (just after the time limit), pages are
        # filtered again.
        wait_for(lambda: get(proxy, origin.url("/normal.html")).headers["x-pagesieve"].startswith("filtered;"),
                 60, "a page filtered again")
    finally:
        proxy.stop()


PASSWORD = "the-right-password-1"


@pytest.fixture(scope="module")
def auth_proxy(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("auth")
    config = write_config(tmp / "config.yaml", tmp)
    data = yaml.safe_load(config.read_text())
    data["users"].update({"auth": True, "realm": "Brightwater proxy"})
    config.write_text(yaml.safe_dump(data, sort_keys=False))
    add_user(config, "alice", PASSWORD)
    proxy = start_proxy(tmp / "p", config=config)
    yield proxy
    proxy.stop()


def test_challenge_names_the_configured_realm(auth_proxy, origin):
    r = get(auth_proxy, origin.url("/normal.html"))
    assert r.status_code == 407
    assert r.headers["proxy-authenticate"] == 'Basic realm="Brightwater proxy"'


def test_guessing_clients_do_not_stall_a_logged_in_user(auth_proxy, origin):
    """Four clients guess passwords (a bcrypt of cost 12 each) while alice browses: her requests
    stay fast (the checks run off the event loop), and the guessers are soon refused at once."""
    stop = threading.Event()
    answers: list[httpx.Response] = []

    def guess(n: int) -> None:
        rnd = random.Random(n)
        while not stop.is_set():
            user = rnd.choice(["alice", f"nobody{n}"])
            url = auth_proxy.url.replace("http://", f"http://{user}:guess{rnd.random()}@")
            with httpx.Client(proxy=url, trust_env=False, timeout=60) as c:
                answers.append(c.get(origin.url("/normal.html")))
            stop.wait(0.05)

    alice = auth_proxy.url.replace("http://", f"http://alice:{PASSWORD}@")
    with httpx.Client(proxy=alice, trust_env=False, timeout=60) as c:
        assert c.get(origin.url("/normal.html")).status_code == 200  # logged in (verified once)
        guessers = [threading.Thread(target=guess, args=(n,)) for n in range(4)]
        for t in guessers:
            t.start()
        try:
            times = []
            # Until the guessers are refused (10 failures; a cost-12 bcrypt takes 0.3-4 s here).
            deadline = time.monotonic() + 150
            while time.monotonic() < deadline and (len(times) < 20 or not any(a.status_code == 403 for a in answers)):
                t0 = time.monotonic()
                r = c.get(origin.url("/normal.html"))
                times.append(time.monotonic() - t0)
                assert r.status_code == 200
                time.sleep(0.2)
        finally:
            stop.set()
            for t in guessers:
                t.join()
    p50 = statistics.median(times)
    print(f"alice p50 {p50 * 1000:.0f} ms, max {max(times) * 1000:.0f} ms, {len(answers)} guesses")
    # Before: 4 guessers pushed it from 0.05 s to 3-6 s (bcrypt on the event loop).
    assert p50 < 1.0, times
    codes = {r.status_code for r in answers}
    assert codes <= {403, 407} and 403 in codes, codes
    refused = next(r for r in answers if r.status_code == 403)
    assert int(refused.headers["retry-after"]) > 0 and "Too many failed logins" in refused.text


def test_mitmdump_route_listens_on_the_configured_host(tmp_path, origin):
    """`mitmdump -s` without --listen-host listens on proxy.listen_host (127.0.0.1), not on every
    interface as mitmproxy's default would."""
    import sys
    from pathlib import Path

    from tests.conftest import REPO

    def mitmdump(port, confdir, config):
        return [str(Path(sys.executable).with_name("mitmdump")), "-s", str(REPO / "pagesieve/proxy_addons/script.py"),
                "-p", str(port), "--set", f"confdir={confdir}", "--set", f"pagesieve_config={config}"]

    proxy = start_proxy(tmp_path, command=mitmdump)
    try:
        listening = [line for line in proxy.log_text().splitlines() if "proxy listening at" in line]
        assert listening[-1].endswith(f"listening at 127.0.0.1:{proxy.port}."), proxy.log_text()
        assert f"proxy at *:{proxy.port} stopped" in proxy.log_text()
    finally:
        proxy.stop()

