"""Content a page streams in pieces, put where its script would have put it.

A server that streams a page (React's streaming renderer, and with it Next.js) first sends the
page's frame with a placeholder where slow content goes — a ``<template id="B:n">`` followed by a
loading skeleton, between the comments ``<!--$?-->`` and ``<!--/$-->`` — and later, at the end of
the same response, the content itself in a hidden ``<div hidden id="S:n">`` with a one-line script
(``$RC("B:n","S:n")``) that moves it into place. A smaller piece goes into a ``<template
id="P:n">`` the same way (``$RS("S:n","P:n")``), without a skeleton. With the page's scripts removed
no such move happens: the person sees the skeleton, and the whole product description, article or
answer stays hidden — or, once a filter drops hidden elements, is gone.

:func:`reveal` does the move. Pieces arrive inside other pieces (the product page's details are a
boundary inside the boundary that holds the page's body), so the placeholders are taken in a
queue: the ones in the page first, then the ones that each moved piece brings with it. Each piece
moves once; work stays linear in the page's size.

A page saved without its comments has no markers around the skeleton: then only the block right
after the placeholder goes, and only when it is a placeholder by its size
(:data:`FALLBACK_CHARS`, and a quarter of the piece's own text).

Changes go through the filter's context: explained and undoable.
"""

from __future__ import annotations

from collections import deque
from copy import deepcopy

from lxml import etree
from lxml.html import HtmlElement

#: A placeholder saved without its comment markers is taken out only when it holds at most this
#: many characters (and a quarter of the piece's): a skeleton or "Loading...".
FALLBACK_CHARS = 200

#: <div hidden>, selected as the owners of the attribute (faster in libxml2; most pages have none).
HIDDEN_DIVS = etree.XPath("descendant-or-self::div/@hidden/..")


def is_piece(el: HtmlElement) -> bool:
    """``el`` is a hidden streamed piece (``<div hidden id="S:n">``), put in place by :func:`reveal`."""
    return el.tag == "div" and el.get("hidden") is not None and (el.get("id") or "").startswith("S:")


def _pieces(node: HtmlElement) -> dict[str, HtmlElement]:
    """The hidden streamed pieces under ``node`` (itself included), by number."""
    return {el.get("id")[2:]: el for el in HIDDEN_DIVS(node) if (el.get("id") or "").startswith("S:")}


def reveal(root: HtmlElement, ctx) -> int:
    """Move every hidden streamed piece to its placeholder, as the page's script would. Returns
    the pieces moved."""
    pieces = _pieces(root)
    if not pieces:
        return 0
    moved = 0
    queue = deque(root.iter("template"))
    while queue:
        tpl = queue.popleft()
        tid = tpl.get("id") or ""
        kind = tid[:2]
        if kind not in ("B:", "P:") or tid[2:] not in pieces:
            continue
        piece = pieces[tid[2:]]
        parent = tpl.getparent()
        if parent is None or not ctx.in_document(tpl) or not ctx.in_document(piece):
            continue
        del pieces[tid[2:]]
        fallback = _fallback(tpl, piece, ctx) if kind == "B:" else []
        children = [deepcopy(c) for c in piece if isinstance(c.tag, str)]
        ctx.remove(piece, "streamed segment moved to its placeholder", explain=False, guarded=False)
        index = parent.index(tpl)
        for offset, child in enumerate(children):
            child.tail = None
            ctx.insert(parent, index + offset, child)
            queue.extend(child.iter("template"))  # placeholders of pieces inside this one
            pieces.update((n, el) for n, el in _pieces(child).items() if n in pieces)  # a piece inside it
        ctx.remove(tpl, "streamed segment's placeholder", explain=False)
        for el in fallback:
            ctx.remove(el, "loading placeholder replaced by its streamed segment", explain=False)
        ctx.note("reveal", children[0] if children else parent,
                 "content streamed in a hidden segment put where its script would have put it",
                 measured={"segment": tid[2:], "fallback_blocks": len(fallback)})
        moved += 1
    return moved


def _fallback(tpl: HtmlElement, piece: HtmlElement, ctx) -> list[HtmlElement]:
    """The loading skeleton a boundary shows until its piece arrives: the elements after the
    placeholder up to the boundary's closing comment (nested boundaries counted); without markers,
    the next block when it is small enough to be a skeleton."""
    marker = tpl.getprevious()
    node = tpl.getnext()
    if marker is None or isinstance(marker.tag, str) or (marker.text or "").strip() != "$?":
        if (node is not None and isinstance(node.tag, str) and node.tag != "template"
                and ctx.text_len(node) <= min(FALLBACK_CHARS, ctx.text_len(piece) // 4)):
            return [node]
        return []
    fallback, depth = [], 0
    while node is not None:
        if not isinstance(node.tag, str):
            data = (node.text or "").strip()
            if data == "/$":
                if depth == 0:
                    break
                depth -= 1
            elif data in ("$", "$?", "$!"):
                depth += 1
        else:
            fallback.append(node)
        node = node.getnext()
    return fallback
