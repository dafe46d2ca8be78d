"""Landmarks and reading order (WCAG 1.3.1, 1.3.2, 2.4.1): exactly one ``<main>``, starting at the
headline when that comes just before it; what comes before it read after it; the removed-links list a
labelled ``<nav>`` after it."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from lxml import etree
from lxml.html import HtmlElement

from pagesieve.core import dom
from pagesieve.filters.accessibility.shared import ALL_IDS, MAINS, WS, Doc, free_id, inside, precedes, spoken

if TYPE_CHECKING:
    from pagesieve.filters.accessibility import AccessibilitySettings

#: The empty element after <main> that owns (aria-owns) the blocks before it (content_first).
LATER_CLASS = "pagesieve-read-later"
#: Parents that may not hold an extra <div> (content models of lists, tables, selects, headings' phrasing).
NO_EXTRA_CHILD = frozenset("ul ol dl menu table thead tbody tfoot tr select optgroup datalist colgroup p a span "
                           "button label summary hgroup".split())
REMOVED_LINKS_LABEL = "Links removed from this page"
REMOVED_LINKS_NAV = etree.XPath(
    ".//nav[contains(@id,'removed-links') or contains(@id,'removed_links') or contains(@class,'removed-links') "
    "or contains(@class,'removed_links') or starts-with(@aria-label,'Links removed')]")
LEADING = frozenset({"header", "nav"})
TRAILING = frozenset({"footer", "nav", "aside"})
LEADING_ROLES = frozenset({"banner", "navigation", "search"})
TRAILING_ROLES = frozenset({"contentinfo", "navigation", "complementary"})
#: An article that is one of these keeps its place (a <main> around it would break the table or
#: list: the HTML parser moves a <main> out of a <tr>, axe ``list`` fails on a <ul> holding one):
#: the <main> goes inside it, around its content.
MAIN_INSIDE = frozenset({"td", "th", "li", "dt", "dd", "caption"})
#: An article that is one of these is a part of a table: the whole table is wrapped.
TABLE_ROWS = frozenset({"tr", "tbody", "thead", "tfoot"})


def removed_links_path(body: HtmlElement, ctx) -> str | None:
    """Where the removed-links list is (found before the body is copied, so it is found in the copy)."""
    mark = ctx.state.removed_links_nav  # the list removed_links added (else one found by its class)
    nav = mark if mark is not None and ctx.in_document(mark) else next(iter(REMOVED_LINKS_NAV(body)), None)
    return dom.path(nav) if nav is not None else None


def one_main(doc: Doc, ctx, s: AccessibilitySettings) -> None:
    """The page's one ``<main>``: kept or made around the article (setting ``main_landmark``); without
    the setting, a single ``<main>`` the page has (the rules after this one need it)."""
    doc.main = _main(doc.body, doc.nav, ctx) if s.main_landmark else _single_main(doc.body)


def _main(body: HtmlElement, nav: HtmlElement | None, ctx) -> HtmlElement | None:
    """The ``<main>`` holding the article kept (other mains become plain blocks), else the article
    wrapped in a new one, else the body's content."""
    article = ctx.article
    if article is not None and (article is body or not inside(article, body)):
        article = None
    mains = MAINS(body)
    keep = None
    if article is not None:
        around = set(article.iterancestors())  # once, not one walk up the page per <main>
        keep = next((m for m in mains if m is article or m in around), None)
    elif mains:
        keep = max(mains, key=dom.text_len)
    for m in mains:
        if m is not keep:
            old = dom.describe(m)
            if m.tag == "main":
                m.tag = "div"
            if (m.get("role") or "").strip() == "main":
                del m.attrib["role"]
            ctx.note("main", m, "a second main landmark became a plain block", measured={"was": old})
    if keep is not None:
        if keep.tag != "main" and keep.tag == "div":
            keep.tag = "main"
            del keep.attrib["role"]
            ctx.note("main", keep, "the role=main block became <main>")
        return keep
    main = dom.element("main")
    if article is not None and article.tag in TABLE_ROWS:
        article = next(article.iterancestors("table"), article)
    if article is not None and article.tag in MAIN_INSIDE:
        main.text, article.text = article.text, None
        for child in list(article):
            main.append(child)  # with its tail
        article.append(main)
        ctx.note("main", main, f"the content of the detected article <{article.tag}> wrapped in <main> "
                 "(the table or list around it stays intact)", measured={"article": dom.describe(article)})
        return main
    if article is not None:
        article.addprevious(main)
        main.tail, article.tail = article.tail, None
        main.append(article)
        ctx.note("main", main, "the detected article wrapped in <main>", measured={"article": dom.describe(article)})
        return main
    return _wrap_body(body, nav, main, ctx)


def _wrap_body(body: HtmlElement, nav: HtmlElement | None, main: HtmlElement, ctx) -> HtmlElement | None:
    """No article known: the body's content wrapped in ``main``, the leading banners and navigation and
    the trailing footers and asides left out (all of it when there is nothing else)."""
    children = [c for c in body if isinstance(c.tag, str) and c is not nav]
    start, end = 0, len(children)
    while start < end and (_landmark(children[start], LEADING, LEADING_ROLES) or _is_skip(children[start])):
        start += 1
    while end > start and _landmark(children[end - 1], TRAILING, TRAILING_ROLES):
        end -= 1
    if start == end:  # nothing but landmarks: wrap them all
        start, end = 0, len(children)
    if start == end:
        return None
    first, last = children[start], children[end - 1]
    moved = [first]
    node = first
    while node is not last:  # everything between first and last (nav included: moved out later)
        node = node.getnext()
        moved.append(node)
    first.addprevious(main)
    if main.getprevious() is None:
        main.text, body.text = body.text, None
    for n in moved:
        main.append(n)  # with its tail: text after the last block is content too
    ctx.note("main", main, "no article known: the body's content wrapped in <main> (leading banners and "
             "trailing footers left out)", measured={"blocks": len(moved), "left_before": start,
                                                      "left_after": len(children) - end})
    return main


def headline_in_main(doc: Doc, ctx, s: AccessibilitySettings) -> None:
    """``<main>`` extended back to the page's one ``<h1>`` when that comes shortly before it (setting
    ``headline_in_main``): the skip link lands on the headline."""
    if s.headline_in_main and doc.main is not None:
        doc.main = _headline_into_main(doc.body, doc.main, ctx, s)


def _headline_into_main(body: HtmlElement, main: HtmlElement, ctx, s: AccessibilitySettings) -> HtmlElement:
    """<main> extended back to the page's one <h1> when that comes shortly before it (module doc)."""
    h1 = next(body.iter("h1"), None)
    if h1 is None or inside(h1, main) or inside(main, h1) or not precedes(h1, main):
        return main
    gap = _text_between(h1, main)
    limit = s.headline_gap_chars
    if gap > limit:
        ctx.note("main", h1, "the <h1> is far before <main>: left where it is",
                 measured={"chars_between": gap}, threshold={"headline_gap_chars": limit})
        return main
    above_h1 = set(h1.iterancestors())  # once: asking inside() for each of main's ancestors is depth squared
    top = next(a for a in main.iterancestors() if a in above_h1)  # the lowest common ancestor
    first = next(x for x in (h1, *h1.iterancestors()) if x.getparent() is top)
    last = next(x for x in (main, *main.iterancestors()) if x.getparent() is top)
    if last is main:  # main is a child there: the blocks from the headline on move into it
        moved = []
        node = first
        while node is not main:
            moved.append(node)
            node = node.getnext()
        text, main.text = main.text, None
        for i, n in enumerate(moved):
            main.insert(i, n)  # with its tail
        moved[-1].tail = (moved[-1].tail or "") + (text or "")
    else:  # main is deeper: it becomes a plain block, a new <main> wraps the range
        old = main
        old.tag = "div"
        main = dom.element("main")
        for name in ("id", "tabindex"):
            if old.get(name) is not None:
                main.set(name, old.attrib.pop(name))
        first.addprevious(main)
        main.tail, last.tail = last.tail, None
        node, moved = first, []
        while node is not None:
            moved.append(node)
            if node is last:
                break
            node = node.getnext()
        for n in moved:
            main.append(n)
    ctx.note("main", main, "<main> starts at the page's <h1> just before it: the skip link lands on the "
             "headline (WCAG 2.4.1)", measured={"chars_between": gap, "blocks": len(moved)},
             threshold={"headline_gap_chars": limit})
    return main


def content_first(doc: Doc, ctx, s: AccessibilitySettings) -> None:
    """A screen reader reads the headline first, then the content, then the rest (module doc): what
    comes before <main> (the preceding siblings of it and of its ancestors) is owned (aria-owns) by
    an empty element right after <main>; what comes before the page's <h1> inside <main>
    (breadcrumbs, a category, a lead image) by one right after the <h1>. The DOM, the look and the
    tab order stay; only the accessibility tree's order (what a screen reader reads) changes."""
    if not (s.content_first and doc.main is not None):
        return
    body, main, nav = doc.body, doc.main, doc.nav
    ids = Counter(ALL_IDS(body))
    h1 = next(main.iter("h1"), None)
    if h1 is not None and h1.getparent() is not None and h1.getparent().tag not in NO_EXTRA_CHILD:
        _read_after(h1, main, nav, ids, body, ctx, "the blocks before the <h1> in <main> are read after "
                    "it (aria-owns): the headline comes first (WCAG 1.3.2)")
    _read_after(main, body, nav, ids, body, ctx, "the blocks before <main> are read after it "
                "(aria-owns): a screen reader starts with the skip link and the content (WCAG 1.3.2)")


def _read_after(anchor: HtmlElement, top: HtmlElement, nav, ids: Counter, body: HtmlElement, ctx,
                reason: str) -> None:
    before: list[HtmlElement] = []
    for node in (anchor, *anchor.iterancestors()):
        if node is top:
            break
        before[:0] = reversed([s for s in node.itersiblings(preceding=True) if spoken(s) and s is not nav])
    owned = []
    for el in before:
        if not el.get("id"):
            el.set("id", free_id(body, "pagesieve-before", ids))
            ids[el.get("id")] += 1
        if ids[el.get("id")] == 1:  # an id used twice would name another element
            owned.append(el.get("id"))
    if not owned:
        return
    later = dom.element("div", {"class": LATER_CLASS, "aria-owns": " ".join(owned)})
    later.tail, anchor.tail = anchor.tail, None
    anchor.addnext(later)
    ctx.note("reading order", later, reason,
             measured={"blocks": len(owned), "first": [dom.describe(e) for e in before[:3]]})


def removed_links_nav(doc: Doc, ctx, s: AccessibilitySettings) -> None:
    """The removed-links list a labelled ``<nav>``, moved after ``<main>`` when it is not (setting
    ``removed_links_nav``)."""
    if not (s.removed_links_nav and doc.nav is not None):
        return
    body, main, nav = doc.body, doc.main, doc.nav
    if nav.tag != "nav":
        nav.tag = "nav"
    if not nav.get("aria-label") and not nav.get("aria-labelledby"):
        nav.set("aria-label", REMOVED_LINKS_LABEL)
        ctx.note("label", nav, "the removed-links list labelled")
    if main is not None and (inside(nav, main) or precedes(nav, main)):
        body.append(dom.lift(nav))
        ctx.note("move", nav, "the removed-links list moved after the main content")


def _text_between(a: HtmlElement, b: HtmlElement) -> int:
    """Characters of text (whitespace collapsed) after the end of ``a`` and before the start of ``b``
    (``a`` precedes ``b``; script and style text does not count)."""
    n, counting = 0, False
    for event, el in etree.iterwalk(a.getroottree().getroot(), events=("start", "end")):
        if el is b and event == "start":
            break
        if not isinstance(el.tag, str):
            if counting and event == "end":
                n += len(WS.sub(" ", el.tail or "").strip())
            continue
        if event == "start":
            if counting and el.tag not in ("script", "style", "template"):
                n += len(WS.sub(" ", el.text or "").strip())
        else:
            if el is a:
                counting = True
            if counting:
                n += len(WS.sub(" ", el.tail or "").strip())
    return n


def _single_main(body: HtmlElement) -> HtmlElement | None:
    mains = MAINS(body)
    return mains[0] if len(mains) == 1 else None


def _landmark(el: HtmlElement, tags: frozenset, roles: frozenset) -> bool:
    return el.tag in tags or (el.get("role") or "").strip().lower() in roles


def _is_skip(el: HtmlElement) -> bool:
    return el.tag == "a" and (el.get("href") or "").startswith("#")
