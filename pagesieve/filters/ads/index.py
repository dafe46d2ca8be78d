"""What a page has that the ``ads`` filter's hiding rules ask for (:class:`PageIndex`, read once per
page), and the lists' generic hiding rules filed by what their matches need (:class:`GenericRules`),
so that a page runs only the rules it can match."""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import Any, Iterable

from lxml import etree
from lxml.html import HtmlElement

from pagesieve.core.measure import ATTRS
from pagesieve.filters.ads.network import URL_ATTRS
from pagesieve.filters.ads.selectors import Selector

#: XML whitespace (XPath normalize-space's) as spaces: a class attribute's names, as cssselect's XPath splits them.
_XML_SPACES = str.maketrans("\t\n\r", "   ")
_ATTR_VALUES = etree.XPath("//@*[name()=$name]", smart_strings=False)
_XPATH_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")
_VALUES_OF: dict[str, object] = {}


def _values_of(name: str):
    """A compiled XPath giving every value of attribute ``name`` (``//@href`` is a name test,
    many times faster than comparing ``name()`` on every attribute of the page)."""
    got = _VALUES_OF.get(name)
    if got is None:
        if _XPATH_NAME.match(name):
            got = etree.XPath(f"//@{name}", smart_strings=False)
        else:
            got = lambda root, _n=name: _ATTR_VALUES(root, name=_n)  # noqa: E731
        if len(_VALUES_OF) < 4096:  # names come from the lists' rules: a bounded set
            _VALUES_OF[name] = got
    return got


def page_attributes(root: HtmlElement, values: dict[str, list[str]],
                    url_attrs: frozenset[str]) -> tuple[set, set[str], list, list, list]:
    """One walk of ``root.iter()``: (tags, attribute names, elements with a class, elements with an
    id, elements with a URL attribute: one of ``url_attrs`` or an ``<object data>``); ``values``' lists
    get the values of their attributes in document order. The compiled walk
    (``pagesieve.core._attrs.page_attributes``) gives the same, without making a string of every
    attribute (tests/test_pagetable.py compares the two on corpus pages)."""
    tags: set = set()
    attrs: set[str] = set()
    class_els: list[HtmlElement] = []
    id_els: list[HtmlElement] = []
    with_url: list[HtmlElement] = []
    for el in root.iter():
        tag = el.tag
        tags.add(tag)
        items = el.items()
        if items:
            url = False
            for name, value in items:
                attrs.add(name)
                if name in url_attrs:
                    url = True
                got = values.get(name)
                if got is not None:
                    got.append(value)
                    if name == "class":
                        class_els.append(el)
                    elif name == "id":
                        id_els.append(el)
            if url or (tag == "object" and "data" in el.attrib):
                with_url.append(el)
    return tags, attrs, class_els, id_els, with_url


#: Attributes most pages have: a rule needing one of them is not indexed by its name.
COMMON_ATTRS = frozenset("href src class id style title alt name type rel target width height lang role "
                         "content value action method for srcset border align".split())
#: Leading characters of a ``[attr^="…"]`` / ``[attr="…"]`` value a rule is indexed by.
PREFIX_KEY = 12


class PageIndex:
    """What a page has that hiding rules ask for, read once per page: its tags and attribute names
    (one walk), its classes and ids (for the engine's ``hidden_class_id_selectors``), and — only
    when a rule asks — an attribute's values (XPath), joined (each value between two control
    characters) so a selector's ``[href*="…"]`` is one substring search, or sorted so that its
    ``[href^="…"]`` is one bisection.

    The same walk lists the elements with a URL attribute (:attr:`with_url`, what :data:`WITH_URL`
    selects) for the network rules, so the filter reads the page once for both kinds of rules; the
    network rules then remove elements, and :meth:`forget` drops them from the classes and ids. The
    tags, attribute names and values may still hold those of removed elements: they only decide
    which rules are worth running (a rule they let through in vain is run against the page itself
    and finds nothing), while the classes and ids choose the rules the engine returns."""

    def __init__(self, root: HtmlElement, value_names: Iterable[str] = ()) -> None:
        self.root = root
        # The values of class, id and ``value_names`` (the attributes the generic rules test) are
        # gathered in this same walk, in document order: an XPath ``//@name`` walks every node of
        # the page again (~0.2 ms a name on a corpus page). Compiled where built (same answer).
        values: dict[str, list[str]] = {name: [] for name in ("class", "id", *value_names)}
        walk = ATTRS.page_attributes if ATTRS is not None else page_attributes
        tags, attrs, class_els, id_els, with_url = walk(root, values, URL_ATTRS)
        self.with_url: list[HtmlElement] = with_url
        self._class_els: list[HtmlElement] = class_els  # the elements of values["class"], value for value
        self._id_els: list[HtmlElement] = id_els
        self.tags: set = tags
        self.attrs: set[str] = attrs
        self._values = values
        self._joined: dict[str, str] = {}
        self._sorted: dict[str, list[str]] = {}
        self._classes: tuple[list[str], list[str]] | None = None
        self._kind_sets: dict[str, Any] = {}

    def _read_classes(self) -> tuple[list[str], list[str]]:
        # Read when first asked for, after :meth:`forget` (the network rules run between the walk and
        # the hiding rules): split and sorted once.
        if self._classes is None:
            values = self._values
            classes = sorted(set(" ".join(values["class"]).split()))
            ids = sorted({v.strip() for v in values["id"] if v.strip()})
            self._classes = classes, ids
            self._kind_sets = {"class": frozenset(classes), "id": frozenset(ids), "attr": self.attrs, "tag": self.tags}
        return self._classes

    @property
    def _sets(self) -> dict[str, Any]:
        """The page's classes, ids, attribute names and tags as sets, by kind of need."""
        if self._classes is None:
            self._read_classes()
        return self._kind_sets

    @property
    def classes(self) -> list[str]:
        """The page's class names, sorted."""
        return self._read_classes()[0]

    @property
    def ids(self) -> list[str]:
        """The page's ids (trimmed), sorted."""
        return self._read_classes()[1]

    def forget(self, gone: set) -> None:
        """Drop the classes and ids of ``gone`` (elements removed since the walk), as if the page
        had been read after their removal."""
        if not gone:
            return
        values = self._values
        for name, els in (("class", self._class_els), ("id", self._id_els)):
            kept = [(el, value) for el, value in zip(els, values[name]) if el not in gone]
            els[:] = [el for el, _ in kept]
            values[name] = [value for _, value in kept]
            self._joined.pop(name, None)
            self._sorted.pop(name, None)
        self._classes = None

    def values(self, name: str) -> list[str]:
        """Every value of attribute ``name`` on the page, in document order."""
        got = self._values.get(name)
        if got is None:
            got = self._values[name] = _values_of(name)(self.root) if name in self.attrs else []
        return got

    def matches(self, kind: str, name: str) -> list[HtmlElement]:
        """What a lone ``.name`` (kind "class") or ``#name`` (kind "id") selects, in document order,
        as cssselect's XPath would: an element whose class attribute, split at XML whitespace,
        holds ``name``; whose id attribute is ``name``. Read from the index taken at the start, so
        it may also hold elements removed since (callers keep only those still in the document)."""
        if kind == "id":
            return [el for el, value in zip(self._id_els, self._values["id"]) if value == name]
        return [el for el, value in zip(self._class_els, self._values["class"])
                if name in value and name in value.translate(_XML_SPACES).split(" ")]

    def may_match(self, sel: Selector) -> bool:
        """False when no element of the page can match ``sel`` (never False when one can): some
        comma-separated part has everything it needs on the page (plain loops: this runs for
        every candidate rule of every page)."""
        sets = self._sets
        for needs, values in sel.parts:
            for kind, value in needs:
                if value not in sets[kind]:
                    break
            else:
                for name, op, value in values:
                    if not self._has_value(name, op, value):
                        break
                else:
                    return True
        return False

    def _has_value(self, name: str, op: str, value: str) -> bool:
        if op in ("^=", "|="):
            # A value starting with ``value``, found by bisection in the sorted values: the lists
            # hold dozens of ``a[href^="https://www.…"]`` rules that share their index key, and a
            # search of the page's joined hrefs for each took ~0.3 ms a corpus page.
            ordered = self._sorted.get(name)
            if ordered is None:
                ordered = self._sorted[name] = sorted(self.values(name))
            at = bisect_left(ordered, value)
            return at < len(ordered) and ordered[at].startswith(value)
        joined = self._joined.get(name)
        if joined is None:
            joined = self._joined[name] = "\x01" + "\x02\x01".join(self.values(name)) + "\x02"
        if op == "=":
            return f"\x01{value}\x02" in joined
        if op == "$=":
            return value + "\x02" in joined
        return value in joined  # *=, ~=


class GenericRules:
    """The lists' generic hiding rules that are not a lone class or id (``a[href^="https://ad…"]``,
    ``[data-ad-slot]``, ``amp-ad``: ~500 in EasyList), indexed as uBlock Origin does, so a page
    runs only the rules it can match: each rule is filed under one thing every match needs — an
    uncommon attribute name, a class, an id, a custom element's tag, or the first
    :data:`PREFIX_KEY` characters of an ``[attr^="…"]``/``[attr="…"]`` value; the page is read
    for those keys once (:meth:`candidates`). Rules with no such key are always candidates.
    Built once per filter (the generic set is the same for every page)."""

    def __init__(self, texts, compiled) -> None:
        self.texts = frozenset(texts)
        self.not_runnable = frozenset(t for t in self.texts if compiled(t) is None)
        self.always: set[str] = set()
        self.by_key: dict[tuple, set[str]] = {}
        for text in self.texts - self.not_runnable:
            keys = [self._key(needs, values) for needs, values in compiled(text).parts]
            if any(k is None for k in keys):
                self.always.add(text)
            else:
                for k in keys:
                    if k is not None:  # none is, here
                        self.by_key.setdefault(k, set()).add(text)
        self.prefixed = sorted({k[1] for k in self.by_key if k[0] == "prefix"})
        #: Attributes whose values the rules test (``[href^="…"]``…): PageIndex reads them in its walk.
        self.value_names = frozenset(self.prefixed).union(
            name for text in self.texts - self.not_runnable for _, values in compiled(text).parts
            for name, _op, _value in values)
        # The same index per kind of key ({class: rules}, …; {attribute: {value prefix: rules}}), so
        # a page's keys are matched by one set intersection per kind instead of a lookup per key.
        self._by_kind: dict[str, dict[str, set[str]]] = {"class": {}, "id": {}, "attr": {}, "tag": {}}
        self._by_prefix: dict[str, dict[str, set[str]]] = {name: {} for name in self.prefixed}
        for key, rules in self.by_key.items():
            if key[0] == "prefix":
                self._by_prefix[key[1]][key[2]] = rules
            else:
                self._by_kind[key[0]][key[1]] = rules

    @staticmethod
    def _key(needs: frozenset, values: tuple) -> tuple | None:
        for kind, value in sorted(needs):
            if kind == "attr" and value not in COMMON_ATTRS:
                return ("attr", value)
        for kind, value in sorted(needs):
            if kind in ("class", "id"):
                return (kind, value)
            if kind == "tag" and "-" in value:
                return ("tag", value)
        for name, op, value in values:
            if op in ("^=", "=") and len(value) >= PREFIX_KEY:
                return ("prefix", name, value[:PREFIX_KEY])
        return None

    def candidates(self, index: PageIndex) -> set[str]:
        """The generic rules that may match the page of ``index``."""
        out = set(self.always)
        for kind, table in self._by_kind.items():
            for key in table.keys() & index._sets[kind]:
                out |= table[key]
        for name, table in self._by_prefix.items():
            values = index.values(name)
            if values:
                for key in table.keys() & {v[:PREFIX_KEY] for v in values}:
                    out |= table[key]
        return out
