"""Elements a script would fade in, shown without it.

Site builders and animation libraries (Webflow's interactions, Framer, hand-written "reveal on
scroll") write an element's first frame into its ``style`` attribute: ``opacity:0`` and usually an
offset (``transform: translate3d(0, 5%, 0)``); their script animates it to full view as it scrolls
into sight. An inline style outranks every style sheet rule, so nothing but a script can ever show
such an element: with the page's scripts removed the section stays transparent for good — its
text is in the page (and in a screen reader's ears) while a person sees a blank band, sometimes
a blank page.

:func:`reveal` takes the transparent first frame out of such styles (the ``opacity`` of 0 and the
entrance offset beside it) and leaves the rest of the style as written. It leaves alone what the
page means to keep hidden whatever the script: a style that also says ``display:none`` or
``visibility:hidden``, an element hidden from assistive technology (``aria-hidden="true"``) and a
dialog over the page (``<dialog>``, a dialog role, ``aria-modal``), which its script opens on demand.
The same holds for the first frame a library's style sheet gives by an attribute: the "animate on
scroll" library hides every ``[data-aos]`` element (``[data-aos^=fade]{opacity:0}``, often inlined in
the page while the rule that shows them, ``.aos-animate``, waits in a style sheet of its own) until its
script adds that class. The ``data-aos`` attribute only speaks to that script: :func:`reveal` takes it
off, so no rule of the library's matches the element any more, whatever style sheets arrive.

A page may also hide its whole story until its script has run: the product page whose every block,
title first, stands in a ``<div style="display:none">`` (or ``hidden``) that a deferred script shows.
Without the script the person gets the site's header over an empty page. :func:`reveal_headline` shows
the blocks that hide the page's own headline (the heading that says what its metadata or title says),
unless they are hidden on purpose (as above), are a streamed piece (:mod:`pagesieve.analysis.streamed` puts those
in place), or another heading that is not hidden says the same: then the hidden one is a copy (a dialog offering
the story for republication).

Changes go through the filter's context (``ctx.set_attr``): explained and undoable.
"""

from __future__ import annotations

import re

from lxml import etree
from lxml.html import HtmlElement

from pagesieve.analysis import streamed
from pagesieve.core import dom

#: Elements whose style attribute names an opacity (selected in C; :func:`_first_frame` decides). Written as the
#: owners of those attributes: libxml2 walks a page's attributes far faster than it tests a predicate on every
#: element (the same elements, in document order).
TRANSPARENT = etree.XPath("//@style[contains(translate(., 'OPACITY', 'opacity'), 'opacity')]/..")
#: Elements the "animate on scroll" library fades in (its style sheet's selectors all start with the attribute).
ANIMATED_ON_SCROLL = etree.XPath("//@data-aos/..")
OPACITY_0 = re.compile(r"^opacity\s*:\s*(?:0+(?:\.0*)?|\.0+)%?\s*(?:!\s*important)?$", re.I)
_OFFSET = re.compile(r"^(?:-(?:webkit|moz|ms|o)-)?(?:transform|translate|scale|rotate)\s*:", re.I)
STAYS_HIDDEN = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
_DIALOG_ROLES = frozenset({"dialog", "alertdialog"})


def declarations(style: str) -> list[str]:
    """The declarations of a style attribute, split at the semicolons outside brackets and quotes
    (a ``url(data:image/png;base64,...)`` holds one)."""
    out, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(style):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif ch == ";" and not depth:
            out.append(style[start:i].strip())
            start = i + 1
    out.append(style[start:].strip())
    return [d for d in out if d]


def _first_frame(el: HtmlElement) -> list[str] | None:
    """The declarations left once the transparent first frame is out, or None when ``el`` is not such
    an element or is meant to stay hidden."""
    style = el.get("style") or ""
    parts = declarations(style)
    if not any(OPACITY_0.match(d) for d in parts) or STAYS_HIDDEN.search(style):
        return None
    if _hidden_on_purpose(el):
        return None
    return [d for d in parts if not OPACITY_0.match(d) and not _OFFSET.match(d)]


def _hidden_on_purpose(el: HtmlElement) -> bool:
    """Hidden from assistive technology too, or a dialog its script opens on demand."""
    return (el.tag == "dialog" or (el.get("aria-hidden") or "").strip().lower() == "true"
            or (el.get("role") or "").strip().lower() in _DIALOG_ROLES
            or (el.get("aria-modal") or "").strip().lower() == "true")


def reveal(root: HtmlElement, ctx) -> int:
    """Show the elements of ``root`` left transparent for a script to fade in; how many."""
    shown = 0
    for el in TRANSPARENT(root):
        if not isinstance(el.tag, str):
            continue
        left = _first_frame(el)
        if left is None:
            continue
        ctx.set_attr(el, "style", "; ".join(left) or None)
        shown += 1
    for el in ANIMATED_ON_SCROLL(root):
        if not _hidden_on_purpose(el):
            ctx.set_attr(el, "data-aos", None)
            shown += 1
    return shown


def _hides(el: HtmlElement) -> bool:
    """Hidden by its ``hidden`` attribute or by its style attribute (``display:none``, ``visibility:hidden``)."""
    return el.get("hidden") is not None or bool(STAYS_HIDDEN.search(el.get("style") or ""))


def reveal_headline(root: HtmlElement, headline: HtmlElement | None, ctx) -> int:
    """Show the elements that hide ``headline``, the page's own heading of its headline (see the module
    doc); how many."""
    if headline is None or not isinstance(headline.tag, str) or not ctx.in_document(headline):
        return 0
    hiding = [a for a in (headline, *headline.iterancestors()) if _hides(a)]
    if not hiding or any(_hidden_on_purpose(a) or streamed.is_piece(a) for a in hiding):
        return 0  # a streamed piece is put in its place, or not, by its own rule (pagesieve.analysis.streamed)
    text = dom.text_of(headline)
    for other in root.iter("h1", "h2", headline.tag):
        if (other is not headline and dom.text_of(other) == text
                and not any(_hides(a) for a in (other, *other.iterancestors()))):
            return 0  # the hidden heading is a copy of one the page shows
    for el in hiding:
        if el.get("hidden") is not None:
            ctx.set_attr(el, "hidden", None)
        style = el.get("style")
        if style is not None and STAYS_HIDDEN.search(style):
            ctx.set_attr(el, "style", "; ".join(d for d in declarations(style) if not STAYS_HIDDEN.search(d)) or None)
    ctx.note("reveal", hiding[-1], "the page's headline was hidden for its scripts to show; without them it is "
                                   "shown, with the blocks around it", measured={"hiding": len(hiding)})
    return len(hiding)
