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

A page may even hide itself as a whole: a rule of its own style sheet, ``body { opacity: 0 }``, keeps it
from showing before its styles or scripts are ready, and a later style sheet or a script lifts it. Through
pagesieve no script lifts it. :func:`reveal_page` shows such a page (only a rule for ``<html>`` or ``<body>``
that applies to it as it is; not one that waits for a class a script would add, ``body.menu-open``).

Changes go through the filter's context (``ctx.set_attr``): explained and undoable.
"""

from __future__ import annotations

import re

from lxml import etree
from lxml.cssselect import LxmlHTMLTranslator
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
CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)
#: A selector of the page as a whole: ``html``, ``body`` or ``:root``, qualified or not (``body.blog``,
#: ``html[lang]``), with no combinator (a rule for the page's parts is not a rule for the page).
WHOLE_PAGE = re.compile(r"(?:html|body|:root)(?:[.#\[:][^\s>+~]*)?", re.I)
#: At most this many selectors of the page as a whole are tested (a page writes one or two such rules).
WHOLE_PAGE_MAX = 50
_CSS = LxmlHTMLTranslator()
#: What a rule says to leave the whole page out of sight until something lifts it.
_PAGE_HIDDEN = re.compile(r"^(?:opacity\s*:\s*(?:0+(?:\.0*)?|\.0+)%?|visibility\s*:\s*hidden)\s*(?:!\s*important)?$", re.I)


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


def rules(css: str) -> list[tuple[int, int, str, str]]:
    """The style rules of ``css`` inside any depth of at-rule blocks (``@media``, ``@supports``):
    (start, end, selector, declarations), with ``css[start:end]`` the whole rule. At-rules without a
    block (``@import …;``) are not rules. One pass over the text, however deep the blocks nest."""
    out: list[tuple[int, int, str, str]] = []
    i, n, head = 0, len(css), 0
    at_rule: bool | None = None  # whether the text since ``head`` starts with "@" (None: nothing yet)
    while i < n:
        c = css[i]
        if at_rule is None and not c.isspace() and c not in "{};":
            at_rule = c == "@"
        if c == ";" and at_rule:
            head, at_rule = i + 1, None  # @import, @charset: no block
        elif c == "{" and at_rule:
            head, at_rule = i + 1, None  # @media, @supports: the rules inside follow
        elif c == "{":
            depth, j = 0, i
            while j < n:  # the rule's own block, braces inside it counted
                if css[j] == "{":
                    depth += 1
                elif css[j] == "}":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            out.append((head, min(j + 1, n), css[head:i].strip(), css[i + 1:j]))
            i, head, at_rule = j + 1, j + 1, None
            continue
        elif c == "}":
            head, at_rule = i + 1, None  # the end of an at-rule's block
        i += 1
    return out


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


def reveal_page(root: HtmlElement, ctx) -> int:
    """Show the page when the page's own style sheets (``<style>``) leave it out of sight as a whole: a rule for
    ``<html>`` or ``<body>`` that makes it transparent or hidden (``body { opacity: 0 }``). Sites write it to
    keep the page from showing before their styles or scripts are ready, and lift it with a later style sheet
    or a script; without the script nothing may ever lift it, and the person gets a blank page. A page is never
    meant to stay out of sight as a whole, so the element gets ``opacity: 1; visibility: visible`` (marked
    important: the page's rule may be) in its style attribute. Only a rule that applies to the element as it
    is counts (``body.menu-open { visibility: hidden }`` waits for a class the page does not carry). How many
    elements were shown."""
    whole = [el for el in (root, dom.body_of(root)) if el is not None]
    shown: list[HtmlElement] = []
    tried: set[str] = set()  # each selector once, at most WHOLE_PAGE_MAX of them
    for style in root.iter("style"):
        css = style.text or ""
        media = (style.get("media") or "all").lower()
        if ("opacity" not in css and "visibility" not in css) or not ("all" in media or "screen" in media):
            continue  # a print style sheet does not hide the page on screen
        for _start, _end, selector, block in rules(CSS_COMMENT.sub(" ", css)):
            if len(shown) == len(whole) or len(tried) >= WHOLE_PAGE_MAX:
                break
            if not any(_PAGE_HIDDEN.match(d) for d in declarations(block)):
                continue
            for one in (s.strip() for s in selector.split(",")):
                if one in tried or not WHOLE_PAGE.fullmatch(one):
                    continue
                tried.add(one)
                try:  # tested on the two elements themselves, not over the page
                    applies = etree.XPath(_CSS.css_to_xpath(one, prefix="self::"))
                    hidden = [el for el in whole if applies(el) and not any(el is x for x in shown)]
                except Exception:  # noqa: BLE001 - a selector cssselect or lxml cannot read (a browser's own)
                    continue
                for el in hidden:
                    shown.append(el)
                    ctx.note("reveal", el, "the page's style sheet leaves the whole page out of sight until a "
                                           "script or a later style sheet shows it; without the scripts it is "
                                           "shown", measured={"rule": one[:80]})
    for el in shown:
        kept = [d for d in declarations(el.get("style") or "") if not _PAGE_HIDDEN.match(d)]
        ctx.set_attr(el, "style", "; ".join([*kept, "opacity: 1 !important", "visibility: visible !important"]))
    return len(shown)


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
