"""What the accessibility rules share: the parts of the page they work on, the XPaths more than one
group of them asks, and the questions about names, text and position they have in common."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from typing import Any

from lxml import etree
from lxml.html import HtmlElement

from pagesieve.core import dom

SKIP_CLASS = "pagesieve-skip"
WS = re.compile(r"\s+")
#: Predicates on attributes are written as the attributes' owners (``//@role[.='main']/..``): the same
#: elements in document order; libxml2 walks attributes far faster than it tests a predicate on every element.
MAINS = etree.XPath(".//main | .//*/@role[.='main']/..")
#: Focusable elements, the node itself included (axe aria-hidden-focus: an aria-hidden link is a trap too).
FOCUSABLE = etree.XPath(
    "descendant-or-self::a[@href] | descendant-or-self::button | "
    "descendant-or-self::input[not(translate(@type,'HIDEN','hiden')='hidden')] | descendant-or-self::select | "
    "descendant-or-self::textarea | descendant-or-self::iframe | "
    "descendant-or-self::*[@tabindex and not(starts-with(normalize-space(@tabindex),'-'))] | "
    "descendant-or-self::*[translate(@contenteditable,'TRUE','true')='true' or @contenteditable='']")
#: Every id of the document (the context node's tree).
ALL_IDS = etree.XPath("//@id", smart_strings=False)
#: Elements of the document with the id ``$i`` (an aria-labelledby that resolves).
BY_ID = etree.XPath("//*[@id=$i]")
#: What makes a block say something without text (spoken).
SPOKEN_MEDIA = etree.XPath("descendant-or-self::*[self::img or self::input or self::select or self::textarea or "
                           "self::button or self::iframe or self::svg or self::video or self::audio or self::object "
                           "or self::embed]")
HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)


@dataclass
class Doc:
    """The page the rules work on: its parts, and what a rule hands on to the rules after it."""

    page: Any
    #: The editable copy of <body> (None while the head rules run: they do not read it).
    body: HtmlElement = None
    #: The removed-links list, found before the body was copied.
    nav: HtmlElement | None = None
    #: Captions a reader chain took out of a figure, by the image (in the copy) they describe.
    captions: dict[HtmlElement, str] = field(default_factory=dict)
    #: Whether no script of the page can run (asked once, before the first rule that needs it).
    scripts_gone: bool = False
    #: The page's one <main> once the landmark rule has run (None: there is none).
    main: HtmlElement | None = None
    #: Whether the page's <title> was made up here (from its address, or the untitled text): no
    #: headline the page gave, so never shown as its heading.
    title_made: bool = False


def has_name(el: HtmlElement) -> bool:
    """An accessible name from an attribute (aria-label, a resolvable aria-labelledby, title)."""
    if (el.get("aria-label") or "").strip() or (el.get("title") or "").strip():
        return True
    ids = (el.get("aria-labelledby") or "").split()
    root = el.getroottree()
    return any(BY_ID(root, i=i) for i in ids)


def hidden_alternatives(el: HtmlElement) -> list[str]:
    """The text alternatives inside ``el`` that do not reach its accessible name: the alt of
    hidden images, titles and aria-labels of its descendants (each once, in order)."""
    found = [WS.sub(" ", d.get(attr) or "").strip()
             for d in el.iterdescendants() if isinstance(d.tag, str)
             for attr in (("alt", "title", "aria-label") if d.tag == "img" else ("title", "aria-label"))]
    return [h for h in dict.fromkeys(found) if h]


def named_by_content(a: HtmlElement) -> bool:
    """A link named by what it holds besides text: an exposed image with alt text, an exposed
    descendant with its own aria-label, an ``<svg>`` with a ``<title>``."""
    for el in a.iterdescendants(dom.ELEMENT):
        if any((x.get("aria-hidden") or "").strip().lower() == "true" or x.get("hidden") is not None
               or HIDDEN_STYLE.search(x.get("style") or "") for x in _up_to(el, a)):
            continue  # hidden from screen readers (aria-hidden, hidden, display:none): names nothing
        if el.tag in ("img", "area") and (el.get("alt") or "").strip():
            return True
        if (el.get("aria-label") or "").strip() or (el.tag == "title" and dom.text_of(el)):
            return True
    return False


def _up_to(el: HtmlElement, top: HtmlElement):
    """``el`` and its ancestors below ``top`` (``el`` is inside ``top``), nearest first: one walk up,
    where asking of each ancestor whether it is inside ``top`` walked up again from each."""
    yield el
    for x in el.iterancestors():
        if x is top:
            return
        yield x


def free_id(body: HtmlElement, stem: str, used: Collection[str] | None = None) -> str:
    """``stem-n`` for the first n no element of the page has as id. ``used``: the page's ids, when the
    caller keeps them current (content_first names blocks in a loop: one search of the page, not one an id)."""
    if used is None:
        used = set(ALL_IDS(body))
    n = 1
    while f"{stem}-{n}" in used:
        n += 1
    return f"{stem}-{n}"


def spoken(el: HtmlElement) -> bool:
    """Whether a block says anything to a screen reader (text, an image, a control, a frame)."""
    if not isinstance(el.tag, str) or el.tag in ("script", "style", "template", "noscript", "link", "meta"):
        return False
    if el.tag == "a" and el.get("class") == SKIP_CLASS:
        return False
    return bool(dom.text_len(el) or SPOKEN_MEDIA(el))


def inside(node: HtmlElement, container: HtmlElement) -> bool:
    """Whether ``container`` is an ancestor of ``node``: a walk up ``node``'s ancestors, as long as the
    page is deep, so once per question, never once per element of a walk (see :func:`in_document_order`)."""
    return any(a is container for a in node.iterancestors())


def in_document_order(root: HtmlElement, scope: HtmlElement) -> Iterator[tuple[HtmlElement, bool]]:
    """``root``'s nodes in document order, each with whether it is ``scope`` or inside it. ``scope``'s
    nodes are one run in that order, from ``scope`` to its last node (its last child's last child, and
    so on), so a flag set and cleared there answers for every node; asking :func:`inside` for each
    would walk each node's ancestors, and a page nested a thousand levels deep makes that a million steps."""
    last = scope
    while len(last):
        last = last[-1]
    in_scope = False
    for el in root.iter():
        if el is scope:
            in_scope = True
        yield el, in_scope
        if el is last:
            in_scope = False


def precedes(a: HtmlElement, b: HtmlElement) -> bool:
    """True when ``a`` starts before ``b`` in document order (and does not contain it)."""
    for el in a.getroottree().iter():
        if el is a:
            return not inside(b, a)
        if el is b:
            return False
    return False


def shorten(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:.") + "…"
