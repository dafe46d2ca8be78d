"""The ``link_lists`` filter: the paper's test on each block, top-down, with the safety rules of the
package docstring; the link lists found go once all are known."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from lxml.html import HtmlElement

from pagesieve.analysis.furniture import furniture_of, semantic_main
from pagesieve.analysis.pictures import STORY_PICTURE_PX, enlarged_picture, gallery, unlinked_picture
from pagesieve.core import dom
from pagesieve.filters.base import Filter
from pagesieve.filters.link_lists import items
from pagesieve.filters.link_lists.measures import link_stats
from pagesieve.filters.link_lists.page_parts import bylines, headline_of, is_toc, pages_under
from pagesieve.filters.link_lists.settings import LinkListSettings

_CELL_TAGS = frozenset({"td", "th"})

#: A link list found, with its measures and the bounds it passed.
Found = tuple[HtmlElement, dict, dict]


@dataclass(slots=True)
class _Page:
    """What the walk reads of the page, and the blocks it has settled (the nodes inside a block
    already removed or kept: a set of descendants, filled once per such block — a linear walk, where
    testing each node's ancestors was quadratic on deep pages)."""

    body: HtmlElement
    stats: dict
    article: HtmlElement | None
    protected: set[HtmlElement]
    furniture: set[HtmlElement]
    grids: dict[HtmlElement, int]
    under: tuple[str, str, str] | None
    holds_grid: set[HtmlElement]
    bylines: set[HtmlElement]
    page_letters: int
    in_article: set[HtmlElement] = field(default_factory=set)
    tables: dict[HtmlElement, bool] = field(default_factory=dict)
    settled: set[HtmlElement] = field(default_factory=set)


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
        p = self._read(page, ctx)
        self._keep_grids_the_walk_skips(p, ctx)
        p.in_article = set(p.article.iter()) if p.article is not None else set()
        found: list[Found] = []  # the link lists, removed once all are known
        protected, stats, settled, grids = p.protected, p.stats, p.settled, p.grids
        for node in list(p.body.iter(*self._tags)):  # a list: removals must not cut the walk short
            if node in protected or node not in stats:
                continue
            if node in settled:
                continue
            if node in grids:
                self._protect_items(node, p)
            if stats[node][0] < s.min_links:
                continue
            got = self._judge(node, p, ctx)
            if got is not None:
                found.append(got)
                p.settled.update(node.iterdescendants())
        found = self._unless_the_page(found, p.body, p.stats, p.furniture, ctx)
        found = self._unless_the_main(found, p, ctx)
        for node, measured, threshold in found:
            if node.tag in _CELL_TAGS and not s.remove_cells:
                self._empty(node, ctx, measured, threshold)
            else:
                ctx.remove(node, "link list: more links per non-linked word than the ratio",
                           measured=measured, threshold=threshold)

    def _read(self, page, ctx) -> _Page:
        """The page's measures, its article (or semantic main block), furniture, grids, headline and byline."""
        s = self.settings
        body = dom.body_of(page.root)
        measure = ctx.state.measure()  # the page's shared measurement, kept current by the chain
        stats = measure.links if measure is not None else link_stats(body)
        article = ctx.article
        if article is None:
            article = semantic_main(page.root)
            if article is not None:
                ctx.note("protect", article, "the page's semantic main block stands in for the article")
        protected = set(article.iterancestors()) | {article} if article is not None else set()
        furniture = furniture_of(body, stats, s.page_share)
        grids = items.grids(body, stats, furniture, self._tags, s)
        under = pages_under(page.url)
        holds_grid = {a for g in grids for a in g.iterancestors()}
        holds_grid.update(items.prose_holders(body, stats, furniture, s, article))
        headline = headline_of(page, body, furniture)
        near: set[HtmlElement] = set()
        if headline is not None:
            holds_grid.update(headline.iterancestors())
            near = bylines(headline, stats, s, body, furniture)
        return _Page(body, stats, article, protected, furniture, grids, under, holds_grid, near,
                     stats.get(body, (0, 0, 0))[2])

    def _keep_grids_the_walk_skips(self, p: _Page, ctx) -> None:
        """A link-dense grid the walk does not test (a <tbody> of rows) is kept as one when its items
        are alike in size (a layout table's few rows are not) and it is the page's content
        (grid_share of its letters; not a best-seller list in a sidebar)."""
        s, stats = self.settings, p.stats
        for grid, n in p.grids.items():
            if (grid.tag not in self._tags and self._link_dense(stats[grid])
                    and stats[grid][2] >= s.grid_share * p.page_letters and items.even(grid, stats, s)):
                ctx.note("keep", grid, "repeated items with text of their own: a grid of items, not a link list",
                         measured={"items": n}, threshold={"min_items": s.min_items, "item_max_share": s.item_max_share})
                p.settled.update(grid.iterdescendants())

    def _protect_items(self, grid: HtmlElement, p: _Page) -> None:
        """The page's grid of alike items (grid_share of its letters, or inside its main block; no
        item above item_max_share of them), link-dense as a whole or not: none of its items is
        removed whole (a product card: its name and image links, a price), nor a block that
        wraps all of one; the blocks inside an item are tested as usual (a post's reply links). In
        the main block, or of a grid of ``<article>`` items, of a grid of items of unlike size, the
        items with text of their own; and of a thread, the replies nested in its items
        (:func:`items.replies`)."""
        s, stats = self.settings, p.stats
        if not (stats[grid][2] >= s.grid_share * p.page_letters or grid in p.in_article):
            return
        if items.even(grid, stats, s):
            p.holds_grid.update(items.item_cores(grid, stats, s))
        elif grid in p.in_article or items.articles(grid, s):  # items of unlike size in the main block
            # (quick posts beside headline cards), or <article>s (a thread's posts, long and short): those
            # with text of their own, not a menu among them; outside it a grid of unlike <div>s is the
            # page's layout (its banner, columns and footer)
            p.holds_grid.update(el for el in items.item_cores_of(grid, stats, s) if el not in p.furniture)
        p.holds_grid.update(el for el in items.replies(grid, stats, s) if el not in p.furniture)

    def _judge(self, node: HtmlElement, p: _Page, ctx) -> Found | None:
        """``node``, a block with ``min_links`` links or more, as a link list, with its measures and
        bounds; None when it is not one (or is kept)."""
        s = self.settings
        links, link_letters, letters = p.stats[node]
        other = letters - link_letters
        words = other / s.chars_per_word
        ratio = links / words if words else math.inf
        if ratio <= s.ratio or other >= s.keep_text:
            return None
        if s.card_prose_letters and (carded := items.prose_in_links(node, s, node not in p.furniture)):
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
                return None
        if self._kept(node, p, links, link_letters, letters, ctx):
            return None
        inside = node in p.in_article and node is not p.article
        measured = {"links": links, "non_linked_words": round(words, 1),
                    "ratio": None if math.isinf(ratio) else round(ratio, 3)}
        threshold = {"ratio": s.ratio, "min_links": s.min_links}
        if inside:
            measured["link_text_share"] = round(link_letters / letters if letters else 1.0, 3)
            threshold["article_link_share"] = s.article_link_share
        return node, measured, threshold

    def _kept(self, node: HtmlElement, p: _Page, links: int, link_letters: int, letters: int, ctx) -> bool:
        """A link-dense block that stays by a safety rule: a data table's cell, the byline, a grid of
        items, the page or a block holding its grid or prose, the main block's table of contents, a
        block of the article with more text than links, a shelf of priced products."""
        s = self.settings
        if node.tag in _CELL_TAGS and self._in_data_table(node, p.tables):
            return True
        if node in p.bylines:
            ctx.note("keep", node, "the byline beside the page's headline (a year or a time outside links)",
                     threshold={"byline_letters": s.byline_letters})
            p.settled.update(node.iterdescendants())
            return True
        if node in p.grids:
            ctx.note("keep", node, "repeated items with text of their own: a grid of items, not a link list",
                     measured={"items": p.grids[node]}, threshold={"min_items": s.min_items})
            p.settled.update(node.iterdescendants())  # nothing inside a grid is a link list either
            return True
        if node in p.holds_grid or (node not in p.furniture and p.page_letters
                                    and letters >= s.page_share * p.page_letters):
            return True  # the page or a wrapper of its items: its inner blocks are tested instead
        inside = node in p.in_article and node is not p.article
        if inside and node not in p.furniture and is_toc(node, s, p.under):
            ctx.note("keep", node, "table of contents of the main block (links to places on this page or "
                                   "to the pages under it)",
                     threshold={"toc_share": s.toc_share})
            p.settled.update(node.iterdescendants())
            return True
        share = link_letters / letters if letters else 1.0
        if inside and share <= s.article_link_share:
            return True
        if links <= ITEM_LINKS and node not in p.furniture and _in_listed_article(node):
            ctx.note("keep", node, "the few links of one item in a list of <article> items (its title, author "
                                   "or place), not a link list", measured={"links": links},
                     threshold={"item_links": ITEM_LINKS})
            return True
        if gallery(node, s.min_links):
            ctx.note("keep", node, "a gallery: every link shows a picture and opens the picture, not another page",
                     measured={"links": links})
            p.settled.update(node.iterdescendants())
            return True
        if node not in p.furniture and enlarged_picture(node, STORY_PICTURE_PX):
            ctx.note("keep", node, "a picture of the story that opens its own full-size file, with the links "
                                   "beside it: not a link list", measured={"links": links})
            return True
        if (links <= ITEM_LINKS and letters == link_letters and node not in p.furniture
                and unlinked_picture(node, STORY_PICTURE_PX)):
            ctx.note("keep", node, "pictures of the story outside any link, with a few links and no other words "
                                   "beside them (a product's photos under its breadcrumb): not a link list",
                     measured={"links": links}, threshold={"item_links": ITEM_LINKS})
            return True
        if items.priced_links(node, links, beside=node not in p.furniture):
            ctx.note("keep", node, "links that show a price, or a price beside each place they lead to: a shelf "
                                   "of products, not a link list",
                     measured={"links": links}, threshold={"priced_share": items.PRICED_SHARE})
            p.settled.update(node.iterdescendants())
            return True
        return False

    def _unless_the_page(self, found: list, body: HtmlElement, stats: dict, furniture: set, ctx) -> list:
        """``found`` (the link lists, each with its measures), less those outside page furniture when
        they are the page's content: removing them would leave fewer than ``min_rest`` letters of the
        page outside furniture, and they hold at least that many (a directory, a page of bookmarks, a
        sitemap, a front page of headlines). Removing them would serve an empty page."""
        need = self.settings.min_rest
        content = [f for f in found if f[0] not in furniture]
        if not need or not content:
            return found
        def outermost(marked: set) -> int:
            return _outermost_letters(stats, marked)

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

    def _unless_the_main(self, found: list, p: _Page, ctx) -> list:
        """``found`` less the lists inside the article (or the semantic main block) when they are what
        it holds: removing them would leave it fewer than ``min_rest`` letters, and they hold at least
        that many (a category page's cards of recipes, a listing's titles). Removing them would leave
        the main block empty while the page's cookie notice or footer still counts as text."""
        need = self.settings.min_rest
        main = p.article
        if not need or main is None or main not in p.stats:
            return found
        inside = [f for f in found if f[0] in p.in_article and f[0] is not main]
        if not inside:
            return found
        marked = {el for node, _, _ in inside for el in node.iter()}
        removed = _outermost_letters(p.stats, marked)
        rest = p.stats[main][2] - removed
        if removed < need or rest >= need:
            return found
        ctx.note("keep", main, "the link lists are the main block's content: removing them would leave it "
                               "almost no text", measured={"lists": len(inside), "list_letters": removed,
                                                           "rest_letters": rest}, threshold={"min_rest": need})
        keep = {id(f) for f in inside}
        return [f for f in found if id(f) not in keep]

    def _link_dense(self, got) -> bool:
        """The link-list test on (links, link letters, letters), without the safety rules."""
        links, link_letters, letters = got
        words = (letters - link_letters) / self.settings.chars_per_word
        return links >= self.settings.min_links and (not words or links / words > self.settings.ratio)

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


#: At most this many links in a block of one listed item: its title, its author, its section.
ITEM_LINKS = 3
#: A list of items: an element holding at least this many ``<article>`` children.
LISTED_ARTICLES = 3


def _in_listed_article(node: HtmlElement) -> bool:
    """Whether ``node`` is inside an ``<article>`` that is one of a list of them (its parent holds
    ``LISTED_ARTICLES`` or more): a listing's, a search result's or a blog index's items, each a
    composition of its own."""
    item = next(node.iterancestors("article"), None) if node.tag != "article" else node
    if item is None:
        return False
    parent = item.getparent()
    return parent is not None and sum(1 for c in parent if c.tag == "article") >= LISTED_ARTICLES


def _outermost_letters(stats: dict, marked: set) -> int:
    """Letters of the marked subtrees, each counted once (a list may wrap a menu: its letters are the menu's)."""
    return sum(stats[el][2] for el in marked if el in stats and el.getparent() not in marked)
