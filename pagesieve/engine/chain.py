"""Running an ordered chain of filters over one page, one error boundary per filter.

For each filter the chain opens a :class:`FilterContext`: every change the filter makes goes
through it, so that the context can

* explain it (filter, node, measured values, threshold) in the page's record,
* remember the text links that disappear (for the ``removed_links`` filter),
* undo it: if the filter raises, or removes more than ``safety.max_article_loss`` of the
  detected article's text (of the body's text before an article is known), its changes are
  rolled back and the record says why. The page is then as it was before that filter.
"""

from __future__ import annotations

import logging
import re
import secrets
import time
from copy import deepcopy
from dataclasses import dataclass, field
from typing import Any, Callable, Collection, Iterable, TypedDict

from lxml import etree
from lxml.html import HtmlElement

from pagesieve.analysis import appshell
from pagesieve.core import dom
from pagesieve.core.errors import ConfigError, FilterError, NeedsScripts
from pagesieve.core.measure import TextMeasure
from pagesieve.engine.document import Page, parse, serialize
from pagesieve.engine.output import text_shown, words_shown
from pagesieve.filters.base import Filter

log = logging.getLogger("pagesieve.engine.chain")


@dataclass(frozen=True)
class Handoff:
    """A field of :class:`RunState` through which one filter hands a result to later ones."""

    #: What it holds (for the chain check's messages).
    what: str
    #: Every filter that assigns it adds to it (True) or sets it (False). A filter that requires or
    #: uses an accumulating field must come after every filter that assigns it.
    accumulates: bool = False


#: The hand-off fields filters may name in ``requires`` / ``assigns`` / ``uses``
#: (:class:`~pagesieve.filters.base.Filter`); each is a typed field of :class:`RunState`.
HANDOFFS: dict[str, Handoff] = {
    "article": Handoff("the main-content subtree"),
    "removed_links": Handoff("the text links removed from the page", accumulates=True),
    "removed_captions": Handoff("the captions taken out of the text, by the image they described", accumulates=True),
    "removed_links_nav": Handoff("the list of removed links added at the end of the page"),
    "segments": Handoff("the page's blocks, their cue-phrase relevance and rank"),
    "content_security_policy": Handoff("a Content-Security-Policy the page must be served with"),
}


class Segment(TypedDict):
    """One block of the ``segments`` filter (:attr:`RunState.segments`)."""

    segment: int
    chars: int
    level: int
    kind: str
    dor: float
    cue: str | None
    anchor: str | None
    anchor_before: dict[str, str] | None
    rank: int | None
    relevant: bool
    path: str
    starts_in: str


@dataclass
class RunState:
    """What the filters of one page run share: the record, and the hand-off fields
    (:data:`HANDOFFS`) through which filters pass results to later ones."""

    root: HtmlElement
    record: list[dict[str, Any]] = field(default_factory=list)
    #: Which entries go into ``record``: None, every one (``--explain``, eval, tests); else only those
    #: whose action is in the set (the proxy asks for the removals its page control lists, or none).
    #: Building an entry (the node's description and path) is a few percent of a page's time.
    record_actions: frozenset[str] | None = None
    #: (document position, href, text) of text links that left the page.
    removed_links: list[tuple[int, str, str]] = field(default_factory=list)
    #: The document positions (as in ``removed_links``) of those that were in page furniture
    #: (``dom.furniture_between``: a menu, the banner, the footer, a side bar); kept for text output only.
    removed_in_furniture: set[int] = field(default_factory=set)
    #: The main-content subtree, once the ``article`` filter (or a reader algorithm) found it.
    article: HtmlElement | None = None
    #: Image → the text of the caption a filter took out of the text (``main_content``), so that
    #: ``image_captions`` can still judge the image by it.
    removed_captions: dict[HtmlElement, str] = field(default_factory=dict)
    #: The ``<nav>`` of removed links ``removed_links`` added (``accessibility`` places it).
    removed_links_nav: HtmlElement | None = None
    #: The blocks ``segments`` found, in document order.
    segments: list[Segment] = field(default_factory=list)
    #: Per-site memory for filters that learn across pages (None offline without a store).
    store: Any = None
    #: A Content-Security-Policy the filtered page must be served with (set by a filter that
    #: removed what the policy forbids, so that whatever it missed cannot run either).
    content_security_policy: str | None = None
    #: Whether removals collect the text links they take (``removed_links``): only when a filter of the
    #: chain reads them (the ``removed_links`` filter requires them); the reader presets do not.
    collect_links: bool = True
    #: What the page will be served as, "html" or "text" (the chain's output format): a filter may shape
    #: what it adds by it (a collapsed list in HTML is read out in full in text).
    output_format: str = "html"
    #: (node, the part of it kept by a replacement or None) for every removal and replacement, in order:
    #: what the filters took away, weighed only when asked (``removed_words``).
    removed_nodes: list[tuple[HtmlElement, HtmlElement | None]] = field(default_factory=list)
    _link_order: dict | None = None
    #: The page's text measurement (pagesieve.core.measure), taken when first asked, kept current.
    _measure: TextMeasure | None = None
    #: True while a filter edits a checkpointed copy in place (changes the context cannot follow).
    _dirty: bool = False

    def link_position(self, a: HtmlElement) -> int:
        if self._link_order is None:
            self._link_order = {el: i for i, el in enumerate(self.root.iter("a"))}
        return self._link_order.get(a, 1 << 30)

    def guard_base(self) -> tuple[HtmlElement, int]:
        """The text the loss guard protects: the article if known, else the body, and its size."""
        node = self.article if self.article is not None else dom.body_of(self.root)
        return node, self.text_len(node)

    def measure(self) -> TextMeasure | None:
        """The page's text measurement (None while a checkpointed copy is edited in place)."""
        if self._dirty:
            return None
        if self._measure is None:
            self._measure = TextMeasure(self.root)
        return self._measure

    def text_len(self, node: HtmlElement) -> int:
        """``dom.text_len(node)``, read from the shared measurement."""
        m = self.measure()
        return m.text_len(node) if m is not None else dom.text_len(node)


class FilterContext:
    """The only way a filter changes the tree: explained, undoable changes."""

    def __init__(self, name: str, state: RunState, page: Page, assigns: Collection[str] | None = None) -> None:
        self.name = name
        self.state = state
        self.page = page
        #: The hand-off fields the filter declared it assigns (None: not checked).
        self.assigns = assigns
        self.removed = 0
        self.lost_chars = 0
        self._ops: list[tuple] = []
        self._removed_mark = len(state.removed_nodes)  # this filter's removals follow it
        self._links_mark = len(state.removed_links)  # and the links they took
        self._guard_node, self._guard_chars = None, 0
        if state._dirty:  # the previous filter edited a checkpointed copy: measure again when asked
            state._dirty, state._measure = False, None

    # -- reading ---------------------------------------------------------------------
    @property
    def article(self) -> HtmlElement | None:
        return self.state.article

    @property
    def record(self) -> list[dict[str, Any]]:
        return self.state.record

    def text_len(self, node: HtmlElement) -> int:
        """Non-whitespace characters of the text under ``node`` (``dom.text_len``), from the
        page's shared measurement, kept current through this context's changes."""
        return self.state.text_len(node)

    def removed_words(self, enough: int | None = None) -> int:
        """Words of the text the filters removed from the page so far, as the text output would read
        them out (:func:`pagesieve.engine.output.words_shown`), less what their replacements kept. Counted when
        asked, from the removed subtrees themselves: nothing is counted on pages where no filter asks.
        ``enough``: stop once that many are known (a lower bound is all the caller needs)."""
        total = 0
        removals = []
        for node, keep in self.state.removed_nodes:  # replacements first: only they can take words back
            if keep is None:
                removals.append(node)
            else:
                total += words_shown(node) - words_shown(keep)
        for node in removals:
            if enough is not None and total >= enough:
                break
            total += words_shown(node)
        return total

    def in_document(self, node: HtmlElement) -> bool:
        """True when ``node`` is still attached to the page (not inside a removed subtree)."""
        top = node
        for top in node.iterancestors():  # noqa: B007 - the last ancestor is what is wanted
            pass
        return top is self.page.root or node is self.page.root

    # -- explaining ------------------------------------------------------------------
    def explaining(self, action: str) -> bool:
        """Whether a note of ``action`` goes into the record (a filter may skip building its details)."""
        wanted = self.state.record_actions
        return wanted is None or action in wanted

    def note(self, action: str, node: HtmlElement | None = None, reason: str = "", **details: Any) -> None:
        """Record a decision that changed nothing (or a summary) in the explanation; nothing when
        the run records no entry of ``action`` (:attr:`RunState.record_actions`)."""
        wanted = self.state.record_actions
        if wanted is not None and action not in wanted:
            return
        entry: dict[str, Any] = {"filter": self.name, "action": action}
        if node is not None:
            entry["node"] = dom.describe(node)
            entry["path"] = dom.path(node)
        if reason:
            entry["reason"] = reason
        entry.update({k: v for k, v in details.items() if v is not None})
        self.state.record.append(entry)

    # -- changing --------------------------------------------------------------------
    def set_article(self, node: HtmlElement | None) -> None:
        """Mark the main-content subtree for the filters after this one."""
        self.assign(article=node)

    def assign(self, **fields: Any) -> None:
        """Hand results on to later filters: set hand-off fields of the run state (:data:`HANDOFFS`;
        undoable). A filter may assign only what its class declares in ``assigns``."""
        for name, value in fields.items():
            if name not in HANDOFFS or name == "removed_links":
                raise ValueError(f"{name}: not a hand-off field a filter assigns; known: "
                                 + ", ".join(n for n in HANDOFFS if n != "removed_links"))
            if self.assigns is not None and name not in self.assigns:
                raise ValueError(f"filter {self.name} assigns {name} but does not declare it in its assigns")
            self._ops.append(("handoff", name, getattr(self.state, name)))
            setattr(self.state, name, value)

    def remove(self, node: HtmlElement, reason: str, *, measured: dict | None = None,
               threshold: dict | None = None, explain: bool = True, guarded: bool = True) -> bool:
        """Remove ``node`` (its tail text stays), explained. False if it was already gone.
        ``guarded=False``: the filter knows the node is not the article's text (a comment thread
        under it), so the article-loss guard does not count it."""
        parent = node.getparent()
        if parent is None:
            return False
        # Its ancestors, read once (a removal's bookkeeping walked them three or four times): whether it
        # is still on the page (:meth:`in_document`), whether the guarded text holds it, which counts change.
        ancestors = list(node.iterancestors())
        if ancestors[-1] is not self.page.root:
            return False
        if explain:
            self.note("remove", node, reason, measured=measured, threshold=threshold)
        if guarded:
            self._track_loss(node, ancestors=ancestors)
        self._collect_links(node)
        self.state.removed_nodes.append((node, None))
        prev = node.getprevious()
        saved = prev.tail if prev is not None else parent.text
        index = parent.index(node)
        dom.remove_keep_tail(node)
        if self.state._measure is not None:
            self.state._measure.removed(node, parent, ancestors)
        self._ops.append(("remove", node, parent, index, prev, saved))
        self.removed += 1
        return True

    def replace(self, old: HtmlElement, new: HtmlElement, reason: str, **details: Any) -> None:
        """Put ``new`` where ``old`` is (``old``'s tail moves to ``new``), explained."""
        parent = old.getparent()
        if parent is None:
            return
        self.note("replace", old, reason, **details)
        self._track_loss(old, keep=new)
        self._collect_links(old, keep=new)
        self.state.removed_nodes.append((old, new))
        new.tail, old_tail = old.tail, old.tail
        parent.replace(old, new)
        if self.state._measure is not None:
            self.state._measure.replaced(old, new, parent)
        self._ops.append(("replace", old, new, old_tail))
        self.removed += 1

    def set_content_security_policy(self, policy: str | None) -> None:
        """Ask that the filtered page be served with ``policy`` (undoable)."""
        self.assign(content_security_policy=policy)

    def keep_only(self, within: HtmlElement, keep: Iterable[HtmlElement] = (), *, reason: str,
                  texts: Iterable[tuple[HtmlElement, bool]] = (), spare: Callable[[Any], bool] | None = None,
                  comments: bool = False, blank_after: bool = False,
                  measured: Callable[[Any], dict | None] | None = None,
                  threshold: dict | None = None, explain: Callable[[Any], bool] | bool = True) -> int:
        """Keep only the subtrees ``keep`` and the text pieces ``texts`` ((element, is its tail))
        inside ``within``; returns how many nodes were removed.

        Walking down from ``within`` through the elements that hold a kept node or a kept text
        piece (their "path"), every other child is removed (:meth:`remove`: explained with
        ``reason``, ``measured(child)``, ``threshold``, ``explain`` (a bool or a predicate), its
        links listed, undoable), and every other text piece there (an element's text, a child's
        tail) that is not blank is cleared; whitespace stays. Comments and processing instructions
        outside go only with ``comments``; children for which ``spare(child)`` is true stay. A kept
        node is kept whole, also when another kept node is inside it. ``within`` itself kept:
        nothing to do.

        The loose text is cleared piece by piece before the removals (the whitespace between the
        pieces stays); with ``blank_after``, after them: the pieces that met when the nodes between
        them went are cleared together if any of them is not blank (``article``'s keep mode)."""
        keep = set(keep)
        texts = set(texts)
        if within in keep:
            return 0
        path = {within}
        starts = [n.getparent() for n in keep] + [el.getparent() if tail else el for el, tail in texts]
        for node in starts:
            while node is not None and node not in path:
                path.add(node)
                node = node.getparent()
        removed = 0
        explaining = self.explaining("remove")  # else no child's details are wanted
        stack = [within]
        while stack:
            node = stack.pop()
            if not blank_after:
                self._blank_loose(node, False, texts)
            below = []
            for child in list(node):
                if not blank_after:
                    self._blank_loose(child, True, texts)
                if child in keep:
                    continue
                if child in path:
                    below.append(child)
                    continue
                if not isinstance(child.tag, str) and not comments or spare is not None and spare(child):
                    continue
                told = explaining and (explain(child) if callable(explain) else explain)
                if self.remove(child, reason, measured=measured(child) if told and measured else None,
                               threshold=threshold, explain=told):
                    removed += 1
            if blank_after:
                self._blank_loose(node, False, texts)
                for child in node:
                    self._blank_loose(child, True, texts)
            stack.extend(reversed(below))
        return removed

    def _blank_loose(self, node: HtmlElement, tail: bool, kept: set) -> None:
        """Clear ``node``'s text (or tail) unless it is blank or in ``kept``."""
        text = node.tail if tail else node.text
        if text and text.strip() and (node, tail) not in kept:
            self.set_text(node, None, tail=tail)

    def insert(self, parent: HtmlElement, index: int, node: HtmlElement) -> None:
        """Insert a new ``node`` into ``parent`` at ``index`` (undoable)."""
        parent.insert(index, node)
        if self.state._measure is not None:
            self.state._measure.inserted(node, parent)
        self._ops.append(("insert", node))

    def set_attr(self, node: HtmlElement, name: str, value: str | None) -> None:
        """Set (or with None, delete) an attribute (undoable). An attribute lxml cannot address by its
        name (``{x`` from ``<i {x="...">``: lxml reads a leading brace as a namespace) can only be
        deleted, together with every other such attribute of the node (not undoable: no API could put
        them back, and no browser gives them a meaning)."""
        try:
            old = node.get(name)
        except ValueError:
            if value is not None:
                raise
            _drop_unaddressable(node)
            return
        if value is None:
            if old is None:
                return
            order = tuple(node.attrib.keys())
            del node.attrib[name]
        else:
            order = None
            node.set(name, value)
        if name == "href" and self.state._measure is not None:
            self.state._measure.href_set(node, old is not None, value is not None)
        self._ops.append(("attr", node, name, old, order))

    def set_text(self, node: HtmlElement, text: str | None, *, tail: bool = False) -> None:
        """Set a node's text (or tail) (undoable)."""
        old = node.tail if tail else node.text
        if tail:
            node.tail = text
        else:
            node.text = text
        if self.state._measure is not None:
            self.state._measure.text_set(node, old, text, tail)
        self._ops.append(("text", node, tail, old))

    def checkpoint(self, node: HtmlElement) -> HtmlElement:
        """Before a complex in-place edit of ``node``'s subtree: put an editable copy in its
        place and return it. Edit only the returned copy (and nodes found under it after this
        call); undo puts the untouched original back."""
        parent = node.getparent()
        if parent is None:
            raise ValueError("cannot checkpoint the root element")
        live = deepcopy(node)
        live.tail = node.tail
        before = self.state.article, self.state.removed_links_nav
        # The copy has the original's shape, so the i-th link of one is the i-th link of the other,
        # and a node under the original is found in the copy by its child indices. Only the links
        # and the two hand-off nodes are mapped: a walk of every node of both trees in Python (the
        # whole body, for accessibility) cost ~0.5 ms a page.
        order = self.state._link_order
        if order is not None:
            for old, new in zip(node.iter("a"), live.iter("a")):
                if old in order:
                    order[new] = order[old]
        self.state.article = _counterpart(self.state.article, node, live)
        self.state.removed_links_nav = _counterpart(self.state.removed_links_nav, node, live)
        parent.replace(node, live)
        self.state._dirty, self.state._measure = True, None  # the copy is edited behind the context's back
        self._ops.append(("checkpoint", node, live, before, (self.state.article, self.state.removed_links_nav)))
        return live

    # -- bookkeeping -------------------------------------------------------------------
    def _track_loss(self, node: HtmlElement, keep: HtmlElement | None = None,
                    ancestors: list[HtmlElement] | None = None) -> None:
        """Count what removing ``node`` (``ancestors``: its ancestors, if read already) takes from the
        guarded text."""
        if self._guard_node is None:
            self._guard_node, self._guard_chars = self.state.guard_base()
        guard: HtmlElement = self._guard_node
        if node is guard or any(a is node for a in guard.iterancestors()):
            self.lost_chars += self._guard_chars
        elif guard in (ancestors if ancestors is not None else node.iterancestors()):  # elements compare by identity
            self.lost_chars += self.text_len(node) - (self.text_len(keep) if keep is not None else 0)

    def _collect_links(self, node: HtmlElement, keep: HtmlElement | None = None) -> None:
        if not self.state.collect_links:
            return  # no filter of this chain reads them (3% of the reader's time went to listing them)
        links = list(node.iter("a"))  # the node itself first when it is a link
        if not links:
            return  # most removals (scripts, metas, images): nothing more to look at
        # Links inside a <template> are inert markup a script may stamp out later, never shown as they
        # are: they were not on the page the reader saw, so they are not "removed from" it either.
        if next(node.iterancestors("template"), None) is not None:
            return
        kept = set(keep.iter("a")) if keep is not None else set()
        for tpl in node.iter("template"):
            kept.update(tpl.iter("a"))
        outer = None  # whether the removed node sits in page furniture: asked once, when needed
        furniture = self.state.output_format == "text"  # only the text list asks (removed_links)
        for a in links:
            if a in kept:
                continue
            href = a.get("href")
            if not href:
                continue  # a link without an address is not listed: its text is not needed
            # its text as the page shows it; failing that (an icon link: an <svg><title> only), its name
            text = text_shown(a) or dom.text_of(a)
            if text:
                position = self.state.link_position(a)
                self.state.removed_links.append((position, href.strip(), text))
                if not furniture:
                    continue
                inner = dom.furniture_between(a, node.getparent())  # the link up to the removed node
                if inner is None:
                    if outer is None:
                        outer = bool(dom.furniture_between(node.getparent()))
                    inner = outer
                if inner:
                    self.state.removed_in_furniture.add(position)

    def rollback(self) -> None:
        """Undo every change of this filter on this page, newest first."""
        self.state._measure = None  # taken again when next asked
        del self.state.removed_nodes[self._removed_mark:]
        for position, _, _ in self.state.removed_links[self._links_mark:]:  # back on the page
            self.state.removed_in_furniture.discard(position)
        del self.state.removed_links[self._links_mark:]
        for op in reversed(self._ops):
            kind = op[0]
            if kind == "remove":
                _, node, parent, index, prev, saved = op
                if prev is not None:
                    prev.tail = saved
                else:
                    parent.text = saved
                parent.insert(index, node)
            elif kind == "replace":
                _, old, new, old_tail = op
                new.getparent().replace(new, old)
                old.tail = old_tail
            elif kind == "insert":
                op[1].getparent().remove(op[1])
            elif kind == "attr":
                _, node, name, old, order = op
                if old is None:
                    node.attrib.pop(name, None)
                else:
                    node.set(name, old)
                    if order is not None:
                        _restore_order(node, order, name)
            elif kind == "text":
                _, node, tail, old = op
                if tail:
                    node.tail = old
                else:
                    node.text = old
            elif kind == "checkpoint":
                _, original, live, before, mapped = op
                live.getparent().replace(live, original)
                if self.state.article is mapped[0]:
                    self.state.article = before[0]
                if self.state.removed_links_nav is mapped[1]:
                    self.state.removed_links_nav = before[1]
            elif kind == "handoff":
                setattr(self.state, op[1], op[2])
        self._ops.clear()


_XML_NAME = re.compile(r"[A-Za-z_:][-A-Za-z0-9_.:]*\Z")


def _drop_unaddressable(node: HtmlElement) -> None:
    """Remove the attributes of ``node`` that lxml cannot look up by name, keeping the others in order."""
    items = node.items()
    node.attrib.clear()
    for name, value in items:
        if name.startswith("{"):
            continue  # set again, a brace would make a namespaced attribute of it
        try:
            node.set(name, value)
        except ValueError:
            continue


def _counterpart(target: HtmlElement | None, original: HtmlElement, copy: HtmlElement) -> HtmlElement | None:
    """The node of ``copy`` (a deep copy of ``original``) at ``target``'s place, when ``target`` is
    ``original`` or under it; else ``target`` itself (None stays None)."""
    if target is None:
        return None
    steps = []
    node = target
    while node is not original:
        parent = node.getparent()
        if parent is None:
            return target  # not under the original: nothing to map
        steps.append(parent.index(node))
        node = parent
    for i in reversed(steps):
        copy = copy[i]
    return copy


def _restore_order(node: HtmlElement, order: tuple[str, ...], name: str) -> None:
    """Put a re-added attribute back at its place (the attributes after it are set again). Names
    lxml would refuse to set (``{{ng-model}}``, kept from the parse) leave the order as it is."""
    after = order[order.index(name) + 1:]
    if not after or not all(_XML_NAME.match(a) for a in after):
        return
    values = [(a, node.attrib.pop(a)) for a in after if a in node.attrib]
    for a, v in values:
        node.set(a, v)


#: How many distinct (filter, error type, place) failures have their traceback logged per process
#: (each once: a new Chain per page must not log the same traceback for every page).
LOGGED_FAILURES_MAX = 256
_logged_failures: dict[tuple[str, str, str], None] = {}


def _log_failure(name: str, page: Page, err: Exception) -> None:
    """One line per failure; the traceback once per (filter, error type, raising line) per process."""
    tb = err.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    where = f"{tb.tb_frame.f_code.co_filename}:{tb.tb_lineno}" if tb is not None else "?"
    key = (name, type(err).__name__, where)
    first = key not in _logged_failures
    if first:
        if len(_logged_failures) >= LOGGED_FAILURES_MAX:
            _logged_failures.pop(next(iter(_logged_failures)))
        _logged_failures[key] = None
    log.error("filter %s failed on %s: %s: %s; page kept as before this filter",
              name, page.url or "<page>", type(err).__name__, err, exc_info=first)


def _undo(ctx: FilterContext, cause: Exception | None) -> None:
    """Roll a filter's changes back; if that itself fails the page is in an unknown state, so
    the whole page fails (FilterError: the proxy serves the original, the CLI says one line)."""
    try:
        ctx.rollback()
    except Exception as err:  # noqa: BLE001 - re-raised as the page's failure
        raise FilterError(f"filter {ctx.name} failed ({type(cause).__name__ if cause else 'too much removed'}) "
                          f"and its changes could not be undone: {type(err).__name__}: {err}") from err


@dataclass
class ChainResult:
    """The outcome of one page through the chain."""

    body: bytes
    media_type: str  # "text/html" or "text/plain"
    encoding: str
    record: list[dict[str, Any]]
    filters: list[dict[str, Any]]  # per filter: name, ms, removed, status
    ms: float
    preset: str | None = None
    #: The Content-Security-Policy to serve the page with (None: none asked for).
    content_security_policy: str | None = None
    #: Asked for (``process(slot=True)``) and HTML: the byte offset in ``body`` where a caller may
    #: insert content of its own (after the skip link that opens the body; see :func:`_mark_slot`).
    slot: int | None = None

    @property
    def failed(self) -> list[str]:
        return [f["filter"] for f in self.filters if f["status"] == "error"]

    @property
    def removed_by(self) -> list[str]:
        return [f["filter"] for f in self.filters if f["removed"] and f["status"] == "ok"]


class ChainOrderError(ConfigError):
    """A chain in which a filter cannot have what it needs; ``filter`` and ``needs`` name them."""

    def __init__(self, message: str, filter: str, needs: str) -> None:
        super().__init__(message)
        self.filter, self.needs = filter, needs


def check_order(chain: Iterable[type[Filter] | Filter], where: str = "chain") -> None:
    """Raise :class:`ChainOrderError` unless every filter of ``chain`` (classes or instances, in order)
    has what it declares it needs: each field it ``requires`` assigned by a filter before it, and
    no filter after it assigning an accumulating field it requires or a field it ``uses``.
    ``where`` names the chain in the message (e.g. ``presets.reader.chain``)."""
    filters = list(chain)
    names = [f.name for f in filters]
    for i, flt in enumerate(filters):
        before, after = filters[:i], filters[i + 1:]
        for need in flt.requires:
            if not any(need in f.assigns for f in before):
                givers = [n for n in _assigners(need) if n != flt.name]
                raise ChainOrderError(
                    f"{where} = {names!r}: filter {flt.name} needs {need} ({HANDOFFS[need].what}), "
                    f"which no filter before it assigns; put {_one_of(givers)} before {flt.name}", flt.name, need)
        for need in (*flt.requires, *flt.uses):
            if need in flt.requires and not HANDOFFS[need].accumulates:
                continue
            late = [f.name for f in after if need in f.assigns]
            if late:
                raise ChainOrderError(
                    f"{where} = {names!r}: filter {flt.name} reads {need} ({HANDOFFS[need].what}), but "
                    f"{', '.join(late)} {'assigns' if len(late) == 1 else 'assign'} it after {flt.name}; "
                    f"put {flt.name} after {late[-1]}", flt.name, need)


def _one_of(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"one of {', '.join(names)}" if names else "a filter that assigns it"


def _assigners(field_name: str) -> list[str]:
    from pagesieve.filters import FILTERS  # the registry imports every filter module

    return [name for name, cls in FILTERS.items() if field_name in cls.assigns]


def check_declarations(cls: type[Filter]) -> None:
    """Raise ValueError if ``cls`` names a hand-off field that does not exist."""
    for attr in ("requires", "assigns", "uses"):
        for name in getattr(cls, attr):
            if name not in HANDOFFS:
                raise ValueError(f"filter {cls.name}: {attr} names {name!r}, not a hand-off field; "
                                 f"known: {', '.join(HANDOFFS)}")


class Chain:
    """An ordered list of ready filters plus output settings; built once, run per page.

    The order is checked (:func:`check_order`) unless ``check`` is false (a test running one
    filter alone on purpose)."""

    def __init__(self, filters: list[Filter], output, safety, preset: str | None = None,
                 check: bool = True) -> None:
        if check:
            check_order(filters, f"presets.{preset}.chain" if preset else "chain")
        self.filters = filters
        self.output = output
        self.safety = safety
        self.preset = preset
        #: A filter of the chain reads the removed text links (RunState.collect_links).
        self.collects_links = any("removed_links" in f.requires for f in filters)
        #: A filter takes a page's scripts away and asks that a page made by them be served as sent.
        self.spares_app_shells = any(getattr(f, "spares_app_shells", False) for f in filters)

    def run(self, page: Page, store: Any = None, explain: bool | Collection[str] = True,
            ) -> tuple[RunState, list[dict[str, Any]]]:
        """Run every filter over ``page`` in place; returns the run state and per-filter stats.
        ``explain``: which entries the state's record gets: True every one, False none, or the
        actions named (e.g. only the removals); the page comes out the same either way."""
        state = RunState(root=page.root, store=store, output_format=getattr(self.output, "format", "html"),
                         collect_links=self.collects_links, record_actions=_record_actions(explain))
        stats = []
        for flt in self.filters:
            t0, c0 = time.perf_counter(), time.process_time()
            secured = self._secure(flt, page, state) if getattr(flt, "secures", False) else 0
            ctx = FilterContext(flt.name, state, page, flt.assigns)
            status = "ok"
            try:
                flt.apply(page, ctx)
            except Exception as err:  # noqa: BLE001 - the error boundary of one filter
                status = "error"
                _log_failure(flt.name, page, err)
                _undo(ctx, err)
                ctx.note("error", reason=f"{type(err).__name__}: {err}; the page is kept as it was before this filter")
            else:
                if flt.destructive and ctx.lost_chars and ctx._guard_chars:
                    loss = ctx.lost_chars / ctx._guard_chars
                    if loss > self.safety.max_article_loss:
                        status = "reverted"
                        _undo(ctx, None)
                        ctx.note("revert", reason="would remove nearly all of the article text; its removals are undone",
                                 measured={"article_text_lost": round(loss, 3)},
                                 threshold={"max_article_loss": self.safety.max_article_loss})
            stats.append({"filter": flt.name, "ms": round((time.perf_counter() - t0) * 1000, 3),
                          "cpu_ms": round((time.process_time() - c0) * 1000, 3),
                          "removed": secured + (ctx.removed if status == "ok" else 0), "status": status})
        return state, stats

    @staticmethod
    def _secure(flt: Filter, page: Page, state: RunState) -> int:
        """Run ``flt``'s secure step (:meth:`Filter.secure`) in a context of its own, never undone;
        returns what it removed. If it fails, the page cannot be served filtered: FilterError."""
        ctx = FilterContext(flt.name, state, page, flt.assigns)
        try:
            flt.secure(page, ctx)
        except Exception as err:  # noqa: BLE001 - re-raised as the page's failure
            _log_failure(flt.name, page, err)
            raise FilterError(f"filter {flt.name} could not take out what would run script: "
                              f"{type(err).__name__}: {err}") from err
        return ctx.removed

    def process(self, data: bytes, *, url: str | None = None, declared_encoding: str | None = None,
                store: Any = None, declared_html: bool = False, slot: bool = False,
                explain: bool | Collection[str] = True) -> ChainResult:
        """Parse, filter and render one page. Raises InputError for input that is not HTML
        (``declared_html``: the server said it is; see :func:`pagesieve.engine.document.parse`), and its
        NeedsScripts for a page its scripts make when the chain would remove them.
        ``slot``: also find where a caller may insert content of its own into the HTML
        (:attr:`ChainResult.slot`). ``explain``: which entries :attr:`ChainResult.record` gets (as
        :meth:`run`); the proxy, which reads none but the removals, asks for those or none."""
        from pagesieve.engine.output import TEXT_ENCODING, render  # output depends on document only

        t0 = time.perf_counter()
        page = parse(data, url=url, declared_encoding=declared_encoding, declared_html=declared_html)
        if self.spares_app_shells:
            verdict = appshell.judge(page.root)
            if verdict.shell:
                raise NeedsScripts(f"the page's content is made by its scripts ({verdict}): not filtered, "
                                   "its scripts would be removed (filters.ignore.app_shells=false filters it anyway)")
        state, stats = self.run(page, store=store, explain=explain)
        mark = _mark_slot(page) if slot and getattr(self.output, "format", "html") == "html" else None
        try:
            body, media_type = render(page, state, self.output)
        except (ValueError, TypeError, RecursionError) as err:
            raise FilterError(f"the filtered page could not be written out: {type(err).__name__}: {err}") from err
        encoding = TEXT_ENCODING if media_type == "text/plain" else page.encoding
        offset = None
        if mark is not None and media_type == "text/html":
            body, offset = _take_mark(body, mark, encoding)
        return ChainResult(body=body, media_type=media_type, encoding=encoding, record=state.record,
                           filters=stats, ms=round((time.perf_counter() - t0) * 1000, 3), preset=self.preset,
                           content_security_policy=state.content_security_policy if media_type == "text/html" else None,
                           slot=offset)


def _record_actions(explain: bool | Collection[str]) -> frozenset[str] | None:
    """:attr:`RunState.record_actions` for ``explain`` (True: None, every entry; False: none)."""
    if explain is True:
        return None
    if explain is False:
        return frozenset()
    if isinstance(explain, str):
        raise TypeError(f"explain={explain!r}: expected True, False or a collection of actions")
    return frozenset(explain)


def _mark_slot(page: Page) -> str:
    """Put a comment no page can know (a random name) where a caller's content goes: in ``<body>``,
    after the in-page links that open it (the skip link), else at its start. Returns its text."""
    body = dom.body_of(page.root)
    at = 0
    for child in body:
        if not (isinstance(child.tag, str) and child.tag == "a" and (child.get("href") or "").startswith("#")):
            break
        at += 1
    mark = f"pagesieve-slot-{secrets.token_hex(8)}"
    comment = etree.Comment(mark)
    body.insert(at, comment)
    return mark


def _take_mark(body: bytes, mark: str, encoding: str) -> tuple[bytes, int | None]:
    """``body`` without the comment :func:`_mark_slot` put in, and the byte offset where it was
    (None, and ``body`` as it is, when it is not found exactly once in ``encoding``)."""
    try:
        needle = f"<!--{mark}-->".encode(encoding)
    except (LookupError, UnicodeError):
        return body, None
    at = body.find(needle)
    if at < 0 or body.find(needle, at + 1) >= 0:
        return body, None
    return body[:at] + body[at + len(needle):], at


def untouched(data: bytes) -> bytes:
    """Parse and serialize with no filter (the benchmark floor)."""
    return serialize(parse(data))
