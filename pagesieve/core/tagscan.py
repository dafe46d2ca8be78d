"""The most attributes on one start tag of a page, counted before the page is parsed.

libxml2's HTML parser (and lexbor's, which reads pages the HTML5 way) checks each attribute of a
tag against every earlier one: the work grows with the square of a tag's attributes (an ``<img>``
with 80,000 attributes, 709 KB, kept libxml2 busy for 19 s and lexbor for 28 s). Counting them
first, in one linear pass, lets the page be refused before that work starts
(:func:`pagesieve.engine.document.parse`).

The count follows HTML's tokenizer (WHATWG HTML §13.2.5): a ``>`` inside a quoted value ends no
tag, ``/`` between attributes and attributes without values count, duplicates count (the parser
compares them all the same); comments (``<!-- -->``, ``--!>``, ``<!-->``), doctypes, ``<?...>`` and
other bogus comments hold no tags; the content of ``script`` (with its ``<!--``/``<script>``
escapes), ``style``, ``xmp``, ``iframe``, ``noembed``, ``noframes``, ``title`` and ``textarea`` is
text up to its own end tag, and everything after ``<plaintext>`` is text. End tags are read
through (their quoted values hide a ``>`` too) but their attributes are not counted (both parsers
drop them without comparing); a tag cut off by the end of the page is no tag. ``<noscript>``'s
content is counted as markup: libxml2 and lexbor (scripting off) both parse it so.

Two readings are counted, on some pages three, and the largest is the answer. libxml2
(:data:`LIBXML2`) reads every page without SVG or MathML and without the tree builder's insertion
modes: the raw-text elements above are raw text wherever they are. A browser, and lexbor when a page
is read again the HTML5 way (:data:`BROWSER`), reads ``<style>`` or ``<script>`` inside
``<svg>``/``<math>`` as markup and ``<![CDATA[...]]>`` there as text; the second reading (run only
when the first met an ``<svg>`` or ``<math>`` start tag: before one the two are the same) keeps a
depth of open ``svg``/``math`` start tags, less their end tags, and honours the raw-text elements only
at depth 0 (it starts at that first tag: before it, it is the first reading).

A browser's tree builder also ignores some start tags in some insertion modes (WHATWG HTML §13.2.6.4),
and a raw-text start tag it ignores leaves its tokenizer reading markup:

* in a frameset (the "in frameset", "after frameset" and "after after frameset" modes) every start tag
  but ``frameset``, ``frame`` and ``noframes`` is ignored: only ``<noframes>`` is raw text there, and
  ``<svg>``/``<math>`` open nothing. lexbor follows it: a ``<frameset><style>`` then a tag of 20,000
  attributes cost it 1.2 s (libxml2, reading the style's text, nothing).
* before the standard relaxed the parsing of ``<select>`` (lexbor follows the relaxed rules, where
  a select's content is read as any other; older browsers the old ones), the "in select" mode
  ignored every start tag but ``option``, ``optgroup``, ``hr``, ``select``, ``input``, ``keygen``,
  ``textarea``, ``script`` and ``template``: among them ``style``, ``title``, ``xmp``, ``iframe``,
  ``noembed``, ``noframes``, ``plaintext``, ``svg`` and ``math`` (:data:`IGNORED_IN_SELECT`).
  ``<script>`` stays raw text, and ``<textarea>`` closes the select before it is read as RCDATA.
  Elsewhere (in a table, a head, a template, after the body) each raw-text start tag is honoured.

The third reading (:data:`MODES`) is the browser's with these modes. A ``<frameset>`` start tag, outside a
``<template>`` (where lexbor ignores it), puts it in a frameset for the rest of the page. A ``<select>``
start tag at depth 0 opens a select, closed by ``</select>``, a second ``<select>``, an ``<input>``,
``<keygen>`` or ``<textarea>`` (:data:`CLOSE_SELECT`); in it, outside the ``<template>`` elements
opened in it, the tags above are ignored. It is run, from the start of the page, only when one of the other
readings met a ``<frameset>`` start tag or, in a select they saw open the same way, a tag it ignores
(or a ``<template>``): until then the modes' reading is the browser's. None of the 181 pages of the
scrapinghub corpus needs it. It is wider than a browser in two ways, which make it read more as
markup: it takes every such ``<frameset>`` (a browser only one met before the page's first text,
image or table, and inside SVG or MathML only after a tag that leaves them), and keeps a select open
at a table's tags (the old "in select in table" mode closed it). What no reading follows — a ``<frameset>`` a browser
ignores, then raw text hiding a later one it honours; the tree builder's way out of foreign content
before ``</svg>`` — can still hide a long tag from the count, and such a page is then bounded by the
worker's time limit, as every page was before.

Beside the count, the same reading answers what the parse needs to know before it starts: where each
``<noscript>``'s content ends for a browser (:func:`noscript_regions`), whether a piece of markup ends
inside a tag, comment or raw-text element (:func:`ends_open`), and where ``<plaintext>`` makes the rest
of the page text (:func:`plaintext_tags`); these are Python only.

Two implementations give the same answer: :func:`py_scan` here (string searches and
backtracking-free regular expressions, linear), and the compiled one in
:mod:`pagesieve.core._tagscan` (one pass in C, about 25 times faster), used where it is built
(see :mod:`pagesieve.core.measure`).
"""

from __future__ import annotations

import re

from pagesieve.core import measure
from pagesieve.core.foreign import BREAKOUT, INTEGRATION_POINTS, integration_point

#: Elements whose content is text up to their own end tag (RAWTEXT and RCDATA; ``script`` apart).
RAW_TEXT = ("style", "xmp", "iframe", "noembed", "noframes", "title", "textarea")
#: Elements whose start tag opens foreign content (SVG, MathML) in a browser.
FOREIGN = ("svg", "math")
#: The readings of a page (see the module doc): libxml2's, a browser's (and lexbor's), and a browser's
#: that follows the tree builder's frameset and (older) select modes.
LIBXML2, BROWSER, MODES = 0, 1, 2
#: Start tags that the tree builder's older "in select" mode ignores (WHATWG HTML §13.2.6.4.16 before
#: the select parser was relaxed): raw-text and RCDATA elements but ``script`` and ``textarea``, and
#: SVG, MathML and ``frameset``. What follows such a tag is markup there.
IGNORED_IN_SELECT = frozenset(("style", "xmp", "iframe", "noembed", "noframes", "title", "plaintext", "svg", "math",
                               "frameset"))
#: Start tags that close an open ``<select>`` in that mode (a second ``<select>`` too).
CLOSE_SELECT = frozenset(("select", "input", "keygen", "textarea"))
#: Every tag name a reading acts on.
_WATCHED = frozenset((*RAW_TEXT, *FOREIGN, *CLOSE_SELECT, "script", "plaintext", "frameset", "template"))

_SPACE = "\t\n\f\r "
_ASCII_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_SPACES = re.compile(r"[\t\n\f\r ]*")
_TAG_NAME = re.compile(r"[^\t\n\f\r />]*")
_ATTR_NAME = re.compile(r"[^\t\n\f\r />=]*")
_UNQUOTED = re.compile(r"[^\t\n\f\r >]*")
#: The end tag of each raw-text element: its name (ASCII letters in any case) then a space, / or >.
_RAW_END = {name: re.compile(rf"</{name}(?=[\t\n\f\r />])", re.I | re.A) for name in (*RAW_TEXT, "script")}
#: What changes the state inside a script (WHATWG HTML §13.2.5.15-13.2.5.31, script data and its
#: escaped and double-escaped states): ``<!--``, ``-->``, ``</script`` and ``<script`` (then a space, / or >).
_SCRIPT_TOKEN = re.compile(r"<!--|-->|<(/?)script(?=[\t\n\f\r />])", re.I | re.A)

# The attribute states of a tag (WHATWG HTML §13.2.5.32-13.2.5.40).
_BEFORE_NAME, _AFTER_NAME, _BEFORE_VALUE, _AFTER_QUOTED, _SELF_CLOSING = range(5)


class _Reading:
    """Where one reading of :func:`py_scan` stands in the tree builder's modes (the compiled scan keeps
    the same fields in a C struct)."""

    __slots__ = ("reading", "depth", "saw", "event", "select", "select_templates", "templates", "frameset")

    def __init__(self, reading: int) -> None:
        self.reading = reading
        self.depth = 0  # open <svg>/<math> start tags less their end tags (the browser's readings)
        self.saw = -1  # the first start tag that opens SVG or MathML
        self.event = -1  # the first tag after which the insertion modes' reading may differ from this one
        self.select = False  # a <select> is open (at depth 0)
        self.select_templates = 0  # <template>s opened since, not yet closed (MODES)
        self.templates = 0  # <template>s open (at depth 0; MODES)
        self.frameset = False  # in frameset (MODES): every raw-text start tag but <noframes> is ignored

    def start_tag(self, text: str, name: str, i: int, end: int, self_closing: bool, n: int) -> int:
        """After the start tag ``name`` (its ``<`` at ``i``, its ``>`` before ``end``): where markup
        starts again (see :func:`_raw_text_end`), the modes brought up to date."""
        modes = self.reading == MODES
        if self.frameset:
            return _raw_text_end(text, name, end, n) if name == "noframes" else end
        if self.select and self.depth == 0:
            if name in IGNORED_IN_SELECT or name == "template":
                if not modes:
                    self.event = i if self.event < 0 else self.event
                elif name == "template":
                    self.templates += 1
                    self.select_templates += 1
                    return end
                elif not self.select_templates:
                    return end  # ignored: what follows is markup
            elif name in CLOSE_SELECT and not self.select_templates:
                self.select = False
                if name == "select":
                    return end
        elif name == "select" and self.depth == 0:
            self.select, self.select_templates = True, 0
            return end
        if name == "frameset":
            if not modes:
                self.event = i if self.event < 0 else self.event
            elif not self.templates:
                self.frameset, self.depth = True, 0
            return end
        if name == "template":
            self.templates += modes and self.depth == 0
            return end
        if name in FOREIGN:
            if self.saw < 0:
                self.saw = i
            if self.reading and not self_closing:
                self.depth += 1
            return end
        return _raw_text_end(text, name, end, n) if self.depth == 0 else end

    def end_tag(self, name: str) -> None:
        """The end tag ``name``: an open ``<svg>``/``<math>``, ``<select>`` or ``<template>`` closes."""
        if self.depth:
            self.depth -= name in FOREIGN
        elif name == "select":
            self.select = self.select and self.select_templates > 0
        elif name == "template" and self.templates:
            self.templates -= 1
            if self.select_templates:
                self.select_templates -= 1
            else:
                self.select = False  # the <select> was opened inside that template


def py_scan(text: str, reading: int, start: int = 0) -> tuple[int, int, int, int]:
    """(most attributes on one start tag, the offset of its ``<`` (the first such tag; -1 when no
    tag has one), the offset of the first start tag that opens SVG or MathML or -1, the offset of the
    first tag after which the :data:`MODES` reading may differ from this one or -1) for one reading
    of ``text`` from ``start`` (where the data state is, no element open): :data:`LIBXML2`,
    :data:`BROWSER` or :data:`MODES` (see the module doc)."""
    n = len(text)
    best, at = 0, -1
    state = _Reading(reading)
    no_close_from = n + 1  # no "-->" at or after this offset (a search that failed is not repeated)
    i = start
    while True:
        i = text.find("<", i)
        if i < 0 or i + 1 >= n:
            break
        c = text[i + 1]
        if c in _ASCII_LETTERS:  # a start tag
            j = _past(_TAG_NAME, text, i + 2)
            end, count, self_closing = _tag(text, j, n, _AFTER_QUOTED)
            if end < 0:
                break
            if count > best:
                best, at = count, i
            name = _name(text, i + 1, j)
            if name in _WATCHED:
                end = state.start_tag(text, name, i, end, self_closing, n)
                if end < 0:
                    break
            i = end
        elif c == "/":
            if i + 2 >= n:
                break
            if text[i + 2] in _ASCII_LETTERS:  # an end tag: read through, not counted
                j = _past(_TAG_NAME, text, i + 3)
                end = _tag(text, j, n, _AFTER_QUOTED)[0]
                if end < 0:
                    break
                if state.depth or state.select or state.templates:
                    state.end_tag(_name(text, i + 2, j))
                i = end
            elif text[i + 2] == ">":
                i += 3
            else:  # a bogus comment, to the next >
                i = text.find(">", i + 2)
                if i < 0:
                    break
                i += 1
        elif c == "!":
            i, no_close_from = _declaration_end(text, i, n, state.depth > 0, no_close_from)
            if i < 0:
                break
        elif c == "?":
            i = text.find(">", i + 2)
            if i < 0:
                break
            i += 1
        else:
            i += 1
    return best, at, state.saw, state.event


#: The end of a ``<noscript>``'s content as a browser with scripting on reads it (raw text): ``</noscript``
#: then a space, / or >.
_NOSCRIPT_END = re.compile(r"</noscript(?=[\t\n\f\r />])", re.I | re.A)


def noscript_regions(text: str) -> list[tuple[int, int, int]]:
    """Each ``<noscript>`` of ``text`` as a browser with scripting on reads it: (the offset of its start
    tag's ``<``, where its content starts, where its content ends: at the first ``</noscript`` after it,
    or the end of the page). Its content is raw text, so a ``<noscript>`` inside it opens nothing. The
    rest is read as :func:`py_scan` reads it (libxml2's reading: comments, raw-text elements and
    ``<plaintext>`` hold no tags)."""
    n = len(text)
    found: list[tuple[int, int, int]] = []
    i, no_close_from = 0, n + 1
    while True:
        i = text.find("<", i)
        if i < 0 or i + 1 >= n:
            return found
        c = text[i + 1]
        if c in _ASCII_LETTERS:
            j = _past(_TAG_NAME, text, i + 2)
            end = _tag(text, j, n, _AFTER_QUOTED)[0]
            if end < 0:
                return found
            name = _name(text, i + 1, j)
            if name == "noscript":
                m = _NOSCRIPT_END.search(text, end)
                found.append((i, end, m.start() if m else n))
                end = _tag(text, m.end(), n, _AFTER_QUOTED)[0] if m else -1
            elif name:
                end = _raw_text_end(text, name, end, n)
            if end < 0:
                return found
            i = end
        elif c == "/" or c == "?":
            if c == "/" and i + 2 < n and text[i + 2] in _ASCII_LETTERS:
                end = _tag(text, _past(_TAG_NAME, text, i + 3), n, _AFTER_QUOTED)[0]
            elif c == "/" and text.startswith(">", i + 2):
                end = i + 3
            else:  # a bogus comment or "<?...>", to the next >
                end = text.find(">", i + 2)
                end = end + 1 if end >= 0 else -1
            if end < 0:
                return found
            i = end
        elif c == "!":
            i, no_close_from = _declaration_end(text, i, n, False, no_close_from)
            if i < 0:
                return found
        else:
            i += 1


_HTML_START = re.compile(r"<html(?=[\t\n\f\r />])", re.I | re.A)


def self_closed_html(text: str) -> bool:
    """Whether an ``<html>`` start tag of ``text`` ends in ``/>`` as a tokenizer reads it (a quoted value
    runs to its closing quote, over any ``>``; a ``<`` is part of an attribute's name): libxml2 then
    closes the document's root there and drops all that follows, where a browser ignores the slash.
    One pass: a tag's scan resumes after its end, so text inside a tag is never read as another."""
    n, i = len(text), 0
    while (m := _HTML_START.search(text, i)) is not None:
        end, _, closed = _tag(text, m.end(), n, _BEFORE_NAME)
        if closed:
            return True
        if end < 0:
            return False
        i = end
    return False


def ends_open(text: str) -> bool:
    """Whether ``text``, read as markup from the data state (libxml2's reading, as :func:`py_scan`'s
    first), ends inside something that would take in what follows it: a tag (a quoted value left open,
    ``<td id="x>…``, or a tag cut off, ``</table``), a comment, a raw-text element, or after
    ``<plaintext>``. So does a ``<`` at the very end, or one that starts a tag or a comment cut off there
    (``</`` then ``</noscript>`` is a bogus comment that runs over the end tag)."""
    n = len(text)
    i, no_close_from = 0, n + 1
    while True:
        i = text.find("<", i)
        if i < 0:
            return False
        if i + 1 >= n:
            return True
        c = text[i + 1]
        if i + 2 >= n:
            return c in _ASCII_LETTERS or c in "/!?"
        is_end = c == "/" and text[i + 2] in _ASCII_LETTERS
        if c in _ASCII_LETTERS or is_end:
            j = _past(_TAG_NAME, text, i + 2 + is_end)
            end = _tag(text, j, n, _AFTER_QUOTED)[0]
            name = "" if is_end or end < 0 else _name(text, i + 1, j)
            if name == "plaintext":
                return True
            if name:
                end = _raw_text_end(text, name, end, n)
            if end < 0:
                return True
            i = end
        elif c == "!":
            i, no_close_from = _declaration_end(text, i, n, False, no_close_from)
            if i < 0:
                return True
        elif c == "/" or c == "?":
            i = i + 3 if text.startswith("/>", i + 1) else text.find(">", i + 2) + 1
            if i <= 0:
                return True
        else:
            i += 1


def plaintext_tags(text: str) -> tuple[list[tuple[int, int]], tuple[int, int, int] | None]:
    """The ``plaintext`` tags of ``text`` as a browser with scripting on reads them: (the name (its start
    and end offsets) of each start or end tag ``plaintext`` in SVG or MathML content, where it is an
    element like any other and what follows it markup; the first ``<plaintext>`` start tag in HTML
    content, after which everything is text to a browser: (the offset of its name, of the name's end
    and after its ``>``), or None). Read as :func:`noscript_regions` reads (a ``<noscript>``'s content is
    text), with the depth of open ``<svg>``/``<math>`` start tags that :func:`py_scan`'s browser
    reading keeps, and the tree builder's way out of foreign content at an HTML tag (``<p>``, ``<div>``…,
    :data:`BREAKOUT`) outside an HTML integration point (an SVG ``<foreignObject>`` or ``<title>``, a MathML
    ``<mi>``…, :func:`integration_point`, inside which a tag is read as in HTML). The foreign content is
    the outermost ``<svg>`` or ``<math>``'s (a ``<svg>`` in MathML's ``annotation-xml`` is not followed)."""
    n = len(text)
    foreign: list[tuple[int, int]] = []
    i, depth, point, no_close_from = 0, 0, 0, n + 1
    space = ""  # the foreign content open: "svg" or "math"
    while True:
        i = text.find("<", i)
        if i < 0 or i + 1 >= n:
            return foreign, None
        c = text[i + 1]
        if c in _ASCII_LETTERS:
            j = _past(_TAG_NAME, text, i + 2)
            end, _count, self_closing = _tag(text, j, n, _AFTER_QUOTED)
            if end < 0:
                return foreign, None
            name = _name(text, i + 1, j)
            full = text[i + 1:j].lower() if depth else name
            if depth and not point and full in BREAKOUT:
                depth = 0  # the tree builder leaves foreign content: this tag and what follows are HTML
            html = not depth or point  # whether this tag is read as HTML
            if not html and not self_closing and integration_point(space, full, text[i:end]):
                point = 1  # (one level: an integration point inside one is read as HTML, not followed)
            if name in FOREIGN:
                if not depth:
                    space = name
                depth += not self_closing
            elif name == "plaintext":
                if html:
                    return foreign, (i + 1, j, end)
                foreign.append((i + 1, j))
            elif html and name == "noscript":
                m = _NOSCRIPT_END.search(text, end)
                end = _tag(text, m.end(), n, _AFTER_QUOTED)[0] if m else -1
            elif html and name:
                end = _raw_text_end(text, name, end, n)
            if end < 0:
                return foreign, None
            i = end
        elif c == "/" and i + 2 < n and text[i + 2] in _ASCII_LETTERS:
            j = _past(_TAG_NAME, text, i + 3)
            end = _tag(text, j, n, _AFTER_QUOTED)[0]
            if end < 0:
                return foreign, None
            name = _name(text, i + 2, j)
            if point and text[i + 2:j].lower() in INTEGRATION_POINTS[space]:
                point = 0
            elif depth and not point and name in ("p", "br"):
                depth = 0  # </p> and </br> leave foreign content too
            elif depth and name in FOREIGN:
                depth -= 1
            elif depth and not point and name == "plaintext":
                foreign.append((i + 2, j))
            i = end
        elif c == "!":
            i, no_close_from = _declaration_end(text, i, n, depth > 0, no_close_from)
            if i < 0:
                return foreign, None
        elif c == "/" or c == "?":
            i = 3 + i if text.startswith(">", i + 2) and c == "/" else text.find(">", i + 2) + 1
            if i <= 0:
                return foreign, None
        else:
            i += 1


def _declaration_end(text: str, i: int, n: int, foreign: bool, no_close_from: int) -> tuple[int, int]:
    """After the ``<!`` at ``i`` (a comment, CDATA in foreign content, a doctype or a bogus comment):
    (the offset after it, or -1 when the text ends inside it; ``no_close_from`` updated)."""
    if text.startswith("--", i + 2):
        p = i + 4
        if text.startswith(">", p):
            return p + 1, no_close_from
        if text.startswith("->", p):
            return p + 2, no_close_from
        close = text.find("-->", p) if p < no_close_from else -1
        if close < 0:
            no_close_from = min(no_close_from, p)
        bang = text.find("--!>", p, close + 3 if close >= 0 else n)
        if bang >= 0:
            return bang + 4, no_close_from
        return (close + 3 if close >= 0 else -1), no_close_from
    if foreign and text.startswith("[CDATA[", i + 2):
        end = text.find("]]>", i + 9)
        return (end + 3 if end >= 0 else -1), no_close_from
    end = text.find(">", i + 2)  # a doctype or a bogus comment: both end at the next >
    return (end + 1 if end >= 0 else -1), no_close_from


def _past(pattern: re.Pattern, text: str, i: int) -> int:
    """The offset after what ``pattern`` (which matches the empty string too) matches at ``i``."""
    m = pattern.match(text, i)
    return m.end() if m else i


def _name(text: str, start: int, end: int) -> str:
    """The tag name at ``text[start:end]`` in lower case when it may be one the scan cares about
    (ASCII letters only, at most 9), else ""."""
    if end - start > 9:
        return ""
    name = text[start:end]
    return name.lower() if name.isascii() else ""


def _tag(text: str, i: int, n: int, state: int) -> tuple[int, int, bool]:
    """Read a tag's attributes from ``i`` (just after its name): (the offset after its ``>``, or -1
    when the page ends first; the attributes; whether it ended in ``/>``)."""
    count = 0
    while True:
        if state == _BEFORE_NAME:
            i = _past(_SPACES, text, i)
            if i >= n:
                return -1, count, False
            if text[i] in "/>":
                state = _AFTER_NAME
            else:
                count += 1
                i = _past(_ATTR_NAME, text, i + 1)
                state = _AFTER_NAME
        elif state == _AFTER_NAME:
            i = _past(_SPACES, text, i)
            if i >= n:
                return -1, count, False
            c = text[i]
            if c == "/":
                i, state = i + 1, _SELF_CLOSING
            elif c == "=":
                i, state = i + 1, _BEFORE_VALUE
            elif c == ">":
                return i + 1, count, False
            else:
                count += 1
                i = _past(_ATTR_NAME, text, i + 1)
        elif state == _BEFORE_VALUE:
            i = _past(_SPACES, text, i)
            if i >= n:
                return -1, count, False
            c = text[i]
            if c == '"' or c == "'":
                i = text.find(c, i + 1)
                if i < 0:
                    return -1, count, False
                i, state = i + 1, _AFTER_QUOTED
            elif c == ">":
                return i + 1, count, False
            else:
                i = _past(_UNQUOTED, text, i)
                if i >= n:
                    return -1, count, False
                if text[i] == ">":
                    return i + 1, count, False
                i, state = i + 1, _BEFORE_NAME
        elif state == _AFTER_QUOTED:
            if i >= n:
                return -1, count, False
            c = text[i]
            if c in _SPACE:
                i, state = i + 1, _BEFORE_NAME
            elif c == "/":
                i, state = i + 1, _SELF_CLOSING
            elif c == ">":
                return i + 1, count, False
            else:
                state = _BEFORE_NAME
        else:  # _SELF_CLOSING
            if i >= n:
                return -1, count, False
            if text[i] == ">":
                return i + 1, count, True
            state = _BEFORE_NAME


def _raw_text_end(text: str, name: str, i: int, n: int) -> int:
    """Where markup starts again after the start tag ``name`` ending at ``i``: after its end tag
    when it is a raw-text element, ``n`` after ``<plaintext>``, ``i`` for any other element; -1 when
    the page ends inside it."""
    if name == "plaintext":
        return n
    if name == "script":
        i = _script_end(text, i)
    elif name in _RAW_END:
        m = _RAW_END[name].search(text, i)
        i = m.end() if m else -1
    else:
        return i
    return -1 if i < 0 else _tag(text, i, n, _AFTER_QUOTED)[0]


def _script_end(text: str, i: int) -> int:
    """The offset just after ``</script`` that ends the script whose content starts at ``i``, or -1."""
    escaped = double = False
    while True:
        m = _SCRIPT_TOKEN.search(text, i)
        if m is None:
            return -1
        token = m.group(0)
        if token == "<!--":
            escaped = escaped or not double
            i = m.start() + 2  # its dashes may start "-->" (``<!-->``)
        elif token == "-->":
            escaped = double = False
            i = m.end()
        elif m.group(1):  # </script
            if not double:
                return m.end()
            double, i = False, m.end() + 1
        else:  # <script
            if escaped and not double:
                double = True
                i = m.end() + 1
            else:
                i = m.end()


def most_attributes(text: str) -> tuple[int, int]:
    """(most attributes on one start tag of ``text``, the offset of that tag's ``<``, -1 when no tag
    has any), the larger of the two readings (see the module doc)."""
    scan = _SCAN
    best, at, saw, event = scan(text, LIBXML2, 0)
    if saw >= 0:  # the browser's reading differs from the first <svg> or <math> on
        other, where, _, later = scan(text, BROWSER, saw)
        if other > best:
            best, at = other, where
        event = event if event >= 0 else later
    if event >= 0:  # a <frameset>, or a tag a <select> may ignore: the modes' reading, from the start
        other, where, _, _ = scan(text, MODES, 0)
        if other > best:
            best, at = other, where
    return best, at


#: The scan in use: the compiled one where it is built (and PAGESIEVE_PURE_PYTHON is not set).
_SCAN = measure.TAGSCAN.scan if measure.TAGSCAN is not None else py_scan
