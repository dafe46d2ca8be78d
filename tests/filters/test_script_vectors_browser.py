"""With scripts ignored, no script runs: a page of script vectors (the usual XSS filter-evasion
list) in headless Chromium, before and after filtering.

Every vector, if it runs, requests ``/fired/<id>`` from the page's origin; Playwright answers
the page and records those requests (no server, no network). The unfiltered page must fire
many of them (so the test can fail); the filtered page — with and without the
Content-Security-Policy the chain asks for — none. The policy alone, on the unfiltered page,
stops them too: whatever the filter misses cannot run.
"""

from __future__ import annotations

import os
import shutil

import lxml.html
import pytest

from pagesieve.engine import config as C
from tests.conftest import run_filter

pytestmark = pytest.mark.slow  # runs each page in headless Chromium

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ORIGIN = "http://vectors.test"
F = ORIGIN + "/fired/"

#: (id, markup): each would request /fired/<id> when its script runs.
VECTORS = [
    ("script", "<script>fetch('/fired/script')</script>"),
    ("svg-script", "<svg><script>fetch('/fired/svg-script')</script></svg>"),
    ("img-onerror", "<img src=/missing.png onerror=\"fetch('/fired/img-onerror')\">"),
    ("img-ONERROR", "<IMG SRC=/missing2.png ONERROR=\"fetch('/fired/img-ONERROR')\">"),
    ("svg-onload", "<svg onload=\"fetch('/fired/svg-onload')\"></svg>"),
    ("body-onload", ""),  # on the <body> tag below
    ("details-ontoggle", "<details open ontoggle=\"fetch('/fired/details-ontoggle')\"><summary>s</summary>d</details>"),
    ("video-source-onerror", "<video><source src=/missing.mp4 onerror=\"fetch('/fired/video-source-onerror')\"></video>"),
    ("input-autofocus", "<input autofocus onfocus=\"fetch('/fired/input-autofocus')\">"),
    ("style-onload", "<style onload=\"fetch('/fired/style-onload')\">p{}</style>"),
    ("svg-animate-onbegin", "<svg><animate onbegin=\"fetch('/fired/svg-animate-onbegin')\" attributeName=x dur=1s />"
                            "</svg>"),
    ("svg-set-onbegin", "<svg><set attributeName=x to=1 onbegin=\"fetch('/fired/svg-set-onbegin')\" /></svg>"),
    ("iframe-srcdoc", "<iframe srcdoc=\"<script>parent.fetch('/fired/iframe-srcdoc')</script>\"></iframe>"),
    ("iframe-js", "<iframe src=\"javascript:parent.fetch('/fired/iframe-js')\"></iframe>"),
    ("iframe-data", f"<iframe src=\"data:text/html,<script>fetch('{F}iframe-data')</script>\"></iframe>"),
    ("object-data", f"<object data=\"data:text/html,<script>fetch('{F}object-data')</script>\"></object>"),
    ("embed-data", f"<embed src=\"data:text/html,<script>fetch('{F}embed-data')</script>\">"),
    ("embed-svg", "<embed src=\"data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg' "
                  f"onload=&quot;fetch('{F}embed-svg')&quot;/>\">"),
    ("meta-refresh", "<meta http-equiv=refresh content=\"0;url=javascript:fetch('/fired/meta-refresh')\">"),
    ("noscript-img", "<noscript><img src=/missing3.png onerror=\"fetch('/fired/noscript-img')\"></noscript>"),
    ("marquee-onstart", "<marquee onstart=\"fetch('/fired/marquee-onstart')\">m</marquee>"),
]
#: (id, markup, selector to click): vectors that need a click.
CLICKS = [
    ("a-href", "<a id=c-a-href href=\"javascript:fetch('/fired/a-href')\">link</a>", "#c-a-href"),
    ("a-obfuscated", "<a id=c-a-obf href=\" &#x09;jav&#x0A;asCRipt:fetch('/fired/a-obfuscated')\">link</a>",
     "#c-a-obf"),
    ("form-action", "<form action=\"javascript:fetch('/fired/form-action')\"><button id=c-form>go</button></form>",
     "#c-form"),
    ("button-formaction", "<form action=/ok><button id=c-fa formaction=\"javascript:fetch('/fired/button-formaction')\">"
                          "go</button></form>", "#c-fa"),
    ("svg-a", "<svg width=200 height=40><a href=\"javascript:fetch('/fired/svg-a')\"><text id=c-svga x=5 y=20>"
              "svg link</text></a></svg>", "#c-svga"),
    ("svg-animate-href", "<svg width=200 height=40><a><animate attributeName=href "
                         "values=\"javascript:fetch('/fired/svg-animate-href')\" /><text id=c-anim x=5 y=20>anim link"
                         "</text></a></svg>", "#c-anim"),
    ("div-onclick", "<div id=c-div onclick=\"fetch('/fired/div-onclick')\">click me</div>", "#c-div"),
    ("area-href", "<img src=/map.png usemap=#m width=50 height=50><map name=m><area id=c-area shape=rect "
                  "coords=0,0,50,50 href=\"javascript:fetch('/fired/area-href')\"></map>", "#c-area"),
]
ARTICLE = "<p>" + "The council voted to rebuild the old harbour wall after the winter storms. " * 10 + "</p>"


def vector_page(extra: str = "") -> str:
    body = "\n".join(m for _, m in VECTORS) + "\n" + "\n".join(m for _, m, _ in CLICKS)
    return (f"<!doctype html><html><head><meta charset=utf-8><title>Vectors</title></head>"
            f"<body onload=\"fetch('/fired/body-onload')\"><main><h1>Harbour</h1>{ARTICLE}</main>{body}{extra}"
            f"</body></html>")


def filtered(html: str, preset: str) -> tuple[str, str | None]:
    result = C.build_chain(C.load().resolve(preset)).process(html.encode(), url=ORIGIN + "/page")
    return result.body.decode(result.encoding), result.content_security_policy


@pytest.fixture(scope="module")
def chromium():
    sync_api = pytest.importorskip("playwright.sync_api")
    if not os.path.exists(CHROMIUM):
        pytest.skip("chromium is not installed (make setup installs Debian's chromium)")
    args = ["--disable-background-networking", "--disable-component-update", "--no-first-run",
            "--disable-dev-shm-usage"] + (["--no-sandbox"] if os.geteuid() == 0 else [])
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=args)
        yield browser
        browser.close()


def fired(browser, html: str, csp: str | None) -> set[str]:
    """The vectors that ran when ``html`` was loaded (and each clickable one clicked)."""
    hits: set[str] = set()
    context = browser.new_context()

    def answer(route):
        url = route.request.url
        if "/fired/" in url:
            hits.add(url.rsplit("/fired/", 1)[1])
            return route.fulfill(status=204)
        if url.rstrip("/") == ORIGIN + "/page" or url.startswith(ORIGIN + "/page?"):
            headers = {"content-type": "text/html; charset=utf-8"}
            if csp:
                headers["content-security-policy"] = csp
            return route.fulfill(status=200, headers=headers, body=html)
        return route.fulfill(status=404, body="")

    context.route("**/*", answer)
    try:
        page = context.new_page()
        page.goto(ORIGIN + "/page", wait_until="load")
        page.wait_for_timeout(1000)  # animations begin, media errors, meta refresh
        for _, _, selector in CLICKS:
            page.goto(ORIGIN + "/page", wait_until="load")
            target = page.locator(selector)
            if target.count():
                try:
                    target.first.click(timeout=2000, force=True)
                except Exception:  # noqa: BLE001 - not clickable after filtering (gone or hidden): nothing to run
                    pass
                page.wait_for_timeout(200)
    finally:
        context.close()
    return hits


def test_the_unfiltered_page_runs_its_vectors(chromium):
    """The vectors are real: without pagesieve, most of them run in Chromium."""
    ran = fired(chromium, vector_page(), None)
    assert len(ran) >= 15, sorted(ran)
    assert {"script", "img-onerror", "a-href", "div-onclick", "iframe-srcdoc"} <= ran


def test_the_policy_alone_stops_every_vector(chromium):
    """What a filter misses cannot run: the page as it was, served with the chain's policy."""
    _, csp = filtered(vector_page(), "declutter")
    assert csp and "script-src 'none'" in csp
    assert fired(chromium, vector_page(), csp) == set()


@pytest.mark.parametrize("preset", ["declutter", "reader"])
@pytest.mark.parametrize("with_policy", [False, True], ids=["html-alone", "with-policy"])
def test_no_vector_runs_after_filtering(chromium, preset, with_policy):
    html, csp = filtered(vector_page(), preset)
    assert "harbour wall" in html  # the content is still there
    assert fired(chromium, html, csp if with_policy else None) == set()


def test_link_texts_stay_when_their_script_urls_go():
    page, state, _ = run_filter("ignore", vector_page(), iframes=False, embeds=False, meta=False)
    html = lxml.html.tostring(page.root, encoding="unicode")
    assert "javascript:" not in html.lower().replace("\t", "").replace("\n", "")
    assert " onerror=" not in html.lower() and "srcdoc" not in html.lower() and "data:text/html" not in html
    assert page.root.get_element_by_id("c-a-href").text == "link" and "href" not in page.root.get_element_by_id("c-a-href").attrib
    assert page.root.get_element_by_id("c-svga").text == "svg link"
    assert page.root.get_element_by_id("c-div").text == "click me"
    removed = next(r for r in state.record if r.get("reason") == "what would run script")["measured"]["removed"]  # --explain says what went
    assert removed["event handler"] >= 10 and removed["script URL"] >= 6 and removed["srcdoc"] == 1
    assert removed["script refresh"] == 1 and removed["script animation"] == 1
    assert state.content_security_policy == "script-src 'none'"


def test_images_keep_their_data_urls_and_nothing_is_touched_with_scripts_kept():
    html = ('<p><img id=i src="data:image/svg+xml,<svg/>" onerror="x()"><a id=a href="javascript:x()">t</a></p>')
    page, state, _ = run_filter("ignore", html, non_link_images=False)
    assert page.root.get_element_by_id("i").get("onerror") is None
    assert page.root.get_element_by_id("i").get("src") == "data:image/svg+xml,<svg/>"
    page, state, _ = run_filter("ignore", html, scripts=False, non_link_images=False)
    assert page.root.get_element_by_id("a").get("href") == "javascript:x()"
    assert page.root.get_element_by_id("i").get("onerror") == "x()"
    assert state.content_security_policy is None
