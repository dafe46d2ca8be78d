"""Per-user settings through a real proxy with authentication: two users, the settings page, restarts."""

from __future__ import annotations

import os
import re

import httpx
import lxml.html
import pytest

from tests.proxy.conftest import (
    SETTINGS,
    USERS,
    Origin,
    auth_config,
    browser_form,
    changed,
    client_for,
    post,
    start_proxy,
)

pytestmark = pytest.mark.proxy

@pytest.fixture(scope="module")
def setup(tmp_path_factory, routes):
    tmp = tmp_path_factory.mktemp("users")
    config = auth_config(tmp, USERS)
    origin = Origin(routes, host="127.0.0.3")  # outside EasyList's loopback exceptions
    proxy = start_proxy(tmp / "p", config=config)
    yield tmp, config, origin, proxy
    proxy.stop()
    origin.close()


def test_users_command_wrote_bcrypt_htpasswd(setup):
    tmp, config, _, _ = setup
    lines = (tmp / "htpasswd").read_text().splitlines()
    assert [l.split(":")[0] for l in lines] == ["alice", "bob"]
    assert all(re.match(r"^\w+:\$2[aby]\$12\$", l) for l in lines)
    assert oct((tmp / "htpasswd").stat().st_mode & 0o777) == "0o600"


def test_no_or_wrong_credentials_get_407(setup):
    _, _, origin, proxy = setup
    with client_for(proxy, None) as c:
        assert c.get(origin.url("/ads.html")).status_code == 407
        assert c.get(SETTINGS).status_code == 407
    bad = proxy.url.replace("http://", "http://alice:wrong-password@")
    with httpx.Client(proxy=bad, trust_env=False) as c:
        assert c.get(SETTINGS).status_code == 407


def test_two_users_differ_and_cannot_touch_each_other(setup):
    _, _, origin, proxy = setup
    with client_for(proxy, "alice") as a, client_for(proxy, "bob") as b:
        page = a.get(SETTINGS)
        assert page.status_code == 200 and page.headers["x-pagesieve"] == "unfiltered; reason=own-page"
        assert "pagesieve settings for alice" in page.text
        assert page.headers["content-security-policy"].startswith("default-src 'none'")
        fields = browser_form(page.text)
        token = dict(fields)["csrf"]
        # A bad value: shown back with its error, nothing saved.
        r = post(a, changed(fields, filters__link_lists__ratio="-1"))
        assert r.status_code == 400 and "Nothing was saved" in r.text
        assert "filters.link_lists.ratio = -1.0: expected a number from 0 to 100" in r.text
        assert 'aria-invalid=true' in r.text
        assert a.get(origin.url("/ads.html")).headers["content-type"].startswith("text/html")
        # Alice: no link-list remover, text output.
        r = post(a, changed(fields, drop=("chain.link_lists",), output__format="text"))
        assert r.status_code == 303 and r.headers["location"] == "/?saved=1"
        assert "Settings saved." in a.get(SETTINGS + "?saved=1").text
        ra, rb = a.get(origin.url("/ads.html")), b.get(origin.url("/ads.html"))
        assert ra.headers["content-type"].startswith("text/plain")
        assert "Harbour wall to be rebuilt" in ra.text and "Weather" in ra.text  # the menu stayed
        assert rb.headers["content-type"].startswith("text/html")
        assert lxml.html.document_fromstring(rb.content).get_element_by_id("menu", None) is None
        # Alice cannot read or write Bob's profile.
        assert a.get(SETTINGS + "?user=bob").status_code == 403
        assert post(a, changed(fields, user="bob", output__format="text")).status_code == 403
        assert post(a, changed(fields, drop=("csrf",))).status_code == 403
        assert post(a, changed(fields, csrf="0" * 64)).status_code == 403
        bob_fields = browser_form(b.get(SETTINGS).text)
        assert dict(bob_fields)["csrf"] != token
        # Bob's token does not work for Alice either (it is bound to the user).
        assert post(a, changed(fields, csrf=dict(bob_fields)["csrf"])).status_code == 403
        # A header cannot claim an identity.
        r = a.get(SETTINGS, headers={"X-Pagesieve-User": "bob", "X-Forwarded-User": "bob"})
        assert "pagesieve settings for alice" in r.text
        # A cross-site post (another Origin) is refused even with the right token.
        r = post(a, fields, {"Origin": "http://evil.example"})
        assert r.status_code == 403
        # Bob still has the defaults.
        assert b.get(origin.url("/ads.html")).headers["content-type"].startswith("text/html")
        assert ("output.format", "html") in bob_fields


def test_per_site_rule(setup):
    _, _, origin, proxy = setup
    with client_for(proxy, "bob") as b:
        fields = browser_form(b.get(SETTINGS).text)
        r = post(b, changed(fields, site__new__host="not a host", site__new__preset="reader"))
        assert r.status_code == 400 and "not a valid host name" in r.text
        r = post(b, changed(fields, site__new__host="127.0.0.3", site__new__preset="reader"))
        assert r.status_code == 303
        assert b.get(origin.url("/ads.html")).headers["x-pagesieve"].startswith("filtered; preset=reader")
        fields = browser_form(b.get(SETTINGS).text)
        assert ("site.0.host", "127.0.0.3") in fields and ("site.0.preset", "reader") in fields
        assert post(b, changed(fields, sites__as_sent="127.0.0.3")).status_code == 303
        assert b.get(origin.url("/ads.html")).headers["x-pagesieve"] == "unfiltered; reason=bypassed"
        with client_for(proxy, "alice") as a:  # Bob's rule is Bob's
            assert a.get(origin.url("/ads.html")).headers["x-pagesieve"].startswith("filtered; preset=declutter")
        fields = browser_form(b.get(SETTINGS).text)
        assert post(b, changed(fields, site__0__remove="on", sites__as_sent="")).status_code == 303
        assert b.get(origin.url("/ads.html")).headers["x-pagesieve"].startswith("filtered; preset=declutter")


def test_settings_survive_a_restart(setup):
    tmp, config, origin, proxy = setup
    proxy.stop()
    again = start_proxy(tmp / "p2", config=config)
    try:
        with client_for(again, "alice") as a, client_for(again, "bob") as b:
            assert a.get(origin.url("/ads.html")).headers["content-type"].startswith("text/plain")
            assert b.get(origin.url("/ads.html")).headers["content-type"].startswith("text/html")
            page = a.get(SETTINGS).text
            assert ("output.format", "text") in browser_form(page)
            assert "chain.link_lists" not in dict(browser_form(page))
    finally:
        again.stop()


def test_settings_page_in_chromium(setup, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    from tests.proxy.test_browser import CHROMIUM, launch
    if not os.path.exists(CHROMIUM):
        pytest.skip("chromium is not installed")
    tmp, config, origin, _ = setup
    proxy = start_proxy(tmp / "p3", config=config)
    try:
        with sync_api.sync_playwright() as p:
            browser = launch(p, proxy.url, "bob", USERS["bob"])
            page = browser.new_page()
            page.goto(SETTINGS)
            assert page.get_by_role("heading", name="pagesieve settings for bob").is_visible()
            page.locator("#s-chain > summary").click()  # unfold the section
            page.get_by_label("Lists of links", exact=True).uncheck()
            page.get_by_role("radio", name="Reader view").check()
            with page.expect_navigation():
                page.get_by_role("button", name="Save settings").first.click()
            assert page.url.endswith("/?saved=1"), page.content()[:3000]
            assert page.get_by_role("status").inner_text() == "Settings saved."
            response = page.goto(origin.url("/ads.html"))
            assert response.headers["x-pagesieve"].startswith("filtered; preset=reader")
            assert page.locator("#menu").count() == 0 and page.get_by_text("Harbour wall to be rebuilt").count() == 1
            browser.close()
    finally:
        proxy.stop()


def test_settings_page_reflows_and_passes_axe_with_an_error_shown(setup, tmp_path):
    """Controls fit their kind, no sideways scroll from 1000 down to 320 CSS px, and
    axe-core finds no serious or critical violation on the page — also when it shows an error."""
    sync_api = pytest.importorskip("playwright.sync_api")
    from tests.a11y.axe_run import _RUN, AXE_JS, GATED, TAGS, missing
    from tests.proxy.test_browser import CHROMIUM, launch
    if not os.path.exists(CHROMIUM) or missing():
        pytest.skip(f"chromium or axe-core not available: {missing()}")
    tmp, config, _, _ = setup
    proxy = start_proxy(tmp / "p4", config=config)  # the module's proxy may be stopped (restart test)
    try:
        _reflow_and_axe(sync_api, proxy, _RUN, AXE_JS, GATED, TAGS, launch)
    finally:
        proxy.stop()


def _reflow_and_axe(sync_api, proxy, _RUN, AXE_JS, GATED, TAGS, launch) -> None:
    with sync_api.sync_playwright() as p:
        browser = launch(p, proxy.url, "alice", USERS["alice"])
        context = browser.new_context(bypass_csp=True)  # to inject axe; the page itself runs no script
        page = context.new_page()
        page.goto(SETTINGS)
        assert page.get_by_role("radiogroup", name="Pages arrive as").is_visible()
        assert page.get_by_role("radio", name="Plain text", exact=True).count() == 1
        assert page.locator("#f-filters-link_lists-ratio[type=number][min=\"0\"][max=\"100\"]").count() == 1
        page.get_by_label("Sites shown as sent").fill("not a host!")
        with page.expect_navigation():
            page.get_by_role("button", name="Save settings").first.click()
        assert page.get_by_role("alert").is_visible()
        assert page.locator("#f-sites-as_sent[aria-invalid=true]").count() == 1
        for width in (1000, 640, 320):
            page.set_viewport_size({"width": width, "height": 800})
            overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
            assert overflow <= 0, f"sideways scroll of {overflow} px at {width} CSS px"
        page.add_script_tag(path=str(AXE_JS))
        found = page.evaluate(_RUN, list(TAGS))
        serious = [v for v in found if v["impact"] in GATED]
        assert serious == [], serious
        browser.close()
