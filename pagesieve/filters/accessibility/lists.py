"""Lists (WCAG 1.3.1; axe ``list``, ``listitem``): the page's broken lists repaired where the fix is
certain, and the list items that hold nothing at all taken out (with a list left without items)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pagesieve.core import dom
from pagesieve.filters.accessibility.shared import Doc

if TYPE_CHECKING:
    from pagesieve.filters.accessibility import AccessibilitySettings

#: What a <ul>/<ol> may hold besides <li> (HTML content model: script-supporting elements).
LIST_OK = frozenset({"li", "script", "template", "noscript", "style"})


def repair(doc: Doc, ctx, s: AccessibilitySettings) -> None:
    """Stray children of ``<ul>``/``<ol>`` wrapped in ``<li>``, runs of ``<li>`` outside any list in a
    ``<ul>``, empty items out (setting ``lists``)."""
    if not s.lists:
        return
    body = doc.body
    _empty_items(body, ctx)
    for lst in list(body.iter("ul", "ol")):
        if (lst.get("role") or "").strip():
            continue  # axe checks only lists without a role; a role says what it is
        runs: list[list] = []
        run: list = []
        stray_text = (lst.text or "").strip()
        for child in lst:
            if not isinstance(child.tag, str):  # a comment or processing instruction
                continue
            if child.tag in LIST_OK:
                if child.tag == "li" and run:
                    runs.append(run)
                    run = []
                continue
            run.append(child)
        if run:
            runs.append(run)
        if stray_text:
            li = dom.element("li")
            li.text, lst.text = lst.text, None
            lst.insert(0, li)
            ctx.note("list", li, "text directly inside a list wrapped in <li> (WCAG 1.3.1; axe list)",
                     measured={"text": stray_text[:60]})
        for run in runs:
            li = dom.element("li")
            run[0].addprevious(li)
            for child in run:
                li.append(child)  # with its tail
            ctx.note("list", li, f"{len(run)} child element(s) of a list that were not <li> wrapped in one "
                     "<li> (WCAG 1.3.1; axe list)", measured={"children": [dom.describe(c) for c in run[:3]]})
        for li in [c for c in lst if isinstance(c.tag, str) and c.tag == "li"]:
            if (li.tail or "").strip():  # text between items is an item of its own
                item = dom.element("li")
                item.text, li.tail = li.tail, None
                li.addnext(item)
                ctx.note("list", item, "text between list items wrapped in <li> (WCAG 1.3.1; axe list)",
                         measured={"text": item.text.strip()[:60]})
    for li in list(body.iter("li")):
        parent = li.getparent()
        if parent is None or parent.tag in ("ul", "ol", "menu") or (parent.get("role") or "") == "list":
            continue
        if li.getprevious() is not None and li.getprevious().tag == "li" and li.getprevious().getparent() is parent:
            continue  # part of a run already handled from its first item
        run = [li]
        nxt = li.getnext()
        while nxt is not None and nxt.tag == "li" and not (run[-1].tail or "").strip():
            run.append(nxt)
            nxt = nxt.getnext()
        ul = dom.element("ul")
        li.addprevious(ul)
        ul.tail, run[-1].tail = run[-1].tail, None
        for item in run:
            ul.append(item)
        ctx.note("list", ul, f"{len(run)} <li> outside any list wrapped in <ul> (WCAG 1.3.1; axe listitem)",
                 measured={"parent": dom.describe(parent)})


def _empty_items(body, ctx) -> None:
    """A ``<li>`` with nothing in it (no element, no text, no ``id`` a link may point at) is taken out,
    and a ``<ul>``/``<ol>`` that held only such items with it: a screen reader announced "list, 2
    items" and read nothing, and a numbered list showed "1." and "2." beside nothing. Such items are
    what filters leave of a row of buttons or links they removed (or a script was to fill)."""
    by_list: dict = {}
    for li in body.iter("li"):
        if not len(li) and not (li.text or "").strip() and not li.get("id"):
            by_list.setdefault(li.getparent(), []).append(li)
    for lst, items in by_list.items():
        if lst is None:
            continue
        empty = set(items)
        whole = (lst.tag in ("ul", "ol", "menu") and not lst.get("id") and not (lst.text or "").strip()
                 and all(x in empty or not isinstance(x.tag, str) for x in lst))
        if whole:
            ctx.remove(lst, "a list of empty items: nothing to read or see (WCAG 1.3.1)",
                       measured={"items": len(items)})
            continue
        for li in items:
            ctx.remove(li, "an empty list item: nothing to read or see (WCAG 1.3.1)", explain=False)
        ctx.note("list", lst, "empty items taken out of the list: nothing to read or see (WCAG 1.3.1)",
                 measured={"items": len(items)})
