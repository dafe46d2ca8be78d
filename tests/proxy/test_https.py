"""HTTPS: an origin with a self-signed certificate made here, the client trusting mitmproxy's CA."""

from __future__ import annotations

import ssl

import httpx
import lxml.html
import pytest

from tests.proxy.conftest import Origin, self_signed, start_proxy

pytestmark = pytest.mark.proxy




def test_https_page_arrives_decluttered(tmp_path, routes):
    cert, key = self_signed(tmp_path)
    origin = Origin(routes, cert=(cert, key))
    # The proxy verifies the origin against the test's own certificate (mitmproxy's option).
    proxy = start_proxy(tmp_path / "p", "--mitmproxy-set", f"ssl_verify_upstream_trusted_ca={cert}")
    try:
        ca = proxy.confdir / "mitmproxy-ca-cert.pem"
        assert ca.exists(), "mitmproxy did not create its CA in the confdir"
        trust = ssl.create_default_context(cafile=str(ca))
        with httpx.Client(proxy=proxy.url, verify=trust, trust_env=False, timeout=30) as client:
            r = client.get(origin.url("/ads.html", host="localhost"))
            assert r.status_code == 200
            assert r.headers["x-pagesieve"].startswith("filtered; preset=declutter")
            page = lxml.html.document_fromstring(r.content)
            assert page.find(".//script") is None and page.get_element_by_id("menu", None) is None
            assert "rebuild the old harbour wall" in r.text
            # The page control of an HTTPS page leads to the settings host over HTTPS (the proxy answers
            # it itself): no insecure form on a secure page. Its links work.
            nav = page.get_element_by_id("pagesieve-control")
            removed = nav.xpath(".//a[starts-with(., 'What was removed')]/@href")[0]
            assert removed.startswith("https://pagesieve.core.settings/removed/")
            assert nav.xpath(".//form/@action") == ["https://pagesieve.core.settings/always-as-sent"]
            assert client.get(removed).status_code == 200
            assert "pagesieve settings" in client.get("https://pagesieve.core.settings/").text
            original = nav.xpath(".//a[.='Show original']/@href")[0]
            assert original.startswith(origin.url("/ads.html?pagesieve=off-", host="localhost"))
            assert client.get(original).content == routes["/ads.html"].body
            r = client.get(origin.url("/image.png", host="localhost"))
            assert r.content == routes["/image.png"].body
        # Without trusting mitmproxy's CA the client refuses: the page really went through it.
        with httpx.Client(proxy=proxy.url, verify=ssl.create_default_context(cafile=cert), trust_env=False) as c:
            with pytest.raises(httpx.ConnectError):
                c.get(origin.url("/ads.html", host="localhost"))
    finally:
        proxy.stop()
        origin.close()
