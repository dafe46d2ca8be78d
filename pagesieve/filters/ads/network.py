"""The ``ads`` filter's network rules: which URLs of an element to check, as which request type
against which base, and what goes when one matches (the element, its <picture>, the link around it;
for a link in running text only its address)."""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlsplit

from lxml import etree
from lxml.html import HtmlElement

from pagesieve.core import dom

# Elements that name a resource or a link target.
#: Elements with a URL attribute. Written as the owners of those attributes (``//@src/..``): libxml2 walks the
#: attributes of the page far faster than it tests a predicate on every element (``//*[@src or …]``: 0.59 ->
#: 0.44 ms a corpus page); the same elements, in document order.
WITH_URL = etree.XPath("(//@src | //@href | //@srcset | //@poster | //object/@data)/..")
#: The attributes of :data:`WITH_URL` on any element (``data`` only on ``<object>``).
URL_ATTRS = frozenset({"src", "href", "srcset", "poster"})
BASE_HREF = etree.XPath("(//base[@href])[1]/@href")
SRCSET_URL = re.compile(r"\s*([^\s,][^\s]*?)(?:\s+[^,]*)?(?:,|$)")
#: What of a text link to an ad or tracking server goes (its words stay): where it leads and what it pings.
LINK_TARGET_ATTRS = ("href", "ping")
#: A link whose block holds this many words (two letters or more) outside links stands in running
#: text (a sentence): its words are the sentence's. A menu item, a banner's label or a sponsored
#: card has none around it.
SENTENCE_WORDS = 3
_TEXT_OUTSIDE_LINKS = etree.XPath(".//text()[not(ancestor::a) and not(ancestor::script) and not(ancestor::style)]",
                                  smart_strings=False)
#: A word of running text: two letters or more (a price, a count or a lone letter is not a sentence's).
_WORD = re.compile(r"[^\W\d_]{2,}")
_PLAIN_URL = dom.PLAIN_URL
#: An absolute http(s) URL of printable ASCII that the checks below would return as it is: _PLAIN_URL
#: without its IGNORECASE (which lets "ſ" and the Kelvin sign through) and with fullmatch (its "$"
#: also matches before a final newline, which strip() would remove).
_ASCII_ABSOLUTE = re.compile(r"[Hh][Tt][Tt][Pp][Ss]?://[\x21-\x5a\x5e-\x7e]*")
# A URL scheme (RFC 3986 §3.1), as urlsplit reads it.
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")
MEDIA = dom.MEDIA_TAGS
# Request type per tag (WebExtensions ResourceType names, as adblock-rust reads them).
REQUEST_TYPES = {
    "script": "script", "img": "image", "input": "image", "iframe": "subdocument", "frame": "subdocument",
    "embed": "object", "object": "object", "applet": "object", "video": "media", "audio": "media",
    "track": "media", "a": "document", "area": "document",
}
LINK_AS = {"script": "script", "style": "stylesheet", "image": "image", "font": "font", "fetch": "xmlhttprequest"}


def origin(page, root: HtmlElement) -> tuple[str, str | None]:
    """(source URL for third-party checks, base for resolving relative URLs)."""
    base_href = next(iter(BASE_HREF(root)), None)
    base = page.url or None
    if base_href and base_href.strip():
        try:
            joined = urljoin(base or "", base_href.strip())
            if urlsplit(joined).scheme in ("http", "https"):
                base = joined
        except ValueError:  # "https://www.ex[ample": a base a browser cannot parse is ignored
            pass
    return (page.url or base or ""), base


def requests_of(node: HtmlElement, links: bool) -> list[tuple[str, str]]:
    """(URL, request type) of each address ``node`` names (link targets only with ``links``)."""
    tag = node.tag
    out = []
    if tag in ("a", "area"):
        if links and node.get("href"):
            out.append((node.get("href"), "document"))
        return out
    if tag == "link":
        rel = (node.get("rel") or "").lower().split()
        if "stylesheet" in rel:
            rtype = "stylesheet"
        elif "icon" in rel:
            rtype = "image"
        else:
            rtype = LINK_AS.get((node.get("as") or "").lower(), "other")
        if node.get("href"):
            out.append((node.get("href"), rtype))
        return out
    parent = node.getparent()
    if tag == "source":
        rtype = "image" if parent is not None and parent.tag == "picture" else "media"
    else:
        rtype = REQUEST_TYPES.get(tag, "other")
    for attr in ("src", "href"):
        if node.get(attr):
            out.append((node.get(attr), rtype))
    if tag == "object" and node.get("data"):
        out.append((node.get("data"), "object"))
    if node.get("poster"):
        out.append((node.get("poster"), "image"))
    for m in SRCSET_URL.finditer(node.get("srcset") or ""):
        if m.group(1):
            out.append((m.group(1), "image"))
    return out


def absolute(url: str, base: str | None) -> str | None:
    """An absolute http(s) URL to check, or None (other schemes; relative without a base)."""
    if _ASCII_ABSOLUTE.fullmatch(url):
        return url  # absolute, nothing to strip (the common case: two thirds of a corpus page's URLs)
    url = url.strip()
    if not url or url.startswith("#"):
        return None
    head = url[:8].lower()
    if head.startswith(("https://", "http://")) and _PLAIN_URL.match(url):
        return url  # already absolute (the common case): urlsplit would say the same
    named = _SCHEME.match(url)
    if named and named.group(1).lower() not in ("http", "https"):
        return None  # javascript:, data:, mailto:, …
    if not named and base and url[0] == "/" and url[1:2] != "/":
        joined = dom.join_root_relative(base, url)
        if joined is not None:
            return joined
    try:
        scheme = urlsplit(url).scheme.lower()
        if not scheme:
            if base:
                url = urljoin(base, url)
            elif url.startswith("//"):
                url = "https:" + url
            else:
                return None  # relative with no page URL: first-party, not checked
            scheme = urlsplit(url).scheme.lower()
    except ValueError:
        return None
    return url if scheme in ("http", "https") else None


def keeps_words(link: HtmlElement) -> bool:
    """Whether a link a network rule matched keeps its words: it has text and stands in running
    text (its block holds :data:`SENTENCE_WORDS` or more words outside links: a sentence, not a
    menu item, a banner or a sponsored card, which go whole)."""
    if not dom.text_len(link):
        return False
    block = next((a for a in link.iterancestors() if a.tag in dom.BLOCK_TAGS), None)
    if block is None:
        return False
    words = 0
    for piece in _TEXT_OUTSIDE_LINKS(block):
        words += len(_WORD.findall(piece))
        if words >= SENTENCE_WORDS:
            return True
    return False


def target(node: HtmlElement) -> HtmlElement:
    """What goes when ``node`` points at an ad server: its <picture>/<video>/<audio> if it
    is a source of one, and the link around it if that link holds nothing else."""
    parent = node.getparent()
    if node.tag in ("img", "source") and parent is not None and parent.tag in ("picture", "video", "audio"):
        node = parent
    link = node if node.tag == "a" else next(node.iterancestors("a"), None)
    if link is not None and link is not node and not dom.text_of(link):
        own = set(node.iter())
        if not any(el not in own for el in link.iter(*MEDIA)):
            return link
    return node
