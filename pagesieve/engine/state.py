"""What the filters of one page run share: the record and the hand-off fields (:data:`HANDOFFS`)
through which one filter passes a result to later ones (:class:`RunState`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypedDict

from lxml.html import HtmlElement

from pagesieve.core import dom
from pagesieve.core.measure import TextMeasure


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
