"""The page's headline and byline, from its metadata and its own headings.

A reader puts them first (``main_content``, ``article`` in keep mode); ``link_lists`` keeps the
heading that is the headline; ``pagesieve eval`` leaves both marked elements out of scoring.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from lxml.html import HtmlElement

from pagesieve.analysis.scan import Scan, meta_keys
from pagesieve.core import dom
from pagesieve.core.dom import WORD

#: The class of a headline element a reader filter puts first (the page's own heading moved, or one
#: made from the page's metadata); ``pagesieve eval`` leaves it out of scoring, like the title.
HEADLINE_CLASS = "pagesieve-headline"
#: The <meta> elements that hold the page's title for sharing (``Scan.content``).
_META_HEADLINE = meta_keys(property=("og:title", "twitter:title"), name=("og:title", "twitter:title"))


@dataclass(frozen=True)
class Headline:
    """The page's headline: its text, where it came from, and the page's own heading element when the
    headline is one (``None`` when it comes from metadata only)."""

    text: str
    source: str
    element: HtmlElement | None = None


def _jsonld_headline(jsonld: list) -> str | None:
    """The first schema.org ``headline`` in the page's JSON-LD (``Scan.jsonld``: parsed scripts)."""
    def walk(obj):
        if isinstance(obj, dict):
            value = obj.get("headline")
            if isinstance(value, str) and value.strip():
                return value
            for key in ("@graph", "mainEntity", "mainEntityOfPage"):
                if key in obj:
                    got = walk(obj[key])
                    if got:
                        return got
        elif isinstance(obj, list):
            for item in obj:
                got = walk(item)
                if got:
                    return got
        return None

    for obj in jsonld:
        try:
            got = walk(obj)
        except RecursionError:  # nested deeper than Python's stack
            continue
        if got:
            return " ".join(got.split())
    return None


def same_words(a: str, b: str, share: float = 0.8) -> bool:
    """True when the word sets of ``a`` and ``b`` share at least ``share`` of the shorter one and half
    of the longer one (a headline and the same headline followed by the site's name)."""
    x, y = _words(a), _words(b)
    if not x or not y:
        return False
    common = len(x & y)
    return common >= share * min(len(x), len(y)) and common >= 0.5 * max(len(x), len(y))


#: The first ``<h2>`` headings of a page that may be its headline (a blog's template puts the site's name in
#: the <h1> and the post's title in an <h2> above the post; further <h2> are its sections, comments and
#: sidebar boxes).
HEADLINE_H2S = 3
#: An ``<h1>`` that shares this share of an ``<h2>``'s words says the same headline in other words (the
#: story's title over a section that restates it): the <h1> stays the headline.
HEADLINE_VARIANT = 0.5


def _agreeing(title: str, h1s: list, h2s: list) -> HtmlElement | None:
    """The heading that says what ``title`` (the page's metadata headline or ``<title>``) says: the
    first ``<h1>`` that does (:func:`same_words`); on a page without ``<h1>`` the first of ``h2s`` that
    does; on a page whose ``<h1>`` do not, the first of ``h2s`` whose words are all in the title and
    make half of it or more (the title is that headline with the site's or section's name around it)
    and that no ``<h1>`` restates (``HEADLINE_VARIANT``): the <h1> is then the site's name. None when
    no heading says it."""
    for h in h1s:
        if same_words(title, dom.text_of(h)):
            return h
    if not h1s:
        return next((h for h in h2s if same_words(title, dom.text_of(h))), None)
    words = _words(title)
    restated = [_words(dom.text_of(h)) for h in h1s]
    for h in h2s:
        own = _words(dom.text_of(h))
        if (own and own <= words and len(own) >= 0.5 * len(words)
                and not any(len(own & other) >= HEADLINE_VARIANT * len(own) for other in restated)):
            return h
    return None


def _words(text: str) -> set[str]:
    return set(WORD.findall(text.lower()))


#: What separates a title's parts ("Headline | Site", "Page - Section - Site"): a bar, a dash or a bullet
#: between spaces.
TITLE_SEPARATOR = re.compile(r"\s+[|\-–—·•»]\s+")


def _title_parts(title: str) -> list[str]:
    """The parts of a title between its separators (:data:`TITLE_SEPARATOR`) but the last, when it has more than
    one: the last is where most titles name the site ("Valkyrie keyboard - AliExpress"), whose name a heading of
    the page's body may also say."""
    parts = [p for p in TITLE_SEPARATOR.split(title) if _words(p)]
    return parts[:-1] if len(parts) > 1 else []


def _site_frame() -> Callable[[HtmlElement], bool]:
    """A test of whether a heading stands in the site's frame around the page: under a ``<header>``,
    ``<nav>``, ``<footer>`` or ``<aside>`` (or the role of one) and under no ``<article>`` or ``<main>``
    (whose own header holds its title). By tag and role only: class names say "header" or "sidebar" of
    the page's body too. Each ancestor is read once, however many headings a page holds."""
    known: dict[HtmlElement, tuple[bool, bool]] = {}  # element -> (it or an ancestor is content, … is frame)

    def step(above: tuple[bool, bool], node: HtmlElement) -> tuple[bool, bool]:
        tag = node.tag
        return (above[0] or tag in ("article", "main"),
                above[1] or dom.is_furniture(node))

    def framed(heading: HtmlElement) -> bool:
        content, frame = dom.inherited(heading.getparent(), known, (False, False), step)
        return frame and not content

    return framed


def _choose(text: str, h1s: list, h2s: list, framed: Callable[[HtmlElement], bool]) -> HtmlElement | None:
    """The heading that says what ``text`` says (:func:`_agreeing`), one outside the site's frame first
    (a heading in the site's header or menu bar is the site's name, the one in the page's body its
    headline: "ORM Quick Start - SQLAlchemy Documentation"), by the whole title or by one of its parts:
    of those found, the one whose words are most nearly the words it agrees with (:func:`_likeness`;
    "Dental Care | ONE Health Ohio": the page's "Dental Care", not a later section's "ONE Health Ohio
    Centers that Offer Dental", which shares enough words to agree with the whole title); else any
    heading, as :func:`_agreeing` picks it."""
    inner_h1 = [h for h in h1s if not framed(h)]
    inner_h2 = [h for h in h2s if not framed(h)][:HEADLINE_H2S]
    found = []
    for t in (text, *_title_parts(text)):
        h = _agreeing(t, inner_h1, inner_h2)
        if h is not None:
            found.append((_likeness(t, dom.text_of(h)), h))
    if found:
        return max(found, key=lambda x: x[0])[1]
    return _agreeing(text, h1s, h2s[:HEADLINE_H2S])


def _likeness(a: str, b: str) -> float:
    """The share of the words of ``a`` and ``b`` together that both say (1.0: the same words)."""
    x, y = _words(a), _words(b)
    return len(x & y) / len(x | y) if x or y else 0.0


def page_headline(root: HtmlElement, scan: Scan | None = None) -> Headline | None:
    """The page's headline: the schema.org ``headline``, else ``og:title``/``twitter:title`` — as the
    page's own heading that says the same (:func:`_choose`: an ``<h1>``, else one of its first
    ``HEADLINE_H2S`` ``<h2>``, outside the site's frame first), when one does — else, when the page has
    no such metadata, its heading that says what its ``<title>`` says — else the page's first ``<h1>``
    outside the site's frame — else its first ``<h1>``; ``None`` when the page has none
    of these. So a heading that says what the metadata or the title says is preferred to an ``<h1>`` that
    does not, the site's name (a blog whose <h1> is its name, the post's title an <h2> that is also the
    <title>; a documentation site's name in its header, the page's title in its body).
    ``scan``: the page as :class:`pagesieve.analysis.scan.Scan` read it (read now when not given)."""
    if scan is None:
        scan = Scan(root)
    meta = _jsonld_headline(scan.jsonld)
    source = "schema.org headline"
    if not meta:
        meta = next((" ".join(t.split()) for t in scan.content(_META_HEADLINE) if t.strip()), None)
        source = "og:title"
    h1s = [h for h in scan.h1 if dom.text_len(h)]
    h2s = [h for h in scan.h2 if dom.text_len(h)]
    framed = _site_frame()
    if meta:
        h = _choose(meta, h1s, h2s, framed)
        return Headline(dom.text_of(h), f"<{h.tag}> matching the {source}", h) if h is not None else Headline(meta, source)
    h = _choose(scan.title, h1s, h2s, framed) if scan.title else None
    if h is not None:
        return Headline(dom.text_of(h), f"<{h.tag}> matching the <title>", h)
    inner = next((h for h in h1s if not framed(h)), None)
    if inner is not None:
        return Headline(dom.text_of(inner), "first <h1>", inner)
    if h1s:
        return Headline(dom.text_of(h1s[0]), "first <h1>", h1s[0])
    return None


#: The class of the byline/date line put after the headline (``pagesieve eval`` leaves it out of scoring).
BYLINE_CLASS = "pagesieve-byline"
#: The <meta> elements naming the author and the publication date (``Scan.content``).
_AUTHOR_META = meta_keys(name=("author", "article:author", "byl", "dc.creator"), property=("article:author",))
_DATE_META = meta_keys(property=("article:published_time",), itemprop=("datePublished",),
                                name=("article:published_time", "date", "pubdate"))


def byline(root: HtmlElement, scan: Scan | None = None) -> str | None:
    """"By <author> · <date>" from the page's metadata (the author when it is not an address);
    ``scan``: the page as :class:`pagesieve.analysis.scan.Scan` read it (read now when not given)."""
    if scan is None:
        scan = Scan(root)
    author = next((" ".join(a.split()) for a in scan.content(_AUTHOR_META) if a.strip() and "://" not in a), "")
    date = next((d.strip()[:10] for d in scan.content(_DATE_META) if re.match(r"\d{4}-\d{2}-\d{2}", d.strip())), "")
    parts = ([f"By {author}"] if author else []) + ([date] if date else [])
    return " · ".join(parts) or None
