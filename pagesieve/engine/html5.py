"""A page read by the HTML5 tree builder (lexbor), handed to libxml2 as markup it reads the same way.

:func:`pagesieve.engine.document.parse` reads tag soup that libxml2 would read unlike a browser with
lexbor, and gives lexbor's serialisation to libxml2 to build the tree the filters work on. That round
trip is faithful but for one case: an element in SVG or MathML content named like an HTML element whose
content libxml2 reads as text (``<math><title>``, ``<svg><style>``…). To a browser its content is markup
(elements, comments); serialised, it reads to libxml2 as text up to the first end tag of that name, which
may sit inside a comment in it, and what follows that end tag is then read out of place (a fuzzed page
whose ``<style>`` so opened took the rest of the page as style text). Such an element is renamed in the
serialisation (:data:`PREFIX`) and named back after libxml2's parse, with its content built as elements.
"""

from __future__ import annotations

import secrets

from lxml.html import HtmlElement
from selectolax.lexbor import LexborHTMLParser

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
