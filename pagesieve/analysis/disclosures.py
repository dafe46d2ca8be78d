"""Disclosure titles: the ``<button>`` that names the panel it opens.

An FAQ's question, an accordion's section name: the page writes them as buttons, because a click
opens the answer below. Without the page's scripts the button opens nothing, but its words are
still the title of the text under it. A reading that drops every button, or a text rendering that
leaves controls out, gives the answers without their questions.

A button is such a title when it is a plain button (no other role: a tab's name belongs to its
tab list, a menu item to its menu), does not submit a form, says a few words (two or more, or one
in a heading: "FAQs"), and opens a panel of prose: the element its ``aria-controls`` names, else
the element right after it (or after the block it is alone in); or, in a heading, names an empty
panel its script fills in on a click (the questions are all the page holds). Prose is a sentence outside links:
a menu's panel is its links, a product filter's its short labels. A button that declares nothing
(no heading around it or inside it, no ``aria-expanded`` or ``aria-controls``) must share its block
with its panel alone, as a question does with its answer; a card's "Save this event" does not. A
button after text in its block is not a title ("Read more").
"""

from __future__ import annotations

from bisect import bisect_right

from lxml.html import HtmlElement

from pagesieve.core import dom

#: A title says a few words; a button holding a paragraph is a card made clickable, not a title.
TITLE_MAX_CHARS = 200
#: A panel is prose when it holds a run of this many words outside links (a sentence), and no more
#: text in links than outside them (a menu's panel is its links, a filter's short labels).
PANEL_RUN_WORDS = 6
#: Elements of a panel read before deciding: the decision needs its first sentence, not all of it.
PANEL_SCAN = 300

_HEADING_ROLE = "heading"
#: What a title does not open: another control, a link, a field.
_NOT_PANELS = frozenset({"button", "a", "input", "select", "textarea", "label", "option"})
_CONTROLS = _NOT_PANELS - {"a"}
#: What the words keep of the button: what names them (the panel's aria-labelledby) and their language.
_KEPT_ATTRS = frozenset({"id", "lang", "dir", "title"})


def titles(root: HtmlElement) -> list[HtmlElement]:
    """The buttons under ``root`` that title the panel they open, in page order."""
    buttons = list(root.iter("button"))
    if not buttons:
        return []
    index: Index | None = None
    above = Above()
    found = []
    for button in buttons:
        if index is None and button.get("aria-controls"):
            index = Index(root)
        if is_title(button, index, above):
            found.append(button)
    return found


def _heading_step(inside: bool, el: HtmlElement) -> bool:
    return inside or el.tag in dom.HEADING_TAGS or (el.get("role") or "").strip().lower() == _HEADING_ROLE


class Above:
    """What stands around an element (a heading, a form, a link), each ancestor read once however many
    buttons ask (:func:`pagesieve.core.dom.inherited`): a page may hold thousands of buttons in deep blocks."""

    def __init__(self) -> None:
        self._heading: dict = {}
        self._form: dict = {}
        self._link: dict = {}

    def heading(self, el: HtmlElement) -> bool:
        return bool(dom.inherited(el.getparent(), self._heading, False, _heading_step))

    def form(self, el: HtmlElement) -> bool:
        return bool(dom.inherited(el.getparent(), self._form, False, lambda v, n: v or n.tag == "form"))

    def link(self, el: HtmlElement) -> bool:
        return bool(dom.inherited(el.getparent(), self._link, False, lambda v, n: v or n.tag == "a"))


class Index:
    """The page's elements by id, and their order (a panel named by ``aria-controls`` comes after its
    title: the panel of a "Read more" is the text above it)."""

    def __init__(self, root: HtmlElement) -> None:
        self.order: dict[HtmlElement, int] = {}
        self.ids: dict[str, list[HtmlElement]] = {}  # a page's components may repeat their ids
        for i, el in enumerate(root.getroottree().getroot().iter()):
            self.order[el] = i
            ref = el.get("id") if isinstance(el.tag, str) else None
            if ref:
                self.ids.setdefault(ref, []).append(el)

    def after(self, ref: str, node: HtmlElement) -> HtmlElement | None:
        """The first element with id ``ref`` after ``node`` (a search in page order: a page may
        repeat one id thousands of times)."""
        els = self.ids.get(ref)
        if not els:
            return None
        i = bisect_right(els, self.order.get(node, 0), key=self.order.__getitem__)
        return els[i] if i < len(els) else None


def is_title(button: HtmlElement, index: Index | None = None, above: Above | None = None) -> bool:
    """Whether ``button`` titles the panel it opens (see the module doc). ``index``: the page's, when
    the caller has it (else it is made here when the button names its panel); ``above``: what stands
    around the page's elements, as far as read."""
    if (button.tag != "button" or (button.get("role") or "button").strip().lower() != "button"
            or button.get("aria-pressed") is not None):  # a toggle (a "like", a "save"), not a disclosure
        return False
    above = above or Above()
    text = dom.text_of(button)
    if not text or len(text) > TITLE_MAX_CHARS or not dom.WORD_CHARS.search(text) or _submits(button, above):
        return False
    heading = above.heading(button) or any(True for _ in button.iter(*dom.HEADINGS))
    if not heading and len(text.split()) < 2:
        return False
    declared = heading or button.get("aria-expanded") is not None or bool(button.get("aria-controls"))
    if index is None and button.get("aria-controls"):
        index = Index(button)
    found = _panel(button, index, pair=not declared)
    if found is None or found.tag in _NOT_PANELS or dom.is_furniture(found):  # a "menu" button's menu
        return False
    # an accordion's header (a heading's button naming its panel) over a panel its script fills in:
    # the question is all the page shows, as it is all a visitor sees before a click
    return _prose(found, above) or heading and bool(button.get("aria-controls")) and _empty(found)


def _empty(panel: HtmlElement) -> bool:
    return next((t for t in panel.itertext() if t.strip()), None) is None


def _submits(button: HtmlElement, above: Above) -> bool:
    """A submit or reset button: its type says so, or it has no type and stands in a form."""
    kind = (button.get("type") or "").strip().lower()
    if kind in ("submit", "reset"):
        return True
    return not kind and above.form(button)


def _panel(button: HtmlElement, index: Index | None, pair: bool) -> HtmlElement | None:
    """What ``button`` opens: its ``aria-controls`` element, else the element after it or after the
    block it stands alone in (``<div><button>…</button></div><div>panel</div>``). ``pair``: a button
    that declares nothing (no heading, no ARIA state) opens only a panel it shares its block with
    alone, a question and its answer (a card's "Save this event" has the rest of the card beside it)."""
    refs = (button.get("aria-controls") or "").split()
    if index is not None and refs:
        for ref in refs:
            panel = index.after(ref, button)
            if panel is not None and button not in panel.iterancestors():
                return panel
        if any(ref in index.ids for ref in refs):
            return None  # it opens a panel before it: the text a "Read more" unfolds
    node = button
    for _ in range(2):  # the button, then the block it is alone in
        parent = node.getparent()
        if parent is None or _text_before(node, parent):
            return None
        after = node.getnext()
        while after is not None and not isinstance(after.tag, str):
            after = after.getnext()
        if after is not None:
            return after if not pair or _alone_with(node, after, parent) else None
        if (node.tail or "").strip():
            return None
        node = parent
    return None


def _alone_with(node: HtmlElement, after: HtmlElement, parent: HtmlElement) -> bool:
    """``node`` and ``after`` are all ``parent`` holds (a question and its answer)."""
    return (len([el for el in parent if isinstance(el.tag, str)]) == 2 and not (node.tail or "").strip()
            and not (after.tail or "").strip())


def _text_before(node: HtmlElement, parent: HtmlElement) -> bool:
    """Whether text stands before ``node`` in ``parent`` (a "Read more" after its paragraph)."""
    if (parent.text or "").strip():
        return True
    for sibling in node.itersiblings(preceding=True):
        if (sibling.tail or "").strip() or isinstance(sibling.tag, str) and dom.text_of(sibling):
            return True
    return False


def _prose(panel: HtmlElement, above: Above) -> bool:
    """Whether ``panel`` opens with prose: a run of ``PANEL_RUN_WORDS`` words outside links (a
    sentence; a menu's panel is links, a filter's is short labels), with no more text in links than
    outside them so far, read over its first elements."""
    counts = [0, 0]  # characters outside links, inside them
    # (node, whether its parent is in a link): its text is in a link if it is one, its tail if the parent is
    stack: list[tuple[HtmlElement, bool]] = [(panel, above.link(panel))]
    sentence = False
    seen = 0
    while stack and seen < PANEL_SCAN:
        node, outer = stack.pop()
        seen += 1
        if node is not panel and node.tail:
            counts[outer] += len(node.tail.strip())
            sentence = sentence or not outer and len(node.tail.split()) >= PANEL_RUN_WORDS
        if not isinstance(node.tag, str) or node.tag in dom.SILENT or node.tag in _CONTROLS:
            continue  # a control's words (the next button's) are not the panel's prose
        inner = outer or node.tag == "a"
        if node.text:
            counts[inner] += len(node.text.strip())
            sentence = sentence or not inner and len(node.text.split()) >= PANEL_RUN_WORDS
        if sentence and counts[0] >= counts[1]:
            return True
        stack.extend((child, inner) for child in reversed(node))
    return sentence and counts[0] >= counts[1]


def keep_words(root: HtmlElement, ctx) -> int:
    """Put each title button's words where it stands, the control and its icons gone: as the text of
    the heading it stands in, or a block holding the heading or blocks it holds, else as a heading of
    its own, one level below the heading before it (the page wrote an accordion's header without its
    heading: WAI-ARIA's accordion pattern puts every header button in one). Returns how many went."""
    buttons = set(titles(root))
    if not buttons:
        return 0
    level = 1
    done = 0
    above = Above()
    for el in list(root.iter(*dom.HEADINGS, "button")):
        if el.tag != "button":
            level = int(el.tag[1])
            continue
        if el not in buttons or not ctx.in_document(el):  # (a button a parser nested in another went with it)
            continue
        if above.heading(el):
            tag = "span"
        elif any(d.tag in dom.BLOCK_TAGS for d in el.iterdescendants()):  # a heading is one
            tag = "div"
        else:
            tag = f"h{min(level + 1, 6)}"
        words = dom.copy_as(el, tag, {k: v for k, v in el.attrib.items() if k in _KEPT_ATTRS})
        for part in [d for d in words.iterdescendants() if not dom.text_of(d)]:
            dom.remove_keep_tail(part)  # the control's face: an open and a close chevron, an icon font's glyph
        ctx.replace(el, words, "<button> titles the text it opens: its words stay, the control goes", explain=False)
        done += 1
    return done
