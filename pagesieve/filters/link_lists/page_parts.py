"""The page's own parts that ``link_lists`` keeps (the package docstring's "headline" and "table of
contents"): its headline, the byline beside it, and the pages under the page's address."""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlsplit

from lxml.html import HtmlElement

from pagesieve.analysis import pagemeta
from pagesieve.analysis.furniture import CONTENT_TAGS, in_landmark
from pagesieve.analysis.headline import same_words
from pagesieve.core import dom
from pagesieve.filters.link_lists.measures import text_outside_links
from pagesieve.filters.link_lists.settings import LinkListSettings

#: A year (1900-2099) or a clock time: what a byline's date line has outside its links.
_DATE = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)|(?<!\d)\d{1,2}:\d\d(?!\d)")


def pages_under(url: str | None) -> tuple[str, str, str] | None:
    """(host, path prefix, url) of the pages under the page at ``url``: its path with a trailing ``/``;
    None for a page without an address or at the site's root (every page is under it)."""
    if not url:
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    path = parts.path.rstrip("/")
    if not parts.netloc or not path:
        return None
    return parts.netloc.lower(), path + "/", url


def headline_of(page, body: HtmlElement, furniture: set) -> HtmlElement | None:
    """The heading (``<h1>``, else ``<h2>`` ... ``<h6>``, outside page furniture, first in document
    order) that says what the page's metadata headline (schema.org, ``og:title``), else its
    ``<title>``, says (or whose four or more words that title holds: "Headline | Section - Site")."""
    root = page.root
    found = pagemeta.of(page).headline  # read before the ignore filter dropped <meta> and JSON-LD
    if found is not None and found.element is not None and "matching" in found.source:
        return found.element if not in_landmark(found.element, body) else None
    meta = found.text if found is not None and found.element is None else None
    if not meta:
        title = root.find(".//title")
        meta = " ".join((title.text_content() if title is not None else "").split())
    if not meta:
        return None
    words = set(dom.WORD.findall(meta.lower()))
    for tag in dom.HEADINGS:
        for h in body.iter(tag):
            if not dom.text_len(h) or h in furniture and in_landmark(h, body):
                continue
            text = dom.text_of(h)
            own = set(dom.WORD.findall(text.lower()))
            # the same headline, or one whose words the title holds with the site's name and section
            if same_words(meta, text) or (len(own) >= 4 and len(own & words) >= 0.8 * len(own)):
                return h
    if found is not None and found.element is None and found.text:
        return _named_in_text(body, found.text, furniture)
    return None


def _named_in_text(body: HtmlElement, headline: str, furniture: set) -> HtmlElement | None:
    """The element that says the page's metadata headline in the page when no heading does (a profile's
    name or a product's in a styled ``<div>``): the first, outside page furniture and links, whose whole
    text has exactly the headline's words."""
    words = set(dom.WORD.findall(headline.lower()))
    if not words:
        return None
    first = dom.WORD.findall(headline.lower())[0]
    for el in body.iter():
        if not isinstance(el.tag, str) or not el.text or first not in el.text.lower():
            continue
        if el.tag == "a" or el in furniture or next(el.iterancestors("a"), None) is not None:
            continue
        text = dom.text_of(el)
        if len(text) <= 2 * len(headline) and set(dom.WORD.findall(text.lower())) == words:
            return el if not in_landmark(el, body) else None
    return None


def bylines(headline: HtmlElement, stats: dict, s: LinkListSettings, body: HtmlElement,
            furniture: set) -> set[HtmlElement]:
    """The short blocks beside ``headline`` that carry a date (see the package docstring), unless they
    are navigation or in a landmark by their markup. A block named like page furniture stays out (a
    footer's "© 2012" two blocks below) unless it is the headline's own neighbour: there a block named
    "entry-header" is the story's header line."""
    out: set[HtmlElement] = set()
    node: HtmlElement | None = headline
    for _ in range(3):
        if node is None or node.tag in CONTENT_TAGS:
            break
        before, nxt = node.getprevious(), node.getnext()
        touching = {x for x in (before, nxt) if x is not None}
        near = list(touching)
        while nxt is not None and len(near) < 3:
            nxt = nxt.getnext()
            if nxt is not None:
                near.append(nxt)
        for el in near:
            got = stats.get(el) if isinstance(el.tag, str) else None
            if (got is not None and 0 < got[2] <= s.byline_letters and _dated(el) and not _navigation(el, body)
                    and (el in touching or el not in furniture)):
                out.add(el)
        node = node.getparent()
    return out


def _dated(el: HtmlElement) -> bool:
    """Whether ``el`` says when: a year or a clock time outside its links, or a ``<time>`` element (a
    post's date is often a link to the post itself, with the machine-readable date in ``<time>``)."""
    return bool(_DATE.search(text_outside_links(el))) or next(el.iter("time"), None) is not None


def _navigation(el: HtmlElement, body: HtmlElement) -> bool:
    """Whether ``el`` is navigation or sits in a landmark by its markup (``<nav>``, ``<aside>``, their roles)."""
    return (el.tag in ("nav", "aside") or (el.get("role") or "").strip().lower() in dom.FURNITURE_ROLES
            or in_landmark(el, body))


def is_toc(node: HtmlElement, s: LinkListSettings, under: tuple[str, str, str] | None) -> bool:
    """A table of contents: ``toc_share`` of the links lead to places on this page (``#…``) or to
    pages under it (``under``: the page's scheme-less host and its path with a trailing ``/``)."""
    hrefs = [(a.get("href") or "").strip() for a in node.iter("a") if a.get("href") is not None]
    if not hrefs:
        return False
    toc = 0
    for h in hrefs:
        if h.startswith("#"):
            toc += len(h) > 1
        elif under is not None:
            try:
                parts = urlsplit(urljoin(under[2], h))
            except ValueError:  # an address no browser can follow ("http://[oops"): leads nowhere under the page
                continue
            toc += parts.netloc.lower() == under[0] and parts.path.startswith(under[1])
    return toc >= s.toc_share * len(hrefs)
