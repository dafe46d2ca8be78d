"""``template_blocks``: remove blocks that recur on other pages of the same site (ContentExtractor).

Source: ``../shared/papers/contentextractor-and-desea-web-blocks.txt``, section 2.3.2
(ContentExtractor: GetBlockSet, GetBlocks, inverse block document frequency, the similarity
function and its threshold ε = 0.9).

1. **Blocks** (GetBlockSet/GetBlocks): the page is partitioned by the first tag of the ordered
   partitioning tag set (TABLE, TR, P, HR, UL, DIV, SPAN …), each block again by the next tag,
   until no block holds a tag of the set. The atomic result does not depend on the order: every
   element of the set is a block, holding its own content — the text of its subtree outside the
   nested blocks (a nested block's tail is the outer block's content). ``<body>`` is the first
   block. ``<hr>`` holds no content; it only bounds blocks.
2. **Feature vector** of a block: the counts of its lower-cased word tokens (``\\w+``),
   L2-normalised, so that the similarity function is the cosine (a dot product).
3. **Similar** blocks: cosine ≥ ``similarity`` (paper: ε = 0.9).
4. **Inverse block document frequency**: with N other pages of the site in the store and df of
   them holding a block similar to this one, IBDF = N / df. A block is *template* when
   df ≥ ``min_pages`` and IBDF ≤ 1 / ``min_share`` (it recurs on at least that share of the
   site's pages); everything else is content.
5. **Removal**, bottom-up: a block goes when its own content is template (or empty) and every
   block inside it goes too, and it holds at least one template block. Only the topmost such
   block is removed; ``<body>`` never is.

The "set of pages of a class" is the site's recent pages: ``ctx.state.store`` (see
:mod:`pagesieve.store.site_memory`), bounded by ``max_pages`` and ``max_age_days``. After deciding,
the filter records this page's blocks there (it learns while the user browses). Without a
store (offline, without ``--sibling`` pages) it does nothing and notes why.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter, defaultdict
from dataclasses import dataclass

from lxml.html import HtmlElement

from pagesieve.core import dom
from pagesieve.core.settings import setting
from pagesieve.filters.base import Filter

_SKIPPED = frozenset({"script", "style", "template", "noscript", "head"})
# Vectors are stored with this many decimals (JSON size; cosine error < 1e-3).
_DIGITS = 4


@dataclass(frozen=True)
class TemplateBlocksSettings:
    """ContentExtractor's block set, similarity threshold and the bounded site memory."""

    partition_tags: tuple[str, ...] = setting(
        ("table", "tr", "p", "hr", "ul", "ol", "div", "span", "section", "article", "aside", "nav", "header",
         "footer"),
        "The tags a page is cut into blocks at, in order: tables and rows, paragraphs, rules, lists, boxes, "
        "and the sections of today's layouts (section, article, aside, nav, header, footer).", group="advanced", scope="preset")
    # Sources: Two blocks are the same when the cosine of their word vectors is at least this (paper 2.3.2 e: ε =
    # 0.9).
    similarity: float = setting(0.9, "Two blocks are the same when their words match at least this closely (0 to 1).", minimum=0, maximum=1, group="advanced", scope="user")
    # Sources: A block is template when similar blocks are on at least this share of the site's other stored pages
    # (IBDF = pages / pages with it <= 1 / min_share).
    min_share: float = setting(0.5, "A block is repeated when it is on at least this share of the site's other pages "
                                    "seen ...",
                               minimum=0.01, maximum=1, group="advanced", scope="user")
    # Sources: ...and on at least this many of them (the paper compares two or more pages).
    min_pages: int = setting(1, "... and on at least this many of them.",
                             minimum=1, group="advanced", scope="user")
    max_pages: int = setting(20, "Pages of one site kept in the site memory (newest first).", minimum=1,
                             maximum=1000, group="advanced")
    max_age_days: float = setting(30.0, "Pages seen longer ago than this many days are forgotten.", minimum=0.01,
                                  group="advanced")
    learn: bool = setting(True, "Record this page's blocks in the site memory after deciding.", group="advanced")


@dataclass
class Block:
    element: HtmlElement
    children: list["Block"]
    vector: dict[str, float]


def blocks_of(root: HtmlElement, tags: frozenset[str]) -> Block:
    """The block tree of ``root``'s body: each block with its own content's unit word vector."""
    body = dom.body_of(root)
    top = Block(body, [], {})
    counts: dict[int, Counter] = {id(top): Counter()}
    stack: list[tuple[HtmlElement, Block]] = [(body, top)]
    while stack:  # pre-order, iterative (deeply nested broken pages)
        el, owner = stack.pop()
        own = counts[id(owner)]
        if el.text:
            own.update(w.lower() for w in dom.WORD.findall(el.text))
        for child in reversed(el):
            if not isinstance(child.tag, str) or child.tag in _SKIPPED:
                if child.tail:
                    own.update(w.lower() for w in dom.WORD.findall(child.tail))
                continue
            if child.tail:  # a child's tail belongs to the block that holds the child
                own.update(w.lower() for w in dom.WORD.findall(child.tail))
            if child.tag in tags:
                block = Block(child, [], {})
                owner.children.append(block)
                counts[id(block)] = Counter()
                stack.append((child, block))
            else:
                stack.append((child, owner))
    _finish(top, counts)
    return top


def _finish(top: Block, counts: dict[int, Counter]) -> None:
    todo = [top]
    while todo:
        b = todo.pop()
        b.children.reverse()  # children were appended last-first
        c = counts[id(b)]
        norm = math.sqrt(sum(v * v for v in c.values()))
        b.vector = {w: round(v / norm, _DIGITS) for w, v in c.items()} if norm else {}
        todo.extend(b.children)


def all_blocks(top: Block) -> list[Block]:
    out, todo = [], [top]
    while todo:
        b = todo.pop()
        out.append(b)
        todo.extend(b.children)
    return out


class _Index:
    """Inverted index of the stored pages' block vectors: the dot product of a query vector with
    every stored block, touching only blocks that share a word with it."""

    def __init__(self, pages: list[list[dict[str, float]]]) -> None:
        self.postings: dict[str, list[tuple[int, int, float]]] = defaultdict(list)
        for p, blocks in enumerate(pages):
            for b, vec in enumerate(blocks):
                for word, weight in vec.items():
                    self.postings[word].append((p, b, weight))
        self.pages = len(pages)

    def pages_with(self, vector: dict[str, float], threshold: float) -> int:
        """How many stored pages hold a block whose cosine with ``vector`` is >= ``threshold``."""
        dots: dict[tuple[int, int], float] = defaultdict(float)
        for word, weight in vector.items():
            for p, b, w in self.postings.get(word, ()):
                dots[(p, b)] += weight * w
        slack = 10 ** -(_DIGITS - 1)  # rounding of stored vectors
        return len({p for (p, _), dot in dots.items() if dot >= threshold - slack})


def page_key(page, data_hint: str) -> str:
    """The page's identity in the store: its URL, else a hash of its text."""
    if page.url:
        return page.url
    return "sha1:" + hashlib.sha1(data_hint.encode("utf-8", "replace")).hexdigest()


class TemplateBlocksFilter(Filter):
    name = "template_blocks"
    assigns = ("removed_links",)
    Settings = TemplateBlocksSettings
    summary = "Remove blocks that recur on the site's other pages (ContentExtractor); learns per site while browsing."

    def __init__(self, settings: TemplateBlocksSettings) -> None:
        super().__init__(settings)
        self._tags = frozenset(settings.partition_tags) - {"body", "html"}

    def apply(self, page, ctx) -> None:
        s = self.settings
        store = ctx.state.store
        body = dom.body_of(page.root)
        if store is None:
            ctx.note("skip", body, "no site memory (offline: give sibling pages with --sibling; the proxy "
                                   "passes the site's store)")
            return
        top = blocks_of(page.root, self._tags)
        blocks = all_blocks(top)
        vectors = [b.vector for b in blocks if b.vector]
        key = page_key(page, dom.text_of(body))
        max_age_s = s.max_age_days * 86400
        stored = store.pages(exclude=key, max_age_s=max_age_s)
        if stored:
            self._decide(top, blocks, _Index(stored), ctx)
        else:
            ctx.note("skip", body, "no other page of this site in the site memory yet; learning only",
                     measured={"blocks": len(vectors)})
        if s.learn:
            store.remember(key, vectors, max_pages=s.max_pages, max_age_s=max_age_s)

    def _decide(self, top: Block, blocks: list[Block], index: _Index, ctx) -> None:
        s = self.settings
        n = index.pages
        need = max(s.min_pages, math.ceil(s.min_share * n - 1e-9))
        status: dict[int, tuple[str, int]] = {}
        for b in blocks:
            if not b.vector:
                status[id(b)] = ("empty", 0)
                continue
            df = index.pages_with(b.vector, s.similarity)
            status[id(b)] = ("template" if df >= need else "content", df)
        removable: dict[int, bool] = {}
        has_template: dict[int, bool] = {}
        for b in reversed(blocks):  # children before parents (pre-order list reversed)
            kind = status[id(b)][0]
            removable[id(b)] = kind != "content" and all(removable[id(c)] for c in b.children)
            has_template[id(b)] = kind == "template" or any(has_template[id(c)] for c in b.children)
        threshold = {"similarity": s.similarity, "IBDF_max": round(1 / s.min_share, 4), "min_pages": s.min_pages}
        removed = 0
        todo = list(reversed(top.children))  # document order
        while todo:
            b = todo.pop()
            if removable[id(b)] and has_template[id(b)]:
                kind, df = status[id(b)]
                if kind != "template":  # an empty wrapper: explain by its first template block
                    df = next(status[id(x)][1] for x in all_blocks(b) if status[id(x)][0] == "template")
                if ctx.remove(b.element, "block recurs on other pages of this site (template)",
                              measured={"pages": n, "pages_with_block": df, "IBDF": round(n / df, 4),
                                        "text": dom.text_of(b.element)[:80]},
                              threshold=threshold):
                    removed += 1
            else:
                todo.extend(reversed(b.children))
        ctx.note("measure", top.element, "blocks compared with the site's other pages",
                 measured={"pages": n, "blocks": len(blocks),
                           "template_blocks": sum(1 for v in status.values() if v[0] == "template"),
                           "removed": removed}, threshold=threshold)
