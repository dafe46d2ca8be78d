"""``link_density``: find the main content by link density, level by level (a reader algorithm).

Source: Gunasundari & Karthikeyan, "A study of content extraction from web pages based on
links" (``../shared/papers/link-density-content-extraction.txt``), sections 3.1–3.3.

Per node (section 3.1), computed for every element in one bottom-up pass:

* **NTL** node text length: non-whitespace characters of the text under the node;
* **LTD** link text density: characters inside links / NTL;
* **LA** link amount: number of links (``<a>`` with text) under the node;
* **LAD** link amount density: LA / number of nodes under the node, where nodes are the
  elements and the non-blank text nodes (HtmlParser, the paper's tool, counts text nodes).

Step 2 (pre-processing) is done on the fly, not on the tree: text-less elements and the
``ignored_tags`` subtrees (paper: script, style, form, marquee, meta) are left out of the
statistics and of the walk. Steps 3–5: starting at ``<html>``, among the children of the
current node that meet the *basic content* thresholds, the one with the most text outside
links (the "optimum node" of step 3) is chosen; if it meets the *precise content* thresholds
it is extracted (step 4), together with its siblings that meet them too (step 5); otherwise the walk descends into it. When no child meets the basic
thresholds the walk stops and extracts the deepest basic node reached (the paper declares such a page "not suitable";
when even ``<body>`` is not basic content the page is left unchanged and a note says why).

The paper prints every threshold as "x = v"; the bounds meant are documented per setting.
Everything in ``<body>`` outside the extracted nodes is removed (their ancestors stay, their
loose text is blanked), and the article is set to the extracted nodes' parent (or the node).
"""

from __future__ import annotations

from dataclasses import dataclass

from lxml.html import HtmlElement

from pagesieve.core import dom
from pagesieve.core.measure import chars
from pagesieve.core.settings import setting
from pagesieve.filters.base import Filter

_NTL, _LINK_CHARS, _LA, _NODES = range(4)


_chars = chars  # non-whitespace characters: the one helper (pagesieve.core.measure)


@dataclass(frozen=True)
class LinkDensitySettings:
    """Thresholds of the paper's steps 3 (basic content) and 4 (precise content)."""

    # Sources: Basic content: LTD (link characters / text characters) at most this (paper 3.2 step 3: LTD = 0.4, an
    # upper bound).
    basic_ltd: float = setting(0.4, "A content block has at most this share of its characters in links.",
                               minimum=0, maximum=1, group="advanced", scope="user")
    # Sources: Basic content: LA (links under the node) at most this; null = no bound. The paper lists LA = 10 (step
    # 3) but as a bound it rejects nearly every <body>; LA is its cue to descend (3.1 2), which the precise bound
    # does.
    basic_la: int | None = setting(None, "A content block holds at most this many links; empty: no limit.", minimum=0, group="advanced", scope="user")
    # Sources: Basic content: NTL (non-whitespace text characters) at least this (paper 3.2 step 3: NTL = 100, a lower
    # bound).
    basic_ntl: int = setting(100, "A content block holds at least this many characters of text.", minimum=0, group="advanced", scope="user")
    # Sources: Basic content: LAD (links / nodes under the node) at most this (paper 3.2 step 3: LAD = 0.5, an upper
    # bound).
    basic_lad: float = setting(0.5, "A content block has at most this many links per element inside it.",
                               minimum=0, maximum=1, group="advanced", scope="user")
    # Sources: Precise content: LTD at most this (paper 3.2 step 4: LTD = 0.1, an upper bound).
    precise_ltd: float = setting(0.1, "The content finally kept has at most this share of its characters in links.", minimum=0, maximum=1, group="advanced", scope="user")
    # Sources: Precise content: LA at most this; more links means descend (paper 3.2 step 4: LA = 10, an upper bound).
    precise_la: int = setting(10, "The content finally kept holds at most this many links; with more, the search goes"
                                  " one level deeper.", minimum=0, group="advanced", scope="user")
    # Sources: Precise content: NTL at least this (paper 3.2 step 4: NTL = 50, a lower bound).
    precise_ntl: int = setting(50, "The content finally kept holds at least this many characters of text.", minimum=0, group="advanced", scope="user")
    # Sources: Precise content: LAD at most this (paper 3.2 step 4: LAD = 0.1, an upper bound).
    precise_lad: float = setting(0.1, "The content finally kept has at most this many links per element inside it.", minimum=0, maximum=1, group="advanced", scope="user")
    # Sources: Step 5: also extract the siblings of the chosen node that meet the precise-content thresholds.
    siblings: bool = setting(True, "Also keep the blocks next to the chosen one that pass the same tests.", group="advanced", scope="user")
    # Sources: When no node of a level meets the basic thresholds before any did (e.g. a <body> whose menus make LTD >
    # basic_ltd), descend into the child with the most text outside links instead of giving up (the paper gives up:
    # 3.3 step 14).
    search_link_heavy: bool = setting(False, "When no block of a level passes (menus everywhere), look inside the "
                                             "part with the most text outside links instead of giving up.", group="advanced", scope="user")
    ignored_tags: tuple[str, ...] = setting(("script", "style", "form", "marquee", "meta", "noscript", "template"),
                                            "Subtrees left out of the statistics and the walk: what a reader never sees "
                                            "as text (scripts, styles, forms, scrolling banners, metadata, "
                                            "no-script fallbacks and templates).", group="advanced", scope="preset")


def node_stats(root: HtmlElement, ignored: frozenset[str]) -> dict[HtmlElement, list[int]]:
    """NTL, link characters, LA and node count for every counted element under ``root``, in one
    pass (children before parents). Ignored subtrees and comments are not in the result."""
    order: list[HtmlElement] = []
    in_link: dict[HtmlElement, bool] = {}
    stack = [root]
    while stack:  # pre-order without recursion (deep broken pages)
        el = stack.pop()
        if not isinstance(el.tag, str) or el.tag in ignored:
            continue
        parent = el.getparent()
        in_link[el] = el.tag == "a" or (parent is not None and in_link.get(parent, False))
        order.append(el)
        stack.extend(reversed(el))
    stats: dict[HtmlElement, list[int]] = {el: [0, 0, 0, 0] for el in order}
    for el in reversed(order):
        s = stats[el]
        link = in_link[el]
        pieces = [el.text] + [c.tail for c in el]  # the element's own text nodes
        for t in pieces:
            n = _chars(t)
            if n:
                s[_NTL] += n
                s[_NODES] += 1
                if link:
                    s[_LINK_CHARS] += n
        for c in el:
            cs = stats.get(c)
            if cs is not None and cs[_NTL]:  # text-less elements are not counted (step 2)
                s[_NTL] += cs[_NTL]
                s[_LINK_CHARS] += cs[_LINK_CHARS]
                s[_LA] += cs[_LA]
                s[_NODES] += cs[_NODES] + 1
        if el.tag == "a" and s[_NTL]:
            s[_LA] += 1
    return stats


def _below(node: HtmlElement, top: HtmlElement, known: dict[HtmlElement, bool]) -> bool:
    """Whether ``node`` is ``top`` or below it; ``known`` (``{top: True}`` at first) remembers the
    answer for every element on the way up, so many nodes of one deep nesting cost its depth once."""
    path = []
    el: HtmlElement | None = node
    while el is not None and el not in known:
        path.append(el)
        el = el.getparent()
    answer = known[el] if el is not None else False
    for p in path:
        known[p] = answer
    return answer


def measures(s: list[int]) -> dict[str, float]:
    """LTD, LA, NTL, LAD of one node's raw statistics."""
    ntl = s[_NTL]
    return {"LTD": round(s[_LINK_CHARS] / ntl, 4) if ntl else 0.0, "LA": s[_LA], "NTL": ntl,
            "LAD": round(s[_LA] / s[_NODES], 4) if s[_NODES] else 0.0}


class LinkDensityFilter(Filter):
    name = "link_density"
    assigns = ("article", "removed_links")
    Settings = LinkDensitySettings
    summary = "Reader: keep the content found by link text density, level by level (Gunasundari & Karthikeyan)."

    def __init__(self, settings: LinkDensitySettings) -> None:
        super().__init__(settings)
        s = settings
        self._ignored = frozenset(s.ignored_tags)
        self._basic = {"LTD": s.basic_ltd, "NTL": s.basic_ntl, "LAD": s.basic_lad}
        if s.basic_la is not None:
            self._basic["LA"] = s.basic_la
        self._precise = {"LTD": s.precise_ltd, "LA": s.precise_la, "NTL": s.precise_ntl, "LAD": s.precise_lad}

    @staticmethod
    def _meets(m: dict[str, float], bounds: dict[str, float]) -> bool:
        """NTL is a lower bound; LTD, LA and LAD are upper bounds."""
        return all(m[k] >= v if k == "NTL" else m[k] <= v for k, v in bounds.items())

    def select(self, root: HtmlElement, stats: dict) -> tuple[list[HtmlElement], list[HtmlElement]]:
        """(extracted nodes, the chosen path from the root) — steps 3 to 5."""
        current, found = root, False
        path: list[HtmlElement] = []
        own_text = lambda c: stats[c][_NTL] - stats[c][_LINK_CHARS]  # noqa: E731
        while True:
            kids = [c for c in current if c in stats and stats[c][_NTL]]
            basic = [c for c in kids if self._meets(measures(stats[c]), self._basic)]
            if not basic:
                if found:
                    return [current], path
                if not kids or not self.settings.search_link_heavy:
                    return [], path
                current = max(kids, key=own_text)  # no basic content yet: look deeper
                path.append(current)
                continue
            found = True
            best = max(basic, key=own_text)
            path.append(best)
            if self._meets(measures(stats[best]), self._precise):
                chosen = [best]
                if self.settings.siblings:
                    chosen = [c for c in kids if c is best or self._meets(measures(stats[c]), self._precise)]
                return chosen, path
            current = best

    def apply(self, page, ctx) -> None:
        root = page.root
        body = dom.body_of(root)
        stats = node_stats(root, self._ignored)
        chosen, path = self.select(root, stats)
        inside = {body: True}
        chosen = [c for c in chosen if _below(c, body, inside)]
        if not chosen:
            ctx.note("skip", body, "no node meets the basic-content thresholds; page left unchanged "
                     "(a page this way of finding the content does not suit)",
                     measured=measures(stats[body]) if body in stats else None, threshold=self._basic)
            return
        ctx.note("select", chosen[0], f"content found after descending {len(path)} levels; "
                 f"{len(chosen)} node(s) extracted", measured=measures(stats[chosen[0]]),
                 threshold={"basic": self._basic, "precise": self._precise})
        container = chosen[0] if len(chosen) == 1 else chosen[0].getparent()
        ctx.set_article(container)  # before removing: the loss guard then protects what is kept
        # Every child of body and of the kept nodes' ancestors that is neither kept nor on the way
        # to a kept node goes; the loose text between them is blanked.
        ctx.keep_only(body, chosen, reason="outside the content selected by link density",
                      measured=lambda n: measures(stats[n]) if n in stats else None)
