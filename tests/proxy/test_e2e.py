"""A real ``pagesieve run`` process between a real origin server and a real HTTP client (httpx)."""

from __future__ import annotations

import gzip
import re
import time
import zlib

import brotli
import httpx
import lxml.html
import pytest
import zstandard

from tests.proxy.conftest import MAX_BODY, TIMEOUT, Origin

pytestmark = pytest.mark.proxy


@pytest.fixture(scope="module")
def client(proxy):
    with httpx.Client(proxy=proxy.url, trust_env=False, timeout=30) as c:
        yield c


def raw(client, url: str, method: str = "GET", **kw) -> tuple[httpx.Response, bytes]:
    """The response and its body bytes exactly as they came (no decompression)."""
    with client.stream(method, url, **kw) as r:
        return r, b"".join(r.iter_raw())


def doc(body: bytes):
    return lxml.html.document_fromstring(body)


def test_corpus_pages_are_filtered(client, origin, routes):
    paths = [p for p in routes if p.startswith("/corpus/")]
    assert len(paths) >= 10
    for path in paths:
        r = client.get(origin.url(path))
        assert r.status_code == 200
        assert r.headers["x-pagesieve"].startswith("filtered; preset=declutter; ms="), r.headers["x-pagesieve"]
        assert r.headers["content-type"] == "text/html; charset=utf-8"
        assert int(r.headers["content-length"]) == len(r.content)
        original = routes[path].body
        assert b"<script" in original.lower()
        assert doc(r.content).find(".//script") is None  # the ignore filter ran
        assert len(r.content) < len(original)


def test_ads_link_lists_empty_tables_removed(client, routes):
    # EasyList turns generic element hiding off on 127.0.0.1 and localhost (@@://127.0.0.1$generichide),
    # so this page comes from another loopback address, like a page from any site.
    other = Origin(routes, host="127.0.0.3")
    try:
        r = client.get(other.url("/ads.html"))
    finally:
        other.close()
    page = doc(r.content)
    for gone in ("tracker", "adframe", "hidden-ad", "menu", "spacer"):
        assert page.get_element_by_id(gone, None) is None, gone
    assert "rebuild the old harbour wall" in r.text
    assert page.find(".//main") is not None  # the accessibility step ran
    links = [a.get("href") for a in page.iter("a")]
    assert "/a" in links  # the removed menu's links are listed at the end


@pytest.mark.parametrize("path, ctype", [
    ("/image.png", "image/png"), ("/style.css", "text/css"), ("/app.js", "application/javascript"),
    ("/data.json", "application/json"), ("/download.bin", "application/octet-stream"),
    ("/xhtml.xhtml", "application/xhtml+xml"),
])
def test_non_html_passes_byte_for_byte(client, origin, routes, path, ctype):
    r, body = raw(client, origin.url(path))
    assert body == routes[path].body
    assert r.headers["content-type"] == ctype
    assert r.headers["x-pagesieve"] == "unfiltered; reason=not-html"


@pytest.mark.parametrize("coding, decode", [
    ("gzip", gzip.decompress), ("br", brotli.decompress),
    ("zstd", lambda b: zstandard.ZstdDecompressor().decompressobj().decompress(b)),
    ("deflate", zlib.decompress),
])
def test_compressed_bodies_are_decoded_and_reencoded(client, origin, coding, decode):
    r, body = raw(client, origin.url(f"/enc/{coding}.html"), headers={"Accept-Encoding": coding})
    assert r.headers["content-encoding"] == coding
    assert r.headers["x-pagesieve"].startswith("filtered;")
    assert int(r.headers["content-length"]) == len(body)
    html = decode(body)
    assert b"A page sent compressed." in html and b"var x = 1" not in html


def test_undecodable_body_is_served_as_it_came(client, origin, routes):
    r, body = raw(client, origin.url("/enc/broken-gzip.html"))
    assert body == routes["/enc/broken-gzip.html"].body
    assert r.headers["x-pagesieve"] == "unfiltered; reason=error"


@pytest.mark.parametrize("path, text", [
    ("/charset/cp1252-header.html", "Na\u00efve fa\u00e7ade, 20 \u20ac."),
    ("/charset/sjis-meta.html", "\u6771\u4eac\u306e\u5929\u6c17\u3002"),
    ("/charset/bom.html", "\u00dcbermut."),
    ("/charset/utf-16-be.html", "\u00dcber zw\u00f6lf Stra\u00dfen."),
    ("/charset/utf-16-le.html", "\u00dcber zw\u00f6lf Stra\u00dfen."),
])
def test_encodings_honoured_and_declared(client, origin, path, text):
    r, body = raw(client, origin.url(path))
    if "utf-16" in path:  # a UTF-16 page keeps its byte order mark, and its label is one browsers know
        assert body.startswith(b"\xfe\xff" if "-be" in path else b"\xff\xfe")
        assert r.headers["content-type"].endswith(("charset=utf-16be", "charset=utf-16le"))
    assert r.headers["x-pagesieve"].startswith("filtered;")
    charset = r.headers["content-type"].split("charset=")[1]
    decoded = body.decode(charset)
    assert text in decoded
    assert "var x = 1" not in decoded
    meta = doc(body).find(".//meta[@charset]")  # the document declares the same encoding
    assert meta is not None and meta.get("charset").lower() == charset.lower()


def test_missing_content_type_is_sniffed(client, origin):
    r = client.get(origin.url("/notype.html"))
    assert r.headers["x-pagesieve"].startswith("filtered;")
    assert "var x = 1" not in r.text


@pytest.mark.parametrize("path, method, headers, reason", [
    ("/error.html", "GET", {}, "status-500"),
    ("/nocontent", "GET", {}, "status-204"),
    ("/ads.html", "HEAD", {}, "head"),
    ("/ads.html", "GET", {"Range": "bytes=0-99"}, "range"),
])
def test_other_responses_pass_through(client, origin, routes, path, method, headers, reason):
    r, body = raw(client, origin.url(path), method=method, headers=headers)
    assert r.headers["x-pagesieve"] == f"unfiltered; reason={reason}"
    if method == "GET" and r.status_code not in (204, 304):
        assert body == routes[path].body
    if r.headers.get("content-type", "").startswith("text/html"):  # no script runs where none was taken out
        assert r.headers["content-security-policy"] == "script-src 'none'; object-src 'none'"


def test_redirect_passes_through(client, origin, routes):
    r, body = raw(client, origin.url("/redirect"))
    assert r.status_code == 302 and r.headers["location"] == "/ads.html"
    assert body == routes["/redirect"].body
    assert r.headers["x-pagesieve"] == "unfiltered; reason=status-302"


def test_huge_page_served_unfiltered(client, origin, routes):
    assert len(routes["/huge.html"].body) > MAX_BODY
    r, body = raw(client, origin.url("/huge.html"))
    assert body == routes["/huge.html"].body
    assert r.headers["x-pagesieve"] == "unfiltered; reason=too-large"
    assert r.headers["content-security-policy"] == "script-src 'none'; object-src 'none'"


def test_bypass_one_page_by_query_parameter_and_header(client, origin, routes):
    show_original = re.search(rb'<a href="([^"]+)">Show original</a>', client.get(origin.url("/ads.html")).content)
    before = len(origin.seen)
    r, body = raw(client, show_original.group(1).decode())
    assert body == routes["/ads.html"].body and r.headers["x-pagesieve"] == "unfiltered; reason=bypassed"
    assert "content-security-policy" not in r.headers  # as sent, on purpose
    method, path, _ = origin.seen[before]
    assert path == "/ads.html"  # the parameter never reaches the site
    r, body = raw(client, origin.url("/ads.html"), headers={"X-Pagesieve-Bypass": "1"})
    assert body == routes["/ads.html"].body and r.headers["x-pagesieve"] == "unfiltered; reason=bypassed"
    assert "x-pagesieve-bypass" not in {k.lower() for k in origin.seen[-1][2]}
    r = client.get(origin.url("/ads.html"), headers={"X-Pagesieve-Bypass": "0"})
    assert r.headers["x-pagesieve"].startswith("filtered;")


def test_bypass_hosts(client, routes):
    other = Origin(routes, host="127.0.0.2")  # proxy.bypass_hosts = [127.0.0.2] in the test config
    try:
        r, body = raw(client, other.url("/ads.html"))
        assert body == routes["/ads.html"].body and r.headers["x-pagesieve"] == "unfiltered; reason=bypassed"
    finally:
        other.close()


def test_a_filter_that_raises_is_undone_and_named(client, origin, proxy):
    r = client.get(origin.url("/fault/raise.html"))
    assert r.headers["x-pagesieve"].startswith("filtered;") and r.headers["x-pagesieve"].endswith("; failed=ignore")
    assert "var x = 1" not in r.text  # ignore was undone, but for its script removal, a step of its own
    assert r.headers["content-security-policy"] == "script-src 'none'; object-src 'none'"
    assert doc(r.content).find(".//main") is not None  # the filters after it still ran
    assert "filter ignore failed" in proxy.log_text()


@pytest.mark.parametrize("fault", ["raise-outside", "raise-secure"])
def test_chain_error_serves_the_original_without_its_scripts_running(client, origin, routes, proxy, fault):
    r, body = raw(client, origin.url(f"/fault/{fault}.html"))
    assert body == routes[f"/fault/{fault}.html"].body
    assert r.headers["x-pagesieve"] == "unfiltered; reason=error"
    assert r.headers["content-security-policy"] == "script-src 'none'; object-src 'none'"
    if fault == "raise-secure":
        assert "injected fault in the script removal" in proxy.log_text()
        return
    assert "reason=error" in proxy.log_text() and "injected fault outside the filters" in proxy.log_text()


def test_timeout_serves_the_original_and_the_worker_is_freed(client, origin, routes, proxy):
    t0 = time.monotonic()
    r, body = raw(client, origin.url("/fault/slow.html"))
    took = time.monotonic() - t0
    assert body == routes["/fault/slow.html"].body
    assert r.headers["x-pagesieve"] == "unfiltered; reason=timeout"
    assert r.headers["content-security-policy"] == "script-src 'none'; object-src 'none'"
    assert TIMEOUT <= took < TIMEOUT + 5
    # Both workers are usable again soon after (the worker interrupts its own chain).
    time.sleep(1)
    for _ in range(4):
        assert client.get(origin.url("/ads.html")).headers["x-pagesieve"].startswith("filtered;")


def test_dead_worker_serves_the_original_and_the_pool_recovers(client, origin, routes, proxy):
    r, body = raw(client, origin.url("/fault/crash.html"))
    assert body == routes["/fault/crash.html"].body
    assert r.headers["x-pagesieve"] == "unfiltered; reason=error"
    assert "worker process died" in proxy.log_text()
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:  # the other worker filters while the replacement warms up
        if (client.get(origin.url("/ads.html")).headers["x-pagesieve"].startswith("filtered;")
                and "replacement worker" in proxy.log_text()):
            break
        time.sleep(0.5)
    else:
        pytest.fail("the pool did not recover: " + proxy.log_text()[-2000:])


def test_one_log_line_per_filtered_page(client, origin, proxy):
    client.get(origin.url("/ads.html?line=check"))
    time.sleep(0.3)
    lines = [l for l in proxy.log_text().splitlines() if "filtered 127.0.0.1 preset=declutter" in l]
    assert lines, proxy.log_text()[-2000:]
    assert all(" in=" in l and " out=" in l and " ms=" in l and " removed=" in l for l in lines)


def test_mitmproxy_onboarding_page_is_not_filtered(client):
    r = client.get("http://mitm.it/")
    assert r.status_code == 200 and "mitmproxy" in r.text.lower()
    assert r.headers.get("x-pagesieve", "unfiltered; reason=own-page") == "unfiltered; reason=own-page"


def test_addons_load_in_plain_mitmdump(tmp_path, origin):
    """`mitmdump -s pagesieve/proxy_addons/script.py`: the same addons, configured by mitmproxy options."""
    import sys
    from pathlib import Path

    from tests.conftest import REPO
    from tests.proxy.conftest import start_proxy

    def mitmdump(port, confdir, config):
        return [str(Path(sys.executable).with_name("mitmdump")), "-s", str(REPO / "pagesieve/proxy_addons/script.py"),
                "--listen-host", "127.0.0.1", "-p", str(port), "--set", f"confdir={confdir}",
                "--set", f"pagesieve_config={config}", "--set", "pagesieve_preset=reader"]

    proxy = start_proxy(tmp_path, command=mitmdump)
    try:
        with httpx.Client(proxy=proxy.url, trust_env=False, timeout=60) as c:
            r = c.get(origin.url("/ads.html"))
        assert r.headers["x-pagesieve"].startswith("filtered; preset=reader"), r.headers.get("x-pagesieve")
        assert "rebuild the old harbour wall" in r.text and "<script" not in r.text
    finally:
        proxy.stop()


def test_filtered_pages_forbid_scripts_and_unfiltered_ones_are_left_alone(client, origin, routes):
    """Scripts ignored → a policy that forbids them, in the header and the page."""
    path = next(p for p in routes if p.startswith("/corpus/"))
    r = client.get(origin.url(path))
    assert r.headers["x-pagesieve"].startswith("filtered;")
    assert "script-src 'none'" in r.headers["content-security-policy"]
    assert doc(r.content).xpath("//meta[@http-equiv='Content-Security-Policy']")
    assert "content-security-policy" not in client.get(origin.url("/image.png")).headers
    bypassed = client.get(origin.url(path), headers={"X-Pagesieve-Bypass": "1"})
    assert "content-security-policy" not in bypassed.headers
