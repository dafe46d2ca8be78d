"""Rendering a filtered page: ``html`` (a well-formed document in the page's encoding) or
``text`` (tags removed, whitespace normalised, block structure kept, at most N line breaks
in a row) — the paper's "Output Settings" screen.

Text is what a listener hears, so it holds what a browser shows and no one needs a field or a
player for: no scripts, styles, controls (but a button that titles the text it opens, an FAQ's
question, reads as that text's first line), the fallback inside a ``<video>``, ``<audio>`` or
``<canvas>``, the labels of fields to fill in, log-in boxes (``login_forms``), a heading's permalink
glyph ("¶", "§"), a "skip to content" link, lines of zero-width characters alone; list items carry
a bullet, table rows read as rows.
"""

from __future__ import annotations

import re
from copy import deepcopy
from dataclasses import dataclass
from typing import Literal

from lxml.html import HtmlElement

from pagesieve.analysis import disclosures
from pagesieve.core import dom
from pagesieve.core.measure import UNCOUNTED, words
from pagesieve.core.settings import setting
from pagesieve.engine.document import Page, serialize

_SPACES = re.compile(r"[ \t\r\f\v\u00a0\u2000-\u200a\u202f\u205f\u3000]+")
#: A character that shows: not a space, nor a zero-width one (a joiner, a non-joiner, a word joiner, a byte order
#: mark, a soft hyphen). A line of zero-width characters alone (a page's &zwj; between blocks) is an empty line.
_VISIBLE = re.compile(r"[^\s\u200b-\u200d\u2060\ufeff\u00ad]")
#: ``<video>``, ``<audio>`` and ``<canvas>`` too: what they hold is fallback for a browser that cannot play or draw them
#: ("Your browser does not support the video tag"), which a browser does not show (innerText leaves it out).
_SKIP = UNCOUNTED | {"head", "title", "meta", "link", "iframe", "object", "embed", "svg", "math", "select",
                     "button", "input", "textarea", "video", "audio", "canvas"}
# Elements after which a reader expects a paragraph break rather than a line break.
_PARAGRAPH = frozenset({"p", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "table", "ul", "ol",
                        "dl", "figure", "section", "article", "header", "footer", "nav", "aside", "main",
                        "form", "fieldset", "hr", "address", "details"})
# The accessibility filter's skip link: a keyboard aid in HTML, not text to be read out.
_SKIP_LINK_CLASS = "pagesieve-skip"
#: The accessibility step's read-later element (content_first): it owns the blocks read after <main> or the <h1>.
_READ_LATER_CLASS = "pagesieve-read-later"
_PRE_NL, _PRE_SP = "\ue000", "\ue001"  # private-use stand-ins that survive whitespace collapsing
_LINE = dom.BLOCK_TAGS | {"br", "li", "tr", "dt", "dd", "figcaption", "caption", "option"}
_CELLS = frozenset({"td", "th"})
#: A list item's bullet, and the end of its item: the bullet is written with the item's first text (a
#: paragraph inside the item, not a line of its own) and not at all for an item without text.
_BULLET, _ITEM_END = "\ue002", "\ue003"
#: Inline elements a word may be split across (``<b>W</b>ord``, one letter styled): never set apart.
#: Inside code, the spans of a syntax highlighter are one text.
_CODE = frozenset({"code", "kbd", "samp", "var", "pre"})
#: Two sibling items each at least this long (non-space characters) read as two words when nothing
#: separates them in the markup ("55.4k" and "24" of a reputation line); a lone letter in an element
#: of its own (a drop cap, a letter-by-letter heading) joins the next.
ITEM_MIN_CHARS = 2
#: A <form> with a password field and fewer characters of text than this is a log-in or sign-up box:
#: its labels ("Email", "Password", "Remember me") are not the page's story, and text has no fields.
LOGIN_FORM_MAX_CHARS = 500


@dataclass(frozen=True)
class OutputSettings:
    """How the filtered page is returned."""

    format: Literal["html", "text"] = setting("html", "Send the page as a web page (HTML), or as plain text for reading aloud or saving.",
                                              group="output", scope="user")
    limit_line_breaks: bool = setting(True, "In plain text, keep at most a few empty lines in a row.",
                                      group="output", scope="user")
    max_line_breaks: int = setting(2, "In plain text, at most this many line breaks in a row (2 leaves one empty line).",
                                   minimum=1, maximum=10, group="output", scope="user")
    image_alt_in_text: bool = setting(False, "In plain text, keep each picture's description, in [brackets].",
                                      group="output", scope="user")
    text_title: bool = setting(True, "In plain text, start with the page's title (unless the text already starts "
                                     "with it).", group="output", scope="user")
    login_forms: bool = setting(False, "In plain text, read log-in boxes too (a form with a password field and "
                                       "little text: its labels, such as Email, Password and Remember me, are not "
                                       "the page's story, and plain text has no fields to fill in).",
                                group="output", scope="user")
    reader_view: bool = setting(False, "Draw the page in the reading look set by text_size, line_height, width and "
                                       "colors (the reader preset turns it on).", group="output", scope="preset")
    text_size: int = setting(100, "Reading look: text size, in percent of the browser's usual size.",
                             minimum=50, maximum=300, group="output", scope="user")
    line_height: float = setting(1.6, "Reading look: space between lines, in text heights (1.6 is roomy).",
                                 minimum=1.0, maximum=3.0, group="output", scope="user")
    width: int = setting(70, "Reading look: the widest a line of text gets, in characters.",
                         minimum=30, maximum=200, group="output", scope="user")
    colors: Literal["auto", "light", "dark", "sepia", "contrast"] = setting(
        "auto", "Reading look: colours. auto follows the device's light or dark mode; contrast is white on black "
                "with yellow links.", group="output", scope="user")


#: The reading look's colour themes: (text, background, link). Each pair is at least 7:1
#: (the enhanced contrast level; tests/test_output.py measures them).
THEMES = {
    "light": ("#1a1a1a", "#ffffff", "#1a4fa0"),
    "dark": ("#e8e6e3", "#121212", "#8ab4f8"),
    "sepia": ("#3b2f1e", "#f4ecd8", "#1d4a80"),
    "contrast": ("#ffffff", "#000000", "#ffff00"),
}
#: The reading look's <style> element (one per page; its class tells it apart from the page's own).
READER_LOOK_CLASS = "pagesieve-reader-look"
#: Everything but pictures and media takes the theme's colours; selectors as the accessibility
#: filter's reading colours use, so this later style sheet wins over them.
_COLORED = "html,body,body *:not(img):not(svg):not(video):not(picture):not(canvas)"
_LINKS = "body a[href],body a[href] *"


def _theme_css(name: str) -> str:
    text, background, link = THEMES[name]
    scheme = "dark" if name in ("dark", "contrast") else "light"
    return (f":root{{color-scheme:{scheme} !important}}"
            f"{_COLORED}{{color:{text} !important;background-color:{background} !important;"
            f"text-shadow:none !important;border-color:currentcolor}}"
            f"{_LINKS}{{color:{link} !important}}")


#: The page's own layout boxes around the text fill the reading column: what is kept of a page is its
#: text, but the site's style sheet still sizes the boxes it sat in for the site's layout (a content
#: column two thirds of a wide container, a float beside a sidebar that is gone, padding for a frame),
#: and the text then ran in a column a fraction of the reading width (a third, on one page). Widths,
#: floats, side margins and side padding of the layout boxes go; lists keep their indent, pictures
#: their floats; nothing is shown that the page hides.
READER_COLUMN_CSS = (
    "body :is(div,section,article,main,header,footer,figure,aside,center,form){width:auto !important;"
    "min-width:0 !important;max-width:100% !important;float:none !important;margin-left:0 !important;"
    "margin-right:0 !important;padding-left:0 !important;padding-right:0 !important;column-count:auto !important}"
    "body :is(p,ul,ol,dl,blockquote){width:auto !important;max-width:100% !important;float:none !important;"
    "column-count:auto !important}")


def reader_css(settings: OutputSettings) -> str:
    """The reading look as a style sheet: text size, line spacing, line length and colours
    (``auto``: light, or dark when the device asks for it with ``prefers-color-scheme``)."""
    css = (f"html{{font-size:{settings.text_size}% !important}}"
           f"body{{font-size:1rem !important;line-height:{settings.line_height:g} !important;"
           f"max-width:{settings.width}ch !important;margin:0 auto !important;padding:0 1rem !important;"
           "box-sizing:border-box !important}"
           "body :is(p,li,dd,dt,blockquote,td,th,figcaption,div,span,a,em,strong,section,article,main)"
           "{font-size:inherit !important;line-height:inherit !important}"
           "body h1{font-size:1.8em !important}body h2{font-size:1.45em !important}"
           "body h3{font-size:1.2em !important}body :is(h4,h5,h6){font-size:1em !important}"
           "body :is(h1,h2,h3,h4,h5,h6){line-height:1.25 !important}"
           "body :is(p,li,dd,dt,blockquote,td,th,figcaption,h1,h2,h3,h4,h5,h6)"
           "{letter-spacing:normal !important;word-spacing:normal !important}"
           "body :is(img,video,svg,canvas,iframe){max-width:100% !important;height:auto !important}"
           "body pre{white-space:pre-wrap !important}" + READER_COLUMN_CSS)
    if settings.colors == "auto":
        return css + _theme_css("light") + "@media (prefers-color-scheme: dark){" + _theme_css("dark") + "}"
    return css + _theme_css(settings.colors)


#: Text output is always UTF-8 (a legacy charset would turn characters it lacks into "&#263;",
#: which a screen reader spells out).
TEXT_ENCODING = "utf-8"


def render(page: Page, state, settings: OutputSettings) -> tuple[bytes, str]:
    """The page as bytes plus its media type (text: :data:`TEXT_ENCODING`; HTML: the page's)."""
    if settings.format == "text":
        text = to_text(page.body, settings)
        title = page.title if settings.text_title else None
        if title and not text.startswith(title):
            text = title + "\n\n" + text if text else title
        return (text + "\n").encode(TEXT_ENCODING, errors="replace"), "text/plain"
    keep_style_sheets(page, state)
    if settings.reader_view:
        page.head.append(dom.element("style", {"class": READER_LOOK_CLASS}, reader_css(settings)))
    return serialize(page, standards=settings.reader_view), "text/html"


def keep_style_sheets(page: Page, state) -> int:
    """Put back into the page's head the style sheets (``<style>``, ``<link rel=stylesheet>``) that went
    with removed blocks; how many. A style sheet in the body styles the whole page: a site that writes
    each component's rules where it is first used (in the header's language button, say) styles the
    same component further down with them, and without them its icons are drawn at full width."""
    head = page.head
    if head is None or state is None:
        return 0
    kept = 0
    for node, replacement in state.removed_nodes:
        if replacement is not None or not isinstance(node.tag, str) or node.tag in ("style", "link"):
            continue  # replaced in place, or a style sheet removed for itself (the ignore filter's styles)
        if not len(node) or node.tag == "noscript":
            continue  # nothing inside it (most removals: a link, an image, a <meta>), or sheets for no scripts
        for sheet in node.iter("style", "link"):
            if any(a.tag == "noscript" for a in sheet.iterancestors()):
                continue  # the ignore filter keeps what the page shows without scripts; the rest never showed
            if sheet.tag == "link" and "stylesheet" not in (sheet.get("rel") or "").lower():
                continue
            copy = deepcopy(sheet)
            copy.tail = None
            head.append(copy)
            kept += 1
    return kept


#: Elements whose text a reader never gets, with or without scripts: what :func:`to_text` skips but
#: ``<noscript>``, whose content is what the page shows once scripts are gone (and what `ignore` shows).
_UNSHOWN = _SKIP - {"noscript"}


def _shown_parts(node: HtmlElement) -> list[str]:
    """The text nodes of ``node``'s subtree as the page reads without scripts, in document order: none
    under the elements no reader gets (:data:`_UNSHOWN`; a comment's or such an element's tail is text
    of the page), ``<noscript>`` content included. The subtree alone: not ``node``'s tail."""
    if not isinstance(node.tag, str) or node.tag in _UNSHOWN:
        return []
    parts = [node.text or ""]
    stack: list = list(reversed(node))
    while stack:
        el = stack.pop()
        if isinstance(el, str):  # a tail, read after its element's subtree
            parts.append(el)
        elif isinstance(el.tag, str) and el.tag not in _UNSHOWN:
            if el.tail:
                stack.append(el.tail)
            parts.append(el.text or "")
            stack.extend(reversed(el))
        elif el.tail:
            parts.append(el.tail)
    return parts


def words_shown(node: HtmlElement) -> int:
    """Words (``\\w+`` runs) of ``node``'s subtree as the page reads without scripts
    (:func:`_shown_parts`), text nodes counted apart: blocks are separate words even where the markup
    puts no space between them."""
    return words(" ".join(_shown_parts(node)))


def text_shown(node: HtmlElement) -> str:
    """The text of ``node``'s subtree as the page reads without scripts (:func:`_shown_parts`: an icon's
    ``<svg><title>``, a form control's options left out), whitespace collapsed and text nodes joined as
    they stand, like :func:`pagesieve.core.dom.text_of`."""
    if not len(node) and isinstance(node.tag, str) and node.tag not in _UNSHOWN:
        return " ".join(node.text.split()) if node.text else ""  # most links: their own text only
    return " ".join("".join(_shown_parts(node)).split())


def to_text(node: HtmlElement, settings: OutputSettings) -> str:
    """Plain text of ``node``: blocks on their own lines, spaces collapsed, breaks limited."""
    tokens: list[str | int] = []
    _walk(node, tokens, settings)
    parts: list[str] = []
    pending = 0
    bullet = False
    for tok in tokens:
        if isinstance(tok, int):  # a block boundary: adjacent boundaries merge (the larger wins)
            pending = max(pending, tok)
        elif tok == _BULLET:
            bullet = True
        elif tok == _ITEM_END:
            bullet = False  # an item without text: no bullet of its own
        elif (pending or bullet) and not _VISIBLE.search(tok):
            continue  # whitespace (or zero-width characters) between blocks
        else:
            if pending:
                parts.append("\n" * pending)
                pending = 0
            if bullet:
                parts.append("• ")
                bullet = False
            parts.append(tok)
    lines = [_SPACES.sub(" ", line).strip() if _VISIBLE.search(line) else "" for line in "".join(parts).split("\n")]
    text = "\n".join(lines).strip("\n").replace(_PRE_NL, "\n").replace(_PRE_SP, " ")
    if settings.limit_line_breaks:
        text = re.sub(r"\n{%d,}" % (settings.max_line_breaks + 1), "\n" * settings.max_line_breaks, text)
    return text


def _read_later(root: HtmlElement) -> dict[HtmlElement, list[HtmlElement]]:
    """The accessibility step's reading order (its ``content_first``): each empty
    ``<div class=pagesieve-read-later aria-owns="…">`` and the elements it owns, read in its place."""
    owners = [el for el in root.iter("div") if el.get("class") == _READ_LATER_CLASS and el.get("aria-owns")]
    if not owners:
        return {}
    by_id: dict[str, HtmlElement] = {}
    for el in root.iter():
        if isinstance(el.tag, str) and el.get("id"):
            by_id.setdefault(el.get("id"), el)
    return {o: [by_id[i] for i in o.get("aria-owns").split() if i in by_id] for o in owners}


def _pre_text(pre: HtmlElement) -> str:
    """The text of a ``<pre>`` block without what is not text inside it (a ``<style>`` that a CSS-in-JS
    library puts in each code sample, a script): their tails stay."""
    parts: list[str] = []
    stack: list[tuple[HtmlElement, bool]] = [(pre, False)]
    while stack:
        el, closing = stack.pop()
        if closing:
            if el is not pre and el.tail:
                parts.append(el.tail)
            continue
        stack.append((el, True))
        if isinstance(el.tag, str) and el.tag not in _SKIP:
            if el.text:
                parts.append(el.text)
            stack.extend((child, False) for child in reversed(el))
    return "".join(parts)


def _after_text(link: HtmlElement) -> bool:
    """False when ``link`` follows another link with no text between them (the two would read as one word)."""
    prev = _previous_item(link)
    return not (prev is not None and prev.tag == "a")


def _previous_item(node: HtmlElement) -> HtmlElement | None:
    """The element just before ``node`` when nothing (no text, not even a space) stands between them."""
    prev = node.getprevious()
    while prev is not None and not isinstance(prev.tag, str) and not prev.tail:  # a comment between them
        prev = prev.getprevious()
    return prev if prev is not None and isinstance(prev.tag, str) and not prev.tail else None


def _chars_at_least(node: HtmlElement, n: int) -> bool:
    """Whether ``node`` holds ``n`` or more non-space characters of text (read only as far as needed)."""
    seen = 0
    for piece in node.itertext():
        seen += len("".join(piece.split()))
        if seen >= n:
            return True
    return False


def _first_char(node: HtmlElement) -> str:
    for piece in node.itertext():
        piece = piece.lstrip()
        if piece:
            return piece[0]
    return ""


def _last_char(out: list) -> str:
    """The last character written so far ("" after a block boundary: nothing to glue to)."""
    for tok in reversed(out):
        if isinstance(tok, int):
            return ""
        if tok in (_BULLET, _ITEM_END):
            continue
        if tok:
            return tok[-1]
    return ""


def _separate_items(node: HtmlElement, out: list) -> bool:
    """Whether ``node`` is an item of its own glued to the one before it: both are elements, nothing
    stands between them in the markup, each holds :data:`ITEM_MIN_CHARS` or more, and the text would
    join a letter or digit to a letter or digit ("55.4k" "24" "24 gold badges" -> "55.4k2424 gold
    badges"). A word split across inline tags (``<b>W</b>ord``: its rest is text, not an element;
    one styled letter) and a syntax highlighter's spans inside code are left as they are."""
    prev = _previous_item(node)
    if prev is None or prev.tag in _SKIP or prev.tag in _LINE:
        return False
    last = _last_char(out)
    if not last.isalnum() or not _first_char(node).isalnum():
        return False
    if any(a.tag in _CODE for a in node.iterancestors()):
        return False
    return _chars_at_least(node, ITEM_MIN_CHARS) and _chars_at_least(prev, ITEM_MIN_CHARS)


def _login_form(form: HtmlElement) -> bool:
    """A log-in or sign-up box: a <form> with a password field and little text (:data:`LOGIN_FORM_MAX_CHARS`)."""
    return (any((i.get("type") or "").strip().lower() == "password" for i in form.iter("input"))
            and not _chars_at_least(form, LOGIN_FORM_MAX_CHARS))


class _RowLines:
    """Which cells of a table row do not end their line, and which start none: all of a row that is one line
    of text (:func:`pagesieve.core.dom.line_row_cells`); else a first cell that is a label ("09/13/06") and
    the cell after it, whose first line it heads. A row read partly in another place (``moved``: the reading
    order's read-later parts) keeps its lines."""

    def __init__(self, moved: set) -> None:
        self.moved = moved
        self.rows: dict[HtmlElement, tuple[frozenset, frozenset]] = {}

    def joined(self, cell: HtmlElement, closing: bool) -> bool:
        row = cell.getparent()
        if row is None:
            return False
        got = self.rows.get(row)
        if got is None:
            cells = dom.row_cells(row)
            if self.moved and any(el in self.moved for c in cells for el in c.iter()):
                got = frozenset(), frozenset()
            elif dom.line_row_cells(row):
                got = frozenset(cells), frozenset(cells)
            elif len(cells) >= 2 and dom.label_cell(cells[0]):
                got = frozenset(cells[:1]), frozenset(cells[1:2])
            else:
                got = frozenset(), frozenset()
            self.rows[row] = got
        return cell in got[0 if closing else 1]


#: A letter or a digit: a link to a place on the page without one is a glyph ("§", "¶", "^", "#").
_WORD_CHAR = re.compile(r"[^\W_]")
#: A jump link's target holds at least this share of the page's letters: the page's content itself (a "skip to
#: content" link), not a place in it (a section, a footnote).
JUMP_TARGET_SHARE = 0.5
#: How many of the page's first links to a place on it are looked at as jump links.
JUMP_LINKS = 8


def _holds_main(el: HtmlElement) -> bool:
    """``el`` is or holds a ``<main>`` or an element of the main role."""
    return any(x.tag == "main" or (x.get("role") or "").strip().lower() == "main"
               for x in el.iter() if isinstance(x.tag, str))


def _unread_links(root: HtmlElement) -> set[HtmlElement]:
    """The links to a place on the page (``href="#…"``) that text does not read: text is read from the top to
    the end, with nowhere to jump.

    * A glyph, no word: a heading's permalink sign ("§", "¶", "#") or a footnote's way back ("^", "↑"); read
      out, it says "section sign" before a heading's words.
    * A link standing alone (its block says nothing else) over the page's menus to its content: "Skip to
      content", a link to ``<main>`` or a block around it, to the main role, or to a block that holds
      JUMP_TARGET_SHARE of the page's letters. A link to a section or a note, any such link in a sentence, and a
      bare "#" (a script's toggle, whose text may be an accordion's question) stay. Only the page's first
      JUMP_LINKS links to a place on it are looked at as such (a skip link comes first; each look may read the
      whole page)."""
    out: set[HtmlElement] = set()
    candidates: list[tuple[HtmlElement, str, str]] = []  # the first JUMP_LINKS, with their target and text
    for a in root.iter("a"):
        href = (a.get("href") or "").strip()
        if not href.startswith("#"):
            continue
        text = " ".join(a.text_content().split())
        if not _WORD_CHAR.search(text):
            out.add(a)
        if len(candidates) < JUMP_LINKS:
            candidates.append((a, href[1:], text))
    top = root.getroottree().getroot()
    targets: dict[str, HtmlElement] | None = None
    page_letters = 0
    for a, name, text in candidates:
        parent = a.getparent()
        if not text or parent is None or " ".join(parent.text_content().split()) != text:
            continue  # in a sentence (or empty): not a jump of its own
        if targets is None:
            targets = {el.get("id"): el for el in top.iter() if isinstance(el.tag, str) and el.get("id")}
            page_letters = len("".join(dom.body_of(top).text_content().split()))
        target = targets.get(name)
        if target is not None and (_holds_main(target)
                                   or len("".join(target.text_content().split())) >= JUMP_TARGET_SHARE * page_letters):
            out.add(a)
    return out


#: The form fields one types into or picks from, whose text is not read out (:data:`_SKIP`): their labels go
#: with them. A checkbox's or a radio button's label stays: it says what the option is (a checklist's item,
#: a tab's title, a filter's value), and reads as text.
_FIELDS = ("input", "select", "textarea")
_OPTIONS = frozenset({"checkbox", "radio"})


def _field_labels(root: HtmlElement) -> set[HtmlElement]:
    """The ``<label>`` elements under ``root`` that name a field to fill in: one holding such a field, or one
    whose ``for`` is its id. The field is not read (no one fills it in from text), so "Name (required)" and
    "Email (will not be published)" alone would be read out with nothing to fill."""
    labels = list(root.iter("label"))
    if not labels:
        return set()

    def field(el: HtmlElement) -> bool:
        return el.tag != "input" or (el.get("type") or "text").strip().lower() not in _OPTIONS

    ids = {el.get("id") for el in root.getroottree().getroot().iter(*_FIELDS) if el.get("id") and field(el)}
    return {lab for lab in labels
            if (lab.get("for") or "").strip() in ids or any(field(el) for el in lab.iter(*_FIELDS))}


def _walk(root: HtmlElement, out: list, settings: OutputSettings) -> None:
    """Append ``root``'s text tokens to ``out`` (iterative: a page may nest 2000 levels deep), in
    the order a screen reader reads: blocks owned by a read-later element come in its place."""
    later = _read_later(root)
    moved = {el for els in later.values() for el in els}
    rows = _RowLines(moved)
    unread = _field_labels(root) | _unread_links(root)  # read by no listener (see the module doc)
    titles = set(disclosures.titles(root))  # buttons read as the line that titles the text they open

    # (node, closing, owned): an owned node read in its owner's place keeps its tail where it was
    stack: list[tuple[HtmlElement, bool, bool]] = [(root, False, False)]
    while stack:
        node, closing, owned = stack.pop()
        tail = node is not root and not owned and node.tail
        if closing:  # after the children: the closing break, then the element's tail
            tag = "p" if node in titles else node.tag
            if tag == "li":
                out.append(_ITEM_END)
            if tag in _PARAGRAPH:
                out.append(2)
            elif tag in _LINE and not (tag in _CELLS and rows.joined(node, True)):
                out.append(1)
            if tail:
                out.append(node.tail.replace("\n", " "))
            continue
        if node in moved and not owned:  # read later, where its owner is
            if tail:
                out.append(node.tail.replace("\n", " "))
            continue
        if node in later:
            out.append(2)
            if tail:
                stack.append((node, True, False))
            stack.extend((el, False, True) for el in reversed(later[node]))
            continue
        tag = node.tag if isinstance(node.tag, str) else None
        if node in titles:
            tag = "p"
        if (tag is None or tag in _SKIP or tag == "a" and node.get("class") == _SKIP_LINK_CLASS or node in unread
                or tag == "form" and not settings.login_forms and _login_form(node)
                and not any(el in later or el in moved for el in node.iter())):
            # comments, processing instructions, non-text elements: only their tail is text
            if tail:
                out.append(node.tail.replace("\n", " "))
            continue
        if tag in ("img", "br", "pre"):
            if tag == "img":
                alt = (node.get("alt") or "").strip()
                if settings.image_alt_in_text and alt:
                    out.append(f" [{alt}] ")
            elif tag == "br":
                out.append("\n")
            else:  # <pre>: its line breaks and indentation are content
                out.append(2)
                out.append(_pre_text(node).replace("\n", _PRE_NL).replace(" ", _PRE_SP))
                out.append(2)
            if tail:
                out.append(node.tail.replace("\n", " "))
            continue
        if tag in _PARAGRAPH:
            out.append(2)
        elif tag in _LINE and not (tag in _CELLS and rows.joined(node, False)):
            out.append(1)  # a row that is one line of text keeps its cells on it, a space apart
        if tag == "li":
            out.append(_BULLET)
        elif tag in ("td", "th"):
            out.append(" ")
        elif tag == "a" and not _after_text(node):
            # a link right after a link, nothing between them in the markup: two targets, two words
            # ("Product comparisons" "Desktop lookbook", set apart by the page's style sheet), not one
            out.append(" ")
        elif tag not in _LINE and tag not in _PARAGRAPH and _separate_items(node, out):
            out.append(" ")  # two items side by side, set apart by the page's style sheet
        if node.text:
            out.append(node.text.replace("\n", " "))
        stack.append((node, True, owned))
        stack.extend((child, False, False) for child in reversed(node))
