"""The HTTP rules the filtering addon decides by: which responses are HTML, and what the headers of
a filtered response must say.

Pure functions of headers and bytes, no addon state: what the response's ``Content-Type`` says
(:func:`media_type`), whether bytes start like HTML where the type was left to sniffing
(:func:`sniff_html`), which body is a page to filter (:func:`candidate`, once per response: the
worker trusts it), and the caching headers that stay true of the filtered bytes (:func:`private_caching`).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from mitmproxy import http
from mitmproxy.net.http.headers import parse_content_type
from werkzeug.http import dump_header, parse_dict_header

from pagesieve.core.hosts import within
from pagesieve.engine.document import looks_binary

#: Types that are HTML. application/xhtml+xml is XML: an HTML serialisation would break it.
HTML_TYPES = frozenset({"text/html"})
#: Types a browser sniffs as possibly HTML (WHATWG MIME Sniffing §7.1, "supplied MIME type is
#: undefined or unknown/unknown, application/unknown or */*"); missing is "".
SNIFFED_TYPES = frozenset({"", "unknown/unknown", "application/unknown", "*/*"})
#: Sec-Fetch-Dest of a document loaded inside another page: the frame survived that page's filter.
FRAME_DESTINATIONS = frozenset({"iframe", "frame"})
#: The HTML signatures of WHATWG MIME Sniffing §7.1 ("identifying a resource with an unknown
#: MIME type"): after optional whitespace and BOM, one of these tags followed by a space or '>'.
HTML_SIGNATURE = re.compile(
    rb"^(?:\xef\xbb\xbf)?[\t\n\x0c\r ]*(?:<!DOCTYPE HTML|<HTML|<HEAD|<SCRIPT|<IFRAME|<H1|<DIV|<FONT|<TABLE"
    rb"|<A|<STYLE|<TITLE|<B|<BODY|<BR|<P)[ >]|^(?:\xef\xbb\xbf)?[\t\n\x0c\r ]*<!--", re.IGNORECASE)
#: Headers about the original bytes that become wrong once the body changed.
STALE_HEADERS = ("content-md5", "digest", "repr-digest", "content-digest")
#: Cache-Control directives that let a shared cache keep a response (a filtered one is the user's own).
SHARED_DIRECTIVES = frozenset({"public", "s-maxage", "private"})


@dataclass(frozen=True)
class ContentType:
    """What a response's ``Content-Type`` says, read once."""

    kind: str  # type/subtype lowercased; "" when missing
    charset: str | None

    @property
    def declared_html(self) -> bool:
        return self.kind in HTML_TYPES

    @property
    def maybe_html(self) -> bool:
        """HTML, or left to sniffing: a page the chain may filter (and that gets the fail-safe policy)."""
        return self.kind in HTML_TYPES or self.kind in SNIFFED_TYPES


@dataclass(frozen=True)
class Candidate:
    """A response body that is a page to filter: decided here once, trusted by the worker."""

    body: bytes  # decoded (no Content-Encoding left)
    content_type: ContentType


def media_type(headers: http.Headers) -> tuple[str, str | None]:
    """(type/subtype lowercased, charset or None) of a Content-Type header ("" when missing)."""
    raw = headers.get("content-type", "")
    parsed = parse_content_type(raw) if raw else None
    if parsed is None:
        return ("", None) if not raw.strip() else (raw.split(";")[0].strip().lower(), None)
    charset = parsed[2].get("charset") or parsed[2].get("Charset")
    return f"{parsed[0]}/{parsed[1]}".strip(), (charset.strip("\"' ") or None) if charset else None


def content_type(headers: http.Headers) -> ContentType:
    return ContentType(*media_type(headers))


def sniff_html(body: bytes) -> bool:
    """True when ``body`` starts like HTML (the WHATWG unknown-type HTML signatures)."""
    return HTML_SIGNATURE.match(body[:1024]) is not None


def candidate(body: bytes, ctype: ContentType) -> Candidate | None:
    """``body`` as a page to filter, or None when it is not HTML: a type left to sniffing needs the
    HTML signature and bytes that do not look binary; a declared text/html page is HTML whatever
    bytes it holds (a browser renders it); an empty body is no page."""
    if not ctype.declared_html and (not sniff_html(body) or looks_binary(body)):
        return None
    if not body.strip():
        return None
    return Candidate(body, ctype)


def host_matches(host: str, entries: tuple[str, ...]) -> bool:
    host = host.lower().rstrip(".")
    return any(within(host, e) for e in (x.lower().strip(".") for x in entries) if e)


def private_caching(headers: http.Headers, spec_key: str, *, auth: bool) -> None:
    """Make a filtered response's caching headers true of the filtered bytes (RFC 9110/9111).

    The origin's validators describe its bytes, not ours: a range request or an ``If-Range``
    with them would splice the original into the filtered page. So: no ``Accept-Ranges``; the
    ``ETag`` becomes weak (never usable for ranges) and names the settings that produced it; no
    ``Last-Modified`` (a date validator can serve ranges too). The output depends on the user's
    settings: shared caches must not keep it (``public`` → ``private``, no ``s-maxage``), and
    with authentication on it varies with the user (``Vary: Proxy-Authorization``).
    """
    headers.pop("accept-ranges", None)
    headers.pop("last-modified", None)
    etag = headers.get("etag")
    if etag:
        tag = hashlib.sha256(f"{etag}|{spec_key}".encode()).hexdigest()[:20]
        headers["etag"] = f'W/"ps-{tag}"'
    cc = headers.get("cache-control")
    if cc is not None or auth:
        value = private_cache_control(cc or "", auth=auth)
        if value:
            headers["cache-control"] = value
        else:
            headers.pop("cache-control", None)
    if auth:
        vary = [v.strip() for v in headers.get("vary", "").split(",") if v.strip()]
        if "*" not in vary and "proxy-authorization" not in (v.lower() for v in vary):
            headers["vary"] = ", ".join([*vary, "Proxy-Authorization"])


def private_cache_control(value: str, *, auth: bool) -> str:
    """``value`` (a Cache-Control header) for the user's own copy: no directive that lets a shared
    cache keep it, ``private`` first where one was taken out or the response varies with the user
    (not beside ``no-store``). Quoted field lists (``no-cache="Set-Cookie, X-Foo"``) stay whole; a
    value that cannot be parsed (an unclosed quote) becomes ``private``."""
    directives = parse_dict_header(value)
    if not directives and value.strip():
        return "private"
    kept = {k: v for k, v in directives.items() if k.lower() not in SHARED_DIRECTIVES}
    no_store = any(k.lower() == "no-store" for k in kept)
    if not no_store and (auth or len(kept) != len(directives)):
        kept = {"private": None, **kept}
    return dump_header(kept)
