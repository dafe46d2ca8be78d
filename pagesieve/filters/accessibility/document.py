"""The document as a whole: its language (WCAG 3.1.1, 3.1.2), its title (2.4.2), zoom (1.4.4), and
the style sheet the step adds last (the skip link's, underlined links, the reading view's colours)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from lxml import etree

from pagesieve.analysis import lang as langid
from pagesieve.core import dom
from pagesieve.filters.accessibility.keyboard import SKIP_STYLE
from pagesieve.filters.accessibility.shared import WS, Doc

if TYPE_CHECKING:
    from pagesieve.filters.accessibility import AccessibilitySettings

#: A viewport's maximum-scale below this stops zooming (axe meta-viewport: 5 is best practice, WCAG 1.4.4's
#: resize-text criterion asks for 200 %); such a limit is dropped.
MIN_MAX_SCALE = 5.0
#: Links in running text told apart by more than colour (WCAG 1.4.1, axe link-in-text-block): a
#: reader chain keeps the site's style sheet but not the ancestors its link colours depended on.
#: Running text is often a <div> (no CSS selector tells it apart): every link in <main> is underlined.
LINK_STYLE = "main a[href],:is(p,blockquote,dd,figcaption) a[href]{text-decoration:underline !important}"
#: The reading view's colours (reader_colors): #1a1a1a on #fff is 17:1, #1a4fa0 on #fff 7.5:1 (WCAG 1.4.6 AAA
#: asks 7:1). Backgrounds are reset with the text colour: a colour kept over a background dropped is the
#: failure this avoids. Images and media keep theirs. The colour scheme is light too: a page that declares
#: "dark" (<meta name=color-scheme>) would otherwise get the browser's light default text on our white.
READER_STYLE = (":root{color-scheme:light !important}html,body,body *:not(img):not(svg):not(video):not(picture):not(canvas){color:#1a1a1a !important;"
                "background-color:#fff !important;text-shadow:none !important}"
                "body a[href],body a[href] *{color:#1a4fa0 !important}")

# BCP 47 shape: a 2-3 letter language, then subtags (axe html-lang-valid checks the language).
VALID_LANG = re.compile(r"^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{1,8})*$")
#: Elements with a lang below the node (inner_langs).
LANG_OWNERS = etree.XPath(".//*/@lang/..")


def page_lang(doc: Doc, ctx, s: AccessibilitySettings) -> None:
    """The page's language (setting ``lang``): the declared one, repaired to BCP 47 form, else
    ``<body lang>``, else the one detected from the text, else ``default_lang``."""
    if not s.lang:
        return
    root = doc.page.root
    declared = (root.get("lang") or "").strip()
    if VALID_LANG.match(declared):
        return
    repaired = declared.replace("_", "-")
    if declared and VALID_LANG.match(repaired):
        ctx.set_attr(root, "lang", repaired)
        ctx.note("lang", root, "declared lang repaired to BCP 47 form", measured={"declared": declared})
        return
    body = dom.body_of(root)
    value, source = (body.get("lang") or "").strip(), "<body lang>"
    if not VALID_LANG.match(value):
        value, source = "", ""
        if s.detect_lang:
            node = ctx.article if ctx.article is not None else body
            value, source = langid.detect(dom.text_of(node)) or "", "the text (detected)"
        if not value:
            value, source = s.default_lang, "default_lang"
    ctx.set_attr(root, "lang", value)
    ctx.note("lang", root, f"page lang set from {source}", measured={"declared": declared or None, "lang": value})


def page_title(doc: Doc, ctx, s: AccessibilitySettings) -> None:
    """An empty or missing ``<title>`` (setting ``title``) set from the first ``<h1>``, else the URL's
    host and path, else ``untitled_text``."""
    if not s.title:
        return
    page = doc.page
    root = page.root
    head = root.find("head")
    title = head.find("title") if head is not None else None  # an <svg><title> in the body is no page title
    if title is not None and WS.sub(" ", title.text_content()).strip():
        return
    h1 = next((h for h in dom.body_of(root).iter("h1") if dom.text_of(h)), None)
    if h1 is not None:
        text, source = dom.text_of(h1)[:200], "the first <h1>"
    elif page.url and urlsplit(page.url).hostname:
        parts = urlsplit(page.url)
        text, source = (parts.hostname + parts.path.rstrip("/")).strip(), "the URL"
    else:
        text, source = s.untitled_text, "untitled_text"
    if title is None:
        if head is None:
            head = dom.element("head")
            ctx.insert(root, 0, head)
        title = dom.element("title")
        ctx.insert(head, len(head), title)
    for child in list(title):  # a <title> holds text only
        ctx.remove(child, "markup inside <title>", explain=False)
    ctx.set_text(title, text)
    doc.title_made = h1 is None
    ctx.note("title", title, f"empty or missing title set from {source}", measured={"title": text})


def zoom(doc: Doc, ctx, s: AccessibilitySettings) -> None:
    """Let the user zoom: drop ``user-scalable=no`` and a ``maximum-scale`` below 2 (axe needs 5
    for best practice; WCAG 1.4.4 needs 2) from ``<meta name=viewport>``."""
    if not s.zoom:
        return
    root = doc.page.root
    for meta in root.iter("meta"):
        if (meta.get("name") or "").strip().lower() != "viewport":
            continue
        content = meta.get("content") or ""
        parts = [p.strip() for p in re.split(r"[,;]", content) if p.strip()]
        kept = []
        for part in parts:
            key, _, value = part.partition("=")
            key, value = key.strip().lower(), value.strip().lower()
            if key == "user-scalable" and value in ("no", "0"):
                continue
            if key == "maximum-scale" and (scale := _float(value)) is not None and scale < MIN_MAX_SCALE:
                continue
            kept.append(part)
        if len(kept) != len(parts):
            ctx.set_attr(meta, "content", ", ".join(kept))
            ctx.note("zoom", meta, "viewport no longer stops zooming (WCAG 1.4.4)",
                     measured={"viewport": content}, threshold={"maximum_scale_at_least": MIN_MAX_SCALE})


def inner_langs(doc: Doc, ctx, s: AccessibilitySettings) -> None:
    """The lang of a part of the page (WCAG 3.1.2, axe valid-lang): ``en_US`` repaired to ``en-US``; a
    value that is no language tag at all is dropped (the part then has the page's language)."""
    if not s.lang:
        return
    body = doc.body
    for el in LANG_OWNERS(body):
        declared = (el.get("lang") or "").strip()
        if not declared or VALID_LANG.match(declared):
            continue
        repaired = declared.replace("_", "-")
        if VALID_LANG.match(repaired):
            el.set("lang", repaired)
            ctx.note("lang", el, "lang of a part of the page repaired to BCP 47 form", measured={"declared": declared})
        else:
            del el.attrib["lang"]
            ctx.note("lang", el, "lang that is no language tag dropped", measured={"declared": declared})


def style_sheet(doc: Doc, ctx, s: AccessibilitySettings) -> None:
    """One ``<style>`` in ``<head>``: the skip link shown only when focused, underlined links, the
    reading view's colours (whichever of them the settings ask for)."""
    css = ((SKIP_STYLE if s.skip_link and s.skip_link_on_focus and doc.main is not None else "")
           + (LINK_STYLE if s.link_underline else "") + (READER_STYLE if s.reader_colors else ""))
    if not css:
        return
    root = doc.page.root
    head = root.find("head")
    if head is None:
        head = dom.element("head")
        ctx.insert(root, 0, head)
    ctx.insert(head, len(head), dom.element("style", {"class": "pagesieve-a11y"}, css))


def _float(value: str) -> float | None:
    try:
        return float(value)
    except ValueError:
        return None
