"""``link_blocks``: remove logical link blocks found by one linear scan, without a tag tree.

Source: Wang, Wu, Huang & Gu, "A new recognition approach for logical link blocks in webpages"
(``../shared/papers/logical-link-blocks.txt``), section 3 (definitions 1–5, the scan, LCR and
CCR) and section 4.2 (parameter values).

* **Link distance** (definition 3) is measured from a link's ``</a>`` to the next link's
  ``<a>``, either as **code distance** (definition 1: the length of everything between, tags
  written without their attributes, e.g. ``<a>``) or as **text distance** (definition 2: the
  text between, counted with the paper's rules — a word, a number, a whole date, one CJK
  character, one punctuation mark or a run of the same mark each count 1).
* A **logical link block** (definition 5) is a run of links whose adjacent distances are all
  below ``d_t`` (``max(d_i) < d_t``) holding at least ``C_t`` links (``C >= C_t``). The scan
  goes once from front to back: while the next distance is below ``d_t`` the run grows; when it
  is not, the run closes and is a block if it has ``C_t`` links.
* **LCR** = links in blocks / links of the page; **CCR** = code length of the blocks / code
  length of the page. Both are noted (``--explain``) for every page.

The scan runs over the event stream of :func:`lxml.etree.iterwalk` on ``<body>`` (start tag,
text, end tag, tail, in document order): this is exactly the order of the serialized source,
so the distances are those of the paper's scan over the (parsed, repaired) code, in one linear
pass and without looking at parents or children. Working on the events rather than on the
serialized string is what maps each block back to its ``<a>`` elements. A block's links and the
code between them are removed: elements that open and close inside the block are removed,
text between the first ``<a>`` and the last ``</a>`` is blanked, and containers the removal
leaves without text or media go too. Inline runs of ad links inside a paragraph are a
block like any other: the scan does not care about block-level tags.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from lxml import etree
from lxml.html import HtmlElement

from pagesieve.core import dom
from pagesieve.core.settings import setting
from pagesieve.filters.base import Filter

# Text distance counting units (definition 2, rules 1-5), tried in this order at each position.
_CJK = "\u3040-\u30ff\u3100-\u312f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f"
_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
          r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_DATE = (rf"\d{{4}}[-/.]\d{{1,2}}[-/.]\d{{1,2}}"                       # 2014-03-08
         rf"|\d{{1,2}}[-/.]\d{{1,2}}[-/.]\d{{2,4}}"                    # 08/03/2014
         rf"|\d{{4}}年\d{{1,2}}月(?:\d{{1,2}}日)?"                       # 2014年3月8日
         rf"|{_MONTH}\s+{_DAY}(?:,?\s+\d{{4}})?(?!\w)"                  # March 8th, 2014
         rf"|{_DAY}\s+{_MONTH}(?:,?\s+\d{{4}})?(?!\w)")                 # 8 March 2014
TEXT_UNITS = re.compile(
    rf"(?P<date>{_DATE})"
    r"|(?P<number>\d+(?:[.,]\d+)*)"
    rf"|(?P<cjk>[{_CJK}])"
    rf"|(?P<word>[^\W\d_{_CJK}]+(?:['’][^\W\d_{_CJK}]+)*)"
    r"|(?P<punct>([^\w\s])\6*)",
    re.IGNORECASE | re.UNICODE)
# Only the code between links matters; text inside these is code, never page text.
_CODE_ONLY = frozenset({"script", "style", "template", "noscript"})
_MEDIA = ("img", "picture", "video", "audio", "iframe", "object", "embed", "svg", "canvas", "input",
          "select", "textarea", "button")


def text_distance(text: str) -> int:
    """The paper's text length: words, numbers, whole dates, CJK characters, punctuation runs."""
    return sum(1 for _ in TEXT_UNITS.finditer(text))


@dataclass(frozen=True)
class LinkBlocksSettings:
    """Definition 5's thresholds and the distance measure."""

    distance: Literal["text", "code"] = setting("text", "Link distance measure: 'text' (definition 2: words, "
                                                        "numbers, dates, CJK characters, punctuation) or 'code' "
                                                        "(definition 1: characters of attribute-free code).",
                                                choices=("text", "code"), group="advanced", scope="preset")
    # Sources: C_t: a logical link block holds at least this many links (paper 4.2: C_t = 3).
    min_links: int = setting(3, "A run of links holds at least this many links.",
                             minimum=2, group="advanced", scope="user")
    # Sources: d_t for text distance: adjacent links of a block are fewer than this many text units apart (paper 4.2,
    # second group: 40). Lower keeps more sentences with several inline links (10: recall 0.994, F1 0.825 on the
    # shared corpus; 40: 0.943, 0.853).
    max_text_distance: int = setting(40, "Links of one run are fewer than this many words apart. Lower keeps more "
                                         "sentences that hold several links.", minimum=1, group="advanced", scope="user")
    # Sources: d_t for code distance: adjacent links of a block are fewer than this many code characters apart (paper
    # 4.2: 80).
    max_code_distance: int = setting(80, "Links of one run are fewer than this many characters of markup apart.", minimum=1, group="advanced", scope="user")
    keep_article_links: bool = setting(True, "Leave links inside the article found by an earlier filter alone.",
                                       group="advanced", scope="user")


class _Link:
    __slots__ = ("el", "start", "end", "pos_start", "pos_end")

    def __init__(self, el: HtmlElement, start: int, pos_start: int) -> None:
        self.el, self.start, self.pos_start = el, start, pos_start
        self.end, self.pos_end = start, pos_start


def scan(body: HtmlElement, text_mode: bool) -> tuple[list, list[_Link], list[int], int]:
    """One pass over ``body``'s events: (events, links, distance before each link, code length).

    ``events`` are (kind, element) with kind "start", "end", "text" (the element's text) or
    "tail" (its tail); a link's ``start``/``end`` are the indexes of its events.
    """
    events: list[tuple[str, HtmlElement]] = []
    links: list[_Link] = []
    gaps: list[int] = []
    pos = 0          # code length so far (attribute-free tags + text)
    gap_text: list[str] = []
    gap_code = 0
    open_link: _Link | None = None
    code_only = 0
    for action, el in etree.iterwalk(body, events=("start", "end", "comment", "pi")):
        if action in ("comment", "pi"):
            n = len(etree.tostring(el, with_tail=False, encoding="unicode"))
            pos += n
            gap_code += n
            if el.tail:
                events.append(("tail", el))
                pos += len(el.tail)
                gap_code += len(el.tail)
                gap_text.append(el.tail)
            continue
        tag = el.tag if isinstance(el.tag, str) else ""
        if action == "start":
            if tag == "a" and el.get("href") is not None and open_link is None and not code_only:
                gaps.append(text_distance(" ".join(gap_text)) if text_mode else gap_code)
                open_link = _Link(el, len(events), pos)
            if tag in _CODE_ONLY:
                code_only += 1
            events.append(("start", el))
            pos += len(tag) + 2
            gap_code += len(tag) + 2
            if el.text:
                events.append(("text", el))
                pos += len(el.text)
                gap_code += len(el.text)
                if not code_only:
                    gap_text.append(el.text)
        else:
            events.append(("end", el))
            pos += len(tag) + 3
            gap_code += len(tag) + 3
            if tag in _CODE_ONLY:
                code_only -= 1
            if open_link is not None and el is open_link.el:
                open_link.end, open_link.pos_end = len(events) - 1, pos
                links.append(open_link)
                open_link = None
                gap_text, gap_code = [], 0
            if el.tail and el is not body:
                events.append(("tail", el))
                pos += len(el.tail)
                gap_code += len(el.tail)
                if not code_only:
                    gap_text.append(el.tail)
    return events, links, gaps, pos


def find_blocks(gaps: list[int], min_links: int, max_distance: int) -> list[tuple[int, int]]:
    """(first, last) link indexes of each run with every inner gap < ``max_distance`` and at
    least ``min_links`` links. ``gaps[i]`` is the distance from link i-1 to link i."""
    blocks = []
    first = 0
    for i in range(1, len(gaps) + 1):
        if i == len(gaps) or gaps[i] >= max_distance:
            if i - first >= min_links:
                blocks.append((first, i - 1))
            first = i
    return blocks


class LinkBlocksFilter(Filter):
    name = "link_blocks"
    assigns = ("removed_links",)
    Settings = LinkBlocksSettings
    summary = "Remove logical link blocks (runs of nearby links, even inside paragraphs) found in one scan (Wang et al.)."

    def __init__(self, settings: LinkBlocksSettings) -> None:
        super().__init__(settings)
        self._text_mode = settings.distance == "text"
        self._d_t = settings.max_text_distance if self._text_mode else settings.max_code_distance

    def apply(self, page, ctx) -> None:
        s = self.settings
        body = dom.body_of(page.root)
        events, links, gaps, code_len = scan(body, self._text_mode)
        threshold = {"C_t": s.min_links, "d_t": self._d_t, "distance": s.distance}
        blocks = find_blocks(gaps, s.min_links, self._d_t)
        article = ctx.article if s.keep_article_links else None
        if article is not None:
            inside = set(article.iter("a"))
            blocks = [b for b in blocks if not any(links[i].el in inside for i in range(b[0], b[1] + 1))]
        block_links = sum(b - a + 1 for a, b in blocks)
        block_code = sum(links[b].pos_end - links[a].pos_start for a, b in blocks)
        ctx.note("measure", body, "runs of nearby links on the page, and the share of links and of markup they hold",
                 measured={"links": len(links), "blocks": len(blocks),
                           "LCR": round(block_links / len(links), 4) if links else 0.0,
                           "CCR": round(block_code / code_len, 4) if code_len else 0.0},
                 threshold=threshold)
        for a, b in blocks:
            first, last = links[a], links[b]
            inner = gaps[a + 1:b + 1]
            ctx.note("remove", first.el, f"logical link block of {b - a + 1} links",
                     measured={"links": b - a + 1, "max_distance": max(inner), "code_length":
                               last.pos_end - first.pos_start, "first": dom.text_of(first.el)[:60],
                               "last": dom.text_of(last.el)[:60]},
                     threshold=threshold)
            self._remove_span(events, first.start, last.end, ctx)

    @staticmethod
    def _remove_span(events: list, start: int, end: int, ctx) -> None:
        """Remove what lies between event indexes ``start`` and ``end`` (both included)."""
        opened: dict[HtmlElement, int] = {}
        inside: list[HtmlElement] = []
        for i in range(start, end + 1):
            kind, el = events[i]
            if kind == "start":
                opened[el] = i
            elif kind == "end" and el in opened:
                inside.append(el)
        whole = set(inside)
        for i in range(start, end + 1):
            kind, el = events[i]
            if kind == "text" and el not in whole and el.text:
                ctx.set_text(el, None)
            elif kind == "tail" and el.tail and el.getparent() not in whole:
                ctx.set_text(el, None, tail=True)
        parents = set()
        for el in inside:
            if el.getparent() not in whole:  # topmost
                parents.add(el.getparent())
                ctx.remove(el, "inside a logical link block", explain=False)
        for parent in parents:  # containers left empty (an <li> around the first link …)
            node = parent
            while node is not None and node.tag != "body" and ctx.in_document(node):
                if dom.text_len(node) or next(node.iter(*_MEDIA), None) is not None:
                    break
                up = node.getparent()
                ctx.remove(node, "left empty by a removed link block", explain=False)
                node = up
