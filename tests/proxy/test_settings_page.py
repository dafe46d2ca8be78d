"""The settings page as a person uses it, through a real ``pagesieve run``.

Every declared user setting is on the page; bad input (a number that is not one, an address where
a site is asked for, a pasted book) is refused next to its field and nothing is saved; a pasted
address becomes the site shown as sent; Reset puts back one section, or everything. In Chromium:
the first screen at 1280x800 holds the person's choices and a Save button, the page with the
Advanced sections folded is under 2,000 px tall, axe-core finds no serious or critical rule folded
or unfolded, and at 200 % zoom (640 CSS px) nothing scrolls sideways.
"""

from __future__ import annotations

import os
from html import unescape
from pathlib import Path

import httpx
import lxml.html
import pytest

from pagesieve.core import settings as S
from pagesieve.engine.output import OutputSettings
from pagesieve.filters import FILTERS
from tests.proxy.conftest import AD_PAGE, SETTINGS, Origin, Route, browser_form, changed, post, start_proxy

pytestmark = pytest.mark.proxy

#: Where the Chromium test leaves its screenshots when set (they are looked at, not compared).
SHOTS = os.environ.get("PAGESIEVE_SHOTS")


def user_keys() -> set[str]:
    keys = {f"output.{d['name']}" for d in S.describe(OutputSettings) if d["scope"] == S.USER}
    for name, f in FILTERS.items():
        keys |= {f"filters.{name}.{d['name']}" for d in S.describe(f.Settings) if d["scope"] == S.USER}
    return keys


def field_names(page_html: str) -> set[str]:
    """The names of every control of the page's form (ticked or not)."""
    form = lxml.html.document_fromstring(page_html).forms[0]
    return {el.name for el in form.inputs if el.name}


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("settings-page")
    origin = Origin({"/page.html": Route(headers={"Content-Type": "text/html; charset=utf-8"},
                                         body=AD_PAGE.encode())}, host="127.0.0.3")
    proxy = start_proxy(tmp / "p")
    yield tmp, origin, proxy
    proxy.stop()
    origin.close()


@pytest.fixture
def client(setup):
    _, _, proxy = setup
    with httpx.Client(proxy=proxy.url, trust_env=False, timeout=60, follow_redirects=False) as c:
        yield c
        # every test starts from the defaults
        assert post(c, [*browser_form(c.get(SETTINGS).text), ("reset", "all")]).status_code == 303


def test_every_declared_user_setting_is_on_the_page(client):
    names = field_names(client.get(SETTINGS).text)
    keys = user_keys()
    assert len(keys) > 150 and keys - names == set()
    removed_links = {k for k in keys if k.startswith("filters.removed_links.")}
    assert len(removed_links) == 7 and removed_links <= names  # once left off: their group was "output"
    assert {"preset", "sites.as_sent", "chain.removed_links", "site.new.host"} <= names


def _field_error(page_html: str, key: str) -> tuple[str, bool]:
    doc = lxml.html.document_fromstring(page_html)
    fid = "f-" + "".join(c if c.isalnum() or c in "_-" else "-" for c in key)
    err = doc.get_element_by_id(fid + "-err")
    control = doc.get_element_by_id(fid)
    return err.text_content(), control.get("aria-invalid") == "true" and fid + "-err" in control.get(
        "aria-describedby", "")


@pytest.mark.parametrize("key, value, message", [
    ("filters.link_lists.ratio", "nan", "filters.link_lists.ratio = 'nan': expected a number from 0 to 100"),
    ("output.line_height", "inf", "output.line_height = 'inf': expected a number from 1.0 to 3.0"),
    ("output.text_size", "", "output.text_size = '': expected an integer from 50 to 300"),
    ("sites.as_sent", "news.example.org\nhttps://", "'https://': not a valid host name (type a site such as "
                                                   "example.org, or paste its address)"),
    ("sites.as_sent", "x" * 100_000, "100000 characters; at most 20000 are allowed"),
    ("filters.removed_links.label", "x" * 100_000, "filters.removed_links.label: 100000 characters; at most 200 "
                                                   "are allowed"),
    ("filters.segments.cue_phrases", "x" * 100_000, "filters.segments.cue_phrases entry 1 = 'xxxxxxxxxxxxxxxxxxxx"
                                                    "xxxxxxxxxxxxxxxxxxxx'...: 100000 characters: at most 100 are "
                                                    "allowed"),
    ("filters.segments.cue_phrases", "x" * 101, "filters.segments.cue_phrases entry 1 = 'xxxxxxxxxxxxxxxxxxxxxxxxxx"
                                                "xxxxxxxxxxxxxx'...: 101 characters: at most 100 are allowed"),
    ("filters.accessibility.skip_link_text", "x" * 100_000, "filters.accessibility.skip_link_text: 100000 "
                                                            "characters; at most 200 are allowed"),
])
def test_a_bad_value_is_refused_next_to_its_field_and_nothing_is_saved(setup, client, key, value, message):
    _, origin, _ = setup
    fields = browser_form(client.get(SETTINGS).text)
    # A good change goes with the bad one: it is not saved either.
    r = post(client, changed(fields, output__format="text", **{key.replace(".", "__"): value}))
    assert r.status_code == 400
    assert "Nothing was saved: 1 value to correct" in r.text
    text, marked = _field_error(r.text, key)
    assert text == message and "\n" not in text and marked
    assert message in unescape(lxml.html.document_fromstring(r.text).find_class("summary")[0].text_content())
    assert browser_form(client.get(SETTINGS).text) == fields
    assert client.get(origin.url("/page.html")).headers["content-type"].startswith("text/html")


def test_a_pasted_address_becomes_the_site_shown_as_sent(setup, client):
    _, origin, _ = setup
    assert client.get(origin.url("/page.html")).headers["x-pagesieve"].startswith("filtered; preset=declutter")
    fields = browser_form(client.get(SETTINGS).text)
    pasted = f"https://www.Example.org/news?id=3\n{origin.url('/page.html')}\n  bücher.de:8080  "
    r = post(client, changed(fields, sites__as_sent=pasted))
    assert r.status_code == 303, r.text[:2000]
    page = client.get(SETTINGS + "?saved=1").text
    doc = lxml.html.document_fromstring(page)
    assert doc.get_element_by_id("f-sites-as_sent").text_content().split("\n") == [
        "127.0.0.3", "www.example.org", "xn--bcher-kva.de"]  # kept in order of name
    assert client.get(origin.url("/page.html")).headers["x-pagesieve"] == "unfiltered; reason=bypassed"


def test_as_sent_for_every_site(setup, client):
    _, origin, _ = setup
    fields = browser_form(client.get(SETTINGS).text)
    assert ("preset", "declutter") in fields  # the value in force is the one checked
    assert post(client, changed(fields, preset="as-sent")).status_code == 303
    assert client.get(origin.url("/page.html")).headers["x-pagesieve"] == "unfiltered; reason=bypassed"
    assert ("preset", "as-sent") in browser_form(client.get(SETTINGS).text)


def test_changes_are_marked_and_reset_by_section_or_all(setup, client):
    _, origin, _ = setup
    fields = browser_form(client.get(SETTINGS).text)
    assert "Everything is at the defaults." in client.get(SETTINGS).text
    assert post(client, changed(fields, filters__link_lists__ratio="0.5", filters__link_lists__min_links="3",
                                output__format="text")).status_code == 303
    page = client.get(SETTINGS).text
    doc = lxml.html.document_fromstring(page)
    summary = doc.get_element_by_id("s-filter-link_lists").find("summary").text_content()
    assert "2 changed" in summary
    ratio = doc.get_element_by_id("f-filters-link_lists-ratio").getparent()
    assert "changed" in ratio.text_content() and "Default: 0.35." in ratio.text_content()
    assert "3 settings differ from the defaults" in page
    # Reset one section: its values go back, the others stay.
    fields = browser_form(page)
    assert post(client, [*fields, ("reset", "filter-link_lists")]).status_code == 303
    fields = browser_form(client.get(SETTINGS).text)
    assert ("filters.link_lists.ratio", "0.35") in fields and ("output.format", "text") in fields
    assert client.get(origin.url("/page.html")).headers["content-type"].startswith("text/plain")
    # Reset everything.
    r = post(client, [*fields, ("reset", "all")])
    assert r.status_code == 303 and r.headers["location"] == "/?saved=reset"
    page = client.get(SETTINGS + "?saved=reset").text
    assert "Everything is back to the defaults." in page and ("output.format", "html") in browser_form(page)
    assert client.get(origin.url("/page.html")).headers["content-type"].startswith("text/html")


def test_the_reading_look_reaches_the_reader_view(setup, client):
    _, origin, _ = setup
    fields = browser_form(client.get(SETTINGS).text)
    assert post(client, changed(fields, preset="reader", output__text_size="140", output__colors="dark")).status_code == 303
    r = client.get(origin.url("/page.html"))
    assert r.headers["x-pagesieve"].startswith("filtered; preset=reader")
    css = lxml.html.document_fromstring(r.content).find_class("pagesieve-reader-look")[0].text
    assert "html{font-size:140% !important}" in css and "#121212" in css
    # "Reset these choices": the first screen's choices go back; an Advanced change and the sites stay.
    fields = changed(browser_form(client.get(SETTINGS).text), sites__as_sent="example.org",
                     filters__link_lists__ratio="0.5")
    assert post(client, fields).status_code == 303
    assert post(client, [*browser_form(client.get(SETTINGS).text), ("reset", "choices")]).status_code == 303
    fields = browser_form(client.get(SETTINGS).text)
    assert ("preset", "declutter") in fields and ("output.text_size", "100") in fields
    assert ("output.colors", "auto") in fields and ("sites.as_sent", "example.org") in fields
    assert ("filters.link_lists.ratio", "0.5") in fields


def test_the_page_in_chromium(setup):
    """First screen, height, axe folded and unfolded (and in dark mode), 200 % zoom."""
    sync_api = pytest.importorskip("playwright.sync_api")
    from tests.a11y.axe_run import _RUN, AXE_JS, GATED, TAGS, missing
    from tests.proxy.test_browser import CHROMIUM, launch
    if not os.path.exists(CHROMIUM) or missing():
        pytest.skip(f"chromium or axe-core not available: {missing()}")
    _, _, proxy = setup
    with sync_api.sync_playwright() as p:
        browser = launch(p, proxy.url)
        context = browser.new_context(bypass_csp=True, viewport={"width": 1280, "height": 800})  # to inject axe
        page = context.new_page()
        page.goto(SETTINGS)
        # The first screen: every choice and a Save button, without scrolling.
        first = [page.get_by_role("button", name="Save settings").first,
                 page.get_by_role("radio", name="Decluttered"), page.get_by_role("radio", name="Reader view"),
                 page.get_by_role("radio", name="As sent"), page.get_by_role("radio", name="Plain text"),
                 page.get_by_label("Remove pictures", exact=True), page.get_by_label("Remove pictures that are links"),
                 page.get_by_label("List removed links at the end"), page.get_by_label("Text size (%)"),
                 page.get_by_label("Line spacing"), page.get_by_label("Line width (characters)"),
                 page.get_by_role("radio", name="Sepia"), page.get_by_role("radio", name="High contrast"),
                 page.get_by_label("Sites shown as sent")]
        for locator in first:
            box = locator.bounding_box()
            assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 800, (locator, box)
        assert page.get_by_role("radio", name="Decluttered").is_checked()
        height = page.evaluate("document.documentElement.scrollHeight")
        assert height < 2000, f"{height} px with the Advanced sections folded"
        if SHOTS:
            Path(SHOTS).mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(Path(SHOTS) / "settings-first-screen.png"))
            page.screenshot(path=str(Path(SHOTS) / "settings-folded-full.png"), full_page=True)
        page.add_script_tag(path=str(AXE_JS))
        for state in ("folded", "unfolded"):
            if state == "unfolded":
                page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
                assert page.locator("details:not([open])").count() == 0
            found = page.evaluate(_RUN, list(TAGS))
            assert [v for v in found if v["impact"] in GATED] == [], (state, found)
            for width in (1280, 640):
                page.set_viewport_size({"width": width, "height": 800})
                overflow = page.evaluate(
                    "document.documentElement.scrollWidth - document.documentElement.clientWidth")
                assert overflow <= 0, f"{state}: sideways scroll of {overflow} px at {width} CSS px"
            page.set_viewport_size({"width": 1280, "height": 800})
        # The page follows the device's dark mode, with the same contrast.
        page.emulate_media(color_scheme="dark")
        assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(18, 18, 18)"
        found = page.evaluate(_RUN, list(TAGS))
        assert [v for v in found if v["impact"] in GATED] == [], ("dark", found)
        if SHOTS:
            page.evaluate("document.querySelectorAll('details').forEach(d => d.open = false)")
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=str(Path(SHOTS) / "settings-first-screen-dark.png"))
        page.emulate_media(color_scheme="light")
        if SHOTS:
            page.evaluate("document.querySelectorAll('details').forEach(d => d.open = d.id === 's-filter-link_lists')")
            section = page.locator("#s-filter-link_lists")
            section.scroll_into_view_if_needed()
            section.screenshot(path=str(Path(SHOTS) / "settings-advanced-link-lists.png"))
            page.set_viewport_size({"width": 640, "height": 800})
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=str(Path(SHOTS) / "settings-zoom-200.png"))
        browser.close()
