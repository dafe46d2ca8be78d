"""Pages whose content their scripts make: recognised from what the HTML holds.

A page rendered in the browser (a single-page app) arrives as a shell: an empty element its script
mounts the app in (``<div id="root"></div>``, ``#app``, ``#__next``, ``<app-root>``), a "You need to
enable JavaScript to run this app" notice, the data in a JSON blob, and scripts — but next to no
text. Filtered with its scripts removed, it becomes a page that says just that notice. Such a page
is served as it was sent instead (``NeedsScripts``; the proxy says ``reason=needs-scripts``).

A page is a shell when its body shows fewer than :data:`SHELL_MAX_CHARS` characters of text (the
notice for script-less browsers counted as text, as it would be shown) and it has scripts, and one
of these signals says the scripts make the content:

* **a mount point** — an element named like the root of an app (:data:`MOUNT_IDS`, a custom
  element, ``data-reactroot``/``ng-app``/``data-server-rendered``...), empty or holding a placeholder
  ("Loading…": the page has next to no text at all);
* **a notice** that the page needs JavaScript (:data:`JS_NOTICE`);
* **the content as data** — a JSON blob (``<script type=application/json>``, ``__NEXT_DATA__``,
  ``window.__INITIAL_STATE__ = {…}``) of :data:`DATA_CHARS` or more;
* **the weight of the scripts** — :data:`SCRIPT_CHARS` or more characters of inline script.

A server-rendered page that hydrates (its text in the HTML, and the same scripts) has its text and is
filtered as any page. Measured on the six extraction corpora (1,121 pages): see the commit that added
this module; none of the pages that hold their main text is a shell by this rule.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from lxml import etree
from lxml.html import HtmlElement

from pagesieve.core import dom

#: Fewer characters of text (non-space, in the body, scripts and styles aside) than this: a shell. A
#: notice ("You need to enable JavaScript to run this app.": 40) and a cookie line fit; the shortest
#: main text of the extraction corpora is several times longer.
SHELL_MAX_CHARS = 200
#: Ids (and classes) of the element an app is mounted in, by the frameworks' defaults and habits.
MOUNT_IDS = frozenset({"root", "app", "__next", "__nuxt", "___gatsby", "svelte", "app-root", "application",
                       "react-root", "react-app", "main-app", "vue-app", "ember-app", "spa", "mount", "q-app"})
#: Attributes frameworks put on the mount point or the page's root.
MOUNT_ATTRS = ("data-reactroot", "data-react-helmet", "ng-app", "ng-version", "data-server-rendered", "data-v-app")
#: A notice that the page needs scripts to show anything.
JS_NOTICE = re.compile(r"(?:enable|turn on|activate|allow)\s+(?:your\s+)?javascript|javascript\s+(?:is\s+)?"
                       r"(?:required|disabled|needed|must be enabled|is not enabled)|requires?\s+javascript|"
                       r"needs?\s+javascript|without\s+javascript|javascript\s+to\s+(?:run|use|view|see)", re.I)
#: A JSON blob of this many characters or more holds a page's worth of data (its content as data).
DATA_CHARS = 2000
#: This many characters of inline script or more: the page is its scripts.
SCRIPT_CHARS = 20000
_JSON_TYPES = ("application/json", "application/ld+json")
_STATE = re.compile(r"window\.__[A-Z_a-z]+__\s*=\s*[\[{]|__NEXT_DATA__|__NUXT__|__APOLLO_STATE__")
#: Elements whose text (all of it, at any depth) a browser does not show as the page's.
_HIDDEN = frozenset({"script", "style", "template"})
#: The text nodes under an element but those whose parent is hidden: each node's parent, one step, where
#: ``ancestor::`` would walk up the whole page from every node (a page nested a thousand levels deep made
#: that a million steps). Exact when no hidden element holds an element, as the parser leaves scripts and
#: styles; a ``<template>`` it fills with elements is read by :func:`_walk_text` instead. ``descendant::``,
#: not ``.//``: the same nodes without a node set merged per element (see :data:`pagesieve.core.dom._TEXTS`).
_TEXTS = etree.XPath("descendant::text()[not(parent::script or parent::style or parent::template)]",
                     smart_strings=False)


@dataclass(frozen=True)
class Verdict:
    """Whether a page is a shell, what its body shows (``chars``: counted up to :data:`SHELL_MAX_CHARS`,
    enough to say that a page is none) and the signals found."""

    shell: bool
    chars: int
    signals: tuple[str, ...] = ()

    def __str__(self) -> str:
        return (f"{self.chars} characters of text and {', '.join(self.signals)}" if self.signals
                else f"{self.chars} characters of text")


def _mount(el: HtmlElement) -> bool:
    ident = (el.get("id") or "").strip().lower()
    if ident in MOUNT_IDS:
        return True
    tag = el.tag
    if isinstance(tag, str) and "-" in tag and tag not in ("font-face",):
        return True  # a custom element (<app-root>, <my-app>): a framework's component
    return any(el.get(a) is not None for a in MOUNT_ATTRS)


def shown_text(body: HtmlElement) -> str:
    """The text under ``body`` in document order, the text inside scripts, styles and templates aside."""
    if any(el.tag in _HIDDEN for el in (body, *body.iterancestors())):
        return ""
    if any(len(el) for el in body.iter(*_HIDDEN)):
        return _walk_text(body)
    return "".join(_TEXTS(body))


def _walk_text(body: HtmlElement) -> str:
    """:func:`shown_text` read node by node (a hidden element's subtree skipped whole, its tail kept)."""
    return "".join(_shown_pieces(body))


def _shown_pieces(body: HtmlElement) -> Iterator[str]:
    """The pieces of :func:`shown_text` in document order, one text or tail at a time, so that a caller may
    stop early: a stack of the open elements' child iterators, not recursion, as pages nest deeper than
    Python recurses."""
    yield body.text or ""
    stack: list[tuple[Iterator[HtmlElement], HtmlElement | None]] = [(iter(body), None)]
    while stack:
        children, owner = stack[-1]
        for child in children:
            tag = child.tag
            if isinstance(tag, str) and tag not in _HIDDEN:
                yield child.text or ""
                if len(child):
                    stack.append((iter(child), child))
                    break  # its tail comes after its children
            yield child.tail or ""
        else:
            stack.pop()
            if owner is not None:
                yield owner.tail or ""


def shown_chars(body: HtmlElement, enough: int) -> int:
    """The non-space characters of :func:`shown_text`, counted in document order until ``enough`` are
    found: a page of text is known to be no shell after its first lines, without reading (and joining)
    all its text. Exact when fewer than ``enough``."""
    if any(el.tag in _HIDDEN for el in (body, *body.iterancestors())):
        return 0
    chars = 0
    for piece in _shown_pieces(body):
        if piece:
            chars += len("".join(piece.split()))  # the count of str.split's non-space characters adds up
            if chars >= enough:
                break
    return chars


def judge(root: HtmlElement) -> Verdict:
    """Whether the page of ``root`` (as parsed, before any filter) is a shell its scripts fill in."""
    body = dom.body_of(root)
    chars = shown_chars(body, SHELL_MAX_CHARS)
    if chars >= SHELL_MAX_CHARS:
        return Verdict(False, chars)
    text = shown_text(body)
    scripts = list(root.iter("script"))
    if not scripts:
        return Verdict(False, chars)  # nothing would fill it in: what it shows is the page
    signals = []
    for el in body.iter(dom.ELEMENT):
        if el is not body and _mount(el):
            signals.append(f"a mount point ({dom.describe(el)})")
            break
    if JS_NOTICE.search(text):
        signals.append("a notice that it needs JavaScript")
    inline = 0
    for script in scripts:
        code = script.text or ""
        kind = (script.get("type") or "").strip().lower()
        if len(code) >= DATA_CHARS and (kind in _JSON_TYPES and kind != "application/ld+json"
                                        or _STATE.search(code[:2000]) is not None):
            signals.append(f"its content as data ({len(code)} characters)")
            break
    for script in scripts:
        kind = (script.get("type") or "").strip().lower()
        if kind not in _JSON_TYPES:
            inline += len(script.text or "")
    if inline >= SCRIPT_CHARS:
        signals.append(f"{inline} characters of script")
    return Verdict(bool(signals), chars, tuple(signals))
