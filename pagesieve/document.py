"""Reading bytes into a page and writing a page back out, with its encoding honoured.

Encoding precedence when reading (as browsers do): a byte-order mark, then the charset
the server declared (``declared_encoding``), then a ``<meta charset>`` / ``http-equiv``
in the first 4 KiB, then UTF-8 if the bytes decode as UTF-8, else windows-1252.
The page is written back in the same encoding and says so in a ``<meta charset>``.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field

import lxml.html
from lxml import etree
from lxml.html import HtmlElement

from pagesieve import dom
from pagesieve.errors import InputError

_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))
_META_CHARSET = re.compile(
    rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:\-]+)""", re.IGNORECASE)
SNIFF_BYTES = 4096
# Magic numbers of common binary formats that are never HTML.
_BINARY_MAGIC = (b"\x89PNG", b"GIF8", b"\xff\xd8\xff", b"%PDF", b"PK\x03\x04", b"\x1f\x8b",
                 b"BZh", b"\x7fELF", b"RIFF", b"\x00\x00\x01\x00", b"OggS", b"fLaC", b"ID3")


@dataclass
class Page:
    """A parsed HTML page: the lxml tree, where it came from, and its encoding."""

    root: HtmlElement
    encoding: str
    url: str | None = None
    meta: dict = field(default_factory=dict)

    @property
    def body(self) -> HtmlElement:
        body = self.root.find("body")
        return body if body is not None else self.root

    @property
    def head(self) -> HtmlElement:
        head = self.root.find("head")
        if head is None:
            head = dom.element("head")
            self.root.insert(0, head)
        return head

    @property
    def title(self) -> str:
        t = self.root.find(".//title")
        return " ".join((t.text_content() if t is not None else "").split())


def looks_binary(data: bytes) -> str | None:
    """A reason when ``data`` is clearly not text (magic number or NUL bytes), else None."""
    head = data[:SNIFF_BYTES]
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return None
    for magic in _BINARY_MAGIC:
        if head.startswith(magic):
            return f"binary data (starts with {magic[:4]!r})"
    if b"\x00" in head:
        return "binary data (contains NUL bytes)"
    return None


def _normalise(label: str | None) -> str | None:
    if not label:
        return None
    try:
        name = codecs.lookup(label.strip().strip("\"'")).name
    except LookupError:
        return None
    # The WHATWG encoding standard maps these labels to windows-1252.
    if name in ("latin-1", "iso8859-1", "ascii"):
        return "windows-1252"
    return name


def detect_encoding(data: bytes, declared_encoding: str | None = None) -> str:
    """The encoding of ``data`` (see the module doc for the precedence)."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name
    for candidate in (declared_encoding,):
        enc = _normalise(candidate)
        if enc:
            return enc
    m = _META_CHARSET.search(data[:SNIFF_BYTES])
    if m:
        enc = _normalise(m.group(1).decode("ascii", "replace"))
        if enc and not enc.startswith("utf-16"):
            return enc
    try:
        data.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError as err:
        # A truncated multi-byte sequence at the very end still means UTF-8.
        if err.start >= len(data) - 3 and err.reason == "unexpected end of data":
            return "utf-8"
        return "windows-1252"


def parse(data: bytes, *, url: str | None = None, declared_encoding: str | None = None) -> Page:
    """Parse HTML bytes into a :class:`Page`. Broken HTML is repaired by the parser.

    Raises :class:`InputError` for empty or binary input.
    """
    if not data or not data.strip():
        raise InputError("input is empty")
    reason = looks_binary(data)
    if reason:
        raise InputError(f"input is not HTML: {reason}")
    encoding = detect_encoding(data, declared_encoding)
    text = data.decode(encoding, errors="replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    # Parsing text (not bytes) makes the decision above the only one: libxml2 would
    # otherwise apply its own guess from <meta>. XML declarations are not allowed in str input.
    text = _XML_DECL.sub("", text, count=1)
    try:
        root = lxml.html.document_fromstring(text, parser=_PARSER)
    except (etree.ParserError, ValueError) as err:
        raise InputError(f"input cannot be parsed as HTML: {err}") from err
    if root is None:
        raise InputError("input cannot be parsed as HTML: no document")
    if root.find("body") is None:
        body = etree.SubElement(root, "body")
        del body  # the tree now has a body, as browsers would give it
    return Page(root=root, encoding=encoding, url=url)


_XML_DECL = re.compile(r"^\s*<\?xml[^>]*\?>", re.IGNORECASE)
_PARSER = etree.HTMLParser(remove_comments=False, remove_pis=True, default_doctype=False)
# Every element an HtmlElement (text_content() etc.), chosen in C: lxml.html's own parser asks a
# Python method per element for its tag-specific class (form controls), ~10% of a filter run.
_PARSER.set_element_class_lookup(etree.ElementDefaultClassLookup(
    element=lxml.html.HtmlElement, comment=lxml.html.HtmlComment, pi=lxml.html.HtmlProcessingInstruction,
    entity=lxml.html.HtmlEntity))


def web_label(encoding: str) -> str:
    """The WHATWG label browsers know for a Python codec name (``cp1252`` → ``windows-1252``)."""
    name = encoding.lower().replace("_", "-")
    if name.startswith("cp") and name[2:].isdigit() and name[2:].startswith("12"):
        return "windows-" + name[2:]
    if name.startswith("iso8859-"):
        return "iso-8859-" + name[8:]
    return name


def declare_encoding(page: Page) -> None:
    """Make the page's ``<meta charset>`` state ``page.encoding`` (and only it)."""
    head = page.head
    for meta in head.xpath(".//meta[@charset] | .//meta[translate(@http-equiv,'CONTENT-TYPE','content-type')='content-type']"):
        meta.getparent().remove(meta)
    meta = dom.element("meta", {"charset": web_label(page.encoding)})
    meta.tail = "\n"
    head.insert(0, meta)


def serialize(page: Page) -> bytes:
    """The page as HTML bytes in ``page.encoding``, its doctype kept, the charset declared."""
    declare_encoding(page)
    tree = page.root.getroottree()
    doctype = tree.docinfo.doctype or "<!DOCTYPE html>"
    text = lxml.html.tostring(page.root, encoding="unicode", method="html")
    return (doctype + "\n" + text).encode(page.encoding, errors="xmlcharrefreplace")


def serialize_untouched(page: Page) -> bytes:
    """lxml's plain serialisation (the benchmark's floor: parse + serialize)."""
    return lxml.html.tostring(page.root, encoding=page.encoding, method="html")
