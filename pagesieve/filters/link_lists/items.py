"""Link-dense blocks that are content of ``link_lists``'s pages, not link lists (the package docstring's
"repeated items", "prices", "prose" and "cards"): grids of items, the cores of their items, shelves of
priced product links, paragraphs inside links and the blocks holding a paragraph of prose."""

from __future__ import annotations

import re

from lxml import etree
from lxml.html import HtmlElement

from pagesieve.analysis.furniture import in_landmark
from pagesieve.analysis.pagetype import PRICE
from pagesieve.core import dom
from pagesieve.core.measure import letters
from pagesieve.filters.link_lists.measures import loose_letters, text_outside_links
from pagesieve.filters.link_lists.settings import LinkListSettings

#: Inside an item of the page's grid, a block holding at least this share of the item's letters is the item
#: itself (a product's name, tagline and topics), not removed whole; its smaller blocks are tested as usual.
ITEM_CORE_SHARE = 0.75
#: A paragraph this long outside links (letters), shorter than ``prose_letters``, is prose when it holds
#: ``PROSE_SENTENCES`` sentences: a blurb of two sentences.
SHORT_PROSE_LETTERS = 100
PROSE_SENTENCES = 2
#: A sentence's end: a letter or digit, then ".", "!" or "?" (a closing quote or bracket may follow), then a
#: space or the end of the text.
SENTENCE_END = re.compile(r"\w[.!?][\"')\u201d\u2019]?(?:\s|$)")
#: A paragraph that ends a statement: it ends in a letter or digit, then "." (a closing quote or bracket
#: may follow). A headline may end in "!" or "?" ("Early entries to our street signs contest!"), a
#: teaser rarely does.
WHOLE_SENTENCE = re.compile(r"\w\.[\"')\u201d\u2019]?\s*$")
#: A paragraph inside a link this long (letters), a whole sentence, is a card's teaser (prose_in_links).
CARD_SENTENCE_LETTERS = 30
#: Share of a block's links that show a price, or prices its text shows per place its links lead to
#: (a product card's picture, name and "Learn more" links lead to one), for the block to be a shelf of
#: products (priced_links).
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
                groups.setdefault(kind(child), []).append(child)
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


def articles(grid: HtmlElement, s: LinkListSettings) -> bool:
    """Whether ``grid``'s items are ``min_items`` or more ``<article>`` elements: compositions of their
    own (a thread's posts, a blog's entries), whatever their sizes, not the columns of a layout."""
    return sum(1 for c in grid if c.tag == "article") >= s.min_items


def kind(el: HtmlElement) -> tuple:
    """What makes siblings items of one grid: the same tag and first class."""
    return el.tag, tuple((el.get("class") or "").split()[:1])


def texty(item: HtmlElement, stats: dict, s: LinkListSettings) -> bool:
    """Whether an item carries text of its own outside links and headings (a date, a teaser, a post; a
    menu's column under its heading "News & Gossip" carries none) or a price."""
    links_, link_letters, letters_ = stats.get(item, (0, 0, 0))
    other = letters_ - link_letters
    if other >= s.item_letters:
        for h in item.iter(*_HEADINGS):
            got = stats.get(h, (0, 0, 0))
            other -= got[2] - got[1]
    return other >= s.item_letters or bool(letters_ and PRICE.search(dom.text_of(item)))


def item_cores_of(grid: HtmlElement, stats: dict, s: LinkListSettings) -> list[HtmlElement]:
    """The cores (:func:`item_cores`) of the items of ``grid`` that carry text of their own, in a grid
    whose items differ in size (a river of stories: quick posts of several paragraphs beside headline
    cards, each with its author and date); a menu's entries carry none."""
    out: list[HtmlElement] = []
    for item in grid:
        if isinstance(item.tag, str) and texty(item, stats, s):
            out.append(item)
            out.extend(_post_cores(item, stats, set(), s))
    return out


def replies(grid: HtmlElement, stats: dict, s: LinkListSettings) -> set[HtmlElement]:
    """In a grid of items with text of their own, the items nested in its items that are of their
    kind (same tag and first class) and carry text of their own: a thread's replies, each under the
    post it answers (``li.comment > ul > li.comment``). Their cores and the blocks between them and
    the grid are not removed whole: a short reply (its title, score and author links, one line of
    text) is link-dense on its own. A menu's nested entries are links only and never form the grid."""
    kinds = {kind(c) for c in grid if isinstance(c.tag, str)}
    out: set[HtmlElement] = set()
    for item in grid:
        if not isinstance(item.tag, str):
            continue
        nested = [n for n in item.iterdescendants(item.tag) if kind(n) in kinds]
        if not nested:
            continue
        for post in [item] + nested:
            if post is item or texty(post, stats, s):
                out.update(_post_cores(post, stats, set(nested), s))
        for n in nested:
            if texty(n, stats, s):
                for a in n.iterancestors():
                    if a is item or a in out:
                        break
                    out.add(a)
    return out


def _post_cores(item: HtmlElement, stats: dict, nested: set[HtmlElement], s: LinkListSettings) -> list[HtmlElement]:
    """The blocks of a thread's ``item`` that hold ``ITEM_CORE_SHARE`` of its own letters (its post,
    the replies nested in it aside) and hold no reply; and the blocks holding its post's heading (the
    post's head: its title link, the author's and the score's links, link-dense on its own)."""
    below = [n for n in item.iterdescendants(item.tag) if n in nested]
    inner = set(below)
    outer = [n for n in below if not any(a in inner for a in n.iterancestors())]
    holds_reply = {a for n in outer for a in n.iterancestors()} | {d for n in outer for d in n.iter()}
    def other(el: HtmlElement) -> int:
        got = stats.get(el, (0, 0, 0))
        return got[2] - got[1]

    own = stats.get(item, (0, 0, 0))[2] - sum(stats.get(n, (0, 0, 0))[2] for n in outer)
    own_other = other(item) - sum(other(n) for n in outer)
    if own <= 0:
        return []
    # the post's text: the blocks holding most of its letters, or most of its letters outside links
    # (the body of a short post, beside its author's card and its reaction links)
    out = [d for d in item.iterdescendants() if d not in holds_reply
           and (stats.get(d, (0, 0, -1))[2] >= ITEM_CORE_SHARE * own
                or (own_other >= POST_LETTERS and d in stats and other(d) >= ITEM_CORE_SHARE * own_other))]
    # the blocks around its longest text without links: a short post's body among its author's card,
    # date and reaction links; a card's teaser or price
    body = max((d for d in item.iterdescendants() if d not in holds_reply and d in stats and not stats[d][0]),
               key=lambda d: stats[d][2], default=None)
    if (body is not None and stats[body][2] >= s.item_letters and body.tag not in _HEADINGS
            and next(body.iterancestors(*_HEADINGS), None) is None):  # a label ("Share this on:") is no post
        for a in body.iterancestors():
            if a is item:
                break
            out.append(a)
    for h in item.iterdescendants(*_HEADINGS):
        if h not in holds_reply and next(h.iter("a"), None) is not None:  # the post's title, a link to it
            for a in h.iterancestors():
                if a is item:
                    break
                out.append(a)
            break
    return out


_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
#: A post's text outside links makes its blocks its core from this many letters (a label such as
#: "Share this on:" beside share links is not one).
POST_LETTERS = 20


def even(node: HtmlElement, stats: dict, s: LinkListSettings) -> bool:
    """No child of ``node`` holds more than ``item_max_share`` of its letters: alike items."""
    return max((stats[c][2] for c in node if c in stats), default=0) <= s.item_max_share * stats[node][2]


def item_cores(grid: HtmlElement, stats: dict, s: LinkListSettings) -> list[HtmlElement]:
    """The blocks of ``grid``'s items that hold ``ITEM_CORE_SHARE`` of their item's letters (the
    items themselves among them), and of those with text of their own the blocks around that text
    and their heading (:func:`_post_cores`): none is removed whole."""
    out: list[HtmlElement] = []
    for item in grid:
        whole = stats.get(item, (0, 0, 0))[2]
        if whole:
            out.extend(d for d in item.iter() if stats.get(d, (0, 0, -1))[2] >= ITEM_CORE_SHARE * whole)
            if texty(item, stats, s):
                out.extend(_post_cores(item, stats, set(), s))
    return out


def priced_links(node: HtmlElement, links: int, beside: bool = False) -> bool:
    """Product cards (PRICED_MAX_LINKS links at most): PRICED_SHARE of the block's links show a price
    in their text (a shop's shelf of cards that are whole links: "MacBook Air From $999"); or, with
    ``beside`` (a block outside page furniture), its text shows PRICED_SHARE prices or more per place
    its links lead to (an address less its ``#`` part): a picture link, a name link and a "Learn
    more" to one product beside its price. A link farm's links and places show no price. Tested
    last, on a block about to go (it costs a read of its text)."""
    if links > PRICED_MAX_LINKS:
        return False  # a header or footer of hundreds of links is not a shelf, and is not read
    prices = len(PRICE.findall(etree.tostring(node, method="text", encoding=str, with_tail=False)))
    if not prices:
        return False  # one search of the block's text (serialised in C) spares one per link
    priced = 0
    places = set()
    for a in node.iter("a"):
        href = a.get("href")
        if href is None:
            continue
        if PRICE.search(dom.text_of(a)):
            priced += 1
            if priced >= PRICED_SHARE * links:
                return True
        if place := href.strip().partition("#")[0]:
            places.add(place)
    return beside and prices >= PRICED_SHARE * len(places)


def prose_in_links(node: HtmlElement, s: LinkListSettings, sentences: bool = False) -> int:
    """Letters of the paragraphs (``<p>`` of ``card_prose_letters`` or more letters) inside links
    under ``node``, or made of one link (a story's teaser linked to the story, ``<p><a>Apple has
    released ...</a></p>``: a menu's entries are not paragraphs). With ``sentences`` (a block outside
    page furniture) also a shorter paragraph inside a link that is a whole sentence of
    ``CARD_SENTENCE_LETTERS`` or more: a card's one-line teaser ("Sync your subscribers and leads
    across platforms."), which a menu entry's label never ends like."""
    need = s.card_prose_letters

    def prose(p: HtmlElement) -> int:
        n = letters(p.text_content())
        if n >= need or (sentences and n >= CARD_SENTENCE_LETTERS
                         and WHOLE_SENTENCE.search(p.text_content()) is not None):
            return n
        return 0

    total = 0
    for p in node.iter("p"):  # the paragraphs first: most blocks hold none, and a link rarely holds one
        a = next(p.iterancestors("a"), None)
        if a is not None and (a is node or any(x is node for x in a.iterancestors())):
            total += prose(p)
    for p in node.iter("p"):
        if len(p) == 1 and p[0].tag == "a" and not letters(p.text) and not letters(p[0].tail):
            if next(p[0].iter("p"), None) is None:
                total += prose(p[0])
    return total


def _sentences(p: HtmlElement) -> bool:
    """Whether the text of ``p`` outside links holds ``PROSE_SENTENCES`` whole sentences (a game's or a
    product's blurb of two sentences: a menu's labels and a link farm's never end like sentences)."""
    return len(SENTENCE_END.findall(text_outside_links(p))) >= PROSE_SENTENCES


def prose_holders(body: HtmlElement, stats: dict, furniture: set, s: LinkListSettings,
                  article: HtmlElement | None = None) -> set[HtmlElement]:
    """The blocks outside page furniture holding a paragraph of ``prose_letters`` or more letters
    outside links (see the package docstring). Inside the article, a block only named like furniture
    (a game's ``game_header_ctn`` around its blurb) is its own head, not the site's banner: its
    paragraphs count unless a landmark holds them by its markup."""
    out: set[HtmlElement] = set()
    need = min(s.prose_letters, SHORT_PROSE_LETTERS)
    for p in body.iter("p", "div", "blockquote", "td", "dd"):
        got = stats.get(p)
        if got is None or got[2] - got[1] < need:
            continue
        if p in furniture and (article is None or article not in p.iterancestors() or in_landmark(p, body)):
            continue
        if p.tag != "p" and loose_letters(p) < need:
            continue  # a block's own run of text (a post written with <br>, no <p>) counts as a paragraph
        if got[2] - got[1] < s.prose_letters and not _sentences(p):
            continue
        for a in p.iterancestors():
            if a in out:
                break
            out.add(a)
    return out
