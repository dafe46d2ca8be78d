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
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from lxml.html import HtmlElement

from pagesieve import dom
from pagesieve.filters.base import Filter
from pagesieve.settings import setting

_LETTERS = re.compile(r"[^\W_]", re.UNICODE)
_CELL_TAGS = frozenset({"td", "th"})
_UNCOUNTED = frozenset({"script", "style", "template", "noscript"})


@dataclass(frozen=True)
class LinkListSettings:
    """The link/text removal ratio and where it applies (the paper's "Advanced Settings")."""

    ratio: float = setting(0.35, "Links per non-linked word above which a block is a link list (the paper's "
                                 "link/text removal ratio; the paper leaves the value to the user).",
                           minimum=0, maximum=100, group="advanced", scope="user")
    chars_per_word: float = setting(5.0, "Average characters per word: non-linked words = letters outside links / "
                                         "this (paper: \"preset as say 5\").", minimum=1, maximum=50, group="advanced", scope="user")
    min_links: int = setting(2, "A block needs at least this many links to be a link list (pagesieve: a lone "
                                "link is not a list; the paper has no minimum, i.e. 1).",
                             minimum=1, maximum=1000, group="advanced", scope="user")
    tags: tuple[str, ...] = setting(("td", "ul", "ol", "menu", "dl", "nav", "aside", "div"),
                                    "Blocks tested: table cells (the paper) and their modern equivalents.",
                                    group="advanced", scope="preset")
    remove_cells: bool = setting(False, "Remove a link-list table cell itself, not only its content (paper: "
                                        "optional; keeping the cell keeps the table's grid).", group="advanced", scope="user")
    keep_text: int = setting(500, "A block with at least this many letters outside links is never removed whole "
                                  "(its inner blocks are tested instead); the paper's article-size threshold "
                                  "(500 characters, article detection).", minimum=0, group="advanced", scope="user")
    article_link_share: float = setting(0.5, "Inside the detected article a block is removed only when more than "
                                             "this fraction of its letters are link text (pagesieve's guard: "
                                             "blocks that hold mostly text stay).",
                                        minimum=0, maximum=1, group="advanced", scope="user")


class LinkListFilter(Filter):
    name = "link_lists"
    Settings = LinkListSettings
    summary = "Remove link lists: blocks (table cells, lists, nav, aside, div) with more links than words."

    def __init__(self, settings: LinkListSettings) -> None:
        super().__init__(settings)
        self._tags = frozenset(settings.tags)

    def apply(self, page, ctx) -> None:
        s = self.settings
        body = dom.body_of(page.root)
        stats = _link_stats(body)
        article = ctx.article
        protected = set(article.iterancestors()) | {article} if article is not None else set()
        tables: dict[HtmlElement, bool] = {}
        removed_under: set[HtmlElement] = set()
        for node in list(body.iter(*self._tags)):  # a list: removals must not cut the walk short
            if node in protected or node not in stats:
                continue
            if any(a in removed_under for a in node.iterancestors()):
                continue
            links, link_letters, letters = stats[node]
            if links < s.min_links:
                continue
            other = letters - link_letters
            words = other / s.chars_per_word
            ratio = links / words if words else math.inf
            if ratio <= s.ratio or other >= s.keep_text:
                continue
            if node.tag in _CELL_TAGS and self._in_data_table(node, tables):
                continue
            inside = article is not None and any(a is article for a in node.iterancestors())
            share = link_letters / letters if letters else 1.0
            if inside and share <= s.article_link_share:
                continue
            measured = {"links": links, "non_linked_words": round(words, 1),
                        "ratio": None if math.isinf(ratio) else round(ratio, 3)}
            threshold = {"ratio": s.ratio, "min_links": s.min_links}
            if inside:
                measured["link_text_share"] = round(share, 3)
                threshold["article_link_share"] = s.article_link_share
            if node.tag in _CELL_TAGS and not s.remove_cells:
                self._empty(node, ctx, measured, threshold)
            else:
                ctx.remove(node, "link list: more links per non-linked word than the ratio",
                           measured=measured, threshold=threshold)
            removed_under.add(node)

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


def _letters(text: str | None) -> int:
    return len(_LETTERS.findall(text)) if text else 0


def _link_stats(top: HtmlElement) -> dict[HtmlElement, tuple[int, int, int]]:
    """Per element under ``top``: (links with href, letters inside links, all letters), in one pass.

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
