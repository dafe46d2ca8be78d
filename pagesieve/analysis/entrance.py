"""Elements a script would fade in, shown without it.

Site builders and animation libraries (Webflow's interactions, Framer, hand-written "reveal on
scroll") write an element's first frame into its ``style`` attribute: ``opacity:0`` and usually an
offset (``transform: translate3d(0, 5%, 0)``); their script animates it to full view as it scrolls
into sight. An inline style outranks every style sheet rule, so nothing but a script can ever show
such an element: with the page's scripts removed the section stays transparent for good — its
text is in the page (and in a screen reader's ears) while a person sees a blank band, sometimes
a blank page.

:func:`reveal` takes the transparent first frame out of such styles (the ``opacity`` of 0 and the
entrance offset beside it) and leaves the rest of the style as written. It leaves alone what the
page means to keep hidden whatever the script: a style that also says ``display:none`` or
``visibility:hidden``, an element hidden from assistive technology (``aria-hidden="true"``) and a
dialog over the page (``<dialog>``, a dialog role, ``aria-modal``), which its script opens on demand.
The same holds for the first frame a library's style sheet gives by an attribute: the "animate on
scroll" library hides every ``[data-aos]`` element (``[data-aos^=fade]{opacity:0}``, often inlined in
the page while the rule that shows them, ``.aos-animate``, waits in a style sheet of its own) until its
script adds that class. The ``data-aos`` attribute only speaks to that script: :func:`reveal` takes it
off, so no rule of the library's matches the element any more, whatever style sheets arrive.

A page may also hide its whole story until its script has run: the product page whose every block,
title first, stands in a ``<div style="display:none">`` (or ``hidden``) that a deferred script shows.
Without the script the person gets the site's header over an empty page. :func:`reveal_headline` shows
the blocks that hide the page's own headline (the heading that says what its metadata or title says),
unless they are hidden on purpose (as above), are a streamed piece (:mod:`pagesieve.analysis.streamed` puts those
in place), or another heading that is not hidden says the same: then the hidden one is a copy (a dialog offering
the story for republication).

Or the page's own style sheet does it by a class: ``.waypoint .step-up { opacity: 0 }`` beside
``.waypoint.waypoint-reveal .step-up { opacity: 1 }``, where no element carries ``waypoint-reveal`` until a
"reveal on scroll" script adds it. :func:`reveal_gated` adds the class where the rule asks for it, as the
script would, but only inside the page's main block: menus, drop-downs, pop-ups and cookie bars wait for a
class the same way (``.nav-open .menu``, ``.popup--visible``) and must stay closed. Style sheets the page
links to are not read (pagesieve does not fetch them); their rules stay as they are.

A page may even hide itself as a whole: a rule of its own style sheet, ``body { opacity: 0 }``, keeps it
from showing before its styles or scripts are ready, and a later style sheet or a script lifts it. Through
pagesieve no script lifts it. :func:`reveal_page` shows such a page (only a rule for ``<html>`` or ``<body>``
that applies to it as it is; not one that waits for a class a script would add, ``body.menu-open``).

Changes go through the filter's context (``ctx.set_attr``): explained and undoable.
"""

from __future__ import annotations

import re

from lxml import etree
from lxml.cssselect import CSSSelector, LxmlHTMLTranslator
from lxml.html import HtmlElement

from pagesieve.analysis import furniture, streamed
from pagesieve.core import dom

#: Elements whose style attribute names an opacity (selected in C; :func:`_first_frame` decides). Written as the
#: owners of those attributes: libxml2 walks a page's attributes far faster than it tests a predicate on every
#: element (the same elements, in document order).
TRANSPARENT = etree.XPath("//@style[contains(translate(., 'OPACITY', 'opacity'), 'opacity')]/..")
#: Elements the "animate on scroll" library fades in (its style sheet's selectors all start with the attribute).
ANIMATED_ON_SCROLL = etree.XPath("//@data-aos/..")
OPACITY_0 = re.compile(r"^opacity\s*:\s*(?:0+(?:\.0*)?|\.0+)%?\s*(?:!\s*important)?$", re.I)
_OFFSET = re.compile(r"^(?:-(?:webkit|moz|ms|o)-)?(?:transform|translate|scale|rotate)\s*:", re.I)
STAYS_HIDDEN = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
#: A comment of a style sheet (read as a space).
CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)
#: A selector of the page as a whole: ``html``, ``body`` or ``:root``, qualified or not (``body.blog``,
#: ``html[lang]``), with no combinator (a rule for the page's parts is not a rule for the page).
WHOLE_PAGE = re.compile(r"(?:html|body|:root)(?:[.#\[:][^\s>+~]*)?", re.I)
#: At most this many selectors of the page as a whole are tested (a page writes one or two such rules).
WHOLE_PAGE_MAX = 50
_CSS = LxmlHTMLTranslator()
#: An opacity of 0 or 1 somewhere in a rule's declarations (which one, and whether alone, is read after).
_OPACITY_ENDS = re.compile(r"opacity\s*:\s*(?:0|\.0|1|100%)", re.I)
#: A selector that may name the page as a whole (:data:`WHOLE_PAGE` decides).
_PAGE_WORD = re.compile(r"html|body|:root", re.I)
#: What a "show" rule of a class-gated entrance says: fully opaque.
_OPAQUE = re.compile(r"^opacity\s*:\s*(?:1(?:\.0*)?|100%)\s*(?:!\s*important)?$", re.I)
#: A hiding rule that also takes the elements out of the way of the pointer means them hidden, not waiting.
_NO_POINTER = re.compile(r"pointer-events\s*:\s*none", re.I)
#: The class names of a compound selector outside its brackets and parentheses (``:not(.x)`` is not one).
_CLASS = re.compile(r"\.(-?[_a-zA-Z][\w-]*)")
#: All class attributes of a page, as plain strings (read in C).
_CLASS_VALUES = etree.XPath("//@class", smart_strings=False)
#: The elements that may be hidden on purpose (:func:`_hidden_on_purpose` decides), selected in C.
_MAYBE_ON_PURPOSE = etree.XPath("descendant-or-self::*[@aria-hidden or @role or @aria-modal] | descendant-or-self::dialog")
#: At most this many "show" rules waiting for a class are matched against the page (a page fades in its sections
#: by one or two such rules; each match reads the whole page).
GATED_MAX = 8
#: The words the elements a gated rule hides must hold together: a sentence, not a control's label.
GATED_MIN_WORDS = 6
#: What a rule says to leave the whole page out of sight until something lifts it.
_PAGE_HIDDEN = re.compile(r"^(?:opacity\s*:\s*(?:0+(?:\.0*)?|\.0+)%?|visibility\s*:\s*hidden)\s*(?:!\s*important)?$", re.I)


def declarations(style: str) -> list[str]:
    """The declarations of a style attribute, split at the semicolons outside brackets and quotes
    (a ``url(data:image/png;base64,...)`` holds one)."""
    out, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(style):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif ch == ";" and not depth:
            out.append(style[start:i].strip())
            start = i + 1
    out.append(style[start:].strip())
    return [d for d in out if d]


#: The longest selector read for a rule of sight (a selector list of a few hundred classes).
SELECTOR_MAX_CHARS = 8192
#: Where a rule's declarations may name what is seen: found in C, so that only those rules are read in Python.
_SIGHT_WORD = re.compile(r"opacity|visibility")


def on_screen(style: HtmlElement) -> bool:
    """Whether a ``<style>`` applies on a screen: no ``media``, or one that is not for print (or speech) alone
    (``(min-width: 768px)`` is a screen's)."""
    media = (style.get("media") or "").lower()
    return not media or "screen" in media or "all" in media or not ("print" in media or "speech" in media)


def rules_of_sight(root: HtmlElement) -> list[tuple[str, str]]:
    """(selector, declarations) of each rule of the page's own screen style sheets (``<style>``; comments
    out) whose declarations name an opacity or a visibility, in order; at-rules' inner rules included. Read
    once for :func:`reveal_page` and :func:`reveal_gated`. A page's inline sheets run to hundreds of kilobytes,
    too many to read a character at a time: the two words are found in C, and only the rules that hold them
    are cut out, from the brace before to the brace after."""
    out: list[tuple[str, str]] = []
    for style in root.iter("style"):
        css = style.text or ""
        if not (("opacity" in css or "visibility" in css) and on_screen(style)):
            continue
        css = CSS_COMMENT.sub(" ", css)
        last = -1  # the block of the last rule taken (or passed over): a rule naming both words is read once
        prev, opened, shut = 0, -1, -1  # scanned up to; the last "{" and "}" before the word (each stretch once)
        for hit in _SIGHT_WORD.finditer(css):
            at = hit.start()
            opened = max(opened, css.rfind("{", prev, at))
            shut = max(shut, css.rfind("}", prev, at))
            prev = at
            if opened <= last or shut > opened:
                continue  # this rule's block was read already, or the word is not inside a block (a selector)
            last = opened
            closed = css.find("}", at)
            if closed < 0:
                break  # the sheet ends inside a block
            head = max(css.rfind(d, max(0, opened - SELECTOR_MAX_CHARS), opened) for d in "{};")
            if css.find("{", opened + 1, closed) >= 0 or (head < 0 and opened > SELECTOR_MAX_CHARS):
                continue  # a block inside (an at-rule's), or a selector longer than any page writes
            out.append((css[head + 1:opened].strip(), css[opened + 1:closed]))
    return out


def _first_frame(el: HtmlElement) -> list[str] | None:
    """The declarations left once the transparent first frame is out, or None when ``el`` is not such
    an element or is meant to stay hidden."""
    style = el.get("style") or ""
    parts = declarations(style)
    if not any(OPACITY_0.match(d) for d in parts) or STAYS_HIDDEN.search(style):
        return None
    if _hidden_on_purpose(el) or not _shows_something(el, style):
        return None
    return [d for d in parts if not OPACITY_0.match(d) and not _OFFSET.match(d)]


def _shows_something(el: HtmlElement, style: str) -> bool:
    """Whether ``el`` holds something to see: text, a picture or another drawing, or a background picture
    of its own (a hero fading in). An empty layer left transparent (a fade over the page, named "Fade BG")
    would only cover what is under it with its colour once shown."""
    return (bool(dom.text_len(el)) or "url(" in style.lower() or el.tag in dom.MEDIA_TAGS
            or next(el.iter(*dom.MEDIA_TAGS), None) is not None)


def _hidden_on_purpose(el: HtmlElement) -> bool:
    """Hidden from assistive technology too, or a dialog its script opens on demand."""
    return (el.get("aria-hidden") or "").strip().lower() == "true" or dom.is_dialog(el)


def reveal(root: HtmlElement, ctx) -> int:
    """Show the elements of ``root`` left transparent for a script to fade in; how many."""
    shown = 0
    for el in TRANSPARENT(root):
        if not isinstance(el.tag, str):
            continue
        left = _first_frame(el)
        if left is None:
            continue
        ctx.set_attr(el, "style", "; ".join(left) or None)
        shown += 1
    for el in ANIMATED_ON_SCROLL(root):
        if not _hidden_on_purpose(el):
            ctx.set_attr(el, "data-aos", None)
            shown += 1
    return shown


def reveal_by_style_sheets(root: HtmlElement, ctx) -> tuple[int, int]:
    """:func:`reveal_page` and :func:`reveal_gated`, the page's style sheets read once: (elements shown as the
    whole page, elements shown by the class their script would add)."""
    sight = rules_of_sight(root)
    return reveal_page(root, ctx, sight), reveal_gated(root, ctx, sight)


def reveal_page(root: HtmlElement, ctx, sight: list[tuple[str, str]] | None = None) -> int:
    """Show the page when the page's own style sheets (``<style>``) leave it out of sight as a whole: a rule for
    ``<html>`` or ``<body>`` that makes it transparent or hidden (``body { opacity: 0 }``). Sites write it to
    keep the page from showing before their styles or scripts are ready, and lift it with a later style sheet
    or a script; without the script nothing may ever lift it, and the person gets a blank page. A page is never
    meant to stay out of sight as a whole, so the element gets ``opacity: 1; visibility: visible`` (marked
    important: the page's rule may be) in its style attribute. Only a rule that applies to the element as it
    is counts (``body.menu-open { visibility: hidden }`` waits for a class the page does not carry).
    ``sight``: the page's :func:`rules_of_sight`, when read already. How many elements were shown."""
    whole = [el for el in (root, dom.body_of(root)) if el is not None]
    shown: list[HtmlElement] = []
    tried: set[str] = set()  # each selector once, at most WHOLE_PAGE_MAX of them
    for selector, block in rules_of_sight(root) if sight is None else sight:
        if len(shown) == len(whole) or len(tried) >= WHOLE_PAGE_MAX:
            break
        if not _PAGE_WORD.search(selector):
            continue  # names neither html, body nor :root (read before the declarations are)
        if not any(_PAGE_HIDDEN.match(d) for d in declarations(block)):
            continue
        for one in (s.strip() for s in selector.split(",")):
            if one in tried or not WHOLE_PAGE.fullmatch(one):
                continue
            tried.add(one)
            try:  # tested on the two elements themselves, not over the page
                applies = etree.XPath(_CSS.css_to_xpath(one, prefix="self::"))
                hidden = [el for el in whole if applies(el) and not any(el is x for x in shown)]
            except Exception:  # noqa: BLE001 - a selector cssselect or lxml cannot read (a browser's own)
                continue
            for el in hidden:
                shown.append(el)
                ctx.note("reveal", el, "the page's style sheet leaves the whole page out of sight until a "
                                       "script or a later style sheet shows it; without the scripts it is "
                                       "shown", measured={"rule": one[:80]})
    for el in shown:
        kept = [d for d in declarations(el.get("style") or "") if not _PAGE_HIDDEN.match(d)]
        ctx.set_attr(el, "style", "; ".join([*kept, "opacity: 1 !important", "visibility: visible !important"]))
    return len(shown)


def _compounds(selector: str) -> list[tuple[str, str]] | None:
    """``selector`` as (combinator before, compound) pairs, the first combinator ""; None for a selector list
    or one with a sibling combinator (``+``, ``~``), which :func:`reveal_gated` does not follow."""
    out: list[tuple[str, str]] = []
    depth, quote, start, comb = 0, "", 0, ""
    i, n = 0, len(selector)
    while i < n:
        ch = selector[i]
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth = max(0, depth - 1)
        elif not depth and (ch.isspace() or ch in ">+~,"):
            if ch == ",":
                return None
            compound = selector[start:i]
            j = i
            while j < n and (selector[j].isspace() or selector[j] in ">+~"):
                j += 1
            sep = selector[i:j].strip() or " "
            if compound:
                out.append((comb, compound))
                comb = sep
            elif sep != " ":
                comb = sep
            i = start = j
            continue
        i += 1
    if selector[start:]:
        out.append((comb, selector[start:]))
    if any(c in ("+", "~") for c, _ in out):
        return None
    return out


def _outer_classes(compound: str) -> list[str]:
    """The class names of ``compound`` outside parentheses and brackets."""
    flat, depth = [], 0
    for ch in compound:
        depth += ch in "(["
        depth -= ch in ")]" and depth > 0
        flat.append(ch if not depth and ch not in ")]" else " ")
    return _CLASS.findall("".join(flat))


def _joined(parts: list[tuple[str, str]]) -> str:
    """The selector of (combinator, compound) ``parts``, as :func:`_compounds` splits one."""
    return "".join((f" {c} " if c.strip() else " ") + s if k else s for k, (c, s) in enumerate(parts)).strip()


def reveal_gated(root: HtmlElement, ctx, sight: list[tuple[str, str]] | None = None) -> int:
    """Show the parts of the page's main block that its own style sheet leaves transparent until a script
    adds a class: ``.waypoint .step-up { opacity: 0 }`` beside ``.waypoint.waypoint-reveal .step-up
    { opacity: 1 }``, where no element carries ``waypoint-reveal`` (a "reveal on scroll" script adds it as
    the section comes into view). The missing classes are added where the "show" rule asks for them (on the
    element itself, or on its nearest ancestor that the rule's earlier part names), as the script would.
    Only inside the page's one ``<main>`` (else its one ``<article>``): menus, drop-downs, pop-ups and cookie
    bars wait for a class the same way, and stay closed. Only when what is hidden holds
    :data:`GATED_MIN_WORDS` words (a sentence, not a control's label), is not hidden on purpose (a hiding
    rule that also says ``display:none``, ``visibility:hidden`` or ``pointer-events:none``; ``aria-hidden``,
    a dialog), and the rules join by descendants (not ``+``/``~``). How many elements were shown."""
    hides, shows = _gated_rules(rules_of_sight(root) if sight is None else sight)
    if not hides or not shows:
        return 0
    main = furniture.semantic_main(root)
    if main is None or main is dom.body_of(root):
        return 0
    hide_keys = {h.replace("*", "") for h in hides}
    carried = _carried(root, {name for show in shows for name in _CLASS.findall(show)})
    shown = tried = 0
    inside: set[HtmlElement] | None = None
    for show in dict.fromkeys(shows):  # a sheet may say the same rule twice
        if all(name in carried for name in _CLASS.findall(show)):
            continue  # no class missing (read fast, then exactly below)
        parts = _compounds(show)
        if not parts or tried >= GATED_MAX:
            continue
        missing = [[c for c in _outer_classes(compound) if c not in carried] for _, compound in parts]
        if not any(missing):
            continue
        base = [(comb, _without(compound, gone)) for (comb, compound), gone in zip(parts, missing)]
        # an emptied compound before a descendant is "any ancestor": the hiding rule does not name it
        named = [(comb, c) for k, (comb, c) in enumerate(base)
                 if c or (k + 1 < len(base) and base[k + 1][0] == ">")]
        if not named or not named[-1][1] or _joined(named).replace("*", "") not in hide_keys:
            continue
        tried += 1  # each rule past this point is matched against the page
        try:
            hidden = [el for el in CSSSelector(_joined(named))(root) if isinstance(el.tag, str)]
        except Exception:  # noqa: BLE001 - a selector cssselect or lxml cannot read (a browser's own)
            continue
        if inside is None:  # the main block's elements, less what it hides on purpose: read once
            inside = set() if any(_hidden_on_purpose(a) for a in main.iterancestors()) else set(main.iter())
            inside.difference_update(x for el in _MAYBE_ON_PURPOSE(main) if _hidden_on_purpose(el) for x in el.iter())
        hidden = [el for el in hidden if el in inside]
        if sum(len(dom.text_of(el).split()) for el in hidden) < GATED_MIN_WORDS:
            continue
        targets = _class_holders(root, hidden, base, missing)
        for el, gone in targets:
            have = (el.get("class") or "").split()
            add = [c for c in gone if c not in have]
            if add:
                ctx.set_attr(el, "class", " ".join([*have, *add]))
        if targets:
            ctx.note("reveal", hidden[0], "the page's style sheet keeps this part transparent until a script adds a "
                                          "class; without the scripts the class is added as the script would",
                     measured={"rule": show[:80], "elements": len(hidden)})
            shown += len(hidden)
    return shown


def _carried(root: HtmlElement, names: set[str]) -> set[str]:
    """The class names of ``names`` that some element of ``root`` carries. All class attributes joined in one
    string and each name looked for in it (in C), not every attribute split in Python."""
    if not names:
        return set()
    joined = " " + " ".join(_CLASS_VALUES(root)).translate(_SPACES) + " "
    return {name for name in names if f" {name} " in joined}


#: Whitespace that separates class names, as spaces.
_SPACES = str.maketrans("\t\n\r\f", "    ")


def _gated_rules(sight: list[tuple[str, str]]) -> tuple[set[str], list[str]]:
    """The selectors of ``sight`` (:func:`rules_of_sight`) that make elements transparent (not hidden on
    purpose as well) and those that make them opaque, whitespace made single."""
    hides: set[str] = set()
    shows: list[str] = []
    for selector, block in sight:
        if not _OPACITY_ENDS.search(block):
            continue  # neither transparent nor opaque (read before the declarations are)
        decls = declarations(block)
        if any(OPACITY_0.match(d) for d in decls):
            if not (STAYS_HIDDEN.search(block) or _NO_POINTER.search(block)):
                hides.update(" ".join(one.split()) for one in selector.split(","))
        elif any(_OPAQUE.match(d) for d in decls):
            shows.extend(" ".join(one.split()) for one in selector.split(","))
    return hides, shows


def _class_holders(root: HtmlElement, hidden: list[HtmlElement], base: list[tuple[str, str]],
                   missing: list[list[str]]) -> list[tuple[HtmlElement, list[str]]]:
    """Where each missing class goes for the "show" rule (its compounds ``base`` less the ``missing``
    classes) to match the ``hidden`` elements: the element itself for the last compound, else its nearest
    ancestor that the rule up to that compound names (its parent when that compound names nothing else)."""
    targets: list[tuple[HtmlElement, list[str]]] = []
    for k, gone in enumerate(missing):
        if not gone:
            continue
        if k == len(base) - 1:
            targets.extend((el, gone) for el in hidden)
            continue
        if not base[k][1] and k == len(base) - 2 and base[k + 1][0] == " ":
            # "any block around it": the nearest one, its parent, as a script would mark its own section
            targets.extend((el.getparent(), gone) for el in hidden if el.getparent() is not None)
            continue
        prefix = [(comb, c or "*") for comb, c in base[:k + 1]]
        try:
            named_here = set(CSSSelector(_joined(prefix))(root))
        except Exception:  # noqa: BLE001 - a selector cssselect or lxml cannot read (a browser's own)
            return []
        for el in hidden:
            holder = next((a for a in el.iterancestors() if a in named_here), None)
            if holder is not None:
                targets.append((holder, gone))
    return targets


def _without(compound: str, classes: list[str]) -> str:
    """``compound`` without the class names ``classes`` (outside parentheses)."""
    for name in classes:
        compound = re.sub(r"\." + re.escape(name) + r"(?![\w-])", "", compound, count=1)
    return compound


def _hides(el: HtmlElement) -> bool:
    """Hidden by its ``hidden`` attribute or by its style attribute (``display:none``, ``visibility:hidden``)."""
    return el.get("hidden") is not None or bool(STAYS_HIDDEN.search(el.get("style") or ""))


def reveal_headline(root: HtmlElement, headline: HtmlElement | None, ctx) -> int:
    """Show the elements that hide ``headline``, the page's own heading of its headline (see the module
    doc); how many."""
    if headline is None or not isinstance(headline.tag, str) or not ctx.in_document(headline):
        return 0
    hiding = [a for a in (headline, *headline.iterancestors()) if _hides(a)]
    if not hiding or any(_hidden_on_purpose(a) or streamed.is_piece(a) for a in hiding):
        return 0  # a streamed piece is put in its place, or not, by its own rule (pagesieve.analysis.streamed)
    text = dom.text_of(headline)
    for other in root.iter("h1", "h2", headline.tag):
        if (other is not headline and dom.text_of(other) == text
                and not any(_hides(a) for a in (other, *other.iterancestors()))):
            return 0  # the hidden heading is a copy of one the page shows
    for el in hiding:
        if el.get("hidden") is not None:
            ctx.set_attr(el, "hidden", None)
        style = el.get("style")
        if style is not None and STAYS_HIDDEN.search(style):
            ctx.set_attr(el, "style", "; ".join(d for d in declarations(style) if not STAYS_HIDDEN.search(d)) or None)
    ctx.note("reveal", hiding[-1], "the page's headline was hidden for its scripts to show; without them it is "
                                   "shown, with the blocks around it", measured={"hiding": len(hiding)})
    return len(hiding)
