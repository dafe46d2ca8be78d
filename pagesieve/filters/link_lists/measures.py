"""The text measures of ``link_lists``: links and letters per element, text outside links, a block's
own run of text."""

from __future__ import annotations

from lxml.html import HtmlElement

from pagesieve.core.measure import UNCOUNTED as _UNCOUNTED
from pagesieve.core.measure import letters as _letters


def text_outside_links(el: HtmlElement) -> str:
    """The text of ``el`` that is not inside a link."""
    if el.tag == "a":
        return ""
    parts = [el.text or ""]
    # A loop, not recursion: a page nests as deep as it likes (the fuzz run hit Python's limit).
    stack = [(el, iter(el))]
    while stack:
        node, children = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
            if stack:
                parts.append(node.tail or "")
        elif isinstance(child.tag, str) and child.tag != "a":
            parts.append(child.text or "")
            stack.append((child, iter(child)))
        else:  # a link (its text is the link's) or a comment: only the text after it
            parts.append(child.tail or "")
    return " ".join(parts)



def link_stats(top: HtmlElement) -> dict[HtmlElement, tuple[int, int, int]]:
    """Per element under ``top``: (links with href, letters inside links, all letters), in one pass
    (what the page's shared measurement, :attr:`pagesieve.core.measure.TextMeasure.links`, holds and
    keeps current; this walk is for a tree that is not measured).

    Children come before parents in reversed document order, so each element adds up its
    children's totals; a child's tail text belongs to the parent."""
    stats: dict[HtmlElement, tuple[int, int, int]] = {}
    for el in reversed(list(top.iter())):
        tag = el.tag
        if not isinstance(tag, str) or tag in _UNCOUNTED:
            continue
        links = 0
        letters = _letters(el.text)
        link_letters = 0
        for child in el:
            letters += _letters(child.tail)
            got = stats.get(child)
            if got is not None:
                links += got[0]
                link_letters += got[1]
                letters += got[2]
        if tag == "a" and el.get("href") is not None:
            links += 1
            link_letters = letters
        stats[el] = (links, link_letters, letters)
    return stats


#: Inline tags whose text belongs to the run of text around them (a paragraph without <p>).
_INLINE = frozenset({"span", "b", "i", "em", "strong", "small", "abbr", "cite", "q", "sup", "sub", "time", "code",
                     "mark", "u", "s", "font", "br", "wbr", "kbd", "var", "bdi", "bdo", "data"})


def loose_letters(block: HtmlElement) -> int:
    """Letters of ``block``'s own text outside links: its text, its children's tails and the text of
    its inline children (not of links, not of nested blocks)."""
    n = _letters(block.text)
    stack = list(block)
    while stack:
        el = stack.pop()
        n += _letters(el.tail)
        if isinstance(el.tag, str) and el.tag in _INLINE:
            n += _letters(el.text)
            stack.extend(el)
    return n
