"""One measurement of the page, shared by the chain and every filter, kept current as they change it.

:class:`TextMeasure` holds, for every element of the page, what :func:`pagesieve.core.dom.text_len`
would answer — the non-whitespace characters of the text under it, scripts and styles excluded —
measured in one pass over the tree (children before parents, so each element adds up its
children). The :class:`~pagesieve.engine.context.FilterContext` sees every change a filter makes and keeps
the numbers exact: a removal subtracts the node's count from its ancestors, an insertion or a
replacement measures the new subtree and adds it, a text change adds the difference. Changes it
cannot follow (a checkpointed copy is edited in place, an undo) drop the measurement; it is taken
again when next asked. A node the measurement does not know (built by a filter and not inserted)
is measured directly.

The same pass counts, per element, the links and letters the link-list test reads
(:attr:`TextMeasure.links`: links with an ``href``, letters inside links, all letters — letters
and digits, ``[^\\W_]``; ``<script>``, ``<style>``, ``<template>`` and ``<noscript>`` hold none),
kept current the same way (and when a link gains or loses its ``href``): ``link_lists`` reads
it instead of walking the page again.

Measuring once instead of per question: the article-loss guard asks for the size of the body or
the article before every filter, and for the size of every removed node.

Two implementations give the same numbers: :class:`PyTextMeasure` here, and the compiled page table
(:mod:`pagesieve.core._pagetable`, Cython over lxml's C API), which walks libxml2's tree in C instead
of making a Python object for every element and a string for every text: about ten times faster.
:data:`TextMeasure` is the compiled one when the extension was built (the set-up builds it; a
platform without a C compiler installs without it) and ``PAGESIEVE_PURE_PYTHON`` is not set.
"""

from __future__ import annotations

import importlib
import os
import re
from typing import Any, Collection, Sequence

from pagesieve.core import dom

#: Elements whose own text is not page text (dom.text_len's rule).
SILENT = dom.SILENT
#: Elements that hold no letters and no links for the link-list test (their subtree adds nothing).
UNCOUNTED = dom.SILENT | {"template", "noscript"}
#: Runs of letters (``[^\W_]``): their lengths add up to the letters, one string a word instead of
#: one a letter (non-ASCII text: ~3x faster than counting single-letter matches).
_LETTER_RUNS = re.compile(r"[^\W_]+", re.UNICODE)
#: ASCII characters that are not letters or digits (deleted before counting ASCII text's letters).
_ASCII_NOT_LETTERS = bytes(c for c in range(128) if not chr(c).isalnum())
#: ASCII characters str.split() splits at (its whitespace: also \x1c-\x1f), deleted to count the others.
_ASCII_SPACES = bytes(c for c in range(128) if chr(c).isspace())


def chars(text: str | None) -> int:
    """Non-whitespace characters of ``text`` (str.split's whitespace)."""
    return len("".join(text.split())) if text else 0


def words(text: str | None) -> int:
    """Words in ``text``: runs of letters, digits and underscores (``\\w+``), as the eval tokenizes."""
    return len(dom.WORD.findall(text)) if text else 0


def letters(text: str | None) -> int:
    """Letters and digits in ``text`` (``[^\\W_]``: word characters but the underscore)."""
    if not text:
        return 0
    if text.isascii():  # the common case, ~2x faster than the regular expression
        return len(text.encode("ascii").translate(None, _ASCII_NOT_LETTERS))
    return sum(map(len, _LETTER_RUNS.findall(text)))


class PyTextMeasure:
    """Per element: non-whitespace characters of the text under it (see the module doc); the
    pure-Python measurement, used where the compiled page table is not built."""

    def __init__(self, root) -> None:
        self.chars: dict = {}
        #: element -> [links with href, letters inside links, letters] (UNCOUNTED elements absent).
        self.links: dict = {}
        self.measure(root)

    def measure(self, top) -> int:
        """Measure ``top``'s subtree (again), store every element's counts; ``top``'s text count."""
        counts, stats = self.chars, self.links
        get, count_of = stats.get, counts.get
        runs = _LETTER_RUNS.findall
        # Elements only, picked in C (a comment's or PI's tail is read as its parent's child's tail).
        els = list(top.iter(dom.ELEMENT))
        els.reverse()
        for el in els:
            tag = el.tag
            if tag in UNCOUNTED:
                silent = tag in SILENT
                n = 0 if silent else chars(el.text)
                for child in el:
                    n += count_of(child, 0)
                    if not silent and child.tail:
                        n += chars(child.tail)
                counts[el] = n
                continue
            # Inlined chars() and letters() (this loop is the measurement's cost): whitespace-only
            # text (most tails between tags) costs one isspace(); ASCII text (most of the rest) is
            # counted by deleting bytes, two C calls instead of splitting and joining the words.
            # Other text's letters are counted as runs of letters (words, once the whitespace is
            # gone), not one match a letter: on scrapinghub's pages 29 such texts a page, 3,400
            # characters, took 190 µs a page as single letters, 56 µs as runs.
            text = el.text
            if text and not text.isspace():
                if text.isascii():
                    raw = text.encode("ascii")
                    n = len(raw.translate(None, _ASCII_SPACES))
                    letter_count = len(raw.translate(None, _ASCII_NOT_LETTERS))
                else:
                    joined = "".join(text.split())
                    n = len(joined)
                    letter_count = sum(map(len, runs(joined)))
            else:
                n = letter_count = 0
            links = link_letters = 0
            for child in el[:]:  # a slice is a list made in C, faster to loop over than the child iterator
                tail = child.tail
                if tail and not tail.isspace():
                    if tail.isascii():
                        raw = tail.encode("ascii")
                        n += len(raw.translate(None, _ASCII_SPACES))
                        letter_count += len(raw.translate(None, _ASCII_NOT_LETTERS))
                    else:
                        joined = "".join(tail.split())
                        n += len(joined)
                        letter_count += sum(map(len, runs(joined)))
                got = get(child)
                if got is not None:
                    n += counts[child]
                    links += got[0]
                    link_letters += got[1]
                    letter_count += got[2]
                else:
                    n += count_of(child, 0)
            if tag == "a" and el.get("href") is not None:
                links += 1
                link_letters = letter_count
            counts[el] = n
            stats[el] = [links, link_letters, letter_count]
        return counts.get(top, 0)

    def link_stats(self, node) -> tuple[int, int, int] | None:
        """(links with href, letters inside links, letters) under ``node``; None for UNCOUNTED ones."""
        got = self.links.get(node)
        return tuple(got) if got is not None else None

    def text_len(self, node) -> int:
        """``dom.text_len(node)``, from the measurement when it knows the node."""
        got = self.chars.get(node)
        if got is None:
            return dom.text_len(node)
        return got

    # -- kept current by FilterContext ---------------------------------------------------
    def _add(self, parent, delta: int, above=None) -> None:
        """Add ``delta`` to ``parent`` and up (``above``: ``parent`` and its ancestors, if read already)."""
        if not delta or parent is None:
            return
        counts = self.chars
        for el in above if above is not None else (parent, *parent.iterancestors()):
            if el in counts:
                counts[el] += delta

    def _add_links(self, parent, links: int, link_letters: int, letter_count: int, above=None) -> None:
        """Add to ``parent`` and up: up to an UNCOUNTED element (it adds nothing to its parent);
        at and above a link with href every letter is a link letter. ``above`` as in :meth:`_add`."""
        if parent is None or not (links or link_letters or letter_count):
            return
        stats = self.links
        inside = False
        for el in above if above is not None else (parent, *parent.iterancestors()):
            if el.tag in UNCOUNTED:
                return
            got = stats.get(el)
            if got is None:
                continue
            got[0] += links
            got[2] += letter_count
            got[1] += letter_count if inside else link_letters
            if not inside and el.tag == "a" and el.get("href") is not None:
                got[1] = got[2]
                inside = True

    def _stats_of(self, node) -> list:
        return self.links.get(node) or [0, 0, 0]

    def removed(self, node, parent, ancestors=None) -> None:
        """``node`` left ``parent`` (its tail stayed with ``parent``); ``ancestors``: the node's
        ancestors (``parent`` first), if the caller read them already."""
        self._add(parent, -self.chars.get(node, 0), ancestors)
        links, link_letters, letter_count = self._stats_of(node)
        self._add_links(parent, -links, -link_letters, -letter_count, ancestors)

    def inserted(self, node, parent) -> None:
        """``node`` (and its tail) entered ``parent``."""
        n = self.measure(node) if isinstance(node.tag, str) else 0
        if parent.tag not in SILENT:
            n += chars(node.tail)
        self._add(parent, n)
        links, link_letters, letter_count = self._stats_of(node) if isinstance(node.tag, str) else (0, 0, 0)
        self._add_links(parent, links, link_letters, letter_count + letters(node.tail))

    def replaced(self, old, new, parent) -> None:
        """``new`` took ``old``'s place (and tail) in ``parent``."""
        before = self._stats_of(old)
        n = self.measure(new) if isinstance(new.tag, str) else 0
        self._add(parent, n - self.chars.get(old, 0))
        after = self._stats_of(new) if isinstance(new.tag, str) else (0, 0, 0)
        self._add_links(parent, after[0] - before[0], after[1] - before[1], after[2] - before[2])

    def text_set(self, node, old: str | None, new: str | None, tail: bool) -> None:
        owner = node.getparent() if tail else node
        if owner is None or not isinstance(owner.tag, str):
            return
        if not tail and not isinstance(node.tag, str):
            return
        if owner.tag not in SILENT:
            self._add(owner, chars(new) - chars(old))
        if owner.tag not in UNCOUNTED:
            self._add_links(owner, 0, 0, letters(new) - letters(old))

    def href_set(self, node, had: bool, has: bool) -> None:
        """A link gained or lost its ``href`` (it counts as a link, its letters as link letters)."""
        got = self.links.get(node)
        if had == has or node.tag != "a" or got is None:
            return
        if has:
            links, link_letters = got[0] + 1, got[2]
        else:
            links = got[0] - 1
            link_letters = sum(self.links[c][1] for c in node if c in self.links)
        delta_links, delta_link_letters = links - got[0], link_letters - got[1]
        got[0], got[1] = links, link_letters
        parent = node.getparent()
        if parent is not None and parent.tag not in UNCOUNTED and node.tag not in UNCOUNTED:
            self._add_links(parent, delta_links, delta_link_letters, 0)

    def copied(self, original, copy) -> None:
        """``copy`` (a deep copy of ``original``) took its place: same counts, node for node."""
        counts, stats = self.chars, self.links
        for a, b in zip(original.iter(), copy.iter()):
            if a in counts:
                counts[b] = counts[a]
            if a in stats:
                stats[b] = list(stats[a])


def _compiled(name: str) -> Any:
    """A compiled module of pagesieve.core, or None (not built, or ``PAGESIEVE_PURE_PYTHON`` set)."""
    if os.environ.get("PAGESIEVE_PURE_PYTHON"):
        return None
    try:
        return importlib.import_module(f"pagesieve.core.{name}")  # by name: mypy has no stub of it
    except ImportError:
        return None


#: The compiled page table's module, None where it is not built.
PAGETABLE: Any = _compiled("_pagetable")
#: The compiled module of main_content's block counts (``block_counts``), None where it is not built.
BLOCKS: Any = _compiled("_blocks")
#: The compiled scan of pagesieve.core.tagscan (``scan``), None where it is not built.
TAGSCAN: Any = _compiled("_tagscan")
#: The compiled attribute walks (``page_attributes`` for the ads filter's page index, ``script_attributes``
#: for the ignore filter), None where they are not built: those filters then walk the page in Python.
ATTRS: Any = _compiled("_attrs")
#: The compiled paragraph sums of the article filter (``paragraph_sums``), None where they are not built.
PARAGRAPHS: Any = _compiled("_paragraphs")
#: The compiled page table when it is built, else the pure-Python measurement (same numbers).
TextMeasure: Any = PAGETABLE.PageTable if PAGETABLE is not None else PyTextMeasure


def py_elements_with(top: Any, tags: Collection[str], attrs: Sequence[str]) -> list:
    """:func:`elements_with` in Python."""
    return [el for el in top.iter(dom.ELEMENT) if el.tag in tags or any(el.get(a) is not None for a in attrs)]


def elements_with(top: Any, tags: Collection[str], attrs: Sequence[str]) -> list:
    """The elements of ``top.iter(etree.Element)`` (``top`` first) whose tag is in ``tags`` or that have an
    attribute (without a namespace) named in ``attrs``, in document order. A test of names (class, id)
    and roles can pick no other element: a caller tests these instead of every element of the page
    (a page's blocks without any such attribute are most of it), each made a Python object only when
    picked. In C (``_attrs.elements_with``) where it is built; at most 8 names."""
    if ATTRS is not None:
        return ATTRS.elements_with(top, tags, attrs)
    return py_elements_with(top, tags, attrs)


def py_parents_of(top: Any, least: int) -> list:
    """:func:`parents_of` in Python."""
    return [el for el in top.iter(dom.ELEMENT) if sum(1 for c in el if isinstance(c.tag, str)) >= least]


def parents_of(top: Any, least: int) -> list:
    """The elements of ``top.iter(etree.Element)`` (``top`` first) with ``least`` or more element children, in
    document order: the XPath ``descendant-or-self::*[count(*) >= least]``, in C (``_attrs.parents_of``) where
    it is built (the XPath builds a node set of each element's children: ~0.5 ms a corpus page)."""
    if ATTRS is not None:
        return ATTRS.parents_of(top, least)
    return py_parents_of(top, least)


#: Whether the compiled modules are the ones in use (the test run asserts it with PAGESIEVE_REQUIRE_COMPILED=1).
COMPILED = (TextMeasure is not PyTextMeasure and BLOCKS is not None and TAGSCAN is not None and ATTRS is not None
            and PARAGRAPHS is not None)
