"""What screen readers are told about elements (WCAG 4.1.2): content hidden from them although it
can be read or used, widget roles whose scripts are gone, ARIA attributes that mean nothing, and names
on elements that cannot have one."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from lxml import etree
from lxml.html import HtmlElement

from pagesieve.core import dom
from pagesieve.core.measure import ATTRS
from pagesieve.filters.accessibility.shared import ALL_IDS, FOCUSABLE, HIDDEN_STYLE, Doc, has_name

if TYPE_CHECKING:
    from pagesieve.filters.accessibility import AccessibilitySettings

ARIA_HIDDEN = etree.XPath(".//*/@aria-hidden[translate(normalize-space(.),'TRUE','true')='true']/..")
#: Elements with a role, the node itself included (dead_widgets: only they can carry a widget role).
ROLE_OWNERS = etree.XPath("descendant-or-self::*/@role/..")
#: The states and properties WAI-ARIA defines (1.2 §6.7, plus the braille properties of 1.3), as axe-core 4.10 knows them.
ARIA_ATTRS = frozenset(
    "activedescendant atomic autocomplete braillelabel brailleroledescription busy checked colcount colindex colspan "
    "controls current describedby description details disabled dropeffect errormessage expanded flowto grabbed "
    "haspopup hidden invalid keyshortcuts label labelledby level live modal multiline multiselectable orientation "
    "owns placeholder posinset pressed readonly relevant required roledescription rowcount rowindex rowspan selected "
    "setsize sort valuemax valuemin valuenow valuetext".split())
#: Widget roles that only a script makes work (WAI-ARIA 1.2 §5.3.2 widget and composite roles, and the
#: dialog window roles): with the page's scripts gone, an element that is not a control of its own
#: announces a control that does nothing (dead_widgets). Text boxes are left (contenteditable works alone).
SCRIPTED_ROLES = frozenset("button link tab tablist tabpanel menu menubar menuitem menuitemcheckbox menuitemradio "
                           "option listbox radiogroup radio checkbox switch slider spinbutton scrollbar tree treeitem "
                           "combobox dialog alertdialog".split())
#: Elements that are controls without a script: their own semantics stay (a role on them is dropped,
#: the element is what it says natively); form fields are left alone entirely.
FORM_FIELDS = frozenset({"input", "select", "textarea", "option", "optgroup", "datalist"})
#: States and properties that only widget roles take (WAI-ARIA 1.2 §6.6: not global): on an element
#: without a role whose own role takes none of them (a <div>, <span>, <li>, <p> …) they mean nothing
#: (axe aria-allowed-attr).
WIDGET_STATES = frozenset("aria-expanded aria-pressed aria-selected aria-checked aria-modal aria-valuenow aria-valuemin "
                          "aria-valuemax aria-valuetext aria-orientation aria-multiselectable aria-readonly aria-required "
                          "aria-autocomplete aria-activedescendant aria-multiline aria-placeholder".split())
#: What the native roles of links and buttons take of those (a <details> takes none: its <summary> does).
NATIVE_STATES = {"button": frozenset({"aria-expanded", "aria-pressed"}), "link": frozenset({"aria-expanded"}),
                 "summary": frozenset({"aria-expanded", "aria-pressed"})}
#: Elements whose role is generic: a name on them is not allowed (axe aria-prohibited-attr).
GENERIC_TAGS = frozenset({"div", "span", "i", "b", "a", "font", "center", "u", "s", "small"})
#: Attributes that refer to other elements by id (WAI-ARIA ID reference lists).
IDREF_ATTRS = ("aria-controls", "aria-owns", "aria-activedescendant", "aria-describedby", "aria-labelledby",
               "aria-details", "aria-errormessage", "aria-flowto")
#: Elements whose own role takes none of WIDGET_STATES (generic, paragraph, list, listitem, heading,
#: sectioning and phrasing elements): the states are dropped there.
STATELESS_TAGS = frozenset("div span p i b em strong small u s font center section article header footer nav aside "
                           "ul ol li dl dt dd h1 h2 h3 h4 h5 h6 figure figcaption blockquote label img picture svg "
                           "address main".split())
_IDREF_SET = frozenset(IDREF_ATTRS)
_STATELESS_OR_LINK = STATELESS_TAGS | {"a"}
#: Plain elements a name (aria-label) on turns into an icon (role=img) when they hold nothing to read.
_NAMED_ICON_TAGS = frozenset({"span", "div", "i"})
#: Elements whose role (generic, paragraph, emphasis, code …) cannot be named (axe aria-prohibited-attr).
PROHIBITED_NAME_TAGS = tuple(sorted(GENERIC_TAGS | {"p", "em", "strong", "code", "sub", "sup", "del", "ins"}))


def hidden_content(doc: Doc, ctx, s: AccessibilitySettings) -> None:
    """``aria-hidden="true"`` dropped from content a screen reader would miss while a keyboard reaches
    it or that is real text (setting ``aria_hidden``), but for a closed dialog; hidden icon links leave the
    tab order instead."""
    if not s.aria_hidden:
        return
    body = doc.body
    minimum = s.aria_hidden_min_chars
    nodes = ([body] if (body.get("aria-hidden") or "").strip().lower() == "true" else []) + ARIA_HIDDEN(body)
    for el in nodes:
        if el.get("hidden") is not None or HIDDEN_STYLE.search(el.get("style") or ""):
            continue  # hidden from everyone: not a trap
        if any((a.get("aria-hidden") or "").strip().lower() == "true" for a in el.iterancestors()):
            continue  # the outermost one decides
        if dom.is_dialog(el):
            continue  # a closed dialog (a consent window): style sheets hide it by this very state, and opened
            # it would cover the page
        focusable = FOCUSABLE(el)
        chars = dom.text_len(el)
        named = chars > 0 or any((img.get("alt") or "").strip() for img in el.iter("img"))
        if chars >= minimum or focusable and named:
            del el.attrib["aria-hidden"]
            ctx.note("aria-hidden", el, "aria-hidden removed: it hid content from screen readers "
                     "that a keyboard can reach or that is real text",
                     measured={"focusable": len(focusable), "chars": chars},
                     threshold={"aria_hidden_min_chars": minimum})
        elif focusable:
            # A hidden icon link (nothing to read out, usually next to a text link to the same
            # place): exposing it would make an unnamed link (axe link-name); out of the tab order.
            for f in focusable:
                f.set("tabindex", "-1")
            ctx.note("aria-hidden", el, "focusable element hidden from screen readers and without text: "
                     "kept hidden, taken out of the tab order (tabindex=-1)",
                     measured={"focusable": len(focusable), "chars": chars})


def read_script_policy(doc: Doc, ctx, s: AccessibilitySettings) -> None:
    """Whether the page's scripts are gone, for the rules that ask (``dead_widgets``, ``link_names``).
    Asked once: nothing between the two readers changes the policy or a <meta>."""
    doc.scripts_gone = _scripts_gone(doc.page.root, ctx) if s.dead_widgets or s.link_names else False


def dead_widgets(doc: Doc, ctx, s: AccessibilitySettings) -> None:
    """With the page's scripts gone, the widget roles they drove are dropped (module doc)."""
    if not (s.dead_widgets and doc.scripts_gone):
        return
    body = doc.body
    # Only elements with a role can have one to drop: selected in C (libxml2 walks attributes
    # far faster than Python visits every element). The loop changes attributes only, never the
    # tree, so the list stays what a walk would meet.
    for el in ROLE_OWNERS(body):
        if el.tag in FORM_FIELDS:
            continue
        roles = (el.get("role") or "").strip().lower().split()
        if not roles or roles[0] not in SCRIPTED_ROLES or next(el.iterancestors("select"), None) is not None:
            continue
        native = _native_role(el)
        del el.attrib["role"]
        dropped = [a for a in el.attrib if a in WIDGET_STATES and a not in NATIVE_STATES.get(native or "", ())]
        for a in dropped:
            del el.attrib[a]
        if native is None:
            if el.get("tabindex") is not None and not el.get("tabindex", "").strip().startswith("-"):
                del el.attrib["tabindex"]  # focusable only to be operated
                dropped.append("tabindex")
            labelled = [a for a in ("aria-label", "aria-labelledby") if el.get(a) is not None]
            if labelled and el.tag in GENERIC_TAGS and (dom.text_of(el) or not has_name(el) or FOCUSABLE(el)):
                for a in labelled:  # a plain block cannot be named (axe aria-prohibited-attr): its text speaks
                    del el.attrib[a]
                dropped += labelled
            elif labelled and el.tag in GENERIC_TAGS and not len(el):
                el.set("role", "img")  # a named icon (an icon button with no script to press it)
        ctx.note("aria", el, f"role={roles[0]} dropped: the page's scripts are gone, so it is no "
                 f"{roles[0]} (WCAG 4.1.2)" + ("; the element is what it is natively" if native else ""),
                 measured={"role": roles[0], "dropped": dropped, "now": el.get("role") or native or el.tag})


def attrs(doc: Doc, ctx, s: AccessibilitySettings) -> None:
    """ARIA attributes that mean nothing repaired or dropped (setting ``aria_attrs``; :func:`repair_attrs`)."""
    if s.aria_attrs:
        repair_attrs(doc.body, ctx)


def _attr_candidates(body: HtmlElement) -> tuple[list, list, list, list, list]:
    """The elements each repair of :func:`repair_attrs` may touch, picked in one walk of the body by
    their attribute names: id references, named icons, headings, widget states, aria-* attributes."""
    idrefs, named, headings, stated, aria = [], [], [], [], []
    # The compiled walk gives the elements that pass the first test below (all of them else): most
    # elements of a page are passed over without making their attribute names in Python.
    for el in ATTRS.aria_elements(body) if ATTRS is not None else body.iter(dom.ELEMENT):
        names = el.keys()
        if not names or "role" not in names and "aria-" not in " ".join(names).lower():
            continue
        tag = el.tag
        if el is not body:
            if not _IDREF_SET.isdisjoint(names):
                idrefs.append(el)
            if tag in _NAMED_ICON_TAGS and ("aria-label" in names or "aria-labelledby" in names):
                named.append(el)
            if "role" in names:
                headings.append(el)
        if tag in _STATELESS_OR_LINK and not WIDGET_STATES.isdisjoint(names):
            stated.append(el)
        if any(n[:5].lower() == "aria-" for n in names):
            aria.append(el)
    return idrefs, named, headings, stated, aria


def repair_attrs(body: HtmlElement, ctx) -> None:
    """Id references to missing elements, labelled icons without a role, headings without a level,
    widget states where no widget is, and undefined aria-* attributes (module doc of the package)."""
    # One walk of the body picks, by their attribute names, the elements each repair below may
    # touch; the repairs then run in turn, each over its elements in document order and checking
    # each as it is then (an earlier repair may have changed it). No repair gives an element an
    # attribute that would make it another's candidate (role=img, aria-level: a defined one).
    # Before, each repair walked the body or queried it by XPath (slower still: an attribute
    # test per element): six walks a page.
    # Every candidate has an attribute named aria-* (idrefs, names and widget states all are) or
    # role: one join of its names rules out the rest (most elements: a class, an href) cheaply.
    idrefs, named, headings, stated, aria = _attr_candidates(body)
    ids = set(ALL_IDS(body)) if idrefs else set()
    for el in idrefs:
        for name in IDREF_ATTRS:
            refs = (el.get(name) or "").split()
            if not refs or all(r in ids for r in refs):
                continue
            kept = [r for r in refs if r in ids]
            if kept:
                el.set(name, " ".join(kept))
            else:
                del el.attrib[name]
            ctx.note("aria", el, f"{name} pointed at elements the page does not have: "
                     + ("those ids dropped" if kept else "dropped") + " (WCAG 4.1.2; axe aria-valid-attr-value)",
                     measured={"missing": [r for r in refs if r not in ids][:5]})
    for el in named:
        # A name on a plain <span>/<div> (no role) is not allowed (axe aria-prohibited-attr) and
        # assistive technology may ignore it; one with no text and nothing focusable inside is an
        # icon with a name: role=img says so (WAI-ARIA 1.2 §5.2.8.6, the img role).
        if (el.get("role") or "").strip() or not ((el.get("aria-label") or "").strip() or el.get("aria-labelledby")):
            continue
        if dom.text_of(el) or FOCUSABLE(el) or (el.get("aria-hidden") or "").strip().lower() == "true":
            continue
        el.set("role", "img")
        ctx.note("aria", el, "a labelled <%s> with no text is an icon: role=img (WCAG 4.1.2; axe "
                 "aria-prohibited-attr)" % el.tag, measured={"label": (el.get("aria-label") or "")[:60]})
    for el in headings:
        if el.get("role") != "heading" or el.get("aria-level") is not None:
            continue
        # A heading role needs its level (axe aria-required-attr); WAI-ARIA's default is 2, what
        # browsers assume: saying it changes nothing for a reader that knows the default.
        el.set("aria-level", "2")
        ctx.note("aria", el, "role=heading without aria-level: the default level 2 made explicit (WCAG 4.1.2; "
                 "axe aria-required-attr)")
    for el in stated:
        if (el.get("role") or "").strip() or el.tag == "a" and el.get("href") is not None:
            continue
        states = [n for n in el.attrib if n in WIDGET_STATES]
        for name in states:
            del el.attrib[name]
        if states:
            ctx.note("aria", el, f"widget states on a <{el.tag}>, whose role takes none of them, dropped (WCAG "
                     "4.1.2; axe aria-allowed-attr)", measured={"attributes": states})
    for el in aria:
        bad = [n for n in el.attrib if n.lower().startswith("aria-") and n.lower()[5:] not in ARIA_ATTRS]
        for name in bad:
            del el.attrib[name]
        if bad:
            ctx.note("aria", el, "attributes WAI-ARIA does not define dropped (WCAG 4.1.2; axe aria-valid-attr)",
                     measured={"attributes": bad})


def generic_names(doc: Doc, ctx, s: AccessibilitySettings) -> None:
    """A name (``aria-label``, ``aria-labelledby``) on an element without a role whose role is generic
    or a paragraph is not allowed (axe ``aria-prohibited-attr``) and is ignored by assistive technology.
    A block holding text or controls becomes a named group (``role=group``: the page's name for it
    stays); a phrase holding text loses the name (its text speaks); one holding neither is a named
    picture (``role=img``: an icon link whose script is gone)."""
    if not s.aria_attrs:
        return
    body = doc.body
    for el in list(body.iter(*PROHIBITED_NAME_TAGS)):
        labels = [a for a in ("aria-label", "aria-labelledby") if el.get(a) is not None]
        if not labels or (el.get("role") or "").strip() or el.tag == "a" and el.get("href") is not None:
            continue
        text, controls = dom.text_of(el), [c for c in FOCUSABLE(el) if c is not el]  # controls it holds
        if el.tag in ("div", "center") and (text or controls) or controls and not text:
            el.set("role", "group")
            what = "a group (role=group) with the page's name for it"
        elif text:
            for a in labels:
                del el.attrib[a]
            what = "its name dropped: its text speaks"
        else:
            el.set("role", "img")
            what = "a named picture (role=img): it holds no text"
        ctx.note("aria", el, f"a <{el.tag}> cannot be named: {what} (WCAG 4.1.2; axe aria-prohibited-attr)",
                 measured={"label": (el.get("aria-label") or "")[:60], "now": el.get("role") or el.tag})


def _scripts_gone(root: HtmlElement, ctx) -> bool:
    """Whether no script of the page can run: the page is served with ``script-src 'none'`` (the
    policy ignore's scripts setting asks for, or one the page declares in a ``<meta>``)."""
    policies = [ctx.state.content_security_policy or ""] + [
        m.get("content") or "" for m in root.iter("meta")
        if (m.get("http-equiv") or "").strip().lower() == "content-security-policy"]
    return any(re.search(r"(?:^|;)\s*script-src\s+'none'\s*(?:;|$)", p, re.I) for p in policies)


def _native_role(el: HtmlElement) -> str | None:
    """The role of a control that works without script (a link, a button, a summary), else None."""
    if el.tag in ("a", "area") and el.get("href") is not None:
        return "link"
    if el.tag == "button":
        return "button"
    if el.tag == "summary":
        return "summary"
    return None
