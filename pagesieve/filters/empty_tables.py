"""``empty_tables``: remove tables left without substance by the filters before it.

Source: dom-and-nlp-content-extraction-proxy.txt, "empty table remover" (the paragraph after the
link list remover): a table is removed when it is empty of "substantive" information; the user
sets which HTML tags count as substance and how many characters a table needs to be substantive.
The check runs after the other filters ("after it has been parsed through the filter"), so the
filter sits late in the chain.

Tables are checked innermost first, so an outer layout table that held only emptied tables is
removed as well. Data tables (``dom.is_data_table``: header cells, caption, a regular grid) are
never removed, nor the detected article or a table holding it, nor a table with some text right
before the article (the block just before it, or before one of its nearest ``head_levels``
ancestors): the article's own head — its date, byline or headline in a small table of their own.
"""

from __future__ import annotations

from dataclasses import dataclass

from pagesieve.core import dom
from pagesieve.core.settings import setting
from pagesieve.filters.base import Filter


@dataclass(frozen=True)
class EmptyTableSettings:
    """What counts as substance in a table (the paper's "Advanced Settings")."""

    substance_tags: tuple[str, ...] = setting(
        ("img", "picture", "svg", "canvas", "video", "audio", "iframe", "object", "embed", "input", "select",
         "textarea", "button", "form", "math"),
        "Tags that make a table substantive whatever its text (a picture, a video, a form control).", group="advanced", scope="preset")
    # Sources: A table with fewer non-whitespace characters of text than this (and no substance tag) is empty (paper:
    # set by the user).
    min_chars: int = setting(20, "A table with fewer characters of text than this, and no picture or form, is empty.", minimum=0, maximum=100000,
                             group="advanced", scope="user")
    # Sources: A table with some text that is the block right before the detected article, or before one of its
    # nearest this-many ancestors, is the article's head (its date, byline, headline) and is never empty (pagesieve).
    head_levels: int = setting(4, "A table with some text right before the article (or before one of this many blocks"
                                  " around it) holds the article's headline, date or byline and is never removed as "
                                  "empty.", minimum=0,
                               maximum=20, group="advanced", scope="user")


class EmptyTableFilter(Filter):
    name = "empty_tables"
    assigns = ("removed_links",)
    Settings = EmptyTableSettings
    summary = "Remove tables left without substance (too little text, no image or form) by the other filters."

    def __init__(self, settings: EmptyTableSettings) -> None:
        super().__init__(settings)
        self._substance = tuple(settings.substance_tags)

    def apply(self, page, ctx) -> None:
        s = self.settings
        article = ctx.article
        protected = (set(article.iterancestors()) | {article}) if article is not None else set()
        heads = self._heads(article, s.head_levels) if article is not None else set()
        tables = list(dom.body_of(page.root).iter("table"))
        for table in reversed(tables):  # innermost (and last) first
            if table in protected or not ctx.in_document(table):
                continue
            chars = ctx.text_len(table)
            if chars >= s.min_chars or (chars and table in heads):
                continue
            if self._substance and any(el.tag != "img" or not dom.is_spacer_image(el)
                                       for el in table.iter(*self._substance)):
                continue  # a spacer image (1x1 gif, spacer.gif) holds space, not substance
            if dom.is_data_table(table):
                continue
            ctx.remove(table, "empty table: too little text and no substance tag",
                       measured={"chars": chars}, threshold={"min_chars": s.min_chars})

    @staticmethod
    def _heads(article, levels: int) -> set:
        """The tables in the block right before ``article`` or before one of its ``levels`` nearest
        ancestors (see the module docstring)."""
        out: set = set()
        node = article
        for _ in range(levels + 1):
            if node is None or node.tag in ("body", "html"):
                break
            prev = node.getprevious()
            while prev is not None and not isinstance(prev.tag, str):
                prev = prev.getprevious()
            if prev is not None:
                out.update(prev.iter("table"))
            node = node.getparent()
        return out
