"""Style attributes (``style="..."``) when ``ignore`` drops them, and when it keeps them.

Dropped (:func:`drop`), they go but for what keeps the page's look without its layout: an element its
style hid stays hidden, a background keeps its text colour, a fold of zero height stays shut and an
icon's box keeps its size — unless the fold or box holds prose (an FAQ's answer, a window the page's
script grows), which opens.

Kept (:func:`open_prose`, with the scripts gone), the page keeps its own layout, and only what its
scripts were to open opens: a fold or a box holding prose loses the declarations that keep it shut.
Either way a small SVG drawing without a size of its own gets its drawing's size: a style sheet of the
page that sizes it still wins, and where none does (it did not load, an ad list blocked it) the icon is
not drawn as wide as the page.
"""

from __future__ import annotations

import re

from lxml import etree
from lxml.html import HtmlElement

from pagesieve.core import dom

HIDDEN_STYLE = etree.XPath("contains(translate(@style,'DISPLAYNOE ','displaynoe'),'display:none') or "
                           "contains(translate(@style,'VISIBLTYHDN ','visibltyhdn'),'visibility:hidden')")


def xpath_translate(source: str, target: str) -> dict[int, str | None]:
    """XPath's ``translate(., source, target)`` as a ``str.translate`` table: each character of ``source``
    becomes the one at the place of its first occurrence in ``target``, or is dropped past its end."""
    table: dict[int, str | None] = {}
    for i, ch in enumerate(source):
        table.setdefault(ord(ch), target[i] if i < len(target) else None)
    return table


_DISPLAY = xpath_translate("DISPLAYNOE ", "displaynoe")
_VISIBILITY = xpath_translate("VISIBLTYHDN ", "visibltyhdn")


def hidden_style(style: str) -> bool:
    """:data:`HIDDEN_STYLE` of an element whose style attribute is ``style`` (the same test in Python: an
    XPath evaluated on one element costs a few microseconds of set-up, ``str.translate`` well under one)."""
    return "display:none" in style.translate(_DISPLAY) or "visibility:hidden" in style.translate(_VISIBILITY)


def _styled(root: HtmlElement, tags: tuple[str, ...]) -> list[HtmlElement]:
    """The elements of ``tags`` (``*``: all) under ``root`` that carry a style attribute."""
    return [n for n in (root.iter() if "*" in tags else root.iter(*tags)) if n.get("style") is not None]


def tidy(root: HtmlElement, tags: tuple[str, ...], ctx, *, drop_them: bool, open_folds: bool) -> None:
    """The style attributes of ``tags``: dropped (:func:`drop`) or, kept, with the folds holding prose
    opened (:func:`open_prose`, when ``open_folds``: the scripts that were to open them are gone); then
    a small SVG drawing without a size of its own gets its drawing's size (:func:`_size_icons`)."""
    if drop_them:
        drop(root, tags, ctx)
    elif open_folds:
        open_prose(root, tags, ctx)
    _size_icons(root, ctx)


def drop(root: HtmlElement, tags: tuple[str, ...], ctx) -> None:
    """The style attributes of ``tags`` go, but for what keeps the page's look (the module doc)."""
    for node in _styled(root, tags):
        style = node.get("style")
        if hidden_style(style):
            ctx.set_attr(node, "hidden", "")
        shut = [d for d in (_folded(style), _icon_box(style)) if d]
        if shut and _holds_prose(node):
            shut = []  # a script was to open it (a window, a panel of the page's text): open, it shows
        kept = ";".join(d for d in (_colours(style), *shut) if d)
        ctx.set_attr(node, "style", kept or None)


def open_prose(root: HtmlElement, tags: tuple[str, ...], ctx) -> None:
    """With style attributes kept and the scripts gone: a fold or an icon's box of ``tags`` that holds
    prose (a script was to open it: an FAQ's answer, a window) loses the declarations that keep it shut
    (its heights, widths and overflow); the rest of its style stays."""
    for node in _styled(root, tags):
        style = node.get("style")
        if (_folded(style) or _icon_box(style)) and _holds_prose(node):
            kept = [d for d in style.split(";") if d.strip() and d.partition(":")[0].strip().lower() not in _SHUTTING]
            ctx.set_attr(node, "style", ";".join(kept) or None)


#: The declarations of a style attribute that give text and its background their colours.
_COLOUR_PROPERTIES = ("color", "background-color", "background", "background-image")


def _colours(style: str) -> str:
    """What of a style attribute is kept when the attribute is ignored: a background and the text colour
    set with it, as a pair. Dropped alone, a background leaves text coloured for it elsewhere
    (a child's own colour, the site's style sheet) on the page's background: light on white (axe
    color-contrast). A text colour without a background goes with the rest: the text then inherits."""
    decls = []
    for part in style.split(";"):
        name, sep, value = part.partition(":")
        name = name.strip().lower()
        if sep and name in _COLOUR_PROPERTIES and value.strip() and "url(" not in value.lower():
            decls.append(f"{name}:{value.strip()}")
    if not any(d.startswith("background") for d in decls):
        return ""
    return ";".join(decls)


#: The declarations of a style attribute that fold an element shut (a drop-down menu, a closed panel):
#: a height or maximum height of zero, and how what overflows it is shown.
_FOLD_PROPERTIES = ("height", "max-height")
_OVERFLOW_PROPERTIES = ("overflow", "overflow-y")
#: What a style attribute's fold (:func:`_folded`) and icon's box (:func:`_icon_box`) are made of.
_SHUTTING = frozenset({*_FOLD_PROPERTIES, *_OVERFLOW_PROPERTIES, "width"})
_ZERO = re.compile(r"0+(?:\.0*)?(?:px|em|rem|%|vh)?")


def _folded(style: str) -> str:
    """What of a style attribute is kept when the attribute is ignored, beside its colours: a height of
    zero that folds the element shut, with its overflow. The page opens such a menu or panel with its
    scripts or on hover (its style sheet hides what overflows); dropped, the fold would let a site's
    whole drop-down menu into the page above the story."""
    decls, folded = [], False
    for part in style.split(";"):
        name, sep, value = part.partition(":")
        name, value = name.strip().lower(), value.strip().lower()
        if sep and name in _FOLD_PROPERTIES and _ZERO.fullmatch(value.removesuffix("!important").strip()):
            decls.append(f"{name}:{value}")
            folded = True
        elif sep and name in _OVERFLOW_PROPERTIES and value:
            decls.append(f"{name}:{value}")
    return ";".join(decls) if folded else ""


#: The largest box (px, both sides) that is an icon's: a style sizing an element no larger keeps its size,
#: and an SVG drawing no larger without a size of its own is drawn at its own size (4em of 16 px; a
#: toolbar's buttons are 24 to 48 px).
ICON_BOX_PX = 64
#: A CSS length of a style attribute: a number and its unit (px, em, rem; none for 0).
_LENGTH = re.compile(r"(\d+(?:\.\d*)?|\.\d+)\s*(px|em|rem)?")
#: CSS pixels in an em or rem (the browsers' default text size).
_EM_PX = 16


def _px(value: str) -> float | None:
    """A CSS length in pixels (px, em, rem at ``_EM_PX``; a bare number only when 0), else None."""
    m = _LENGTH.fullmatch(value.strip().lower().removesuffix("!important").strip())
    if m is None or (m.group(2) is None and float(m.group(1)) != 0):
        return None
    return float(m.group(1)) * (_EM_PX if m.group(2) in ("em", "rem") else 1)


def _icon_box(style: str) -> str:
    """What of a style attribute is kept when the attribute is ignored, beside its colours and folds: a
    width and a height both no larger than ``ICON_BOX_PX``, an icon's box. What it holds may be drawn to
    fill it (an SVG at 100%): without its box it would fill the width of the page."""
    sizes = {}
    for part in style.split(";"):
        name, sep, value = part.partition(":")
        name = name.strip().lower()
        if sep and name in ("width", "height"):
            sizes[name] = value.strip().lower()
    px = [_px(v) for v in sizes.values()]
    if len(px) != 2 or any(p is None or p > ICON_BOX_PX for p in px):
        return ""
    return f"width:{sizes['width']};height:{sizes['height']}"


#: A box its style folds shut or sizes as an icon that holds this much text, mostly not links, is no
#: drop-down menu and no icon: it is text a script was to open (a window the page grows from nothing, a
#: panel). Kept shut without the script, the text was there for a screen reader and not for the eye: a
#: product page's whole story in a 0 x 0 window, one word a line, 54,000 px tall.
OPEN_PROSE_CHARS = 200


#: Prose is mostly letters: a map's folded price markers ("3 homes508K 485K") are not.
PROSE_LETTER_SHARE = 0.6


def _holds_prose(node: HtmlElement) -> bool:
    """At least ``OPEN_PROSE_CHARS`` of text under ``node``, ``PROSE_LETTER_SHARE`` of it letters and
    under half of it in links."""
    text = "".join(dom.text_of(node).split())
    if len(text) < OPEN_PROSE_CHARS or sum(c.isalpha() for c in text) < PROSE_LETTER_SHARE * len(text):
        return False
    return 2 * sum(dom.text_len(a) for a in node.iter("a")) < len(text)


def _size_icons(root: HtmlElement, ctx) -> None:
    """An inline ``<svg>`` without a width or height of its own whose drawing (``viewBox``) is no larger
    than ``ICON_BOX_PX`` gets that size as its width and height: the page sized it by the layout around
    it (a row, a button's box), and without that layout an SVG fills the width of the page (an icon of
    32 by 34 drawn 1,200 px wide above the story). A style sheet of the page that sizes it still wins."""
    for svg in root.iter("svg"):
        if svg.get("width") is not None or svg.get("height") is not None:
            continue
        box = (svg.get("viewbox") or svg.get("viewBox") or "").replace(",", " ").split()
        try:
            w, h = float(box[2]), float(box[3])
        except (IndexError, ValueError):
            continue
        if 0 < w <= ICON_BOX_PX and 0 < h <= ICON_BOX_PX and next(svg.iterancestors("svg"), None) is None:
            ctx.set_attr(svg, "width", f"{w:g}")
            ctx.set_attr(svg, "height", f"{h:g}")
