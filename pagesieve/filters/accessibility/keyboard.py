"""The keyboard (WCAG 2.1.1, 2.4.1, 2.4.3): a skip link first on the page, the tab order natural,
code blocks that scroll able to take focus."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lxml import etree

from pagesieve.core import dom
from pagesieve.filters.accessibility.shared import FOCUSABLE, SKIP_CLASS, Doc

if TYPE_CHECKING:
    from pagesieve.filters.accessibility import AccessibilitySettings

MAIN_ID = "pagesieve-main"
#: Visually hidden until focused (the WebAIM "skip navigation links" pattern).
SKIP_STYLE = (f".{SKIP_CLASS}{{position:absolute;left:-10000px;top:auto;width:1px;height:1px;overflow:hidden}}"
              f".{SKIP_CLASS}:focus{{position:static;left:auto;width:auto;height:auto;overflow:visible}}")
POSITIVE_TABINDEX = etree.XPath(".//*/@tabindex[number(.) > 0]/..")
#: A <pre> with a line longer than this, or more lines than SCROLL_LINES, may scroll: a 60-character line
#: of 14 px monospace is about 500 px, wider than a phone (360-414 px) or a code column beside the text.
SCROLL_LINE_CHARS = 60
SCROLL_LINES = 30


def scroll_focus(doc: Doc, ctx, s: AccessibilitySettings) -> None:
    """A code block (``<pre>``: its lines do not wrap) with a line longer than ``SCROLL_LINE_CHARS`` or
    more than ``SCROLL_LINES`` lines scrolls where the page's style lets it; a keyboard can scroll it only
    when it can take focus (axe ``scrollable-region-focusable``): it gets ``tabindex=0`` unless it is
    focusable or holds something focusable."""
    if not s.scroll_focus:
        return
    body = doc.body
    for pre in body.iter("pre"):
        if pre.get("tabindex") is not None or FOCUSABLE(pre):
            continue
        text = "".join(pre.itertext())
        # lines are the text's, or, when blocks draw them (a highlighter's <div> a line), the blocks'
        blocks = [el for el in pre.iter("div", "p") if el.find(".//div") is None and el.find(".//p") is None]
        lines = ["".join(el.itertext()) for el in blocks] if blocks else text.split("\n")
        if not text.strip() or (max(len(line) for line in lines) <= SCROLL_LINE_CHARS and len(lines) <= SCROLL_LINES):
            continue
        pre.set("tabindex", "0")
        ctx.note("scroll", pre, "code block that may scroll can take focus, so the keyboard can scroll it "
                 "(WCAG 2.1.1; axe scrollable-region-focusable)",
                 measured={"longest_line": max(len(line) for line in lines), "lines": len(lines)},
                 threshold={"chars": SCROLL_LINE_CHARS, "lines": SCROLL_LINES})


def skip_link(doc: Doc, ctx, s: AccessibilitySettings) -> None:
    """A skip link first in the body to ``<main>``; positive ``tabindex`` values reset to 0 so it also
    comes first in the tab order (setting ``skip_link``; only when the page has a ``<main>``)."""
    if not (s.skip_link and doc.main is not None):
        return
    body, main = doc.body, doc.main
    target = main.get("id") or MAIN_ID
    if not main.get("id"):
        main.set("id", target)
    main.set("tabindex", "-1")
    for el in POSITIVE_TABINDEX(body):
        ctx.note("tabindex", el, "positive tabindex reset to 0 (WCAG 2.4.3): the skip link comes first",
                 measured={"tabindex": el.get("tabindex")})
        el.set("tabindex", "0")
    link = dom.element("a", {"href": "#" + target})
    link.set("class", SKIP_CLASS)
    link.text = s.skip_link_text
    link.tail, body.text = body.text, None
    body.insert(0, link)
    ctx.note("skip link", link, "a skip link to the main content first in the body (WCAG 2.4.1)")
