"""The scores of ``main_content``: each block's counts, Readability's paragraph scores and the choice
of the best block, its joining siblings and its cousins (see the package docstring)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from lxml.html import HtmlElement

from pagesieve.analysis.furniture import consent_named
from pagesieve.core import dom
from pagesieve.core.measure import BLOCKS, elements_with
from pagesieve.filters.main_content.common import (
    BOILERPLATE_ROLES,
    FOLDED_NAMES,
    HIDDEN,
    MAYBE_NAMES,
    NEGATIVE_NAMES,
    POSITIVE_NAMES,
    UNLIKELY_NAMES,
    names_of,
)
from pagesieve.filters.main_content.settings import MainContentSettings

COMMAS = re.compile(r"[\u002C\u060C\uFE50\uFE10\uFE11\u2E41\u2E34\u2E32\uFF0C]")
SENTENCE_END = re.compile(r"\.( |$)")
SKIP_TAGS = frozenset({"script", "style", "noscript", "template", "head", "title", "svg", "math", "iframe", "object",
                       "embed", "select", "button", "textarea", "input", "meta", "link"})
# How many of the best candidates are compared with the best (Readability DEFAULT_N_TOP_CANDIDATES).
N_TOP_CANDIDATES = 5
# Readability's tag weights for a new candidate (_initializeNode).
TAG_WEIGHT = {"div": 5, "pre": 3, "td": 3, "blockquote": 3, "address": -3, "ol": -3, "ul": -3, "dl": -3, "dd": -3,
              "dt": -3, "li": -3, "form": -3, "h1": -5, "h2": -5, "h3": -5, "h4": -5, "h5": -5, "h6": -5, "th": -5}
# Elements whose text is a paragraph to score (Readability DEFAULT_TAGS_TO_SCORE plus the
# block containers it turns into paragraphs when they hold no other block).
PARAGRAPH_TAGS = frozenset({"p", "pre", "td", "h2", "h3", "h4", "h5", "h6", "section", "div", "article", "li",
                            "blockquote", "dd", "main", "center"})
#: ASCII characters str.split() splits at (its whitespace), deleted to count the others.
_ASCII_SPACES = bytes(c for c in range(128) if chr(c).isspace())


@dataclass(slots=True)
class BlockScore:
    """One element's counts: its own paragraph (its text outside its block children: ``para_chars``,
    ``para_commas``, ``para_link``) and its whole text (``chars``, ``link`` characters inside links,
    ``commas``), and whether it holds a block (``block``)."""

    para_chars: int
    chars: int
    link: int
    commas: int
    block: bool
    para_commas: int
    para_link: int


def _hidden(body: HtmlElement) -> set[HtmlElement] | None:
    """The hidden elements of ``body`` the walk leaves out; None when ``body`` itself is left out."""
    if not isinstance(body.tag, str) or body.tag in SKIP_TAGS:
        return None
    hidden = {el for el in HIDDEN(body) if not FOLDED_NAMES.found(names_of(el))}
    return None if body in hidden else hidden


def _walk(body: HtmlElement, hidden: set[HtmlElement]) -> tuple[list[HtmlElement], dict[HtmlElement, bool]]:
    """Pre-order elements of ``body`` (skipped tags and ``hidden`` elements left out) and, per element,
    whether it is inside a link."""
    order: list[HtmlElement] = []
    in_link: dict[HtmlElement, bool] = {}
    # The elements in document order, picked in C; one is in when its parent is (in in_link)
    # and it is neither skipped nor hidden, so a left-out element's subtree stays out.
    in_link[body] = body.tag == "a"
    order.append(body)
    above_of = in_link.get
    elements = body.iter(dom.ELEMENT)
    next(elements)
    for el in elements:
        above = above_of(el.getparent())
        if above is None:
            continue  # under a left-out element
        tag = el.tag
        if tag in SKIP_TAGS or el in hidden:
            continue
        in_link[el] = above or tag == "a"
        order.append(el)
    return order, in_link


def stats(body: HtmlElement) -> tuple[list[HtmlElement], dict[HtmlElement, BlockScore]]:
    """Pre-order elements of ``body`` (skipped tags and hidden elements left out) and, per
    element, its :class:`BlockScore`. Inline chars are the element's text outside its block
    children (its own paragraph). Counted in C (``pagesieve.core._blocks``) where it is built (the same
    numbers: tests/test_pagetable.py), else by :func:`py_stats`."""
    if BLOCKS is None:
        return py_stats(body)
    hidden = _hidden(body)
    if hidden is None:
        return [], {}
    return BLOCKS.block_counts(body, hidden, SKIP_TAGS, dom.BLOCK_TAGS, BlockScore)


def py_stats(body: HtmlElement) -> tuple[list[HtmlElement], dict[HtmlElement, BlockScore]]:
    """:func:`stats` in Python."""
    hidden = _hidden(body)
    if hidden is None:
        return [], {}
    order, in_link = _walk(body, hidden)
    st: dict[HtmlElement, BlockScore] = {}
    get = st.get
    findall = COMMAS.findall
    block_tags = dom.BLOCK_TAGS
    for el in reversed(order):
        # Whitespace-only text (between tags) counts nothing; ASCII text is counted by deleting
        # its whitespace bytes (one C call instead of splitting and joining its words).
        chars = commas = 0
        text = el.text
        if text and not text.isspace():
            if text.isascii():
                chars = len(text.encode("ascii").translate(None, _ASCII_SPACES))
                commas = text.count(",")
            else:
                joined = "".join(text.split())
                chars = len(joined)
                commas = len(findall(joined))
        counted = []
        for c in el[:]:  # a slice is a list made in C, faster to loop over than the child iterator
            tail = c.tail
            if tail and not tail.isspace():
                if tail.isascii():
                    chars += len(tail.encode("ascii").translate(None, _ASCII_SPACES))
                    commas += tail.count(",")
                else:
                    joined = "".join(tail.split())
                    chars += len(joined)
                    commas += len(findall(joined))
            cs = get(c)
            if cs is not None:
                counted.append((c, cs))
        link = chars if in_link[el] else 0
        para, para_commas, para_link, block = chars, commas, link, False
        for c, cs in counted:
            chars += cs.chars
            link += cs.link
            commas += cs.commas
            if c.tag in block_tags or cs.block:
                block = True
            else:
                para += cs.chars
                para_commas += cs.commas
                para_link += cs.link
        st[el] = BlockScore(para, chars, link, commas, block, para_commas, para_link)
    return order, st


def class_weight(el: HtmlElement, s: MainContentSettings) -> int:
    """Readability's class/id weight: ``class_weight`` taken per negative name, added per positive one."""
    w = 0
    for attr in ("class", "id"):
        v = el.get(attr)
        if v:
            if NEGATIVE_NAMES.found(v):
                w -= s.class_weight
            if POSITIVE_NAMES.found(v):
                w += s.class_weight
    return w


#: A dialog a script opens over the page (:func:`pagesieve.core.dom.is_dialog`: a consent manager's preferences,
#: a sign-up, a store picker): never the page's content, even on the pass over every paragraph.
modal = dom.is_dialog


#: The attributes :func:`unlikely_blocks` reads (names, roles, aria-modal), with ``<dialog>``: an element with none
#: of them is unlikely only when its parent is.
_UNLIKELY_ATTRS = ("class", "id", "role", "aria-modal")
_DIALOG = frozenset({"dialog"})
#: Never unlikely by their names (a ``<body class="has-cookie-bar">`` is still the page).
_NEVER_BY_NAME = frozenset({"body", "a", "html", "article", "main"})


def unlikely_blocks(order: list[HtmlElement], by_name: bool = True) -> tuple[set[HtmlElement], list[HtmlElement]]:
    """The blocks unlikely to be content, with all below them, and the outermost of them: by name or
    role, or (``by_name`` false, the pass over every paragraph) only the dialogs over the page and the
    cookie or consent banners (by name, :func:`pagesieve.analysis.furniture.consent_named`).

    Only the elements of ``order`` that are a ``<dialog>`` or have one of the attributes read
    (:func:`pagesieve.core.measure.elements_with`, picked in C) are tested, in document order; the set
    holds each outermost block's whole subtree (``order`` leaves out no child of an element it holds but
    skipped or hidden ones, which no caller asks about)."""
    unlikely: set[HtmlElement] = set()
    roots: list[HtmlElement] = []
    if not order:
        return unlikely, roots
    named: dict[str, bool] = {}  # names -> unlikely by its names (pages repeat their class names)
    listed = set(order)
    for el in elements_with(order[0], _DIALOG, _UNLIKELY_ATTRS):
        if el in unlikely or el not in listed:
            continue
        if not by_name:
            if modal(el) or (el.tag not in _NEVER_BY_NAME and (el.get("class") or el.get("id"))
                             and consent_named(names_of(el))):
                unlikely.update(el.iter())
                roots.append(el)
            continue
        names = names_of(el)
        by_names = named.get(names)
        if by_names is None:
            by_names = named[names] = bool(names and (UNLIKELY_NAMES.found(names) and not MAYBE_NAMES.found(names)
                                                      or consent_named(names)))
        if (by_names and el.tag not in _NEVER_BY_NAME) or \
                (el.get("role") or "").lower() in BOILERPLATE_ROLES or modal(el):
            unlikely.update(el.iter())
            roots.append(el)
    return unlikely, roots


def score(order, st, body, skip_unlikely: bool,
          s: MainContentSettings) -> tuple[dict[HtmlElement, float], list[HtmlElement]]:
    """Readability's candidate scores (times 1 - link density), and the unlikely blocks left
    out (outermost only)."""
    unlikely, roots = unlikely_blocks(order, by_name=skip_unlikely)
    scores: dict[HtmlElement, float] = {}
    for el in order:
        if el in unlikely:
            continue
        es = st[el]
        if es.block:  # a container's loose text: a paragraph whose parent is the container
            para, commas, start = es.para_chars, es.para_commas, el
            link = es.para_link / para if para else 0.0
        elif el.tag in PARAGRAPH_TAGS:  # a leaf block: a paragraph, counted in its parent
            para, commas, start = es.chars, es.commas, el.getparent()
            link = es.link / para if para else 0.0
        else:
            continue
        if para < s.min_paragraph_chars or start is None or link >= 1.0:
            continue  # too short, or all links: scores nothing
        value = (1 + commas + min(para // 100, 3)) * (1.0 - link)
        level = 0
        node = start
        while node is not None and level < s.ancestor_levels:
            if node not in st:
                break
            if node not in scores:
                scores[node] = TAG_WEIGHT.get(node.tag, 0) + class_weight(node, s)
            scores[node] += value / (1 if level == 0 else 2 if level == 1 else level * 3)
            if node is body:
                break
            node = node.getparent()
            level += 1
    return {el: sc * (1.0 - (st[el].link / st[el].chars if st[el].chars else 0.0))
            for el, sc in scores.items()}, roots


def choose(scores, st, body, s: MainContentSettings) -> tuple[HtmlElement | None, float]:
    """The best-scored block: the common block of enough close alternatives, up through wrappers
    with a single child (and, with ``climb``, to a parent that out-scores the way up)."""
    if not scores:
        return None, 0.0
    ranked = sorted(scores, key=scores.get, reverse=True)
    top = ranked[0]
    best = scores[top]
    if top is not body:
        alternatives = [c for c in ranked[1:N_TOP_CANDIDATES]
                        if best and scores[c] / best >= s.alternative_ratio]
        if len(alternatives) >= s.min_top_candidates:
            lists = [set(c.iterancestors()) for c in alternatives]
            parent = top.getparent()
            while parent is not None and parent is not body:
                if sum(1 for anc in lists if parent in anc) >= s.min_top_candidates:
                    top = parent
                    break
                parent = parent.getparent()
        last = scores.get(top, best)
        parent = top.getparent()
        while s.climb and parent is not None and parent is not body and parent in st:
            ps = scores.get(parent)
            if ps is None:
                parent = parent.getparent()
                continue
            if ps < last / 3:
                break
            if ps > last:
                top = parent
                break
            last = ps
            parent = parent.getparent()
        while top is not body and top.getparent() is not None and len(
                [c for c in top.getparent() if c in st]) == 1:
            top = top.getparent()
    return top, scores.get(top, best)


def siblings(top, top_score, scores, st, body, s: MainContentSettings) -> list[HtmlElement]:
    """``top`` and its siblings that join it: by score, or as a paragraph of prose."""
    parent = top.getparent()
    if top is body or parent is None:
        return [top]
    threshold = max(s.sibling_min_score, top_score * s.sibling_ratio)
    cls = top.get("class") or ""
    out = []
    for sib in parent:
        if sib not in st:
            continue
        if sib is top:
            out.append(sib)
            continue
        bonus = top_score * s.sibling_ratio if cls and sib.get("class") == cls else 0.0
        if sib in scores and scores[sib] + bonus >= threshold:
            out.append(sib)
            continue
        ss = st[sib]
        if sib.tag == "p" or not ss.block:
            n = ss.chars
            ld = ss.link / n if n else 1.0
            if n > s.sibling_paragraph_chars and ld < s.sibling_link_density:
                out.append(sib)
            elif 0 < n <= s.sibling_paragraph_chars and ld == 0 and SENTENCE_END.search(dom.text_of(sib)):
                out.append(sib)
    return out


def cousins(top, top_score, chosen, scores, body, s: MainContentSettings) -> list[HtmlElement]:
    """Add blocks elsewhere in the page with ``top``'s tag and class that score like a joining
    sibling (an article split in chunks); result in document order."""
    ref = top  # below single-child wrappers the chosen block may have a class
    while not ref.get("class") and len(ref) == 1 and isinstance(ref[0].tag, str):
        ref = ref[0]
    cls = ref.get("class")
    if not cls or top is body:
        return chosen
    threshold = max(s.sibling_min_score, top_score * s.sibling_ratio)
    inside = set(chosen)
    extra = [el for el, sc in scores.items()
             if sc >= threshold and el not in inside and el.tag == ref.tag and el.get("class") == cls
             and not any(a in inside for a in el.iterancestors())]
    extra = [el for el in extra if not any(a in extra for a in el.iterancestors())]
    if not extra:
        return chosen
    for el in extra:  # a cousin that holds a chosen node replaces it
        inside -= {c for c in inside if any(a is el for a in c.iterancestors())}
    order = {el: i for i, el in enumerate(body.iter())}
    return sorted(inside | set(extra), key=order.__getitem__)
