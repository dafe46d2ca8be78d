"""Page furniture and the page's main landmark.

Furniture is what a site puts around every page: navigation, banners, footers, sidebars, menus,
related lists (``FURNITURE``: by tag, ARIA role or a block's class/id words; never a block that
holds the page's ``<main>`` or ``<article>``, nor, given link statistics, one holding ``page_share``
of the page's letters). The semantic main is the page's one ``<main>`` (or ``role=main``), else its
one ``<article>``.
"""

from __future__ import annotations

import re
from typing import Callable

from lxml import etree
from lxml.html import HtmlElement

from pagesieve.core import dom
from pagesieve.core.measure import elements_with

#: Class/id words of page furniture: blocks so named never count as main content here ("widget" only
#: as a word's start: a WordPress "widget widget_text", not Amazon's "celwidget" around every section).
#: A word followed by the name of a control (``CONTROL``) names that control, not furniture: a carousel
#: of products styled ``dark-nav-btns`` (its arrow buttons are dark) is no navigation.
CONTROL = r"(?![_-]*(?:btn|button|arrow|toggle|control)s?(?![a-z]))"
FURNITURE = re.compile(r"(?:nav|menu|footer|header|sidebar|breadcrumb|related|(?:^|[\s_-])widget|drawer|dropdown|"
                       r"mega|recommend|popular|trending|promo|subscribe|newsletter|cookie|consent)" + CONTROL, re.I)
FURNITURE_NAMES = dom.NamePattern(FURNITURE)
#: Class/id names of cookie and consent banners (common consent-manager markup).
COOKIE_NAMES = re.compile(
    r"cookie[-_]?(banner|bar|notice|consent|wall|popup|pop-up|modal|overlay|dialog|message|law|alert|"
    r"disclaimer|warning|box|policy-banner)|consent[-_]?(banner|bar|notice|popup|modal|overlay|dialog|"
    r"manager|wall)|cookieconsent|gdpr|onetrust|cookiebot|qc-cmp|sp_message|truste|cc-window|cc-banner",
    re.I)
#: Lower-case words every match of COOKIE_NAMES holds (each alternative starts with one of them).
COOKIE_WORDS = ("cookie", "consent", "gdpr", "onetrust", "qc-cmp", "sp_message", "truste", "cc-window", "cc-banner")


def consent_named(names: str) -> bool:
    """Whether class/id ``names`` name a cookie or consent banner (:data:`COOKIE_NAMES`; one substring
    search each of :data:`COOKIE_WORDS` first, as most names hold none)."""
    low = names.lower()
    return (not low.isascii() or any(w in low for w in COOKIE_WORDS)) and COOKIE_NAMES.search(names) is not None


#: The attributes :func:`furniture_block` reads: an element without any of them (and not of a furniture tag) is
#: no block.
BLOCK_ATTRS = ("role", "class", "id")
#: Never furniture by their names (a <body class="has-sidebar"> is still the page).
CONTENT_TAGS = frozenset({"html", "body", "main", "article"})
#: An article's (or main's) own <header> and <footer> are parts of it, not page furniture (HTML:
#: the header of the nearest sectioning content).
SECTION_PARTS = frozenset({"header", "footer"})
#: Predicates on attributes are written as the attributes' owners (``//@role[.='main']/..``): the same
#: elements in document order; libxml2 walks attributes far faster than it tests a predicate on every element.
MAINS = etree.XPath("//main | //@role[.='main']/..")
ARTICLES = etree.XPath("//article | //@itemprop[.='articleBody']/..")
#: What :func:`semantic_main` picks its candidates by (then tells them apart as MAINS and ARTICLES do).
_MAIN_TAGS = frozenset({"main", "article"})
_MAIN_ATTRS = ("role", "itemprop")


def in_landmark(el: HtmlElement, body: HtmlElement) -> bool:
    """Whether ``el`` is inside page furniture by its markup (``<nav>``, ``<aside>``, a ``<header>`` or
    ``<footer>`` not of an ``<article>``/``<main>``, their ARIA roles), not only by a block's name: the
    heading that says what the page's title says is its headline also in a block named like a header
    (a question's ``div#question-header``), never in the site's own banner or menu."""
    for node in el.iterancestors():
        if node is body:
            return False
        tag = node.tag
        if tag in SECTION_PARTS and any(a.tag in ("main", "article") for a in node.iterancestors()):
            continue  # an article's or main's own header and footer are its parts
        if tag in dom.FURNITURE_TAGS or (node.get("role") or "").lower() in dom.FURNITURE_ROLES:
            return True
    return False


def semantic_main(root: HtmlElement) -> HtmlElement | None:
    """The page's one ``<main>`` (or ``role=main``), else its one ``<article>`` (or
    ``itemprop=articleBody``); None when there is none or several. :data:`MAINS` and :data:`ARTICLES`,
    read off one walk in C of the whole document (each XPath walked it twice)."""
    top = root.getroottree().getroot()
    candidates = elements_with(top, _MAIN_TAGS, _MAIN_ATTRS)
    for found in ([el for el in candidates if el.tag == "main" or el.get("role") == "main"],
                  [el for el in candidates if el.tag == "article" or el.get("itemprop") == "articleBody"]):
        if len(found) == 1:
            return found[0]
    return None


def furniture_block(body: HtmlElement, stats: dict | None = None,
                     page_share: float = 0.5) -> Callable[[HtmlElement], bool]:
    """The rule of :func:`furniture_of` for one element under ``body``, its ancestors aside: whether it is
    a furniture block itself (nav, header, footer, aside, their roles, a block named like a menu, a
    sidebar, a footer, a related list — but not a block that holds the page's <main> or <article>,
    whatever its name, nor, with ``stats``, a block holding ``page_share`` of the page's letters)."""
    mains = list(body.iter("main", "article"))
    holds_content = {a for m in mains for a in m.iterancestors()}
    in_content = {d for m in mains for d in m.iterdescendants("header", "footer")}
    page_letters = stats.get(body, (0, 0, 0))[2] if stats is not None else 0
    named: dict[str, bool] = {}  # names -> whether they are furniture's (pages repeat their class names)

    def block(el: HtmlElement) -> bool:
        tag = el.tag  # read once: lxml builds the string on every read
        if tag in CONTENT_TAGS:
            return False
        # By tag or role first: furniture without reading the element's names.
        if ((tag in dom.FURNITURE_TAGS and not (tag in SECTION_PARTS and el in in_content))
                or (el.get("role") or "").lower() in dom.FURNITURE_ROLES):
            return True
        names = f"{el.get('class') or ''} {el.get('id') or ''}"
        furniture_named = named.get(names)
        if furniture_named is None:
            furniture_named = named[names] = bool(names.strip() and FURNITURE_NAMES.found(names))
        return (furniture_named and el not in holds_content
                and not (page_letters and stats is not None
                         and stats.get(el, (0, 0, 0))[2] >= page_share * page_letters))

    return block


def furniture_of(body: HtmlElement, stats: dict | None = None, page_share: float = 0.5) -> set[HtmlElement]:
    """Every element in or under page furniture (:func:`furniture_block`'s blocks and everything under
    them; a wrapper named ``page nonav`` holding ``page_share`` of the page's letters is the page, not
    a menu)."""
    block = furniture_block(body, stats, page_share)
    out: set[HtmlElement] = set()
    # Only an element of a furniture tag, or with a role, class or id, can be a block: the others (most of a
    # page) are not read in Python at all.
    for el in elements_with(body, dom.FURNITURE_TAGS, BLOCK_ATTRS):
        if el not in out and block(el):
            out.update(el.iter())
    return out


def in_furniture(body: HtmlElement) -> Callable[[HtmlElement], bool]:
    """``lambda el: el in furniture_of(body)`` (without ``stats``) for elements under ``body``, for a
    caller that asks of a few: an element is furniture when it or an ancestor up to ``body`` is a
    furniture block (:func:`furniture_block`), so only the asked elements and their ancestors are
    tested, each once — not every element of the page (``pagetype._repeated_items`` asks of the
    blocks with three children or more: ~90 of a page's ~600 elements, tested ~4x faster)."""
    block = furniture_block(body)
    known: dict[HtmlElement, bool] = {}  # element -> it or an ancestor is furniture

    def test(el: HtmlElement) -> bool:
        # under furniture, everything is; body is the last ancestor looked at
        return dom.inherited(el, known, False, lambda above, node: above or block(node), top=body)

    return test
