"""Link-dense blocks that are content of ``link_lists``'s pages, not link lists (the package docstring's
"repeated items", "prices", "prose" and "cards"): grids of items, the cores of their items, shelves of
priced product links, paragraphs inside links and the blocks holding a paragraph of prose."""

from __future__ import annotations

from lxml import etree
from lxml.html import HtmlElement

from pagesieve.analysis.pagetype import PRICE
from pagesieve.core import dom
from pagesieve.core.measure import letters
from pagesieve.filters.link_lists.measures import loose_letters
from pagesieve.filters.link_lists.settings import LinkListSettings

#: Inside an item of the page's grid, a block holding at least this share of the item's letters is the item
#: itself (a product's name, tagline and topics), not removed whole; its smaller blocks are tested as usual.
ITEM_CORE_SHARE = 0.75
#: Share of a block's links that show a price for the block to be a shelf of products (priced_links).
PRICED_SHARE = 0.5
#: ... of at most this many links: a header or footer of hundreds of links is not a shelf, and is not read.
PRICED_MAX_LINKS = 48


def grids(body: HtmlElement, stats: dict, furniture: set, tags: frozenset[str],
          s: LinkListSettings) -> dict[HtmlElement, int]:
    """Blocks outside page furniture whose children are repeated items with text of their own
    (see the package docstring): block -> number of items."""
    out: dict[HtmlElement, int] = {}
    page_letters = stats.get(body, (0, 0, 0))[2]
    for node in body.iter(*tags, "section", "main", "article", "tbody", "table"):
        if node in furniture or len(node) < s.min_items:
            continue
        groups: dict[tuple, list[HtmlElement]] = {}
        for child in node:
            if isinstance(child.tag, str) and child in stats:  # same tag and first class: items
                groups.setdefault((child.tag, tuple((child.get("class") or "").split()[:1])), []).append(child)
        # the largest group; of groups as large, the one with most letters (30 product cards beside
        # 30 hidden inputs, one per card)
        items = max(groups.values(), key=lambda g: (len(g), sum(stats[it][2] for it in g)), default=[])
        if len(items) < s.min_items:
            continue
        texty = 0
        for it in items:
            _, link_letters, letters_ = stats[it]
            if letters_ - link_letters >= s.item_letters or (letters_ and PRICE.search(dom.text_of(it))):
                texty += 1
        if texty >= s.item_text_share * len(items):
            out[node] = len(items)
            continue
        total = sum(stats[it][2] for it in items)
        if total >= s.card_letters * len(items) and total >= s.grid_share * page_letters:
            out[node] = len(items)  # cards: whole items are links, but long ones, and they are the page
    return out


def even(node: HtmlElement, stats: dict, s: LinkListSettings) -> bool:
    """No child of ``node`` holds more than ``item_max_share`` of its letters: alike items."""
    return max((stats[c][2] for c in node if c in stats), default=0) <= s.item_max_share * stats[node][2]


def item_cores(grid: HtmlElement, stats: dict) -> list[HtmlElement]:
    """The blocks of ``grid``'s items that hold ``ITEM_CORE_SHARE`` of their item's letters (the
    items themselves among them): none is removed whole."""
    out: list[HtmlElement] = []
    for item in grid:
        whole = stats.get(item, (0, 0, 0))[2]
        if whole:
            out.extend(d for d in item.iter() if stats.get(d, (0, 0, -1))[2] >= ITEM_CORE_SHARE * whole)
    return out


def priced_links(node: HtmlElement, links: int) -> bool:
    """At least PRICED_SHARE of the block's links (PRICED_MAX_LINKS at most) show a price in their
    text: product cards that are whole links (a shop's shelf: "MacBook Air From $999"), which a link
    farm's links never do. Tested last, on a block about to go (it costs a read of its text)."""
    if links > PRICED_MAX_LINKS or not PRICE.search(etree.tostring(node, method="text", encoding=str,
                                                                      with_tail=False)):
        return False  # one search of the block's text (serialised in C) spares one per link
    priced = 0
    for a in node.iter("a"):
        if a.get("href") is not None and PRICE.search(dom.text_of(a)):
            priced += 1
            if priced >= PRICED_SHARE * links:
                return True
    return False


def prose_in_links(node: HtmlElement, s: LinkListSettings) -> int:
    """Letters of the paragraphs (``<p>`` of ``card_prose_letters`` or more letters) inside links
    under ``node``."""
    need = s.card_prose_letters
    total = 0
    for a in node.iter("a"):
        for p in a.iter("p"):
            n = letters(p.text_content())
            if n >= need:
                total += n
    return total


def prose_holders(body: HtmlElement, stats: dict, furniture: set, s: LinkListSettings) -> set[HtmlElement]:
    """The blocks outside page furniture holding a paragraph of ``prose_letters`` or more letters
    outside links (see the package docstring)."""
    out: set[HtmlElement] = set()
    need = s.prose_letters
    for p in body.iter("p", "div", "blockquote", "td", "dd"):
        got = stats.get(p)
        if got is None or got[2] - got[1] < need or p in furniture:
            continue
        if p.tag != "p" and loose_letters(p) < need:
            continue  # a block's own run of text (a post written with <br>, no <p>) counts as a paragraph
        for a in p.iterancestors():
            if a in out:
                break
            out.add(a)
    return out
