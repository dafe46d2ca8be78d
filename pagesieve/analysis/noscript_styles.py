"""Style sheets a page gives clients without scripts, kept without the rules that hide the pictures
pagesieve made loadable.

A page that loads its pictures by script often adds, inside a ``<noscript>``, a style sheet for
browsers without scripts: it hides the lazy ``<img>`` (``.lazyload{display:none}``,
``.lazyContainer > img {display:none}``, ``[data-lazy-src]{display:none}``) because the
``<noscript>`` beside it holds a plain copy to show instead. pagesieve removes the scripts and shows
the page as it reads without them, so these sheets apply; but it has also given each lazy image the
address its script would have set, and dropped the plain copy beside it (see
:mod:`pagesieve.analysis.lazy_images`). Kept whole, such a sheet would hide the one copy left: the
picture is gone. So a rule of such a sheet that hides (``display: none``, ``visibility: hidden``,
``opacity: 0``) an ``<img>`` that now loads without scripts is dropped; every other rule stays (most
of them show what would wait for a script: a product gallery, content faded in on scroll).
"""

from __future__ import annotations


from lxml.cssselect import CSSSelector
from lxml.html import HtmlElement

from pagesieve.analysis.entrance import CSS_COMMENT, OPACITY_0, STAYS_HIDDEN, declarations
from pagesieve.analysis.lazy_images import loadable
from pagesieve.core import dom


def rules(css: str) -> list[tuple[int, int, str, str]]:
    """The style rules of ``css`` inside any depth of at-rule blocks (``@media``, ``@supports``):
    (start, end, selector, declarations), with ``css[start:end]`` the whole rule. At-rules without a
    block (``@import …;``) are not rules. One pass over the text, however deep the blocks nest."""
    out: list[tuple[int, int, str, str]] = []
    i, n, head = 0, len(css), 0
    at_rule: bool | None = None  # whether the text since ``head`` starts with "@" (None: nothing yet)
    while i < n:
        c = css[i]
        if at_rule is None and not c.isspace() and c not in "{};":
            at_rule = c == "@"
        if c == ";" and at_rule:
            head, at_rule = i + 1, None  # @import, @charset: no block
        elif c == "{" and at_rule:
            head, at_rule = i + 1, None  # @media, @supports: the rules inside follow
        elif c == "{":
            depth, j = 0, i
            while j < n:  # the rule's own block, braces inside it counted
                if css[j] == "{":
                    depth += 1
                elif css[j] == "}":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            out.append((head, min(j + 1, n), css[head:i].strip(), css[i + 1:j]))
            i, head, at_rule = j + 1, j + 1, None
            continue
        elif c == "}":
            head, at_rule = i + 1, None  # the end of an at-rule's block
        i += 1
    return out


def _picture(img: HtmlElement) -> bool:
    """A picture that loads without scripts, not a spacer or a tracking pixel (which may stay hidden)."""
    return loadable(img) and not dom.is_spacer_image(img)


def _hides(block: str) -> bool:
    """Whether a rule's declarations take its elements out of sight."""
    return bool(STAYS_HIDDEN.search(block)) or any(OPACITY_0.match(d) for d in declarations(block))


def pictures_hidden_by(css: str, root: HtmlElement, budget: list[int] | None = None) -> list[tuple[int, int]]:
    """The (start, end) spans of the rules of ``css`` that hide an ``<img>`` of ``root`` which loads
    without scripts (and is not a spacer or a tracking pixel). ``budget``: how many more hiding rules may be
    matched against the page (one item, counted down; each match reads the whole page)."""
    out = []
    for start, end, selector, block in rules(css):
        if not _hides(block):
            continue
        if budget is not None:
            if budget[0] <= 0:
                break
            budget[0] -= 1
        try:
            match = CSSSelector(selector)
        except Exception:  # noqa: BLE001 - a selector cssselect cannot read (a browser-only pseudo-class): kept
            continue
        try:
            if any(el.tag == "img" and _picture(el) for el in match(root)):
                out.append((start, end))
        except Exception:  # noqa: BLE001 - one cssselect translates but lxml's XPath refuses: kept
            continue
    return out


#: At most this many hiding rules of a page's no-script style sheets are matched against it (each match
#: reads the whole page; the sheets that hide lazy pictures hold one to three such rules).
MAX_RULES = 50


def prune_all(styles: list[HtmlElement], root: HtmlElement, ctx) -> int:
    """:func:`prune` each no-script ``<style>`` of ``styles``, matching at most ``MAX_RULES`` hiding rules
    in all; how many rules went. Nothing to do on a page without a picture that loads."""
    if not styles or not any(_picture(img) for img in root.iter("img")):
        return 0
    budget = [MAX_RULES]
    return sum(prune(style, root, ctx, budget) for style in styles)


def prune(style: HtmlElement, root: HtmlElement, ctx, budget: list[int] | None = None) -> int:
    """Drop from the no-script ``<style>`` ``style`` the rules that hide a picture of ``root`` that loads
    without scripts (see the module doc); how many went."""
    css = CSS_COMMENT.sub(lambda m: " " * len(m.group()), style.text or "")
    spans = pictures_hidden_by(css, root, budget)
    if not spans:
        return 0
    text = style.text or ""
    for start, end in reversed(spans):
        text = text[:start] + text[end:]
    if not text.strip():
        ctx.remove(style, "style sheet for clients without scripts that only hid pictures now shown without them",
                   measured={"rules": len(spans)})
        return len(spans)
    ctx.set_text(style, text)
    ctx.note("modify", style, "rule of a style sheet for clients without scripts that hides a picture now "
             "shown without them: dropped", measured={"rules": len(spans)})
    return len(spans)
