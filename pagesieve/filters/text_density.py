"""``text_density``: find the main text by row-block length with an adaptive threshold (reader).

Source: Zheng, Hui, Xu & Xi, "A type of web content extraction algorithm based on adaptive
threshold" (``../shared/papers/adaptive-threshold-text-density.txt``), sections "The text
extraction algorithm based on text density" and "The computing method of adaptive threshold".

1. The page without tags (scripts, styles, comments left out) keeps its lines: text line
   ``X_i`` is source line ``i`` (``line_mode: source``). Minified pages have few lines, so
   ``line_mode: blocks`` starts a new line at every block-level tag instead.
2. Row block ``Block_i`` = lines ``i .. i+n-1``; ``B-length_i`` its non-whitespace characters.
3. Threshold ``T``: fixed (``threshold``), or adaptive: for ``T`` = 20, 30, … 140 split the
   blocks into text (``B-length > T``, set P) and non-text (Q); ``M = var(P)/|P|``,
   ``N = var(Q)/|Q|`` (population variance), ``g = M − N``; the ``T`` with the largest ``g`` wins
   (the first, on ties).
4. A surge point is a block with ``B-length > T`` whose next ``n`` blocks all have
   ``B-length > 0``; the region runs to the drop point, the first later block with
   ``B-length <= drop_max`` ("zero or close to zero"). Rule 4 (the region must hold the maximum
   B-length) picks the region with the largest block (``regions: max``); ``regions: all`` keeps
   every region.

Mapping lines back to the DOM: one walk of ``<body>`` in document order tags every text node
(an element's text or a child's tail) with the line it starts on — the element's
``sourceline`` (where its start tag is), advanced by the newlines inside the text — and every
text node is split at its newlines. Elements whose subtree has text but none on a selected line
are removed; text nodes of kept elements on unselected lines are blanked. Text-less elements
(images, line breaks) inside kept elements stay. The article is set to the lowest common
ancestor of the kept text.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Literal

from lxml.html import HtmlElement

from pagesieve.core import dom
from pagesieve.core.measure import chars
from pagesieve.core.settings import setting
from pagesieve.filters.base import Filter

_SKIPPED = frozenset({"script", "style", "noscript", "template", "head", "title", "svg", "math"})


_chars = chars  # non-whitespace characters: the one helper (pagesieve.core.measure)


@dataclass(frozen=True)
class TextDensitySettings:
    """The row-block algorithm's parameters."""

    # Sources: Lines per row block, n (paper: "set to 5 commonly").
    block_lines: int = setting(5, "Lines that make one block when text density is measured.", minimum=1, maximum=50,
                               group="advanced", scope="user")
    # Sources: Surge threshold T in characters per row block; null = adaptive (paper: maximise g = M - N over T).
    threshold: int | None = setting(None, "Characters per block where text begins; empty: found for each page.", minimum=0, group="advanced", scope="user")
    # Sources: Adaptive T: smallest candidate (paper: 20).
    threshold_min: int = setting(20, "When found for each page: the smallest value tried.", minimum=0, group="advanced", scope="user")
    # Sources: Adaptive T: largest candidate (paper: 140).
    threshold_max: int = setting(140, "When found for each page: the largest value tried.", minimum=0, group="advanced", scope="user")
    # Sources: Adaptive T: step between candidates (paper: 10).
    threshold_step: int = setting(10, "When found for each page: the step between values tried.", minimum=1,
                                  group="advanced", scope="user")
    # Sources: A row block with at most this many characters is a drop point (paper: "zero or close to zero").
    drop_max: int = setting(0, "A block with at most this many characters marks where the text ends.", minimum=0, group="advanced", scope="user")
    line_mode: Literal["source", "blocks"] = setting("source", "Lines: the page source's lines, or a new line at "
                                                               "every block-level tag (for minified pages, written "
                                                               "on few lines).",
                                                     group="advanced", scope="preset")
    regions: Literal["max", "all"] = setting("max", "Keep the region holding the largest row block, or "
                                                    "every region from a surge of text to its drop.", group="advanced", scope="preset")


def line_texts(body: HtmlElement, mode: str) -> tuple[list[tuple[HtmlElement, bool, int, int]], int]:
    """Every text node of ``body`` as (owner element, is_tail, line, characters), one entry per
    line it spans; and the number of lines. ``owner`` is the element whose ``.text`` (or, with
    ``is_tail``, whose ``.tail``) the text is."""
    out: list[tuple[HtmlElement, bool, int, int]] = []
    base = body.sourceline or 1
    line = 0

    def emit(owner: HtmlElement, tail: bool, text: str | None) -> None:
        nonlocal line
        if not text:
            return
        for k, piece in enumerate(text.split("\n")):
            if k:
                line += 1
            n = _chars(piece)
            if n:
                out.append((owner, tail, line, n))

    # (element, phase): phase 0 = start (text, children), 1 = end (tail, owned by the element)
    stack: list[tuple[HtmlElement, int]] = [(body, 0)]
    while stack:
        el, phase = stack.pop()
        if phase:
            if mode == "blocks" and el.tag in dom.BLOCK_TAGS:
                line += 1
            if el is not body:
                emit(el, True, el.tail)
            continue
        stack.append((el, 1))
        if not isinstance(el.tag, str) or el.tag in _SKIPPED:
            continue
        if mode == "source" and el.sourceline:
            line = max(line, el.sourceline - base)
        elif mode == "blocks" and el.tag in dom.BLOCK_TAGS | {"br"}:
            line += 1
        emit(el, False, el.text)
        stack.extend((c, 0) for c in reversed(el))
    return out, line + 1


def row_blocks(line_len: list[int], n: int) -> list[int]:
    """``B-length_i`` = characters of lines ``i .. i+n-1`` (a sliding window)."""
    out, window = [], sum(line_len[:n])
    for i in range(len(line_len)):
        out.append(window)
        window += (line_len[i + n] if i + n < len(line_len) else 0) - line_len[i]
    return out


def adaptive_threshold(blocks: list[int], candidates: range) -> tuple[int | None, float | None]:
    """The T of ``candidates`` maximising ``g = var(P)/|P| − var(Q)/|Q|`` (None if no T splits)."""
    best, best_g = None, None
    for t in candidates:
        p = [b for b in blocks if b > t]
        q = [b for b in blocks if b <= t]
        if not p or not q:
            continue
        g = statistics.pvariance(p) / len(p) - statistics.pvariance(q) / len(q)
        if best_g is None or g > best_g:
            best, best_g = t, g
    return best, best_g


def regions(blocks: list[int], t: int, n: int, drop_max: int) -> list[tuple[int, int]]:
    """Surge-to-drop regions as (first line, last line), lines inclusive."""
    out, i, m = [], 0, len(blocks)
    while i < m:
        if blocks[i] > t and all(b > 0 for b in blocks[i + 1:i + 1 + n]):
            j = i + 1
            while j < m and blocks[j] > drop_max:
                j += 1
            out.append((i, j - 1 if j > i + 1 else i))
            i = j
        else:
            i += 1
    return out


class TextDensityFilter(Filter):
    name = "text_density"
    assigns = ("article", "removed_links")
    Settings = TextDensitySettings
    summary = "Reader: keep the lines whose row blocks are dense with text, adaptive threshold (Zheng et al.)."

    def select_lines(self, body: HtmlElement) -> tuple[list, set[int], dict]:
        """(text nodes, selected lines, measurements) of ``body``."""
        s = self.settings
        texts, nlines = line_texts(body, s.line_mode)
        line_len = [0] * nlines
        for _, _, ln, n in texts:
            line_len[ln] += n
        blocks = row_blocks(line_len, s.block_lines)
        t, g = s.threshold, None
        if t is None:
            t, g = adaptive_threshold(blocks, range(s.threshold_min, s.threshold_max + 1, s.threshold_step))
        info = {"lines": nlines, "T": t, "g": round(g, 2) if g is not None else None}
        if t is None or not blocks:
            return texts, set(), info
        found = regions(blocks, t, s.block_lines, s.drop_max)
        if s.regions == "max" and found:
            found = [max(found, key=lambda r: max(blocks[r[0]:r[1] + 1]))]
        info["regions"] = [[a, b] for a, b in found]
        lines = {ln for a, b in found for ln in range(a, b + 1)}
        return texts, lines, info

    def apply(self, page, ctx) -> None:
        body = dom.body_of(page.root)
        texts, lines, info = self.select_lines(body)
        if not any(ln in lines for _, _, ln, _ in texts):
            ctx.note("skip", body, "no text region found; page left unchanged", measured=info)
            return
        kept_nodes: set[tuple[HtmlElement, bool]] = set()
        has_text: set[HtmlElement] = set()
        for owner, tail, ln, _ in texts:
            el = owner.getparent() if tail else owner
            if el is None:
                continue
            while el is not None and el not in has_text:  # its ancestors are in when it is
                has_text.add(el)
                el = el.getparent()
            if ln in lines:
                kept_nodes.add((owner, tail))
        article = self._common_ancestor([o.getparent() if t else o for o, t in kept_nodes], body)
        ctx.note("select", article, f"text region(s) of lines {info.get('regions')}", measured=info)
        ctx.set_article(article)  # before removing: the loss guard then protects what is kept
        # The text on the selected lines stays; so do the elements on the way to it, and those
        # without text (images, line breaks). Maximal subtrees with text but none selected go, and
        # the unselected text in the elements on the way is blanked.
        ctx.keep_only(body, texts=kept_nodes, spare=lambda el: el not in has_text,
                      reason="no text on the selected lines", measured=lambda el: {"T": info["T"]})

    @staticmethod
    def _common_ancestor(nodes: list[HtmlElement], body: HtmlElement) -> HtmlElement:
        """The deepest element that is, or is an ancestor of, every node: that of the first and the
        last node in document order (one walk of the page, not one ancestor chain per node, which
        nested unclosed blocks made quadratic)."""
        if not nodes:
            return body
        order = {el: i for i, el in enumerate(body.getroottree().getroot().iter())}
        first, last = min(nodes, key=order.__getitem__), max(nodes, key=order.__getitem__)
        above_first = {first, *first.iterancestors()}
        node: HtmlElement | None = last
        while node is not None and node not in above_first:
            node = node.getparent()
        return node if node is not None else body
