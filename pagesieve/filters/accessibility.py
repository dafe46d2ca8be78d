"""``accessibility``: the last step of the chain — leave a page easier for a screen reader than
the original: a language, a title, one ``<main>`` to land on, a skip link, a sane outline, text
alternatives, readable tables, no moving or self-starting content, no traps and no walls.

Source: issue 7 ("Accessible output"), checked against WCAG 2.2 success criteria and the
axe-core rules that test them (tests/a11y runs axe-core on real pages before and after).
Each part is a setting; in the order they run:

* ``lang`` — WCAG 3.1.1 (axe ``html-has-lang``, ``html-lang-valid``): keep the page's ``lang``
  (``en_US`` is repaired to ``en-US``), else take ``<body lang>``, else detect it from the text
  (:mod:`pagesieve.analysis.lang`: script ranges + stop words, no dependency), else ``default_lang``. The
  ``lang`` of a part of the page (WCAG 3.1.2, axe ``valid-lang``) is repaired the same way, or dropped
  when it is no language tag at all (the part then has the page's language).
* ``zoom`` — WCAG 1.4.4 (axe ``meta-viewport``): ``user-scalable=no`` and a ``maximum-scale``
  below :data:`MIN_MAX_SCALE` are dropped from ``<meta name=viewport>``.
* ``title`` — WCAG 2.4.2 (axe ``document-title``): an empty or missing ``<title>`` gets the first
  ``<h1>``'s text, else the URL's host and path, else ``untitled_text``.
* ``overlays`` — cookie walls and sticky overlays that cover content (WCAG 2.4.11 Focus Not
  Obscured): removed when (a) their class/id names a cookie/consent banner (``COOKIE_NAMES``) and
  their text speaks of cookies or consent, (b) they are a dialog (``<dialog>``, ``role=dialog``)
  whose text speaks of cookies or consent, or (c) an inline ``position: fixed|sticky`` style meets an
  overlay name (``OVERLAY_NAMES``: modal, popup, paywall, newsletter …). Conservative: only nodes of
  at most ``overlay_max_chars`` characters, never one holding the article or ``<main>``. Case (c)
  sees only the style attributes earlier filters left (``ignore`` drops those of ``<div>``).
* ``autoplay`` — WCAG 1.4.2 Audio Control / 2.2.2 (axe ``no-autoplay-audio``): ``autoplay`` is
  removed from ``<video>``/``<audio>`` and ``controls`` added (the media stays, the user starts it);
  ``<bgsound>`` is removed.
* ``motion`` — WCAG 2.2.2 Pause, Stop, Hide (axe ``marquee``, ``blink``): ``<marquee>`` and
  ``<blink>`` become a plain ``<span>`` (``<div>`` around blocks) with the same content.
* ``aria_hidden`` — WCAG 4.1.2 (axe ``aria-hidden-focus``, ``aria-hidden-body``): ``aria-hidden=
  "true"`` is dropped from elements that hold at least ``aria_hidden_min_chars`` characters of
  text, or focusable content with some text (content a screen reader would otherwise miss while a
  keyboard can reach it); icons and other small decorations keep it, and focusable ones without
  any text (an icon link beside its text link) leave the tab order (``tabindex=-1``) instead:
  exposed, they would be links without a name (axe ``link-name``).
* ``layout_tables`` — WCAG 1.3.1/1.3.2: a table that :func:`pagesieve.core.dom.is_data_table` does not
  take for data (single row or column, nested, ``role=presentation``, no header cells …) becomes
  ``<div>`` blocks in reading order (row by row), its content untouched. Its colours stay: a
  ``bgcolor``/``background`` becomes the same inline style (WCAG 1.4.3, axe ``color-contrast``: text
  coloured for that background would otherwise be left on white).
* ``table_headers`` — WCAG 1.3.1 (axe ``th-has-data-cells``, ``scope-attr-valid``): in data
  tables ``<th>`` without ``scope`` gets ``scope="col"`` (a row of header cells, or in
  ``<thead>``) or ``scope="row"`` (the first cell of a row of data cells).
* ``dead_widgets`` — WCAG 4.1.2 (axe ``aria-command-name``, ``nested-interactive``,
  ``aria-required-children``, ``listitem``): when no script of the page can run (it is served with
  ``script-src 'none'``, the policy ``ignore``'s ``scripts`` asks for), the widget roles scripts
  drove (``SCRIPTED_ROLES``: button, tab, tablist, tabpanel, menu, option, dialog …) are dropped from
  elements that are not form fields, with the states only widgets take (``aria-selected``,
  ``aria-pressed``, ``aria-modal`` …) and, on elements that are no control natively, a ``tabindex`` that
  made them focusable: a screen reader would announce a control that does nothing. A link or a
  button stays what it is natively; a plain block loses a name it may not have (its text speaks), a
  named one without text becomes ``role=img``. Reader chains widen to a page's own ``<main>``
  (``main_content``): on shops its image carousels, tab sets and pop-ups come with it.
* ``image_alt`` — WCAG 1.1.1 (axe ``image-alt``): a blank ``alt=" "`` becomes ``alt=""``; an ``<img>`` without ``alt`` gets ``alt=""``
  when decorative (``role=presentation``, ``aria-hidden``, or at most ``decorative_max_px`` wide and
  high: spacers, tracking pixels, bullets; at most that in one dimension: a rule line or border strip; a spacer's
  file name, ``SPACER_FILE``: ``spacer.gif``, ``blank.gif``, ``1x1.png`` …), else its figure's caption (also
  one ``main_content`` took out of the text: ``removed_captions``), else its ``title``. An image with
  none of these is left as it is (and noted): a made-up text would be worse.
* ``lists`` — WCAG 1.3.1 (axe ``list``, ``listitem``): the page's own broken lists are repaired
  where the fix is certain: in a ``<ul>``/``<ol>``, each run of children that are not ``<li>``
  (a ``<div>``, a link, bare text; ``<script>``/``<template>`` are allowed there) is wrapped in one
  ``<li>``; a run of ``<li>`` outside any list is wrapped in a ``<ul>``.
* ``link_names`` — WCAG 2.4.4/4.1.2 (axe ``link-name``): a link with no accessible name is named
  (``aria-label``) by the text alternatives it holds but does not expose (the ``alt`` of an
  ``aria-hidden`` or presentational image, a child's ``title`` or ``aria-label``), else by its
  destination (host and path, at most ``link_name_max_chars``): a fact, never a guess. An
  image-map ``<area>`` without ``alt`` is named by its destination the same way. With the page's
  scripts gone, an empty link (or area) to the page itself (``href="#"``, ``""``: nothing in it, no
  destination to name it by) does nothing and is no longer a link (its ``href`` goes). An image
  in a link that has text of its own gets ``alt=""`` (WAI images tutorial, functional images:
  the link text already says it), and so does one in a link named otherwise (its ``title``, another
  image's alt). ``<input type=image>`` without ``alt`` gets its ``value`` or
  ``title``, else "Submit" (what the control does); a ``<button>`` with no name (axe
  ``button-name``) gets the alternatives it hides, else, when it submits its form, "Submit"; with the
  page's scripts gone, one that is still nameless and submits no form does nothing and leaves the tab
  order and the accessibility tree (``tabindex=-1``, ``aria-hidden``; it still shows). A ``<summary>``
  with no name (an icon alone; axe ``summary-name``) is named by the alternatives it hides, else the
  first heading of its ``<details>``, else the start of the text it opens; a ``<details>`` with nothing
  to open besides such a summary (its list went with an earlier filter) is removed.
* ``form_labels`` — WCAG 1.3.1/4.1.2 (axe ``label``, ``select-name``, ``label-title-only``): a form
  control with no label gets the visible label next to it: a ``<label>`` without ``for`` right before
  or after it (linked by ``for``; a ``<label for>`` that says nothing, an icon alone, labels nothing),
  else its own ``title`` or ``placeholder`` (the page's name for it,
  made its label), else the short text right before it (at most ``label_max_chars``, as in
  "Name: [ ]"; or a row above holding only a "Keywords:" that ends in a colon), else, for a text
  box, the text of the submit button beside it ("Search").
* ``aria_attrs`` — WCAG 4.1.2 (axe ``aria-valid-attr``): ``aria-*`` attributes that WAI-ARIA does
  not define (``ARIA_ATTRS``: ARIA 1.2 §6.7 and the 1.3 braille properties; a misspelling such as
  ``aria-labeledby``) mean nothing to assistive technology and are dropped; so are widget states on
  elements whose role takes none (``aria-expanded`` on a ``<div>``, ``aria-selected`` on an ``<li>``:
  axe ``aria-allowed-attr``) and references to ids the page does not have (``aria-controls`` of a
  panel a filter removed: axe ``aria-valid-attr-value``). A ``<span>``/``<div>``/``<i>``
  without a role that has an ``aria-label`` but no text and nothing focusable is a labelled icon
  (axe ``aria-prohibited-attr``: a plain element cannot be named): it gets ``role=img``; ``role=heading``
  without ``aria-level`` (axe ``aria-required-attr``) gets WAI-ARIA's default level, 2, made explicit.
  Any other named element whose role takes no name (``PROHIBITED_NAME_TAGS``: a ``<div>``, a link
  without ``href``, a ``<p>`` …, no role) becomes a named group (``role=group``) when it is a block
  holding text or controls, loses the name when it is a phrase with text of its own, and is a named
  picture (``role=img``) when it holds neither (an icon link whose script is gone).
* ``scroll_focus`` — WCAG 2.1.1 (axe ``scrollable-region-focusable``): a code block (``<pre>``) with a
  line longer than ``SCROLL_LINE_CHARS`` or more than ``SCROLL_LINES`` lines (the text's lines, or the
  blocks a highlighter draws them with) scrolls where the page's style lets it; it gets ``tabindex=0``
  so the keyboard can scroll it, unless it is focusable or holds something focusable.
* ``orphan_captions`` — a ``<figcaption>`` whose figure lost its image (to an earlier filter)
  describes nothing and is removed, so figure and caption survive filtering together. A figure
  with other text left (a poem, a quotation in ``<p>``) keeps its caption.
* ``main_landmark`` — WCAG 1.3.1/2.4.1 (axe ``landmark-one-main``, ``landmark-no-duplicate-main``):
  exactly one ``<main>``. An existing ``<main>`` (or ``role=main``) holding the detected article
  (``ctx.article``, from ``article`` or a reader algorithm) is kept; else the article is wrapped in
  a new ``<main>`` (an article that is a table cell or list item gets the ``<main>`` inside it, one
  that is a table row or section the whole table: a table or list must keep its structure). With
  no article (or the whole body as article) the body's content is wrapped,
  leaving out the leading banners/navigation (``<header>``, ``<nav>``, ``role=banner|navigation|
  search``) and the trailing footers/asides and the removed-links list (text after the last block
  stays inside). Other mains become ``<div>``.
* ``headings`` — WCAG 1.3.1/2.4.6 (axe ``page-has-heading-one``, ``heading-order``): one ``<h1>``
  (the first inside ``<main>``, else the first on the page; other ``<h1>`` become ``<h2>``; with
  none, the first highest heading in ``<main>`` is promoted, or — ``title_heading`` — the title is
  added as ``<h1>`` at the start of ``<main>``), then no skipped levels inside ``<main>``
  (renumbered keeping their relative order: h1, h3, h4, h3 → h1, h2, h3, h2).
* ``headline_in_main`` — WCAG 2.4.1/1.3.1: when the page's one ``<h1>`` comes before ``<main>`` with at
  most ``headline_gap_chars`` characters of text between them (a byline, a date, share buttons: the
  article's own header), ``<main>`` is extended back to start at the ``<h1>`` (the blocks from it on
  move in; when ``<main>`` sits deeper, a new ``<main>`` wraps the range and the old one becomes a
  ``<div>``), so the skip link lands on the headline.
* ``skip_link`` — WCAG 2.4.1 Bypass Blocks (axe ``bypass``, ``skip-link``): ``<a href="#…"
  class="pagesieve-skip">`` first in ``<body>``, pointing at ``<main>`` (which gets the id
  ``pagesieve-main`` unless it has one, and ``tabindex=-1`` so focus lands in it); positive
  ``tabindex`` values are reset to 0 so the skip link is also first in the tab order (WCAG 2.4.3,
  axe ``tabindex``). Shown only when focused (a small style in ``<head>``) when
  ``skip_link_on_focus``.
* ``content_first`` — WCAG 1.3.2/2.4.3, what a screen reader reads first (issue 17: the skip link,
  the headline, the content): the blocks before ``<main>`` (the preceding siblings of it and of its
  ancestors: the site header, what the filters left of the navigation) get an ``id`` if they have
  none and are owned (``aria-owns``) by an empty ``<div class=pagesieve-read-later>`` right after
  ``<main>``; the blocks before the ``<h1>`` inside ``<main>`` (breadcrumbs, a category line) by one
  right after the ``<h1>`` (not where a ``<div>`` may not go: lists, tables, phrasing content).
  The DOM, the look and the tab order do not change; the accessibility tree, which screen readers
  read from, does (Chromium and Firefox follow ``aria-owns``; a browser that does not reads the
  page in its old order). Blocks whose ``id`` is used twice on the page are left in place.
* ``removed_links_nav`` — the removed-links list (``removed_links`` filter) is a labelled
  ``<nav>`` after ``<main>``: found by its ``id``/``class``/label, labelled if it is not, moved to
  the end of the body if it is not after ``<main>``.
* ``reader_colors`` — WCAG 1.4.3 Contrast (axe ``color-contrast``), off by default and on in the
  ``reader`` preset: a reading view draws its text in its own colours (``READER_STYLE``: near-black
  on white, links in a dark blue, 7:1 and more, as browser reader views do), since what the site's
  style sheet leaves of its colour scheme around the kept content is often too faint to read.
* ``link_underline`` — WCAG 1.4.1 Use of Color (axe ``link-in-text-block``): links in ``<main>`` and
  in paragraphs, quotes and captions are underlined (``LINK_STYLE``, in the same ``<style>``), since
  a reader chain keeps the site's style sheet but not always the ancestors its link colours
  depended on.

Structural edits happen on one :meth:`~pagesieve.engine.context.FilterContext.checkpoint` copy of the
body (undoable as a whole); each one is recorded with ``ctx.note`` and removals go through
``ctx.remove``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass
from urllib.parse import urlsplit

from lxml import etree
from lxml.html import HtmlElement

from pagesieve.analysis import lang as langid
from pagesieve.core import dom
from pagesieve.core.errors import ConfigError
from pagesieve.core.settings import setting
from pagesieve.filters.base import Filter

MAIN_ID = "pagesieve-main"
#: A viewport's maximum-scale below this stops zooming (axe meta-viewport: 5 is best practice, WCAG 1.4.4's
#: resize-text criterion asks for 200 %); such a limit is dropped.
MIN_MAX_SCALE = 5.0
SKIP_CLASS = "pagesieve-skip"
#: The empty element after <main> that owns (aria-owns) the blocks before it (content_first).
LATER_CLASS = "pagesieve-read-later"
#: Parents that may not hold an extra <div> (content models of lists, tables, selects, headings' phrasing).
NO_EXTRA_CHILD = frozenset("ul ol dl menu table thead tbody tfoot tr select optgroup datalist colgroup p a span "
                           "button label summary hgroup".split())
#: Visually hidden until focused (the WebAIM "skip navigation links" pattern).
SKIP_STYLE = (f".{SKIP_CLASS}{{position:absolute;left:-10000px;top:auto;width:1px;height:1px;overflow:hidden}}"
              f".{SKIP_CLASS}:focus{{position:static;left:auto;width:auto;height:auto;overflow:visible}}")
#: Links in running text told apart by more than colour (WCAG 1.4.1, axe link-in-text-block): a
#: reader chain keeps the site's style sheet but not the ancestors its link colours depended on.
#: Running text is often a <div> (no CSS selector tells it apart): every link in <main> is underlined.
LINK_STYLE = "main a[href],:is(p,blockquote,dd,figcaption) a[href]{text-decoration:underline !important}"
#: The reading view's colours (reader_colors): #1a1a1a on #fff is 17:1, #1a4fa0 on #fff 7.5:1 (WCAG 1.4.6 AAA
#: asks 7:1). Backgrounds are reset with the text colour: a colour kept over a background dropped is the
#: failure this avoids. Images and media keep theirs. The colour scheme is light too: a page that declares
#: "dark" (<meta name=color-scheme>) would otherwise get the browser's light default text on our white.
READER_STYLE = (":root{color-scheme:light !important}html,body,body *:not(img):not(svg):not(video):not(picture):not(canvas){color:#1a1a1a !important;"
                "background-color:#fff !important;text-shadow:none !important}"
                "body a[href],body a[href] *{color:#1a4fa0 !important}")
SPACER_FILE = dom.SPACER_FILE
REMOVED_LINKS_LABEL = "Links removed from this page"

# BCP 47 shape: a 2-3 letter language, then subtags (axe html-lang-valid checks the language).
VALID_LANG = re.compile(r"^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{1,8})*$")
HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
#: Predicates on attributes are written as the attributes' owners (``//@role[.='main']/..``): the same
#: elements in document order; libxml2 walks attributes far faster than it tests a predicate on every element.
MAINS = etree.XPath(".//main | .//*/@role[.='main']/..")
ARIA_HIDDEN = etree.XPath(".//*/@aria-hidden[translate(normalize-space(.),'TRUE','true')='true']/..")
#: Focusable elements, the node itself included (axe aria-hidden-focus: an aria-hidden link is a trap too).
FOCUSABLE = etree.XPath(
    "descendant-or-self::a[@href] | descendant-or-self::button | "
    "descendant-or-self::input[not(translate(@type,'HIDEN','hiden')='hidden')] | descendant-or-self::select | "
    "descendant-or-self::textarea | descendant-or-self::iframe | "
    "descendant-or-self::*[@tabindex and not(starts-with(normalize-space(@tabindex),'-'))] | "
    "descendant-or-self::*[translate(@contenteditable,'TRUE','true')='true' or @contenteditable='']")
POSITIVE_TABINDEX = etree.XPath(".//*/@tabindex[number(.) > 0]/..")
#: Elements with a role, the node itself included (dead_widgets: only they can carry a widget role).
ROLE_OWNERS = etree.XPath("descendant-or-self::*/@role/..")
#: Elements with a lang below the node (inner_langs).
LANG_OWNERS = etree.XPath(".//*/@lang/..")
#: Every id of the document (the context node's tree).
ALL_IDS = etree.XPath("//@id", smart_strings=False)
#: Elements of the document with the id ``$i`` (an aria-labelledby that resolves).
BY_ID = etree.XPath("//*[@id=$i]")
#: Form fields under a node (a label or a cell that holds its own control labels nothing else).
FIELDS_IN = etree.XPath(".//input|.//select|.//textarea")
#: Form fields, buttons and links under a node (a row above a control that holds one is no label).
CONTROLS_IN = etree.XPath(".//input|.//select|.//textarea|.//button|.//a")
#: A node that is, or holds, a control or a link (its text is not the label of the control after it).
CONTROL_OR_SELF = etree.XPath("descendant-or-self::input|descendant-or-self::select|descendant-or-self::textarea|"
                              "descendant-or-self::button|descendant-or-self::a")
#: What makes a block say something without text (_spoken).
SPOKEN_MEDIA = etree.XPath("descendant-or-self::*[self::img or self::input or self::select or self::textarea or "
                           "self::button or self::iframe or self::svg or self::video or self::audio or self::object "
                           "or self::embed]")
HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
FIXED_STYLE = re.compile(r"position\s*:\s*(fixed|sticky)", re.I)
#: Class/id names of cookie and consent banners (common consent-manager markup).
COOKIE_NAMES = re.compile(
    r"cookie[-_]?(banner|bar|notice|consent|wall|popup|pop-up|modal|overlay|dialog|message|law|alert|"
    r"disclaimer|warning|box|policy-banner)|consent[-_]?(banner|bar|notice|popup|modal|overlay|dialog|"
    r"manager|wall)|cookieconsent|gdpr|onetrust|cookiebot|qc-cmp|sp_message|truste|cc-window|cc-banner",
    re.I)
#: Lower-case words every match of COOKIE_NAMES holds (each alternative starts with one of them).
COOKIE_WORDS = ("cookie", "consent", "gdpr", "onetrust", "qc-cmp", "sp_message", "truste", "cc-window", "cc-banner")
#: Class/id names of overlays that cover content (only with an inline fixed/sticky position).
OVERLAY_NAMES = re.compile(r"overlay|modal|popup|pop-up|paywall|interstitial|newsletter|subscribe|lightbox|"
                           r"backdrop|cookie|consent|gdpr|takeover", re.I)
COOKIE_TEXT = re.compile(r"\bcookies?\b|\bconsent\b|\bgdpr\b|\btracking technologies\b", re.I)
DIALOGS = etree.XPath(".//dialog | .//*/@role[.='dialog' or .='alertdialog']/..")
#: Nodes that can be an overlay (inline elements and the page's structure are not).
OVERLAY_TAGS = frozenset("div section aside dialog form footer header ins".split())
#: What makes a <figure> more than a caption.
FIGURE_MEDIA = etree.XPath(".//img | .//picture | .//svg | .//video | .//audio | .//canvas | .//iframe | "
                           ".//object | .//embed | .//table | .//pre | .//code | .//blockquote | .//math")
REMOVED_LINKS_NAV = etree.XPath(
    ".//nav[contains(@id,'removed-links') or contains(@id,'removed_links') or contains(@class,'removed-links') "
    "or contains(@class,'removed_links') or starts-with(@aria-label,'Links removed')]")
LEADING = frozenset({"header", "nav"})
TRAILING = frozenset({"footer", "nav", "aside"})
LEADING_ROLES = frozenset({"banner", "navigation", "search"})
TRAILING_ROLES = frozenset({"contentinfo", "navigation", "complementary"})
TABLE_PARTS = ("tbody", "thead", "tfoot", "tr", "td", "th", "caption")
#: An article that is one of these keeps its place (a <main> around it would break the table or
#: list: the HTML parser moves a <main> out of a <tr>, axe ``list`` fails on a <ul> holding one):
#: the <main> goes inside it, around its content.
MAIN_INSIDE = frozenset({"td", "th", "li", "dt", "dd", "caption"})
#: An article that is one of these is a part of a table: the whole table is wrapped.
TABLE_ROWS = frozenset({"tr", "tbody", "thead", "tfoot"})
#: Attributes that mean something only on a table (dropped when it becomes <div>s).
TABLE_ATTRS = frozenset("width height border cellpadding cellspacing bgcolor align valign background summary "
                        "rules frame colspan rowspan nowrap abbr headers scope axis char charoff".split())
MARQUEE_ATTRS = frozenset("behavior direction scrollamount scrolldelay loop truespeed bgcolor hspace vspace "
                          "width height".split())
_WS = re.compile(r"\s+")
#: The states and properties WAI-ARIA defines (1.2 §6.7, plus the braille properties of 1.3), as axe-core 4.10 knows them.
ARIA_ATTRS = frozenset(
    "activedescendant atomic autocomplete braillelabel brailleroledescription busy checked colcount colindex colspan "
    "controls current describedby description details disabled dropeffect errormessage expanded flowto grabbed "
    "haspopup hidden invalid keyshortcuts label labelledby level live modal multiline multiselectable orientation "
    "owns placeholder posinset pressed readonly relevant required roledescription rowcount rowindex rowspan selected "
    "setsize sort valuemax valuemin valuenow valuetext".split())
#: What a <ul>/<ol> may hold besides <li> (HTML content model: script-supporting elements).
LIST_OK = frozenset({"li", "script", "template", "noscript", "style"})
#: Inputs that need no label (hidden, or named by their own value or alt).
UNLABELLED_INPUTS = frozenset({"hidden", "submit", "reset", "button", "image"})
#: A check box's or radio button's label follows it and is often a short sentence ("Add my address to
#: the mailing list"): the text right after one is its label up to this many characters.
CHOICE_LABEL_MAX_CHARS = 120
TEXT_INPUTS = frozenset({"text", "search", "email", "url", "tel", "number", "password", "textarea"})
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
#: A <pre> with a line longer than this, or more lines than SCROLL_LINES, may scroll: a 60-character line
#: of 14 px monospace is about 500 px, wider than a phone (360-414 px) or a code column beside the text.
SCROLL_LINE_CHARS = 60
SCROLL_LINES = 30


@dataclass(frozen=True)
class AccessibilitySettings:
    """Which repairs the last step makes (each is one WCAG concern; see the module doc)."""

    # Sources: Give the page a lang: kept from the source, else detected from the text, else default_lang (WCAG
    # 3.1.1).
    lang: bool = setting(True, "Tell screen readers the page's language: the page's own, else guessed from its text, "
                               "else the default below.", group="accessibility", scope="user")
    # Sources: Detect a missing lang from the text (script ranges and stop words of 18 languages; Grefenstette 1995
    # short-word method).
    detect_lang: bool = setting(True, "Guess a missing language from the text (18 languages).",
                                group="accessibility", scope="user")
    default_lang: str = setting("en", "The language of pages that name none and whose language cannot be guessed "
                                      "(a code such as en or pt-BR).",
                                group="accessibility", scope="user", max_chars=35)
    # Sources: Let the user zoom: drop user-scalable=no and a maximum-scale below 5 from the viewport <meta> (WCAG
    # 1.4.4; axe meta-viewport).
    zoom: bool = setting(True, "Let you zoom pages that try to forbid it.", group="accessibility", scope="user")
    # Sources: Give a page with an empty or missing <title> one: its first <h1>, else the URL (WCAG 2.4.2).
    title: bool = setting(True, "Give a page without a title one: its first heading, else its address.", group="accessibility", scope="user")
    untitled_text: str = setting("Untitled page", "The title when neither a heading nor an address is known.",
                                 group="accessibility", scope="user", max_chars=200)
    # Sources: Remove cookie walls, consent dialogs and fixed/sticky overlays (modal, popup, paywall, newsletter) that
    # cover content (WCAG 2.4.11).
    overlays: bool = setting(True, "Remove cookie walls, consent boxes and pop-ups that cover the content.", group="accessibility", scope="user")
    overlay_max_chars: int = setting(2000, "An overlay holds at most this many characters of text (a consent "
                                           "banner is a few hundred; larger blocks are content and stay).",
                                     minimum=0, group="advanced", scope="user")
    # Sources: Stop media from starting by itself: drop autoplay, add controls; remove <bgsound> (WCAG 1.4.2).
    autoplay: bool = setting(True, "Stop sound and video from starting by themselves; give them controls.", group="accessibility", scope="user")
    # Sources: Turn <marquee> and <blink> into plain text containers (WCAG 2.2.2).
    motion: bool = setting(True, "Stop scrolling and blinking text.",
                           group="accessibility", scope="user")
    # Sources: Drop aria-hidden="true" from elements that hold focusable or real content (WCAG 4.1.2; axe aria-hidden-
    # focus).
    aria_hidden: bool = setting(True, "Show screen readers content a page hides from them although it can be used or "
                                      "read.", group="accessibility", scope="user")
    # Sources: Content hidden by aria-hidden with at least this many characters of text is exposed again (smaller,
    # unfocusable ones are icons).
    aria_hidden_min_chars: int = setting(100, "Hidden content with at least this many characters of text is shown to "
                                              "screen readers again (smaller ones are icons).",
                                         minimum=1, group="advanced", scope="user")
    # Sources: When the page's scripts are gone (a policy forbids them: ignore's scripts setting), drop the widget
    # roles they drove (role=button, tab, menu, dialog …) from elements that are not controls themselves: a screen
    # reader would announce controls that do nothing (WCAG 4.1.2).
    dead_widgets: bool = setting(True, "When scripts are removed, stop announcing buttons, tabs and menus that no "
                                       "longer do anything.", group="accessibility", scope="user")
    # Sources: Turn layout tables (not data tables: single row or column, nested, role=presentation, no header cells)
    # into blocks in reading order (WCAG 1.3.2).
    layout_tables: bool = setting(True, "Read tables used only for layout as ordinary blocks, in reading order.", group="accessibility", scope="user")
    # Sources: Give data-table header cells a scope (col or row) when it is clear (WCAG 1.3.1).
    table_headers: bool = setting(True, "Tell screen readers which cells head a data table's columns or rows.", group="accessibility", scope="user")
    # Sources: Give images without alt one: "" when decorative, else the figure caption, else the title (WCAG 1.1.1).
    image_alt: bool = setting(True, "Describe pictures that have no description: from their caption or title, or mark"
                                    " them as decoration.", group="accessibility", scope="user")
    # Sources: An image at most this many pixels wide and high (width/height attributes) is a spacer, tracking pixel
    # or bullet, and one at most this many high or wide a rule or border strip (too small to show a picture or legible
    # text): decorative, alt="".
    decorative_max_px: int = setting(8, "A picture at most this many pixels wide and high (or this thin) is "
                                        "decoration: spacers, bullets, borders.",
                                     minimum=0, group="advanced", scope="user")
    # Sources: A caption used as alt text is cut to this many characters at a word (WebAIM alt-text guidance: short;
    # screen readers read alt in one go).
    alt_max_chars: int = setting(150, "A caption used as a picture's description is cut to this many characters, at a"
                                      " word.",
                                 minimum=10, group="advanced", scope="user")
    # Sources: Repair the page's broken lists: stray children of <ul>/<ol> wrapped in <li>, <li> outside a list
    # wrapped in <ul> (WCAG 1.3.1; axe list, listitem).
    lists: bool = setting(True, "Repair broken lists so screen readers count their items right.",
                          group="accessibility", scope="user")
    # Sources: Name links that have no accessible name: by the alt/title they hide, else by their destination (WCAG
    # 2.4.4; axe link-name).
    link_names: bool = setting(True, "Name links that have none: by their picture's description or title, else by "
                                     "where they lead.", group="accessibility", scope="user")
    link_name_max_chars: int = setting(60, "A link named by its destination gets at most this many characters "
                                           "(host and path; screen readers read a link name in one go).",
                                       minimum=10, group="advanced", scope="user")
    # Sources: Label form controls that have no label with the visible label next to them (WCAG 1.3.1, 4.1.2; axe
    # label, select-name).
    form_labels: bool = setting(True, "Label form fields that have no label, with the text next to them.", group="accessibility", scope="user")
    label_max_chars: int = setting(40, "Text right before a control is its label when it has at most this many "
                                       "characters (\"Name:\", \"Search for\"; longer text is content).",
                                   minimum=1, group="advanced", scope="user")
    # Sources: Drop aria-* attributes that WAI-ARIA does not define (misspellings such as aria-labeledby; WCAG 4.1.2,
    # axe aria-valid-attr).
    aria_attrs: bool = setting(True, "Drop misspelt or unknown screen-reader attributes.", group="accessibility", scope="user")
    orphan_captions: bool = setting(True, "Remove a <figcaption> whose figure has no image (or other media) left.",
                                    group="accessibility", scope="user")
    # Sources: A code block (<pre>) scrolls sideways when its lines are longer than the page is wide; a keyboard can
    # scroll it only when it can take focus (WCAG 2.1.1; axe scrollable-region-focusable).
    scroll_focus: bool = setting(True, "Let the keyboard scroll code blocks: they can take focus.",
                                 group="accessibility", scope="user")
    # Sources: Exactly one <main>, around the detected article (else the body's content minus leading banners and
    # trailing footers) (WCAG 1.3.1).
    main_landmark: bool = setting(True, "Mark exactly one main part of the page, around the article.",
                                  group="accessibility", scope="user")
    # Sources: Repair the outline: one <h1>, no skipped heading levels inside <main> (WCAG 1.3.1, 2.4.6).
    headings: bool = setting(True, "Repair the headings: one main heading, no skipped levels.", group="accessibility", scope="user")
    title_heading: bool = setting(True, "When the page has no heading to promote, add the title as the <h1> "
                                        "at the start of <main>.", group="accessibility", scope="user")
    # Sources: When the page's one <h1> comes shortly before <main> (a headline above the article text), <main> starts
    # at the headline: the skip link lands on it (WCAG 2.4.1, 1.3.1).
    headline_in_main: bool = setting(True, "When the headline comes just before the main part, the main part starts "
                                           "at the headline.", group="accessibility", scope="user")
    headline_gap_chars: int = setting(600, "The <h1> joins <main> when at most this many characters of text come "
                                           "between them (a byline, a date, share buttons, a caption).",
                                      minimum=0, group="advanced", scope="user")
    # Sources: Screen readers read <main> first: the blocks before it (site header, what the filters left of the
    # navigation) are read after it (aria-owns on an empty element after <main>); the look and the tab order stay
    # (WCAG 1.3.2, 2.4.3).
    content_first: bool = setting(True, "Screen readers read the main part first, the site's header and menus after "
                                        "it; the look and the tab order stay.", group="accessibility", scope="user")
    # Sources: Put a "Skip to main content" link first in the body and reset positive tabindex values (WCAG 2.4.1,
    # 2.4.3).
    skip_link: bool = setting(True, 'Put a "Skip to main content" link first on the page, and keep the keyboard\'s '
                                    "order natural.", group="accessibility", scope="user")
    skip_link_text: str = setting("Skip to main content", "The skip link's text.", group="accessibility", scope="user",
                                  max_chars=200)
    skip_link_on_focus: bool = setting(True, "Show the skip link only when it has keyboard focus (a style "
                                             "added to <head>); else always.", group="accessibility", scope="user")
    removed_links_nav: bool = setting(True, "Keep the removed-links list a labelled <nav> after <main>.",
                                      group="accessibility", scope="user")
    # Sources: Draw the page in a reading view's colours: near-black text on white, dark blue links (WCAG 1.4.3; the
    # reader preset turns it on).
    reader_colors: bool = setting(False, "Draw the page in dark text on white with dark blue links (the reader preset"
                                         " turns it on).",
                                  group="accessibility", scope="user")
    # Sources: Underline the links in <main> and in paragraphs, quotes and captions: told apart from text by more than
    # colour (WCAG 1.4.1).
    link_underline: bool = setting(True, "Underline links in the text, so they stand out by more than colour.",
                                   group="accessibility", scope="user")

    def __post_init__(self) -> None:
        if not VALID_LANG.match(self.default_lang):
            raise ConfigError(f"filters.accessibility.default_lang = {self.default_lang!r}: expected a BCP 47 "
                              "language tag such as 'en' or 'pt-BR'")


class AccessibilityFilter(Filter):
    name = "accessibility"
    uses = ("removed_links_nav", "content_security_policy", "removed_captions")
    # Not in assigns: removed_links. What this filter removes (consent banners, <bgsound>, markup in
    # <title>, the caption of a figure whose image is gone) is not offered again; it runs after
    # removed_links in declutter.
    Settings = AccessibilitySettings
    summary = ("Make the page easier for screen readers: lang, title, one <main> with a skip link, repaired "
               "headings, alt text, linear layout tables; no autoplay, marquee, aria-hidden traps or cookie walls.")
    # It removes overlays and orphan captions: the chain's article-loss guard applies.
    destructive = True

    def apply(self, page, ctx) -> None:
        s = self.settings
        root = page.root
        if s.lang:
            self._lang(root, ctx)
        if s.title:
            self._title(page, ctx)
        if s.zoom:
            self._zoom(root, ctx)
        body = dom.body_of(root)
        if body is root or not any(isinstance(c.tag, str) for c in body) and not (body.text or "").strip():
            return
        nav_path = self._removed_links_path(body, ctx) if s.removed_links_nav or s.main_landmark else None
        removed = ctx.state.removed_captions  # captions a reader chain took out of a figure, by image
        taken = {i: removed[img] for i, img in enumerate(body.iter("img")) if img in removed}
        body = ctx.checkpoint(body)  # every structural edit below happens on this copy (undone as one)
        captions = {img: taken[i] for i, img in enumerate(body.iter("img")) if i in taken}
        nav = body.getroottree().xpath(nav_path)[0] if nav_path else None
        if s.overlays:
            self._overlays(body, ctx)
        if s.autoplay:
            self._autoplay(body, ctx)
        if s.motion:
            self._motion(body, ctx)
        if s.aria_hidden:
            self._aria_hidden(body, ctx)
        if s.lang:
            self._inner_langs(body, ctx)
        if s.layout_tables or s.table_headers:
            self._tables(body, ctx)
        # Asked once: nothing between the two readers changes the policy or a <meta>.
        scripts_gone = _scripts_gone(page.root, ctx) if s.dead_widgets or s.link_names else False
        if s.dead_widgets and scripts_gone:
            self._dead_widgets(body, ctx)
        if s.image_alt:
            self._images(body, ctx, captions)
            self._blank_alts(body, ctx)
        if s.lists:
            self._lists(body, ctx)
        if s.link_names:
            self._link_names(body, ctx, scripts_gone)
            self._summary_names(body, ctx)
            if scripts_gone:
                self._dead_buttons(body, ctx)
        if s.form_labels:
            self._form_labels(body, ctx)
        if s.aria_attrs:
            self._aria_attrs(body, ctx)
            self._generic_names(body, ctx)
        if s.scroll_focus:
            self._scroll_focus(body, ctx)
        if s.orphan_captions:
            self._orphan_captions(body, ctx)
        main = self._main(body, nav, ctx) if s.main_landmark else _single_main(body)
        if s.headings:
            self._headings(body, main, page, ctx)
        if s.headline_in_main and main is not None:
            main = self._headline_into_main(body, main, ctx)
        if s.skip_link and main is not None:
            self._skip_link(body, main, ctx)
        if s.content_first and main is not None:
            self._content_first(body, main, nav, ctx)
        if s.removed_links_nav and nav is not None:
            self._nav(body, main, nav, ctx)
        css = ((SKIP_STYLE if s.skip_link and s.skip_link_on_focus and main is not None else "")
               + (LINK_STYLE if s.link_underline else "") + (READER_STYLE if s.reader_colors else ""))
        if css:
            self._style(page.root, css, ctx)

    # -- head ------------------------------------------------------------------------
    def _zoom(self, root: HtmlElement, ctx) -> None:
        """Let the user zoom: drop ``user-scalable=no`` and a ``maximum-scale`` below 2 (axe needs 5
        for best practice; WCAG 1.4.4 needs 2) from ``<meta name=viewport>``."""
        for meta in root.iter("meta"):
            if (meta.get("name") or "").strip().lower() != "viewport":
                continue
            content = meta.get("content") or ""
            parts = [p.strip() for p in re.split(r"[,;]", content) if p.strip()]
            kept = []
            for part in parts:
                key, _, value = part.partition("=")
                key, value = key.strip().lower(), value.strip().lower()
                if key == "user-scalable" and value in ("no", "0"):
                    continue
                if key == "maximum-scale" and (scale := _float(value)) is not None and scale < MIN_MAX_SCALE:
                    continue
                kept.append(part)
            if len(kept) != len(parts):
                ctx.set_attr(meta, "content", ", ".join(kept))
                ctx.note("zoom", meta, "viewport no longer stops zooming (WCAG 1.4.4)",
                         measured={"viewport": content}, threshold={"maximum_scale_at_least": MIN_MAX_SCALE})

    def _lang(self, root: HtmlElement, ctx) -> None:
        s = self.settings
        declared = (root.get("lang") or "").strip()
        if VALID_LANG.match(declared):
            return
        repaired = declared.replace("_", "-")
        if declared and VALID_LANG.match(repaired):
            ctx.set_attr(root, "lang", repaired)
            ctx.note("lang", root, "declared lang repaired to BCP 47 form", measured={"declared": declared})
            return
        body = dom.body_of(root)
        value, source = (body.get("lang") or "").strip(), "<body lang>"
        if not VALID_LANG.match(value):
            value, source = "", ""
            if s.detect_lang:
                node = ctx.article if ctx.article is not None else body
                value, source = langid.detect(dom.text_of(node)) or "", "the text (detected)"
            if not value:
                value, source = s.default_lang, "default_lang"
        ctx.set_attr(root, "lang", value)
        ctx.note("lang", root, f"page lang set from {source}", measured={"declared": declared or None, "lang": value})

    @staticmethod
    def _inner_langs(body: HtmlElement, ctx) -> None:
        """The lang of a part of the page (WCAG 3.1.2, axe valid-lang): ``en_US`` repaired to ``en-US``; a
        value that is no language tag at all is dropped (the part then has the page's language)."""
        for el in LANG_OWNERS(body):
            declared = (el.get("lang") or "").strip()
            if not declared or VALID_LANG.match(declared):
                continue
            repaired = declared.replace("_", "-")
            if VALID_LANG.match(repaired):
                el.set("lang", repaired)
                ctx.note("lang", el, "lang of a part of the page repaired to BCP 47 form", measured={"declared": declared})
            else:
                del el.attrib["lang"]
                ctx.note("lang", el, "lang that is no language tag dropped", measured={"declared": declared})

    def _title(self, page, ctx) -> None:
        root = page.root
        head = root.find("head")
        title = head.find("title") if head is not None else None  # an <svg><title> in the body is no page title
        if title is not None and _WS.sub(" ", title.text_content()).strip():
            return
        h1 = next((h for h in dom.body_of(root).iter("h1") if dom.text_of(h)), None)
        if h1 is not None:
            text, source = dom.text_of(h1)[:200], "the first <h1>"
        elif page.url and urlsplit(page.url).hostname:
            parts = urlsplit(page.url)
            text, source = (parts.hostname + parts.path.rstrip("/")).strip(), "the URL"
        else:
            text, source = self.settings.untitled_text, "untitled_text"
        if title is None:
            if head is None:
                head = dom.element("head")
                ctx.insert(root, 0, head)
            title = dom.element("title")
            ctx.insert(head, len(head), title)
        for child in list(title):  # a <title> holds text only
            ctx.remove(child, "markup inside <title>", explain=False)
        ctx.set_text(title, text)
        ctx.note("title", title, f"empty or missing title set from {source}", measured={"title": text})

    # -- content ---------------------------------------------------------------------
    def _overlays(self, body: HtmlElement, ctx) -> None:
        limit = self.settings.overlay_max_chars
        protected = _protected(body, ctx)
        # (node, reason, whether its text must speak of cookies or consent)
        candidates: list[tuple[HtmlElement, str, bool]] = []
        named = []
        for el in body.iter(*OVERLAY_TAGS):
            id_, cls = el.get("id"), el.get("class")
            if id_ or cls:  # without a name neither pattern can match (most blocks)
                named.append((el, f"{id_ or ''} {cls or ''}"))
        # COOKIE_NAMES costs ~2 µs a name (a hundred names a page); a page none of whose names holds
        # one of the words every match holds (ASCII lower-cased: what re.I matches in ASCII text) has
        # no match, known from one substring search each.
        joined = "\n".join(names for _, names in named)
        maybe_cookie = not joined.isascii() or any(w in joined.lower() for w in COOKIE_WORDS)
        for el, names in named:
            if maybe_cookie and COOKIE_NAMES.search(names):
                candidates.append((el, "cookie or consent banner (by its name)", True))
            elif FIXED_STYLE.search(el.get("style") or "") and OVERLAY_NAMES.search(names):
                candidates.append((el, "fixed or sticky overlay (by its position and name)", False))
        candidates += [(el, "cookie or consent dialog", True) for el in DIALOGS(body)]
        for el, reason, cookie_text in candidates:
            if el in protected or not ctx.in_document(el):
                continue
            chars = dom.text_len(el)
            if chars > limit or cookie_text and not COOKIE_TEXT.search(dom.text_of(el)):
                continue
            ctx.remove(el, reason, measured={"chars": chars, "name": dom.describe(el)},
                       threshold={"overlay_max_chars": limit})

    def _autoplay(self, body: HtmlElement, ctx) -> None:
        for el in list(body.iter("video", "audio", "bgsound")):
            if el.tag == "bgsound":
                _unnest(el)
                ctx.remove(el, "<bgsound> plays sound by itself (WCAG 1.4.2)")
            elif el.get("autoplay") is not None:
                del el.attrib["autoplay"]
                el.set("controls", "")
                ctx.note("autoplay", el, "autoplay removed, controls added: the user starts the media (WCAG 1.4.2)")

    def _motion(self, body: HtmlElement, ctx) -> None:
        for el in list(body.iter("marquee", "blink")):
            old = el.tag
            el.tag = "div" if any(isinstance(c.tag, str) and c.tag in dom.BLOCK_TAGS for c in el.iter()
                                  if c is not el) else "span"
            for name in MARQUEE_ATTRS & set(el.attrib):
                del el.attrib[name]
            ctx.note("unwrap", el, f"<{old}> moves or blinks (WCAG 2.2.2); its content stays in a <{el.tag}>")

    def _aria_hidden(self, body: HtmlElement, ctx) -> None:
        minimum = self.settings.aria_hidden_min_chars
        nodes = ([body] if (body.get("aria-hidden") or "").strip().lower() == "true" else []) + ARIA_HIDDEN(body)
        for el in nodes:
            if el.get("hidden") is not None or HIDDEN_STYLE.search(el.get("style") or ""):
                continue  # hidden from everyone: not a trap
            if any((a.get("aria-hidden") or "").strip().lower() == "true" for a in el.iterancestors()):
                continue  # the outermost one decides
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

    def _tables(self, body: HtmlElement, ctx) -> None:
        s = self.settings
        tables = list(body.iter("table"))
        data = {t: dom.is_data_table(t) for t in tables}
        parts = {t: [p for p in t.iter(*TABLE_PARTS) if next(p.iterancestors("table"), None) is t]
                 for t in tables if not data[t]} if s.layout_tables else {}
        for table in tables:
            if data[table]:
                if s.table_headers:
                    self._scope(table, ctx)
            elif s.layout_tables:
                if not ctx.in_document(table):
                    continue
                rows = sum(1 for p in parts[table] if p.tag == "tr")
                spacers = 0
                for p in parts[table]:
                    # A cell or row that only holds space (spacer images, &nbsp;, nothing) is dropped:
                    # as a block it would keep the colour and height the layout gave it (bars of colour).
                    if p.tag in ("tr", "td", "th") and ctx.in_document(p) and dom.is_layout_spacer(p, s.decorative_max_px):
                        ctx.remove(p, "layout spacer cell dropped with its layout table", explain=False)
                        spacers += 1
                for p in parts[table]:
                    if not ctx.in_document(p):
                        continue
                    p.tag = "div"
                    _keep_colours(p)
                    _drop_attrs(p, TABLE_ATTRS)
                for p in [c for c in table if isinstance(c.tag, str) and c.tag in ("colgroup", "col")]:
                    table.remove(p)
                table.tag = "div"
                _keep_colours(table)
                _drop_attrs(table, TABLE_ATTRS)
                if (table.get("role") or "").strip().lower() in ("presentation", "none"):
                    del table.attrib["role"]
                ctx.note("linearise", table, "layout table turned into blocks in reading order (WCAG 1.3.2)",
                         measured={"rows": rows, "spacers_dropped": spacers})

    @staticmethod
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

    @staticmethod
    def _dead_widgets(body: HtmlElement, ctx) -> None:
        """With the page's scripts gone, the widget roles they drove are dropped (module doc)."""
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
                if labelled and el.tag in GENERIC_TAGS and (dom.text_of(el) or not _has_name(el) or FOCUSABLE(el)):
                    for a in labelled:  # a plain block cannot be named (axe aria-prohibited-attr): its text speaks
                        del el.attrib[a]
                    dropped += labelled
                elif labelled and el.tag in GENERIC_TAGS and not len(el):
                    el.set("role", "img")  # a named icon (an icon button with no script to press it)
            ctx.note("aria", el, f"role={roles[0]} dropped: the page's scripts are gone, so it is no "
                     f"{roles[0]} (WCAG 4.1.2)" + ("; the element is what it is natively" if native else ""),
                     measured={"role": roles[0], "dropped": dropped, "now": el.get("role") or native or el.tag})

    def _images(self, body: HtmlElement, ctx, taken: dict | None = None) -> None:
        s = self.settings
        for img in body.iter("img"):
            if img.get("alt") is not None or img.get("aria-label") or img.get("aria-labelledby"):
                continue
            role = (img.get("role") or "").strip().lower()
            width, height = _px(img.get("width")), _px(img.get("height"))
            if role in ("presentation", "none") or (img.get("aria-hidden") or "").strip().lower() == "true":
                alt, source = "", "decorative by its role or aria-hidden"
            elif width is not None and height is not None and max(width, height) <= s.decorative_max_px:
                alt, source = "", "decorative spacer or tracking pixel"
            elif any(n is not None and n <= s.decorative_max_px for n in (width, height)):
                alt, source = "", "decorative rule or spacer (a few pixels high or wide shows no picture)"
            elif SPACER_FILE.search(_url_path(img.get("src") or "")):
                alt, source = "", "decorative spacer (by its file name)"
            else:
                alt, source = _caption(img), "from the figure caption"
                if not alt and next(img.iterancestors("figure"), None) is not None and (taken or {}).get(img):
                    # the figure's caption an earlier filter took out of the text (main_content's captions)
                    alt, source = _WS.sub(" ", (taken or {})[img]).strip(), "from the figure caption (taken out of the text)"
                if not alt:
                    alt, source = _WS.sub(" ", img.get("title") or "").strip(), "from the title attribute"
                if not alt:
                    ctx.note("alt", img, "image without alt and without a caption or title; left as it is")
                    continue
                alt = _shorten(alt, s.alt_max_chars)
            img.set("alt", alt)
            ctx.note("alt", img, f"alt set: {source} (WCAG 1.1.1)", measured={"alt": alt},
                     threshold={"decorative_max_px": s.decorative_max_px} if "pixel" in source else None)

    @staticmethod
    def _lists(body: HtmlElement, ctx) -> None:
        for lst in list(body.iter("ul", "ol")):
            if (lst.get("role") or "").strip():
                continue  # axe checks only lists without a role; a role says what it is
            runs: list[list] = []
            run: list = []
            stray_text = (lst.text or "").strip()
            for child in lst:
                if not isinstance(child.tag, str):  # a comment or processing instruction
                    continue
                if child.tag in LIST_OK:
                    if child.tag == "li" and run:
                        runs.append(run)
                        run = []
                    continue
                run.append(child)
            if run:
                runs.append(run)
            if stray_text:
                li = dom.element("li")
                li.text, lst.text = lst.text, None
                lst.insert(0, li)
                ctx.note("list", li, "text directly inside a list wrapped in <li> (WCAG 1.3.1; axe list)",
                         measured={"text": stray_text[:60]})
            for run in runs:
                li = dom.element("li")
                run[0].addprevious(li)
                for child in run:
                    li.append(child)  # with its tail
                ctx.note("list", li, f"{len(run)} child element(s) of a list that were not <li> wrapped in one "
                         "<li> (WCAG 1.3.1; axe list)", measured={"children": [dom.describe(c) for c in run[:3]]})
            for li in [c for c in lst if isinstance(c.tag, str) and c.tag == "li"]:
                if (li.tail or "").strip():  # text between items is an item of its own
                    item = dom.element("li")
                    item.text, li.tail = li.tail, None
                    li.addnext(item)
                    ctx.note("list", item, "text between list items wrapped in <li> (WCAG 1.3.1; axe list)",
                             measured={"text": item.text.strip()[:60]})
        for li in list(body.iter("li")):
            parent = li.getparent()
            if parent is None or parent.tag in ("ul", "ol", "menu") or (parent.get("role") or "") == "list":
                continue
            if li.getprevious() is not None and li.getprevious().tag == "li" and li.getprevious().getparent() is parent:
                continue  # part of a run already handled from its first item
            run = [li]
            nxt = li.getnext()
            while nxt is not None and nxt.tag == "li" and not (run[-1].tail or "").strip():
                run.append(nxt)
                nxt = nxt.getnext()
            ul = dom.element("ul")
            li.addprevious(ul)
            ul.tail, run[-1].tail = run[-1].tail, None
            for item in run:
                ul.append(item)
            ctx.note("list", ul, f"{len(run)} <li> outside any list wrapped in <ul> (WCAG 1.3.1; axe listitem)",
                     measured={"parent": dom.describe(parent)})

    def _link_names(self, body: HtmlElement, ctx, scripts_gone: bool = False) -> None:
        limit = self.settings.link_name_max_chars
        for area in body.iter("area"):
            if area.get("href") is None or (area.get("alt") or "").strip() or _has_name(area):
                continue
            name = _destination(area.get("href") or "", limit)
            if name:
                area.set("alt", name)
                ctx.note("alt", area, "image-map area without alt named by its destination (WCAG 1.1.1, 2.4.4)",
                         measured={"alt": name})
            elif scripts_gone:
                del area.attrib["href"]
                ctx.note("link name", area, "image-map area to the page itself without a name: with the page's "
                         "scripts gone it does nothing; no longer a link", measured={"href": ""})
        for a in body.iter("a"):
            if a.get("href") is None:
                continue
            text = dom.text_of(a)
            imgs = list(a.iter("img"))
            if text and (a.get("aria-hidden") or "").strip().lower() != "true":
                for img in imgs:  # the link's own text names it: its images are decoration there
                    if img.get("alt") is None and not img.get("aria-label"):
                        img.set("alt", "")
                        ctx.note("alt", img, "image in a link that has its own text: alt=\"\" (WAI functional "
                                 "images)", measured={"link_text": text[:60]})
                continue
            if _has_name(a) or _named_by_content(a) or (a.get("role") or "").strip().lower() in ("presentation", "none"):
                for img in imgs:  # the link is named by its title or another image: this one adds nothing
                    if img.get("alt") is None and not img.get("aria-label") and not img.get("aria-labelledby"):
                        img.set("alt", "")
                        ctx.note("alt", img, "image without alt in a link named otherwise: alt=\"\" (WAI "
                                 "functional images)", measured={"link_name": _link_label(a)[:60]})
                continue
            hidden = _hidden_alternatives(a)
            if hidden:
                name, source = _shorten(" ".join(hidden), limit), "the text alternatives inside it"
            else:
                name, source = _destination(a.get("href") or "", limit), "its destination"
            if not name and scripts_gone and not imgs and not _spoken(a):
                href = a.attrib.pop("href")
                ctx.note("link name", a, "empty link to the page itself (nothing in it, no destination): with the "
                         "page's scripts gone it does nothing; no longer a link (WCAG 2.4.4)", measured={"href": href})
                continue
            if not name:
                ctx.note("link name", a, "link without a name and without a destination to name it by; left")
                continue
            for img in imgs:
                if img.get("alt") is None:
                    img.set("alt", "")  # named by the link now; a bare image would be read as its file name
            a.set("aria-label", name)
            ctx.note("link name", a, f"link without an accessible name named by {source} (WCAG 2.4.4)",
                     measured={"name": name})
        for button in body.iter("button"):
            if dom.text_of(button) or _has_name(button) or _named_by_content(button):
                continue
            hidden = _hidden_alternatives(button)
            submit = (button.get("type") or "submit").strip().lower() == "submit" and next(
                button.iterancestors("form"), None) is not None
            name = _shorten(" ".join(hidden), limit) if hidden else ("Submit" if submit else "")
            if not name:
                ctx.note("button name", button, "button without a name and nothing to name it by; left")
                continue
            button.set("aria-label", name)
            ctx.note("button name", button, "button without an accessible name named by "
                     + ("the text alternatives inside it" if hidden else "what it does (it submits its form)")
                     + " (WCAG 4.1.2)", measured={"name": name})
        for inp in body.iter("input"):
            if (inp.get("type") or "").strip().lower() != "image" or (inp.get("alt") or "").strip():
                continue
            alt = _WS.sub(" ", inp.get("value") or inp.get("title") or "").strip() or "Submit"
            inp.set("alt", alt)
            ctx.note("alt", inp, "image button without alt: its value or title, else what it does (Submit)",
                     measured={"alt": alt})

    def _form_labels(self, body: HtmlElement, ctx) -> None:
        limit = self.settings.label_max_chars
        # A <label for> that says nothing (an icon alone: a "+" that opens a panel) labels nothing.
        labelled = {(lb.get("for") or "").strip() for lb in body.iter("label")
                    if dom.text_of(lb) or _named_by_content(lb)} - {""}
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
                    ctl.set("id", _free_id(body, "pagesieve-field"))
                label.set("for", ctl.get("id"))
                labelled.add(ctl.get("id"))
                ctx.note("label", ctl, "form control linked to the <label> beside it (WCAG 1.3.1)",
                         measured={"label": dom.text_of(label)[:60]})
                continue
            own = _WS.sub(" ", ctl.get("title") or ctl.get("placeholder") or "").strip()
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

    @staticmethod
    def _aria_attrs(body: HtmlElement, ctx) -> None:
        # One walk of the body picks, by their attribute names, the elements each repair below may
        # touch; the repairs then run in turn, each over its elements in document order and checking
        # each as it is then (an earlier repair may have changed it). No repair gives an element an
        # attribute that would make it another's candidate (role=img, aria-level: a defined one).
        # Before, each repair walked the body or queried it by XPath (slower still: an attribute
        # test per element): six walks a page.
        # Every candidate has an attribute named aria-* (idrefs, names and widget states all are) or
        # role: one join of its names rules out the rest (most elements: a class, an href) cheaply.
        idrefs, named, headings, stated, aria = [], [], [], [], []
        for el in body.iter(dom.ELEMENT):
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

    def _summary_names(self, body: HtmlElement, ctx) -> None:
        """A ``<summary>`` with no name (an icon alone) is the button that opens its ``<details>``; a
        screen reader says only "disclosure triangle" (axe ``summary-name``). With nothing else in the
        details (the list it opened went with an earlier filter) it opens on nothing and goes, else it is
        named by the alternatives it hides, else by the details' first heading or the start of its text."""
        limit = self.settings.link_name_max_chars
        for summary in list(body.iter("summary")):
            details = summary.getparent()
            if details is None or details.tag != "details" or details[0] is not summary:
                continue  # only a details' first summary is its button
            if dom.text_of(summary) or _has_name(summary) or _named_by_content(summary):
                continue
            rest = [c for c in details if c is not summary and isinstance(c.tag, str)]
            if not dom.text_of(details) and not any(_spoken(c) for c in rest):
                ctx.remove(details, "a <details> with nothing to open besides its unnamed <summary> (WCAG 4.1.2; "
                           "axe summary-name)", guarded=False)
                continue
            hidden = _hidden_alternatives(summary)
            heading = next((h for c in rest for h in c.iter(*HEADINGS) if dom.text_of(h)), None)
            if hidden:
                name, source = " ".join(hidden), "the text alternatives inside it"
            elif heading is not None:
                name, source = dom.text_of(heading), "the first heading it opens"
            elif dom.text_of(details):
                name, source = _blocks_text(details), "the start of the text it opens"
            else:
                name, source = " ".join(_hidden_alternatives(details)), "the text alternatives of what it opens"
            name = _shorten(name, limit)
            if not name:
                ctx.note("summary name", summary, "<summary> without a name and nothing to name it by; left")
                continue
            summary.set("aria-label", name)
            ctx.note("summary name", summary, f"<summary> without a name named by {source} (WCAG 4.1.2; axe "
                     "summary-name)", measured={"name": name})

    @staticmethod
    def _dead_buttons(body: HtmlElement, ctx) -> None:
        """With the page's scripts gone, a ``<button>`` that neither submits nor resets a form does
        nothing; one that nothing names (an icon, or nothing at all: a menu's backdrop) leaves the tab
        order and the accessibility tree (``tabindex=-1``, ``aria-hidden``): a screen reader would
        announce a nameless button that does nothing (axe ``button-name``). It still shows."""
        for button in list(body.iter("button")):
            if dom.text_of(button) or _has_name(button) or _named_by_content(button):
                continue
            kind = (button.get("type") or "submit").strip().lower()
            if kind in ("submit", "reset") and (button.get("form") or next(button.iterancestors("form"), None) is not None):
                continue  # it submits or resets its form without a script
            if any((a.get("aria-hidden") or "").strip().lower() == "true" for a in button.iterancestors()):
                continue
            button.set("aria-hidden", "true")
            button.set("tabindex", "-1")
            ctx.note("button name", button, "button without a name that does nothing with the page's scripts gone "
                     "(no form to submit): hidden from screen readers and the tab order (WCAG 4.1.2; axe button-name)",
                     measured={"type": kind})

    @staticmethod
    def _generic_names(body: HtmlElement, ctx) -> None:
        """A name (``aria-label``, ``aria-labelledby``) on an element without a role whose role is generic
        or a paragraph is not allowed (axe ``aria-prohibited-attr``) and is ignored by assistive technology.
        A block holding text or controls becomes a named group (``role=group``: the page's name for it
        stays); a phrase holding text loses the name (its text speaks); one holding neither is a named
        picture (``role=img``: an icon link whose script is gone)."""
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

    @staticmethod
    def _scroll_focus(body: HtmlElement, ctx) -> None:
        """A code block (``<pre>``: its lines do not wrap) with a line longer than ``SCROLL_LINE_CHARS`` or
        more than ``SCROLL_LINES`` lines scrolls where the page's style lets it; a keyboard can scroll it only
        when it can take focus (axe ``scrollable-region-focusable``): it gets ``tabindex=0`` unless it is
        focusable or holds something focusable."""
        for pre in body.iter("pre"):
            if pre.get("tabindex") is not None or FOCUSABLE(pre):
                continue
            text = "".join(pre.itertext())
            # lines are the text's, or, when blocks draw them (a highlighter's <div> a line), the blocks'
            blocks = [el for el in pre.iter("div", "p") if el.find(".//div") is None and el.find(".//p") is None]
            lines = ["".join(el.itertext()) for el in blocks] if blocks else text.split("\n")
            if not text.strip() or (max(len(line) for line in lines) <= SCROLL_LINE_CHARS and len(lines) <= SCROLL_LINES):
                continue
            pre.set("tabindex", "0")
            ctx.note("scroll", pre, "code block that may scroll can take focus, so the keyboard can scroll it "
                     "(WCAG 2.1.1; axe scrollable-region-focusable)",
                     measured={"longest_line": max(len(line) for line in lines), "lines": len(lines)},
                     threshold={"chars": SCROLL_LINE_CHARS, "lines": SCROLL_LINES})

    @staticmethod
    def _blank_alts(body: HtmlElement, ctx) -> None:
        """``alt=" "`` (blank, not empty) means "decoration" but some screen readers read the file name
        then (axe ``image-alt``): it becomes ``alt=""``."""
        for img in body.iter("img"):
            alt = img.get("alt")
            if alt and not alt.strip():
                img.set("alt", "")
                ctx.note("alt", img, "blank alt made empty: decoration (WCAG 1.1.1; axe image-alt)")

    @staticmethod
    def _orphan_captions(body: HtmlElement, ctx) -> None:
        for fig in list(body.iter("figure")):
            caps = [c for c in fig if isinstance(c.tag, str) and c.tag == "figcaption"]
            # Whatever else is left (a poem in <p>s, a credit line) is what the caption describes.
            rest = dom.text_len(fig) - sum(dom.text_len(c) for c in caps)
            if caps and not rest and not FIGURE_MEDIA(fig):
                for cap in caps:
                    ctx.remove(cap, "caption of a figure whose image is gone", measured={"chars": dom.text_len(cap)})

    def _main(self, body: HtmlElement, nav: HtmlElement | None, ctx) -> HtmlElement | None:
        article = ctx.article
        if article is not None and (article is body or not _inside(article, body)):
            article = None
        mains = MAINS(body)
        keep = None
        if article is not None:
            keep = next((m for m in mains if m is article or _inside(article, m)), None)
        elif mains:
            keep = max(mains, key=dom.text_len)
        for m in mains:
            if m is not keep:
                old = dom.describe(m)
                if m.tag == "main":
                    m.tag = "div"
                if (m.get("role") or "").strip() == "main":
                    del m.attrib["role"]
                ctx.note("main", m, "a second main landmark became a plain block", measured={"was": old})
        if keep is not None:
            if keep.tag != "main" and keep.tag == "div":
                keep.tag = "main"
                del keep.attrib["role"]
                ctx.note("main", keep, "the role=main block became <main>")
            return keep
        main = dom.element("main")
        if article is not None and article.tag in TABLE_ROWS:
            article = next(article.iterancestors("table"), article)
        if article is not None and article.tag in MAIN_INSIDE:
            main.text, article.text = article.text, None
            for child in list(article):
                main.append(child)  # with its tail
            article.append(main)
            ctx.note("main", main, f"the content of the detected article <{article.tag}> wrapped in <main> "
                     "(the table or list around it stays intact)", measured={"article": dom.describe(article)})
            return main
        if article is not None:
            article.addprevious(main)
            main.tail, article.tail = article.tail, None
            main.append(article)
            ctx.note("main", main, "the detected article wrapped in <main>", measured={"article": dom.describe(article)})
            return main
        children = [c for c in body if isinstance(c.tag, str) and c is not nav]
        start, end = 0, len(children)
        while start < end and (_landmark(children[start], LEADING, LEADING_ROLES) or _is_skip(children[start])):
            start += 1
        while end > start and _landmark(children[end - 1], TRAILING, TRAILING_ROLES):
            end -= 1
        if start == end:  # nothing but landmarks: wrap them all
            start, end = 0, len(children)
        if start == end:
            return None
        first, last = children[start], children[end - 1]
        moved = [first]
        node = first
        while node is not last:  # everything between first and last (nav included: moved out later)
            node = node.getnext()
            moved.append(node)
        first.addprevious(main)
        if main.getprevious() is None:
            main.text, body.text = body.text, None
        for n in moved:
            main.append(n)  # with its tail: text after the last block is content too
        ctx.note("main", main, "no article known: the body's content wrapped in <main> (leading banners and "
                 "trailing footers left out)", measured={"blocks": len(moved), "left_before": start,
                                                          "left_after": len(children) - end})
        return main

    def _headings(self, body: HtmlElement, main: HtmlElement | None, page, ctx) -> None:
        scope = main if main is not None else body
        all_h = list(body.iter(*HEADINGS))
        in_main = [h for h in all_h if _inside(h, scope)]
        h1s = [h for h in all_h if h.tag == "h1"]
        chosen = next((h for h in h1s if h in in_main), h1s[0] if h1s else None)
        for h in h1s:
            if h is not chosen:
                h.tag = "h2"
                ctx.note("heading", h, "a second <h1> became <h2> (one <h1> per page)")
        if chosen is None:
            if in_main:
                top = min(int(h.tag[1]) for h in in_main)
                chosen = next(h for h in in_main if int(h.tag[1]) == top)
                ctx.note("heading", chosen, f"no <h1>: the first <h{top}> of the main content became <h1>")
                chosen.tag = "h1"
            elif self.settings.title_heading and page.title:
                chosen = dom.element("h1")
                chosen.text = page.title
                chosen.tail = scope.text
                scope.text = None
                scope.insert(0, chosen)
                ctx.note("heading", chosen, "no heading in the main content: the title added as <h1>",
                         measured={"title": page.title})
                in_main = [chosen]
            elif all_h:
                chosen = all_h[0]
                ctx.note("heading", chosen, f"no <h1>: the first heading <{chosen.tag}> became <h1>")
                chosen.tag = "h1"
        # Renumber inside the main content: a stack of (original level, new level) keeps relative order.
        stack = [(0, 1)]
        for h in list(scope.iter(*HEADINGS)):
            if h is chosen:
                stack = [(0, 1)]
                continue
            level = int(h.tag[1])
            while stack[-1][0] >= level:
                stack.pop()
            new = stack[-1][1] + 1
            new = min(new, 6)
            stack.append((level, new))
            if new != level:
                ctx.note("heading", h, f"<h{level}> renumbered <h{new}>: no skipped levels",
                         measured={"level": level}, threshold={"level": new})
                h.tag = f"h{new}"

    def _headline_into_main(self, body: HtmlElement, main: HtmlElement, ctx) -> HtmlElement:
        """<main> extended back to the page's one <h1> when that comes shortly before it (module doc)."""
        h1 = next(body.iter("h1"), None)
        if h1 is None or _inside(h1, main) or _inside(main, h1) or not _precedes(h1, main):
            return main
        gap = _text_between(h1, main)
        limit = self.settings.headline_gap_chars
        if gap > limit:
            ctx.note("main", h1, "the <h1> is far before <main>: left where it is",
                     measured={"chars_between": gap}, threshold={"headline_gap_chars": limit})
            return main
        top = next(a for a in main.iterancestors() if _inside(h1, a))  # the lowest common ancestor
        first = next(x for x in (h1, *h1.iterancestors()) if x.getparent() is top)
        last = next(x for x in (main, *main.iterancestors()) if x.getparent() is top)
        if last is main:  # main is a child there: the blocks from the headline on move into it
            moved = []
            node = first
            while node is not main:
                moved.append(node)
                node = node.getnext()
            text, main.text = main.text, None
            for i, n in enumerate(moved):
                main.insert(i, n)  # with its tail
            moved[-1].tail = (moved[-1].tail or "") + (text or "")
        else:  # main is deeper: it becomes a plain block, a new <main> wraps the range
            old = main
            old.tag = "div"
            main = dom.element("main")
            for name in ("id", "tabindex"):
                if old.get(name) is not None:
                    main.set(name, old.attrib.pop(name))
            first.addprevious(main)
            main.tail, last.tail = last.tail, None
            node, moved = first, []
            while node is not None:
                moved.append(node)
                if node is last:
                    break
                node = node.getnext()
            for n in moved:
                main.append(n)
        ctx.note("main", main, "<main> starts at the page's <h1> just before it: the skip link lands on the "
                 "headline (WCAG 2.4.1)", measured={"chars_between": gap, "blocks": len(moved)},
                 threshold={"headline_gap_chars": limit})
        return main

    def _content_first(self, body: HtmlElement, main: HtmlElement, nav: HtmlElement | None, ctx) -> None:
        """A screen reader reads the headline first, then the content, then the rest (module doc): what
        comes before <main> (the preceding siblings of it and of its ancestors) is owned (aria-owns) by
        an empty element right after <main>; what comes before the page's <h1> inside <main>
        (breadcrumbs, a category, a lead image) by one right after the <h1>. The DOM, the look and the
        tab order stay; only the accessibility tree's order (what a screen reader reads) changes."""
        ids = Counter(ALL_IDS(body))
        h1 = next(main.iter("h1"), None)
        if h1 is not None and h1.getparent() is not None and h1.getparent().tag not in NO_EXTRA_CHILD:
            self._read_after(h1, main, nav, ids, body, ctx, "the blocks before the <h1> in <main> are read after "
                             "it (aria-owns): the headline comes first (WCAG 1.3.2)")
        self._read_after(main, body, nav, ids, body, ctx, "the blocks before <main> are read after it "
                         "(aria-owns): a screen reader starts with the skip link and the content (WCAG 1.3.2)")

    @staticmethod
    def _read_after(anchor: HtmlElement, top: HtmlElement, nav, ids: Counter, body: HtmlElement, ctx,
                    reason: str) -> None:
        before: list[HtmlElement] = []
        for node in (anchor, *anchor.iterancestors()):
            if node is top:
                break
            before[:0] = reversed([s for s in node.itersiblings(preceding=True) if _spoken(s) and s is not nav])
        owned = []
        for el in before:
            if not el.get("id"):
                el.set("id", _free_id(body, "pagesieve-before", ids))
                ids[el.get("id")] += 1
            if ids[el.get("id")] == 1:  # an id used twice would name another element
                owned.append(el.get("id"))
        if not owned:
            return
        later = dom.element("div", {"class": LATER_CLASS, "aria-owns": " ".join(owned)})
        later.tail, anchor.tail = anchor.tail, None
        anchor.addnext(later)
        ctx.note("reading order", later, reason,
                 measured={"blocks": len(owned), "first": [dom.describe(e) for e in before[:3]]})

    def _skip_link(self, body: HtmlElement, main: HtmlElement, ctx) -> None:
        s = self.settings
        target = main.get("id") or MAIN_ID
        if not main.get("id"):
            main.set("id", target)
        main.set("tabindex", "-1")
        for el in POSITIVE_TABINDEX(body):
            ctx.note("tabindex", el, "positive tabindex reset to 0 (WCAG 2.4.3): the skip link comes first",
                     measured={"tabindex": el.get("tabindex")})
            el.set("tabindex", "0")
        link = dom.element("a", {"href": "#" + target})
        link.set("class", SKIP_CLASS)
        link.text = s.skip_link_text
        link.tail, body.text = body.text, None
        body.insert(0, link)
        ctx.note("skip link", link, "a skip link to the main content first in the body (WCAG 2.4.1)")

    @staticmethod
    def _style(root: HtmlElement, css: str, ctx) -> None:
        head = root.find("head")
        if head is None:
            head = dom.element("head")
            ctx.insert(root, 0, head)
        ctx.insert(head, len(head), dom.element("style", {"class": "pagesieve-a11y"}, css))

    def _removed_links_path(self, body: HtmlElement, ctx) -> str | None:
        mark = ctx.state.removed_links_nav  # the list removed_links added (else one found by its class)
        nav = mark if mark is not None and ctx.in_document(mark) else next(iter(REMOVED_LINKS_NAV(body)), None)
        return dom.path(nav) if nav is not None else None

    @staticmethod
    def _nav(body: HtmlElement, main: HtmlElement | None, nav: HtmlElement, ctx) -> None:
        if nav.tag != "nav":
            nav.tag = "nav"
        if not nav.get("aria-label") and not nav.get("aria-labelledby"):
            nav.set("aria-label", REMOVED_LINKS_LABEL)
            ctx.note("label", nav, "the removed-links list labelled")
        if main is not None and (_inside(nav, main) or _precedes(nav, main)):
            tail, nav.tail = nav.tail, None
            prev = nav.getprevious()
            if prev is not None:
                prev.tail = (prev.tail or "") + (tail or "")
            else:
                nav.getparent().text = (nav.getparent().text or "") + (tail or "")
            body.append(nav)
            ctx.note("move", nav, "the removed-links list moved after the main content")


def _link_label(a: HtmlElement) -> str:
    return _WS.sub(" ", a.get("aria-label") or a.get("title") or " ".join(_hidden_alternatives(a))).strip()


def _has_name(el: HtmlElement, placeholder: bool = False) -> bool:
    """An accessible name from an attribute (aria-label, a resolvable aria-labelledby, title)."""
    if (el.get("aria-label") or "").strip() or (el.get("title") or "").strip():
        return True
    if placeholder and (el.get("placeholder") or "").strip():
        return True
    ids = (el.get("aria-labelledby") or "").split()
    root = el.getroottree()
    return any(BY_ID(root, i=i) for i in ids)


def _has_label(ctl: HtmlElement) -> bool:
    """A form control's label that is not a tooltip or a placeholder: aria-label, a resolvable
    aria-labelledby (a ``<label>`` is checked by the caller)."""
    if (ctl.get("aria-label") or "").strip():
        return True
    root = ctl.getroottree()
    return any(BY_ID(root, i=i) for i in (ctl.get("aria-labelledby") or "").split())


def _hidden_alternatives(el: HtmlElement) -> list[str]:
    """The text alternatives inside ``el`` that do not reach its accessible name: the alt of
    hidden images, titles and aria-labels of its descendants (each once, in order)."""
    found = [_WS.sub(" ", d.get(attr) or "").strip()
             for d in el.iterdescendants() if isinstance(d.tag, str)
             for attr in (("alt", "title", "aria-label") if d.tag == "img" else ("title", "aria-label"))]
    return [h for h in dict.fromkeys(found) if h]


def _named_by_content(a: HtmlElement) -> bool:
    """A link named by what it holds besides text: an exposed image with alt text, an exposed
    descendant with its own aria-label, an ``<svg>`` with a ``<title>``."""
    for el in a.iterdescendants(dom.ELEMENT):
        if any((x.get("aria-hidden") or "").strip().lower() == "true" or x.get("hidden") is not None
               or HIDDEN_STYLE.search(x.get("style") or "") for x in _up_to(el, a)):
            continue  # hidden from screen readers (aria-hidden, hidden, display:none): names nothing
        if el.tag in ("img", "area") and (el.get("alt") or "").strip():
            return True
        if (el.get("aria-label") or "").strip() or (el.tag == "title" and dom.text_of(el)):
            return True
    return False


def _up_to(el: HtmlElement, top: HtmlElement):
    """``el`` and its ancestors below ``top`` (``el`` is inside ``top``), nearest first: one walk up,
    where asking of each ancestor whether it is inside ``top`` walked up again from each."""
    yield el
    for x in el.iterancestors():
        if x is top:
            return
        yield x


_url_path = dom.url_path


def _destination(href: str, limit: int) -> str:
    """A link's destination as a short name: host and path (``twitter.com/wsj``), or the path."""
    try:
        parts = urlsplit(href.strip())
    except ValueError:  # "http://[oops": no destination to name the link by
        return ""
    if parts.scheme and parts.scheme not in ("http", "https", "ftp", "mailto", "tel"):
        return ""
    if parts.scheme in ("mailto", "tel"):
        return _shorten(f"{parts.scheme}: {parts.path}", limit)
    host = (parts.hostname or "").removeprefix("www.")
    path = parts.path.rstrip("/")
    name = (host + path) if host else path
    return _shorten(name, limit) if name.strip("/") else (host or "")


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
    text = _WS.sub(" ", text).strip()
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
    text = _WS.sub(" ", ctl.tail or "").strip()
    nxt = ctl.getnext()
    if not text and nxt is not None and isinstance(nxt.tag, str) and dom.text_len(nxt) <= limit and not CONTROL_OR_SELF(nxt):
        text = _blocks_text(nxt)
    return text if 0 < len(text) <= limit and any(ch.isalpha() for ch in text) else ""


#: Elements a browser draws on a line of their own: their text is a word apart from the text around it.
_BLOCK_TAGS = frozenset("address article aside blockquote dd div dl dt figcaption figure footer h1 h2 h3 h4 h5 h6 "
                        "header hr li main nav ol p pre section table td th tr ul br label".split())


def _blocks_text(el: HtmlElement) -> str:
    """The text of ``el`` as it reads: like :func:`dom.text_of`, but blocks stay words apart
    ("<p>1</p><p>Discovery</p>": "1 Discovery", not "1Discovery")."""
    parts: list[str] = []

    def walk(node: HtmlElement) -> None:
        tag = node.tag
        if isinstance(tag, str) and tag not in ("script", "style", "template"):
            gap = " " if tag in _BLOCK_TAGS else ""
            parts.append(gap + (node.text or ""))
            for child in node:
                walk(child)
            parts.append(gap)
        if node is not el:
            parts.append(node.tail or "")

    walk(el)
    return _WS.sub(" ", "".join(parts)).strip()


def _button_beside(ctl: HtmlElement) -> str:
    """The text of the submit button right after a text box (a search box and its "Search" button)."""
    nxt = ctl.getnext()
    if nxt is None or (ctl.tail or "").strip():
        return ""
    if nxt.tag == "input" and (nxt.get("type") or "").strip().lower() in ("submit", "image"):
        return _WS.sub(" ", nxt.get("value") or nxt.get("alt") or nxt.get("title") or "").strip()
    if nxt.tag == "button" and (nxt.get("type") or "submit").strip().lower() == "submit":
        return dom.text_of(nxt) or _WS.sub(" ", nxt.get("aria-label") or nxt.get("title") or "").strip()
    return ""


def _free_id(body: HtmlElement, stem: str, used: Collection[str] | None = None) -> str:
    """``stem-n`` for the first n no element of the page has as id. ``used``: the page's ids, when the
    caller keeps them current (content_first names blocks in a loop: one search of the page, not one an id)."""
    if used is None:
        used = set(ALL_IDS(body))
    n = 1
    while f"{stem}-{n}" in used:
        n += 1
    return f"{stem}-{n}"


def _text_between(a: HtmlElement, b: HtmlElement) -> int:
    """Characters of text (whitespace collapsed) after the end of ``a`` and before the start of ``b``
    (``a`` precedes ``b``; script and style text does not count)."""
    n, counting = 0, False
    for event, el in etree.iterwalk(a.getroottree().getroot(), events=("start", "end")):
        if el is b and event == "start":
            break
        if not isinstance(el.tag, str):
            if counting and event == "end":
                n += len(_WS.sub(" ", el.tail or "").strip())
            continue
        if event == "start":
            if counting and el.tag not in ("script", "style", "template"):
                n += len(_WS.sub(" ", el.text or "").strip())
        else:
            if el is a:
                counting = True
            if counting:
                n += len(_WS.sub(" ", el.tail or "").strip())
    return n


def _spoken(el: HtmlElement) -> bool:
    """Whether a block says anything to a screen reader (text, an image, a control, a frame)."""
    if not isinstance(el.tag, str) or el.tag in ("script", "style", "template", "noscript", "link", "meta"):
        return False
    if el.tag == "a" and el.get("class") == SKIP_CLASS:
        return False
    return bool(dom.text_len(el) or SPOKEN_MEDIA(el))


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


def _single_main(body: HtmlElement) -> HtmlElement | None:
    mains = MAINS(body)
    return mains[0] if len(mains) == 1 else None


def _inside(node: HtmlElement, container: HtmlElement) -> bool:
    return any(a is container for a in node.iterancestors())


def _precedes(a: HtmlElement, b: HtmlElement) -> bool:
    """True when ``a`` starts before ``b`` in document order (and does not contain it)."""
    for el in a.getroottree().iter():
        if el is a:
            return not _inside(b, a)
        if el is b:
            return False
    return False


def _protected(body: HtmlElement, ctx) -> set:
    """The article, <main> and their ancestors: never removed as an overlay."""
    out = {body}
    for node in [ctx.article, *MAINS(body)]:
        if node is not None:
            out.add(node)
            out.update(node.iterancestors())
    return out


def _landmark(el: HtmlElement, tags: frozenset, roles: frozenset) -> bool:
    return el.tag in tags or (el.get("role") or "").strip().lower() in roles


def _is_skip(el: HtmlElement) -> bool:
    return el.tag == "a" and (el.get("href") or "").startswith("#")


def _unnest(el: HtmlElement) -> None:
    """Move what an element holds out after it (in order). lxml's parser does not know that
    ``<bgsound>`` is void: the rest of its parent is parsed into it, and would go with it."""
    kids = list(el)
    if not kids and not el.text:
        return
    tail, el.tail, el.text = el.tail, el.text, None
    for kid in reversed(kids):
        el.addnext(kid)  # with its tail
    if kids:
        kids[-1].tail = (kids[-1].tail or "") + (tail or "")
    else:
        el.tail = (el.tail or "") + (tail or "")


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


def _drop_attrs(el: HtmlElement, names: frozenset) -> None:
    for name in names & set(el.attrib):
        del el.attrib[name]


def _float(value: str) -> float | None:
    try:
        return float(value)
    except ValueError:
        return None


_px = dom.px


def _caption(img: HtmlElement) -> str:
    fig = next(img.iterancestors("figure"), None)
    if fig is None:
        return ""
    cap = fig.find(".//figcaption")
    return dom.text_of(cap) if cap is not None else ""


def _shorten(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:.") + "…"
