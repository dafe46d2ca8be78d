"""Small DOM helpers shared by filters: naming nodes, measuring text, telling data tables apart.

Everything here is pure lxml; nothing knows about HTTP or settings.
"""

from __future__ import annotations

import re
from copy import deepcopy
from urllib.parse import urlsplit

from lxml import etree
from lxml import html as lxml_html
from lxml.html import HtmlElement

BLOCK_TAGS = frozenset(
    "address article aside blockquote body center dd details dialog dir div dl dt fieldset "
    "figcaption figure footer form frameset h1 h2 h3 h4 h5 h6 header hgroup hr html li main "
    "menu nav noscript ol p pre section summary table tbody td tfoot th thead tr ul caption".split())
HEADING_TAGS = frozenset("h1 h2 h3 h4 h5 h6".split())
#: The heading tags in rank order (``el.iter(*HEADINGS)``).
HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
#: Page furniture by its markup: the landmark elements and ARIA roles of a site's menus, banner,
#: footer and side bars (a <header>/<footer> inside an <article> or <main> is its own, not furniture).
FURNITURE_TAGS = frozenset({"nav", "header", "footer", "aside"})
FURNITURE_ROLES = frozenset({"navigation", "banner", "contentinfo", "complementary", "menu", "menubar"})
#: Roles of a dialog: a window a script opens over the page (a consent manager, a sign-up, a store picker).
DIALOG_ROLES = frozenset({"dialog", "alertdialog"})
#: Elements that show something besides text: pictures, drawings, video and sound, frames.
MEDIA_TAGS = ("img", "picture", "video", "audio", "iframe", "object", "embed", "svg", "canvas")
WHITESPACE = re.compile(r"\s+")
WORD_CHARS = re.compile(r"\w", re.UNICODE)
#: A word, wherever pagesieve counts or compares words (measurement, headlines, evaluation).
WORD = re.compile(r"\w+", re.UNICODE)
_SPACES = re.compile(r"\s")
#: The text nodes under an element. ``descendant::text()``, not ``.//text()``: the same nodes, but
#: ``.//`` with a condition makes libxml2 merge one node set per element into the result, time that
#: grew with the square of a page's paragraphs (1,600 paragraphs: 36 ms where ``descendant::`` takes 3).
_TEXTS = etree.XPath("descendant::text()[not(parent::script or parent::style)]", smart_strings=False)
#: The elements whose own text _TEXTS leaves out.
#: Elements whose text is never shown: it is code.
SILENT = frozenset({"script", "style"})
#: lxml's tag filter for elements: ``el.iter(ELEMENT)`` yields elements only (no comments, processing
#: instructions or entities), picked in C.
ELEMENT = etree.Element


class NamePattern:
    """A case-insensitive pattern of class/id words (``menu|footer|…``), tested as fast as a
    case-sensitive one: for ASCII names, an IGNORECASE search of a pattern written in lower case finds
    a match exactly when a plain search of the lower-cased names does, and the plain search is ~3x
    faster (IGNORECASE leaves the regular-expression engine no fast scan for the alternatives' first
    letters; measured 5.0 -> 1.5 us a search on corpus class names). Other names are searched with
    the pattern as it is (re.I also folds non-ASCII letters, such as the Kelvin sign to "k")."""

    __slots__ = ("pattern", "_lower")

    def __init__(self, pattern: re.Pattern[str]) -> None:
        if not pattern.flags & re.IGNORECASE or re.search(r"(?<!\\)[A-Z]", pattern.pattern):
            raise ValueError(f"not a case-insensitive pattern written in lower case: {pattern.pattern!r}")
        self.pattern = pattern
        self._lower = re.compile(pattern.pattern, pattern.flags & ~re.IGNORECASE)

    def found(self, names: str) -> bool:
        """Whether ``pattern`` matches somewhere in ``names``."""
        if names.isascii():
            return self._lower.search(names.lower()) is not None
        return self.pattern.search(names) is not None


# URL schemes that are safe to emit again in a link we write ourselves.
SAFE_SCHEMES = frozenset({"http", "https", "ftp", "mailto", ""})
#: An absolute http(s) URL of printable ASCII without "[", "]" or a backslash: urlsplit neither strips
#: nor rejects anything in it (no whitespace, controls, IPv6 brackets or non-ASCII host).
PLAIN_URL = re.compile(r"^https?://[\x21-\x5a\x5e-\x7e]*$", re.IGNORECASE)


def furniture_between(node: HtmlElement | None, top: HtmlElement | None = None) -> bool | None:
    """Whether ``node`` sits in page furniture (:data:`FURNITURE_TAGS`, :data:`FURNITURE_ROLES`), looking
    at it and its ancestors up to ``top`` (excluded; None: to the root): True at the first furniture
    element, False at the first ``<main>``/``<article>`` (their own header and footer are theirs), None
    when neither comes before ``top``."""
    el: HtmlElement | None = node
    while el is not None and el is not top:
        tag = el.tag
        if tag in ("main", "article"):
            return False
        if tag in ("header", "footer"):
            if next(el.iterancestors("main", "article"), None) is None:  # else the article's own
                return True
        elif tag in FURNITURE_TAGS or (isinstance(tag, str) and (el.get("role") or "").lower() in FURNITURE_ROLES):
            return True
        el = el.getparent()
    return None


def element(tag: str, attrib: dict[str, str] | None = None, text: str | None = None) -> HtmlElement:
    """A new HTML element (an :class:`HtmlElement`, like the parsed ones, with ``text_content`` etc.)."""
    el = lxml_html.Element(tag, attrib or {})
    if text is not None:
        el.text = text
    return el


def is_furniture(el: HtmlElement) -> bool:
    """A block of the site's frame by its own tag or role (:data:`FURNITURE_TAGS`, :data:`FURNITURE_ROLES`)."""
    return el.tag in FURNITURE_TAGS or (el.get("role") or "").strip().lower() in FURNITURE_ROLES


def copy_as(node: HtmlElement, tag: str, attrib: dict[str, str] | None = None) -> HtmlElement:
    """A new ``tag`` element holding a copy of ``node``'s content (its text and children, not its tail),
    to put in its place: a form that wraps the page as a block, a button's words as a heading."""
    new = element(tag, attrib)
    new.text = node.text
    for child in node:
        new.append(deepcopy(child))
    return new


def is_element(node) -> bool:
    """True for real elements (not comments, processing instructions or entities)."""
    return isinstance(node.tag, str)


def describe(node: HtmlElement) -> str:
    """A short, stable human-readable name for a node: ``div#main.article.wide``."""
    if not is_element(node):
        return "#comment"
    name = node.tag
    ident = node.get("id")
    if ident:
        name += "#" + ident.strip()[:40]
    cls = (node.get("class") or "").split()
    if cls:
        name += "." + ".".join(cls[:3])
    return name


#: Levels up to which :func:`path` gives the full XPath; deeper nodes get their last
#: :data:`PATH_TAIL` steps after "…" (libxml2 builds a path by copying it once a level, so a
#: full path costs depth² bytes: 7 s for the 1,800 notes of one 1,800-level page).
PATH_DEPTH = 256
PATH_TAIL = 12


def path(node: HtmlElement) -> str:
    """An XPath to the node, for explanations (abbreviated "…/ul/li[2]" past :data:`PATH_DEPTH`)."""
    top, depth = node, 0
    while depth <= PATH_DEPTH and top is not None:
        top, depth = top.getparent(), depth + 1
    if top is None:
        try:
            return node.getroottree().getpath(node)
        except (ValueError, TypeError):
            return ""
    steps = []
    for _ in range(PATH_TAIL):
        parent = node.getparent()
        tag = node.tag if isinstance(node.tag, str) else "node()"
        same = [c for c in parent if c.tag == node.tag] if parent is not None else [node]
        steps.append(f"{tag}[{same.index(node) + 1}]" if len(same) > 1 else tag)
        node = parent
    return "…/" + "/".join(reversed(steps))


def text_of(node: HtmlElement) -> str:
    """All text under ``node`` with whitespace collapsed (scripts and styles excluded)."""
    tag = node.tag
    if not isinstance(tag, str):
        return ""  # comments and processing instructions carry no page text
    if not len(node):
        # No child: the text is the element's own (most links and many blocks), read without the
        # XPath query (~0.8 µs less a call on corpus links).
        text = node.text
        return " ".join(text.split()) if text and tag not in SILENT else ""
    return " ".join("".join(_TEXTS(node)).split())


#: Elements a browser draws on a line of their own: their text is a word apart from the text around it.
_APART_TAGS = frozenset("address article aside blockquote dd div dl dt figcaption figure footer h1 h2 h3 h4 h5 h6 "
                        "header hr li main nav ol p pre section table td th tr ul br label".split())
_UNREAD = frozenset({"script", "style", "template"})


def blocks_text(el: HtmlElement) -> str:
    """The text of ``el`` as it reads: like :func:`text_of`, but blocks stay words apart
    ("<p>1</p><p>Discovery</p>": "1 Discovery", not "1Discovery"). A loop, not recursion: a
    deeply nested block cannot reach Python's recursion limit."""
    parts: list[str] = []
    stack: list[tuple[HtmlElement, bool]] = [(el, False)]
    while stack:
        node, closing = stack.pop()
        tag = node.tag
        shown = isinstance(tag, str) and tag not in _UNREAD
        if closing:
            if shown and tag in _APART_TAGS:
                parts.append(" ")
            if node is not el:
                parts.append(node.tail or "")
            continue
        stack.append((node, True))
        if shown:
            parts.append((" " if tag in _APART_TAGS else "") + (node.text or ""))
            stack.extend((child, False) for child in reversed(node))
    return WHITESPACE.sub(" ", "".join(parts)).strip()


def text_len(node: HtmlElement) -> int:
    """Number of non-whitespace characters under ``node`` (scripts and styles excluded)."""
    if not isinstance(node.tag, str):
        return 0
    return len("".join("".join(_TEXTS(node)).split()))  # str.split() splits where \s matches


def remove_keep_tail(node: HtmlElement) -> None:
    """Remove ``node`` from its parent, keeping its tail text in the document."""
    parent = node.getparent()
    if parent is None:
        return
    tail = node.tail
    if tail:
        prev = node.getprevious()
        if prev is not None:
            prev.tail = (prev.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
    parent.remove(node)


def lift(node: HtmlElement) -> HtmlElement:
    """Take ``node`` out of its parent to put it elsewhere: its tail text stays where it was."""
    remove_keep_tail(node)
    node.tail = None
    return node


#: File names of spacer images (1x1 and transparent GIFs that old layouts use to hold space).
SPACER_FILE = re.compile(r"(?:^|/)(?:spacer|blank|clear|clearpixel|pixel|transparent|trans|shim|spc|1x1|"
                         r"(?:black|white|grey|gray|clear|trans)?dot|space|empty)[-_]?\d*\.(?:gif|png)$", re.I)
#: An image at most this many pixels wide and high (its width/height attributes) shows no picture: a
#: spacer or tracking pixel (the accessibility filter's ``decorative_max_px`` default).
SPACER_MAX_PX = 8
_PX = re.compile(r"\s*(\d+)(\.\d+)?\s*(px)?\s*$")
#: The elements a layout spacer may hold besides spacer images (line breaks, wrappers of them).
_SPACER_WRAPPERS = frozenset({"br", "font", "span", "p", "div", "center", "a", "b", "i", "small", "nobr", "wbr"})


def px(value: str | None) -> int | None:
    """A width or height attribute in whole pixels ("12", "12px", "12.5"); None for none or a percentage."""
    if not value:
        return None
    m = _PX.match(value)
    return int(m.group(1)) if m else None


def url_path(url: str) -> str:
    """The path of ``url`` ("" when it cannot be parsed, as "http://[oops")."""
    try:
        return urlsplit(url).path
    except ValueError:
        return ""


def is_spacer_image(img: HtmlElement, max_px: int = SPACER_MAX_PX) -> bool:
    """An ``<img>`` that holds space instead of showing a picture: at most ``max_px`` wide and high
    by its attributes, or named as a spacer (:data:`SPACER_FILE`: ``spacer.gif``, ``1x1.gif`` …)."""
    width, height = px(img.get("width")), px(img.get("height"))
    if width is not None and height is not None and max(width, height) <= max_px:
        return True
    return SPACER_FILE.search(url_path(img.get("src") or "")) is not None


def is_layout_spacer(node: HtmlElement, max_px: int = SPACER_MAX_PX) -> bool:
    """A block (a layout table's cell, row or the table itself) that only holds space: no text (a
    ``&nbsp;`` is none), and no element but spacer images (:func:`is_spacer_image`), line breaks and
    inline wrappers of those. Dropped, it leaves nothing a person could see but the colour and height
    the page gave it."""
    if text_len(node):
        return False
    for el in node.iter(ELEMENT):
        if el is node:
            continue
        tag = el.tag
        if tag == "img":
            if not is_spacer_image(el, max_px):
                return False
        elif tag not in _SPACER_WRAPPERS and tag not in ("tr", "td", "th", "tbody", "thead", "tfoot", "table"):
            return False
    return True


def is_safe_url(url: str | None) -> bool:
    """True when ``url`` may be re-emitted in a link we write (no javascript:, data:, vbscript:…)."""
    if not url:
        return False
    u = url.strip()
    if not u or any(c in u for c in "\x00\r\n\t"):
        return False
    if u[0] > " " and (PLAIN_URL.match(u) or (":" not in u and not u.startswith("//"))):
        return True  # http(s), or relative without a netloc: what urlsplit says, without it
    try:
        scheme = urlsplit(u).scheme.lower()
    except ValueError:
        return False
    return scheme in SAFE_SCHEMES


_ORIGINS: dict[str, str | None] = {}


def join_root_relative(base: str, url: str) -> str | None:
    """``urljoin(base, url)`` for a root-relative ``url`` ("/path?query#fragment") whose path
    urljoin leaves as it is, without parsing either; None when urljoin must decide (dot or empty
    segments, an empty query or fragment, characters outside printable ASCII)."""
    if not PLAIN_URL.match("http://x" + url):
        return None
    rest, hash_, fragment = url.partition("#")
    path, q, query = rest.partition("?")
    if (hash_ and not fragment) or (q and not query) or ";" in path:
        return None
    segments = path.split("/")
    if any(seg in ("", ".", "..") for seg in segments[1:-1]) or segments[-1] in (".", ".."):
        return None
    if base in _ORIGINS:
        origin = _ORIGINS[base]
    else:
        try:
            parts = urlsplit(base)
        except ValueError:
            parts = None
        origin = (f"{parts.scheme}://{parts.netloc}" if parts is not None and parts.scheme in ("http", "https")
                  and parts.netloc and PLAIN_URL.match(base) else None)
        if len(_ORIGINS) > 1024:
            _ORIGINS.clear()
        _ORIGINS[base] = origin
    return None if origin is None else origin + url


def is_data_table(table: HtmlElement, *, min_rows: int = 3, min_cols: int = 3) -> bool:
    """A table that holds data (never removed as empty or as a link list) rather than layout.

    Data: a ``<caption>``, ``<th>``, ``<thead>``, a ``summary``, ``role=table/grid``, a grid of
    short values, a table of records (a head row of labels, each row led by a label), or a
    regular grid of at least ``min_rows`` rows of at least ``min_cols`` cells with no block
    content or nested tables in its cells. Layout: ``role=presentation/none``, nested tables.
    """
    role = (table.get("role") or "").strip().lower()
    if role in ("presentation", "none"):
        return False
    if role in ("table", "grid", "treegrid"):
        return True
    own_rows = [r for r in table.iter("tr") if _owner_table(r) is table]
    if table.find(".//table") is not None:
        return False
    if table.find("caption") is not None or table.get("summary"):
        return True
    if any(_owner_table(th) is table for th in table.iter("th")) or table.find("thead") is not None:
        return True
    if _value_grid(own_rows, min_rows) or _record_table(own_rows):
        return True
    if len(own_rows) < min_rows:
        return False
    widths = [sum(1 for c in r if is_element(c) and c.tag in ("td", "th")) for r in own_rows]
    if min(widths) < min_cols or max(widths) - min(widths) > 1:
        return False
    for cell in table.iter("td"):
        if cell.find(".//div") is not None or cell.find(".//p") is not None:
            return False
    return True


#: A cell of a grid of values holds at most this many characters (a label, a figure, a short phrase).
VALUE_CELL_CHARS = 80
#: What a cell of values never holds (a ``<div>`` or ``<p>`` around a short value only aligns it).
_CELL_BLOCKS = ("ul", "ol", "dl", "table", "form", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote")


def _value_grid(rows: list, min_rows: int) -> bool:
    """Rows of short values in the same number (two or more) of cells holding text, at least
    ``min_rows`` + 1 of them, no block inside a cell and under half of the text in links: a table of
    figures ("Up to 120/80 | Optimal"), whatever empty spacer rows and cells the layout put around
    them (a title across the columns is its caption). A layout table's cells hold paragraphs, menus
    or whole columns."""
    widths = []
    linked = total = 0
    for row in rows:
        cells = [c for c in row if is_element(c) and c.tag in ("td", "th")]
        full = []
        for c in cells:
            n = text_len(c)
            if not n:
                continue
            if n > VALUE_CELL_CHARS or next(c.iter(*_CELL_BLOCKS), None) is not None:
                return False
            full.append(c)
            total += n
            linked += sum(text_len(a) for a in c.iter("a"))
        if len(full) == 1 and (full[0].get("colspan") or "1").strip() not in ("", "1"):
            continue  # a title across the columns ("WHO definitions"), the table's caption in a row
        if full:
            widths.append(len(full))
    return (len(widths) > min_rows and min(widths) >= 2 and max(widths) == min(widths)
            and linked < 0.5 * total)


#: A label of a table's head row or first column holds at most this many characters ("Revision Date",
#: "09/13/06", "Monday").
LABEL_CELL_CHARS = 40


def _record_table(rows: list) -> bool:
    """A head row of short labels (two or more, none a link) over two or more rows as wide, each led by
    a short label: a table of records (a change log's "Revision Date | Details", a timetable, a
    specification), whatever its other cells hold (lists, paragraphs). A layout's first row is a
    banner or a menu of links, and its rows do not each start with a label."""
    rows = [r for r in rows if text_len(r)]
    if len(rows) < 3:
        return False
    head = row_cells(rows[0])
    if len(head) < 2 or not all(label_cell(c) and c.find(".//a") is None for c in head):
        return False
    width = sum(_span(c) for c in head)
    for row in rows[1:]:
        cells = row_cells(row)
        if not cells or sum(_span(c) for c in cells) != width or not label_cell(cells[0]):
            return False
    return True


def row_cells(row: HtmlElement) -> list[HtmlElement]:
    """The cells (``<td>``, ``<th>``) of a table row."""
    return [c for c in row if is_element(c) and c.tag in ("td", "th")]


def label_cell(cell: HtmlElement) -> bool:
    """A cell that is a label: some text, at most :data:`LABEL_CELL_CHARS`, no list, table or heading inside."""
    return 0 < text_len(cell) <= LABEL_CELL_CHARS and next(cell.iter(*_CELL_BLOCKS), None) is None


def _span(cell: HtmlElement) -> int:
    value = (cell.get("colspan") or "1").strip()
    return max(1, int(value)) if value.isdigit() else 1


#: A table row whose cells hold this many characters or fewer together, and nothing that makes a block,
#: is one line of text ("Revision Date | 2005 Revision Details", "Tue 08/07 | WP: James Shields (10 - 7)"):
#: its cells stand side by side (a layout table linearised, a table read as text), not one line each
#: (which cut such a line in pieces). Two lines of a paragraph.
ROW_LINE_CHARS = 200


def line_row_cells(row: HtmlElement) -> list[HtmlElement]:
    """The cells of ``row`` when it is one line of text (:data:`ROW_LINE_CHARS`, two cells or more
    holding text, no block inside any); else none."""
    cells = row_cells(row)
    if sum(1 for c in cells if text_len(c)) < 2 or text_len(row) > ROW_LINE_CHARS:
        return []
    if any(d.tag in BLOCK_TAGS for c in cells for d in c.iterdescendants() if isinstance(d.tag, str)):
        return []
    return cells


def _owner_table(node: HtmlElement) -> HtmlElement | None:
    for anc in node.iterancestors("table"):
        return anc
    return None


def body_of(root: HtmlElement) -> HtmlElement:
    """The ``<body>`` of a parsed document (lxml always makes one for HTML input)."""
    body = root.find("body")
    if body is None:
        body = root.find(".//body")
    return body if body is not None else root


def inherited(el: HtmlElement | None, known: dict, start, step, top: HtmlElement | None = None):
    """A value each element inherits from its parent: ``step(value of the parent, element)``, ``start`` above
    the root (or above ``top``, the last ancestor looked at). Computed from the top down for ``el`` and its
    ancestors not yet in ``known``, and kept there: asked of many elements, each ancestor is read once."""
    path = []
    node = el
    value = start
    while node is not None:
        got = known.get(node)
        if got is not None:
            value = got
            break
        path.append(node)
        node = node.getparent() if node is not top else None
    for node in reversed(path):  # from the top down
        value = step(value, node)
        known[node] = value
    return value


def is_dialog(el: HtmlElement) -> bool:
    """A dialog over the page: ``<dialog>``, a dialog role (:data:`DIALOG_ROLES`) or ``aria-modal="true"``."""
    return (el.tag == "dialog" or (el.get("role") or "").strip().lower() in DIALOG_ROLES
            or (el.get("aria-modal") or "").strip().lower() == "true")
