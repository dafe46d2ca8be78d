"""The only way a filter changes a page's tree: :class:`FilterContext`.

The chain opens one context per filter: every change the filter makes goes through it, so that
the context can

* explain it (filter, node, measured values, threshold) in the page's record,
* remember the text links that disappear (for the ``removed_links`` filter),
* undo it (:meth:`FilterContext.rollback`), when the chain decides the filter's work must not stay.
"""

from __future__ import annotations

import re
from copy import deepcopy
from typing import Any, Callable, Collection, Iterable

from lxml.html import HtmlElement

from pagesieve.core import dom
from pagesieve.engine.document import Page
from pagesieve.engine.output import text_shown, words_shown
from pagesieve.engine.state import HANDOFFS, RunState


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
        the run records no entry of ``action`` (:attr:`~pagesieve.engine.state.RunState.record_actions`)."""
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
        """Hand results on to later filters: set hand-off fields of the run state (:data:`~pagesieve.engine.state.HANDOFFS`;
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

    def replace(self, old: HtmlElement, new: HtmlElement, reason: str, *, explain: bool = True,
                **details: Any) -> None:
        """Put ``new`` where ``old`` is (``old``'s tail moves to ``new``), explained (``explain=False``: the
        filter notes the count of its replacements once instead, as it does for its removals)."""
        parent = old.getparent()
        if parent is None:
            return
        if explain:
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
