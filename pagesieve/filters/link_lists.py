"""``link_lists``: remove blocks that are mostly links (the paper's link list remover).

Source: dom-and-nlp-content-extraction-proxy.txt, "link list remover" (the paragraph after the
advertisement remover): a *link list* is a table cell whose ratio of the number of links to the
number of non-linked words is greater than the *link/text removal ratio*; non-linked words are
the letters outside links divided by the average characters per word ("preset as say 5"). The
cell's content is removed, optionally the cell itself.

Here the same test applies to the cells' modern equivalents (``ul``/``ol``/``menu``/``dl``,
``nav``, ``aside``, ``div``). Blocks are examined top-down in document order: a block that is a
link list is removed whole; otherwise its inner blocks are examined. Letters are letters and
digits (punctuation such as the ``|`` between menu items is not a word).

Safety (pagesieve's additions, so the filter cooperates with the chain's article-loss guard):

* a cell of a data table (``dom.is_data_table``) is never a link list;
* the detected article (``ctx.article``) and its ancestors are never removed; inside it, a block is
  removed only when its link text outweighs its other text (``article_link_share``);
* a block holding ``keep_text`` or more letters outside links is never removed as a whole (before an
  article is known, a wrapper holding both the menu and the story must not go); its inner blocks
  are examined instead.

Main content that is link-dense (issue 15: product grids, listings, forum threads, tables of
contents were removed as link lists) is recognised by general signals, never by site names:

* **the page's main block** — before an article is known, the page's semantic main content (one
  ``<main>`` or ``role=main``, else one ``<article>`` or ``itemprop=articleBody``) stands in for it:
  it and its ancestors are never removed, and inside it only blocks whose link text outweighs
  their other text go (``article_link_share``);
* **size** — a block holding ``page_share`` or more of the page's letters is the page, not a list
  on it: its inner blocks are examined instead;
* **repeated items** — a block whose children are ``min_items`` or more siblings of the same tag
  and class, most of which (``item_text_share``) carry text of their own outside links
  (``item_letters``: a price, a teaser, a date, a post) or a price (a currency and an amount, linked
  or not) is a grid of items — products, stories,
  posts — and is kept whole; a block holding such a grid is not removed whole either. A menu's
  items are links only, so a menu is never such a grid. Items that are whole links are *cards*
  when they are long (``card_letters`` on average) and the grid holds ``grid_share`` of the page's
  letters (the grid of a shop's category page; not a short "related" list beside a story). In the
  page's grid (``grid_share`` of its letters, or inside its main block) of alike items (none above
  ``item_max_share`` of its letters), whether link-dense as a whole or not, no item is removed whole,
  nor a block wrapping a whole item or ``ITEM_CORE_SHARE`` of it (a listing's name, tagline and topic
  links): a product card of two links and a price is link-dense on its own (the smaller blocks inside
  an item are still tested: a post's reply links, the topic links);
* **prices** — a block of which ``PRICED_SHARE`` of the links show a price in their text is a shelf of
  product cards that are whole links ("MacBook Air From $1099 Buy"), not a link list: a link farm's
  links show no price;
* **prose** — a block holding a paragraph (``<p>``, or a ``<div>``/``<blockquote>``/``<td>``/``<dd>``
  whose own run of text — its text, its inline children's, not nested blocks' — has them: a post
  written with ``<br>``) with ``prose_letters`` or more letters outside links is not removed whole (a short post in a column beside its category list: the column is
  link-dense, the post is not): its inner blocks are tested instead;
* **cards** — a paragraph (``<p>``) of ``card_prose_letters`` or more letters inside a link is read as
  text, not as the link's label: a row of service cards, each one ``<a>`` around a heading and a
  teaser, is not a link list (a menu's short descriptions still are link labels);
* **headline** — a block holding the page's headline (a heading ``<h1>``–``<h6>`` that says what the
  page's schema.org headline, ``og:title`` or ``<title>`` says) is not removed whole: a short post
  under its heading, among its edit, tag and share links, is the page's content; and a short block
  (``byline_letters``) beside the headline (the block just before it or one of the next two, at its
  level or one of its two nearest ancestors' levels) whose text outside links has a year or a time
  is its byline ("By <a>author</a> · Nov 9, 2012 1:50 pm · <a>12 comments</a>") and stays;
* **table of contents** — inside the main block, a list whose links mostly (``toc_share``) lead to
  places on the same page (``#…``) or to the pages under it (``/docs/auth`` → ``/docs/auth/apple``:
  a documentation section's index of its sub-pages, a category's list of its items) is the
  content's own table of contents. The site's root is above every page, so a page at ``/`` has no
  pages under it by this rule.

* **the page itself** — when the link lists outside page furniture hold ``min_rest`` letters or more
  and removing them would leave fewer than that outside furniture, the lists are the page (a
  directory, a page of bookmarks, a sitemap): they stay, and only the furniture's lists go. Without
  this a page of links came back empty. Measured on the five corpora: cleaneval recall .99083 ->
  .99128 (its page of bookmarks, final-366, .93 -> .995), no precision lower.

None of these applies to a block in page furniture: ``<nav>``, ``<header>``, ``<footer>`` (not
those of an ``<article>`` or ``<main>``: its own head and foot), ``<aside>``, the
navigation/banner/contentinfo/complementary roles, or blocks named like menus, sidebars, footers or
related lists (``FURNITURE``; not a block holding ``page_share`` of the page's letters).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from lxml import etree
from lxml.html import HtmlElement

from pagesieve.analysis import pagemeta
from pagesieve.analysis.furniture import (
    CONTENT_TAGS,
    furniture_of,
    in_landmark,
    semantic_main,
)
from pagesieve.analysis.headline import WORD, same_words
from pagesieve.analysis.pagetype import PRICE
from pagesieve.core import dom
from pagesieve.core.measure import UNCOUNTED as _UNCOUNTED
from pagesieve.core.measure import letters
from pagesieve.core.settings import setting
from pagesieve.filters.base import Filter

_CELL_TAGS = frozenset({"td", "th"})


@dataclass(frozen=True)
class LinkListSettings:
    """The link/text removal ratio and where it applies (the paper's "Advanced Settings")."""

    # Sources: Links per non-linked word above which a block is a link list (the paper's link/text removal ratio; the
    # paper leaves the value to the user).
    ratio: float = setting(0.35, "A block with more links than this per word of ordinary text is a list of links.",
                           minimum=0, maximum=100, group="advanced", scope="user")
    # Sources: Average characters per word: non-linked words = letters outside links / this (paper: "preset as say
    # 5").
    chars_per_word: float = setting(5.0, "Average characters per word, used to count the words outside links.", minimum=1, maximum=50, group="advanced", scope="user")
    # Sources: A block needs at least this many links to be a link list (pagesieve: a lone link is not a list; the
    # paper has no minimum, i.e. 1).
    min_links: int = setting(2, "A block needs at least this many links to count as a list of links (a lone link is "
                                "not a list).",
                             minimum=1, maximum=1000, group="advanced", scope="user")
    tags: tuple[str, ...] = setting(("td", "ul", "ol", "menu", "dl", "nav", "aside", "div"),
                                    "Blocks tested: table cells (the paper) and their modern equivalents.",
                                    group="advanced", scope="preset")
    # Sources: Remove a link-list table cell itself, not only its content (paper: optional; keeping the cell keeps the
    # table's grid).
    remove_cells: bool = setting(False, "Remove a table cell that is a list of links itself, not only what it holds "
                                        "(keeping the cell keeps the table's grid).", group="advanced", scope="user")
    # Sources: A block with at least this many letters outside links is never removed whole (its inner blocks are
    # tested instead); the paper's article-size threshold (500 characters, article detection).
    keep_text: int = setting(500, "A block with at least this many letters outside links is never removed whole; the "
                                  "parts inside it are judged one by one.", minimum=0, group="advanced", scope="user")
    # Sources: Inside the detected article a block is removed only when more than this fraction of its letters are
    # link text (pagesieve's guard: blocks that hold mostly text stay).
    article_link_share: float = setting(0.5, "Inside the article, a block is removed only when more than this share "
                                             "of its letters are link text.",
                                        minimum=0, maximum=1, group="advanced", scope="user")
    # Sources: A block holding at least this share of the page's letters is the page, not a list on it: never removed
    # whole (pagesieve; issue 15: listing pages whose whole wrapper is link-dense).
    page_share: float = setting(0.5, "A block holding at least this share of the page's letters is the page itself, "
                                     "not a list on it: never removed whole.", minimum=0, maximum=1, group="advanced", scope="user")
    # Sources: Repeated sibling items (same tag and class) that make a block a grid of items (products, stories,
    # posts), kept whole when most carry their own text (pagesieve; issue 15).
    min_items: int = setting(4, "At least this many repeated items (products, stories, posts) make a grid that is "
                                "kept whole when most items have text of their own.", minimum=2, maximum=1000, group="advanced", scope="user")
    item_letters: int = setting(8, "Letters outside links an item needs to carry text of its own (a price with "
                                   "its currency, a date, a teaser; a menu item has none).", minimum=1,
                                group="advanced", scope="user")
    item_text_share: float = setting(0.5, "Share of a grid's items that must carry text of their own.", minimum=0,
                                     maximum=1, group="advanced", scope="user")
    item_max_share: float = setting(0.25, "A grid of rows (a <tbody>) is kept as one only when no row holds more than this "
                                          "share of its letters (a list of 100 books, not a layout table's few rows).",
                                    minimum=0, maximum=1, group="advanced", scope="user")
    card_letters: int = setting(40, "Items whose text is all link text are still cards (products, stories) when "
                                    "they average at least this many letters (a menu item is a word or two) ...",
                                minimum=1, group="advanced", scope="user")
    grid_share: float = setting(0.2, "... and together hold at least this share of the page's letters (the grid "
                                     "is the page's content, not a list of related links beside it).",
                                minimum=0, maximum=1, group="advanced", scope="user")
    # Sources: A block holding a paragraph (<p>) with at least this many letters outside links is not removed whole:
    # its inner blocks are tested instead (pagesieve; issue 15: a short post beside a long category list).
    prose_letters: int = setting(200, "A block holding a paragraph with at least this many letters outside links is "
                                      "not removed whole; the parts inside it are judged one by one.", minimum=1,
                                 group="advanced", scope="user")
    # Sources: A paragraph (<p>) of at least this many letters inside a link is read as text, not as the link's label:
    # cards that are whole links, a heading and a teaser (pagesieve; issue 15). 0: every letter in a link is link
    # text.
    card_prose_letters: int = setting(80, "A paragraph of at least this many letters inside a link reads as text, not"
                                          " as the link's name (cards made of one link with a heading and a teaser). "
                                          "0: every letter in a link is link text.",
                                      minimum=0, group="advanced", scope="user")
    # Sources: A block beside the page's headline with at most this many letters, whose text outside links holds a
    # year or a time, is the byline and stays (pagesieve; issue 15).
    byline_letters: int = setting(150, "A short block beside the headline, with at most this many letters and a date "
                                       "or time outside links, is the byline and stays.", minimum=0, group="advanced", scope="user")
    # Sources: Link lists outside page furniture stay when removing them would leave fewer than this many letters of
    # the page outside furniture (and they hold at least as many): they are the page (a directory, bookmarks, a
    # sitemap, a front page of headlines). 0: never. The paper's article size (500 characters).
    min_rest: int = setting(500, "Lists of links stay when removing them would leave fewer than this many letters "
                                 "outside menus and footers: they are the page (a directory, bookmarks, a front page "
                                 "of headlines). 0: never.",
                            minimum=0, group="advanced", scope="user")
    toc_share: float = setting(0.6, "Inside the main block, a list whose links lead to places on the same page "
                                    "(#...) or to pages under it (/docs/auth -> /docs/auth/apple) at least this "
                                    "often is the content's table of contents and stays.",
                               minimum=0, maximum=1, group="advanced", scope="user")


def _under(url: str | None) -> tuple[str, str, str] | None:
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


class LinkListFilter(Filter):
    name = "link_lists"
    assigns = ("removed_links",)
    Settings = LinkListSettings
    summary = "Remove link lists: blocks (table cells, lists, nav, aside, div) with more links than words."

    def __init__(self, settings: LinkListSettings) -> None:
        super().__init__(settings)
        self._tags = frozenset(settings.tags)

    def apply(self, page, ctx) -> None:
        s = self.settings
        body = dom.body_of(page.root)
        measure = ctx.state.measure()  # the page's shared measurement, kept current by the chain
        stats = measure.links if measure is not None else _link_stats(body)
        article = ctx.article
        if article is None:
            article = semantic_main(page.root)
            if article is not None:
                ctx.note("protect", article, "the page's semantic main block stands in for the article")
        protected = set(article.iterancestors()) | {article} if article is not None else set()
        furniture = furniture_of(body, stats, s.page_share)
        grids = self._grids(body, stats, furniture)
        under = _under(page.url)
        holds_grid = {a for g in grids for a in g.iterancestors()}
        holds_grid.update(self._prose_holders(body, stats, furniture))
        headline = _headline(page, body, furniture)
        bylines: set[HtmlElement] = set()
        if headline is not None:
            holds_grid.update(headline.iterancestors())
            bylines = self._bylines(headline, stats) - furniture
        page_letters = stats.get(body, (0, 0, 0))[2]
        tables: dict[HtmlElement, bool] = {}
        # Nodes inside a block already removed or kept (a set of descendants, filled once per such
        # block: a linear walk, where testing each node's ancestors was quadratic on deep pages).
        settled: set[HtmlElement] = set()
        for grid, n in grids.items():  # a link-dense grid the walk does not test (a <tbody> of rows) is
            # kept as one when its items are alike in size (a layout table's few rows are not) and it
            # is the page's content (grid_share of its letters; not a best-seller list in a sidebar)
            if (grid.tag not in self._tags and self._link_dense(stats[grid])
                    and stats[grid][2] >= s.grid_share * page_letters
                    and max((stats[c][2] for c in grid if c in stats), default=0) <= s.item_max_share * stats[grid][2]):
                ctx.note("keep", grid, "repeated items with text of their own: a grid of items, not a link list",
                         measured={"items": n}, threshold={"min_items": s.min_items, "item_max_share": s.item_max_share})
                settled.update(grid.iterdescendants())
        in_article = set(article.iter()) if article is not None else set()
        found: list[tuple[HtmlElement, dict, dict]] = []  # the link lists, removed once all are known
        for node in list(body.iter(*self._tags)):  # a list: removals must not cut the walk short
            if node in protected or node not in stats:
                continue
            if node in settled:
                continue
            if (node in grids and (stats[node][2] >= s.grid_share * page_letters or node in in_article)
                    and max((stats[c][2] for c in node if c in stats), default=0) <= s.item_max_share * stats[node][2]):
                # the page's grid of alike items (grid_share of its letters, or inside its main block; no
                # item above item_max_share of them), link-dense as a whole or not: none of its items is
                # removed whole (a product card: its name and image links, a price), nor a block that
                # wraps all of one; the blocks inside an item are tested as usual (a post's reply links)
                for item in node:
                    whole = stats.get(item, (0, 0, 0))[2]
                    if whole:
                        holds_grid.update(d for d in item.iter() if stats.get(d, (0, 0, -1))[2] >= ITEM_CORE_SHARE * whole)
            links, link_letters, letters = stats[node]
            if links < s.min_links:
                continue
            other = letters - link_letters
            words = other / s.chars_per_word
            ratio = links / words if words else math.inf
            if ratio <= s.ratio or other >= s.keep_text:
                continue
            if s.card_prose_letters and (carded := self._prose_in_links(node)):
                # cards that are whole links (a heading and a teaser paragraph inside one <a>): their
                # paragraphs are read as text, not as link labels
                other += carded
                words = other / s.chars_per_word
                ratio = links / words if words else math.inf
                if ratio <= s.ratio:
                    ctx.note("keep", node, "links around paragraphs of prose: cards, not a link list",
                             measured={"links": links, "prose_letters_in_links": carded,
                                       "ratio": round(ratio, 3)},
                             threshold={"ratio": s.ratio, "card_prose_letters": s.card_prose_letters})
                    continue
            if node.tag in _CELL_TAGS and self._in_data_table(node, tables):
                continue
            if node in bylines:
                ctx.note("keep", node, "the byline beside the page's headline (a year or a time outside links)",
                         threshold={"byline_letters": s.byline_letters})
                settled.update(node.iterdescendants())
                continue
            if node in grids:
                ctx.note("keep", node, "repeated items with text of their own: a grid of items, not a link list",
                         measured={"items": grids[node]}, threshold={"min_items": s.min_items})
                settled.update(node.iterdescendants())  # nothing inside a grid is a link list either
                continue
            if node in holds_grid or (node not in furniture and page_letters
                                      and letters >= s.page_share * page_letters):
                continue  # the page or a wrapper of its items: its inner blocks are tested instead
            inside = node in in_article and node is not article
            if inside and node not in furniture and self._toc(node, s, under):
                ctx.note("keep", node, "table of contents of the main block (links to places on this page or "
                                       "to the pages under it)",
                         threshold={"toc_share": s.toc_share})
                settled.update(node.iterdescendants())
                continue
            share = link_letters / letters if letters else 1.0
            if inside and share <= s.article_link_share:
                continue
            if self._priced_links(node, links):
                ctx.note("keep", node, "links that each show a price: a shelf of products, not a link list",
                         measured={"links": links}, threshold={"priced_share": PRICED_SHARE})
                settled.update(node.iterdescendants())
                continue
            measured = {"links": links, "non_linked_words": round(words, 1),
                        "ratio": None if math.isinf(ratio) else round(ratio, 3)}
            threshold = {"ratio": s.ratio, "min_links": s.min_links}
            if inside:
                measured["link_text_share"] = round(share, 3)
                threshold["article_link_share"] = s.article_link_share
            found.append((node, measured, threshold))
            settled.update(node.iterdescendants())
        found = self._unless_the_page(found, body, stats, furniture, ctx)
        for node, measured, threshold in found:
            if node.tag in _CELL_TAGS and not s.remove_cells:
                self._empty(node, ctx, measured, threshold)
            else:
                ctx.remove(node, "link list: more links per non-linked word than the ratio",
                           measured=measured, threshold=threshold)

    def _unless_the_page(self, found: list, body: HtmlElement, stats: dict, furniture: set, ctx) -> list:
        """``found`` (the link lists, each with its measures), less those outside page furniture when
        they are the page's content: removing them would leave fewer than ``min_rest`` letters of the
        page outside furniture, and they hold at least that many (a directory, a page of bookmarks, a
        sitemap, a front page of headlines). Removing them would serve an empty page."""
        need = self.settings.min_rest
        content = [f for f in found if f[0] not in furniture]
        if not need or not content:
            return found
        def outermost(marked: set) -> int:  # letters of the marked subtrees, each counted once
            return sum(stats[el][2] for el in marked if el in stats and el.getparent() not in marked)

        in_furniture = outermost(furniture)
        gone = set(furniture)
        for node, _, _ in content:  # a list may wrap a menu: its letters are the menu's, counted once
            gone.update(node.iter())
        removed = outermost(gone) - in_furniture
        rest = stats.get(body, (0, 0, 0))[2] - in_furniture - removed
        if removed < need or rest >= need:
            return found
        ctx.note("keep", None, "the link lists are the page's content: removing them would leave almost no "
                               "text outside page furniture",
                 measured={"lists": len(content), "list_letters": removed, "rest_letters": rest},
                 threshold={"min_rest": need})
        return [f for f in found if f[0] in furniture]

    def _grids(self, body: HtmlElement, stats: dict, furniture: set) -> dict[HtmlElement, int]:
        """Blocks outside page furniture whose children are repeated items with text of their own
        (see the module docstring): block -> number of items."""
        s = self.settings
        out: dict[HtmlElement, int] = {}
        page_letters = stats.get(body, (0, 0, 0))[2]
        for node in body.iter(*self._tags, "section", "main", "article", "tbody", "table"):
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
                _, link_letters, letters = stats[it]
                if letters - link_letters >= s.item_letters or (letters and PRICE.search(dom.text_of(it))):
                    texty += 1
            if texty >= s.item_text_share * len(items):
                out[node] = len(items)
                continue
            letters = sum(stats[it][2] for it in items)
            if letters >= s.card_letters * len(items) and letters >= s.grid_share * page_letters:
                out[node] = len(items)  # cards: whole items are links, but long ones, and they are the page
        return out

    @staticmethod
    def _priced_links(node: HtmlElement, links: int) -> bool:
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

    def _link_dense(self, got) -> bool:
        """The link-list test on (links, link letters, letters), without the safety rules."""
        links, link_letters, letters = got
        words = (letters - link_letters) / self.settings.chars_per_word
        return links >= self.settings.min_links and (not words or links / words > self.settings.ratio)

    def _bylines(self, headline: HtmlElement, stats: dict) -> set[HtmlElement]:
        """The short blocks beside ``headline`` whose text outside links has a year or a time (see the
        module docstring)."""
        out: set[HtmlElement] = set()
        node: HtmlElement | None = headline
        for _ in range(3):
            if node is None or node.tag in CONTENT_TAGS:
                break
            near = [x for x in (node.getprevious(),) if x is not None]
            nxt = node.getnext()
            while nxt is not None and len(near) < 3:
                near.append(nxt)
                nxt = nxt.getnext()
            for el in near:
                got = stats.get(el) if isinstance(el.tag, str) else None
                if got is not None and 0 < got[2] <= self.settings.byline_letters and _DATE.search(_text_outside_links(el)):
                    out.add(el)
            node = node.getparent()
        return out

    def _prose_in_links(self, node: HtmlElement) -> int:
        """Letters of the paragraphs (``<p>`` of ``card_prose_letters`` or more letters) inside links
        under ``node``."""
        need = self.settings.card_prose_letters
        total = 0
        for a in node.iter("a"):
            for p in a.iter("p"):
                n = letters(p.text_content())
                if n >= need:
                    total += n
        return total

    def _prose_holders(self, body: HtmlElement, stats: dict, furniture: set) -> set[HtmlElement]:
        """The blocks outside page furniture holding a paragraph of ``prose_letters`` or more letters
        outside links (see the module docstring)."""
        out: set[HtmlElement] = set()
        need = self.settings.prose_letters
        for p in body.iter("p", "div", "blockquote", "td", "dd"):
            got = stats.get(p)
            if got is None or got[2] - got[1] < need or p in furniture:
                continue
            if p.tag != "p" and _loose_letters(p) < need:
                continue  # a block's own run of text (a post written with <br>, no <p>) counts as a paragraph
            for a in p.iterancestors():
                if a in out:
                    break
                out.add(a)
        return out

    @staticmethod
    def _toc(node: HtmlElement, s: LinkListSettings, under: tuple[str, str, str] | None) -> bool:
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
                parts = urlsplit(urljoin(under[2], h))
                toc += parts.netloc.lower() == under[0] and parts.path.startswith(under[1])
        return toc >= s.toc_share * len(hrefs)

    @staticmethod
    def _in_data_table(cell: HtmlElement, cache: dict[HtmlElement, bool]) -> bool:
        table = next(cell.iterancestors("table"), None)
        if table is None:
            return False
        if table not in cache:
            cache[table] = dom.is_data_table(table)
        return cache[table]

    @staticmethod
    def _empty(cell: HtmlElement, ctx, measured: dict, threshold: dict) -> None:
        """Remove a cell's content, keeping the (now empty) cell in the table's grid."""
        ctx.note("remove", cell, "link list: the cell's content is removed (more links per non-linked word "
                                 "than the ratio)", measured=measured, threshold=threshold)
        for child in list(cell):
            ctx.remove(child, "content of a link-list cell", explain=False)
        if cell.text:
            ctx.set_text(cell, None)


#: A year (1900-2099) or a clock time: what a byline's date line has outside its links.
_DATE = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)|(?<!\d)\d{1,2}:\d\d(?!\d)")


#: Inside an item of the page's grid, a block holding at least this share of the item's letters is the item
#: itself (a product's name, tagline and topics), not removed whole; its smaller blocks are tested as usual.
ITEM_CORE_SHARE = 0.75
#: Share of a block's links that show a price for the block to be a shelf of products (_priced_links).
PRICED_SHARE = 0.5
#: ... of at most this many links: a header or footer of hundreds of links is not a shelf, and is not read.
PRICED_MAX_LINKS = 48


def _text_outside_links(el: HtmlElement) -> str:
    """The text of ``el`` that is not inside a link."""
    if el.tag == "a":
        return ""
    parts = [el.text or ""]
    # A loop, not recursion: a page nests as deep as it likes (the fuzz run hit Python's limit).
    stack = [(el, iter(el))]
    while stack:
        node, children = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
            if stack:
                parts.append(node.tail or "")
        elif isinstance(child.tag, str) and child.tag != "a":
            parts.append(child.text or "")
            stack.append((child, iter(child)))
        else:  # a link (its text is the link's) or a comment: only the text after it
            parts.append(child.tail or "")
    return " ".join(parts)


def _headline(page, body: HtmlElement, furniture: set) -> HtmlElement | None:
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
    words = set(WORD.findall(meta.lower()))
    for tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
        for h in body.iter(tag):
            if not dom.text_len(h) or h in furniture and in_landmark(h, body):
                continue
            text = dom.text_of(h)
            own = set(WORD.findall(text.lower()))
            # the same headline, or one whose words the title holds with the site's name and section
            if same_words(meta, text) or (len(own) >= 4 and len(own & words) >= 0.8 * len(own)):
                return h
    return None


_letters = letters


def _link_stats(top: HtmlElement) -> dict[HtmlElement, tuple[int, int, int]]:
    """Per element under ``top``: (links with href, letters inside links, all letters), in one pass
    (what the page's shared measurement, :attr:`pagesieve.core.measure.TextMeasure.links`, holds and
    keeps current; this walk is for a tree that is not measured).

    Children come before parents in reversed document order, so each element adds up its
    children's totals; a child's tail text belongs to the parent."""
    stats: dict[HtmlElement, tuple[int, int, int]] = {}
    for el in reversed(list(top.iter())):
        tag = el.tag
        if not isinstance(tag, str) or tag in _UNCOUNTED:
            continue
        links = 0
        letters = _letters(el.text)
        link_letters = 0
        for child in el:
            letters += _letters(child.tail)
            got = stats.get(child)
            if got is not None:
                links += got[0]
                link_letters += got[1]
                letters += got[2]
        if tag == "a" and el.get("href") is not None:
            links += 1
            link_letters = letters
        stats[el] = (links, link_letters, letters)
    return stats


#: Inline tags whose text belongs to the run of text around them (a paragraph without <p>).
_INLINE = frozenset({"span", "b", "i", "em", "strong", "small", "abbr", "cite", "q", "sup", "sub", "time", "code",
                     "mark", "u", "s", "font", "br", "wbr", "kbd", "var", "bdi", "bdo", "data"})


def _loose_letters(block: HtmlElement) -> int:
    """Letters of ``block``'s own text outside links: its text, its children's tails and the text of
    its inline children (not of links, not of nested blocks)."""
    n = letters(block.text)
    stack = list(block)
    while stack:
        el = stack.pop()
        n += letters(el.tail)
        if isinstance(el.tag, str) and el.tag in _INLINE:
            n += letters(el.text)
            stack.extend(el)
    return n
