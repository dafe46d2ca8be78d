"""Headings (WCAG 1.3.1, 2.4.6; axe ``page-has-heading-one``, ``heading-order``): one ``<h1>``, and no
skipped levels inside ``<main>``."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from lxml.html import HtmlElement

from pagesieve.core import dom
from pagesieve.filters.accessibility.shared import Doc, in_document_order

if TYPE_CHECKING:
    from pagesieve.filters.accessibility import AccessibilitySettings


def repair(doc: Doc, ctx, s: AccessibilitySettings) -> None:
    """One ``<h1>``, then the headings inside ``<main>`` renumbered without gaps (setting ``headings``)."""
    if not s.headings:
        return
    body = doc.body
    scope = doc.main if doc.main is not None else body
    chosen = _one_h1(body, scope, doc.page, ctx, s, title_made=doc.title_made)
    _renumber(scope, chosen, ctx)


def _one_h1(body: HtmlElement, scope: HtmlElement, page, ctx, s: AccessibilitySettings,
            title_made: bool = False) -> HtmlElement | None:
    """The page's one ``<h1>``: the first inside ``scope``, else the first on the page (other ``<h1>``
    become ``<h2>``); with none, the first highest heading in ``scope`` promoted, else the title added
    (``title_heading``) when the page gave it (``title_made``: one made up from the address or the
    untitled text says nothing a person should read at the top of the story), else the first heading
    on the page promoted."""
    all_h = list(body.iter(*dom.HEADINGS))
    below = {h for h in scope.iter(*dom.HEADINGS) if h is not scope}  # one walk, not each heading's ancestors
    in_main = [h for h in all_h if h in below]
    h1s = [h for h in all_h if h.tag == "h1"]
    chosen = next((h for h in h1s if h in below), h1s[0] if h1s else None)
    for h in h1s:
        if h is not chosen:
            h.tag = "h2"
            ctx.note("heading", h, "a second <h1> became <h2> (one <h1> per page)")
    if chosen is None:
        if in_main:
            top = min(int(h.tag[1]) for h in in_main)
            chosen = next(h for h in in_main if int(h.tag[1]) == top)
            ctx.note("heading", chosen, f"no <h1>: the first <h{top}> of the main content became <h1>")
            chosen.tag = "h1"
        elif (s.title_heading and page.title and not title_made
              and (said := _said_in_text(body, scope, page.title)) is not None):
            chosen = said  # the page shows its headline in bold text: that line becomes the heading, as it looks
            chosen.set("role", "heading")
            chosen.set("aria-level", "1")
            ctx.note("heading", chosen, "no heading: the line that says the title before the story is marked as "
                                        "the page's heading (its look unchanged)", measured={"title": page.title})
        elif s.title_heading and page.title and not title_made:
            chosen = dom.element("h1")
            chosen.text = page.title
            chosen.tail = scope.text
            scope.text = None
            scope.insert(0, chosen)
            ctx.note("heading", chosen, "no heading in the main content: the title added as <h1>",
                     measured={"title": page.title})
        elif all_h:
            chosen = all_h[0]
            ctx.note("heading", chosen, f"no <h1>: the first heading <{chosen.tag}> became <h1>")
            chosen.tag = "h1"
    return chosen


def _renumber(scope: HtmlElement, chosen: HtmlElement | None, ctx) -> None:
    """The headings inside the main content renumbered without skipped levels: a stack of (original
    level, new level) keeps their relative order (h1, h3, h4, h3 become h1, h2, h3, h2)."""
    stack = [(0, 1)]
    for h in list(scope.iter(*dom.HEADINGS)):
        if h is chosen:
            stack = [(0, 1)]
            continue
        level = int(h.tag[1])
        while stack[-1][0] >= level:
            stack.pop()
        new = stack[-1][1] + 1
        new = min(new, 6)
        stack.append((level, new))
        if new != level:
            ctx.note("heading", h, f"<h{level}> renumbered <h{new}>: no skipped levels",
                     measured={"level": level}, threshold={"level": new})
            h.tag = f"h{new}"


#: Elements that may take the heading role where a page set its headline as styled text (not a table
#: cell or a list item: their own role tells a screen reader where it is).
_HEADLINE_TEXT_TAGS = frozenset({"b", "strong", "font", "big", "span", "div", "p", "em", "center"})
#: The story has started at a block of this many characters inside the main content.
_STORY_START_CHARS = 80
#: Where a title joins the site's and section's names to the headline ("CANOE -- JAM! Movies - Artists -
#: Cohl, Dusty: Remembering Dusty Cohl", "News | Floods rise"): a dash, bar or colon with space after it.
_TITLE_SEPARATOR = re.compile(r"\s*(?:\s[-–—|]+|:)\s+")


def _said_in_text(body: HtmlElement, scope: HtmlElement, title: str) -> HtmlElement | None:
    """The last element before the story starts (the first block inside ``scope`` with
    ``_STORY_START_CHARS`` of text of its own) whose whole text is three or more of the title's words,
    half of them or more or all of one part of it (the title cut at ``_TITLE_SEPARATOR``: the headline
    after the site's and section's names), outside links and landmarks: the page's headline set as bold text ("More Britons in blood scandal" under
    the title "icStaines - More Britons in blood scandal"). None when no such line comes first."""
    words = set(dom.WORD.findall(title.lower()))
    parts = [part for p in _TITLE_SEPARATOR.split(title) if len(part := set(dom.WORD.findall(p.lower()))) >= 3]
    found = None
    for el, in_scope in in_document_order(body, scope):
        if not isinstance(el.tag, str):
            continue
        if el.tag in dom.BLOCK_TAGS and in_scope and _own_chars(el) >= _STORY_START_CHARS:
            break
        if el.tag not in _HEADLINE_TEXT_TAGS or not (el.text or "").strip():
            continue
        if not set(dom.WORD.findall(el.text.lower())) <= words:
            continue  # its own first words are not the title's: no need to read the text under it
        own = dom.WORD.findall(dom.text_of(el).lower())
        if (len(own) >= 3 and set(own) <= words and (len(set(own)) >= 0.5 * len(words) or set(own) in parts)
                and next(el.iterancestors("a"), None) is None and not dom.furniture_between(el)):
            found = el
    return found


def _own_chars(el: HtmlElement) -> int:
    """Characters of the text written in ``el`` itself, not inside its child elements."""
    return len("".join("".join([el.text or "", *(c.tail or "" for c in el)]).split()))
