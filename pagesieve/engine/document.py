"""Reading bytes into a page and writing a page back out, with its encoding honoured.

Encoding precedence when reading (as browsers do): a byte-order mark, then the charset
the server declared (``declared_encoding``), then a ``<meta charset>`` / ``http-equiv``
in the first 4 KiB, then UTF-8 if the bytes decode as UTF-8, else windows-1252. A declared
charset that does not decode the bytes, when they are clean UTF-8, gives way to UTF-8 (the
sniffing browsers do for mislabelled pages). The page is written back in the same encoding
and says so in a ``<meta charset>``.

Parsing keeps every node a browser keeps, or refuses the page (:class:`UnparsableError`, the
proxy then serves it as it is) — never a silently shortened tree:

* libxml2's depth limit is lifted to its maximum (``huge_tree``: 2048 levels; browsers cap
  theirs lower and keep the text); a page nested deeper is refused.
* libxml2 builds its tree by HTML4 rules: an end tag such as ``</button>`` met inside an
  unclosed ``<div>`` is dropped, and everything after it ends up inside the button. When its
  error log shows such an end tag (one that HTML5's tree builder closes through open elements),
  the page is parsed again by an HTML5 tree builder (lexbor, through selectolax) and its
  serialisation, which is then well nested, read into lxml. libxml2 reports a page's first 100 errors
  only: a page whose log is that full is read the HTML5 way too (1 of the 181 scrapinghub pages).
* HTML5's void elements that HTML4 did not have (``<embed>``, ``<source>``, ``<track>``, ``<wbr>``…)
  are containers to libxml2: what follows one becomes its content, and a filter removing the
  element would take it along. Their content is put back after them, where a browser has it.
* An element libxml2 keeps in ``<head>`` that a browser does not (an unknown or mangled tag) goes to
  the body with what follows it, as a browser puts it.
* What libxml2 leaves after ``</body>`` goes into the body, text after a comment there too (libxml2
  makes it the comment's tail; a ``<?...>`` is such a comment). After ``</html>`` (and after an
  ``<html .../>`` written as if it closed itself) it drops everything that follows, so such a page
  is read by the HTML5 tree builder; so is any page whose body libxml2 leaves empty.
* Inside SVG and MathML a browser parses ``<style>``, ``<title>``, ``<noscript>``… as markup (an
  ``<img onerror>`` there is a live element); libxml2 reads their content as text. A page where
  such content holds markup is read by the HTML5 tree builder.
* A ``<title>`` that is never closed swallows the rest of the page as its text (browsers show an
  empty page under a very long tab title; seen on saved pages cut and spliced by their crawler).
  When what it swallowed holds the page's markup (``</head>``, ``<body>``, a ``<div>``/``<p>``/
  ``<table>``), the title is closed at the end of its first line, so the page's body is read.
* A browser (scripting on, as pagesieve's output keeps it) reads a ``<noscript>``'s content as raw
  text up to the first ``</noscript>``; libxml2 parses it as markup, and where a second
  ``<noscript>``, an unclosed comment, raw-text element, quote or ``<div>`` inside it keeps libxml2's
  element open past that end tag, the rest of the page would end up inside it. Such a ``<noscript>``
  is emptied before the parse and its content, parsed on its own, put back in it afterwards
  (:mod:`pagesieve.engine.noscript`; a full error log, 100 entries, may have left the dropped end tag
  out). Before the HTML5 tree builder (which parses without scripting, so a ``<template>`` left open in
  a ``<noscript>`` took the rest of the page) every ``<noscript>`` is emptied so. Pages whose pairs are
  balanced pay a regular expression and a tokenizer read of each content.
* What follows ``<plaintext>`` (obsolete, still honoured) is text to a browser, tags and character
  references as written, shown preformatted. libxml2 reads it as text too, but the HTML5 tree builder's
  serialisation, read again by libxml2, does not round-trip it (the formatting tags it reopens end up in
  the text, escaped), and the page written out would show its characters escaped. So that text is
  escaped before the parse, in a ``<pre>`` (drawn as ``<plaintext>`` is). Inside SVG or MathML a
  browser's ``<plaintext>`` is an element like any other, its content markup: there the tag is renamed
  while the page is parsed, so libxml2 does not read what follows it as text.
* A start tag with more than :data:`MAX_ATTRIBUTES` attributes makes the page refused before it is
  parsed: the parsers' cost of a tag is the square of its attributes (80,000 on one ``<img>``: 19 s in
  libxml2). They are counted first, in one linear pass, as a tokenizer reads them (``core.tagscan``).
* Characters an XML tree cannot hold (C0 controls other than tab, newline and carriage return,
  U+FFFE/U+FFFF) are dropped before parsing, form feed becomes a space: browsers render none
  of them, and lxml refuses them in any text a filter sets later. In a tag name, or first in an unquoted
  attribute value, one becomes U+FFFD (HTML's tokenizer keeps it there; dropped, it could make a tag or a quote).
"""

from __future__ import annotations

import codecs
import re
import threading
from dataclasses import dataclass, field

import lxml.html
from lxml import etree
from lxml.html import HtmlElement

from pagesieve.core import dom, tagscan
from pagesieve.core.errors import InputError, UnparsableError
from pagesieve.engine import html5 as html5_markup
from pagesieve.engine import noscript

_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))
_BOM_OF = {"utf-16-le": codecs.BOM_UTF16_LE, "utf-16-be": codecs.BOM_UTF16_BE}
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
    """The Python codec for a charset label, or None for a label browsers do not know.

    Only the WHATWG Encoding Standard's encodings count: a page declaring ``utf-7`` (an old XSS
    trick), ``base64`` or any other codec Python happens to have is read as if it declared
    nothing. Labels map as the standard maps them (latin-1 and ascii to windows-1252, …)."""
    if not label:
        return None
    key = label.strip().strip("\"'").lower()
    if key in _WHATWG_EXTRA_LABELS:
        return _WHATWG_EXTRA_LABELS[key]
    try:
        name = codecs.lookup(key).name
    except LookupError:
        return None
    return _WHATWG_CODECS.get(name)


#: Python codec name → the codec to read a WHATWG encoding with (its "decoder" in the standard).
_WHATWG_CODECS = {n: n for n in (
    "utf-8", "cp866", "iso8859-2", "iso8859-3", "iso8859-4", "iso8859-5", "iso8859-6", "iso8859-7", "iso8859-8",
    "iso8859-10", "iso8859-13", "iso8859-14", "iso8859-15", "iso8859-16", "koi8-r", "koi8-u", "mac-roman",
    "cp1250", "cp1251", "cp1252", "cp1253", "cp1254", "cp1255", "cp1256", "cp1257", "cp1258", "gbk", "gb18030",
    "big5hkscs", "euc_jp", "iso2022_jp", "shift_jis", "cp932", "cp949", "utf-16-be", "utf-16-le")} | {
    "latin-1": "windows-1252", "iso8859-1": "windows-1252", "ascii": "windows-1252", "iso8859-9": "cp1254",
    "iso8859-11": "cp874", "tis-620": "cp874", "gb2312": "gbk", "big5": "big5hkscs", "euc_kr": "cp949",
    "utf-16": "utf-16-le"}
#: WHATWG labels Python's codec registry does not know.
_WHATWG_EXTRA_LABELS = {"windows-874": "cp874", "x-mac-cyrillic": "mac-cyrillic", "x-mac-ukrainian": "mac-cyrillic",
                        "windows-31j": "cp932", "x-sjis": "shift_jis", "unicode-1-1-utf-8": "utf-8",
                        "unicode11utf8": "utf-8", "unicode20utf8": "utf-8", "x-unicode20utf8": "utf-8",
                        "x-gbk": "gbk", "iso-8859-8-i": "iso8859-8", "csiso88598i": "iso8859-8",
                        "logical": "iso8859-8"}


def detect_encoding(data: bytes, declared_encoding: str | None = None) -> str:
    """The encoding of ``data`` (see the module doc for the precedence)."""
    return _detect(data, declared_encoding)[0]


def _detect(data: bytes, declared_encoding: str | None) -> tuple[str, str | None]:
    """(the encoding of ``data``, its text when deciding took decoding it in that encoding, else
    None): the trial decode that settles the encoding is the page's text, not done twice."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name, None
    enc = _normalise(declared_encoding)
    if enc is None:
        m = _META_CHARSET.search(data[:SNIFF_BYTES])
        if m:
            enc = _normalise(m.group(1).decode("ascii", "replace"))
            if enc and enc.startswith("utf-16"):
                enc = None  # bytes that reached here have no UTF-16 BOM: the label is wrong
    if enc == "utf-8":
        return enc, None
    if enc is not None:
        text = _decoded(data, enc)
        if text is None:
            utf8 = _decoded(data, "utf-8")
            if utf8 is not None:
                return "utf-8", utf8  # mislabelled: the declared charset fails, the bytes are clean UTF-8
        return enc, text
    utf8 = _decoded(data, "utf-8")
    return ("utf-8", utf8) if utf8 is not None else ("windows-1252", None)


def _decoded(data: bytes, encoding: str) -> str | None:
    """``data`` decoded in ``encoding``, or None when it does not decode (a multi-byte sequence cut
    off by the end of the data does not count as an error: it becomes U+FFFD, as the page's text)."""
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as err:
        if err.start >= len(data) - 3 and err.reason in ("unexpected end of data", "incomplete multibyte sequence"):
            return data.decode(encoding, errors="replace")
        return None
    except LookupError:
        return None


def parse(data: bytes, *, url: str | None = None, declared_encoding: str | None = None,
          declared_html: bool = False) -> Page:
    """Parse HTML bytes into a :class:`Page`. Broken HTML is repaired as browsers repair it.

    Raises :class:`InputError` for empty or binary input, :class:`UnparsableError` for a page
    that cannot be parsed without losing part of it. ``declared_html``: the server said
    ``text/html``, so the bytes are HTML whatever they hold (a browser renders a page with NUL
    bytes in it; they are dropped like the other characters a tree cannot hold), and only empty
    input is refused.
    """
    if not data or not data.strip():
        raise InputError("input is empty")
    reason = None if declared_html else looks_binary(data)
    if reason:
        raise InputError(f"input is not HTML: {reason}")
    encoding, text = _detect(data, declared_encoding)
    text = clean_text(_plaintext_as_text(text if text is not None else data.decode(encoding, errors="replace")))
    if text.startswith("\ufeff"):
        text = text[1:]
    # Parsing text (not bytes) makes the decision above the only one: libxml2 would
    # otherwise apply its own guess from <meta>. XML declarations are not allowed in str input.
    text = _XML_DECL.sub("", text, count=1)
    text = _close_runaway_title(text)
    refuse_long_tags(text)
    text, hollowed = noscript.hollow(text, noscript.broken_regions(text))
    root = _parse_text(text)
    if not hollowed and noscript.end_dropped(_parser().error_log):
        text, hollowed = noscript.hollow(text, noscript.closed_regions(text))
        root = _parse_text(text)
    if (html5_markup.dropped_end_tag(_parser().error_log) or _AFTER_HTML.search(text) or tagscan.self_closed_html(text)
            or html5_markup.misread_foreign(root) or _bodiless(root)):
        if not hollowed:  # lexbor parses without scripting: a <noscript>'s content is markup to it
            text, hollowed = noscript.hollow(text, noscript.closed_regions(text))
        html5 = html5_markup.serialize(text)
        refuse_long_tags(html5)  # the tree lexbor built, as libxml2 will read it
        root = _parse_text(html5)
        html5_markup.restore(root)
    noscript.fill(root, hollowed, _parse_text)
    for el in root.iter(FOREIGN_PLAINTEXT):
        el.tag = "plaintext"
    _close_voids(root)
    body = root.find("body")
    if body is None:
        body = etree.SubElement(root, "body")  # the tree now has a body, as browsers would give it
    _head_breakout(root, body)
    _after_body_into_body(body)
    _merge_body_attributes(root, text)
    return Page(root=root, encoding=encoding, url=url)


#: The most attributes one start tag may carry; a page with a longer tag is refused before it is parsed
#: (:class:`UnparsableError`: the proxy serves it as sent, with the fail-safe script policy). The
#: parsers' work on a tag grows with the square of its attributes, so this bounds the parse of a page
#: of n bytes at about n · MAX_ATTRIBUTES / 16 attribute comparisons (1 MB of tags just under it: 0.24 s
#: in libxml2, against 0.10 s at 100). The most on any page of the six extraction corpora (1,121
#: pages) is 185 (a ``class`` written without quotes, each word an attribute); 1,000 leaves five times
#: that. Not an operator setting: it protects the worker, like libxml2's own depth limit, and no page
#: needs more; a larger value only lets one page cost more, quadratically.
MAX_ATTRIBUTES = 1000


def refuse_long_tags(text: str) -> None:
    """Raise :class:`UnparsableError` when a start tag of ``text`` has more than
    :data:`MAX_ATTRIBUTES` attributes (one linear scan, :func:`pagesieve.core.tagscan.most_attributes`)."""
    count, at = tagscan.most_attributes(text)
    if count > MAX_ATTRIBUTES:
        raise UnparsableError(f"the page cannot be parsed in bounded time: a tag with {count} attributes "
                              f"(more than {MAX_ATTRIBUTES}) at character {at}")


def clean_text(text: str) -> str:
    """``text`` without the characters an XML tree cannot hold (see the module doc), also when
    a numeric character reference (``&#1;``, ``&#xFFFF;``) would put one in the tree."""
    if any(c in text for c in _XML_UNSAFE_CHARS):  # 31 substring scans: twice as fast as one character class
        # A browser keeps such a character in a tag name (``</scr\x01ipt>`` ends no script), first in an unquoted
        # value (``alt=\x15"`` opens no quote): U+FFFD there, not nothing.
        text = _UNSAFE_IN_TAG.sub(lambda m: m.group(0).translate(_UNSAFE_TO_FFFD), text)
        text = _UNSAFE_VALUE_START.sub(lambda m: m.group(1) + m.group(2).translate(_UNSAFE_TO_FFFD), text)
        # Else dropped; but as text it keeps a later <frameset> from replacing the body: then U+FFFD too.
        text = text.translate(_FRAMESET_UNSAFE if _FRAMESET.search(text) else _XML_UNSAFE)
    # Each distinct reference judged once (pages repeat &#8217;), the text rewritten only when one must change.
    if "&#" in text and any(_replacement(digits) is not None for digits in set(_CHAR_REF.findall(text))):
        text = _CHAR_REF.sub(lambda m: _replacement(m.group(1)) or m.group(0), text)
    return text


def _replacement(digits: str) -> str | None:
    """What a numeric character reference with these digits (``x1F``, ``31``) is written as; None: as it is."""
    try:
        code = int(digits[1:], 16) if digits[0] in "xX" else int(digits)
    except ValueError:
        return None
    if code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        return "\ufffd"  # as HTML5 replaces them
    if code in _XML_UNSAFE:  # never "": dropping it could join "&" and "#..." into a new reference
        return _XML_UNSAFE[code] or "\ufffd"
    return None


def _parse_text(text: str) -> HtmlElement:
    parser = _parser()
    try:
        root = lxml.html.document_fromstring(text, parser=parser)
    except (etree.ParserError, ValueError) as err:
        raise InputError(f"input cannot be parsed as HTML: {err}") from err
    if root is None:
        raise InputError("input cannot be parsed as HTML: no document")
    for entry in parser.error_log:
        if entry.type == etree.ErrorTypes.ERR_RESOURCE_LIMIT or "Excessive depth" in entry.message:
            raise UnparsableError(f"the page cannot be parsed faithfully: {entry.message.strip()} "
                                  f"(line {entry.line})")
    return root


#: Text or a start tag after the first ``</html>`` (pages saved as several documents one after another,
#: a stray end tag inside a paragraph; comments, doctypes and "<?...>" between count for nothing): HTML5 puts it in
#: the body, libxml2 drops everything that follows. A "<" that starts no markup (not a letter, "/", "!" or "?"
#: after it: "< ", "<&") is text to a browser.
_AFTER_HTML = re.compile(r"</html\s*>(?:\s|</[^>]*>|<!--.*?-->|<![^>-][^>]*>|<\?[^>]*>)*(?:[^\s<]|<(?![/!?]))",
                         re.I | re.S)

#: HTML5's void elements that libxml2's HTML4 tables do not know as empty: it makes what follows them
#: their content (``<embed><p>b</p>`` puts the paragraph inside the embed, and removing the embed
#: would take it along). ``image`` is read as ``img`` by browsers, but in SVG content it is SVG's picture.
LATE_VOIDS = ("bgsound", "embed", "image", "keygen", "source", "track", "wbr")


#: What a ``plaintext`` tag in SVG or MathML content is called while the page is parsed (libxml2 would read
#: what follows it as text); named back after the parse.
FOREIGN_PLAINTEXT = "pagesieve-plaintext"
_PLAINTEXT = re.compile(r"<plaintext", re.I | re.A)
#: Characters of text that markup would read otherwise (``&`` too: a browser decodes no character reference
#: after ``<plaintext>``).
_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})


def _plaintext_as_text(text: str) -> str:
    """``text`` with what follows its first ``<plaintext>`` (in HTML content) written as the text a browser
    shows it as, in a ``<pre>`` (drawn as ``<plaintext>`` is), and each ``plaintext`` tag in SVG or MathML
    content renamed (:data:`FOREIGN_PLAINTEXT`): libxml2 reads what follows any ``<plaintext>`` as text,
    and the HTML5 tree builder's serialisation, read again by libxml2, puts formatting tags it reopens in
    that text (``<b><plaintext>`` becomes ``<plaintext><b>…``), so neither reads it as a browser does."""
    if _PLAINTEXT.search(text) is None:
        return text
    foreign, html = tagscan.plaintext_tags(text)
    parts, pos = [], 0
    for start, end in foreign:
        parts += [text[pos:start], FOREIGN_PLAINTEXT]
        pos = end
    if html is not None:
        start, end, content = html
        rest = text[content:]
        if rest.startswith(("\n", "\r")):
            rest = "\n" + rest  # a <pre> drops the line break right after its start tag, <plaintext> keeps it
        parts += [text[pos:start], "pre", text[end:content], rest.translate(_ESCAPES)]
        pos = len(text)
    parts.append(text[pos:])
    return "".join(parts)


def _bodiless(root: HtmlElement) -> bool:
    """Whether libxml2's tree has nothing in its body: it ended the document early (an ``<html>`` tag
    whose quoted attribute runs over ``>`` and ``<`` and ends in ``/>``, which the pattern above cannot
    see) or the page has no body at all. Either way the HTML5 tree builder's reading is the browser's,
    and it costs little on a page this empty."""
    body = root.find("body")
    return body is None or (len(body) == 0 and not (body.text or "").strip())


def _close_voids(root: HtmlElement) -> None:
    """Give back what libxml2 put inside an HTML5 void element (:data:`LATE_VOIDS`): its text and
    children follow it, as siblings, where a browser has them."""
    for el in list(root.iter(*LATE_VOIDS)):
        if el.tag != "embed" and html5_markup.in_foreign_content(el):
            continue  # an SVG <image> (a picture), a foreign <source>: elements, not HTML's voids
        if el.tag == "image":
            el.tag = "img"
        if len(el) == 0 and not el.text:
            continue
        parent = el.getparent()
        if parent is None:
            continue
        at = parent.index(el) + 1
        moved = list(el)
        text, after = el.text, el.tail
        el.text = None
        for offset, child in enumerate(moved):
            parent.insert(at + offset, child)  # its tail moves with it
        if moved:
            el.tail = text
            moved[-1].tail = (moved[-1].tail or "") + (after or "") or None
        else:
            el.tail = (text or "") + (after or "") or None


#: What a browser keeps in ``<head>``; anything else there (a custom or mangled element) closes the head,
#: and it and everything after it go to the body.
HEAD_TAGS = frozenset({"base", "basefont", "bgsound", "link", "meta", "title", "noscript", "noframes", "style",
                       "script", "template"})


def _head_breakout(root: HtmlElement, body: HtmlElement) -> None:
    """Move what libxml2 kept in ``<head>`` but a browser shows in the body (an element it does not know,
    ``<my-widget>`` or a tag mangled into ``<met<meta``, and what follows it) to the start of the body."""
    head = root.find("head")
    if head is None:
        return
    start = next((i for i, el in enumerate(head) if isinstance(el.tag, str) and el.tag not in HEAD_TAGS), None)
    if start is None:
        return
    for offset, el in enumerate(list(head)[start:]):
        body.insert(offset, el)


def _after_body_into_body(body: HtmlElement) -> None:
    """What libxml2 leaves after ``</body>`` (elements and text: a stray end tag, scripts and
    banners pages add at the end) goes into the body, as a browser puts it. A comment there stays
    (a browser keeps one after ``</body>`` outside the body too), but the text after it goes into the
    body: libxml2 makes it the comment's tail (``</body><!-- x -->text``, or a ``<?...>`` it reads as
    a comment), where no one shows it."""
    if body.tail is not None and body.tail.strip():
        text, body.tail = body.tail, None
        _append_text(body, text)
    for sib in list(body.itersiblings()):
        if isinstance(sib.tag, str):
            body.append(sib)
        elif sib.tail is not None and sib.tail.strip():
            text, sib.tail = sib.tail, None
            _append_text(body, text)


def _append_text(parent: HtmlElement, text: str) -> None:
    """Add ``text`` at the end of ``parent``'s content (after its last child, or as its text)."""
    if len(parent):
        parent[-1].tail = (parent[-1].tail or "") + text
    else:
        parent.text = (parent.text or "") + text


_TITLE_OPEN = re.compile(r"<title\b[^>]*>", re.I)
_TITLE_CLOSE = re.compile(r"</title\s*>", re.I)
_PAGE_MARKUP = re.compile(r"</head\s*>|<(?:body|div|p|table)\b", re.I)


def _close_runaway_title(text: str) -> str:
    """``text`` with a never-closed ``<title>`` that swallowed the page's markup closed at the end
    of its first line, or before its first ``<`` (see the module doc); otherwise ``text`` as it is."""
    m = _TITLE_OPEN.search(text)
    if m is None or _TITLE_CLOSE.search(text, m.end()) or not _PAGE_MARKUP.search(text, m.end()):
        return text
    ends = [i for i in (text.find("\n", m.end()), text.find("<", m.end())) if i >= 0]
    cut = min(ends) if ends else len(text)
    return f"{text[:cut]}</title>{text[cut:]}"


def _parser() -> etree.HTMLParser:
    """This thread's parser (lxml parsers and their error logs are not shared across threads)."""
    parser = getattr(_LOCAL, "parser", None)
    if parser is None:
        parser = _LOCAL.parser = etree.HTMLParser(remove_comments=False, remove_pis=True,
                                                  default_doctype=False, huge_tree=True)
        # Every element an HtmlElement (text_content() etc.), chosen in C: lxml.html's own parser
        # asks a Python method per element for its tag-specific class (form controls), ~10% of a run.
        parser.set_element_class_lookup(_ELEMENT_CLASSES)
    return parser


_XML_DECL = re.compile(r"^\s*<\?xml[^>]*>", re.IGNORECASE)
_LOCAL = threading.local()
_ELEMENT_CLASSES = etree.ElementDefaultClassLookup(
    element=lxml.html.HtmlElement, comment=lxml.html.HtmlComment, pi=lxml.html.HtmlProcessingInstruction,
    entity=lxml.html.HtmlEntity)
#: C0 controls but tab, LF and CR; U+FFFE, U+FFFF: dropped. Form feed and vertical tab: a space.
_XML_UNSAFE = {c: None for c in (*range(0x00, 0x09), *range(0x0E, 0x20), 0xFFFE, 0xFFFF)} | {0x0B: " ", 0x0C: " "}
#: Numeric character references that the parser would turn into characters an XML tree refuses
#: (C0 controls but tab/LF/CR, U+FFFE/U+FFFF, NUL, surrogates, past U+10FFFF).
_CHAR_REF = re.compile(r"&#([xX][0-9a-fA-F]+|[0-9]+);?")
#: The characters of _XML_UNSAFE, each looked for with ``in`` (a 170 KiB page: 0.26 ms; a character class 0.48).
_XML_UNSAFE_CHARS = tuple(chr(c) for c in _XML_UNSAFE)
#: A tag name holding such a character (a tag name ends only at whitespace, ``/`` or ``>``); such characters
#: first in an unquoted attribute value.
_UNSAFE_IN_TAG = re.compile("</?[^\t\n\f\r />]*[\x00-\x08\x0b\x0e-\x1f\ufffe\uffff][^\t\n\f\r />]*")
_UNSAFE_VALUE_START = re.compile("(<[A-Za-z][^<>]*?=[\t\n\f\r ]*)([\x00-\x08\x0b\x0e-\x1f\ufffe\uffff]+)")
_FRAMESET = re.compile("<frameset", re.I)
_UNSAFE_TO_FFFD = {c: "\ufffd" for c in (*range(0x00, 0x09), 0x0B, *range(0x0E, 0x20), 0xFFFE, 0xFFFF)}
_FRAMESET_UNSAFE = {**_XML_UNSAFE, **_UNSAFE_TO_FFFD}  # a form feed stays a space

def _merge_body_attributes(root, text: str) -> None:
    """A second ``<body>`` start tag adds the attributes the body lacks (HTML parsing, "in body"
    insertion mode); libxml2 drops them, and with them the page's colours (``bgcolor``, ``text``,
    ``link``): the filtered page would be drawn in other colours than the original."""
    tags = _BODY_TAG.findall(text)
    if len(tags) < 2:
        return
    body = root.find("body")
    for tag in tags[1:]:
        markup = f"<span {tag}></span>"
        if tagscan.most_attributes(markup)[0] > MAX_ATTRIBUTES:  # the regex also finds "<body" in scripts
            continue
        try:
            probe = lxml.html.fragment_fromstring(markup)
        except (etree.ParserError, ValueError):
            continue
        for name, value in probe.attrib.items():
            try:
                if name not in body.attrib and not name.lower().startswith("on"):  # no handlers from a script's string
                    body.set(name, value)
            except ValueError:  # a name lxml cannot look up or set ("{class" from "<body{class=...>")
                continue


_BODY_TAG = re.compile(r"<body\b([^>]*)>", re.IGNORECASE)


def web_label(encoding: str) -> str:
    """The WHATWG label browsers know for a Python codec name (``cp1252`` → ``windows-1252``)."""
    name = encoding.lower().replace("_", "-")
    if name.startswith("cp") and name[2:].isdigit() and name[2:].startswith("12"):
        return "windows-" + name[2:]
    if name.startswith("iso8859-"):
        return "iso-8859-" + name[8:]
    return _WEB_NAMES.get(name, name)


#: Python's names whose WHATWG label differs by more than case: a browser knows no "utf-16-be" and
#: reads a page so labelled in its default encoding, its markup as text.
_WEB_NAMES = {"utf-16-be": "utf-16be", "utf-16-le": "utf-16le"}


_CONTENT_TYPE = str.maketrans("CONTENT-TYPE", "content-type")  # XPath's translate(), as a str.translate table


def charset_metas(root: HtmlElement) -> list[HtmlElement]:
    """The <meta>s under ``root`` that declare the page's encoding, in document order: ``.//meta[@charset] |
    .//meta[translate(@http-equiv,'CONTENT-TYPE','content-type')='content-type']``, from its <meta>s alone."""
    return [meta for meta in root.iterdescendants("meta") if meta.get("charset") is not None
            or (meta.get("http-equiv") or "").translate(_CONTENT_TYPE) == "content-type"]


def declare_encoding(page: Page) -> None:
    """Make the page's ``<meta charset>`` state ``page.encoding`` (and only it)."""
    head = page.head
    for meta in charset_metas(page.root):  # in the body too: a browser reads the first one
        if meta.getparent() is head:
            head.remove(meta)  # with its tail: the line break ours gets again (serialize stays idempotent)
        else:
            dom.remove_keep_tail(meta)
    meta = dom.element("meta", {"charset": web_label(page.encoding)})
    meta.tail = "\n"
    head.insert(0, meta)


def serialize(page: Page, standards: bool = False) -> bytes:
    """The page as HTML bytes in ``page.encoding``, its doctype kept, the charset declared.

    A page sent without a doctype is drawn by browsers in quirks mode, and its layout counts on it (a
    line holding only a 1-pixel spacer image is 1 pixel high there, a text line high in standards
    mode: an old page's rule lines and spacers would open gaps of empty lines), so it goes out without
    one too; ``standards``: the page is drawn in a look of our own (the reading look), written for
    standards mode, which a missing doctype then declares."""
    declare_encoding(page)
    tree = page.root.getroottree()
    doctype = tree.docinfo.doctype or ("<!DOCTYPE html>" if standards else "")
    # etree's, not lxml.html's tostring: that one deletes every '<meta http-equiv="Content-Type"...>' from the
    # text it made, inside comments and <style> too, and with it the '-->' or '</style>' that came next (a page
    # could hide the rest of itself that way). declare_encoding removed the elements themselves.
    text = etree.tostring(page.root, encoding="unicode", method="html")
    data = ((doctype + "\n" if doctype else "") + text).encode(page.encoding, errors="xmlcharrefreplace")
    # A UTF-16 page came with its byte order mark (without one it is not read as UTF-16); it goes out with
    # it too: the mark decides a browser's reading before any label (a <meta> naming UTF-16 is read as
    # UTF-8), and Python's -be/-le codecs write none.
    return _BOM_OF.get(page.encoding, b"") + data
