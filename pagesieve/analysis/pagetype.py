"""What kind of page this is, from the page itself: article, listing, collection, product, forum,
documentation or service — and why.

The kinds are those of the Web Content Extraction Benchmark (WCXB, ``meta.page_type``): the main
content of each kind is different (an article's story; the items of a listing or a shop collection;
a product's description and specifications; every post of a forum thread; a documentation body;
the text of a service page), so the reader picks its strategy by it.

Signals, strongest first; each found signal adds its weight to a kind, and the kind with most
weight wins (ties: the order of ``KINDS``). :func:`detect` returns the kind and the signals.

1. **Declared type** — schema.org ``@type`` in JSON-LD and ``itemtype`` microdata (``Product``,
   ``NewsArticle``, ``DiscussionForumPosting``, ``QAPage``, ``ItemList``, ``CollectionPage``,
   ``TechArticle``, ``Service`` ...), and ``og:type`` (``article``, ``product``). Declared by the
   site for search engines, so usually right about the page — except that many shops and blogs
   declare ``WebPage``/``Article`` on every page; those weigh less (``DECLARED``).
2. **Repeated items** — the largest group of sibling blocks with the same tag and first class
   name (a shop's tiles carry names of their own after it: ``post-1501``, ``instock``), each with
   a link and text of its own, or one link that wraps a heading and a summary (a teaser card,
   ``CARD_SUMMARY_CHARS``) (``MIN_ITEMS``): a listing; with prices in most items, a shop
   collection. Repeated blocks that carry an author and a date each (``post``, ``message``,
   ``comment``, ``reply`` names, or ``itemprop=author``), a forum thread.
3. **Page furniture** — an "add to cart"/"buy" control beside one price: a product page; many
   ``<pre>``/``<code>`` blocks or a ``docs``-named navigation: documentation; a dominant text
   block of ``ARTICLE_CHARS`` or more: an article.
4. **The address** — path words such as ``/products/``, ``/docs/``, ``/threads/``, ``/questions/``,
   ``/collections/``, ``/category/`` (weak: a hint, not proof).

With no signal the page is a *service* page (a company's page about itself: short sections,
calls to action, no dominant story).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from lxml import etree
from lxml.html import HtmlElement

from pagesieve.analysis.furniture import in_furniture
from pagesieve.analysis.scan import Scan, meta_keys
from pagesieve.core import dom
from pagesieve.core.measure import UNCOUNTED, parents_of

KINDS = ("article", "forum", "product", "collection", "listing", "documentation", "service")

# Weights: a strong declared type outweighs structure; the address is a hint.
DECLARED = 4.0        # schema.org / og:type naming a specific kind
DECLARED_WEAK = 1.5   # schema.org Article/BlogPosting (many sites declare it on every page)
STRUCTURE = 3.0       # repeated item structure, posts, cart controls, code blocks
ADDRESS = 1.5         # path words of the URL
DENSE_TEXT = 2.0      # one dominant block of prose

#: A listing needs at least this many repeated sibling items (each with a link and its own text).
MIN_ITEMS = 6
#: A forum thread needs at least this many repeated posts (blocks with an author or post name).
MIN_POSTS = 3
#: Share of the repeated items that show a price for the listing to be a shop collection.
PRICE_SHARE = 0.5
#: Letters in paragraphs (<p>) that make a page's prose dominant (the DOM-and-NLP paper's article
#: size, 500 characters, times three: a story, not a teaser).
ARTICLE_CHARS = 1500
#: Characters of summary beside the heading inside one link that make the link a whole teaser card
#: (a listing item whose title and lead are one link), not a menu entry.
CARD_SUMMARY_CHARS = 80
#: <pre>/<code> blocks that make a page documentation.
MIN_CODE_BLOCKS = 3

_SCHEMA = {
    "product": "product", "productgroup": "product", "offer": None, "individualproduct": "product",
    "newsarticle": "article", "reportagenewsarticle": "article", "blogposting": "article",
    "article": "article_weak", "scholarlyarticle": "article", "review": "article", "recipe": "article",
    "discussionforumposting": "forum", "qapage": "forum", "question": None, "socialmediaposting": "forum",
    "itemlist": "listing", "collectionpage": "collection", "searchresultspage": "listing", "offercatalog": "collection",
    "techarticle": "documentation", "apireference": "documentation", "howto": "documentation",
    "service": "service", "professionalservice": "service", "localbusiness": "service", "organization": None,
    "aboutpage": "service", "contactpage": "service", "faqpage": "service",
}
_OG = {"article": "article_weak", "product": "product", "og:product": "product", "product.item": "product",
       "product.group": "collection"}
_URL = [
    (re.compile(r"/(products?|p|dp|item|shop/product)/[^/]+", re.I), "product"),
    (re.compile(r"/(docs?|documentation|reference|manual|api|library|usersguide|guide|wiki)(/|$|\.)", re.I),
     "documentation"),
    (re.compile(r"/(threads?|t|topic|questions|forums?|community|discussion|boards?)/", re.I), "forum"),
    (re.compile(r"/(collections?|shop|category|categories|c|catalog|store|b)(/|$|\?)", re.I), "collection"),
    (re.compile(r"/(news|blog|list|latest|archive|courses?|events|jobs|search|tag|topics?)/?(\?|$)", re.I),
     "listing"),
    (re.compile(r"/\d{4}/\d{2}/|\.html?$|/article|/story|/posts?/", re.I), "article"),
]
PRICE = re.compile(r"(?:[$€£¥₹]\s?\d|\d[\d.,]*\s?(?:€|\$|£|EUR|USD|GBP|kr|zł))")
_CART = re.compile(r"add[\s_-]*to[\s_-]*(?:cart|bag|basket)|buy[\s_-]*(?:now|it)|in den warenkorb|ajouter au panier|"
                   r"add-to-cart|addtocart", re.I)
_POST_NAMES = re.compile(r"(?:^|[\s_-])(?:post|posts|message|comment|reply|answer|topic-post|postbody|"
                         r"forum-post|thread-post|messagelist)(?:$|[\s_-])", re.I)
_CAMEL = re.compile(r"([a-z])([A-Z])")
_AUTHOR = etree.XPath(".//*[@itemprop='author' or contains(@class,'author') or contains(@class,'username') "
                      "or contains(@class,'user-info') or contains(@class,'poster')]")
#: The <meta> elements declaring the Open Graph type (``Scan.content``).
_OG_TYPE = meta_keys(property=("og:type",), name=("og:type",))
_DOCS_NAV = re.compile(r"(?:^|[\s_-])(?:docs?|toc|table-of-contents|sidebar-nav|doc-nav|api)(?:$|[\s_-])", re.I)
_SKIP = UNCOUNTED | {"head"}
#: The blocks that may hold a group of repeated items: elements with MIN_POSTS element children or
#: more, in document order (most of a page's elements have fewer). The definition; picked by
#: ``measure.parents_of``, the same elements in one walk in C.
_PARENTS = etree.XPath(f"descendant-or-self::*[count(*) >= {MIN_POSTS}]")


@dataclass
class PageType:
    """The detected kind, the weights per kind and the signals that gave them."""

    kind: str
    scores: dict[str, float] = field(default_factory=dict)
    signals: list[str] = field(default_factory=list)
    #: The parent of the page's largest group of repeated items, and of its largest group of posts
    #: (``_repeated_items``), as detection found them: the filters read these instead of searching again.
    grid: Any = field(default=None, compare=False, repr=False)
    thread: Any = field(default=None, compare=False, repr=False)

    def why(self) -> str:
        return "; ".join(self.signals) if self.signals else "no signal: a service page"


def schema_types(root: HtmlElement, scan: Scan | None = None) -> list[str]:
    """Lower-case schema.org type names the page declares: JSON-LD ``@type`` (also in ``@graph`` and
    ``mainEntity``), then microdata ``itemtype``. ``scan``: the page as read (read now when not given)."""
    if scan is None:
        scan = Scan(root)
    types: list[str] = []

    def walk(obj) -> None:
        if isinstance(obj, dict):
            t = obj.get("@type")
            for name in (t if isinstance(t, list) else [t]):
                if isinstance(name, str):
                    types.append(name.rsplit("/", 1)[-1].lower())
            for key in ("@graph", "mainEntity", "itemListElement"):
                if key in obj and key != "itemListElement":
                    walk(obj[key])
        elif isinstance(obj, list):
            for item in obj:
                walk(item)

    for obj in scan.jsonld:
        try:
            walk(obj)
        except RecursionError:  # nested deeper than Python's stack
            continue
    for t in scan.itemtypes:
        types.append(t.strip().rstrip("/").rsplit("/", 1)[-1].lower())
    return types


def _repeated_items(body: HtmlElement) -> tuple[int, int, int, HtmlElement | None, HtmlElement | None]:
    """The largest group of sibling blocks of one kind (:func:`item_kind`), each with a link and its own text
    outside the link, outside page furniture (menus, sidebars, footers: ``furniture.furniture``):
    (items, items with a price, items that look like posts, their parent, the parent of the
    largest group of posts — None under MIN_POSTS).

    Only what an answer needs is read: furniture is asked of the candidate parents alone
    (``furniture.in_furniture``), an item's text is read when it has a link or a post's name, and
    the items' prices only for a group that becomes the largest (``priced`` is that group's)."""
    is_furniture = in_furniture(body)
    link_chars: dict[HtmlElement, int] = {}  # a link inside items at several levels is measured once

    def link_len(a: HtmlElement) -> int:
        got = link_chars.get(a)
        if got is None:
            got = link_chars[a] = len(dom.text_of(a))
        return got

    best: tuple = (0, 0, 0, None)
    thread: tuple[int, HtmlElement | None] = (MIN_POSTS - 1, None)
    for parent in parents_of(body, MIN_POSTS):
        if parent.tag in _SKIP or is_furniture(parent):
            continue
        groups: dict[tuple, list[HtmlElement]] = defaultdict(list)
        for child in parent.iterchildren(dom.ELEMENT):
            if child.tag not in _SKIP:
                groups[item_kind(child)].append(child)
        for items in groups.values():
            if len(items) < MIN_POSTS or len(items) <= best[0] and len(items) < MIN_ITEMS:
                continue
            linked = posts = 0
            texts: dict[HtmlElement, str] = {}
            for it in items:
                links = it.iter("a")
                first = next(links, None)
                # camelCase names are words too: a forum's "cPost", "ipsComment", "elComment_67260087"
                names = _CAMEL.sub(r"\1 \2", f"{it.get('class') or ''} {it.get('id') or ''}")
                post_named = (_POST_NAMES.search(names) or it.get("itemprop") in ("comment", "suggestedAnswer",
                                                                                 "acceptedAnswer")
                              or "Comment" in (it.get("itemtype") or ""))
                if first is None and not post_named:
                    continue  # neither linked nor a post: its text is read for its price, if ever
                text = texts[it] = dom.text_of(it)
                if first is not None and len(text) >= 10:
                    anchors = [first, *links]
                    if len(text) - sum(link_len(a) for a in anchors) >= 1 or any(_card_link(a) for a in anchors):
                        linked += 1
                if post_named and len(text) >= 40 and _AUTHOR(it):
                    posts += 1
            if posts > thread[0]:
                thread = (posts, parent)
            if linked >= max(best[0], MIN_ITEMS) or posts >= max(best[2], MIN_POSTS):
                if linked > best[0]:
                    priced = sum(1 for it in items if PRICE.search(texts[it] if it in texts else dom.text_of(it)))
                    best = (linked, priced, max(posts, best[2]), parent)
                elif posts > best[2]:
                    best = (best[0], best[1], posts, parent)
    return (*best, thread[1])


def item_kind(el: HtmlElement) -> tuple[str, str]:
    """What makes sibling blocks items of one kind: their tag and first class name. A shop's or a
    blog's items carry their own names after it (``post-15859``, ``first``, ``instock``, a category):
    the full class string would make every item a kind of its own."""
    names = (el.get("class") or "").split()
    return el.tag, names[0] if names else ""


def _card_link(a: HtmlElement) -> bool:
    """A link that wraps a whole teaser card: a heading and, beside it inside the link, a summary of
    at least CARD_SUMMARY_CHARS characters (a story's title and lead as one link) — an item with text
    of its own, not a menu entry."""
    for h in a.iter(*dom.HEADING_TAGS):
        return len(dom.text_of(a)) - len(dom.text_of(h)) >= CARD_SUMMARY_CHARS
    return False


def _paragraph_letters(body: HtmlElement) -> int:
    """Letters in the largest set of <p> siblings under one parent (the dominant prose block)."""
    per_parent: Counter = Counter()
    for p in body.iter("p"):
        n = len(dom.text_of(p))
        if n >= 25 and sum(len(dom.text_of(a)) for a in p.iter("a")) < n / 2:  # links read of long ones only
            per_parent[p.getparent()] += n
    return max(per_parent.values(), default=0)


def og_types(root: HtmlElement, scan: Scan | None = None) -> list[str]:
    """The page's ``og:type`` values (``<meta property=og:type content=...>``), as written."""
    return (scan if scan is not None else Scan(root)).content(_OG_TYPE)


def has_cart(root: HtmlElement, scan: Scan | None = None) -> bool:
    """An "add to cart"/"buy" control (button, form or input) on the page; ``scan``: the page as read
    (its controls; read now when not given)."""
    controls = scan.controls if scan is not None else dom.body_of(root).iter("button", "form", "input")
    return any(_CART.search(f"{el.get('class') or ''} {el.get('id') or ''} {el.get('name') or ''} "
                            f"{el.get('value') or ''} {dom.text_of(el)[:40]}")
               for el in controls)


def detect(root: HtmlElement, url: str | None = None, declared: Any = None, cart: bool | None = None) -> PageType:
    """The kind of page ``root`` is (see the module docstring for the signals). ``declared``: the
    page's metadata as read before filters removed any (:func:`pagesieve.analysis.pagemeta.of`); without it
    the declared types are read from ``root``."""
    scores: dict[str, float] = dict.fromkeys(KINDS, 0.0)
    signals: list[str] = []

    def add(kind: str, weight: float, why: str) -> None:
        scores[kind] += weight
        signals.append(f"{why} -> {kind} +{weight:g}")

    seen = set()
    scan = Scan(root) if declared is None else None
    schemas = declared.schema_types if declared is not None else schema_types(root, scan)
    ogs = declared.og_types if declared is not None else og_types(root, scan)
    for t in schemas:
        kind = _SCHEMA.get(t)
        if kind and (kind, t) not in seen:
            seen.add((kind, t))
            if kind == "article_weak":
                add("article", DECLARED_WEAK, f"schema.org {t}")
            else:
                add(kind, DECLARED, f"schema.org {t}")
    for og in ogs:
        kind = _OG.get(og.strip().lower())
        if kind == "article_weak":
            add("article", DECLARED_WEAK, f"og:type {og.strip()}")
        elif kind:
            add(kind, DECLARED, f"og:type {og.strip()}")

    body = dom.body_of(root)
    items, priced, posts, grid, thread = _repeated_items(body)
    if posts >= MIN_POSTS:
        add("forum", STRUCTURE, f"{posts} repeated posts with an author")
    if items >= MIN_ITEMS:
        if priced >= PRICE_SHARE * items:
            add("collection", STRUCTURE, f"{items} repeated linked items, {priced} with a price")
        else:
            add("listing", STRUCTURE, f"{items} repeated linked items")
    if cart is None:
        cart = has_cart(root, scan)
    if cart and items < MIN_ITEMS:
        add("product", STRUCTURE, "an add-to-cart control, no item grid")
    code = sum(1 for _ in body.iter("pre")) + sum(1 for el in body.iter("code") if el.getparent().tag != "pre") // 4
    if code >= MIN_CODE_BLOCKS:
        add("documentation", STRUCTURE, f"{code} code blocks")
    if any(_DOCS_NAV.search(f"{el.get('class') or ''} {el.get('id') or ''} {el.get('aria-label') or ''}")
           for el in body.iter("nav", "aside")):
        add("documentation", STRUCTURE / 2, "a docs/TOC navigation")
    prose = _paragraph_letters(body)
    if prose >= ARTICLE_CHARS:  # twice the weight for twice the prose: a long story outweighs a grid beside it
        add("article", DENSE_TEXT * min(2, prose // ARTICLE_CHARS), f"a prose block of {prose} characters")

    path = urlsplit(url or "").path + ("?" + urlsplit(url or "").query if url and urlsplit(url).query else "")
    if path:
        for pattern, kind in _URL:
            if m := pattern.search(path):
                add(kind, ADDRESS, f"address {m.group(0)!r}")
                break

    kind = max(KINDS, key=lambda k: (scores[k], -KINDS.index(k)))
    if scores[kind] <= 0:
        kind = "service"
    return PageType(kind, {k: v for k, v in scores.items() if v}, signals, grid=grid, thread=thread)


__all__ = ["KINDS", "PageType", "detect"]
