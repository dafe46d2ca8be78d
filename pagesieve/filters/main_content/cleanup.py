"""The clean-up of ``main_content`` inside the kept blocks (the package docstring's "Cleanup inside the
chosen node" and "Comment threads"): everything outside them goes, then the boilerplate inside, the
hidden panels are shown, copies go and the headline and byline are put first."""

from __future__ import annotations

import copy
import re
from collections import defaultdict

from lxml.html import HtmlElement

from pagesieve.analysis.headline import BYLINE_CLASS, HEADLINE_CLASS, same_words
from pagesieve.analysis.pictures import STORY_PICTURE_PX, in_control, story_picture
from pagesieve.core import dom
from pagesieve.core.measure import elements_with
from pagesieve.filters.main_content.common import (
    BOILERPLATE,
    BOILERPLATE_NAMES,
    BOILERPLATE_ROLES,
    BOILERPLATE_TAGS,
    INLINE_TAGS,
    POSITIVE_NAMES,
    POST_NAMES,
    POSTS_ARE_CONTENT,
    REVIEW_KINDS,
    THREAD_MIN_COMMENTS,
    comment_thread,
    is_folded,
    is_hidden,
    names_of,
    thread_names,
)
from pagesieve.filters.main_content.settings import MainContentSettings

# schema.org's counters of likes, shares, comments (InteractionCounter): figures about the text, not text.
COUNTER_PROPS = frozenset({"interactionStatistic", "interactionCount"})
# Named "read more" (BOILERPLATE): the control, a teaser list — or the text it unfolds (_collapsed_text).
READ_MORE = re.compile(r"read-?more", re.I)
#: A thread goes when the story left holds a paragraph's worth of characters (a two-sentence "open
#: thread" post under 100 comments is the post; with min_article_chars, 500, the comments stayed).
#: Measured 150 and 300 alike: scrapinghub reader +.005, dragnet +.002, nothing lower anywhere.
THREAD_MIN_STORY_CHARS = 200
ITEMS_ARE_CONTENT = frozenset({"listing", "collection", "product", "documentation"})
# Image captions, credits and galleries: not article text in the scrapinghub ground truth ("article
# text only") and repeated per image in galleries.
CAPTION = re.compile(r"caption|credit|gallery|slideshow|carousel", re.I)
CAPTION_TAGS = frozenset({"figcaption"})
#: A block named like a gallery, slideshow or carousel that holds prose is a rotator of text —
#: testimonials, quotes, feature cards beside their pictures — and judged as any other block (a caption or credit is text beside its image: judged by name alone).
SLIDES = re.compile(r"gallery|slideshow|carousel", re.I)
# Whole short blocks that are labels of boilerplate, not text ("Advertisement", "Read more").
LABEL = re.compile(r"^\W*(?:advert(?:isement)?|ad|sponsored(?: content)?|read more|related(?: articles| stories)?|"
                   r"more stories|share(?: this)?(?: article| story)?|tags?|comments?|subscribe|continue reading|"
                   r"story continues below(?: advertisement)?|skip ad)\W*$", re.I)
CLEAN_TAGS = frozenset({"ul", "ol", "dl", "table", "div", "section", "header", "figure"})
#: A block of at least this many characters whose text repeats a block above it is a copy (drop_copies).
COPY_MIN_CHARS = 100
COPY_MAX_SHARE = 0.3
#: Rows and cells of a table may repeat by right (data); so may inline phrases (a repeated bold notice).
TABLE_PARTS = frozenset({"table", "thead", "tbody", "tfoot", "tr", "td", "th"})
_SITE_SEP = re.compile(r"\s+[|–—]\s+|\s+-\s+")


def prune(body, chosen, st, ctx) -> None:
    """Remove everything in ``body`` outside the chosen nodes; blank loose text on the way."""
    ctx.keep_only(body, chosen, reason="outside the main content block",
                  measured=lambda n: {"chars": st[n].chars} if n in st else None,
                  explain=lambda n: bool(n in st and st[n].chars))


def _core(chosen, top, top_score, scores, s: MainContentSettings) -> HtmlElement | None:
    """The innermost scored block under the best one that keeps ``alternative_ratio`` of its score;
    None when that is the best block itself, kept alone (no inner core)."""
    keep = set(chosen)
    under: set[HtmlElement] = set()  # the elements below a chosen node
    for node in chosen:
        under.update(node.iterdescendants())
    inner = [el for el in scores if el not in keep and el in under]
    best = _best_below(chosen, inner, scores)
    core = top
    while True:  # down to the innermost block that holds nearly all of the score
        nxt = best.get(core)  # the best-scored inner element below core (the first of equals)
        if nxt is None or scores[nxt] < s.alternative_ratio * scores.get(core, top_score):
            break
        core = nxt
    if len(chosen) == 1 and core is top:
        return None  # no inner core: every removal is bounded by clean_max_share
    return core


def clean(page, chosen, top, top_score, st, scores, article_chars, ctx, s: MainContentSettings,
          kind: str = "article", links_are_content: bool = False) -> None:
    """Remove boilerplate inside the chosen nodes (see the package docstring). ``links_are_content``:
    the choice is a block of links taken as the content (no text of article size on the page): its
    link lists are what was chosen, not boilerplate inside a text."""
    if not article_chars:
        return
    core = _core(chosen, top, top_score, scores, s)
    core_path = set(core.iterancestors()) | {core} if core is not None else set()
    core_tree = set(core.iter()) if core is not None else set()  # core and what is below it
    title_words = _words(page.title)
    plan: list[tuple[HtmlElement, str, dict, dict]] = []
    planned: set[HtmlElement] = set()
    bounded = 0  # characters of removals justified by size alone (not by lying outside the core)
    for node in chosen:  # a joining sibling may itself be boilerplate; the best block is not
        stack = list(reversed(node)) if node is top or core is None else [node]
        while stack:
            el = stack.pop()
            if not isinstance(el.tag, str):
                continue
            outside_core = core is not None and el not in core_path and el not in core_tree
            reason = boilerplate(el, st, article_chars, title_words, outside_core, s, kind, links_are_content)
            if reason:
                plan.append((el, *reason))
                if not outside_core:
                    bounded += st[el].chars if el in st else 0
                title = _list_title(el) if reason[0] == "link list inside the article" else None
                if title is not None and title not in planned and not any(x in planned for x in title.iterancestors()):
                    plan.append((title, "the heading of a list of links removed", {"chars": dom.text_len(title)}, {}))
                    planned.add(title)
                planned.add(el)
            else:
                stack.extend(reversed(el))
    # A comment thread under a story may be most of the page: it is removed whatever its size
    # (not bounded by clean_max_total, not counted by the chain's article-loss guard) when the
    # story left holds THREAD_MIN_STORY_CHARS — never on a forum, where the posts are the content.
    threads = set()
    if kind not in POSTS_ARE_CONTENT:
        alike: dict = {}
        threads = {el for el, *_ in plan if comment_thread(el, alike, thread_names(kind))}
        left = article_chars - sum(st[el].chars for el, *_ in plan if el in st)
        if left < THREAD_MIN_STORY_CHARS:
            threads = set()
        bounded -= sum(st[el].chars for el in threads if el in st)
    if bounded > s.clean_max_total * article_chars:
        ctx.note("skip-clean", chosen[0], "cleanup would take too much of the article; left as chosen",
                 measured={"share": round(bounded / article_chars, 3)},
                 threshold={"clean_max_total": s.clean_max_total})
        return
    for el, why, measured, threshold in plan:
        if why == "image caption or gallery":
            pictures = _pictures_of(el)
            if pictures:  # the images stay (the setting says so): the text and controls around them go
                _hand_on_caption(el, ctx, pictures)
                ctx.keep_only(el, pictures, reason=f"{why}: its text and controls (its pictures stay)",
                              measured=lambda _, m=measured: m, threshold=threshold)
                continue
            _hand_on_caption(el, ctx)
        elif why == "link list inside the article" or (why.startswith("named like boilerplate") and el not in threads):
            # a picture that is no link is no part of the list (a figure with a linked credit), nor of the
            # share bar it stands beside (a shop's photo column, named for its buttons)
            pictures = _pictures_of(el)
            if pictures:
                ctx.keep_only(el, pictures, reason=f"{why}: its links and text (its pictures stay)",
                              measured=lambda _, m=measured: m, threshold=threshold)
                continue
        if el in threads:
            ctx.remove(el, "a comment thread under the story", measured=measured,
                       threshold={"thread_min_comments": THREAD_MIN_COMMENTS}, guarded=False)
        else:
            ctx.remove(el, why, measured=measured, threshold=threshold)


def _heading_only(el: HtmlElement | None) -> bool:
    """``el`` is a heading, or a block whose one heading is all its text (a page builder's heading
    module), with no link and no picture."""
    if el is None or not isinstance(el.tag, str):
        return False
    if el.tag in dom.HEADING_TAGS:
        heading = el
    else:
        headings = list(el.iter(*dom.HEADING_TAGS))
        if len(headings) != 1 or dom.text_len(headings[0]) != dom.text_len(el):
            return False
        heading = headings[0]
    return dom.text_len(heading) > 0 and next(el.iter("a", *dom.MEDIA_TAGS), None) is None


#: A list's title is a few words ("Our offices", "Popular projects:"), not a sentence (an article's
#: standfirst over its byline's links); ...
LIST_TITLE_WORDS = 10
#: ... over a list of at least this many links (a call to action's one link is no list).
LIST_TITLE_LINKS = 3


def _list_title(el: HtmlElement) -> HtmlElement | None:
    """The heading right before a list of links that ends the heading's section (what follows it
    starts with another heading, or nothing follows): the list's title ("Our offices", "Related
    stories"), which would head nothing once the list is gone."""
    prev = next(el.itersiblings(dom.ELEMENT, preceding=True), None)
    after = next(el.itersiblings(dom.ELEMENT), None)
    if (prev is None or (prev.tail or "").strip() or (el.tail or "").strip() or not _heading_only(prev)
            or len(dom.text_of(prev).split()) > LIST_TITLE_WORDS
            or sum(1 for _ in el.iter("a")) < LIST_TITLE_LINKS):
        return None
    return prev if after is None or _starts_with_heading(after) else None


def _starts_with_heading(el: HtmlElement) -> bool:
    """``el`` is a heading or its text begins with its first heading's."""
    if el.tag in dom.HEADING_TAGS:
        return True
    heading = next(el.iter(*dom.HEADING_TAGS), None)
    if heading is None:
        return False
    words = dom.text_of(heading).split()
    return bool(words) and dom.text_of(el).split()[:len(words)] == words


#: The most link text a "read more" block's unfolded prose holds (a share of its text).
UNFOLDED_LINK_SHARE = 0.25
#: ... and a block named "related" that is prose, not a list of related stories (a teaser's linked
#: title beside its summary is more than this).
RELATED_PROSE_LINK_SHARE = 0.1


def _collapsed_text(el: HtmlElement, es, names: str, s: MainContentSettings) -> bool:
    """A block named "read more" that holds prose (a paragraph's worth of text, mostly not
    links) and is the page's only one of its kind is the text a "read more" control unfolds — a
    product's description, a bio — not the control or a teaser list. Alike blocks repeated over
    the page (THREAD_MIN_COMMENTS of them) unfold the items of a list: reviews, teasers. So is a block
    named only "related" that holds such prose with hardly a link (a tool's "map-and-related"
    instructions): a list of related stories is its links. A block named by its id alone is one of a
    kind (counting the blocks without a class counted every plain block of the page)."""
    if not (es.chars >= s.min_article_chars / 2
            and (READ_MORE.search(names) and es.link <= UNFOLDED_LINK_SHARE * es.chars
                 or _only_related(names) and es.link <= RELATED_PROSE_LINK_SHARE * es.chars)):
        return False
    cls = el.get("class")
    if not cls:
        return True  # named by its id: one of a kind
    alike = sum(1 for other in el.getroottree().getroot().iter(el.tag) if other.get("class") == cls)
    return alike < THREAD_MIN_COMMENTS


def _only_related(names: str) -> bool:
    """Boilerplate by the word "related" and no other."""
    return {m.group(0).lower() for m in BOILERPLATE.finditer(names)} == {"related"}


def _text_slides(el: HtmlElement, es, names: str, s: MainContentSettings) -> bool:
    """Named only like a gallery, slideshow or carousel (not a caption or credit) and holding a few
    paragraphs of prose (half of min_article_chars, few links): a rotator of text — testimonials,
    quotes, a product's feature cards (each a picture beside its paragraph) — not a gallery of pictures,
    whose text is a label ("1 / 8") or a caption line. Its pictures do not make it a gallery: measured
    over every corpus, a laptop's six feature cards came back (wcxb-dev-more 3066 reader F1 .23 -> .97;
    4287 .84 -> .94), a payment service's testimonials stayed (0698 .72 -> .57), no other page moved by
    .1 and no corpus by more than .0001 but wcxb-dev-more (+.0028)."""
    return (es.chars >= s.min_article_chars / 2 and es.link <= s.clean_link_density * es.chars
            and all(SLIDES.fullmatch(x) for x in CAPTION.findall(names)))


def _linked_blurb(el: HtmlElement, es) -> bool:
    """One link (a linked heading, a "learn more") and at least twice its text in prose beside it: a
    blurb of the page — a service, a feature — not a list of links."""
    links = el.iter("a")
    return (next(links, None) is not None and next(links, None) is None
            and es.chars - es.link >= 2 * es.link)


def _drawer(el: HtmlElement) -> bool:
    """An ``<aside>`` or a dialog: what a page slides open or pops up beside its text."""
    return el.tag in ("aside", "dialog") or (el.get("role") or "").strip().lower() in ("complementary", "dialog")


#: An accordion's or a collapsing panel's names (not a folded answer's: a site's "your answer" help notice
#: sits in the answer form).
PANEL_NAMES = dom.NamePattern(re.compile(r"accordion|collaps", re.I))
#: How far up from an ``<aside>`` an accordion or tab panel around it is looked for (_folded_panel).
FOLDED_PANEL_LEVELS = 4


def _folded_panel(el: HtmlElement) -> bool:
    """A drawer (:func:`_drawer`) within a few levels of an accordion's or a tab's panel (``PANEL_NAMES``,
    ``role="tabpanel"``) is what that panel slides open — a product's description, its care notes — not
    a sidebar or a pop-up."""
    for i, a in enumerate(el.iterancestors()):
        if i >= FOLDED_PANEL_LEVELS:
            return False
        if a.get("role") == "tabpanel" or PANEL_NAMES.found(names_of(a)):
            return True
    return False


def _between_blocks(el: HtmlElement, st) -> bool:
    """An inline element standing between blocks (its own line), not inside a sentence."""
    parent, prev = el.getparent(), el.getprevious()
    ps = st.get(parent)
    before = prev.tail if prev is not None else parent.text
    return bool(ps and ps.block) and not (before or "").strip() and not (el.tail or "").strip()


def boilerplate(el, st, article_chars, title_words, outside_core, s: MainContentSettings,
                kind: str = "article", links_are_content: bool = False) -> tuple[str, dict, dict] | None:
    """Why ``el`` is boilerplate inside the article (with its measures and bounds), or None."""
    es = st.get(el)
    if es is None:
        if is_hidden(el):
            return "hidden element", {}, {}
        return None
    chars = es.chars
    share = chars / article_chars
    big = share > s.clean_max_share  # only named or semantic boilerplate outside the core may be big
    thread = thread_names(kind)
    if big and not outside_core and (kind in POSTS_ARE_CONTENT or not comment_thread(el, names=thread)):
        return None  # ... or a comment thread (or one of its comments), wherever it is
    measured = {"chars": chars, "share": round(share, 3)}
    limit = {"clean_max_share": s.clean_max_share} if not big else {"outside_core": True}
    names = names_of(el)
    if el.tag in BOILERPLATE_TAGS or (el.get("role") or "").lower() in BOILERPLATE_ROLES:
        if not (_drawer(el) and not is_hidden(el) and es.link <= s.clean_link_density * chars and _folded_panel(el)):
            return f"<{el.tag}> navigation or aside block inside the article", measured, limit
    if el.get("itemprop") in COUNTER_PROPS and not big:
        return "a count of likes, shares or comments (schema.org interactionStatistic)", measured, limit
    if (names and BOILERPLATE_NAMES.found(names) and (el.tag not in INLINE_TAGS or _between_blocks(el, st))
            and not (kind in POSTS_ARE_CONTENT and POST_NAMES.search(names))
            and not _collapsed_text(el, es, names, s)):
        return f"named like boilerplate ({BOILERPLATE.search(names).group(0)})", measured, limit  # type: ignore[union-attr]
    if kind in REVIEW_KINDS and names and comment_thread(el, names=thread):
        return "customer reviews on a product page", measured, limit
    if big:
        return None
    return _small_boilerplate(el, es, st, names, title_words, measured, limit, s, kind, links_are_content)


def _links_gathered(el, es, st, bound: float, s: MainContentSettings) -> bool:
    """The block's links stand together in lists of links inside it (blocks of two links or more, over
    ``main_link_density`` links), at most one link is left beside them, and the rest is prose: a
    paragraph's worth (``sibling_paragraph_chars``) of unlinked text at most ``bound`` links. Such a
    block is looked into, not removed whole: a service's section of what it offers, its offices' links
    and a paragraph on opening hours loses the offices' links only. A box of teasers (a linked
    headline over each summary) has a link beside each summary, and goes whole as before."""
    listed = listed_link = listed_count = 0
    stack = [x for x in el if isinstance(x.tag, str)]
    while stack:
        x = stack.pop()
        xs = st.get(x)
        if xs is None or not xs.chars:
            continue
        if xs.link > s.main_link_density * xs.chars:
            n = sum(1 for _ in x.iter("a"))
            if n >= 2:
                listed, listed_link, listed_count = listed + xs.chars, listed_link + xs.link, listed_count + n
                continue
        stack.extend(y for y in x if isinstance(y.tag, str))
    if not listed_count:
        return False
    rest, rest_link = es.chars - listed, es.link - listed_link
    return (sum(1 for _ in el.iter("a")) - listed_count <= 1 and rest - rest_link >= s.sibling_paragraph_chars
            and rest_link <= bound * rest)


def _small_boilerplate(el, es, st, names, title_words, measured, limit, s: MainContentSettings,
                       kind: str, links_are_content: bool = False) -> tuple[str, dict, dict] | None:
    """The tests of :func:`boilerplate` for a block within ``clean_max_share``: labels, captions,
    headings that repeat the title, link lists."""
    chars = es.chars
    if 0 < chars < s.min_paragraph_chars and el.tag not in INLINE_TAGS and LABEL.match(dom.text_of(el)):
        return "a boilerplate label", measured, {"min_paragraph_chars": s.min_paragraph_chars}
    if s.captions and (el.tag in CAPTION_TAGS or (names and CAPTION.search(names)
                                                   and not _text_slides(el, es, names, s))):
        return "image caption or gallery", measured, limit
    if el.tag in dom.HEADING_TAGS and title_words and chars:
        words = _words(dom.text_of(el))
        overlap = len(words & title_words) / len(words) if words else 0.0
        if overlap >= s.title_overlap:
            return "heading repeats the page title", {**measured, "overlap": round(overlap, 3)}, {
                "title_overlap": s.title_overlap}
    if (el.tag in CLEAN_TAGS and chars and es.commas < s.clean_max_commas and kind not in ITEMS_ARE_CONTENT
            and not links_are_content):
        ld = es.link / chars
        bound = s.clean_link_density_positive if POSITIVE_NAMES.found(names) else s.clean_link_density
        if ld > bound and not _linked_blurb(el, es) and not _links_gathered(el, es, st, bound, s):
            return "link list inside the article", {**measured, "link_density": round(ld, 3)}, {
                "link_density": bound, "commas_below": s.clean_max_commas}
    return None


def _best_below(chosen: list[HtmlElement], inner: list[HtmlElement], scores: dict) -> dict[HtmlElement, HtmlElement]:
    """For each element below or at a chosen node: the best-scored element of ``inner`` strictly
    below it, the first in ``inner``'s order among equal scores (what ``max(below, key=scores.get)``
    picks). One walk up from the leaves, so the descent to the core costs the page's size once, not
    once per level (nested unclosed blocks made that descent cubic: 49 KB took 10 s)."""
    rank = {el: (scores[el], -i) for i, el in enumerate(inner)}
    best: dict[HtmlElement, HtmlElement] = {}

    def offer(el: HtmlElement, candidate: HtmlElement) -> None:
        theirs = best.get(el)
        if theirs is None or rank[candidate] > rank[theirs]:
            best[el] = candidate

    for node in chosen:
        for el in reversed(list(node.iter(dom.ELEMENT))):  # children before their parent
            parent = el.getparent()
            if parent is None:
                continue
            mine = best.get(el)
            if el in rank and (mine is None or rank[el] > rank[mine]):
                mine = el
            if mine is not None:
                offer(parent, mine)
    for node in chosen:  # and up from each chosen node to the root (inner elements are all below one)
        mine = best.get(node)
        if mine is not None:
            for a in node.iterancestors():
                offer(a, mine)
    return best


def _pictures_of(el: HtmlElement) -> list[HtmlElement]:
    """The story's pictures in a caption or gallery block (see analysis.pictures: not linked to another
    page, not a thumbnail, not a control's face), each address once (a carousel repeats its first and
    last slides for its loop), as the nodes to keep: the ``<picture>`` around an image, else the image.
    One that does not say what it shows is kept too: the caption taken out is handed on to it
    (:func:`_hand_on_caption`), and image_captions judges it by that, accessibility gives it as its ``alt``."""
    seen: set[str] = set()
    keep = []
    for img in el.iter("img"):
        address = (img.get("src") or img.get("srcset") or "").strip()
        if not address or address in seen or not story_picture(img, STORY_PICTURE_PX) or in_control(img):
            continue
        seen.add(address)
        parent = img.getparent()
        keep.append(parent if parent is not None and parent.tag == "picture" and parent is not el else img)
    return keep


def _hand_on_caption(el: HtmlElement, ctx, images: list[HtmlElement] | None = None) -> None:
    """Remember a removed caption's text for the images it described (``images``; by default those of
    its figure, or of its parent block), so a later filter can still judge them by their caption."""
    text = dom.blocks_text(el)  # words apart: a gallery's counter and title are not one name
    if not text:
        return
    holder = next(el.iterancestors("figure"), None)
    if holder is None:
        if images is None and next(el.iter("img"), None) is not None:
            return  # a caption box with its own pictures describes those (they go with it), not its neighbours'
        holder = el.getparent()
    if holder is None:
        return
    if images is None:
        images = [img for img in holder.iter("img") if not any(a is el for a in img.iterancestors())]
    else:
        images = [img for node in images for img in node.iter("img")]
    if not images:
        return
    captions = dict(ctx.state.removed_captions)  # image -> caption text, for image_captions
    for img in images:
        captions[img] = f"{captions.get(img, '')} {text}".strip()
    ctx.assign(removed_captions=captions)


def _words(text: str) -> set[str]:
    return set(dom.WORD.findall(text.lower()))


def reveal_tab_panels(chosen, ctx) -> None:
    """Show the hidden tab panels and folded answers kept (see HIDDEN, FOLDED): no tab or
    question can show them any more."""
    for block in chosen:
        if not ctx.in_document(block):
            continue
        # Only a hidden one is shown: the elements with either attribute, picked in C, are the only ones
        # whose names are read (every element's were, for the few panels a page hides).
        for panel in [el for el in elements_with(block, _NO_TAGS, _HIDING_ATTRS) if _hidden_attr(el) and is_folded(el)]:
            ctx.set_attr(panel, "hidden", None)
            ctx.set_attr(panel, "aria-hidden", None)
            if "none" in (panel.get("style") or "").replace(" ", "").lower():
                ctx.set_attr(panel, "style", None)
            ctx.note("reveal", panel, "a hidden tab panel or folded answer is shown: without the page's "
                                      "scripts no tab or question can show it")


def _hidden_attr(el: HtmlElement) -> bool:
    """Hidden by its ``hidden`` attribute or by ``aria-hidden="true"``."""
    return el.get("hidden") is not None or (el.get("aria-hidden") or "").strip().lower() == "true"


_NO_TAGS: frozenset[str] = frozenset()
_HIDING_ATTRS = ("hidden", "aria-hidden")


def _in_panel(el: HtmlElement, folded: dict[HtmlElement, bool]) -> bool:
    """Inside a tab panel or folded answer: alternative views (one language's steps in each tab) repeat by design.
    ``folded``: :func:`is_folded` of the ancestors asked before (the copies of a page share theirs)."""
    for a in el.iterancestors():
        got = folded.get(a)
        if got is None:
            got = folded[a] = is_folded(a)
        if got:
            return True
    return False


def _place(el: HtmlElement) -> tuple:
    """A block's tag and its parent's tag and class: where the page put it."""
    parent = el.getparent()
    return el.tag, el.get("class"), parent.tag if parent is not None else None, parent.get("class") if parent is not None else None


def drop_copies(chosen, st, ctx) -> None:
    """Remove a block whose text is the text of a block above it, put in another place (another tag
    or class, or a parent of another tag or class), neither inside the other: a reply's preview of
    the post it answers, a post shown twice, a desktop and a mobile variant of one section. The
    page's CSS shows one (or one line of it); a listener would hear both. Only blocks of
    COPY_MIN_CHARS up to COPY_MAX_SHARE of the kept text; not table rows and cells nor inline
    phrases (data and notices repeat by right), not inside tab panels or folded answers
    (alternative views). Measured on every corpus: without the "another place" condition errata
    and lyrics pages lost repeated paragraphs their truth keeps (cleaneval final-442 .99 -> .68)."""
    total = sum(st[c].chars for c in chosen if c in st)
    blocks = [el for c in chosen if ctx.in_document(c) for el in c.iter()
              if isinstance(el.tag, str) and el.tag not in INLINE_TAGS and el.tag not in TABLE_PARTS
              and el in st and COPY_MIN_CHARS <= st[el].chars <= COPY_MAX_SHARE * total]
    by_size: dict[int, list] = defaultdict(list)
    for el in blocks:
        by_size[st[el].chars].append(el)
    seen: dict[str, HtmlElement] = {}
    folded: dict[HtmlElement, bool] = {}
    for el in blocks:  # document order: the first of equal blocks stays
        if len(by_size[st[el].chars]) < 2 or not ctx.in_document(el):
            continue
        text = dom.text_of(el)
        if not text:
            continue  # all its text went since it was measured (a gallery whose captions went): no copy of anything
        first = seen.get(text)
        if first is None:
            seen[text] = el
        elif (_place(el) != _place(first) and not _in_panel(el, folded) and not any(a is first for a in el.iterancestors())
              and not any(a is el for a in first.iterancestors())):
            ctx.remove(el, "a copy of a block above", measured={"chars": st[el].chars},
                       threshold={"copy_min_chars": COPY_MIN_CHARS})


def _strip_site(title: str) -> str:
    """A metadata title without the site name after it ("Headline | Site"), when the rest is a headline."""
    parts = _SITE_SEP.split(title)
    return parts[0] if len(parts) > 1 and len(parts[0].split()) >= 3 else title


def put_headline(body, chosen, headline, byline, ctx) -> None:
    """The headline as the one <h1> before the kept content, then the byline (package docstring)."""
    text = headline.text if headline.element is not None else _strip_site(headline.text)
    for h in list(body.iter("h1", "h2")):
        if h is headline.element or (h.tag == "h1" and same_words(text, dom.text_of(h))):
            ctx.remove(h, "the headline: put first as the page's one <h1>", explain=False)
        elif h.tag == "h1":
            h2 = copy.deepcopy(h)
            h2.tag = "h2"
            ctx.replace(h, h2, "a second <h1> below the headline becomes an <h2>")
        else:
            break  # only the headings before the first <h2> can be the headline's copies
    first = next((c for c in chosen if ctx.in_document(c)), None)  # after the edits above
    if first is None or first is body or first.getparent() is None or body not in first.iterancestors():
        first = next((c for c in body if isinstance(c.tag, str)), None)
        if first is None:
            return
    parent = first.getparent()
    index = parent.index(first)
    if headline.element is not None:  # the page's own heading, moved (its id and links stay)
        h1 = copy.deepcopy(headline.element)
        h1.tag = "h1"
        h1.set("class", f"{h1.get('class') or ''} {HEADLINE_CLASS}".strip())
    else:
        h1 = dom.element("h1", {"class": HEADLINE_CLASS}, text)
    h1.tail = "\n"
    ctx.insert(parent, index, h1)
    if byline:
        p = dom.element("p", {"class": BYLINE_CLASS}, byline)
        p.tail = "\n"
        ctx.insert(parent, index + 1, p)
    ctx.note("headline", h1, f"headline first ({headline.source})", measured={"byline": bool(byline)})
