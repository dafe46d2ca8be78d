"""Form controls (WCAG 1.3.1, 4.1.2; axe ``label``, ``select-name``, ``label-title-only``): a control
with no label gets the visible label next to it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lxml import etree
from lxml.html import HtmlElement

from pagesieve.core import dom
from pagesieve.filters.accessibility.shared import BY_ID, WS, Doc, free_id, named_by_content

if TYPE_CHECKING:
    from pagesieve.filters.accessibility import AccessibilitySettings

#: Form fields under a node (a label or a cell that holds its own control labels nothing else).
FIELDS_IN = etree.XPath(".//input|.//select|.//textarea")
#: Form fields, buttons and links under a node (a row above a control that holds one is no label).
CONTROLS_IN = etree.XPath(".//input|.//select|.//textarea|.//button|.//a")
#: A node that is, or holds, a control or a link (its text is not the label of the control after it).
CONTROL_OR_SELF = etree.XPath("descendant-or-self::input|descendant-or-self::select|descendant-or-self::textarea|"
                              "descendant-or-self::button|descendant-or-self::a")
#: Inputs that need no label (hidden, or named by their own value or alt).
UNLABELLED_INPUTS = frozenset({"hidden", "submit", "reset", "button", "image"})
#: A check box's or radio button's label follows it and is often a short sentence ("Add my address to
#: the mailing list"): the text right after one is its label up to this many characters.
CHOICE_LABEL_MAX_CHARS = 120
TEXT_INPUTS = frozenset({"text", "search", "email", "url", "tel", "number", "password", "textarea"})


def labels(doc: Doc, ctx, s: AccessibilitySettings) -> None:
    """A form control without a label labelled by the ``<label>`` beside it, else its own title or
    placeholder, else the short text before it, else the submit button beside it (setting ``form_labels``)."""
    if not s.form_labels:
        return
    body = doc.body
    limit = s.label_max_chars
    # A <label for> that says nothing (an icon alone: a "+" that opens a panel) labels nothing.
    labelled = {(lb.get("for") or "").strip() for lb in body.iter("label")
                if dom.text_of(lb) or named_by_content(lb)} - {""}
    for ctl in list(body.iter("input", "select", "textarea")):
        kind = (ctl.get("type") or "text").strip().lower() if ctl.tag == "input" else ctl.tag
        if kind in UNLABELLED_INPUTS or _has_label(ctl):
            continue
        if ctl.get("id") and ctl.get("id") in labelled or next(ctl.iterancestors("label"), None) is not None:
            continue
        label = _adjacent_label(ctl, after=False)
        text, source = ("", "") if label is not None else (_text_before(ctl, limit), "the text right before it")
        if label is None and not text:
            label = _adjacent_label(ctl, after=True)
        if label is not None:
            if not ctl.get("id"):
                ctl.set("id", free_id(body, "pagesieve-field"))
            label.set("for", ctl.get("id"))
            labelled.add(ctl.get("id"))
            ctx.note("label", ctl, "form control linked to the <label> beside it (WCAG 1.3.1)",
                     measured={"label": dom.text_of(label)[:60]})
            continue
        own = WS.sub(" ", ctl.get("title") or ctl.get("placeholder") or "").strip()
        if own:  # the page's own name for it, shown as a tooltip or in the empty field
            ctl.set("aria-label", own)
            ctx.note("label", ctl, "form control named only by its title or placeholder: that text made its "
                     "label (WCAG 1.3.1, 4.1.2; axe label-title-only)", measured={"label": own})
            continue
        if not text and kind in ("checkbox", "radio"):
            text, source = _text_after(ctl, CHOICE_LABEL_MAX_CHARS), "the text right after it"
        if not text and kind in TEXT_INPUTS:
            text, source = _button_beside(ctl), "the submit button beside it"
        if not text:
            ctx.note("label", ctl, "form control without a label and no visible label next to it; left")
            continue
        ctl.set("aria-label", text)
        ctx.note("label", ctl, f"form control without a label named by {source} (WCAG 4.1.2)",
                 measured={"label": text}, threshold={"label_max_chars": limit})


def _has_label(ctl: HtmlElement) -> bool:
    """A form control's label that is not a tooltip or a placeholder: aria-label, a resolvable
    aria-labelledby (a ``<label>`` is checked by the caller)."""
    if (ctl.get("aria-label") or "").strip():
        return True
    root = ctl.getroottree()
    return any(BY_ID(root, i=i) for i in (ctl.get("aria-labelledby") or "").split())


def _adjacent_label(ctl: HtmlElement, after: bool) -> HtmlElement | None:
    """A ``<label>`` without ``for`` and without a control of its own right before ``ctl`` (or,
    with ``after``, right after it and not itself followed by another control)."""
    sib = ctl.getnext() if after else ctl.getprevious()
    if sib is None or sib.tag != "label" or sib.get("for") or FIELDS_IN(sib):
        return None
    if ((ctl.tail if after else sib.tail) or "").strip() or not dom.text_of(sib):
        return None
    if after:
        nxt = sib.getnext()
        if nxt is not None and nxt.tag in ("input", "select", "textarea") and not (sib.tail or "").strip():
            return None  # it labels the control after it
    return sib


def _text_before(ctl: HtmlElement, limit: int) -> str:
    """The short text right before ``ctl`` in its parent ("Name: [ ]"), else ''. The text is the
    previous sibling's tail, or the whole previous sibling when it holds only text (a <b>, a <span>,
    a table cell turned into a block); nothing when a control comes between."""
    prev = ctl.getprevious()
    text = (prev.tail if prev is not None else ctl.getparent().text) or ""
    text = WS.sub(" ", text).strip()
    # (a comment before it holds no control: a compiled XPath takes elements only)
    if not text and prev is not None and prev.tag not in ("br", "hr", "img") and not (
            isinstance(prev.tag, str) and CONTROL_OR_SELF(prev)):
        text = dom.text_of(prev)
    if not text and prev is None:  # first in its cell: the cell before it ("<td>Name</td><td>[ ]</td>")
        parent = ctl.getparent()
        if parent is not None and parent.tag in ("td", "div") and len(parent) == 1:
            cell = parent.getprevious()
            if cell is not None and cell.tag in ("td", "th", "div") and not FIELDS_IN(cell):
                text = dom.text_of(cell)
            row = parent.getparent()
            if cell is None and row is not None and row.tag in ("tr", "div") and row.getprevious() is not None:
                above = row.getprevious()  # the row above: "<tr><td>Keywords:</td></tr><tr><td>[ ]</td></tr>"
                if above.tag == row.tag and not CONTROLS_IN(above):
                    said = dom.text_of(above)
                    text = said if said.endswith(":") else ""  # a label says what follows: it ends in a colon
    text = text.rstrip(" :*")  # "Name: *" -> "Name": the colon and required-field star are not the name
    return text if 0 < len(text) <= limit and any(ch.isalpha() for ch in text) else ""


def _text_after(ctl: HtmlElement, limit: int) -> str:
    """The short text right after a check box or radio button ("[x] Send me the newsletter"): its tail,
    else the next element when nothing comes between and it holds text and no control ("[x]
    <div>Discovery</div>")."""
    text = WS.sub(" ", ctl.tail or "").strip()
    nxt = ctl.getnext()
    if not text and nxt is not None and isinstance(nxt.tag, str) and dom.text_len(nxt) <= limit and not CONTROL_OR_SELF(nxt):
        text = dom.blocks_text(nxt)
    return text if 0 < len(text) <= limit and any(ch.isalpha() for ch in text) else ""


def _button_beside(ctl: HtmlElement) -> str:
    """The text of the submit button right after a text box (a search box and its "Search" button)."""
    nxt = ctl.getnext()
    if nxt is None or (ctl.tail or "").strip():
        return ""
    if nxt.tag == "input" and (nxt.get("type") or "").strip().lower() in ("submit", "image"):
        return WS.sub(" ", nxt.get("value") or nxt.get("alt") or nxt.get("title") or "").strip()
    if nxt.tag == "button" and (nxt.get("type") or "submit").strip().lower() == "submit":
        return dom.text_of(nxt) or WS.sub(" ", nxt.get("aria-label") or nxt.get("title") or "").strip()
    return ""
