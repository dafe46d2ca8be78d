"""The widening of ``main_content``'s choice to the page's own content block (the package docstring's
"Widening to the page's own content block"): each rule a function of the choice and the page's facts,
run in the order of :data:`WIDENINGS`; a rule that applies replaces the choice and notes why."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from lxml.html import HtmlElement

from pagesieve.analysis.furniture import furniture_block
from pagesieve.analysis.lazy_images import loadable
from pagesieve.analysis.pagetype import PageType, item_kind
from pagesieve.analysis.pictures import STORY_PICTURE_PX, in_control, opens_picture, story_picture
from pagesieve.core import dom
from pagesieve.filters.main_content.common import (
    BOILERPLATE_NAMES,
    BOILERPLATE_ROLES,
    BOILERPLATE_TAGS,
    MAYBE_NAMES,
    POST_NAMES,
    POSTS_ARE_CONTENT,
    UNLIKELY_NAMES,
    names_of,
)
from pagesieve.filters.main_content.scoring import BlockScore
from pagesieve.filters.main_content.settings import MainContentSettings

# On a forum thread the opening post (a question) beside the chosen replies joins them when it is a
# block of prose (OPENING_POST_CHARS, link density at most OPENING_POST_LINK_DENSITY) and their parent
# holds little else (at most OPENING_POST_SLACK times the two).
OPENING_POST_CHARS = 200
OPENING_POST_LINK_DENSITY = 0.2
OPENING_POST_SLACK = 1.1
# On these the content is often sections side by side (main_content.section_link_density); on a
# listing too when the chosen block is prose (measured: cleaneval reader +.003, dragnet +.001).
SECTION_KINDS = frozenset({"service", "product", "documentation", "listing"})
# On these the grid of repeated items (pagetype._repeated_items) is the content (main_content.grid_share).
GRID_KINDS = frozenset({"listing", "collection"})
#: A prose block around a chosen fragment is the text's own block only while what it adds beside the
#: fragment is at most this share clutter by tag, role or name (a thread of comments, a sidebar).
CLUTTER_SHARE = 0.25
#: A table of contents by name (a list of the page's parts, as Wikipedia's ``#toc``).
TOC_NAMES = dom.NamePattern(re.compile(r"(?:^|[\s_-])toc(?:$|[\s_-])|table-of-contents", re.I))
#: In a grid of items no item holds more than this share of the items' text (a listing's cards and
#: teasers are alike; a column of sidebar boxes around one long story is not a grid).
GRID_ITEM_SHARE = 0.5


@dataclass(slots=True)
class Choice:
    """The chosen content as each rule hands it on: the best block and its score, the kept blocks
    and their characters."""

    top: HtmlElement
    top_score: float
    chosen: list[HtmlElement]
    chars: int

    def widen(self, node: HtmlElement, scores: dict[HtmlElement, float], chars: int) -> None:
        """Keep ``node`` alone instead, with its score (the best's when it has none)."""
        self.top, self.top_score, self.chosen, self.chars = node, scores.get(node, self.top_score), [node], chars


@dataclass(slots=True, frozen=True)
class Facts:
    """What the rules read of the page: the settings, ``<body>``, the block counts and the scores of
    the chosen pass, the page type, the pass (1 or 2) and the page's semantic main block."""

    s: MainContentSettings
    body: HtmlElement
    st: dict[HtmlElement, BlockScore]
    scores: dict[HtmlElement, float]
    kind: PageType
    attempt: int
    semantic: HtmlElement | None


def _within(node: HtmlElement, chosen: list[HtmlElement]) -> bool:
    """Every chosen block lies strictly inside ``node``."""
    return all(any(a is node for a in c.iterancestors()) for c in chosen)


def out_of_furniture(c: Choice, f: Facts, ctx) -> None:
    """*out of the furniture*: a choice that lies wholly in page furniture (the page's footer, banner,
    a side bar or a menu: ``dom.furniture_between``) gives way to the page's one main block when that
    holds text of its own (``min_paragraph_chars`` or more) and is no furniture: the second pass,
    over every paragraph, can find the footer's blurbs longer than a short page's own text."""
    main = f.semantic
    ms = f.st.get(main) if main is not None else None
    if (ms is None or main is f.body or ms.chars < f.s.min_paragraph_chars or dom.furniture_between(main)
            or not all(dom.furniture_between(x) for x in c.chosen)):
        return
    ctx.note("widen", main, "the chosen block lies in the page's furniture (its footer, banner, a side bar or "
                            "a menu): the page's main block is the content",
             measured={"chars": c.chars, "main_chars": ms.chars})
    c.widen(main, f.scores, ms.chars)


def semantic_main_block(c: Choice, f: Facts, ctx) -> None:
    """*semantic main*: the page's one main block when the choice holds less than ``main_share`` of it."""
    s = f.s
    if not s.main_share:
        return
    main = f.semantic
    ms = f.st.get(main) if main is not None else None
    inside = main is not None and all(any(a is main for a in (x, *x.iterancestors())) for x in c.chosen)
    # A thin pick of the second pass (the page has no article-sized prose: a listing, a shop's
    # category, a schedule) takes the main block whatever its link density: its items are links.
    thin = c.chars < s.min_article_chars and f.attempt > 1
    if (ms and main is not f.body and ms.chars and c.chars < s.main_share * ms.chars
            and (ms.link / ms.chars <= s.main_link_density or thin)
            and not (inside and main is not None and (main.tag == "article" or f.kind.kind == "article" and f.attempt == 1))
            and not _declared_story(c, f)):
        if s.text_over_links and main is not None and links_beside(c, main, f, ctx):
            return
        ctx.note("widen", main, "the chosen block is a small part of the page's semantic main block",
                 measured={"chars": c.chars, "main_chars": ms.chars}, threshold={"main_share": s.main_share})
        c.widen(main, f.scores, ms.chars)


def _declared_story(c: Choice, f: Facts) -> bool:
    """The first pass chose ``<article>`` elements of article size (``min_article_chars``): the page
    marks that text as its story itself, and the rest of its main block is what stands around a story
    (a shop's buying box, reviews and accessories around the product's description)."""
    return (f.attempt == 1 and c.chars >= f.s.min_article_chars
            and all(x.tag == "article" for x in c.chosen))


def links_beside(c: Choice, main: HtmlElement, f: Facts, ctx) -> bool:
    """What the main block adds to a chosen text of article size is mostly links (over
    ``main_link_density`` of it: a grid of products or teasers beside a category's description, on a
    page whose main block as a whole is under that bound); the text is kept, and the note says so."""
    s, ms = f.s, f.st[main]
    rest = ms.chars - c.chars
    rest_link = ms.link - sum(f.st[x].link for x in c.chosen)
    if c.chars < s.min_article_chars or rest <= 0 or rest_link <= s.main_link_density * rest:
        return False
    ctx.note("keep", c.chosen[0], "the chosen text is kept, not the page's semantic main block: what the main "
                                  "block adds beside the text is mostly links (a grid of items, not text)",
             measured={"chars": c.chars, "main_chars": ms.chars, "rest_link_density": round(rest_link / rest, 3)},
             threshold={"main_link_density": s.main_link_density, "min_article_chars": s.min_article_chars})
    return True


def grid_of_items(c: Choice, f: Facts, ctx) -> None:
    """*grid of items*: on a listing, or when the choice is one item of the grid, the grid of repeated items."""
    s, kind = f.s, f.kind
    grid = kind.grid
    # Whatever the page type, a short chosen block that is one item of the page's grid (a teaser
    # among a blog's alike teasers) says the grid is the content.
    in_grid = grid is not None and kind.kind not in POSTS_ARE_CONTENT and _within(grid, c.chosen)
    if not (s.grid_share and (kind.kind in GRID_KINDS or in_grid)):
        return
    gs = f.st.get(grid) if grid is not None else None
    if (gs and grid is not None and grid is not f.body and not any(a in c.chosen for a in (grid, *grid.iterancestors()))
            and c.chars < s.grid_share * gs.chars and (c.chars < s.min_article_chars or f.attempt > 1)
            and even_items(grid, f.st)):
        ctx.note("widen", grid, ("on a listing the grid of repeated items is the content, and it holds more "
                                 "text than the chosen block") if kind.kind in GRID_KINDS else
                 "the chosen block is one item of a grid of alike items: the grid is the content",
                 measured={"chars": c.chars, "grid_chars": gs.chars}, threshold={"grid_share": s.grid_share})
        c.widen(grid, f.scores, gs.chars)


def sections_side_by_side(c: Choice, f: Facts, ctx) -> None:
    """*sections side by side*: sibling sections of prose join several chosen blocks; one chosen block
    widens to the prose block around it."""
    s = f.s
    if not (s.section_link_density and f.kind.kind in SECTION_KINDS):
        return
    if len(c.chosen) > 1:
        c.chosen, c.chars = sibling_sections(c.chosen, f.st, c.chars, s, ctx)
        return
    if len(c.chosen) != 1:
        return
    # A service, product, documentation or listing page is often sections side by side, each its own
    # block: climb while the parent adds prose (low link density), not navigation.
    node = c.chosen[0]
    parent = node.getparent()
    while (parent is not None and parent is not f.body and parent.tag not in BOILERPLATE_TAGS
           and parent.tag != "article"):  # beside a story in its <article>: comments, related
        ps = f.st.get(parent)
        if not ps or not ps.chars or ps.link / ps.chars > s.section_link_density:
            break
        node, parent = parent, parent.getparent()
    if node is not c.chosen[0] and f.st[node].chars > c.chars:
        ns = f.st[node]
        ctx.note("widen", node, "on this kind of page the content is sections side by side: the "
                                "prose block around the chosen one is kept",
                 measured={"chars": c.chars, "section_chars": ns.chars,
                           "link_density": round(ns.link / ns.chars, 3)},
                 threshold={"section_link_density": s.section_link_density})
        c.widen(node, f.scores, ns.chars)


def prose_around(c: Choice, f: Facts, ctx) -> None:
    """*prose around a fragment*: on any other page but a forum, one chosen block that holds less than half
    of the prose block around it (link density at most ``section_link_density``, reached through parents
    of at most twice that, no clutter by name or tag) gives way to that block: a long text split in
    sibling chunks (tables, fonts, divisions), of which the best-scored chunk was chosen."""
    s = f.s
    parent = c.chosen[0].getparent()
    # A chosen text under article size is a short story: what lies around it is the page's furniture
    # (a newsletter box, a disclaimer), not the rest of a text.
    if not (s.prose_around and s.section_link_density and f.kind.kind not in SECTION_KINDS | POSTS_ARE_CONTENT
            and c.chars >= s.min_article_chars and all(x.getparent() is parent for x in c.chosen)):
        return
    node, kept, chars = None, set(c.chosen), c.chars  # the chosen blocks: one, or siblings side by side
    # The way up may pass a level a little over the bound (a row whose other cell is a few links beside
    # the text's first part) when a level above it is back within it; the block kept is always within it.
    while (parent is not None and parent is not f.body and parent.tag not in BOILERPLATE_TAGS
           and parent.tag != "article"):  # beside a story in its <article>: comments, related
        ps = f.st.get(parent)
        if not ps or not ps.chars or ps.link / ps.chars > 2 * s.section_link_density or is_clutter(parent):
            break
        if clutter_chars(parent, kept, f.st) > CLUTTER_SHARE * (ps.chars - chars):
            break  # a comment thread, a sidebar or a menu beside the text: not the text's own block
        if ps.link / ps.chars <= s.section_link_density:
            node = parent
        kept, chars, parent = {parent}, ps.chars, parent.getparent()
    chars = f.st[node].chars if node is not None else c.chars
    if node is not None and chars >= 2 * c.chars:
        ns = f.st[node]
        ctx.note("widen", node, "the chosen block is less than half of the prose block around it (few links, "
                                "nothing named or tagged as clutter): a text split in chunks, the block is kept",
                 measured={"chars": c.chars, "prose_chars": ns.chars, "link_density": round(ns.link / ns.chars, 3)},
                 threshold={"section_link_density": s.section_link_density, "share": 0.5})
        c.widen(node, f.scores, ns.chars)


def clutter_chars(parent: HtmlElement, skip: set[HtmlElement], st) -> int:
    """The characters of ``parent``'s blocks, outside those of ``skip``, that are clutter by tag, role or
    name (menus, sidebars, comments, share bars: the unlikely and boilerplate names), outermost only."""
    total = 0
    stack = [el for el in parent if el not in skip and isinstance(el.tag, str)]
    while stack:
        el = stack.pop()
        es = st.get(el)
        if es is None or not es.chars:
            continue
        if is_clutter(el):
            total += es.chars
            continue
        stack.extend(x for x in el if isinstance(x.tag, str))
    return total


def is_clutter(el: HtmlElement) -> bool:
    """A block that is not a text's own part by tag, role or name: navigation, a sidebar, a footer, a
    comment thread, a share bar, a table of contents (a list of the page's parts, not a part)."""
    names = names_of(el)
    return (el.tag in BOILERPLATE_TAGS or (el.get("role") or "").lower() in BOILERPLATE_ROLES
            or bool(names and (BOILERPLATE_NAMES.found(names) or TOC_NAMES.found(names)
                               or UNLIKELY_NAMES.found(names) and not MAYBE_NAMES.found(names))))


def rest_of_main(c: Choice, f: Facts, ctx) -> None:
    """*the rest of the main block*: the main block when the rest of it is prose with few links."""
    s, main = f.s, f.semantic
    if not (s.main_rest_link_density and s.main_share and f.kind.kind in SECTION_KINDS and main is not None):
        return
    ms = f.st.get(main)
    if not (ms and main is not f.body and main.tag != "article" and _within(main, c.chosen)):
        return
    rest = ms.chars - c.chars
    rest_link = ms.link - sum(f.st[x].link for x in c.chosen)
    if rest >= s.min_article_chars / 2 and rest_link <= s.main_rest_link_density * rest:
        ctx.note("widen", main, "on this kind of page the rest of the page's semantic main block "
                                "is prose (few links): it is content beside the chosen block",
                 measured={"chars": c.chars, "main_chars": ms.chars,
                           "rest_link_density": round(rest_link / rest, 3) if rest else 0},
                 threshold={"main_rest_link_density": s.main_rest_link_density})
        c.widen(main, f.scores, ms.chars)


def thread_of_posts(c: Choice, f: Facts, ctx) -> None:
    """*thread of posts*: on a forum thread, the block of the repeated posts when the choice is one of them."""
    if not (f.s.thread_widen and f.kind.kind in POSTS_ARE_CONTENT):
        return
    thread = f.kind.thread
    ts = f.st.get(thread) if thread is not None else None
    # Only when the chosen block is one of the posts (inside their block): a story chosen
    # outside a longer comment thread stays the story.
    if ts and thread is not None and thread is not f.body and c.chars < ts.chars and _within(thread, c.chosen):
        ctx.note("widen", thread, "on a forum thread every post is the content: the block of the "
                                  "repeated posts is kept, not one post",
                 measured={"chars": c.chars, "thread_chars": ts.chars})
        c.widen(thread, f.scores, ts.chars)


def opening_post(c: Choice, f: Facts, ctx) -> None:
    """*thread of posts*, then: the opening post or the replies beside the chosen block join it."""
    if not (f.s.thread_widen and f.kind.kind in POSTS_ARE_CONTENT and len(c.chosen) == 1):
        return
    joined = opening_post_block(c.chosen[0], f.st, f.body)
    if joined is not None:
        ctx.note("widen", joined, "on a forum thread the opening post beside the chosen block of replies is "
                                  "content too: their common block, which holds little else, is kept",
                 measured={"chars": c.chars, "joined_chars": f.st[joined].chars})
        c.widen(joined, f.scores, f.st[joined].chars)


def thin_choice(c: Choice, f: Facts, ctx) -> None:
    """*thin choice*: a chosen block under ``min_article_chars`` gives way to the page's largest block of prose."""
    s = f.s
    if not (c.chars < s.min_article_chars and s.section_link_density and f.kind.kind in SECTION_KINDS):
        return
    block = prose_block(f.body, f.st, s)
    if block is None:
        return
    bs = f.st[block]
    if bs.chars >= max(2 * s.min_article_chars, 4 * c.chars) and not any(
            a in c.chosen for a in (block, *block.iterancestors())):
        ctx.note("widen", block, "the chosen block is thin: the page's largest block of prose (few links) "
                                 "is kept instead",
                 measured={"chars": c.chars, "block_chars": bs.chars,
                           "link_density": round(bs.link / bs.chars, 3)},
                 threshold={"min_article_chars": s.min_article_chars,
                            "link_density": 2 * s.section_link_density})
        c.widen(block, f.scores, bs.chars)


#: A block beside the chosen ones that shows the story's pictures holds at most this much text (a
#: caption, a credit); more, and it is a block of its own (a card, a teaser), judged by the rules above.
PICTURE_BLOCK_MAX_CHARS = 200


def pictures_beside(c: Choice, f: Facts, ctx) -> None:
    """*pictures beside the text*: the story's text is often chosen as its prose blocks, and its
    pictures stand in blocks of their own between them (a page builder's image block between two text
    blocks, a figure between sections) or just before the first (the lead photo above the text). Such a
    block — holding a picture of the story (:func:`pagesieve.analysis.pictures.story_picture`: not a link
    to another page, not a thumbnail, not a control's face) and at most ``PICTURE_BLOCK_MAX_CHARS`` of
    text, no link but to a picture file and no navigation, form or control, not clutter by tag, role
    or name — joins the choice: the pictures illustrate the kept text."""
    kept = set(c.chosen)
    extra: list[HtmlElement] = []
    for parent in dict.fromkeys(x.getparent() for x in c.chosen if x.getparent() is not None):
        kids = [k for k in parent if isinstance(k.tag, str)]
        at = [i for i, k in enumerate(kids) if k in kept]
        for k in kids[max(at[0] - 1, 0):at[-1]]:
            if k not in kept and _picture_block(k, f):
                extra.append(k)
    _join(c, f, ctx, extra, "blocks showing the story's pictures beside the chosen text join it",
          measured={"blocks": len(extra)}, threshold={"picture_block_max_chars": PICTURE_BLOCK_MAX_CHARS})


def _join(c: Choice, f: Facts, ctx, extra: list[HtmlElement], reason: str, **details) -> None:
    """Add ``extra`` to the chosen blocks, in page order, explained (nothing when it is empty)."""
    if not extra:
        return
    ctx.note("widen", extra[0], reason, **details)
    order = {el: i for i, el in enumerate(f.body.iter())}
    c.chosen = sorted([*c.chosen, *extra], key=lambda el: order.get(el, 0))


def _picture_block(el: HtmlElement, f: Facts) -> bool:
    """A block that only shows pictures of the story: no links but to picture files, no navigation,
    form or control inside (a site's header with its logo is not one), a caption's worth of text."""
    es = f.st.get(el)
    if (es.chars if es is not None else dom.text_len(el)) > PICTURE_BLOCK_MAX_CHARS or is_clutter(el):
        return False
    if any(a.get("href") is not None and not opens_picture(a) for a in el.iter("a")):
        return False
    if next(el.iter(*BOILERPLATE_TAGS), None) is not None:
        return False
    return any(story_picture(img, STORY_PICTURE_PX) and not in_control(img) and loadable(img)
               for img in el.iter("img"))


#: A section's title says at most this much (a heading holding a paragraph is not one).
TITLE_MAX_CHARS = 200


def titles_above(c: Choice, f: Facts, ctx) -> None:
    """*the titles of the kept sections*: a chosen block right after a heading of its own (an ``<h2>``
    to ``<h6>`` or ``role=heading``, a title's length, no link but to a place on the page) is that
    heading's section, and the heading joins it. The scorer weighs paragraphs, so a section's prose is
    chosen without its title (an FAQ's answers without their questions)."""
    kept = set(c.chosen)
    extra: list[HtmlElement] = []
    for block in c.chosen:
        above = block.getprevious()
        while above is not None and not isinstance(above.tag, str):
            above = above.getprevious()
        if above is not None and above not in kept and _section_title(above):
            extra.append(above)
    _join(c, f, ctx, extra, "the headings right above the chosen blocks join them as their titles",
          measured={"headings": len(extra)}, threshold={"title_max_chars": TITLE_MAX_CHARS})


def _section_title(el: HtmlElement) -> bool:
    if not (el.tag in dom.HEADING_TAGS and el.tag != "h1"
            or (el.get("role") or "").strip().lower() == "heading" and el.get("aria-level") != "1"):
        return False
    if any(not (a.get("href") or "").startswith("#") for a in el.iter("a")):
        return False
    text = dom.text_of(el)
    return 0 < len(text) <= TITLE_MAX_CHARS and not is_clutter(el)


def second_opinion(c: Choice, f: Facts, ctx) -> None:
    """*second opinion*: on a page that is not an article or a forum, a choice of prose holding less than
    ``second_opinion_share`` of the unlinked text outside the page's furniture (an article's worth or
    more: :func:`blocks_outside_furniture`) gives way to that text's blocks, with the chosen ones: a
    service, product or documentation page is often sections side by side, each its own block, and
    the best-scored one is only a part of the page's text."""
    s, st = f.s, f.st
    if not s.second_opinion_share or f.kind.kind in POSTS_ARE_CONTENT or f.kind.kind == "article":
        return
    kept = sum(st[x].chars - st[x].link for x in c.chosen)
    if kept >= s.second_opinion_share * (st[f.body].chars - st[f.body].link):
        return  # it holds that share of the whole page's unlinked text already
    if sum(st[x].link for x in c.chosen) > s.main_link_density * c.chars:
        return  # a choice that is mostly links (a grid of items) is not the prose this compares
    if any(a.tag == "article" for x in c.chosen for a in (x, *x.iterancestors())):
        return  # inside an <article> the rest beside the chosen text is its comments and related lists
    blocks = blocks_outside_furniture(f.body, st, s.second_opinion_link_density, s.min_paragraph_chars)
    unlinked = sum(st[b].chars - st[b].link for b in blocks)
    if unlinked < s.min_article_chars or kept >= s.second_opinion_share * unlinked:
        ctx.note("keep", c.chosen[0], "second opinion: the chosen text stands (the page's text outside its "
                                      "furniture is under an article's worth, or the choice holds enough of it)",
                 measured={"kept_unlinked": kept, "unlinked_outside_furniture": unlinked},
                 threshold={"second_opinion_share": s.second_opinion_share, "min_article_chars": s.min_article_chars})
        return
    found = set(blocks)
    # Only where the opinion sees the choice (in one of its blocks, or holding some): a choice in the
    # furniture or in clutter by name is the other rules' (out of the furniture).
    if not all(any(a in found for a in (x, *x.iterancestors())) or any(b in found for b in x.iterdescendants())
               for x in c.chosen):
        return
    order = {el: i for i, el in enumerate(f.body.iter())}
    joined = sorted({*blocks, *c.chosen}, key=lambda el: order.get(el, 0))
    inner = set(joined)  # a block inside another kept one is kept with it
    joined = [b for b in joined if not any(a in inner for a in b.iterancestors())]
    ctx.note("widen", joined[0], "second opinion: the chosen text is a small part of the page's text outside its "
                                 "furniture (header, footer, menus, sidebars); the blocks of that text are kept",
             measured={"kept_unlinked": kept, "unlinked_outside_furniture": unlinked, "blocks": len(joined)},
             threshold={"second_opinion_share": s.second_opinion_share,
                        "link_density": s.second_opinion_link_density})
    c.chosen, c.chars = joined, sum(st[b].chars for b in joined)


def blocks_outside_furniture(body: HtmlElement, st, link_density: float, min_chars: int) -> list[HtmlElement]:
    """The page's blocks outside its furniture: from ``<body>`` down, a furniture block or clutter (by
    tag, role or name: :func:`is_clutter`) is left out; a block that holds none, at a link density of
    at most ``link_density`` and with ``min_chars`` or more, is kept whole; any other is looked into.
    In document order."""
    block = furniture_block(body)
    left_out: set[HtmlElement] = set()
    holds: set[HtmlElement] = set()  # the blocks that hold some furniture or clutter
    stack = [x for x in body if isinstance(x.tag, str)]
    while stack:  # the outermost furniture blocks; nothing under one is looked at
        el = stack.pop()
        if el in st and (block(el) or is_clutter(el)):
            left_out.add(el)
            for a in el.iterancestors():
                if a is body or a in holds:
                    break
                holds.add(a)
            continue
        stack.extend(x for x in el if isinstance(x.tag, str))
    out = []
    stack = [x for x in reversed(body) if isinstance(x.tag, str)]
    while stack:
        el = stack.pop()
        es = st.get(el)
        if es is None or not es.chars or el in left_out:
            continue
        if el not in holds and es.link <= link_density * es.chars:
            if es.chars >= min_chars:
                out.append(el)
            continue
        stack.extend(x for x in reversed(el) if isinstance(x.tag, str))
    return out

#: The widening rules in the order they run: each sees the choice the ones before it left.
WIDENINGS: tuple[Callable[[Choice, Facts, object], None], ...] = (
    out_of_furniture,
    semantic_main_block,
    grid_of_items,
    sections_side_by_side,
    prose_around,
    rest_of_main,
    thread_of_posts,
    opening_post,
    thin_choice,
    second_opinion,
    pictures_beside,
    titles_above,
)


def even_items(parent: HtmlElement, st) -> bool:
    """The largest group of ``parent``'s children of one kind (:func:`item_kind`) has no dominant item."""
    groups: dict[tuple, list[int]] = {}
    for child in parent:
        if child in st:
            groups.setdefault(item_kind(child), []).append(st[child].chars)
    items = max(groups.values(), key=len, default=[])
    return bool(items) and max(items) <= GRID_ITEM_SHARE * max(1, sum(items))


def prose_block(body, st, s: MainContentSettings) -> HtmlElement | None:
    """The block below ``<body>`` with the most text at a link density of at most twice
    section_link_density, outside boilerplate tags and roles, of at least min_article_chars."""
    best, most = None, s.min_article_chars - 1
    stack = [c for c in body if isinstance(c.tag, str)]
    while stack:
        el = stack.pop()
        es = st.get(el)
        if not es or el.tag in BOILERPLATE_TAGS or (el.get("role") or "").lower() in BOILERPLATE_ROLES:
            continue
        if es.chars > most and es.link <= 2 * s.section_link_density * es.chars:
            best, most = el, es.chars
        stack.extend(c for c in el if isinstance(c.tag, str))
    return best


def sibling_sections(chosen, st, chars, s: MainContentSettings, ctx) -> tuple[list, int]:
    """Several chosen blocks side by side: a sibling of theirs that is a section of prose too —
    half of min_article_chars or more, link density at most section_link_density, not named or
    tagged as boilerplate — joins them (a shop's "plan your visit" beside its welcome, which
    scored below the joining bound for want of paragraphs). Short siblings stay out: a byline, a
    date, a post's author line."""
    parent = chosen[0].getparent()
    if parent is None or any(c.getparent() is not parent for c in chosen):
        return chosen, chars
    kept = set(chosen)
    joined = []
    for sib in parent:
        ss = st.get(sib)
        if (sib in kept or not ss or ss.chars < s.min_article_chars / 2
                or ss.link > s.section_link_density * ss.chars or sib.tag in BOILERPLATE_TAGS
                or (sib.get("role") or "").lower() in BOILERPLATE_ROLES or BOILERPLATE_NAMES.found(names_of(sib))):
            continue
        joined.append(sib)
        ctx.note("widen", sib, "on this kind of page the content is sections side by side: a section of "
                               "prose beside the chosen ones joins them",
                 measured={"chars": ss.chars, "link_density": round(ss.link / ss.chars, 3)},
                 threshold={"min_chars": s.min_article_chars / 2,
                            "section_link_density": s.section_link_density})
    if not joined:
        return chosen, chars
    kept.update(joined)
    return [c for c in parent if c in kept], chars + sum(st[j].chars for j in joined)


def opening_post_block(node: HtmlElement, st, body: HtmlElement) -> HtmlElement | None:
    """The block joining ``node`` and the rest of its thread: climbing from ``node`` while each
    parent holds little else (OPENING_POST_SLACK), the first parent where ``node`` has beside it
    the opening post (its previous sibling, a block of prose: the question above the answers) or
    the replies (its next sibling, named like posts or comments: the thread under the first post)
    and holds little else than the two. None when there is none."""
    while True:
        parent = node.getparent()
        if parent is None or parent is body or parent not in st or node not in st:
            return None
        ns = st[node]
        prev, nxt = node.getprevious(), node.getnext()
        while prev is not None and not (isinstance(prev.tag, str) and prev in st):
            prev = prev.getprevious()
        while nxt is not None and not (isinstance(nxt.tag, str) and nxt in st):
            nxt = nxt.getnext()
        for other, opening in ((prev, True), (nxt, False)):
            if other is None:
                continue
            os_ = st[other]
            if os_.chars < OPENING_POST_CHARS or os_.link > OPENING_POST_LINK_DENSITY * os_.chars:
                continue
            if not opening and not POST_NAMES.search(names_of(other)):
                continue
            if st[parent].chars <= OPENING_POST_SLACK * (os_.chars + ns.chars):
                return parent
        if st[parent].chars > OPENING_POST_SLACK * ns.chars:
            return None
        node = parent
