"""Headless Chromium (Debian's /usr/bin/chromium, driven by Playwright) browsing through the proxy."""

from __future__ import annotations

import os
import shutil

import pytest

from tests.proxy.conftest import Origin, Route

pytestmark = pytest.mark.proxy

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def launch(playwright, proxy_url: str, username: str | None = None, password: str | None = None):
    args = ["--disable-background-networking", "--disable-component-update", "--no-first-run",
            "--disable-dev-shm-usage",
            # Chromium sends loopback requests around a proxy unless told otherwise.
            "--proxy-bypass-list=<-loopback>"]
    if os.geteuid() == 0:
        args.append("--no-sandbox")
    proxy = {"server": proxy_url}
    if username is not None:
        proxy.update(username=username, password=password)
    return playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=args, proxy=proxy)


@pytest.fixture(scope="module")
def browser(proxy):
    sync_api = pytest.importorskip("playwright.sync_api")
    if not os.path.exists(CHROMIUM):
        pytest.skip("chromium is not installed (make setup installs Debian's chromium)")
    with sync_api.sync_playwright() as p:
        b = launch(p, proxy.url)
        yield b
        b.close()


def test_rendered_page_lacks_removed_elements(browser, routes):
    other = Origin(routes, host="127.0.0.3")  # not 127.0.0.1: EasyList's generichide exception
    try:
        page = browser.new_page()
        response = page.goto(other.url("/ads.html"))
        assert response.headers["x-pagesieve"].startswith("filtered; preset=declutter")
        for gone in ("#tracker", "#adframe", "#hidden-ad", "#menu", "#spacer"):
            assert page.locator(gone).count() == 0, gone
        assert page.get_by_role("heading", name="Harbour wall to be rebuilt").is_visible()
        assert page.locator("main").count() == 1
        # The skip link is the first thing the keyboard reaches, and it leads into <main>.
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.textContent") == "Skip to main content"
        page.keyboard.press("Enter")
        assert page.evaluate("document.activeElement.tagName") == "MAIN"
        # The same page unfiltered (the control's one-page bypass) still has them: the proxy made the difference.
        page.get_by_role("link", name="Show original").click()
        page.wait_for_load_state()
        assert page.locator("#menu").count() == 1 and page.locator("#hidden-ad").count() == 1
        page.close()
    finally:
        other.close()


RAN = "document.title = 'SCRIPT RAN'"
STORY = "<div id=story><h1>Still here</h1>" + "<p>A sentence a person came to read on this page.</p>" * 20 + "</div>"


def _script_pages() -> dict[str, Route]:
    """Pages that once left the proxy with their scripts (or a live handler) although it removes scripts."""
    html = {"Content-Type": "text/html; charset=utf-8"}

    def page(body: str, head: str = "") -> bytes:
        return f"<!doctype html><html><head><title>Quiet</title>{head}</head><body>{body}</body></html>".encode()

    script = f"<script>{RAN}</script>"
    return {
        # the loss guard undoes ignore (nearly all text is an object's fallback): not its script removal
        "/object.html": Route(headers=html, body=page(f"<object>{STORY}</object>{script}")),
        # an attribute name lxml cannot look up made ignore fail
        "/brace.html": Route(headers=html, body=page(f'<i {{x="javascript:{RAN}">i</i>{STORY}{script}')),
        # markup in SVG's <style>: text to libxml2, a live <img onerror> to a browser
        "/svg-style.html": Route(headers=html, body=page(f'{STORY}<svg><style><img src=/missing.png onerror="{RAN}">'
                                                         f"</style></svg>")),
        # a NUL byte made a text/html page "not HTML"
        "/nul.html": Route(headers=html, body=page(f"<p>\x00</p>{STORY}{script}")),
        # nested past the parser's depth limit: served unfiltered, under the policy
        "/deep.html": Route(headers=html, body=page("<div>" * 5000 + STORY + script)),
        # slower than the time limit: served unfiltered, under the policy
        "/slow.html": Route(headers=html, body=page(f"{STORY}{script}", '<meta name="pagesieve-test" content="slow">')),
    }


@pytest.mark.parametrize("path, verdict", [
    ("/object.html", "filtered;"), ("/brace.html", "filtered;"), ("/svg-style.html", "filtered;"),
    ("/nul.html", "filtered;"), ("/deep.html", "unfiltered; reason=unparsable"),
    ("/slow.html", "unfiltered; reason=timeout"),
])
def test_no_script_runs_through_a_failure(browser, path, verdict):
    origin = Origin(_script_pages())
    try:
        page = browser.new_page()
        response = page.goto(origin.url(path), wait_until="load")
        page.wait_for_timeout(300)  # an image's error handler runs after load
        assert response.headers["x-pagesieve"].startswith(verdict), response.headers["x-pagesieve"]
        assert page.title() != "SCRIPT RAN"
        assert "A sentence a person came to read" in page.inner_text("body")
        page.close()
    finally:
        origin.close()


@pytest.mark.parametrize("codec", ["utf-16-be", "utf-16-le"])
def test_a_utf16_page_reads_as_it_did(browser, origin, codec):
    """A page sent in UTF-16 with its byte order mark went out without the mark and labelled
    "utf-16-be", a name browsers do not know: Chromium read it in its default encoding and showed the
    markup as text, the page's words lost among it."""
    page = browser.new_page()
    response = page.goto(origin.url(f"/charset/{codec}.html"))
    assert response.headers["x-pagesieve"].startswith("filtered;")
    assert "\u00dcber zw\u00f6lf Stra\u00dfen." in page.evaluate("document.body.innerText")
    assert "<" not in page.evaluate("document.body.innerText")
    page.close()
