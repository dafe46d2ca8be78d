"""``segments``: cut the page into coherent blocks and find the blocks about given topics (DeSeA).

Source: ``../shared/papers/contentextractor-and-desea-web-blocks.txt``, section 2.3.3 (DeSeA:
2.3.3.1 block extraction by splitting and merging, 2.3.3.2 relevant block detection).

What it does to a page
----------------------
``mode: mark`` (default) changes no text: every final block gets
``data-pagesieve-segment="<n>"`` (blocks numbered in document order) on its elements, blocks
whose anchor text holds a cue phrase also ``data-pagesieve-relevance="<DoR>"``, and the top ω of
those ``data-pagesieve-rank="<r>"``; the blocks are listed in ``ctx.state.segments``.
``mode: keep`` keeps only the top ω relevant blocks of ``<body>`` (and the elements around them)
and removes everything else there; ``<head>`` is never touched. Keep mode acts only when at least
one block has DoR > 0: with no cue phrase configured, or none found, the page is left unchanged
and a note says so. Keep mode is destructive, so the chain's article-loss guard applies: when the
relevant blocks hold less than 1 − ``safety.max_article_loss`` of the text, the chain undoes it
(the ``topics`` preset lifts the guard, since the selection is the user's own).

How it maps to the paper
------------------------
1. **Splitting.** The whole ``<body>`` is the root of the block tree. In round L (L = 1, 2, …,
   one per entry of ``levels``) every leaf block that is *Larger* than the window size —
   characters > ``alpha`` (paper: α = 300, "accuracy reaches the highest") — and holds a
   delimiter of levels 1..L is divided at those delimiters; its new leaves are visited again in
   the same round (the paper's recursive ``Process``). A leaf with characters ≤ α is *Single*
   and is not divided further (the paper's first rule prints ``Larger(n,s) → Single(n)``; its
   text and ``Pagesplitting`` mean the opposite: only a block larger than α is divided). Rounds
   stop when every leaf is ≤ α or the levels run out; a leaf still > α after the last level
   (one long paragraph) stays whole. Dividing "according to the delimiter and the EDT" (the DOM
   here): a *container* delimiter (``table``, ``div``, ``p``,
   ``li`` …) becomes a block of its own; a *heading* delimiter (``h1``–``h6``, and the paper's
   ``<P+Strong>``: a paragraph whose only text is bold, written ``p+strong``) starts a block that
   runs to the next delimiter; a *boundary* delimiter (``hr``, ``br``) ends the block it closes
   and holds no text; an element that is no delimiter but holds one is opened, its own start and
   end being cuts too. A block is thus a run of sibling nodes (with the text between them) or
   one element. The page text is read in document order with whitespace runs collapsed to one
   space and a space at the edges of block elements and ``<br>``; script, style and template
   text never counts. A block's characters are those of its text; blocks without text are dropped.
2. **Merging.** Adjacent leaf siblings of the block tree of the same *next-to* type — cut by
   the same kind of delimiter in ``next_to`` (paper: ``;``, ``.`` and ``<Hx>`` with the same x;
   in a DOM the paragraph-level delimiters play the role of the sentence marks) — are merged,
   left to right, while the merged block stays within the window: chars(A) + chars(B) ≤ α.
3. **Degree of relevance.** A block's *anchor text* is the ``anchor_chars`` characters of page
   text before its start (paper: 80). With ``heading_in_anchor`` it also takes in the heading
   that opens a heading block, which stands before the block's content (the cue "Research
   interests" usually *is* that heading). DoR = 0 when the anchor holds no cue phrase, else the
   highest priority of the cue phrases in it (paper rules 1–3: "proportional to" the priority,
   factor 1 here); a merged block has the higher DoR of its parts (rule 4). Cue phrases match
   case-insensitively as whole words (``"research interests:2"``: phrase, colon, priority > 0;
   no priority means 1).
4. **Relevant blocks.** Blocks with DoR > 0 are the candidates, sorted by DoR descending (ties
   in document order); the first ω = ``top_blocks`` (paper: 10) are the relevant block set:
   rank ≤ ω is relevant, rank > ω is not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lxml.html import HtmlElement

from pagesieve.core import dom
from pagesieve.core.errors import ConfigError
from pagesieve.core.settings import setting
from pagesieve.filters.base import Filter

_MODES = ("mark", "keep")
_UNCOUNTED = dom.SILENT | {"template"}
_BREAKING = dom.BLOCK_TAGS | {"br"}
HEADINGS = dom.HEADING_TAGS
BOUNDARIES = frozenset({"hr", "br"})
#: The paper's ``<P+Strong>`` delimiter: a paragraph whose only text is inside <strong>/<b>.
BOLD_PARAGRAPH = "p+strong"
_HEADING_KINDS = HEADINGS | {BOLD_PARAGRAPH}
_BOLD_TAGS = frozenset({"strong", "b"})
#: A bold paragraph longer than this many characters is emphasised prose, not a heading.
BOLD_HEADING_MAX_CHARS = 120
_TAG_NAME = re.compile(r"^[a-z][a-z0-9]*$")
# Attributes written in mark mode.
ATTR_SEGMENT = "data-pagesieve-segment"
ATTR_RELEVANCE = "data-pagesieve-relevance"
ATTR_RANK = "data-pagesieve-rank"


@dataclass(frozen=True)
class SegmentsSettings:
    """DeSeA's delimiter levels, window size α, anchor text, cue phrases and ω."""

    # Sources: Window size α in characters: a block with more is divided at the next delimiter level, merged blocks
    # stay within it (paper 2.3.3.1: 300).
    alpha: int = setting(300, "Blocks are about this many characters: larger ones are split, small neighbours merged "
                              "up to it.", minimum=1,
                         maximum=1_000_000, group="advanced", scope="user")
    levels: tuple[str, ...] = setting(
        ("hr table h1 h2 p+strong header footer nav aside",
         "h3 h4 ul ol dl div section article main form blockquote",
         "h5 h6 p br li tr td th dt dd pre"),
        "Delimiter levels, level 1 first, each a space-separated list of tags (p+strong: a paragraph whose only "
        "text is bold, used as a heading); headings open a block, hr/br close one, other tags are blocks.",
        group="advanced", scope="preset")
    next_to: tuple[str, ...] = setting(
        ("h1", "h2", "h3", "h4", "h5", "h6", "p+strong", "p", "li", "br", "dt", "dd", "tr"),
        "Tags whose neighbouring blocks belong together (list items, paragraphs, sections under headings of one "
        "level): adjacent blocks cut by one of these merge while they fit the block size limit. Empty: none.", group="advanced", scope="preset")
    # Sources: A block's anchor text: this many characters of page text before it (paper: 80).
    anchor_chars: int = setting(80, "How many characters before a block are searched for your phrases.", minimum=1, maximum=10_000, group="advanced", scope="user")
    # Sources: The anchor text of a heading block also takes in its opening heading (the text just before the block's
    # content).
    heading_in_anchor: bool = setting(True, "For a block that opens with a heading, the heading counts as text before"
                                            " the block.", group="advanced", scope="user")
    # Sources: Cue phrases as "phrase:priority" (priority > 0; "phrase" alone means 1): a block's degree of relevance
    # is the highest priority found in its anchor text.
    cue_phrases: tuple[str, ...] = setting(
        (), 'Your phrases, as "phrase:weight" (a weight above 0; a phrase alone weighs 1): the blocks right after '
            "them are the ones kept, the best weight first.", group="advanced", scope="user",
        max_items=50, max_chars=100)
    # Sources: ω: at most this many blocks with the highest degree of relevance are relevant (paper: 10).
    top_blocks: int = setting(10, "At most this many blocks, the best matches for your phrases, are kept.", minimum=1, maximum=100_000, group="advanced", scope="user")
    mode: str = setting("mark", "mark: number the blocks and mark their relevance in data-pagesieve-* attributes; "
                                "keep: keep only the relevant blocks (when any block is relevant).",
                        choices=_MODES, group="advanced", scope="preset")

    def __post_init__(self) -> None:
        parse_levels(self.levels)
        parse_cues(self.cue_phrases)
        for tag in self.next_to:
            if tag != BOLD_PARAGRAPH and not _TAG_NAME.match(tag):
                raise ConfigError(f"filters.segments.next_to: {tag!r} is not a tag name; expected lower-case tag "
                                  f"names such as 'p' or 'h3', or {BOLD_PARAGRAPH!r}")


def parse_levels(levels: tuple[str, ...]) -> tuple[frozenset[str], ...]:
    """``("hr table", "div")`` → ``(frozenset({"hr", "table"}), frozenset({"div"}))``; ConfigError when bad."""
    if not levels:
        raise ConfigError("filters.segments.levels = []: expected at least one level of delimiter tags")
    seen: dict[str, int] = {}
    out = []
    for n, level in enumerate(levels, 1):
        tags = level.lower().split()
        if not tags:
            raise ConfigError(f"filters.segments.levels: level {n} is empty; expected space-separated tag names")
        for tag in tags:
            if tag != BOLD_PARAGRAPH and not _TAG_NAME.match(tag):
                raise ConfigError(f"filters.segments.levels: level {n}: {tag!r} is not a tag name; expected "
                                  f"lower-case tag names such as 'div', or {BOLD_PARAGRAPH!r}")
            if tag in seen:
                raise ConfigError(f"filters.segments.levels: {tag!r} is in level {seen[tag]} and level {n}; "
                                  "a delimiter belongs to one level")
            seen[tag] = n
        out.append(frozenset(tags))
    return tuple(out)


def parse_cues(cues: tuple[str, ...]) -> tuple[tuple[str, float], ...]:
    """``("research interests:2", "teaching")`` → ``(("research interests", 2.0), ("teaching", 1.0))``."""
    out = []
    for raw in cues:
        phrase, sep, prio = raw.rpartition(":")
        if not sep:
            phrase, priority = raw, 1.0
        else:
            try:
                priority = float(prio)
            except ValueError:
                priority = float("nan")
            if not 0 < priority < float("inf"):
                raise ConfigError(f"filters.segments.cue_phrases: {raw!r}: after the last ':' a priority must "
                                  "follow, a number > 0 (\"phrase:priority\", e.g. \"research interests:2\")")
        phrase = " ".join(phrase.split())
        if not phrase:
            raise ConfigError(f"filters.segments.cue_phrases: {raw!r}: empty phrase; expected \"phrase:priority\", "
                              "e.g. \"research interests:2\"")
        out.append((phrase, priority))
    return tuple(out)


def _cue_pattern(phrase: str) -> re.Pattern:
    words = [re.escape(w) for w in phrase.split()]
    return re.compile(r"(?<!\w)" + r"\s+".join(words) + r"(?!\w)", re.IGNORECASE)


# A unit of a block: ("el", element) is the element's subtree (not its tail); ("text", P) is P's
# leading text; ("tail", E) is the text after E up to its next sibling.
Unit = tuple[str, HtmlElement]


@dataclass(eq=False)
class Block:
    units: list[Unit]
    kind: str  # the delimiter that made it: a tag, "p+strong", or "run" (cut by an opened element)
    level: int  # the splitting round that made it (0: the body)
    chars: int
    start: int  # offset of its first character in the page text
    first: Unit  # the unit that holds that character
    children: list["Block"] = field(default_factory=list)
    dor: float = 0.0
    cue: str | None = None
    anchor: str = ""
    anchor_of: Unit | None = None  # the first unit of the (merged) part the anchor stands before
    parts: int = 1  # blocks merged into it

    @property
    def node(self) -> HtmlElement:
        """The element that names the block in explanations: the one its text starts in (for text
        after an element, that element's parent)."""
        kind, node = self.first
        return node.getparent() if kind == "tail" else node


class _Text:
    """The page text in document order, whitespace runs collapsed, with every unit's span."""

    def __init__(self, body: HtmlElement) -> None:
        parts: list[str] = []
        pos = 0
        space = True  # at the start, or after a space: a leading space is dropped
        self.el: dict[HtmlElement, tuple[int, int]] = {}
        self.text: dict[HtmlElement, tuple[int, int]] = {}
        self.tail: dict[HtmlElement, tuple[int, int]] = {}
        starts: dict[HtmlElement, int] = {}

        def add(s: str | None) -> tuple[int, int] | None:
            nonlocal pos, space
            if not s:
                return None
            c = dom.WHITESPACE.sub(" ", s)
            if space and c.startswith(" "):
                c = c[1:]
            if not c:
                return None
            parts.append(c)
            begin, pos = pos, pos + len(c)
            space = c.endswith(" ")
            return begin, pos - 1 if space and pos - 1 > begin else pos  # a span ends before a space

        def add_unit(s: str | None, spans: dict, node) -> None:
            span = add(s)
            if span and s and s.strip():  # whitespace alone separates words but is no unit
                spans[node] = span

        # Depth first by hand: lxml's iterwalk skips comments, and their tails are page text.
        stack: list[tuple[HtmlElement, bool]] = [(body, False)]
        while stack:
            node, done = stack.pop()
            element = dom.is_element(node)
            if not done:
                if element and node.tag in _BREAKING:
                    add(" ")  # block elements and line breaks separate words
                starts[node] = pos
                stack.append((node, True))
                if element and node.tag not in _UNCOUNTED:
                    add_unit(node.text, self.text, node)
                    stack.extend((child, False) for child in reversed(node))
            else:
                self.el[node] = (starts[node], pos - 1 if space and pos > starts[node] else pos)
                if element and node.tag in _BREAKING:
                    add(" ")
                if node is not body:
                    add_unit(node.tail, self.tail, node)
        self.string = "".join(parts)

    def span(self, unit: Unit) -> tuple[int, int] | None:
        kind, node = unit
        return (self.el if kind == "el" else self.text if kind == "text" else self.tail).get(node)


class SegmentsFilter(Filter):
    name = "segments"
    assigns = ("segments", "removed_links")
    Settings = SegmentsSettings
    summary = ("DeSeA: split the page into blocks at delimiter levels down to α characters, merge next-to "
               "blocks, rank blocks by cue phrases just before them; mark them or keep the top ω.")

    def __init__(self, settings: SegmentsSettings) -> None:
        super().__init__(settings)
        self._levels = parse_levels(settings.levels)
        self._cues = tuple((phrase, prio, _cue_pattern(phrase)) for phrase, prio in parse_cues(settings.cue_phrases))
        # Any of them, in one pass over the page's text (not one pass per phrase).
        self._any_cue = re.compile("|".join(f"(?:{p.pattern})" for _, _, p in self._cues) or r"(?!)", re.IGNORECASE)
        self._next_to = frozenset(settings.next_to)

    @property
    def destructive(self) -> bool:  # type: ignore[override]
        return self.settings.mode == "keep"

    # -- the filter ---------------------------------------------------------------------
    def apply(self, page, ctx) -> None:
        s = self.settings
        body = dom.body_of(page.root)
        if s.mode == "keep" and not self._cues:
            ctx.note("skip", body, "keep mode without cue phrases: no block can be relevant; page left unchanged",
                     measured={"cue_phrases": 0}, threshold={"min_cue_phrases": 1})
            return
        text = _Text(body)
        if s.mode == "keep" and not self._any_cue.search(text.string):
            ctx.note("skip", body, "no cue phrase occurs in the page text: no block is relevant; page left unchanged",
                     measured={"cue_phrases_found": 0}, threshold={"min_cue_phrases_found": 1})
            return
        root = self._unit_block([("el", body)], "body", 0, text)
        if root is None:
            ctx.note("skip", body, "the page has no text to segment")
            return
        self._split(root, text, ctx)
        leaves = _leaves(root)
        for block in leaves:
            self._relevance(block, text)
        self._merge(root, ctx)
        blocks = _leaves(root)
        candidates = sorted((b for b in blocks if b.dor > 0), key=lambda b: -b.dor)  # stable: document order
        ranks = {b: r for r, b in enumerate(candidates, 1)}
        relevant = [b for b in candidates if ranks[b] <= s.top_blocks]
        ctx.assign(segments=[
            {"segment": n, "chars": b.chars, "level": b.level, "kind": b.kind, "dor": b.dor, "cue": b.cue,
             "anchor": b.anchor if b.dor > 0 else None,
             "anchor_before": _describe_unit(b.anchor_of) if b.dor > 0 and b.anchor_of else None,
             "rank": ranks.get(b), "relevant": b in relevant, "path": dom.path(b.node),
             "starts_in": _describe_unit(b.first)["starts_in"]}
            for n, b in enumerate(blocks, 1)])
        for n, b in enumerate(blocks, 1):
            self._explain(ctx, n, b, ranks.get(b))
        ctx.note("summary", body, f"{len(blocks)} blocks, {len(candidates)} with a cue phrase in their anchor text, "
                                  f"{len(relevant)} relevant",
                 measured={"blocks": len(blocks), "candidates": len(candidates), "relevant": len(relevant)},
                 threshold={"alpha": s.alpha, "top_blocks": s.top_blocks})
        if s.mode == "mark":
            self._mark(blocks, ranks, relevant, ctx)
        elif not relevant:
            ctx.note("skip", body, "no block has a cue phrase in its anchor text: page left unchanged",
                     measured={"max_dor": 0}, threshold={"min_dor_exclusive": 0})
        else:
            self._keep(body, blocks, relevant, ranks, ctx)

    # -- 1. splitting -------------------------------------------------------------------
    def _split(self, root: Block, text: _Text, ctx) -> None:
        alpha = self.settings.alpha
        active: set[str] = set()
        for level, tags in enumerate(self._levels, 1):
            active |= tags
            holders = self._delimiter_holders(root, active)
            stack = [root]
            while stack:
                block = stack.pop()
                if block.children:
                    stack.extend(reversed(block.children))
                    continue
                if block.chars <= alpha:
                    continue  # Single(n): within the window
                part, children = block, self._divide(block, active, holders, level, text)
                while len(children) == 1 and children[0].units != part.units:
                    # One part holds all the text (a container, or a run beside text-less ones):
                    # look inside it at the same level.
                    part = children[0]
                    children = self._divide(part, active, holders, level, text)
                if len(children) < 2:
                    continue
                block.children = children
                ctx.note("split", block.node, f"level-{level} delimiters divide a block larger than α into "
                                              f"{len(children)} blocks",
                         measured={"chars": block.chars, "level": level, "blocks": len(children)},
                         threshold={"alpha": alpha})
                stack.extend(reversed(children))
            if all(b.chars <= alpha for b in _leaves(root)):
                break

    def _role(self, el, active: set[str]) -> str | None:
        """'heading', 'boundary' or 'container' when ``el`` is a delimiter of the active levels."""
        if not dom.is_element(el):
            return None
        if el.tag == "p" and BOLD_PARAGRAPH in active and _is_bold_paragraph(el):
            return "heading"
        if el.tag not in active:
            return None
        if el.tag in HEADINGS:
            return "heading"
        if el.tag in BOUNDARIES:
            return "boundary"
        return "container"

    def _kind(self, el) -> str:
        return BOLD_PARAGRAPH if el.tag == "p" and _is_bold_paragraph(el) else el.tag

    def _delimiter_holders(self, root: Block, active: set[str]) -> set[HtmlElement]:
        """Elements that hold a delimiter of the active levels below them."""
        top = root.units[0][1]
        holders: set[HtmlElement] = set()
        tags = [t for t in active if t != BOLD_PARAGRAPH]
        if BOLD_PARAGRAPH in active:
            tags.append("p")
        if not tags:
            return holders
        for el in top.iter(*tags):
            if el is top or self._role(el, active) is None:
                continue
            for anc in el.iterancestors():
                if anc in holders:
                    break
                holders.add(anc)
                if anc is top:
                    break
        return holders

    def _divide(self, block: Block, active: set[str], holders: set, level: int, text: _Text) -> list[Block]:
        units = block.units
        if len(units) == 1 and units[0][0] == "el":
            units = _open(units[0][1])
        runs: list[tuple[list[Unit], str]] = []
        cur: list[Unit] = []
        kind = "run"

        def close() -> None:
            nonlocal cur, kind
            if cur:
                runs.append((cur, kind))
            cur, kind = [], "run"

        pending = [iter(units)]
        while pending:
            unit = next(pending[-1], None)
            if unit is None:
                pending.pop()
                if pending:
                    close()  # the end of an opened element is a cut
                continue
            el = unit[1]
            role = self._role(el, active) if unit[0] == "el" else None
            if role == "container":
                close()
                runs.append(([unit], el.tag))
            elif role == "heading":
                close()
                cur, kind = [unit], self._kind(el)
            elif role == "boundary":
                cur.append(unit)
                if kind == "run":
                    kind = el.tag
                close()
            elif unit[0] == "el" and el in holders:
                close()  # no delimiter itself, but holds some: open it; its start is a cut
                pending.append(iter(_open(el)))
            else:
                cur.append(unit)
        close()
        out = [b for b in (self._unit_block(u, k, level, text) for u, k in runs) if b is not None]
        return out

    @staticmethod
    def _unit_block(units: list[Unit], kind: str, level: int, text: _Text) -> Block | None:
        spans = [(sp, u) for u in units if (sp := text.span(u)) and sp[1] > sp[0]]
        chars = sum(b - a for (a, b), _ in spans)
        if not chars:
            return None
        (start, _), first = spans[0]
        return Block(units=units, kind=kind, level=level, chars=chars, start=start, first=first)

    # -- 2. merging ---------------------------------------------------------------------
    def _merge(self, root: Block, ctx) -> None:
        alpha = self.settings.alpha
        stack = [root]
        while stack:
            block = stack.pop()
            if not block.children:
                continue
            merged: list[Block] = []
            for child in block.children:
                prev = merged[-1] if merged else None
                if (prev is not None and not prev.children and not child.children and prev.kind == child.kind
                        and child.kind in self._next_to):
                    total = prev.chars + child.chars
                    if total <= alpha:
                        ctx.note("merge", child.node, f"next-to blocks ({child.kind}) merged within the window",
                                 measured={"chars": total, "dor": max(prev.dor, child.dor)},
                                 threshold={"alpha": alpha})
                        prev.units = prev.units + child.units
                        prev.chars = total
                        prev.parts += child.parts
                        if child.dor > prev.dor:  # rule 4: the higher DoR of the two
                            prev.dor, prev.cue = child.dor, child.cue
                            prev.anchor, prev.anchor_of = child.anchor, child.anchor_of
                        continue
                merged.append(child)
            block.children = merged
            stack.extend(merged)

    # -- 3. degree of relevance -----------------------------------------------------------
    def _relevance(self, block: Block, text: _Text) -> None:
        s = self.settings
        end = block.start
        first_kind, first = block.first
        if (s.heading_in_anchor and first_kind == "el" and block.kind in _HEADING_KINDS
                and first in text.el):
            end = max(end, text.el[first][1])
        block.anchor = text.string[max(0, block.start - s.anchor_chars):end]
        block.anchor_of = block.first
        for phrase, prio, pattern in self._cues:
            if prio > block.dor and pattern.search(block.anchor):
                block.dor, block.cue = prio, phrase

    def _explain(self, ctx, n: int, b: Block, rank: int | None) -> None:
        s = self.settings
        if b.dor <= 0:
            reason = "no cue phrase in its anchor text (DoR 0: not a candidate)"
        elif rank is not None and rank <= s.top_blocks:
            reason = f"relevant: cue phrase {b.cue!r} in its anchor text, rank within the top ω"
        else:
            reason = f"cue phrase {b.cue!r} in its anchor text, but ranked below the top ω"
        ctx.note("segment", b.node, f"block {n} ({b.kind}, level {b.level}): {reason}",
                 measured={"chars": b.chars, "dor": b.dor, "rank": rank, "merged": b.parts,
                           "anchor": b.anchor if b.dor > 0 else None},
                 threshold={"alpha": s.alpha, "min_dor_exclusive": 0, "top_blocks": s.top_blocks})

    # -- what happens to the page -------------------------------------------------------------
    @staticmethod
    def _mark(blocks: list[Block], ranks: dict, relevant: list[Block], ctx) -> None:
        chosen = set(relevant)
        for n, b in enumerate(blocks, 1):
            for kind, node in b.units:
                if kind != "el" or not dom.is_element(node):
                    continue
                ctx.set_attr(node, ATTR_SEGMENT, str(n))
                if b.dor > 0:
                    ctx.set_attr(node, ATTR_RELEVANCE, f"{b.dor:g}")
                if b in chosen:
                    ctx.set_attr(node, ATTR_RANK, str(ranks[b]))

    def _keep(self, body: HtmlElement, blocks: list[Block], relevant: list[Block], ranks: dict, ctx) -> None:
        s = self.settings
        owner: dict[Unit, Block] = {u: b for b in blocks for u in b.units}
        kept: set[Unit] = {u for b in relevant for u in b.units}

        def measured(node: HtmlElement) -> dict:
            inside = {owner[u] for u in _units_in(node) if u in owner}
            best = max(inside, key=lambda b: b.dor, default=None)
            return {"text_chars": dom.text_len(node), "blocks": len(inside),
                    "best_dor": best.dor if best else 0, "best_rank": ranks.get(best)}

        # The kept units' elements stay whole, their text pieces stay, and so do the elements
        # that hold them; everything else in <body> goes (comments too).
        ctx.keep_only(body, [node for kind, node in kept if kind == "el"],
                      texts=[(node, kind == "tail") for kind, node in kept if kind != "el"],
                      comments=True, reason="not part of a relevant block (DoR 0, or ranked below the top ω)",
                      measured=measured, threshold={"min_dor_exclusive": 0, "top_blocks": s.top_blocks},
                      explain=lambda node: dom.text_len(node) > 0)


def _open(el: HtmlElement) -> list[Unit]:
    """The units directly inside ``el``: its leading text, then each child and its tail."""
    units: list[Unit] = []
    if el.text and el.text.strip() and dom.is_element(el) and el.tag not in _UNCOUNTED:
        units.append(("text", el))
    for child in el:
        units.append(("el", child))
        if child.tail and child.tail.strip():
            units.append(("tail", child))
    return units


def _units_in(node: HtmlElement):
    """Every unit that lies inside ``node``'s subtree (itself included, its tail not)."""
    for el in node.iter():
        yield ("el", el)
        yield ("text", el)
        if el is not node:
            yield ("tail", el)


def _describe_unit(unit: Unit) -> dict[str, str]:
    """Where a unit is, for ``ctx.state.segments``: the element's path and whether the text starts in
    it (``element``), is its leading text (``text``) or follows it (``tail``)."""
    kind, node = unit
    return {"path": dom.path(node), "starts_in": {"el": "element", "text": "text", "tail": "tail"}[kind]}


def _leaves(root: Block) -> list[Block]:
    out = []
    stack = [root]
    while stack:
        b = stack.pop()
        if b.children:
            stack.extend(reversed(b.children))
        else:
            out.append(b)
    return out


def _is_bold_paragraph(p: HtmlElement) -> bool:
    """A ``<p>`` whose only text is inside ``<strong>``/``<b>`` children: the paper's <P+Strong>."""
    if (p.text or "").strip():
        return False
    bold = False
    for child in p:
        if not dom.is_element(child):
            continue
        if (child.tail or "").strip():
            return False
        if child.tag in _BOLD_TAGS:
            bold = bold or bool(dom.text_len(child))
        elif child.tag != "br":
            return False
    return bold and dom.text_len(p) <= BOLD_HEADING_MAX_CHARS
