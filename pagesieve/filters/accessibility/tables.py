"""Tables (WCAG 1.3.1, 1.3.2): a layout table becomes blocks in reading order, keeping its colours;
a data table's header cells say what they head."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from lxml.html import HtmlElement

from pagesieve.core import dom
from pagesieve.filters.accessibility.shared import Doc

if TYPE_CHECKING:
    from pagesieve.filters.accessibility import AccessibilitySettings

TABLE_PARTS = ("tbody", "thead", "tfoot", "tr", "td", "th", "caption")
#: Attributes that mean something only on a table (dropped when it becomes <div>s).
TABLE_ATTRS = frozenset("width height border cellpadding cellspacing bgcolor align valign background summary "
                        "rules frame colspan rowspan nowrap abbr headers scope axis char charoff".split())


def repair(doc: Doc, ctx, s: AccessibilitySettings) -> None:
    """Layout tables linearised (setting ``layout_tables``), data tables' header cells scoped
    (``table_headers``)."""
    if not (s.layout_tables or s.table_headers):
        return
    body = doc.body
    tables = list(body.iter("table"))
    data = {t: dom.is_data_table(t) for t in tables}
    parts = {t: [p for p in t.iter(*TABLE_PARTS) if next(p.iterancestors("table"), None) is t]
             for t in tables if not data[t]} if s.layout_tables else {}
    for table in tables:
        if data[table]:
            if s.table_headers:
                _scope(table, ctx)
        elif s.layout_tables:
            if not ctx.in_document(table):
                continue
            if not dom.text_len(table):
                # Pictures only (a banner, a row of buttons): as blocks they would stack and push the
                # page down, and there is no text whose reading order a table could spoil. It keeps its
                # layout, marked as presentation (a screen reader announces no table).
                if (table.get("role") or "").strip().lower() not in ("presentation", "none"):
                    ctx.set_attr(table, "role", "presentation")
                ctx.note("keep", table, "a layout table of pictures only keeps its layout (marked as presentation)")
                continue
            rows = sum(1 for p in parts[table] if p.tag == "tr")
            spacers = 0
            for p in parts[table]:
                # A cell or row that only holds space (spacer images, &nbsp;, nothing) is dropped:
                # as a block it would keep the colour and height the layout gave it (bars of colour).
                if p.tag in ("tr", "td", "th") and ctx.in_document(p) and dom.is_layout_spacer(p, s.decorative_max_px):
                    ctx.remove(p, "layout spacer cell dropped with its layout table", explain=False)
                    spacers += 1
            moved = _story_cell_first(table, ctx.article) if s.layout_story_first else False
            lines = {c for p in parts[table] if p.tag == "tr" and ctx.in_document(p) for c in dom.line_row_cells(p)}
            rows_kept = _short_rows_side_by_side(parts[table], lines) if s.layout_short_rows else 0
            for p in parts[table]:
                if not ctx.in_document(p):
                    continue
                if p in lines:  # a row of short cells stays one line: its cells side by side, a space apart
                    p.tag = "span"
                    if not (p.tail or "")[:1].isspace():
                        ctx.set_text(p, " " + (p.tail or ""), tail=True)
                else:
                    p.tag = "div"
                _keep_colours(p)
                _drop_attrs(p, TABLE_ATTRS)
            for p in [c for c in table if isinstance(c.tag, str) and c.tag in ("colgroup", "col")]:
                table.remove(p)
            _keep_float(table, ctx.article)
            table.tag = "div"
            _keep_colours(table)
            _drop_attrs(table, TABLE_ATTRS)
            if (table.get("role") or "").strip().lower() in ("presentation", "none"):
                del table.attrib["role"]
            ctx.note("linearise", table, "layout table turned into blocks in reading order (WCAG 1.3.2)",
                     measured={"rows": rows, "spacers_dropped": spacers, "story_cell_first": moved,
                               "rows_side_by_side": rows_kept})


#: A cell holds the story when it has this many characters of text outside links (a paragraph or two).
STORY_CELL_CHARS = 200


#: Text that is not prose: link labels and the words of form controls (a drop-down's hundred options).
_NOT_PROSE = ("a", "select", "textarea", "button")


def _prose(el: HtmlElement) -> int:
    """Characters of ``el``'s text outside links and form controls (each counted once when nested)."""
    chars, skip = dom.text_len(el), None
    for x in el.iter(*_NOT_PROSE):
        if x is el or (skip is not None and any(a is skip for a in x.iterancestors())):
            continue  # inside one already counted
        chars -= dom.text_len(x)
        skip = x
    return chars


def _story_cell(table: HtmlElement, article: HtmlElement | None) -> HtmlElement | None:
    """The cell of ``table`` that holds the story: the one with the most text outside links
    (``STORY_CELL_CHARS`` or more) — or the one holding ``article`` when that has half as much or
    more (an article found by its first long block in page order may be a box of sponsored links
    beside the story)."""
    cells = [c for c in table.iter("td", "th") if next(c.iterancestors("table"), None) is table]
    prose = {c: _prose(c) for c in cells}
    best = max(cells, key=prose.__getitem__, default=None)
    if best is None or prose[best] < STORY_CELL_CHARS:
        return None
    if article is not None:
        held = next((a for a in (article, *article.iterancestors()) if a in prose), None)
        if held is not None and 2 * prose[held] >= prose[best]:
            return held
    return best


def _story_cell_first(table: HtmlElement, article: HtmlElement | None) -> bool:
    """In the row of ``table`` whose cell holds the story (:func:`_story_cell`), that cell moves to
    the row's start, and side columns spanning down into that row from above go after it: as blocks,
    a layout's side columns (menus, boxes beside the story) would otherwise stack above the story and
    push it down the screen. True when a cell moved."""
    cell = _story_cell(table, article)
    if cell is None:
        return False
    row = cell.getparent()
    if row is None or row.tag not in ROW_HOLDERS:
        return False
    moved = _spanning_columns_after(table, row, cell)
    cells = _cells(row)
    if not cells or cells[0] is cell:
        return moved
    cells[0].addprevious(dom.lift(cell))  # the text after the cell stays where it was
    return True


#: How a row of short cells lays them out once it is a block: side by side, each as wide as what it
#: holds, wrapping to the next line where the window is too narrow (so it still reflows, WCAG 1.4.10),
#: vertically centred as a table's cells are, a little apart.
ROW_STYLE = "display:flex;flex-wrap:wrap;align-items:center;column-gap:0.5em"


#: What holds a row's cells: a ``<tr>``, or where the page left the ``<tr>`` out, the table or its
#: section itself (a browser puts such cells in one row, the page's parser does not).
ROW_HOLDERS = frozenset({"tr", "table", "tbody", "thead", "tfoot"})


def _cells(row: HtmlElement) -> list[HtmlElement]:
    return [c for c in row if isinstance(c.tag, str) and c.tag in ("td", "th")]


def _short_rows_side_by_side(parts: list[HtmlElement], lines: set[HtmlElement]) -> int:
    """Rows of a layout table whose cells all hold little prose (each under ``STORY_CELL_CHARS``
    characters outside links and form controls: a menu bar, a header of logo, title and search box, a
    picture beside a line of text) keep their cells side by side (``ROW_STYLE``): stacked as blocks, a
    row of ten menu links becomes a column of ten lines and pushes the story down the screen. A row
    with a cell of the story's size is read as blocks (:func:`_story_cell_first` puts the story
    first), and so is a row of one cell; a row that is one line of text (``lines``, its cells made
    inline) needs no more. Run before the parts become ``<div>``s; the number of rows kept side by side."""
    kept = 0
    holders = {id(r): r for c in parts if c.tag in ("td", "th") and (r := c.getparent()) is not None
               and r.tag in ROW_HOLDERS}
    for row in holders.values():
        cells = _cells(row)
        if row.tag != "tr" and any(isinstance(c.tag, str) and c.tag == "tr" for c in row):
            continue  # cells beside rows: no one row to lay out
        if len(cells) < 2 or any(c in lines for c in cells) or any(_prose(c) >= STORY_CELL_CHARS for c in cells):
            continue
        style = (row.get("style") or "").strip().rstrip(";")
        row.set("style", ROW_STYLE + (";" + style if style else ""))
        kept += 1
    return kept


def _spanning_columns_after(table: HtmlElement, row: HtmlElement, cell: HtmlElement) -> bool:
    """A side column that starts in an earlier row and spans down past the story's ``row`` (``rowspan``)
    moves to just after the story's ``cell``: as blocks it would stand above the story's whole row.
    True when one moved."""
    rows = [r for r in table.iter("tr") if next(r.iterancestors("table"), None) is table]
    if row not in rows:
        return False
    at = rows.index(row)
    holders = set(row.iterancestors())  # tag soup: a spanning cell may hold the story's row; it stays
    spanning = []
    for i, earlier in enumerate(rows[:at]):
        for c in earlier:
            if (isinstance(c.tag, str) and c.tag in ("td", "th") and i + (dom.px(c.get("rowspan")) or 1) > at
                    and c not in holders):
                spanning.append(c)
    for c in reversed(spanning):
        cell.addnext(dom.lift(c))
    return bool(spanning)


def _scope(table: HtmlElement, ctx) -> None:
    for th in table.iter("th"):
        if th.get("scope") or next(th.iterancestors("table"), None) is not table:
            continue
        row = th.getparent()
        cells = [c for c in row if isinstance(c.tag, str) and c.tag in ("td", "th")]
        if row.getparent() is not None and row.getparent().tag == "thead" or all(c.tag == "th" for c in cells):
            scope = "col"
        elif cells and cells[0] is th and any(c.tag == "td" for c in cells):
            scope = "row"
        else:
            continue
        th.set("scope", scope)
        ctx.note("scope", th, f"header cell given scope={scope} (WCAG 1.3.1)")


#: A colour value an HTML attribute may hold that CSS reads the same (a name, #rgb/#rrggbb).
_COLOUR = re.compile(r"^(#[0-9a-fA-F]{3}|#[0-9a-fA-F]{6}|[a-zA-Z]{3,20})$")


def _keep_colours(el: HtmlElement) -> None:
    """A table part that becomes a ``<div>`` keeps the colours its presentational attributes gave it
    (``bgcolor``, ``background``) as the same inline style: text coloured for that background
    (a ``<font color>``, a cell's own style) would otherwise be left on the page's (axe color-contrast)."""
    decls = []
    bg = (el.get("bgcolor") or "").strip()
    if re.fullmatch(r"[0-9a-fA-F]{6}", bg):  # HTML's legacy colour parsing reads "ff6600" as #ff6600
        bg = "#" + bg
    if _COLOUR.match(bg):
        decls.append(f"background-color:{bg}")
    image = (el.get("background") or "").strip()
    if image and not re.search(r"[\s()'\"\\]", image):
        decls.append(f"background-image:url({image})")
    if decls:
        style = (el.get("style") or "").strip().rstrip(";")
        el.set("style", ";".join(decls) + (";" + style if style else ""))  # the element's own style wins


def _keep_float(table: HtmlElement, article: HtmlElement | None) -> None:
    """A layout table set beside the text (``align=left|right``: a box floated at the story's side)
    keeps floating as a block, at its declared width in pixels (at most half the line): as a plain
    block it would stand above the story and push it down. Not a table as wide as the line
    (``width=100%``) nor one holding the story: old pages align their whole layout left, and floated
    at half the line, such a table would squeeze the story into a narrow column (the page's own
    layout showed it 560 px wide, a float nested in floats 160 px). A table that holds the detected
    article floats all the same when the block it stands in has twice its text beside it: the article
    found as the first long block in page order was then a box of sponsored links at the story's side."""
    side = (table.get("align") or "").strip().lower()
    if side not in ("left", "right") or (table.get("width") or "").strip() == "100%":
        return
    if article is not None and (article is table or any(a is table for a in article.iterancestors())):
        beside = table.getparent()
        own = _prose(table)
        if beside is None or _prose(beside) - own < 2 * own:
            return
    decls = [f"float:{side}", "max-width:50%"]
    width = dom.px(table.get("width"))
    if width is not None and "%" not in (table.get("width") or ""):
        decls.append(f"width:{width}px")
    style = (table.get("style") or "").strip().rstrip(";")
    table.set("style", ";".join(decls) + (";" + style if style else ""))


def _drop_attrs(el: HtmlElement, names: frozenset) -> None:
    for name in names & set(el.attrib):
        del el.attrib[name]
