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
import time
from copy import deepcopy
from dataclasses import dataclass, field
from typing import Any

from lxml.html import HtmlElement

from pagesieve import dom
from pagesieve.document import Page, parse, serialize
from pagesieve.filters.base import Filter

log = logging.getLogger("pagesieve.chain")


@dataclass
class RunState:
    """What the filters of one page run share: the record, removed links, the article mark."""

    root: HtmlElement
    record: list[dict[str, Any]] = field(default_factory=list)
    #: (document position, href, text) of text links that left the page.
    removed_links: list[tuple[int, str, str]] = field(default_factory=list)
    #: The main-content subtree, once the ``article`` filter (or a reader algorithm) found it.
    article: HtmlElement | None = None
    #: Free-form results one filter leaves for later ones (e.g. ``"images_checked"``).
    marks: dict[str, Any] = field(default_factory=dict)
    #: Per-site memory for filters that learn across pages (None offline without a store).
    store: Any = None
    _link_order: dict | None = None
    _guard: tuple[HtmlElement, int] | None = None

    def link_position(self, a: HtmlElement) -> int:
        if self._link_order is None:
            self._link_order = {el: i for i, el in enumerate(self.root.iter("a"))}
        return self._link_order.get(a, 1 << 30)

    def guard_base(self) -> tuple[HtmlElement, int]:
        """The text the loss guard protects: the article if known, else the body, and its size.

        Measured once and then kept up to date by :meth:`settle` while filters only remove
        (measuring the body's text is a walk over the whole page, per filter otherwise)."""
        node = self.article if self.article is not None else dom.body_of(self.root)
        if self._guard is None or self._guard[0] is not node:
            self._guard = (node, dom.text_len(node))
        return self._guard

    def settle(self, ops: list[tuple], lost_chars: int) -> None:
        """A filter's changes stayed: keep the measured guard size exact, or forget it."""
        if self._guard is None or not ops:
            return
        if all(op[0] in ("remove", "attr") for op in ops):
            self._guard = (self._guard[0], max(0, self._guard[1] - lost_chars))
        else:  # text set, nodes inserted or replaced, the article moved: measure again when asked
            self._guard = None


class FilterContext:
    """The only way a filter changes the tree: explained, undoable changes."""

    def __init__(self, name: str, state: RunState, page: Page) -> None:
        self.name = name
        self.state = state
        self.page = page
        self.removed = 0
        self.lost_chars = 0
        self._ops: list[tuple] = []
        self._guard_node, self._guard_chars = None, 0

    # -- reading ---------------------------------------------------------------------
    @property
    def article(self) -> HtmlElement | None:
        return self.state.article

    @property
    def record(self) -> list[dict[str, Any]]:
        return self.state.record

    def in_document(self, node: HtmlElement) -> bool:
        """True when ``node`` is still attached to the page (not inside a removed subtree)."""
        top = node
        for top in node.iterancestors():  # noqa: B007 - the last ancestor is what is wanted
            pass
        return top is self.page.root or node is self.page.root

    # -- explaining ------------------------------------------------------------------
    def note(self, action: str, node: HtmlElement | None = None, reason: str = "", **details: Any) -> None:
        """Record a decision that changed nothing (or a summary) in the explanation."""
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
        self._ops.append(("article", self.state.article))
        self.state.article = node

    def remove(self, node: HtmlElement, reason: str, *, measured: dict | None = None,
               threshold: dict | None = None, explain: bool = True) -> bool:
        """Remove ``node`` (its tail text stays), explained. False if it was already gone."""
        parent = node.getparent()
        if parent is None or not self.in_document(node):
            return False
        if explain:
            self.note("remove", node, reason, measured=measured, threshold=threshold)
        self._track_loss(node)
        self._collect_links(node)
        prev = node.getprevious()
        saved = prev.tail if prev is not None else parent.text
        index = parent.index(node)
        dom.remove_keep_tail(node)
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
        new.tail, old_tail = old.tail, old.tail
        parent.replace(old, new)
        self._ops.append(("replace", old, new, old_tail))
        self.removed += 1

    def insert(self, parent: HtmlElement, index: int, node: HtmlElement) -> None:
        """Insert a new ``node`` into ``parent`` at ``index`` (undoable)."""
        parent.insert(index, node)
        self._ops.append(("insert", node))

    def set_attr(self, node: HtmlElement, name: str, value: str | None) -> None:
        """Set (or with None, delete) an attribute (undoable)."""
        old = dict(node.attrib)
        if value is None:
            if name in node.attrib:
                del node.attrib[name]
        else:
            node.set(name, value)
        self._ops.append(("attr", node, name, old))

    def set_text(self, node: HtmlElement, text: str | None, *, tail: bool = False) -> None:
        """Set a node's text (or tail) (undoable)."""
        old = node.tail if tail else node.text
        if tail:
            node.tail = text
        else:
            node.text = text
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
        before = self.state.article
        order = self.state._link_order
        for old, new in zip(node.iter(), live.iter()):
            if old is self.state.article:
                self.state.article = new
            if order is not None and old.tag == "a" and old in order:
                order[new] = order[old]
        parent.replace(node, live)
        self._ops.append(("checkpoint", node, live, before, self.state.article))
        return live

    # -- bookkeeping -------------------------------------------------------------------
    def _track_loss(self, node: HtmlElement, keep: HtmlElement | None = None) -> None:
        if self._guard_node is None:
            self._guard_node, self._guard_chars = self.state.guard_base()
        guard = self._guard_node
        if node is guard or any(a is node for a in guard.iterancestors()):
            self.lost_chars += self._guard_chars
        elif any(a is guard for a in node.iterancestors()):
            self.lost_chars += dom.text_len(node) - (dom.text_len(keep) if keep is not None else 0)

    def _collect_links(self, node: HtmlElement, keep: HtmlElement | None = None) -> None:
        kept = set(keep.iter("a")) if keep is not None else ()
        links = [node] if node.tag == "a" else []
        links.extend(node.iter("a") if node.tag != "a" else ())
        for a in links:
            if a in kept:
                continue
            href = a.get("href")
            text = dom.text_of(a)
            if href and text:
                self.state.removed_links.append((self.state.link_position(a), href.strip(), text))

    def rollback(self) -> None:
        """Undo every change of this filter on this page, newest first."""
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
                _, node, name, old = op
                node.attrib.clear()
                node.attrib.update(old)
            elif kind == "text":
                _, node, tail, old = op
                if tail:
                    node.tail = old
                else:
                    node.text = old
            elif kind == "checkpoint":
                _, original, live, before, mapped = op
                live.getparent().replace(live, original)
                if self.state.article is mapped:
                    self.state.article = before
            elif kind == "article":
                self.state.article = op[1]
        self._ops.clear()


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

    @property
    def failed(self) -> list[str]:
        return [f["filter"] for f in self.filters if f["status"] == "error"]

    @property
    def removed_by(self) -> list[str]:
        return [f["filter"] for f in self.filters if f["removed"] and f["status"] == "ok"]


class Chain:
    """An ordered list of ready filters plus output settings; built once, run per page."""

    def __init__(self, filters: list[Filter], output, safety, preset: str | None = None) -> None:
        self.filters = filters
        self.output = output
        self.safety = safety
        self.preset = preset
        self._logged: set[tuple[str, str]] = set()

    def run(self, page: Page, store: Any = None) -> tuple[RunState, list[dict[str, Any]]]:
        """Run every filter over ``page`` in place; returns the run state and per-filter stats."""
        state = RunState(root=page.root, store=store)
        stats = []
        for flt in self.filters:
            ctx = FilterContext(flt.name, state, page)
            t0 = time.perf_counter()
            status = "ok"
            try:
                flt.apply(page, ctx)
            except Exception as err:  # noqa: BLE001 - the error boundary of one filter
                status = "error"
                self._log_failure(flt.name, page, err)
                ctx.rollback()
                ctx.note("error", reason=f"{type(err).__name__}: {err}; the page is kept as it was before this filter")
            else:
                if flt.destructive and ctx.lost_chars and ctx._guard_chars:
                    loss = ctx.lost_chars / ctx._guard_chars
                    if loss > self.safety.max_article_loss:
                        status = "reverted"
                        ctx.rollback()
                        ctx.note("revert", reason="would remove nearly all of the article text; its removals are undone",
                                 measured={"article_text_lost": round(loss, 3)},
                                 threshold={"max_article_loss": self.safety.max_article_loss})
            if status == "ok":
                state.settle(ctx._ops, ctx.lost_chars)
            stats.append({"filter": flt.name, "ms": round((time.perf_counter() - t0) * 1000, 3),
                          "removed": ctx.removed if status == "ok" else 0, "status": status})
        return state, stats

    def _log_failure(self, name: str, page: Page, err: Exception) -> None:
        key = (name, type(err).__name__)
        first = key not in self._logged
        self._logged.add(key)
        log.error("filter %s failed on %s: %s: %s; page kept as before this filter",
                  name, page.url or "<page>", type(err).__name__, err, exc_info=first)

    def process(self, data: bytes, *, url: str | None = None, declared_encoding: str | None = None,
                store: Any = None) -> ChainResult:
        """Parse, filter and render one page. Raises InputError for input that is not HTML."""
        from pagesieve.output import render  # output depends on document only

        t0 = time.perf_counter()
        page = parse(data, url=url, declared_encoding=declared_encoding)
        state, stats = self.run(page, store=store)
        body, media_type = render(page, state, self.output)
        return ChainResult(body=body, media_type=media_type, encoding=page.encoding, record=state.record,
                           filters=stats, ms=round((time.perf_counter() - t0) * 1000, 3), preset=self.preset)


def untouched(data: bytes) -> bytes:
    """Parse and serialize with no filter (the benchmark floor)."""
    return serialize(parse(data))
