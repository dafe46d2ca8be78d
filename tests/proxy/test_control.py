"""The page control and the one-page bypass through a real proxy with two users (alice, bob).

A site must not be able to opt itself out of filtering: a redirect or a ``Refresh`` to
``?pagesieve=off`` gets the proxy's "Show this page as sent?" page, never the original with its
scripts; the control's "Show original" link (a token for this user and this URL) does show it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlencode, urljoin

import httpx
import lxml.html
import pytest

from tests.conftest import corpus_pages
from tests.proxy.conftest import Origin, Route, auth_config, start_proxy

pytestmark = pytest.mark.proxy

USERS = {"alice": "alice-secret-1", "bob": "bob-secret-22"}
SHOTS = Path(os.environ.get("PAGESIEVE_SHOTS", "/work/notes/shots"))
CONFIRM_TITLE = "Show this page as sent?"


@pytest.fixture(scope="module")
def site(routes):
    """The usual routes plus pages that ask for the bypass themselves, on a host outside EasyList's
    loopback exceptions; a second site for the per-site rule (so it changes nothing else here)."""
    own = dict(routes)
    own["/to-off"] = Route(status=302, headers={"Location": "/ads.html?pagesieve=off", "Content-Type": "text/html"},
                           body=b"<html><body><a href=/ads.html?pagesieve=off>moved</a></body></html>")
    own["/to-off-token"] = Route(status=302, headers={"Location": "/ads.html?pagesieve=off-0123456789abcdef0123456789abcdef"})
    own["/refresh-off"] = Route(headers={"Content-Type": "text/html; charset=utf-8",
                                         "Refresh": "0; url=/ads.html?pagesieve=off"},
                                body=b"<!doctype html><html><head><title>Refresh</title></head><body><p>One moment.</p>"
                                     b"</body></html>")
    first, second = Origin(own, host="127.0.0.3"), Origin(own, host="127.0.0.5")
    yield first, second
    first.close()
    second.close()


@pytest.fixture(scope="module")
def proxy(tmp_path_factory, site):
    tmp = tmp_path_factory.mktemp("control")
    config = auth_config(tmp, USERS)
    p = start_proxy(tmp / "p", config=config)
    yield p
    p.stop()


def client_for(proxy, user: str) -> httpx.Client:
    return httpx.Client(proxy=proxy.url.replace("http://", f"http://{user}:{USERS[user]}@"), trust_env=False,
                        timeout=60, follow_redirects=False)


def control_of(html: bytes):
    """The control's <nav> of a filtered page, and the page's parsed tree."""
    tree = lxml.html.document_fromstring(html)
    navs = tree.xpath("//nav[@id='pagesieve-control']")
    assert len(navs) == 1, "one control on the page"
    return navs[0], tree


def link(nav, text: str) -> str:
    hrefs = [a.get("href") for a in nav.iter("a") if a.text_content().startswith(text)]
    assert len(hrefs) == 1, text
    return hrefs[0]


def test_control_follows_the_skip_link_with_its_four_items(proxy, site, routes):
    with client_for(proxy, "alice") as alice:
        r = alice.get(site[0].url("/ads.html"))
    assert r.headers["x-pagesieve"].startswith("filtered;")
    nav, tree = control_of(r.content)
    body = tree.find("body")
    first, second = list(body)[:2]
    assert "pagesieve-skip" in first.get("class") and second is nav
    assert nav.get("aria-labelledby") == "pagesieve-control-heading"
    assert nav.xpath("string(.//h2[@id='pagesieve-control-heading'])") == "Filtered by pagesieve"
    assert [li.text_content() for li in nav.iter("li")] == [
        "Show original", re.search(r"What was removed \(\d+\)", r.text).group(0), "Settings",
        "Always show this site as sent"]
    assert link(nav, "Settings") == "http://pagesieve.core.settings/"
    assert not nav.xpath(".//script") and b"googletagservices" not in r.content


@pytest.mark.parametrize("path", ["/to-off", "/to-off-token"])
def test_a_redirect_to_the_bypass_gets_the_question_not_the_original(proxy, site, routes, path):
    origin = site[0]
    with client_for(proxy, "alice") as alice:
        seen = len(origin.seen)
        r = alice.get(origin.url(path), follow_redirects=True)
    assert r.url.path == "/ads.html" and CONFIRM_TITLE in r.text
    assert r.headers["x-pagesieve"] == "unfiltered; reason=own-page"
    assert "frame-ancestors 'none'" in r.headers["content-security-policy"]
    assert b"googletagservices" not in r.content and "Harbour wall" not in r.text
    assert [p for _, p, _ in origin.seen[seen:]] == [path]  # the original was never fetched
    # Its link shows the original, for this user.
    original = lxml.html.document_fromstring(r.content).xpath("//a[starts-with(., 'Show the page as the site')]/@href")
    with client_for(proxy, "alice") as alice:
        shown = alice.get(original[0])
    assert shown.content == routes["/ads.html"].body and shown.headers["x-pagesieve"] == "unfiltered; reason=bypassed"


def test_a_refresh_to_the_bypass_gets_the_question(proxy, site):
    origin = site[0]
    with client_for(proxy, "alice") as alice:
        r = alice.get(origin.url("/refresh-off"))
        assert r.headers["refresh"] == "0; url=/ads.html?pagesieve=off"
        target = urljoin(str(r.url), r.headers["refresh"].split("url=", 1)[1])  # what a browser loads next
        followed = alice.get(target)
    assert CONFIRM_TITLE in followed.text and b"googletagservices" not in followed.content


def test_show_original_link_shows_the_page_as_sent_for_its_user_only(proxy, site, routes):
    origin = site[0]
    with client_for(proxy, "alice") as alice, client_for(proxy, "bob") as bob:
        nav, _ = control_of(alice.get(origin.url("/ads.html?x=1")).content)
        original = link(nav, "Show original")
        assert re.fullmatch(re.escape(origin.url("/ads.html?x=1&pagesieve=off-")) + "[0-9a-f]{32}", original)
        seen = len(origin.seen)
        r = alice.get(original)
        assert r.content == routes["/ads.html"].body and r.headers["x-pagesieve"] == "unfiltered; reason=bypassed"
        assert origin.seen[seen][1] == "/ads.html?x=1"  # the parameter never reaches the site
        # The same token is no bypass for another user, nor for another page.
        assert CONFIRM_TITLE in bob.get(original).text
        assert CONFIRM_TITLE in alice.get(original.replace("x=1", "x=2")).text
        # A request that is no navigation (an image, a fetch) is filtered as usual, never asked about.
        r = alice.get(origin.url("/ads.html?pagesieve=off"), headers={"Sec-Fetch-Mode": "no-cors"})
        assert r.headers["x-pagesieve"].startswith("filtered;")
        # The header stays a bypass (a page cannot make a browser send it).
        r = alice.get(origin.url("/ads.html"), headers={"X-Pagesieve-Bypass": "1"})
        assert r.headers["x-pagesieve"] == "unfiltered; reason=bypassed"


def removed_list(html: str) -> list[tuple[str, str, str]]:
    """(filter, node, reason) of every entry of a "What was removed" page."""
    tree = lxml.html.document_fromstring(html)
    out = []
    for li in tree.xpath("//li[@data-filter]"):
        out.append((li.get("data-filter"), li.findtext("code"), li.xpath("string(.//span[@class='why'])")))
    return out


def test_what_was_removed_lists_what_explain_gives(proxy, site, tmp_path):
    pid, path, _ = corpus_pages()[3]
    origin = site[0]
    url = origin.url(f"/corpus/{pid}.html")
    with client_for(proxy, "alice") as alice, client_for(proxy, "bob") as bob:
        nav, _ = control_of(alice.get(url).content)
        href = link(nav, "What was removed")
        page = alice.get(href)
        assert page.status_code == 200, page.text
        assert bob.get(href).status_code == 404  # alice's pages are hers
    got = removed_list(page.text)
    explain = subprocess.run([sys.executable, "-m", "pagesieve", "filter", "--config", str(proxy.config), "--url", url,
                              "--explain", str(path)], capture_output=True, timeout=300)
    assert explain.returncode == 0, explain.stderr
    explained = json.loads(explain.stderr)
    record = explained["record"]
    want = [(e["filter"], e.get("node"), e.get("reason", "")) for e in record
            if e["action"] in ("remove", "replace", "error", "revert")]
    assert got == want and len(got) >= 5
    count = int(re.search(r"What was removed \((\d+)\)", nav.text_content()).group(1))
    assert count == sum(f["removed"] for f in explained["filters"] if f["status"] == "ok")
    assert f"{count} removal" in lxml.html.document_fromstring(page.content).xpath("string(//main/p[1])")


def test_always_show_this_site_as_sent_is_for_that_user_only(proxy, site, routes):
    origin = site[1]  # a site of its own: the rule would change the other tests' pages
    with client_for(proxy, "alice") as alice, client_for(proxy, "bob") as bob:
        nav, _ = control_of(alice.get(origin.url("/ads.html")).content)
        form = nav.xpath(".//form")[0]
        fields = {i.get("name"): i.get("value") for i in form.iter("input")}
        assert form.get("action") == "http://pagesieve.core.settings/always-as-sent" and fields["host"] == "127.0.0.5"
        post = {"Content-Type": "application/x-www-form-urlencoded", "Origin": origin.url("")}
        # bob cannot use alice's form, nor anyone a wrong token, nor another site alice's token for this one.
        assert bob.post(form.get("action"), content=urlencode(fields), headers=post).status_code == 403
        assert alice.post(form.get("action"), content=urlencode({**fields, "csrf": "0" * 32}), headers=post).status_code == 403
        assert alice.post(form.get("action"), content=urlencode(fields),
                          headers={**post, "Origin": "http://evil.example"}).status_code == 403
        r = alice.post(form.get("action"), content=urlencode(fields), headers=post)
        assert r.status_code == 303 and r.headers["location"] == origin.url("/ads.html")
        r = alice.get(origin.url("/ads.html"))
        assert r.content == routes["/ads.html"].body and r.headers["x-pagesieve"] == "unfiltered; reason=bypassed"
        assert bob.get(origin.url("/ads.html")).headers["x-pagesieve"].startswith("filtered;")
        assert alice.get(site[0].url("/ads.html")).headers["x-pagesieve"].startswith("filtered;")
        settings = alice.get("http://pagesieve.core.settings/").text
        assert "127.0.0.5" in settings  # stored as the settings page's per-site rules are


def test_the_control_adds_no_axe_violation(proxy, site):
    """Before the tests below: axe runs its own Playwright, which cannot start while theirs runs."""
    from tests.a11y.axe_run import Axe, missing

    why = missing()
    if why:
        pytest.skip(why)
    with client_for(proxy, "alice") as alice:
        html = alice.get(site[0].url("/ads.html")).text
    without = re.sub(r'<nav id="pagesieve-control".*?</nav>', "", html, flags=re.S)
    assert without != html
    with Axe() as axe:
        before = {v.rule for v in axe.violations(without)}
        after = {v.rule for v in axe.violations(html)}
    assert after <= before, after - before


# -- in Chromium -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser(proxy):
    sync_api = pytest.importorskip("playwright.sync_api")
    chromium = "/usr/bin/chromium"
    if not os.path.exists(chromium):
        pytest.skip("chromium is not installed (make setup installs Debian's chromium)")
    args = ["--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-gpu",
            "--disable-sync", "--disable-dev-shm-usage", "--proxy-bypass-list=<-loopback>"]
    if os.geteuid() == 0:
        args.append("--no-sandbox")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, headless=True, args=args,
                              proxy={"server": proxy.url, "username": "alice", "password": USERS["alice"]})
        yield b
        b.close()


def test_in_chromium_the_control_is_visible_and_show_original_shows_the_page_as_sent(browser, site):
    origin = site[0]
    page = browser.new_page(viewport={"width": 1000, "height": 700})
    try:
        response = page.goto(origin.url("/ads.html"))
        assert response.headers["x-pagesieve"].startswith("filtered;")
        nav = page.get_by_role("navigation", name="Filtered by pagesieve")
        assert nav.is_visible()
        box = nav.bounding_box()
        assert box["y"] <= 10 and box["height"] < 80  # one slim bar at the top (the body's margin above it)
        if SHOTS.parent.is_dir():
            SHOTS.mkdir(exist_ok=True)
            page.screenshot(path=str(SHOTS / "control-ads.png"))
        # The keyboard: the skip link, then the control's links in order.
        names = []
        for _ in range(5):
            page.keyboard.press("Tab")
            names.append(page.evaluate("document.activeElement.textContent"))
        assert names[0] == "Skip to main content" and names[1] == "Show original"
        assert names[2].startswith("What was removed (") and names[3:] == ["Settings", "Always show this site as sent"]
        page.get_by_role("link", name="Show original").click()
        page.wait_for_load_state()
        assert page.locator("#menu").count() == 1 and page.locator("#hidden-ad").count() == 1
        assert page.locator("#pagesieve-control").count() == 0
        # "What was removed" from a filtered page, read as a person reads it.
        page.goto(origin.url("/ads.html"))
        page.get_by_role("link", name=re.compile(r"What was removed")).click()
        page.wait_for_load_state()
        assert page.get_by_role("heading", name="What was removed", level=1).is_visible()
        if SHOTS.parent.is_dir():
            page.screenshot(path=str(SHOTS / "control-removed.png"), full_page=True)
    finally:
        page.close()


@pytest.mark.parametrize("path", ["/to-off", "/refresh-off"])
def test_in_chromium_a_site_cannot_send_itself_unfiltered(browser, site, path):
    origin = site[0]
    page = browser.new_page()
    try:
        page.goto(origin.url(path))
        page.wait_for_url(re.compile(r"/ads\.html\?pagesieve=off$"), timeout=30_000)
        page.wait_for_load_state()
        assert page.title() == CONFIRM_TITLE
        assert page.locator("#tracker").count() == 0 and page.locator("#menu").count() == 0
        if path == "/refresh-off" and SHOTS.parent.is_dir():
            page.screenshot(path=str(SHOTS / "control-as-sent-question.png"))
        page.get_by_role("link", name="Show the page as the site sent it").click()
        page.wait_for_load_state()
        assert page.locator("#menu").count() == 1  # a person's click does show it
    finally:
        page.close()


def test_the_token_never_reaches_a_site_in_the_referer(proxy, site):
    origin = site[0]
    with client_for(proxy, "alice") as alice:
        page = alice.get(origin.url("/ads.html"))
        shown = link(control_of(page.content)[0], "Show original")
        before = len(origin.seen)
        alice.get(origin.url("/image.png"), headers={"Referer": shown})  # what the page as sent then loads
    method, path, headers = origin.seen[before]
    referer = {k.lower(): v for k, v in headers.items()}["referer"]
    assert "pagesieve=off" not in referer and referer.endswith("/ads.html"), referer
