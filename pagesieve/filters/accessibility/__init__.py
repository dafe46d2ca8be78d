"""``accessibility``: the last step of the chain — leave a page easier for a screen reader than
the original: a language, a title, one ``<main>`` to land on, a skip link, a sane outline, text
alternatives, readable tables, no moving or self-starting content, no traps and no walls.

Checked against WCAG 2.2 success criteria and the
axe-core rules that test them (tests/a11y runs axe-core on real pages before and after).
Each part is a setting; in the order they run:

* ``lang`` — WCAG 3.1.1 (axe ``html-has-lang``, ``html-lang-valid``): keep the page's ``lang``
  (``en_US`` is repaired to ``en-US``), else take ``<body lang>``, else detect it from the text
  (:mod:`pagesieve.analysis.lang`: script ranges + stop words, no dependency), else ``default_lang``. The
  ``lang`` of a part of the page (WCAG 3.1.2, axe ``valid-lang``) is repaired the same way, or dropped
  when it is no language tag at all (the part then has the page's language).
* ``title`` — WCAG 2.4.2 (axe ``document-title``): an empty or missing ``<title>`` gets the first
  ``<h1>``'s text, else the URL's host and path, else ``untitled_text``.
* ``zoom`` — WCAG 1.4.4 (axe ``meta-viewport``): ``user-scalable=no`` and a ``maximum-scale``
  below :data:`MIN_MAX_SCALE` are dropped from ``<meta name=viewport>``.
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
  exposed, they would be links without a name (axe ``link-name``). A closed dialog
  (``role=dialog``/``alertdialog`` or ``aria-modal``) keeps it: its style sheet hides it by that state,
  and shown, a consent window would cover the page.
* ``layout_tables`` — WCAG 1.3.1/1.3.2: a table that :func:`pagesieve.core.dom.is_data_table` does not
  take for data (single row or column, nested, ``role=presentation``, no header cells …) becomes
  ``<div>`` blocks in reading order (row by row), its content untouched; a row of short cells
  (``dom.ROW_LINE_CHARS`` together, nothing that makes a block: "Revision Date | 2005 Revision
  Details") stays one line, its cells inline side by side. Its colours stay: a
  ``bgcolor``/``background`` becomes the same inline style (WCAG 1.4.3, axe ``color-contrast``: text
  coloured for that background would otherwise be left on white). A row whose cells all hold little
  prose (a menu bar, a header of logo and search box) keeps them side by side, wrapping on a narrow
  screen (``layout_short_rows``); the story's cell comes first in its row (``layout_story_first``;
  cells the page put in no ``<tr>`` are one row, as a browser shows them); a table aligned left or
  right floats beside the story unless it is as wide as the line or holds the story.
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
  file name, ``dom.SPACER_FILE``: ``spacer.gif``, ``blank.gif``, ``1x1.png`` …), else its figure's caption (also
  one ``main_content`` took out of the text: ``removed_captions``), else its ``title``. An image with
  none of these is left as it is (and noted): a made-up text would be worse.
* ``lists`` — WCAG 1.3.1 (axe ``list``, ``listitem``): the page's own broken lists are repaired
  where the fix is certain: in a ``<ul>``/``<ol>``, each run of children that are not ``<li>``
  (a ``<div>``, a link, bare text; ``<script>``/``<template>`` are allowed there) is wrapped in one
  ``<li>``; a run of ``<li>`` outside any list is wrapped in a ``<ul>``. An ``<li>`` with nothing in it
  (no element, no text, no ``id``) is taken out, and a list of only such items with it: what filters
  leave of a row of buttons read as "list, 2 items" and showed "1." and "2." beside nothing.
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
  none, the first highest heading in ``<main>`` is promoted, or — ``title_heading`` — the line of bold
  or styled text that says the title's headline before the story starts is marked as the heading
  (``role=heading``, ``aria-level=1``: its look unchanged), else the title is added as ``<h1>`` at the
  start of ``<main>``), then no skipped levels inside ``<main>``
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
* ``content_first`` — WCAG 1.3.2/2.4.3, what a screen reader reads first (the skip link,
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

Each repair is a rule, a function ``(doc, ctx, settings)`` in one of this package's modules
(:mod:`.document`, :mod:`.interruptions`, :mod:`.aria`, :mod:`.tables`, :mod:`.images`, :mod:`.lists`,
:mod:`.links`, :mod:`.forms`, :mod:`.keyboard`, :mod:`.landmarks`, :mod:`.headings`; what several
share is in :mod:`.shared`); :data:`HEAD_RULES` and :data:`RULES` list them in the order they run.
"""

from __future__ import annotations

from dataclasses import dataclass

from pagesieve.core import dom
from pagesieve.core.errors import ConfigError
from pagesieve.core.settings import setting
from pagesieve.filters.accessibility import (
    aria,
    document,
    forms,
    headings,
    images,
    interruptions,
    keyboard,
    landmarks,
    links,
    lists,
    tables,
)
from pagesieve.filters.accessibility.aria import (
    ARIA_ATTRS,
    ARIA_HIDDEN,
    IDREF_ATTRS,
    ROLE_OWNERS,
    STATELESS_TAGS,
    WIDGET_STATES,
)
from pagesieve.filters.accessibility.document import LANG_OWNERS, LINK_STYLE, READER_STYLE, VALID_LANG
from pagesieve.filters.accessibility.interruptions import DIALOGS
from pagesieve.filters.accessibility.keyboard import MAIN_ID, POSITIVE_TABINDEX, SKIP_STYLE
from pagesieve.filters.accessibility.landmarks import LATER_CLASS
from pagesieve.filters.accessibility.shared import FOCUSABLE, MAINS, SKIP_CLASS, Doc
from pagesieve.filters.base import Filter

#: The names other parts of pagesieve and the tests read from here.
__all__ = ["ARIA_ATTRS", "ARIA_HIDDEN", "DIALOGS", "FOCUSABLE", "IDREF_ATTRS", "LANG_OWNERS", "LATER_CLASS",
           "LINK_STYLE", "MAINS", "MAIN_ID", "POSITIVE_TABINDEX", "READER_STYLE", "ROLE_OWNERS", "SKIP_CLASS",
           "SKIP_STYLE", "STATELESS_TAGS", "WIDGET_STATES", "AccessibilityFilter", "AccessibilitySettings",
           "HEAD_RULES", "RULES"]

#: The rules on the document's head, before anything else (they run on pages without a body too).
HEAD_RULES = (
    document.page_lang,
    document.page_title,
    document.zoom,
)
#: The rules on the body, in the order they run, each ``(doc, ctx, settings)``; each checks its own
#: setting. Later rules build on earlier ones: the landmark rule sets ``doc.main`` for the headings,
#: skip link, reading order and style rules after it; the script policy is read for the widget and
#: link rules.
RULES = (
    interruptions.overlays,
    interruptions.autoplay,
    interruptions.motion,
    aria.hidden_content,
    document.inner_langs,
    tables.repair,
    aria.read_script_policy,
    aria.dead_widgets,
    images.alt_text,
    images.blank_alts,
    lists.repair,
    links.link_names,
    links.summary_names,
    links.dead_buttons,
    forms.labels,
    aria.attrs,
    aria.generic_names,
    keyboard.scroll_focus,
    images.orphan_captions,
    landmarks.one_main,
    headings.repair,
    landmarks.headline_in_main,
    keyboard.skip_link,
    landmarks.content_first,
    landmarks.removed_links_nav,
    document.style_sheet,
)


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
                                      "read (not a closed dialog, such as a consent window, which its style sheet "
                                      "hides from everyone by that same state).", group="accessibility", scope="user")
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
    # wrapped in <ul> (WCAG 1.3.1; axe list, listitem); empty <li> out.
    lists: bool = setting(True, "Repair broken lists so screen readers count their items right, and take out "
                                "list items that hold nothing (what is left of a row of removed buttons).",
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
    # Sources: the reading order a narrow screen gives a layout (the content column first), and the
    # story's start on screen: as blocks, the columns beside the story stacked above it (on cleaneval
    # pages, a menu column put the story 1,000 px and more lower).
    layout_story_first: bool = setting(
        True, "When a layout table becomes blocks, the cell holding the story (the most text outside links) "
              "comes first in its row (the menus and boxes beside it follow).", group="advanced", scope="user")
    # Sources: the story's start on screen: as blocks, a layout table's rows of short cells (menu bars of ten
    # links, a header of logo, title and search box) became columns of lines above the story (on cleaneval
    # and l3s-gn1 pages, 100 to 450 px lower; benchmarks/see.py).
    layout_short_rows: bool = setting(
        True, "When a layout table becomes blocks, a row whose cells all hold little text (a menu bar, a header) "
              "keeps them side by side, wrapping on narrow screens.", group="advanced", scope="user")
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
        doc = Doc(page)
        for rule in HEAD_RULES:
            rule(doc, ctx, s)
        body = dom.body_of(page.root)
        if body is page.root or not any(isinstance(c.tag, str) for c in body) and not (body.text or "").strip():
            return
        nav_path = landmarks.removed_links_path(body, ctx) if s.removed_links_nav or s.main_landmark else None
        removed = ctx.state.removed_captions  # captions a reader chain took out of a figure, by image
        taken = {i: removed[img] for i, img in enumerate(body.iter("img")) if img in removed}
        doc.body = body = ctx.checkpoint(body)  # every structural edit below happens on this copy (undone as one)
        doc.captions = {img: taken[i] for i, img in enumerate(body.iter("img")) if i in taken}
        doc.nav = body.getroottree().xpath(nav_path)[0] if nav_path else None
        for rule in RULES:
            rule(doc, ctx, s)
