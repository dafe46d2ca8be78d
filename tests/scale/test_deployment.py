"""Several ``pagesieve run`` instances behind HAProxy, sharing PostgreSQL, with directory logins.

The real parts (tests/scale/services.py): a throwaway PostgreSQL cluster, slapd with one user,
three instances (one worker each) started at once against the empty database, all with one CA,
and HAProxy running ``deploy/haproxy.cfg``. The tests run in this order; the last one kills an
instance.
"""

from __future__ import annotations

import random
import re
import ssl
import threading
import time
from pathlib import Path

import httpx
import lxml.html
import pytest

from pagesieve.engine import config as C
from pagesieve.store.profiles import Profile, ProfileStore
from tests.proxy.conftest import Origin, Route, add_user, browser_form, build_routes, changed, post, self_signed
from tests.scale import services as S

pytestmark = [pytest.mark.proxy, pytest.mark.slow]

SETTINGS = "http://pagesieve.core.settings/"
REFRESH = 1.0  # state.refresh_seconds of the test instances
CAROL = ("carol", "carol-directory-pw")  # in the directory only
ALICE = ("alice", "alice-htpasswd-pw")  # in the htpasswd file only
DAVE = ("dave", "dave-htpasswd-pw")
N = 3
#: Generous bounds on waits (the machine is shared): a failure means "never", not "slow".
PATIENCE = 30.0

NAV = ("<div id=sitenav><ul>" + "".join(f"<li><a href=/s/{i}>Section number {i} of the site</a>" for i in range(12))
       + "</ul><p>Subscribe to the Brightwater Gazette newsletter for weekly harbour news.</p></div>")


def template_page(n: int) -> bytes:
    """Page ``n`` of a site: the same navigation block, a story of its own (distinct words)."""
    rng = random.Random(n)
    words = ["".join(rng.choice("bcdfghklmnprstvz") + rng.choice("aeiou") for _ in range(3)) for _ in range(160)]
    story = " ".join(words)
    return (f"<!doctype html><html><head><title>Story {n}</title></head><body>{NAV}"
            f"<div id=story><h1>Story {n}</h1><p>{story}.</p><p id=marker>story-{n}-text</p></div>"
            "</body></html>").encode()


@pytest.fixture(scope="module")
def deployment(tmp_path_factory, postgres):
    why = S.missing_parts()
    if why:
        pytest.skip(why)
    tmp = tmp_path_factory.mktemp("scale")
    url = postgres.create_database("deployment")
    directory = S.Slapd({CAROL[0]: CAROL[1]})
    routes = build_routes()
    for n in range(1, 4):
        routes[f"/t/{n}.html"] = Route(headers={"Content-Type": "text/html; charset=utf-8"}, body=template_page(n))
    origin = Origin(routes, host="127.0.0.3")  # outside EasyList's loopback exceptions
    control = Origin(routes, host="127.0.0.4")  # another site: nothing learned about it
    cert, key = self_signed(tmp)
    secure = Origin(routes, host="127.0.0.1", cert=(cert, key))
    confdir = tmp / "mitmproxy"
    ca = S.make_ca(confdir)
    config = S.instance_config(tmp / "config.yaml", tmp, state_url=url, refresh_seconds=REFRESH, auth=True,
                               directory={"url": directory.url, "bind_dn": S.LDAP_ADMIN,
                                          "bind_password": S.LDAP_ADMIN_PASSWORD, "base_dn": S.LDAP_PEOPLE})
    for name, pw in (ALICE, DAVE):
        add_user(config, name, pw)
    instances = S.start_instances(N, tmp, config, confdir, "--mitmproxy-set",
                                  f"ssl_verify_upstream_trusted_ca={cert}")
    balancer = S.Haproxy([p.port for p in instances], tmp / "haproxy")
    d = type("Deployment", (), dict(postgres=postgres, url=url, directory=directory, origin=origin,
                                    control=control, secure=secure, ca=ca, config=config, instances=instances,
                                    balancer=balancer, routes=routes))
    yield d
    balancer.close()
    for p in instances:
        p.stop()
    for o in (origin, control, secure):
        o.close()
    directory.close()


def client(proxy_url: str, user: tuple[str, str] | None, ca: Path | None = None, **kw) -> httpx.Client:
    if user is not None:
        proxy_url = proxy_url.replace("http://", f"http://{user[0]}:{user[1]}@")
    verify = ssl.create_default_context(cafile=str(ca)) if ca else True
    return httpx.Client(proxy=proxy_url, trust_env=False, timeout=60, follow_redirects=False, verify=verify, **kw)


def wait_for(check, what: str, limit: float = PATIENCE) -> float:
    """Seconds until ``check()`` was true (fails after ``limit``)."""
    t0 = time.monotonic()
    while True:
        if check():
            return time.monotonic() - t0
        assert time.monotonic() - t0 < limit, f"{what}: not after {limit:.0f} s"
        time.sleep(0.1)


def test_instances_started_at_once_on_an_empty_database_and_answer_health(deployment):
    for p in deployment.instances:
        r = httpx.get("http://pagesieve.health/", proxy=p.url, trust_env=False, timeout=10)  # no credentials
        assert r.status_code == 200 and r.text.startswith("ok; state=available; workers=1"), r.text
        assert "health" not in p.log_text()  # not logged per request
    assert "Traceback" not in "".join(p.log_text() for p in deployment.instances)


def test_directory_and_htpasswd_logins_through_the_balancer(deployment):
    bal = deployment.balancer.url
    for user in (CAROL, ALICE):
        with client(bal, user) as c:
            r = c.get(SETTINGS)
            assert r.status_code == 200 and user[0] in r.text
    for bad in ((CAROL[0], "wrong-password"), ("mallory", "whatever-pw"), (ALICE[0], CAROL[1])):
        with client(bal, bad) as c:
            assert c.get(SETTINGS).status_code == 407


def test_a_setting_saved_through_the_balancer_is_in_force_on_every_instance(deployment):
    page = deployment.origin.url("/ads.html")
    direct = [client(p.url, CAROL) for p in deployment.instances]
    try:
        for c in direct:
            assert c.get(page).headers["x-pagesieve"].startswith("filtered; preset=declutter")
        with client(deployment.balancer.url, CAROL) as c:
            form = browser_form(c.get(SETTINGS).text)
            r = post(c, changed(form, preset="reader"))
            assert r.status_code == 303, r.text
        saved = time.monotonic()
        took = []
        for c in direct:
            wait_for(lambda c=c: c.get(page).headers["x-pagesieve"].startswith("filtered; preset=reader"),
                     "the saved preset on another instance")
            took.append(time.monotonic() - saved)
        print(f"preset saved through the balancer in force on {N} instances after "
              f"{', '.join(f'{t:.2f}' for t in took)} s (state.refresh_seconds = {REFRESH})")
    finally:
        for c in direct:
            c.close()


def test_https_interception_through_the_balancer_with_the_shared_ca(deployment):
    with client(deployment.balancer.url, ALICE, ca=deployment.ca) as c:
        for _ in range(N):  # new connections: leastconn spreads them
            r = c.get(deployment.secure.url("/ads.html", host="localhost"), headers={"Connection": "close"})
            assert r.status_code == 200 and r.headers["x-pagesieve"].startswith("filtered")
            assert "rebuild the old harbour wall" in r.text


def test_site_memory_learned_on_one_instance_is_used_by_another(deployment):
    cfg = C.load(str(deployment.config))
    store = ProfileStore(cfg)
    store.save(Profile(DAVE[0], preset="reader-templates"))
    store.close()
    first, second, third = deployment.instances
    with client(first.url, DAVE) as c:
        wait_for(lambda: "preset=reader-templates" in c.get(deployment.origin.url("/t/1.html")).headers["x-pagesieve"],
                 "dave's preset on the first instance")
        c.get(deployment.origin.url("/t/2.html"))
    with client(second.url, DAVE) as c:
        r = c.get(deployment.origin.url("/t/3.html"))
    assert r.headers["x-pagesieve"].startswith("filtered; preset=reader-templates")
    page = lxml.html.document_fromstring(r.content)
    assert page.get_element_by_id("sitenav", None) is None, "the template learned elsewhere was not used"
    assert "story-3-text" in r.text
    # Both sides: the same page of a site no instance has seen keeps its navigation.
    with client(third.url, DAVE) as c:
        r = c.get(deployment.control.url("/t/3.html"))
    assert lxml.html.document_fromstring(r.content).get_element_by_id("sitenav", None) is not None


def test_postgres_stopped_and_restarted_mid_run(deployment):
    bal = deployment.balancer.url
    page = deployment.origin.url("/ads.html")
    deployment.postgres.stop()
    try:
        with client(bal, CAROL, limits=httpx.Limits(max_keepalive_connections=0)) as c:
            took = wait_for(lambda: c.get(SETTINGS).status_code == 503, "settings page 503 while PostgreSQL is down")
            # each instance learns it on its own next read of the database: wait for every one of them
            # before asking through the balancer, which may pick one that has not read it yet
            for p in deployment.instances:
                with client(p.url, CAROL) as direct:
                    wait_for(lambda d=direct: d.get(SETTINGS).status_code == 503, f"settings page 503 on {p.url}")
            for _ in range(2 * N):
                r = c.get(SETTINGS)
                assert r.status_code == 503 and "cannot be reached" in r.text and "Nothing was changed" in r.text
                r = c.get(page)  # still served, still filtered with carol's last known preset
                assert r.status_code == 200 and r.headers["x-pagesieve"].startswith("filtered; preset=reader")
            for p in deployment.instances:
                r = httpx.get("http://pagesieve.health/", proxy=p.url, trust_env=False, timeout=10)
                assert r.text.startswith("ok; state=unavailable")
                r = httpx.get("http://pagesieve.health/metrics", proxy=p.url, trust_env=False, timeout=10)
                assert "pagesieve_state_available 0.0" in r.text.splitlines()
        print(f"settings page answered 503 {took:.1f} s after PostgreSQL stopped; pages kept being filtered")
    finally:
        deployment.postgres.start()
    with client(bal, CAROL) as c:
        took = wait_for(lambda: c.get(SETTINGS, headers={"Connection": "close"}).status_code == 200,
                        "settings page back after PostgreSQL restarted")
        # every instance notices within state.refresh_seconds: wait until this connection's one has
        wait_for(lambda: c.get(SETTINGS).status_code == 200, "settings page back on every instance")
        form = browser_form(c.get(SETTINGS).text)
        assert post(c, changed(form, preset="reader")).status_code == 303
    print(f"settings page back {took:.1f} s after PostgreSQL restarted")
    for p in deployment.instances:
        log = p.log_text()
        downs = len(re.findall(r"state database .* unavailable", log))
        assert 1 <= downs <= 2, log  # once in the proxy, at most once in its one worker (site memory)
        assert "is back" in log


def test_an_instance_killed_under_load_costs_only_its_in_flight_requests(deployment):
    bal = deployment.balancer.url
    urls = [deployment.origin.url(p) for p in deployment.routes if p.startswith("/corpus/")][:8]
    urls.append(deployment.origin.url("/ads.html"))
    clients, duration, kill_at = 6, 10.0, 3.0
    results: list[tuple[float, float, str | None]] = []  # (start, end, error)
    lock = threading.Lock()
    t0 = time.monotonic()

    def load(k: int) -> None:
        with client(bal, ALICE if k % 2 else CAROL, limits=httpx.Limits(max_keepalive_connections=0)) as c:
            i = k
            while time.monotonic() - t0 < duration:
                start = time.monotonic() - t0
                err = None
                try:
                    r = c.get(urls[i % len(urls)])
                    if r.status_code != 200:
                        err = f"status {r.status_code}"
                except httpx.HTTPError as e:
                    err = f"{type(e).__name__}: {e}"
                with lock:
                    results.append((start, time.monotonic() - t0, err))
                i += 1

    threads = [threading.Thread(target=load, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    time.sleep(kill_at)
    victim = deployment.instances[0]
    killed = time.monotonic() - t0
    S.kill_instance(victim)
    dead = time.monotonic() - t0  # reaped: its listening socket is closed, nothing more can reach it
    for t in threads:
        t.join(duration + 120)
    errors = [r for r in results if r[2]]
    # In flight on the victim: started before it was gone (sent to it, or queued in its accept
    # backlog while it died) and not finished when the kill came.
    in_flight = [r for r in results if r[0] <= dead and r[1] >= killed]
    after = [r for r in results if r[0] > dead]
    print(f"killed an instance at {killed:.2f} s (gone at {dead:.2f} s) under {clients} clients: "
          f"{len(results)} requests, {len(in_flight)} in flight at the kill, {len(errors)} failed, "
          f"{len(after)} started after it, all {'served' if all(not r[2] for r in after) else 'NOT served'}")
    assert all(r[0] <= dead and r[1] >= killed for r in errors), f"requests not in flight at the kill failed: {errors}"
    assert len(errors) <= len(in_flight)
    assert len(after) >= clients, "the load did not go on after the kill"
    r = httpx.get("http://pagesieve.health/", proxy=bal, trust_env=False, timeout=10)
    assert r.status_code == 200  # the balancer answers from the instances left
