"""The ``ads`` filter's element-hiding rules compiled: a list's ``##selector`` as an XPath, with what a
page must contain for it to match (a cheap pre-check), or None when lxml/cssselect cannot run it exactly."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from cssselect import HTMLTranslator, SelectorError
from cssselect import parser as css
from lxml import etree

_TRANSLATOR = HTMLTranslator()
# Attribute operators whose value a page must contain for the selector to match.
VALUE_OPERATORS = frozenset({"=", "^=", "$=", "*=", "~=", "|="})


@dataclass(frozen=True)
class Selector:
    """A compiled hiding rule: its XPath, and per comma-separated part what a page must contain
    for that part to match (tags, classes, ids, attribute names, attribute-value tests) — a
    cheap pre-check that spares running most of the lists' ~500 generic selectors per page."""

    #: The XPath, or None until first asked for (:attr:`xpath`): a lone class or id is answered by
    #: the page's index, so the filter never runs its XPath.
    compiled: etree.XPath | None = field(compare=False)
    parts: tuple[tuple[frozenset, tuple[tuple[str, str, str], ...]], ...]
    #: ("class", name) for a lone ``.name``, ("id", name) for a lone ``#name``: the page's index
    #: answers those without the XPath's walk of the page (:meth:`PageIndex.matches`).
    simple: tuple[str, str] | None = None
    text: str = ""

    @property
    def xpath(self) -> etree.XPath:
        """The rule as one XPath (cssselect's translation of each comma-separated part, joined)."""
        if self.compiled is None:
            object.__setattr__(self, "compiled", _to_xpath(css.parse(self.text)))
        assert self.compiled is not None
        return self.compiled


def _needs(node, out: set, values: list) -> bool:
    """Collect what ``node`` (a cssselect parse tree) requires; False if it uses a construct
    cssselect 1.x translates wrongly (``:is``/``:where``, ``:has`` with a combinator)."""
    if isinstance(node, css.Element):
        if node.element and node.element != "*":
            out.add(("tag", node.element.lower()))
        return True
    if isinstance(node, (css.Matching, css.SpecificityAdjustment)):
        return False
    if isinstance(node, css.Relation):
        # cssselect < 1.3: one (combinator, subselector); 1.3+: a list of (combinator, selector).
        pairs = ([(node.combinator, node.subselector)] if hasattr(node, "combinator")  # type: ignore[attr-defined]
                 else list(getattr(node, "arguments", ())))
        if not pairs or any(getattr(comb, "value", comb) != " " for comb, _ in pairs):
            return False
        return _needs(node.selector, out, values) and all(
            _needs(sub.parsed_tree, set(), []) for _, sub in pairs)
    if isinstance(node, css.Class):
        out.add(("class", node.class_name))
    elif isinstance(node, css.Hash):
        out.add(("id", node.id))
    elif isinstance(node, css.Attrib):
        name = str(node.attrib).lower()
        out.add(("attr", name))
        if node.operator in VALUE_OPERATORS and node.value is not None and node.value.value:
            values.append((name, node.operator, node.value.value))
    elif isinstance(node, css.CombinedSelector):
        return _needs(node.selector, out, values) and _needs(node.subselector, out, values)
    elif isinstance(node, css.Negation):
        return _needs(node.selector, out, values) and _needs(node.subselector, set(), [])
    return _needs(node.selector, out, values) if hasattr(node, "selector") else True


#: A lone class or id whose name cssselect reads as written (no escape, no leading digit or hyphen):
#: most of the rules a page runs (``hidden_class_id_selectors`` gives thousands of distinct ones over
#: pages). Compiled without cssselect's parse and translation: what it would give is known.
_LONE_NAME = re.compile(r"([.#])([A-Za-z_][A-Za-z0-9_\-]*)")


def _to_xpath(parsed: list) -> etree.XPath:
    return etree.XPath(" | ".join(_TRANSLATOR.selector_to_xpath(p) for p in parsed))


def compile_selector(text: str) -> Selector | None:
    """The compiled rule, or None when lxml/cssselect cannot run it exactly."""
    lone = _LONE_NAME.fullmatch(text)
    if lone is not None:
        # What cssselect gives for it (tests/filters/test_ads.py checks the two agree): one part
        # needing the class or id; no XPath until one is asked for (the page's index answers it).
        kind = "class" if lone.group(1) == "." else "id"
        return Selector(None, ((frozenset({(kind, lone.group(2))}), ()),), (kind, lone.group(2)), text)
    return _compile_css(text)


def _compile_css(text: str) -> Selector | None:
    """:func:`compile_selector` through cssselect's parse (every rule but a plain lone class or id)."""
    try:
        parsed = css.parse(text)
        parts = []
        for part in parsed:
            out: set = set()
            values: list = []
            if part.pseudo_element is not None or not _needs(part.parsed_tree, out, values):
                return None
            parts.append((frozenset(out), tuple(values)))
        return Selector(_to_xpath(parsed), tuple(parts), _simple(parsed, text), text)
    except (SelectorError, etree.XPathError, TypeError, ValueError):
        return None


def _simple(parsed: list, text: str) -> tuple[str, str] | None:
    """("class", name) if the selector is one lone class (``.name``), ("id", name) if one lone id."""
    if len(parsed) != 1 or "|" in text:
        return None
    tree = parsed[0].parsed_tree
    inner = getattr(tree, "selector", None)
    if not (isinstance(inner, css.Element) and inner.element is None and inner.namespace is None):
        return None
    if isinstance(tree, css.Class):
        return ("class", tree.class_name)
    if isinstance(tree, css.Hash):
        return ("id", tree.id)
    return None
