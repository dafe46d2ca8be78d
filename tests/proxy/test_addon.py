"""The filtering addon under mitmproxy's own test helpers (``taddons``, ``tflow``), in process.

The chain runs in a thread pool here (the ``executor`` seam); the worker processes, time limits
and crashes are covered end to end in ``test_e2e.py``.
"""

from __future__ import annotations

import asyncio
import gzip
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from mitmproxy import exceptions
from mitmproxy.test import taddons, tflow

from pagesieve.engine import config as C
from pagesieve.proxy_addons import default_addons
from pagesieve.proxy_addons.filtering import HEADER, Declutter
from pagesieve.proxy_addons.http_rules import candidate, content_type, media_type, sniff_html
from tests.proxy.conftest import AD_PAGE

PAGE = AD_PAGE.encode()


@pytest.fixture(scope="module", autouse=True)
def tmp_state(tmp_path_factory, monkeypatch_module):
    """Every config loaded here keeps its state (profiles) in a temporary directory."""
    from tests.proxy.conftest import write_config

    tmp = tmp_path_factory.mktemp("addon")
    # In process the first page also loads the lists and models (no warm-up): a generous limit.
    config = write_config(tmp / "config.yaml", tmp, timeout_seconds=120)
    monkeypatch_module.setenv("PAGESIEVE_CONFIG", str(config))


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as mp:
        yield mp


@pytest.fixture(scope="module")
def executor():
    with ThreadPoolExecutor(2) as ex:
        yield ex


def run(flow, executor, cfg=None, setup=None, **options):
    """Configure the addons (options as mitmproxy would set them) and cycle ``flow`` through them
    (``setup(addons)`` first, when given)."""
    async def go():
        addons = default_addons(cfg or C.load(), executor=executor)
        if setup is not None:
            setup(addons)
        with taddons.context(*addons) as tctx:
            try:
                for addon in addons:
                    tctx.configure(addon, **options)
                for addon in addons:
                    await tctx.cycle(addon, flow)
            finally:
                await tctx.master.done()  # uninstalls the master's log handler bound to this loop
        return flow
    return asyncio.run(go())


def html_flow(body: bytes = PAGE, ctype: str | None = "text/html; charset=utf-8", path: str = "/news", **resp):
    f = tflow.tflow(resp=tflow.tresp(content=body, **resp))
    f.request.path = path
    f.request.host = "news.example"
    f.response.headers["content-length"] = str(len(body))
    if ctype is None:
        f.response.headers.pop("content-type", None)
    else:
        f.response.headers["content-type"] = ctype
    return f


def test_html_response_filtered_with_header_and_metadata(executor):
    f = run(html_flow(), executor)
    assert f.response.headers[HEADER].startswith("filtered; preset=declutter; ms=")
    assert b"googletagservices" not in f.response.content and b"rebuild the old harbour" in f.response.content
    assert f.response.headers["content-type"] == "text/html; charset=utf-8"
    assert int(f.response.headers["content-length"]) == len(f.response.raw_content)
    meta = f.metadata["pagesieve"]
    assert meta["filtered"] and meta["removed_by"]["ads"] >= 1 and meta["removed_by"]["ignore"] >= 2


def test_preset_option(executor):
    f = run(html_flow(), executor, pagesieve_preset="reader")
    assert "preset=reader" in f.response.headers[HEADER]


def test_unknown_preset_option_is_refused():
    async def go():
        addons = default_addons(C.load())
        with taddons.context(*addons) as tctx:
            with pytest.raises(exceptions.OptionsError, match="unknown preset"):
                tctx.configure(addons[0], pagesieve_preset="nope")
    asyncio.run(go())


@pytest.mark.parametrize("ctype, body, reason", [
    ("image/png", b"\x89PNG\r\n\x1a\n\0\0", "not-html"),
    ("application/json", b'{"a": "<p>"}', "not-html"),
    ("text/plain", b"<html><p>looks like html</p></html>", "not-html"),
    (None, b"\x00\x01binary", "not-html"),
])
def test_non_html_untouched(executor, ctype, body, reason):
    f = run(html_flow(body, ctype), executor)
    assert f.response.raw_content == body
    assert f.response.headers[HEADER] == f"unfiltered; reason={reason}"


def test_missing_type_sniffed_as_html(executor):
    f = run(html_flow(ctype=None), executor)
    assert f.response.headers[HEADER].startswith("filtered;")


@pytest.mark.parametrize("change, reason", [
    (lambda f: setattr(f.response, "status_code", 404), "status-404"),
    (lambda f: setattr(f.request, "method", "HEAD"), "head"),
    (lambda f: f.request.headers.__setitem__("range", "bytes=0-10"), "range"),
    (lambda f: setattr(f.request, "host", "mitm.it"), "own-page"),
    (lambda f: f.metadata.__setitem__("pagesieve.own_page", True), "own-page"),
])
def test_guard_clauses(executor, change, reason):
    f = html_flow()
    change(f)
    f = run(f, executor)
    assert f.response.content == PAGE
    assert f.response.headers[HEADER] == f"unfiltered; reason={reason}"


def test_bypass_parameter_without_a_token_is_removed_and_not_honoured(executor):
    f = run(html_flow(path="/news?a=1&pagesieve=off&b=2"), executor)
    assert f.request.path == "/news?a=1&b=2"
    assert f.response.headers[HEADER].startswith("filtered;")  # a site could have put it there


def test_bypass_host_from_profile_and_config(executor, tmp_path):
    f = html_flow()
    f.metadata["pagesieve.profile"] = {"bypass": True}
    assert run(f, executor).response.headers[HEADER] == "unfiltered; reason=bypassed"
    data = (Path(os.environ["PAGESIEVE_CONFIG"]).read_text(encoding="utf-8")
            .replace("bypass_hosts: []", "bypass_hosts:\n  - example"))
    (tmp_path / "c.yaml").write_text(data, encoding="utf-8")
    cfg = C.load(tmp_path / "c.yaml")
    f = html_flow()
    f.request.host = "www.news.example"
    assert run(f, executor, cfg=cfg).response.headers[HEADER] == "unfiltered; reason=bypassed"
    f = html_flow()
    f.request.host = "example.org"  # not a subdomain of "example"
    assert run(f, executor, cfg=cfg).response.headers[HEADER].startswith("filtered;")


def test_profile_overrides_and_preset(executor):
    f = html_flow()
    f.metadata["pagesieve.profile"] = {"preset": "reader", "overrides": {"output": {"format": "text"}}}
    f = run(f, executor)
    assert "preset=reader" in f.response.headers[HEADER]
    assert f.response.headers["content-type"].startswith("text/plain")


def test_gzip_body_reencoded(executor):
    f = html_flow()
    f.response.headers["content-encoding"] = "gzip"
    f.response.raw_content = gzip.compress(PAGE)
    f = run(f, executor)
    assert f.response.headers["content-encoding"] == "gzip"
    html = gzip.decompress(f.response.raw_content)
    assert b"rebuild the old harbour" in html and b"googletagservices" not in html


def test_content_length_too_large_streams_unfiltered(executor, tmp_path):
    data = Path(os.environ["PAGESIEVE_CONFIG"]).read_text(encoding="utf-8").replace("max_body_bytes: 3000000",
                                                                                  "max_body_bytes: 100")
    (tmp_path / "c.yaml").write_text(data, encoding="utf-8")
    f = run(html_flow(), executor, cfg=C.load(tmp_path / "c.yaml"))
    assert f.response.headers[HEADER] == "unfiltered; reason=too-large"
    assert f.response.stream is True  # decided on the headers: never buffered


def test_helpers():
    assert media_type(tflow.tresp(headers=[(b"content-type", b'text/HTML; Charset="ISO-8859-1"')]).headers) == \
        ("text/html", "ISO-8859-1")
    assert sniff_html(b"\xef\xbb\xbf \n<!DOCTYPE html><p>") and sniff_html(b"<!-- c -->")
    assert not sniff_html(b"{\"a\": 1}") and not sniff_html(b"<htmlx>")


def test_candidate_is_decided_once_from_the_type_and_the_bytes():
    declared = content_type(tflow.tresp(headers=[(b"content-type", b"text/html; charset=windows-1252")]).headers)
    sniffed = content_type(tflow.tresp(headers=[]).headers)
    page = candidate(b"<p>caf\xe9</p>", declared)
    assert page is not None and page.body == b"<p>caf\xe9</p>" and page.content_type.charset == "windows-1252"
    assert candidate(b"<p>a\x00b</p>", declared) is not None  # a browser renders it: HTML all the same
    assert candidate(b"<p>a\x00b</p>", sniffed) is None  # left to sniffing: binary is not HTML
    assert candidate(b"<!doctype html><p>x", sniffed) is not None and candidate(b"{}", sniffed) is None
    assert candidate(b" \n ", declared) is None  # empty: no page


SHELL = (b'<!doctype html><html><head><title>App</title></head><body><noscript>You need to enable JavaScript '
         b'to run this app.</noscript><div id="root"></div><script src="/static/js/main.js"></script></body></html>')


def test_a_page_its_scripts_make_is_served_as_sent(executor):
    f = run(html_flow(SHELL), executor)
    assert f.response.headers[HEADER] == "unfiltered; reason=needs-scripts"
    assert f.response.content == SHELL and f.metadata["pagesieve"] == {"filtered": False, "reason": "needs-scripts"}
    f = html_flow(SHELL)  # the user's switch: filtered like any page
    f.metadata["pagesieve.profile"] = {"overrides": {"filters": {"ignore": {"app_shells": False}}}}
    assert run(f, executor).response.headers[HEADER].startswith("filtered;")


@pytest.mark.parametrize("dest, reason", [("iframe", "frame"), ("frame", "frame"), ("document", None), (None, None)])
def test_a_frame_is_served_as_sent(executor, dest, reason):
    f = html_flow()
    if dest is not None:
        f.request.headers["Sec-Fetch-Dest"] = dest
    f = run(f, executor)
    if reason is None:
        assert f.response.headers[HEADER].startswith("filtered;")
    else:
        assert f.response.headers[HEADER] == f"unfiltered; reason={reason}" and f.response.content == PAGE


@pytest.mark.parametrize("ctype, status, method, asked, reason", [
    ("text/css", 200, "GET", False, "not-html"),
    ("image/png", 200, "GET", False, "not-html"),
    ("text/css", 404, "GET", False, "status-404"),
    ("text/html; charset=utf-8", 200, "GET", True, None),
    ("text/html; charset=utf-8", 404, "GET", True, "status-404"),  # its fail-safe policy is the user's
    ("text/html; charset=utf-8", 200, "HEAD", True, "head"),
    (None, 200, "GET", True, None),  # left to sniffing: may be HTML
])
def test_the_profile_is_built_only_for_a_response_that_may_be_html(executor, ctype, status, method, asked, reason):
    calls = []

    class Identity:
        async def load_profile(self, flow):
            calls.append(flow)

    def setup(addons):
        next(a for a in addons if isinstance(a, Declutter)).identity = Identity()

    f = html_flow(ctype=ctype, status_code=status)
    f.request.method = method
    f = run(f, executor, setup=setup)
    assert bool(calls) is asked and len(calls) <= 1
    header = f.response.headers[HEADER]
    assert header == f"unfiltered; reason={reason}" if reason else header.startswith("filtered;")
