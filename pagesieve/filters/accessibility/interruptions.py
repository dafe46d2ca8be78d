"""What gets in the way of reading: cookie walls and overlays that cover the content (WCAG 2.4.11),
media that starts by itself (1.4.2), text that moves or blinks (2.2.2)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from lxml import etree
from lxml.html import HtmlElement

from pagesieve.analysis.furniture import COOKIE_NAMES, COOKIE_WORDS
from pagesieve.core import dom
from pagesieve.filters.accessibility.shared import MAINS, Doc

if TYPE_CHECKING:
    from pagesieve.filters.accessibility import AccessibilitySettings

FIXED_STYLE = re.compile(r"position\s*:\s*(fixed|sticky)", re.I)
#: Class/id names of overlays that cover content (only with an inline fixed/sticky position).
OVERLAY_NAMES = re.compile(r"overlay|modal|popup|pop-up|paywall|interstitial|newsletter|subscribe|lightbox|"
                           r"backdrop|cookie|consent|gdpr|takeover", re.I)
COOKIE_TEXT = re.compile(r"\bcookies?\b|\bconsent\b|\bgdpr\b|\btracking technologies\b", re.I)
DIALOGS = etree.XPath(".//dialog | .//*/@role[.='dialog' or .='alertdialog']/..")
#: Nodes that can be an overlay (inline elements and the page's structure are not).
OVERLAY_TAGS = frozenset("div section aside dialog form footer header ins".split())
MARQUEE_ATTRS = frozenset("behavior direction scrollamount scrolldelay loop truespeed bgcolor hspace vspace "
                          "width height".split())


def overlays(doc: Doc, ctx, s: AccessibilitySettings) -> None:
    """Cookie walls, consent dialogs and fixed overlays removed (setting ``overlays``; module doc of the
    package: what counts as one)."""
    if not s.overlays:
        return
    body = doc.body
    limit = s.overlay_max_chars
    protected = _protected(body, ctx)
    # (node, reason, whether its text must speak of cookies or consent)
    candidates: list[tuple[HtmlElement, str, bool]] = []
    named = []
    for el in body.iter(*OVERLAY_TAGS):
        id_, cls = el.get("id"), el.get("class")
        if id_ or cls:  # without a name neither pattern can match (most blocks)
            named.append((el, f"{id_ or ''} {cls or ''}"))
    # COOKIE_NAMES costs ~2 µs a name (a hundred names a page); a page none of whose names holds
    # one of the words every match holds (ASCII lower-cased: what re.I matches in ASCII text) has
    # no match, known from one substring search each.
    joined = "\n".join(names for _, names in named)
    maybe_cookie = not joined.isascii() or any(w in joined.lower() for w in COOKIE_WORDS)
    for el, names in named:
        if maybe_cookie and COOKIE_NAMES.search(names):
            candidates.append((el, "cookie or consent banner (by its name)", True))
        elif FIXED_STYLE.search(el.get("style") or "") and OVERLAY_NAMES.search(names):
            candidates.append((el, "fixed or sticky overlay (by its position and name)", False))
    candidates += [(el, "cookie or consent dialog", True) for el in DIALOGS(body)]
    for el, reason, cookie_text in candidates:
        if el in protected or not ctx.in_document(el):
            continue
        chars = dom.text_len(el)
        if chars > limit or cookie_text and not COOKIE_TEXT.search(dom.text_of(el)):
            continue
        ctx.remove(el, reason, measured={"chars": chars, "name": dom.describe(el)},
                   threshold={"overlay_max_chars": limit})


def autoplay(doc: Doc, ctx, s: AccessibilitySettings) -> None:
    """Media no longer starts by itself (setting ``autoplay``); ``<bgsound>`` goes."""
    if not s.autoplay:
        return
    body = doc.body
    for el in list(body.iter("video", "audio", "bgsound")):
        if el.tag == "bgsound":
            _unnest(el)
            ctx.remove(el, "<bgsound> plays sound by itself (WCAG 1.4.2)")
        elif el.get("autoplay") is not None:
            del el.attrib["autoplay"]
            el.set("controls", "")
            ctx.note("autoplay", el, "autoplay removed, controls added: the user starts the media (WCAG 1.4.2)")


def motion(doc: Doc, ctx, s: AccessibilitySettings) -> None:
    """``<marquee>`` and ``<blink>`` become plain containers (setting ``motion``)."""
    if not s.motion:
        return
    body = doc.body
    for el in list(body.iter("marquee", "blink")):
        old = el.tag
        el.tag = "div" if any(isinstance(c.tag, str) and c.tag in dom.BLOCK_TAGS for c in el.iter()
                              if c is not el) else "span"
        for name in MARQUEE_ATTRS & set(el.attrib):
            del el.attrib[name]
        ctx.note("unwrap", el, f"<{old}> moves or blinks (WCAG 2.2.2); its content stays in a <{el.tag}>")


def _protected(body: HtmlElement, ctx) -> set:
    """The article, <main> and their ancestors: never removed as an overlay."""
    out = {body}
    for node in [ctx.article, *MAINS(body)]:
        if node is not None:
            out.add(node)
            out.update(node.iterancestors())
    return out


def _unnest(el: HtmlElement) -> None:
    """Move what an element holds out after it (in order). lxml's parser does not know that
    ``<bgsound>`` is void: the rest of its parent is parsed into it, and would go with it."""
    kids = list(el)
    if not kids and not el.text:
        return
    tail, el.tail, el.text = el.tail, el.text, None
    for kid in reversed(kids):
        el.addnext(kid)  # with its tail
    if kids:
        kids[-1].tail = (kids[-1].tail or "") + (tail or "")
    else:
        el.tail = (el.tail or "") + (tail or "")
