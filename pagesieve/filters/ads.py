"""``ads``: remove elements that load from (or link to) ad servers, and elements the lists hide.

Source: dom-and-nlp-content-extraction-proxy.txt, "Content Extraction" (the advertisement
remover): "the values of the src and href attributes throughout the page are surveyed to
determine the servers to which the links refer. If a link address matches against a list of
common advertisement servers, the node of the DOM tree that contained the link is removed";
the "Ignore All Advertisements" box of the settings screen (Figure 1) switches it.

The "list of common advertisement servers" is real EasyList-format lists (EasyList and
EasyPrivacy by default, see :mod:`pagesieve.analysis.blocklists`) run by the ``adblock`` engine
(adblock-rust), which decides with the lists' network rules, ``@@`` exceptions and options
such as ``$third-party`` or ``$script``:

* **network rules** — every ``src``, ``href``, ``srcset``, ``poster`` and ``<object data>`` is
  resolved against ``<base href>`` and the page URL and checked with the request type of its tag
  (``<script>`` script, ``<img>`` image, ``<iframe>`` subdocument, ``<link rel=stylesheet>``
  stylesheet, ``<video>``/``<audio>`` media, ``<embed>``/``<object>`` object, ``<a>`` document, …).
  A link in running text (``<a href>`` in a sentence) is content, not something the page loads:
  when its target matches, it loses its ``href`` and keeps its words; a link that is a block's
  whole text (a menu item, a banner, a sponsored card) goes whole. Third-party is judged from
  the page URL. Without a page URL, relative URLs count as
  first-party and are not checked; absolute ones are checked as third-party requests. An ad
  image inside a link that holds nothing else takes the link with it.
* **element-hiding rules** (``##selector``) — generic ones for the page's classes and ids and
  the rest (``hidden_class_id_selectors``, the engine's generic list), site-specific ones for
  the page URL (``url_cosmetic_resources``), minus ``#@#`` exceptions, applied as removals.
  Selectors lxml cannot run (procedural ``:has-text()``, ``:upward()``, pseudo-elements, and
  ``:is()``/``:where()``/``:has(> …)`` which cssselect mistranslates) are skipped and counted.

Never removed: ``<html>``, ``<head>``, ``<body>``, a node that contains the detected article,
or the matches of one hiding rule that hold more than ``max_cosmetic_share`` of the page's
text (lists contain rules such as ``##.article`` that would blank some sites).
"""

from __future__ import annotations

import logging
import re
from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Any, Iterable
from urllib.parse import urljoin, urlsplit

from cssselect import HTMLTranslator, SelectorError
from cssselect import parser as css
from lxml import etree
from lxml.html import HtmlElement

from pagesieve.analysis.blocklists import DEBIAN_LISTS, DEBIAN_PACKAGE, DOWNLOADS, load_engine, with_downloads
from pagesieve.core import dom
from pagesieve.core.settings import setting
from pagesieve.filters.base import Filter

log = logging.getLogger("pagesieve.filters.ads")

# Elements that name a resource or a link target.
#: Elements with a URL attribute. Written as the owners of those attributes (``//@src/..``): libxml2 walks the
#: attributes of the page far faster than it tests a predicate on every element (``//*[@src or …]``: 0.59 ->
#: 0.44 ms a corpus page); the same elements, in document order.
WITH_URL = etree.XPath("(//@src | //@href | //@srcset | //@poster | //object/@data)/..")
#: The attributes of :data:`WITH_URL` on any element (``data`` only on ``<object>``).
_URL_ATTRS = frozenset({"src", "href", "srcset", "poster"})
BASE_HREF = etree.XPath("(//base[@href])[1]/@href")
SRCSET_URL = re.compile(r"\s*([^\s,][^\s]*?)(?:\s+[^,]*)?(?:,|$)")
NEVER_REMOVED = frozenset({"html", "head", "body"})
#: What of a text link to an ad or tracking server goes (its words stay): where it leads and what it pings.
LINK_TARGET_ATTRS = ("href", "ping")
#: A link whose block holds this many words (two letters or more) outside links stands in running
#: text (a sentence): its words are the sentence's. A menu item, a banner's label or a sponsored
#: card has none around it.
SENTENCE_WORDS = 3
_TEXT_OUTSIDE_LINKS = etree.XPath(".//text()[not(ancestor::a) and not(ancestor::script) and not(ancestor::style)]",
                                  smart_strings=False)
#: A word of running text: two letters or more (a price, a count or a lone letter is not a sentence's).
_WORD = re.compile(r"[^\W\d_]{2,}")
_PLAIN_URL = dom.PLAIN_URL
#: An absolute http(s) URL of printable ASCII that the checks below would return as it is: _PLAIN_URL
#: without its IGNORECASE (which lets "ſ" and the Kelvin sign through) and with fullmatch (its "$"
#: also matches before a final newline, which strip() would remove).
_ASCII_ABSOLUTE = re.compile(r"[Hh][Tt][Tt][Pp][Ss]?://[\x21-\x5a\x5e-\x7e]*")
# A URL scheme (RFC 3986 §3.1), as urlsplit reads it.
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")
MEDIA = ("img", "picture", "video", "audio", "iframe", "object", "embed", "svg", "canvas")
# Request type per tag (WebExtensions ResourceType names, as adblock-rust reads them).
REQUEST_TYPES = {
    "script": "script", "img": "image", "input": "image", "iframe": "subdocument", "frame": "subdocument",
    "embed": "object", "object": "object", "applet": "object", "video": "media", "audio": "media",
    "track": "media", "a": "document", "area": "document",
}
LINK_AS = {"script": "script", "style": "stylesheet", "image": "image", "font": "font", "fetch": "xmlhttprequest"}
# Without a page URL, site-specific hiding rules cannot apply; this reserved name (RFC 2606)
# asks the engine for its generic rules only.
NO_SITE_URL = "https://pagesieve.invalid/"
# Below this many characters of matched text a hiding rule is never blocked by the share guard:
# an ad slot's "Advertisement" label on a nearly empty page is not the page.
GUARD_MIN_CHARS = 200
_TRANSLATOR = HTMLTranslator()
# Attribute operators whose value a page must contain for the selector to match.
VALUE_OPERATORS = frozenset({"=", "^=", "$=", "*=", "~=", "|="})


@dataclass(frozen=True)
class AdsSettings:
    """How ads are found: which lists, which kinds of rules, and the guard."""

    # Sources: Remove elements whose src/href points at an ad or tracking server (the lists' network rules; the
    # paper's advertisement remover).
    network: bool = setting(True, "Remove elements that load from, or point at, an ad or tracking server named in the"
                                  " ad lists.", group="ignore", scope="user")
    # Sources: Remove elements the lists hide (##selector rules, generic and site-specific; #@# exceptions respected).
    cosmetic: bool = setting(True, "Remove elements that the ad lists hide, on every site or on the site at hand (the"
                                   " lists' exceptions respected).", group="ignore", scope="user")
    # Sources: Check link targets (<a>/<area> href) too, not only loaded resources (the paper surveys src and href).
    links: bool = setting(True, "Also check where links lead, not only what the page loads.", group="advanced", scope="user")
    lists: tuple[str, ...] = setting(DEBIAN_LISTS, "EasyList-format block lists: file paths or http(s) URLs "
                                                   "(default: Debian's EasyList and EasyPrivacy, package "
                                                   "webext-ublock-origin-firefox).", group="advanced")
    download_urls: tuple[str, ...] = setting(tuple(DOWNLOADS.values()), "Where `pagesieve lists update` (the "
                                             "operator's command) downloads lists into cache_dir/lists; a "
                                             "missing list file of the same name is read from there.",
                                             group="advanced")
    cache_dir: str | None = setting("~/.cache/pagesieve/ads", "Directory for downloaded lists and the compiled "
                                                              "engine (null: no cache, lists parsed at every "
                                                              "start).", group="advanced")
    refresh_hours: float = setting(24.0, "Hours a downloaded list is used before it is fetched again at start-up "
                                         "(EasyList's header asks for 4-6 days; daily keeps a long-running proxy "
                                         "current).", minimum=0, maximum=8760, group="advanced")
    # Sources: A hiding rule whose matches hold more than this fraction of the article's text (the body's before an
    # article is found) is not applied (pagesieve's guard against rules like ##.article; below
    # safety.max_article_loss).
    max_cosmetic_share: float = setting(0.5, "An ad-list hiding rule is not applied when what it would hide holds "
                                             "more than this share of the article's text (a rule that would hide the "
                                             "article itself).", minimum=0, maximum=1, group="advanced", scope="user")


@dataclass(frozen=True)
class _Selector:
    """A compiled hiding rule: its XPath, and per comma-separated part what a page must contain
    for that part to match (tags, classes, ids, attribute names, attribute-value tests) — a
    cheap pre-check that spares running most of the lists' ~500 generic selectors per page."""

    #: The XPath, or None until first asked for (:attr:`xpath`): a lone class or id is answered by
    #: the page's index, so the filter never runs its XPath.
    compiled: etree.XPath | None = field(compare=False)
    parts: tuple[tuple[frozenset, tuple[tuple[str, str, str], ...]], ...]
    #: ("class", name) for a lone ``.name``, ("id", name) for a lone ``#name``: the page's index
    #: answers those without the XPath's walk of the page (:meth:`PageIndex.matches`).
    simple: tuple[str, str] | None = None
    text: str = ""

    @property
    def xpath(self) -> etree.XPath:
        """The rule as one XPath (cssselect's translation of each comma-separated part, joined)."""
        if self.compiled is None:
            object.__setattr__(self, "compiled", _to_xpath(css.parse(self.text)))
        assert self.compiled is not None
        return self.compiled


def _needs(node, out: set, values: list) -> bool:
    """Collect what ``node`` (a cssselect parse tree) requires; False if it uses a construct
    cssselect 1.x translates wrongly (``:is``/``:where``, ``:has`` with a combinator)."""
    if isinstance(node, css.Element):
        if node.element and node.element != "*":
            out.add(("tag", node.element.lower()))
        return True
    if isinstance(node, (css.Matching, css.SpecificityAdjustment)):
        return False
    if isinstance(node, css.Relation):
        # cssselect < 1.3: one (combinator, subselector); 1.3+: a list of (combinator, selector).
        pairs = ([(node.combinator, node.subselector)] if hasattr(node, "combinator")  # type: ignore[attr-defined]
                 else list(getattr(node, "arguments", ())))
        if not pairs or any(getattr(comb, "value", comb) != " " for comb, _ in pairs):
            return False
        return _needs(node.selector, out, values) and all(
            _needs(sub.parsed_tree, set(), []) for _, sub in pairs)
    if isinstance(node, css.Class):
        out.add(("class", node.class_name))
    elif isinstance(node, css.Hash):
        out.add(("id", node.id))
    elif isinstance(node, css.Attrib):
        name = str(node.attrib).lower()
        out.add(("attr", name))
        if node.operator in VALUE_OPERATORS and node.value is not None and node.value.value:
            values.append((name, node.operator, node.value.value))
    elif isinstance(node, css.CombinedSelector):
        return _needs(node.selector, out, values) and _needs(node.subselector, out, values)
    elif isinstance(node, css.Negation):
        return _needs(node.selector, out, values) and _needs(node.subselector, set(), [])
    return _needs(node.selector, out, values) if hasattr(node, "selector") else True


#: A lone class or id whose name cssselect reads as written (no escape, no leading digit or hyphen):
#: most of the rules a page runs (``hidden_class_id_selectors`` gives thousands of distinct ones over
#: pages). Compiled without cssselect's parse and translation: what it would give is known.
_LONE_NAME = re.compile(r"([.#])([A-Za-z_][A-Za-z0-9_\-]*)")


def _to_xpath(parsed: list) -> etree.XPath:
    return etree.XPath(" | ".join(_TRANSLATOR.selector_to_xpath(p) for p in parsed))


def compile_selector(text: str) -> _Selector | None:
    """The compiled rule, or None when lxml/cssselect cannot run it exactly."""
    lone = _LONE_NAME.fullmatch(text)
    if lone is not None:
        # What cssselect gives for it (tests/filters/test_ads.py checks the two agree): one part
        # needing the class or id; no XPath until one is asked for (the page's index answers it).
        kind = "class" if lone.group(1) == "." else "id"
        return _Selector(None, ((frozenset({(kind, lone.group(2))}), ()),), (kind, lone.group(2)), text)
    return _compile_css(text)


def _compile_css(text: str) -> _Selector | None:
    """:func:`compile_selector` through cssselect's parse (every rule but a plain lone class or id)."""
    try:
        parsed = css.parse(text)
        parts = []
        for part in parsed:
            out: set = set()
            values: list = []
            if part.pseudo_element is not None or not _needs(part.parsed_tree, out, values):
                return None
            parts.append((frozenset(out), tuple(values)))
        return _Selector(_to_xpath(parsed), tuple(parts), _simple(parsed, text), text)
    except (SelectorError, etree.XPathError, TypeError, ValueError):
        return None


def _simple(parsed: list, text: str) -> tuple[str, str] | None:
    """("class", name) if the selector is one lone class (``.name``), ("id", name) if one lone id."""
    if len(parsed) != 1 or "|" in text:
        return None
    tree = parsed[0].parsed_tree
    inner = getattr(tree, "selector", None)
    if not (isinstance(inner, css.Element) and inner.element is None and inner.namespace is None):
        return None
    if isinstance(tree, css.Class):
        return ("class", tree.class_name)
    if isinstance(tree, css.Hash):
        return ("id", tree.id)
    return None


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
        tags: set[str] = set()
        attrs: set[str] = set()
        # The values of class, id and ``value_names`` (the attributes the generic rules test) are
        # gathered in this same walk, in document order: an XPath ``//@name`` walks every node of
        # the page again (~0.2 ms a name on a corpus page).
        values: dict[str, list[str]] = {name: [] for name in ("class", "id", *value_names)}
        class_els: list[HtmlElement] = []  # the elements of values["class"], value for value
        id_els: list[HtmlElement] = []
        with_url: list[HtmlElement] = []
        url_attrs = _URL_ATTRS
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
        self.with_url = with_url
        self._class_els, self._id_els = class_els, id_els
        self.tags, self.attrs = tags, attrs
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

    def has(self, token: tuple[str, str]) -> bool:
        kind, value = token
        return value in self._sets.get(kind, self.tags)

    def may_match(self, sel: _Selector) -> bool:
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


class AdsFilter(Filter):
    name = "ads"
    assigns = ("removed_links",)
    Settings = AdsSettings
    summary = "Remove ads: elements loading from or linking to ad servers, and elements EasyList hides."

    def __init__(self, settings: AdsSettings) -> None:
        super().__init__(settings)
        self.load = load_engine(with_downloads(settings.lists, settings.cache_dir), settings.cache_dir,
                                settings.refresh_hours)
        self.engine = self.load.engine
        if self.engine is None:
            log.warning("ads: inactive — no block list could be read; pages are filtered without it "
                        "(apt install %s, or run `pagesieve lists update`)", DEBIAN_PACKAGE)
        else:
            log.info("ads: %d block list(s) ready in %.0f ms (%s)", len(self.load.sources), self.load.ms,
                     "from the engine cache" if self.load.from_cache else "parsed")
        self._selectors: dict[str, _Selector | None] = {}
        self.generic: GenericRules | None = None
        if self.engine is not None:
            generic = self.engine.url_cosmetic_resources(NO_SITE_URL)
            self.generic = GenericRules(generic.hide_selectors, self._compiled)

    def apply(self, page, ctx) -> None:
        if self.engine is None:
            ctx.note("skip", reason="inactive: no block list could be read (see the start-up log); nothing removed",
                     measured={"missing": [m for m, _ in self.load.missing]})
            return
        protected = self._protected(ctx)
        counts = {"network": 0, "cosmetic": 0}
        # With both kinds of rules, one walk of the page serves both: the hiding rules' index, taken
        # before the network rules remove anything, also lists the elements those rules check.
        index = (PageIndex(page.root, self.generic.value_names) if self.settings.cosmetic and self.generic
                 else None)
        if self.settings.network:
            counts["network"] = self._network(page, ctx, protected, index)
        skipped = 0
        if self.settings.cosmetic:
            counts["cosmetic"], skipped = self._cosmetic(page, ctx, protected, index)
        if counts["network"] or counts["cosmetic"] or skipped:
            ctx.note("summary", reason="ads removed by the block lists' rules",
                     measured={"removed_network": counts["network"], "removed_cosmetic": counts["cosmetic"],
                               "hiding_rules_not_runnable": skipped})

    # -- network rules ----------------------------------------------------------------
    def _network(self, page, ctx, protected: set, index: PageIndex | None = None) -> int:
        """Remove what points at an ad server; ``index``: the page's index (its :attr:`PageIndex.with_url`
        are the elements to check), told what was removed."""
        root = page.root
        source, base = self._origin(page, root)
        engine = self.engine
        assert engine is not None  # apply() runs the rules only with an engine
        checked: dict[tuple[str, str], Any] = {}  # (url, request type) -> adblock's BlockerResult
        resolved: dict[str, Any] = {}  # url -> absolute URL or None (False: not resolved yet)
        gone: set = set()  # what this loop removed, with everything under it (the list was read before)
        removed = 0
        links = self.settings.links
        for node in (index.with_url if index is not None else WITH_URL(root)):
            tag = node.tag
            if not isinstance(tag, str) or tag in NEVER_REMOVED or (gone and node in gone):
                continue
            if tag == "a":  # most of a page's URLs: _requests' answer without the call
                href = node.get("href") if links else None
                requests: Iterable[tuple[str, str]] = ((href, "document"),) if href else ()
            else:
                requests = self._requests(node)
            for url, rtype in requests:
                absolute = resolved.get(url, False)
                if absolute is False:
                    absolute = resolved[url] = self._absolute(url, base)
                if absolute is None:
                    continue
                key = (absolute, rtype)
                result = checked.get(key)
                if result is None:
                    result = checked[key] = engine.check_network_urls(absolute, source, rtype)
                if result.matched:
                    target = self._target(node)
                    if tag == "a" and self._keeps_words(node):
                        # A network rule says what a page loads, not where a link leads: a link with
                        # words is content (a sentence would lose them); it loses its address only.
                        for attr in LINK_TARGET_ATTRS:
                            ctx.set_attr(node, attr, None)
                        ctx.note("unlink", node, "link to an ad or tracking server: its address dropped, "
                                 "its words kept", measured={"url": absolute, "request_type": rtype},
                                 threshold={"rule": result.filter})
                    elif target in protected:
                        ctx.note("keep", target, "points at an ad server but holds the article",
                                 measured={"url": absolute, "rule": result.filter})
                    elif ctx.remove(target, "points at an ad server" if target is node
                                    else "link around an element that points at an ad server",
                                    measured={"url": absolute, "request_type": rtype},
                                    threshold={"rule": result.filter}):
                        removed += 1
                        gone.update(target.iter())
                    break
        if index is not None:
            index.forget(gone)
        return removed

    def _origin(self, page, root: HtmlElement) -> tuple[str, str | None]:
        """(source URL for third-party checks, base for resolving relative URLs)."""
        base_href = next(iter(BASE_HREF(root)), None)
        base = page.url or None
        if base_href and base_href.strip():
            try:
                joined = urljoin(base or "", base_href.strip())
                if urlsplit(joined).scheme in ("http", "https"):
                    base = joined
            except ValueError:  # "https://www.ex[ample": a base a browser cannot parse is ignored
                pass
        return (page.url or base or ""), base

    def _requests(self, node: HtmlElement) -> list[tuple[str, str]]:
        tag = node.tag
        out = []
        if tag in ("a", "area"):
            if self.settings.links and node.get("href"):
                out.append((node.get("href"), "document"))
            return out
        if tag == "link":
            rel = (node.get("rel") or "").lower().split()
            if "stylesheet" in rel:
                rtype = "stylesheet"
            elif "icon" in rel:
                rtype = "image"
            else:
                rtype = LINK_AS.get((node.get("as") or "").lower(), "other")
            if node.get("href"):
                out.append((node.get("href"), rtype))
            return out
        parent = node.getparent()
        if tag == "source":
            rtype = "image" if parent is not None and parent.tag == "picture" else "media"
        else:
            rtype = REQUEST_TYPES.get(tag, "other")
        for attr in ("src", "href"):
            if node.get(attr):
                out.append((node.get(attr), rtype))
        if tag == "object" and node.get("data"):
            out.append((node.get("data"), "object"))
        if node.get("poster"):
            out.append((node.get("poster"), "image"))
        for m in SRCSET_URL.finditer(node.get("srcset") or ""):
            if m.group(1):
                out.append((m.group(1), "image"))
        return out

    @staticmethod
    def _absolute(url: str, base: str | None) -> str | None:
        """An absolute http(s) URL to check, or None (other schemes; relative without a base)."""
        if _ASCII_ABSOLUTE.fullmatch(url):
            return url  # absolute, nothing to strip (the common case: two thirds of a corpus page's URLs)
        url = url.strip()
        if not url or url.startswith("#"):
            return None
        head = url[:8].lower()
        if head.startswith(("https://", "http://")) and _PLAIN_URL.match(url):
            return url  # already absolute (the common case): urlsplit would say the same
        named = _SCHEME.match(url)
        if named and named.group(1).lower() not in ("http", "https"):
            return None  # javascript:, data:, mailto:, …
        if not named and base and url[0] == "/" and url[1:2] != "/":
            joined = dom.join_root_relative(base, url)
            if joined is not None:
                return joined
        try:
            scheme = urlsplit(url).scheme.lower()
            if not scheme:
                if base:
                    url = urljoin(base, url)
                elif url.startswith("//"):
                    url = "https:" + url
                else:
                    return None  # relative with no page URL: first-party, not checked
                scheme = urlsplit(url).scheme.lower()
        except ValueError:
            return None
        return url if scheme in ("http", "https") else None

    @staticmethod
    def _keeps_words(link: HtmlElement) -> bool:
        """Whether a link a network rule matched keeps its words: it has text and stands in running
        text (its block holds :data:`SENTENCE_WORDS` or more words outside links: a sentence, not a
        menu item, a banner or a sponsored card, which go whole)."""
        if not dom.text_len(link):
            return False
        block = next((a for a in link.iterancestors() if a.tag in dom.BLOCK_TAGS), None)
        if block is None:
            return False
        words = 0
        for piece in _TEXT_OUTSIDE_LINKS(block):
            words += len(_WORD.findall(piece))
            if words >= SENTENCE_WORDS:
                return True
        return False

    @staticmethod
    def _target(node: HtmlElement) -> HtmlElement:
        """What goes when ``node`` points at an ad server: its <picture>/<video>/<audio> if it
        is a source of one, and the link around it if that link holds nothing else."""
        parent = node.getparent()
        if node.tag in ("img", "source") and parent is not None and parent.tag in ("picture", "video", "audio"):
            node = parent
        link = node if node.tag == "a" else next(node.iterancestors("a"), None)
        if link is not None and link is not node and not dom.text_of(link):
            own = set(node.iter())
            if not any(el not in own for el in link.iter(*MEDIA)):
                return link
        return node

    # -- element hiding -----------------------------------------------------------------
    def _cosmetic(self, page, ctx, protected: set, index: PageIndex | None = None) -> tuple[int, int]:
        root = page.root
        engine, generic = self.engine, self.generic
        assert engine is not None and generic is not None  # apply() runs the rules only with an engine
        resources: Any = engine.url_cosmetic_resources(page.url or NO_SITE_URL)
        if index is None:
            index = PageIndex(root, generic.value_names)
        rules = set(resources.hide_selectors)
        if not resources.generichide:
            rules.update(engine.hidden_class_id_selectors(index.classes, index.ids, resources.exceptions))
        # Site-specific and class/id rules are few: all run. Of the generic rest (the same for every
        # page, minus this site's exceptions), only those the page can match.
        other = rules - generic.texts
        skipped = len(rules & generic.not_runnable) + sum(1 for t in other if self._compiled(t) is None)
        todo = (rules & generic.candidates(index)) | {t for t in other if self._compiled(t) is not None}
        guard = None  # (node, text length) the share guard measures against, when first needed
        removed = 0
        for text in sorted(todo):
            sel = self._compiled(text)
            if sel is None or not index.may_match(sel):  # never None: todo holds runnable rules only
                continue
            found_by = index.matches(*sel.simple) if sel.simple else sel.xpath(root)
            matches = [n for n in found_by if isinstance(n, HtmlElement) and n.tag not in NEVER_REMOVED]
            for n in matches:
                if n in protected:
                    ctx.note("keep", n, "hidden by an ad list rule but holds the article",
                             measured={"hiding_selector": text})
            matches = [n for n in matches if n not in protected]
            found = set(matches)
            matches = [n for n in matches if ctx.in_document(n) and not any(a in found for a in n.iterancestors())]
            if not matches:
                continue
            if guard is None:
                guard = ctx.state.guard_base()
            guard_node, guard_chars = guard
            inside = sum(ctx.text_len(n) for n in matches if n is guard_node
                         or any(a is guard_node for a in n.iterancestors()))
            share = inside / guard_chars if guard_chars else 0.0
            if inside > GUARD_MIN_CHARS and share > self.settings.max_cosmetic_share:
                ctx.note("keep", matches[0], "an ad list hiding rule would remove too much of the page's text",
                         measured={"hiding_selector": text, "matches": len(matches), "text_share": round(share, 3)},
                         threshold={"max_cosmetic_share": self.settings.max_cosmetic_share})
                continue
            for n in matches:
                if ctx.remove(n, "hidden by an ad list rule", measured={"text_chars": ctx.text_len(n)},
                              threshold={"hiding_selector": text}):
                    removed += 1
        return removed, skipped

    def _compiled(self, text: str) -> _Selector | None:
        try:
            return self._selectors[text]
        except KeyError:
            sel = self._selectors[text] = compile_selector(text)
            return sel

    @staticmethod
    def _protected(ctx) -> set:
        """Nodes never removed: the article and everything that contains it."""
        article = ctx.article
        if article is None:
            return set()
        return {article, *article.iterancestors()}
