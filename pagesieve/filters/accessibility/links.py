"""Links and buttons (WCAG 2.4.4, 4.1.2): a name for those that have none, taken from what they hold
or where they lead; the images in them marked as decoration where the link is named otherwise;
``<summary>`` buttons named; dead links and buttons (the page's scripts gone) no longer announced."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from lxml.html import HtmlElement

from pagesieve.core import dom
from pagesieve.filters.accessibility.shared import (
    WS,
    Doc,
    has_name,
    hidden_alternatives,
    named_by_content,
    shorten,
    spoken,
)

if TYPE_CHECKING:
    from pagesieve.filters.accessibility import AccessibilitySettings


def link_names(doc: Doc, ctx, s: AccessibilitySettings) -> None:
    """Image-map areas, links, buttons and image buttons without a name named (setting ``link_names``)."""
    if not s.link_names:
        return
    body, limit = doc.body, s.link_name_max_chars
    _areas(body, ctx, limit, doc.scripts_gone)
    _links(body, ctx, limit, doc.scripts_gone)
    _buttons(body, ctx, limit)
    _image_inputs(body, ctx)


def _areas(body: HtmlElement, ctx, limit: int, scripts_gone: bool) -> None:
    """An image-map ``<area>`` without ``alt`` named by its destination; with the page's scripts gone,
    one to the page itself is no longer a link."""
    for area in body.iter("area"):
        if area.get("href") is None or (area.get("alt") or "").strip() or has_name(area):
            continue
        name = _destination(area.get("href") or "", limit)
        if name:
            area.set("alt", name)
            ctx.note("alt", area, "image-map area without alt named by its destination (WCAG 1.1.1, 2.4.4)",
                     measured={"alt": name})
        elif scripts_gone:
            del area.attrib["href"]
            ctx.note("link name", area, "image-map area to the page itself without a name: with the page's "
                     "scripts gone it does nothing; no longer a link", measured={"href": ""})


def _links(body: HtmlElement, ctx, limit: int, scripts_gone: bool) -> None:
    """A link without a name named by the alternatives it hides, else by its destination; the images in
    a link named otherwise get ``alt=""``; with the page's scripts gone, an empty link to the page itself
    is no longer a link."""
    for a in body.iter("a"):
        if a.get("href") is None:
            continue
        if not len(a):  # most links: their own words, no image in them (what the test below finds, read at once)
            own = a.text
            if own and not own.isspace() and (a.get("aria-hidden") or "").strip().lower() != "true":
                continue
        text = dom.text_of(a)
        imgs = list(a.iter("img"))
        if text and (a.get("aria-hidden") or "").strip().lower() != "true":
            for img in imgs:  # the link's own text names it: its images are decoration there
                if img.get("alt") is None and not img.get("aria-label"):
                    img.set("alt", "")
                    ctx.note("alt", img, "image in a link that has its own text: alt=\"\" (WAI functional "
                             "images)", measured={"link_text": text[:60]})
            continue
        if has_name(a) or named_by_content(a) or (a.get("role") or "").strip().lower() in ("presentation", "none"):
            for img in imgs:  # the link is named by its title or another image: this one adds nothing
                if img.get("alt") is None and not img.get("aria-label") and not img.get("aria-labelledby"):
                    img.set("alt", "")
                    ctx.note("alt", img, "image without alt in a link named otherwise: alt=\"\" (WAI "
                             "functional images)", measured={"link_name": _link_label(a)[:60]})
            continue
        hidden = hidden_alternatives(a)
        if hidden:
            name, source = shorten(" ".join(hidden), limit), "the text alternatives inside it"
        else:
            name, source = _destination(a.get("href") or "", limit), "its destination"
        if not name and scripts_gone and not imgs and not spoken(a):
            href = a.attrib.pop("href")
            ctx.note("link name", a, "empty link to the page itself (nothing in it, no destination): with the "
                     "page's scripts gone it does nothing; no longer a link (WCAG 2.4.4)", measured={"href": href})
            continue
        if not name:
            ctx.note("link name", a, "link without a name and without a destination to name it by; left")
            continue
        for img in imgs:
            if img.get("alt") is None:
                img.set("alt", "")  # named by the link now; a bare image would be read as its file name
        a.set("aria-label", name)
        ctx.note("link name", a, f"link without an accessible name named by {source} (WCAG 2.4.4)",
                 measured={"name": name})


def _buttons(body: HtmlElement, ctx, limit: int) -> None:
    """A ``<button>`` without a name named by the alternatives it hides, else "Submit" when it submits
    its form."""
    for button in body.iter("button"):
        if dom.text_of(button) or has_name(button) or named_by_content(button):
            continue
        hidden = hidden_alternatives(button)
        submit = (button.get("type") or "submit").strip().lower() == "submit" and next(
            button.iterancestors("form"), None) is not None
        name = shorten(" ".join(hidden), limit) if hidden else ("Submit" if submit else "")
        if not name:
            ctx.note("button name", button, "button without a name and nothing to name it by; left")
            continue
        button.set("aria-label", name)
        ctx.note("button name", button, "button without an accessible name named by "
                 + ("the text alternatives inside it" if hidden else "what it does (it submits its form)")
                 + " (WCAG 4.1.2)", measured={"name": name})


def _image_inputs(body: HtmlElement, ctx) -> None:
    """An ``<input type=image>`` without ``alt``: its value or title, else what it does (Submit)."""
    for inp in body.iter("input"):
        if (inp.get("type") or "").strip().lower() != "image" or (inp.get("alt") or "").strip():
            continue
        alt = WS.sub(" ", inp.get("value") or inp.get("title") or "").strip() or "Submit"
        inp.set("alt", alt)
        ctx.note("alt", inp, "image button without alt: its value or title, else what it does (Submit)",
                 measured={"alt": alt})


def summary_names(doc: Doc, ctx, s: AccessibilitySettings) -> None:
    """A ``<summary>`` with no name (an icon alone) is the button that opens its ``<details>``; a
    screen reader says only "disclosure triangle" (axe ``summary-name``). With nothing else in the
    details (the list it opened went with an earlier filter) it opens on nothing and goes, else it is
    named by the alternatives it hides, else by the details' first heading or the start of its text."""
    if not s.link_names:
        return
    body = doc.body
    limit = s.link_name_max_chars
    for summary in list(body.iter("summary")):
        details = summary.getparent()
        if details is None or details.tag != "details" or details[0] is not summary:
            continue  # only a details' first summary is its button
        if dom.text_of(summary) or has_name(summary) or named_by_content(summary):
            continue
        rest = [c for c in details if c is not summary and isinstance(c.tag, str)]
        if not dom.text_of(details) and not any(spoken(c) for c in rest):
            ctx.remove(details, "a <details> with nothing to open besides its unnamed <summary> (WCAG 4.1.2; "
                       "axe summary-name)", guarded=False)
            continue
        hidden = hidden_alternatives(summary)
        heading = next((h for c in rest for h in c.iter(*dom.HEADINGS) if dom.text_of(h)), None)
        if hidden:
            name, source = " ".join(hidden), "the text alternatives inside it"
        elif heading is not None:
            name, source = dom.text_of(heading), "the first heading it opens"
        elif dom.text_of(details):
            name, source = dom.blocks_text(details), "the start of the text it opens"
        else:
            name, source = " ".join(hidden_alternatives(details)), "the text alternatives of what it opens"
        name = shorten(name, limit)
        if not name:
            ctx.note("summary name", summary, "<summary> without a name and nothing to name it by; left")
            continue
        summary.set("aria-label", name)
        ctx.note("summary name", summary, f"<summary> without a name named by {source} (WCAG 4.1.2; axe "
                 "summary-name)", measured={"name": name})


def dead_buttons(doc: Doc, ctx, s: AccessibilitySettings) -> None:
    """With the page's scripts gone, a ``<button>`` that neither submits nor resets a form does
    nothing; one that nothing names (an icon, or nothing at all: a menu's backdrop) leaves the tab
    order and the accessibility tree (``tabindex=-1``, ``aria-hidden``): a screen reader would
    announce a nameless button that does nothing (axe ``button-name``). It still shows."""
    if not (s.link_names and doc.scripts_gone):
        return
    body = doc.body
    for button in list(body.iter("button")):
        if dom.text_of(button) or has_name(button) or named_by_content(button):
            continue
        kind = (button.get("type") or "submit").strip().lower()
        if kind in ("submit", "reset") and (button.get("form") or next(button.iterancestors("form"), None) is not None):
            continue  # it submits or resets its form without a script
        if any((a.get("aria-hidden") or "").strip().lower() == "true" for a in button.iterancestors()):
            continue
        button.set("aria-hidden", "true")
        button.set("tabindex", "-1")
        ctx.note("button name", button, "button without a name that does nothing with the page's scripts gone "
                 "(no form to submit): hidden from screen readers and the tab order (WCAG 4.1.2; axe button-name)",
                 measured={"type": kind})


def _link_label(a: HtmlElement) -> str:
    return WS.sub(" ", a.get("aria-label") or a.get("title") or " ".join(hidden_alternatives(a))).strip()


def _destination(href: str, limit: int) -> str:
    """A link's destination as a short name: host and path (``twitter.com/wsj``), or the path."""
    try:
        parts = urlsplit(href.strip())
    except ValueError:  # "http://[oops": no destination to name the link by
        return ""
    if parts.scheme and parts.scheme not in ("http", "https", "ftp", "mailto", "tel"):
        return ""
    if parts.scheme in ("mailto", "tel"):
        return shorten(f"{parts.scheme}: {parts.path}", limit)
    host = (parts.hostname or "").removeprefix("www.")
    path = parts.path.rstrip("/")
    name = (host + path) if host else path
    return shorten(name, limit) if name.strip("/") else (host or "")
