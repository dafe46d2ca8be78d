"""Style sheets a page gives clients without scripts, kept without the rules that hide the pictures
pagesieve made loadable.

A page that loads its pictures by script often adds, inside a ``<noscript>``, a style sheet for
browsers without scripts: it hides the lazy ``<img>`` (``.lazyload{display:none}``,
``.lazyContainer > img {display:none}``, ``[data-lazy-src]{display:none}``) because the
``<noscript>`` beside it holds a plain copy to show instead. pagesieve removes the scripts and shows
the page as it reads without them, so these sheets apply; but it has also given each lazy image the
address its script would have set, and dropped the plain copy beside it (see
:mod:`pagesieve.analysis.lazy_images`). Kept whole, such a sheet would hide the one copy left: the
picture is gone. So a rule of such a sheet that hides (``display: none``, ``visibility: hidden``,
``opacity: 0``) an ``<img>`` that now loads without scripts is dropped; every other rule stays (most
of them show what would wait for a script: a product gallery, content faded in on scroll).
"""

from __future__ import annotations

import re

from lxml.cssselect import CSSSelector
from lxml.html import HtmlElement

from pagesieve.analysis.lazy_images import loadable
from pagesieve.core import dom

#: A declaration that takes an element out of sight.
_HIDES = re.compile(r"(?:^|;|\s)(?:display\s*:\s*none|visibility\s*:\s*hidden|opacity\s*:\s*0(?:\.0*)?(?![.\d]))"
                    r"\s*(?:!\s*important\s*)?(?:;|$)", re.I)
_COMMENT = re.compile(r"/\*.*?\*/", re.S)
#: A picture's declared side at or under this (px) is a tracking pixel, which may stay hidden.
PIXEL_PX = 2


def rules(css: str) -> list[tuple[int, int, str, str]]:
    """The style rules of ``css`` at any depth of its blocks: (start, end, selector, declarations), with
    ``css[start:end]`` the whole rule. At-rules without a block (``@import …;``) are not rules."""
    out: list[tuple[int, int, str, str]] = []
    _scan(css, 0, len(css), out)
    return out


def _scan(css: str, start: int, stop: int, out: list) -> None:
    i, head = start, start
    while i < stop:
        c = css[i]
        if c == ";" and css[head:i].lstrip().startswith("@"):
            head = i + 1  # @import, @charset: no block
        elif c == "{":
            close = _closing(css, i, stop)
            prelude = css[head:i].strip()
            if prelude.startswith("@"):
                _scan(css, i + 1, close, out)  # @media, @supports: the rules inside
            else:
                out.append((head, close + 1, prelude, css[i + 1:close]))
            i = head = close + 1
            continue
        i += 1


def _closing(css: str, i: int, stop: int) -> int:
    """The index of the ``}`` that closes the ``{`` at ``i`` (``stop - 1`` when none does)."""
    depth = 0
    for j in range(i, stop):
        if css[j] == "{":
            depth += 1
        elif css[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return stop - 1


def _picture(img: HtmlElement) -> bool:
    if not loadable(img):
        return False
    return not any((size := dom.px(img.get(side))) is not None and size <= PIXEL_PX for side in ("width", "height"))


def pictures_hidden_by(css: str, root: HtmlElement) -> list[tuple[int, int]]:
    """The (start, end) spans of the rules of ``css`` that hide an ``<img>`` of ``root`` which loads
    without scripts (and is not a tracking pixel)."""
    out = []
    for start, end, selector, declarations in rules(css):
        if not _HIDES.search(declarations):
            continue
        try:
            match = CSSSelector(selector)
        except Exception:  # noqa: BLE001 - a selector cssselect cannot read (a browser-only pseudo-class): kept
            continue
        try:
            if any(el.tag == "img" and _picture(el) for el in match(root)):
                out.append((start, end))
        except Exception:  # noqa: BLE001 - one cssselect translates but lxml's XPath refuses: kept
            continue
    return out


def prune(style: HtmlElement, root: HtmlElement, ctx) -> int:
    """Drop from the no-script ``<style>`` ``style`` the rules that hide a picture of ``root`` that loads
    without scripts (see the module doc); how many went."""
    css = _COMMENT.sub(lambda m: " " * len(m.group()), style.text or "")
    spans = pictures_hidden_by(css, root)
    if not spans:
        return 0
    text = style.text or ""
    for start, end in reversed(spans):
        text = text[:start] + text[end:]
    if not text.strip():
        ctx.remove(style, "style sheet for clients without scripts that only hid pictures now shown without them",
                   measured={"rules": len(spans)})
        return len(spans)
    ctx.set_text(style, text)
    ctx.note("modify", style, "rule of a style sheet for clients without scripts that hides a picture now "
             "shown without them: dropped", measured={"rules": len(spans)})
    return len(spans)
