"""A page read by the HTML5 tree builder (lexbor), handed to libxml2 as markup it reads the same way.

:func:`pagesieve.engine.document.parse` reads tag soup that libxml2 would read unlike a browser with
lexbor, and gives lexbor's serialisation to libxml2 to build the tree the filters work on. That round
trip is faithful but for one case: an element in SVG or MathML content named like an HTML element whose
content libxml2 reads as text (``<math><title>``, ``<svg><style>``…). To a browser its content is markup
(elements, comments); serialised, it reads to libxml2 as text up to the first end tag of that name, which
may sit inside a comment in it, and what follows that end tag is then read out of place (a fuzzed page
whose ``<style>`` so opened took the rest of the page as style text). Such an element is renamed in the
serialisation (:data:`PREFIX`) and named back after libxml2's parse, with its content built as elements.

It also knows where libxml2's own tree differs from a browser's: which pages to read the HTML5 way for an
end tag libxml2 dropped (:func:`dropped_end_tag`) or for their SVG and MathML content
(:func:`misread_foreign`), and which elements stand in foreign content (:func:`in_foreign_content`).
"""

from __future__ import annotations

import re
import secrets

from lxml import etree
from lxml.html import HtmlElement
from selectolax.lexbor import LexborHTMLParser

from pagesieve.core.foreign import integration_point
from pagesieve.engine import noscript

#: What such an element is called between the two parsers: libxml2 reads an unknown element's content
#: as markup.
PREFIX = "pagesieve-foreign-"
#: The attribute marking a renamed element (its value holds a token drawn for each page, so that no text
#: of the page can pass for it); removed after the parse.
MARK = "data-pagesieve-foreign"
#: The elements whose content libxml2 (2.14) reads as text whatever holds it (a ``<noscript>``'s is markup
#: to it; ``<plaintext>`` is handled before either parser sees the page).
LIBXML2_RAW = ("style", "script", "title", "textarea", "xmp", "iframe", "noembed", "noframes")
_SELECTOR = ", ".join(LIBXML2_RAW)
#: In libxml2's tree, an element libxml2 read as text although it holds markup (SVG or MathML content, where
#: a browser builds elements from it: ``<svg><style><img src=x onerror=...>``), or a ``<template>``: in SVG
#: or MathML content that is a foreign element whose content is shown, and an HTML tag in it (``<div>``,
#: ``<p>``) takes a browser's tree builder out of the foreign content; libxml2 knows no foreign content and
#: keeps what follows inside the template, where no filter counts it as shown (a mutated page so lost its
#: whole story).
_MISREAD_FOREIGN = etree.XPath(
    "(//svg | //math)//*[self::style or self::script or self::title or self::textarea or self::xmp "
    "or self::iframe or self::noembed or self::noframes or self::noscript][contains(., '<')] "
    "| (//svg | //math)//template")


#: End tags that HTML5's tree builder honours by closing every element opened after their own
#: (WHATWG HTML §13.2.6.4.7 "in body": the address…ul group, form, p, li, dd/dt, h1–h6, applet, marquee,
#: object; template, select). libxml2 drops one with a ``<div>`` open in it: what follows stays inside, hidden
#: in a template, select or object (a fuzzed page so lost the end of a paragraph).
HTML5_CLOSING_END_TAGS = frozenset(
    "address article aside blockquote button center details dialog dir div dl fieldset figcaption figure footer "
    "header hgroup listing main menu nav ol pre search section summary ul form p li dd dt h1 h2 h3 h4 h5 h6 "
    "applet marquee object template select".split())
_MISMATCH = re.compile(r"mismatch: (\w+) and ")


def dropped_end_tag(error_log) -> bool:
    """True when libxml2 dropped an end tag that HTML5's tree builder would have honoured, or may have: its log
    is full (:func:`pagesieve.engine.noscript.log_full`), so harmless errors may have pushed that one out."""
    if noscript.log_full(error_log):
        return True
    for entry in error_log:
        if entry.type == etree.ErrorTypes.ERR_TAG_NAME_MISMATCH:
            m = _MISMATCH.search(entry.message)
            if m and m.group(1).lower() in HTML5_CLOSING_END_TAGS:
                return True
    return False


def misread_foreign(root: HtmlElement) -> bool:
    """True when libxml2's tree ``root`` holds SVG or MathML content libxml2 read unlike a browser
    (:data:`_MISREAD_FOREIGN`): the page is to be read by the HTML5 tree builder. Pages without
    ``<svg>``/``<math>`` pay one C search."""
    if next(root.iter("svg", "math"), None) is None:
        return False
    return bool(_MISREAD_FOREIGN(root))


def in_foreign_content(el: HtmlElement) -> bool:
    """Whether ``el`` sits in SVG or MathML content of libxml2's tree, with no HTML integration point of that
    content (an SVG ``<foreignObject>``, a MathML ``<mi>``…) between: there an ``<image>`` is SVG's picture,
    not HTML's ``<img>``."""
    between: list[HtmlElement] = []
    for ancestor in el.iterancestors():
        space = ancestor.tag
        if space in ("svg", "math"):
            return not any(integration_point(space, str(a.tag), _start_tag(a)) for a in between)
        between.append(ancestor)
    return False


def _start_tag(el: HtmlElement) -> str:
    """Enough of ``el``'s start tag for :func:`pagesieve.core.foreign.integration_point`: its encoding."""
    encoding = el.get("encoding")
    return f' encoding="{encoding}"' if encoding is not None else ""


def serialize(text: str) -> str:
    """The markup of lexbor's tree of ``text``, with each element of :data:`LIBXML2_RAW` that holds more
    than text renamed (an HTML one holds only text; such an element is in SVG or MathML content)."""
    tree = LexborHTMLParser(text)
    nodes = [node for node in tree.css(_SELECTOR) if _holds_markup(node)] if tree.root is not None else []
    if not nodes:
        return tree.html or ""
    token = secrets.token_hex(8)
    for i, node in enumerate(nodes):
        node.attrs[MARK] = f"{token}-{i}"
    html = tree.html or ""
    for node in nodes:  # in document order: an outer element is renamed before the ones inside it
        name, old = node.tag, node.html or ""
        start, end = f"<{name} ", f"</{name}>"
        if old.startswith(start) and old.endswith(end):
            new = f"<{PREFIX}{name} {old[len(start):-len(end)]}</{PREFIX}{name}>"
            html = html.replace(old, new, 1)
    return html


def restore(root: HtmlElement) -> None:
    """Name back each element :func:`serialize` renamed, in libxml2's tree ``root``."""
    for el in root.xpath(f"//*[@{MARK}]"):
        del el.attrib[MARK]
        if isinstance(el.tag, str) and el.tag.startswith(PREFIX):
            el.tag = el.tag[len(PREFIX):]


def _holds_markup(node) -> bool:
    child = node.child
    while child is not None:
        if not child.is_text_node:
            return True
        child = child.next
    return False
