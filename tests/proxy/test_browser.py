"""Headless Chromium (Debian's /usr/bin/chromium, driven by Playwright) browsing through the proxy."""

from __future__ import annotations

import os
import shutil

import pytest

from tests.proxy.conftest import Origin

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
