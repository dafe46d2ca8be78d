"""``<noscript>`` ended where a browser ends it, before libxml2 parses the page.

A browser with scripting on (pagesieve's output keeps it on; only its Content-Security-Policy blocks
the scripts) reads a ``<noscript>``'s content as raw text up to the first ``</noscript>``: what
follows that end tag is shown. libxml2 parses the content as markup, and its ``<noscript>`` can run
past that end tag, taking the rest of the page (hidden, or dropped by a filter) with it:

* a second ``<noscript>`` before the first ``</noscript>`` (a page with a stray start tag before its
  own pair): libxml2 nests it, the end tag closes only the inner one;
* a comment or a raw-text element (``<script>``, ``<style>``, ``<textarea>``…) opened in the content
  and not closed in it, a tag cut off by the end tag (``</table</noscript>``) or an attribute's quote
  left open (``<td id="x></noscript>``): libxml2 does not see the end tag inside it;
* an element opened in the content and not closed in it that libxml2 does not close for
  ``</noscript>`` (a ``<div>``, a table): the end tag is dropped (its error log says so).

Such a ``<noscript>`` (a "region": from its start tag to the browser's end tag) is hollowed: its
content is taken out of the text before the parse and its start tag marked, so libxml2 sees an empty
``<noscript></noscript>`` and reads what follows as the page's own markup, as a browser does. The
content is then parsed on its own and put back inside the marked element, as elements (what the
``ignore`` filter shows in place of removed scripts), nested ``<noscript>`` tags in it unwrapped.
A ``<noscript>`` never closed is left as it is: nothing follows it that a browser shows.

Pages with balanced, well-formed pairs parse as before: a first check (a regular expression finds
every ``<noscript`` followed by its ``</noscript`` before the next one, and each content holding
markup is read as a tokenizer reads it, :func:`pagesieve.core.tagscan.ends_open`, to see that it
does not end inside something) skips all other work; only a page failing it is scanned as a
browser's tokenizer reads it (:func:`pagesieve.core.tagscan.noscript_regions`, linear).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pagesieve.core import tagscan

#: The attribute marking a hollowed ``<noscript>`` between the parse and :func:`fill` (then removed).
MARK = "data-pagesieve-noscript"

_TAG = re.compile(r"<(/?)noscript(?=[\t\n\f\r />])", re.I | re.A)
_DROPPED_END = re.compile(r"mismatch: noscript and ", re.I)


def _hides_end(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` (a ``<noscript>``'s content) ends inside something, as a tokenizer reads
    it (:func:`pagesieve.core.tagscan.ends_open`): a comment or a raw-text element that does not end in
    it, a tag left unclosed (``</table</noscript>``) or an attribute's quote left open
    (``<td id="x></noscript>``): libxml2 would read the ``</noscript>`` after it as part of it."""
    return text.find("<", start, end) >= 0 and tagscan.ends_open(text[start:end])


def _plainly_balanced(text: str) -> bool:
    """Whether every ``<noscript`` of ``text`` is followed by a ``</noscript`` before the next
    ``<noscript`` and nothing between them hides that end tag (or it is the last and never closed).
    Read as plain text: a page passing it has no broken region in a tokenizer's reading either."""
    open_at = -1
    for m in _TAG.finditer(text):
        if not m.group(1):
            if open_at >= 0:
                return False
            open_at = m.end()
        elif open_at >= 0:
            if _hides_end(text, open_at, m.start()):
                return False
            open_at = -1
    return True


def broken_regions(text: str) -> list[tuple[int, int, int]]:
    """The regions (see :func:`pagesieve.core.tagscan.noscript_regions`) of ``text`` libxml2 would
    end after the browser's end tag: a second start tag or a hidden end tag in their content."""
    if _TAG.search(text) is None or _plainly_balanced(text):
        return []
    n = len(text)
    return [(start, a, b) for start, a, b in tagscan.noscript_regions(text)
            if b < n and (_TAG.search(text, a, b) is not None or _hides_end(text, a, b))]


#: How many of a page's errors the parser's log keeps: libxml2 reports the first 100 errors of a parse and
#: then none but a first fatal one (``XML_MAX_ERRORS`` in its ``parserInternals.c``, checked in
#: ``xmlCtxtVErr``; the same with lxml 6.1 over libxml2 2.14 here). A log this full may have left out the
#: error that matters: that a ``</noscript>`` was dropped, or another end tag
#: (:func:`pagesieve.engine.document.parse` reads such a page with the HTML5 tree builder).
REPORTED_ERRORS = 100


def log_full(error_log) -> bool:
    """Whether the parser's log holds as many errors as libxml2 reports (:data:`REPORTED_ERRORS`):
    any error after those went unsaid, so the log cannot tell that an end tag was not dropped."""
    return len(error_log) >= REPORTED_ERRORS


def end_dropped(error_log) -> bool:
    """Whether libxml2 dropped a ``</noscript>`` because an element opened inside it was still open, or
    may have: its log is full (a page of tag soup), and the error that would say so came too late to
    be reported. Emptying such a page's closed regions costs a second parse and reads them as a
    browser does either way."""
    return log_full(error_log) or any(_DROPPED_END.search(entry.message) for entry in error_log)


def closed_regions(text: str) -> list[tuple[int, int, int]]:
    """Every region of ``text`` that a ``</noscript>`` ends and whose content holds markup."""
    if _TAG.search(text) is None:  # no scan of a page that holds none (it is Python, and linear but slow)
        return []
    n = len(text)
    return [(start, a, b) for start, a, b in tagscan.noscript_regions(text) if b < n and "<" in text[a:b]]


def hollow(text: str, regions: list[tuple[int, int, int]]) -> tuple[str, list[str]]:
    """``text`` with the content of each region taken out and its start tag marked with its number
    in the list returned: the contents, in order."""
    parts: list[str] = []
    contents: list[str] = []
    pos = 0
    for start, a, b in regions:
        name_end = start + len("<noscript")
        parts += [text[pos:name_end], f' {MARK}="{len(contents)}"', text[name_end:a]]
        contents.append(text[a:b])
        pos = b
    parts.append(text[pos:])
    return "".join(parts), contents


def fill(root, contents: list[str], parse: Callable[[str], object]) -> None:
    """Put each hollowed content back into its marked ``<noscript>``, parsed on its own by ``parse``
    (text to an lxml root), nested ``<noscript>`` elements unwrapped."""
    used: set[int] = set()
    for el in list(root.iter("noscript")):
        mark = el.attrib.pop(MARK, None) if contents else None
        if mark is None or not mark.isdigit() or int(mark) >= len(contents) or int(mark) in used:
            continue
        used.add(int(mark))
        content = contents[int(mark)]
        if not content.strip():
            el.text = content or None
            continue
        body = parse("<body>" + content).find("body")  # type: ignore[attr-defined]
        if body is None:
            continue
        for inner in list(body.iter("noscript")):
            inner.drop_tag()
        el.text = body.text
        el.extend(list(body))
