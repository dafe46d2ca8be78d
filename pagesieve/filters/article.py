"""``article``: find the main article subtree the way the paper does; mark it, or keep only it.

Source: dom-and-nlp-content-extraction-proxy.txt, the paragraph after the empty table remover.
Paragraphs are made in three ways — ``<p>`` text, ``<div>`` text, and text split by ``<br>`` —
and an *article subtree* is a block whose paragraphs add up to a large body of text:

1. for every element, sum the characters of the paragraphs directly under it: the text of its
   ``<p>`` children (``paragraph_tags``), of its ``<div>`` children (their own text, not that
   of blocks nested in them) and, when it holds ``<br>`` line breaks, its own text;
2. keep the elements whose sum reaches ``min_chars`` ("a good threshold value is 500");
3. of several, choose "the one that is first occurring on the DOM, which visually should be
   the upper-most on the web page" (``choose: first``; ``largest`` is pagesieve's alternative).

"Own text" of an element is its text outside nested block elements (inline markup such as
``<a>``, ``<b>``, ``<span>`` counts); characters are counted with whitespace runs collapsed to one
space; script, style and template text never counts.

``mode: mark`` (the ``declutter`` preset) only records the subtree as the page's article
(``ctx.set_article``) for the filters after it: link lists, ads and empty tables inside it are
judged more carefully, image captions are compared with it, the accessibility step wraps it in
``<main>``. ``mode: keep`` (the ``reader-paper`` preset) also removes everything in ``<body>``
outside it except the page's headline — the first ``<h1>`` before the article when the
article has none (``keep_headline``) — so the reader sees the page title, the headline and the
article. ``<head>`` (and with it ``<title>``) is never touched.

No subtree reaches ``min_chars`` (a short page, a gallery): nothing is marked or removed and the
explanation says so with the best sum found.
"""

from __future__ import annotations

from dataclasses import dataclass

from lxml.html import HtmlElement

from pagesieve.core import dom
from pagesieve.core.measure import PARAGRAPHS, UNCOUNTED
from pagesieve.core.settings import setting
from pagesieve.filters.base import Filter

_UNCOUNTED = UNCOUNTED | {"head", "title"}

_MODES = ("mark", "keep")
_CHOICES = ("first", "largest")


@dataclass(frozen=True)
class ArticleSettings:
    """How the article subtree is found, and what happens around it."""

    # Sources: Paragraph characters a block needs to be an article subtree (paper: "a good threshold value is 500").
    min_chars: int = setting(500, "Characters of paragraph text a block needs to count as the article.", minimum=1, maximum=1_000_000,
                             group="advanced", scope="user")
    paragraph_tags: tuple[str, ...] = setting(("p", "div"), "Children whose own text counts as a paragraph of "
                                                            "their parent (paragraphs and plain boxes of text).",
                                              group="advanced", scope="preset")
    # Sources: A block holding <br> line breaks counts its own text as paragraphs (the paper's third kind).
    br_paragraphs: bool = setting(True, "Text broken into lines with line breaks counts as paragraphs too.", group="advanced", scope="user")
    # Sources: Of several article subtrees: the first in document order (paper: the upper-most on the page) or the one
    # with the most paragraph text.
    choose: str = setting("first", "When several blocks could be the article: the first one on the page, or the one "
                                   "with the most paragraph text.",
                          choices=_CHOICES, group="advanced", scope="user")
    mode: str = setting("mark", "mark: record the article for later filters (declutter); keep: also remove "
                                "everything in <body> outside it (reader).", choices=_MODES, group="advanced", scope="preset")
    keep_headline: bool = setting(True, "In keep mode, also keep the first <h1> before the article when the "
                                        "article has none (the story's headline).", group="advanced", scope="user")


class ArticleFilter(Filter):
    name = "article"
    assigns = ("article", "removed_links")
    Settings = ArticleSettings
    summary = "Find the article: the first block whose paragraphs hold 500+ characters; mark it or keep only it."

    def __init__(self, settings: ArticleSettings) -> None:
        super().__init__(settings)
        self._paragraph_tags = frozenset(settings.paragraph_tags)

    @property
    def destructive(self) -> bool:  # type: ignore[override]
        return self.settings.mode == "keep"

    def apply(self, page, ctx) -> None:
        s = self.settings
        body = dom.body_of(page.root)
        sums = paragraph_sums(body, self._paragraph_tags, s.br_paragraphs)
        candidates = [(el, n) for el, n in sums if n >= s.min_chars]
        if not candidates:
            best = max((n for _, n in sums), default=0)
            ctx.note("skip", body, "no block's paragraphs reach the article threshold; nothing marked",
                     measured={"best_paragraph_chars": best}, threshold={"min_chars": s.min_chars})
            return
        if s.choose == "first":
            article, chars = candidates[0]
        else:
            article, chars = max(candidates, key=lambda c: c[1])
        ctx.set_article(article)
        ctx.note("mark", article, f"article subtree ({s.choose} of {len(candidates)} in document order)",
                 measured={"paragraph_chars": chars, "candidates": len(candidates)},
                 threshold={"min_chars": s.min_chars})
        if s.mode == "keep":
            self._keep_only(body, article, ctx)

    def _keep_only(self, body: HtmlElement, article: HtmlElement, ctx) -> None:
        """Keep only the article (and the headline) in ``body``: everything else there goes,
        comments and the stray text directly in the wrappers too (``<head>`` stays)."""
        headline = self._headline(body, article) if self.settings.keep_headline else None
        ctx.keep_only(body, [article] if headline is None else [article, headline], reason="outside the article",
                      comments=True, blank_after=True,
                      measured=lambda n: {"text_chars": dom.text_len(n)} if dom.is_element(n) else None,
                      explain=lambda n: dom.is_element(n) and dom.text_len(n) > 0)

    @staticmethod
    def _headline(body: HtmlElement, article: HtmlElement) -> HtmlElement | None:
        if next(article.iter("h1"), None) is not None:
            return None
        inside = set(article.iter())
        for h1 in body.iter("h1"):
            if h1 in inside:
                return None
            if dom.text_len(h1):
                return h1
        return None


def paragraph_sums(top: HtmlElement, paragraph_tags: frozenset, br_paragraphs: bool) -> list[tuple[HtmlElement, int]]:
    """(element, paragraph characters) for every element under ``top`` with any, in document order
    (:func:`py_paragraph_sums`), counted by the compiled walk where it is built: the same list, without
    reading every text as a string (tests/test_pagetable.py compares the two on corpus pages)."""
    if PARAGRAPHS is not None:
        return PARAGRAPHS.paragraph_sums(top, paragraph_tags, dom.BLOCK_TAGS, _UNCOUNTED, br_paragraphs)
    return py_paragraph_sums(top, paragraph_tags, br_paragraphs)


def py_paragraph_sums(top: HtmlElement, paragraph_tags: frozenset,
                      br_paragraphs: bool) -> list[tuple[HtmlElement, int]]:
    """(element, paragraph characters) for every element under ``top`` with any, in document order.

    One pass in reverse document order: each element's *own* text length (text outside nested
    blocks) is known before its parent's, so the parent adds up its paragraph children as it
    reads them — one loop over each element's children, not a second pass over the page."""
    own: dict[HtmlElement, int] = {}
    out = []
    blocks = dom.BLOCK_TAGS
    elements = list(top.iter(dom.ELEMENT))  # elements only, picked in C
    elements.reverse()
    for el in elements:
        if el.tag in _UNCOUNTED:
            own[el] = 0
            continue
        # Characters with whitespace runs collapsed to one space, ends trimmed; whitespace-only
        # text (most tails between tags) costs one isspace().
        text = el.text
        n = len(" ".join(text.split())) if text and not text.isspace() else 0
        paragraphs = 0
        has_br = False
        for child in el:
            tail = child.tail
            if tail and not tail.isspace():
                n += len(" ".join(tail.split()))
            tag = child.tag
            if not isinstance(tag, str):
                continue
            if tag in paragraph_tags:
                paragraphs += own[child]
            if tag == "br":
                has_br = True
            elif tag not in blocks:
                n += own[child]
        own[el] = n
        if br_paragraphs and has_br:
            paragraphs += n
        if paragraphs:
            out.append((el, paragraphs))
    out.reverse()
    return out
