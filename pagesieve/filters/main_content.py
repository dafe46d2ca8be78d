"""``main_content``: the reader's main text — scored paragraphs, link density, then cleanup inside.

Sources (each threshold's doc names its own):

* **Paragraph scoring** — Readability (Arc90 1.7.1 / ``mozilla/readability:Readability.js``,
  ``_grabArticle``): every paragraph of at least ``min_paragraph_chars`` characters scores
  ``1 + commas + min(chars / 100, 3)`` (we count commas, not comma-separated pieces) and gives
  that score to its parent in full, to its grandparent by half and to the ancestor ``k`` levels
  up by ``1 / (3k)``, up to ``ancestor_levels`` levels. A candidate starts with a tag weight (div
  +5; pre, td, blockquote +3; lists and forms −3; headings −5) and a class/id weight (±25 per
  attribute matching the positive/negative patterns).
* **Link density** — Gunasundari & Karthikeyan (``../shared/papers/link-density-content-
  extraction.txt``, 3.1 "LTD"): a candidate's score is multiplied by ``1 − LTD`` (Readability
  does the same), and — our addition, from the same paper's step 2 — a paragraph's own score
  by ``1 − LTD`` of the paragraph, so link runs never carry a candidate.
* **Choice** — Readability: the best candidate; if at least ``min_top_candidates`` of the
  best five score within ``alternative_ratio`` of it, their common ancestor; up through
  wrappers with a single child; sibling blocks whose score is at least ``sibling_ratio`` of
  the best (and ``sibling_min_score``), or whose text is a real paragraph, join it.
  Readability.js's climb to a parent that out-scores the way up is off (``climb``; on the
  shared corpus it climbs to page-wide containers). Our addition (``cousins``): blocks elsewhere
  with the best block's tag and class that score like a joining sibling also join (articles
  split in chunks).
* **Article size** — the DOM-and-NLP proxy paper (``../shared/papers/dom-and-nlp-content-
  extraction-proxy.txt``, "Main article extraction": an article subtree holds at least 500
  characters; Readability's ``DEFAULT_CHAR_THRESHOLD`` is also 500). A first pass leaves out
  paragraphs inside unlikely blocks (menus, comments, sidebars); when what it keeps, less the
  unlikely blocks inside, has fewer than ``min_article_chars`` it runs again over every
  paragraph (Readability's retry without ``FLAG_STRIP_UNLIKELYS``).
* **Cleanup inside the chosen node** — Readability's ``_prepArticle``/``_cleanConditionally``
  and HTML semantics: hidden elements; ``nav``/``aside``/``footer``/``form``/``dialog`` blocks,
  navigation and dialog roles; blocks named like bylines, dates, share bars, related lists, comments,
  newsletters, ads (``BOILERPLATE``); short blocks that are only a label ("Advertisement",
  "Read more"); image captions, credits and galleries (``captions``; the images stay; a "slideshow"
  of prose without images — testimonials — is text); headings that repeat the page title
  (``title_overlap``); lists, tables and divisions with fewer than ``clean_max_commas`` commas whose
  link density is above ``clean_link_density`` (``clean_link_density_positive`` when their names say
  "content"), but for a blurb: one link beside twice its text in prose (a linked heading over a sentence).
  Size bounds: a removal takes at most ``clean_max_share`` of the article's text, and all
  such removals at most ``clean_max_total`` (else the cleanup is skipped on that page) — except
  named or semantic boilerplate outside the *core*, the innermost scored block under the best
  one that keeps ``alternative_ratio`` of its score (e.g. a comment thread beside the story
  body in the same ``<article>``): it may be of any size.
* **Comment threads** (issue 15: on blogs the readers' comments can be 97% of the page) — a block
  named like comments that repeats (``THREAD_MIN_COMMENTS`` siblings of its tag and class) or holds
  that many blocks named like comments is a thread: except on a forum (where the posts are the
  content) it goes whatever its size, not bounded by ``clean_max_total`` and not counted by the
  chain's article-loss guard, provided the story left holds ``THREAD_MIN_STORY_CHARS``. When the second
  pass (every paragraph) picks a block inside a thread, the first pass's block is the story. On a
  product page blocks named like reviews count too: the customers' reviews are its comments.

**Widening to the page's own content block** (issue 15: on pages that are not stories the best-scored
paragraph block is often one short section, a cookie notice or the heading of a grid):

* *semantic main* — when the page has one ``<main>``/``role=main`` (else one ``<article>`` or
  ``itemprop=articleBody``, ``link_lists._semantic_main``) with a link density of at most
  ``main_link_density`` (any, when the chosen block is thin: under ``min_article_chars`` from the second
  pass, a page with no article-sized prose, whose main block is a list of linked items), and the chosen
  block holds less than ``main_share`` of its text, the main block is kept instead — except when the chosen block lies inside the main block and the main block is
  an ``<article>``, or the page is an article (detected type) and the block was found on the first
  pass: there the rest of the main block is the headline, comments, related stories and the like.
* *grid of items* — on a listing or collection page whose chosen block is thin (under
  ``min_article_chars``, or found only on the second pass), the page's largest group of repeated
  linked items (``pagetype._repeated_items``) is kept instead when the chosen block holds less than
  ``grid_share`` of the grid's text and no item holds more than ``GRID_ITEM_SHARE`` of it. On a
  page of any other type but a forum the same holds when the thin chosen block lies inside one of
  the grid's items (a blog's front page of teasers detected as an article: one teaser was chosen).

* *sections side by side* — on a service, product, documentation or listing page (detected type) the content
  is often sections each in its own block: the chosen block widens to its parents while each parent's
  link density is at most ``section_link_density`` (prose, not navigation), below ``<body>``, not
  into an ``<article>`` and outside ``nav``/``aside``/``footer``/``form``. When several sibling blocks
  were chosen, a sibling of theirs that is a section of prose too (half of ``min_article_chars``, link
  density at most ``section_link_density``, not boilerplate by tag, role or name) joins them.
* *the rest of the main block* — on a service, product, documentation or listing page (detected type)
  whose chosen block(s) lie inside the page's one ``<main>``/``role=main`` (not an ``<article>``: there
  the rest is the headline, byline and comments) and hold ``main_share`` or more of it (else the
  semantic-main widening above has kept it already), the main block is kept when the rest of it holds a section's
  worth of text (half of ``min_article_chars``) at a link density of at most ``main_rest_link_density``:
  a reference page's other sections, whose cross-references stop the climb of the sections rule
  (measured: wcxb-dev documentation .9252 -> .9320, one page, a reference of several sections
  .84 -> .99; no other page of the five corpora changed).
* *thread of posts* — on a forum thread whose chosen block is one of its posts (inside the block of
  the largest group of repeated posts with an author, ``pagetype._repeated_items``), that block is
  kept instead (``thread_widen``): every post is the content, not the longest one. And when the
  chosen block (or a block around it holding little else) has the opening post beside it (the
  question above its answers) or the replies after it (a block named like posts or comments), their
  common block is kept when it holds little else (``OPENING_POST_SLACK``).
* *thin choice* — on a service, product, documentation or listing page whose chosen block is still
  under ``min_article_chars`` (a marketing page of short lines, none a scored paragraph), the page's
  largest block with a link density of at most twice ``section_link_density`` is kept instead when
  it holds at least twice ``min_article_chars`` and four times the chosen block's text.

The cleanup below then runs inside the widened block as inside any other. Hidden tab panels and
folded answers (an accordion's, an FAQ's: named ``FOLDED``) inside it are content and shown: without
the page's scripts nothing else can unfold them. Last, a block that repeats the text of a block above
it in another place (a reply's preview of the post it answers, a mobile copy of a section) goes
(``_drop_copies``).

**Page type** (``pagesieve.analysis.pagetype.detect``, noted in ``--explain`` with its signals) changes the
cleanup: on a forum thread, blocks named like comments or replies are the posts and stay; on
listings, collections, product and documentation pages the link-density cleanup inside the content
is off (the item lists and tables of contents are the content).

**Headline first** (issue 15: a reader view without the headline fails its user): the page's headline
(``article.page_headline``: schema.org ``headline`` / ``og:title``, as the page's own ``<h1>`` — or
one of its first ``<h2>`` — when one says the same; else the page's heading that says what its
``<title>`` says; else its first ``<h1>``. A heading that says what the metadata or the title says wins
over an ``<h1>`` that does not: that one is the site's name, as on a blog whose ``<h1>`` is its name
and whose post's title is an ``<h2>``) becomes the output's one ``<h1>``, put before the kept
content (class ``pagesieve-headline``); the page's own copy inside the content goes, any other
``<h1>`` inside becomes an ``<h2>``. After it, the byline and date from the page's metadata
(``author``, ``article:published_time``) when it has them (class ``pagesieve-byline``).

Everything in ``<body>`` outside the chosen node(s) is removed (ancestors stay, their loose
text is blanked) and the article is set to their deepest common ancestor, before any removal
(so the chain's loss guard protects it). A page where no paragraph scores is left unchanged,
with a note.
"""

from __future__ import annotations

import copy
import re
from collections import Counter, defaultdict
from dataclasses import dataclass

from lxml import etree
from lxml.html import HtmlElement

from pagesieve.analysis import pagemeta
from pagesieve.analysis.furniture import semantic_main
from pagesieve.analysis.headline import BYLINE_CLASS, HEADLINE_CLASS, same_words
from pagesieve.analysis.pagetype import detect
from pagesieve.core import dom
from pagesieve.core.measure import chars
from pagesieve.core.settings import setting
from pagesieve.filters.base import Filter

# Readability.js REGEXPS (mozilla/readability, Readability.js): blocks unlikely to be content,
# and the class/id words that make a block more (positive) or less (negative) likely.
UNLIKELY = re.compile(r"-ad-|ai2html|banner|breadcrumbs|combx|comment|community|cover-wrap|disqus|extra|footer|"
                      r"gdpr|header|legends|menu|related|remark|replies|rss|shoutbox|sidebar|skyscraper|social|"
                      r"sponsor|supplemental|ad-break|agegate|pagination|pager|popup|yom-remote", re.I)
MAYBE = re.compile(r"and|article|body|column|content|main|shadow", re.I)
POSITIVE = re.compile(r"article|body|content|entry|hentry|h-entry|main|page|pagination|post|text|blog|story", re.I)
NEGATIVE = re.compile(r"-ad-|hidden|^hid$| hid$| hid |^hid |banner|combx|comment|com-|contact|foot|footer|footnote|"
                      r"gdpr|masthead|media|meta|outbrain|promo|related|scroll|share|shoutbox|sidebar|skyscraper|"
                      r"sponsor|shopping|tags|tool|widget", re.I)
# Blocks inside the article that are boilerplate by name: Readability's byline and share patterns
# (REGEXPS.byline, REGEXPS.shareElements) plus related lists, comments, newsletters, tag lists.
BOILERPLATE = re.compile(r"byline|author|dateline|writtenby|share|sharing|social|related|recommend|comment|"
                         r"disqus|newsletter|subscri|signup|sign-up|promo|sponsor|breadcrumb|"
                         r"(?:^|[\s_-])tags?(?:$|[\s_-])|"
                         r"toolbar|print|read-?more|more-?stories|outbrain|taboola|advert|(?:^|[\s_-])ad(?:$|[\s_-])|"
                         r"timestamp|published|updated|(?:^|[\s_-])date(?:$|[\s_-])", re.I)
# The same patterns, tested on class/id names (dom.NamePattern: lower-cased ASCII, ~3x faster a search).
_UNLIKELY_NAMES, _MAYBE_NAMES = dom.NamePattern(UNLIKELY), dom.NamePattern(MAYBE)
_POSITIVE_NAMES, _NEGATIVE_NAMES = dom.NamePattern(POSITIVE), dom.NamePattern(NEGATIVE)
_BOILERPLATE_NAMES = dom.NamePattern(BOILERPLATE)
# The page type decides what is content (pagesieve.analysis.pagetype): on a forum thread the posts and
# comments are the content (their names are not boilerplate there); on listings, shop collections,
# product and documentation pages the link-dense item lists and tables of contents are.
POSTS_ARE_CONTENT = frozenset({"forum"})
# On a forum thread the opening post (a question) beside the chosen replies joins them when it is a
# block of prose (OPENING_POST_CHARS, link density at most OPENING_POST_LINK_DENSITY) and their parent
# holds little else (at most OPENING_POST_SLACK times the two).
OPENING_POST_CHARS = 200
OPENING_POST_LINK_DENSITY = 0.2
OPENING_POST_SLACK = 1.1
# On these the content is often sections side by side (main_content.section_link_density); on a
# listing too when the chosen block is prose (measured: cleaneval reader +.003, dragnet +.001).
SECTION_KINDS = frozenset({"service", "product", "documentation", "listing"})
# A comment thread: a block named like comments that repeats (siblings of the same name) or holds
# repeated comment blocks — the readers' posts under a story, not the story (see _comment_thread).
COMMENT_NAMES = re.compile(r"comment", re.I)
# schema.org's counters of likes, shares, comments (InteractionCounter): figures about the text, not text.
COUNTER_PROPS = frozenset({"interactionStatistic", "interactionCount"})
# Named "read more" (BOILERPLATE): the control, a teaser list — or the text it unfolds (_collapsed_text).
READ_MORE = re.compile(r"read-?more", re.I)
# On a product page the customers' reviews are its comments (wcxb-dev's product truths hold the
# description and specifications, never the reviews): the same thread rule, with their names.
REVIEW_KINDS = frozenset({"product"})
REVIEW_NAMES = re.compile(r"comment|review", re.I)
#: Blocks named like comments, in or beside a block, that make it a thread.
THREAD_MIN_COMMENTS = 3
#: A thread goes when the story left holds a paragraph's worth of characters (a two-sentence "open
#: thread" post under 100 comments is the post; with min_article_chars, 500, the comments stayed).
#: Measured 150 and 300 alike: scrapinghub reader +.005, dragnet +.002, nothing lower anywhere.
THREAD_MIN_STORY_CHARS = 200
POST_NAMES = re.compile(r"comment|repl|post|message|answer", re.I)
ITEMS_ARE_CONTENT = frozenset({"listing", "collection", "product", "documentation"})
# On these the grid of repeated items (pagetype._repeated_items) is the content (main_content.grid_share).
GRID_KINDS = frozenset({"listing", "collection"})
# Image captions, credits and galleries: not article text in the scrapinghub ground truth ("article
# text only") and repeated per image in galleries.
CAPTION = re.compile(r"caption|credit|gallery|slideshow|carousel", re.I)
CAPTION_TAGS = frozenset({"figcaption"})
#: A block named like a gallery, slideshow or carousel that holds no image but prose is a rotator of text —
#: testimonials, quotes — and judged as any other block (a caption or credit is text beside its image: judged by name alone).
SLIDES = re.compile(r"gallery|slideshow|carousel", re.I)
MEDIA_TAGS = ("img", "picture", "svg", "video", "iframe", "figure")
# Whole short blocks that are labels of boilerplate, not text ("Advertisement", "Read more").
LABEL = re.compile(r"^\W*(?:advert(?:isement)?|ad|sponsored(?: content)?|read more|related(?: articles| stories)?|"
                   r"more stories|share(?: this)?(?: article| story)?|tags?|comments?|subscribe|continue reading|"
                   r"story continues below(?: advertisement)?|skip ad)\W*$", re.I)
#: Dialogs too (Readability's UNLIKELY_ROLES: alertdialog, dialog): a modal a script opens over the page (sign-up,
#: video player, store picker) is not the page's content, and a widened main block brings them in (issue 17).
BOILERPLATE_ROLES = frozenset({"navigation", "complementary", "contentinfo", "banner", "search", "menu", "menubar",
                               "toolbar", "dialog", "alertdialog"})
BOILERPLATE_TAGS = frozenset({"nav", "aside", "footer", "form", "button", "select", "textarea", "input", "menu",
                              "dialog"})
COMMAS = re.compile(r"[\u002C\u060C\uFE50\uFE10\uFE11\u2E41\u2E34\u2E32\uFF0C]")
SENTENCE_END = re.compile(r"\.( |$)")
_SKIP = frozenset({"script", "style", "noscript", "template", "head", "title", "svg", "math", "iframe", "object",
                   "embed", "select", "button", "textarea", "input", "meta", "link"})
# How many of the best candidates are compared with the best (Readability DEFAULT_N_TOP_CANDIDATES).
N_TOP_CANDIDATES = 5
# Readability's tag weights for a new candidate (_initializeNode).
TAG_WEIGHT = {"div": 5, "pre": 3, "td": 3, "blockquote": 3, "address": -3, "ol": -3, "ul": -3, "dl": -3, "dd": -3,
              "dt": -3, "li": -3, "form": -3, "h1": -5, "h2": -5, "h3": -5, "h4": -5, "h5": -5, "h6": -5, "th": -5}
# Elements whose text is a paragraph to score (Readability DEFAULT_TAGS_TO_SCORE plus the
# block containers it turns into paragraphs when they hold no other block).
PARAGRAPH_TAGS = frozenset({"p", "pre", "td", "h2", "h3", "h4", "h5", "h6", "section", "div", "article", "li",
                            "blockquote", "dd", "main", "center"})
INLINE_TAGS = frozenset({"a", "span", "b", "i", "em", "strong", "small", "abbr", "cite", "q", "sup", "sub", "time",
                         "mark", "u", "font", "label"})
CLEAN_TAGS = frozenset({"ul", "ol", "dl", "table", "div", "section", "header", "figure"})
_PARA, _CHARS, _LINK, _COMMAS, _BLOCK, _PCOMMAS, _PLINK = range(7)
#: ASCII characters str.split() splits at (its whitespace), deleted to count the others.
_ASCII_SPACES = bytes(c for c in range(128) if chr(c).isspace())


_chars = chars  # non-whitespace characters: the one helper (pagesieve.core.measure)


#: A block of at least this many characters whose text repeats a block above it is a copy (_drop_copies).
COPY_MIN_CHARS = 100
COPY_MAX_SHARE = 0.3
#: Rows and cells of a table may repeat by right (data); so may inline phrases (a repeated bold notice).
TABLE_PARTS = frozenset({"table", "thead", "tbody", "tfoot", "tr", "td", "th"})


def _in_panel(el: HtmlElement) -> bool:
    """Inside a tab panel or folded answer: alternative views (one language's steps in each tab) repeat by design."""
    return any(_folded(a) for a in el.iterancestors())


def _place(el: HtmlElement) -> tuple:
    """A block's tag and its parent's tag and class: where the page put it."""
    parent = el.getparent()
    return el.tag, el.get("class"), parent.tag if parent is not None else None, parent.get("class") if parent is not None else None


def _names(el: HtmlElement) -> str:
    return f"{el.get('class') or ''} {el.get('id') or ''}".strip()


def _thread_names(kind: str) -> re.Pattern:
    """What the blocks of a readers' thread are named like on a page of this kind."""
    return REVIEW_NAMES if kind in REVIEW_KINDS else COMMENT_NAMES


def _comment_thread(el: HtmlElement, alike: dict | None = None, names: re.Pattern = COMMENT_NAMES) -> bool:
    """``el`` is named like comments (``names``) and is one of THREAD_MIN_COMMENTS such siblings
    of its tag and class, or holds that many blocks named like comments: a thread, not a story's
    part. ``alike``: a cache of the (tag, class) counts per parent, for callers that ask of many
    siblings."""
    if not names.search(_names(el)):
        return False
    parent = el.getparent()
    cls = el.get("class")
    if parent is not None and cls:
        counts = alike.get(parent) if alike is not None else None
        if counts is None:
            counts = Counter((sib.tag, sib.get("class")) for sib in parent)
            if alike is not None:
                alike[parent] = counts
        if counts[(el.tag, cls)] >= THREAD_MIN_COMMENTS:
            return True
    inside = 0
    for sub in el.iterdescendants():
        if isinstance(sub.tag, str) and sub.tag not in INLINE_TAGS and names.search(_names(sub)):
            inside += 1
            if inside >= THREAD_MIN_COMMENTS:
                return True
    return False


# Hidden elements are not content — except a tab panel: the page hides every tab's panel but the
# selected one, and without the page's scripts (and its tab buttons, which ignore removes) no tab can
# show the others: the code samples of a documentation page in every other language (issue 15).
# As the owners of those attributes (the same elements; libxml2 walks attributes far faster than it tests a
# predicate on every element).
HIDDEN = etree.XPath("(.//*/@hidden | .//*/@aria-hidden[translate(normalize-space(.),'TRUE','true')='true'] "
                     "| .//*/@type[translate(.,'HIDEN','hiden')='hidden'])/parent::*[not(@role='tabpanel')]")


#: ... and a folded answer: an accordion's or FAQ's hidden answer, which only the page's scripts unfold.
FOLDED = re.compile(r"answer|accordion|collaps|(?:^|[\s_-])faq", re.I)
_FOLDED_NAMES = dom.NamePattern(FOLDED)


def _folded(el: HtmlElement) -> bool:
    return el.get("role") == "tabpanel" or _FOLDED_NAMES.found(_names(el))


def _hidden(el: HtmlElement) -> bool:
    return (el.get("hidden") is not None or (el.get("aria-hidden") or "").strip().lower() == "true"
            or (el.get("type") or "").lower() == "hidden") and not _folded(el)


@dataclass(frozen=True)
class MainContentSettings:
    """Thresholds of the scoring, the choice and the cleanup."""

    # Sources: A paragraph scores only with at least this many characters (Readability: innerText.length < 25 is
    # skipped).
    min_paragraph_chars: int = setting(25, "A paragraph counts only with at least this many characters.", minimum=0,
                                       group="advanced", scope="user")
    # Sources: A paragraph's score goes up this many ancestor levels (Readability: _getNodeAncestors(node, 5)).
    ancestor_levels: int = setting(5, "A paragraph's score also goes to this many blocks around it, level by level.", minimum=1, maximum=20, group="advanced", scope="user")
    # Sources: Score added (positive names) or taken (negative names) per class or id attribute (Readability:
    # _getClassWeight, 25).
    class_weight: int = setting(25, "Points added or taken for a block whose class or id name suggests content or "
                                    "clutter.", minimum=0, group="advanced", scope="user")
    # Sources: Candidates scoring at least this share of the best are alternatives (Readability: 0.75).
    alternative_ratio: float = setting(0.75, "Blocks scoring at least this share of the best one are its "
                                             "alternatives.", minimum=0, maximum=1, group="advanced", scope="user")
    # Sources: When this many alternatives share an ancestor with the best, that ancestor is chosen (Readability:
    # MINIMUM_TOPCANDIDATES = 3).
    min_top_candidates: int = setting(3, "When this many alternatives sit inside one larger block with the best, that"
                                         " larger block is chosen.", minimum=1,
                                      group="advanced", scope="user")
    # Sources: A sibling of the chosen node joins it when it scores at least this share of the chosen score
    # (Readability: topCandidate score * 0.2).
    sibling_ratio: float = setting(0.2, "A block next to the chosen one joins it when it scores at least this share "
                                        "of the chosen score ...", minimum=0,
                                   maximum=1, group="advanced", scope="user")
    # Sources: ... and at least this score (Readability: Math.max(10, ...)).
    sibling_min_score: float = setting(10, "... and at least this many points.",
                                       minimum=0, group="advanced", scope="user")
    # Sources: An unscored sibling paragraph joins with at least this many characters and link density below
    # sibling_link_density (Readability: 80).
    sibling_paragraph_chars: int = setting(80, "A paragraph next to the chosen block joins it with at least this many"
                                               " characters and few links.", minimum=0, group="advanced", scope="user")
    # Sources: Link density bound of a joining sibling paragraph (Readability: 0.25).
    sibling_link_density: float = setting(0.25, "The most link text (as a share of its characters) a joining "
                                                "paragraph may have.", minimum=0, maximum=1, group="advanced", scope="user")
    # Sources: An article holds at least this many characters; below it the scoring runs again without leaving out
    # unlikely blocks (DOM-and-NLP proxy paper, "Main article extraction": 500; Readability DEFAULT_CHAR_THRESHOLD).
    min_article_chars: int = setting(500, "An article holds at least this many characters; with fewer, the search "
                                          "runs again without skipping blocks that look unlikely.",
                                     minimum=0, group="advanced", scope="user")
    # Sources: Move up to a parent that scores more than the candidates below it on the way (Readability.js does;
    # readability-lxml does not: with class weights of 25 it climbs to page-wide containers).
    climb: bool = setting(False, "Move up to a larger block that scores more than the blocks below it (can reach "
                                 "page-wide containers).", group="advanced", scope="user")
    # Sources: Also keep blocks elsewhere with the chosen block's tag and class that score like a joining sibling
    # (articles split in chunks; Readability's same-class sibling bonus, widened to cousins).
    cousins: bool = setting(True, "Also keep blocks elsewhere that look like the chosen one and score like a joining "
                                  "block (articles split in parts).", group="advanced", scope="user")
    clean: bool = setting(True, "Remove boilerplate inside the chosen node (bylines, share bars, related lists, "
                                "comments, link lists, hidden elements).", group="advanced", scope="user")
    captions: bool = setting(True, "Inside the article, remove image captions, credits and galleries (the "
                                   "images stay; captions are text about images, not the article).", group="advanced", scope="user")
    # Sources: Inside the article, a heading whose words are at least this share of the page title's words repeats the
    # title and is removed (the text output starts with the title; Readability _headerDuplicatesTitle).
    title_overlap: float = setting(0.8, "Inside the article, a heading that repeats at least this share of the page "
                                        "title's words is removed (the page keeps its title).", minimum=0,
                                   maximum=1, group="advanced", scope="user")
    # Sources: Inside the article, a list, table or division whose link density (link characters / characters) is
    # above this is removed (Readability _cleanConditionally: weight < 25 and linkDensity > 0.2).
    clean_link_density: float = setting(0.2, "Inside the article, a list, table or block with more than this share of"
                                             " its characters in links is removed.",
                                        minimum=0, maximum=1, group="advanced", scope="user")
    # Sources: ... the bound for blocks whose names say content (Readability: weight >= 25 and linkDensity > 0.5).
    clean_link_density_positive: float = setting(0.5, "... and this share for blocks whose names say they are "
                                                      "content.",
                                                 minimum=0, maximum=1, group="advanced", scope="user")
    # Sources: A block with at least this many commas is prose and is never removed by the link-density cleanup
    # (Readability: commas < 10).
    clean_max_commas: int = setting(10, "A block with at least this many commas is prose and is never removed by that"
                                        " clean-up.", minimum=0,
                                    group="advanced", scope="user")
    # Sources: A single cleanup removal takes at most this share of the article's text; larger blocks stay unless they
    # are named or semantic boilerplate outside the core (our bound: boilerplate is small).
    clean_max_share: float = setting(0.3, "One clean-up removal takes at most this share of the article's text "
                                          "(larger blocks stay unless clearly clutter).", minimum=0,
                                     maximum=1, group="advanced", scope="user")
    # Sources: Start the kept content with the page's headline as its one <h1>, then the byline and date from the
    # page's metadata (issue 15).
    headline: bool = setting(True, "Start the kept content with the page's headline, then its byline and date.", group="advanced", scope="user")
    section_link_density: float = setting(0.1, "On a service, product, documentation or listing page (detected type), "
                                               "the chosen block widens to its parents while their link density "
                                               "stays at most this (0 = off).",
                                          minimum=0, maximum=1, group="advanced", scope="user")
    thread_widen: bool = setting(True, "On a forum thread (detected page type), keep the block of the repeated "
                                       "posts when the chosen block is one post inside it.",
                                 group="advanced", scope="user")
    # Sources: If the cleanup would take more than this share of the article's text, it is skipped on that page (our
    # bound, under safety.max_article_loss).
    clean_max_total: float = setting(0.5, "If the clean-up would take more than this share of the article's text, it "
                                          "is skipped on that page.",
                                     minimum=0, maximum=1, group="advanced", scope="user")
    main_share: float = setting(0.5, "When the page has one semantic main block (<main>/role=main, else one "
                                     "<article>/articleBody) and the chosen content holds less than this share "
                                     "of its text, the main block is kept instead (0 = off).",
                                minimum=0, maximum=1, group="advanced", scope="user")
    main_link_density: float = setting(0.5, "... unless the main block's link density is above this (a thin choice "
                                            "on a page with no article-sized text takes the main block whatever its "
                                            "link density: a list's items are links).",
                                       minimum=0, maximum=1, group="advanced", scope="user")
    main_rest_link_density: float = setting(0.25, "On a service, product, documentation or listing page (detected "
                                                  "type), when the chosen content lies inside the page's one "
                                                  "<main> (not an <article>), the whole main block is kept when "
                                                  "the rest of it (at least half of min_article_chars) has a link "
                                                  "density of at most this: a reference page's other sections, "
                                                  "with their cross-references (0 = off, as is main_share = 0; measured on the five "
                                                  "corpora: wcxb-dev documentation .925 -> .932, nothing lower).",
                                            minimum=0, maximum=1, group="advanced", scope="user")
    grid_share: float = setting(1.0, "On a listing or collection page, when the chosen content holds less than "
                                     "this share of the text of the page's grid of repeated items, the grid is "
                                     "kept instead (0 = off).", minimum=0, maximum=10, group="advanced", scope="user")


class MainContentFilter(Filter):
    name = "main_content"
    assigns = ("article", "removed_links", "removed_captions")
    Settings = MainContentSettings
    summary = ("Reader: keep the best-scored content block (paragraph scores, link density), then remove bylines, "
               "share bars, related lists and comments inside it.")

    # -- statistics ----------------------------------------------------------------------
    @staticmethod
    def stats(body: HtmlElement) -> tuple[list[HtmlElement], dict[HtmlElement, list]]:
        """Pre-order elements of ``body`` (skipped tags and hidden elements left out) and, per
        element, [inline chars, chars, link chars, commas, has a block descendant]. Inline chars
        are the element's text outside its block children (its own paragraph)."""
        order: list[HtmlElement] = []
        in_link: dict[HtmlElement, bool] = {}
        if not isinstance(body.tag, str) or body.tag in _SKIP:
            return order, {}
        hidden = {el for el in HIDDEN(body) if not _FOLDED_NAMES.found(_names(el))}
        if body in hidden:
            return order, {}
        # The elements in document order, picked in C; one is in when its parent is (in in_link)
        # and it is neither skipped nor hidden, so a left-out element's subtree stays out.
        in_link[body] = body.tag == "a"
        order.append(body)
        above_of = in_link.get
        elements = body.iter(dom.ELEMENT)
        next(elements)
        for el in elements:
            above = above_of(el.getparent())
            if above is None:
                continue  # under a left-out element
            tag = el.tag
            if tag in _SKIP or el in hidden:
                continue
            in_link[el] = above or tag == "a"
            order.append(el)
        st: dict[HtmlElement, list] = {}
        get = st.get
        findall = COMMAS.findall
        for el in reversed(order):
            # Whitespace-only text (between tags) counts nothing; ASCII text is counted by deleting
            # its whitespace bytes (one C call instead of splitting and joining its words).
            chars = commas = 0
            text = el.text
            if text and not text.isspace():
                if text.isascii():
                    chars = len(text.encode("ascii").translate(None, _ASCII_SPACES))
                    commas = text.count(",")
                else:
                    joined = "".join(text.split())
                    chars = len(joined)
                    commas = len(findall(joined))
            counted = []
            for c in el[:]:  # a slice is a list made in C, faster to loop over than the child iterator
                tail = c.tail
                if tail and not tail.isspace():
                    if tail.isascii():
                        chars += len(tail.encode("ascii").translate(None, _ASCII_SPACES))
                        commas += tail.count(",")
                    else:
                        joined = "".join(tail.split())
                        chars += len(joined)
                        commas += len(findall(joined))
                cs = get(c)
                if cs is not None:
                    counted.append((c, cs))
            link = chars if in_link[el] else 0
            s = [chars, chars, link, commas, False, commas, link]
            for c, cs in counted:
                s[_CHARS] += cs[_CHARS]
                s[_LINK] += cs[_LINK]
                s[_COMMAS] += cs[_COMMAS]
                block = c.tag in dom.BLOCK_TAGS or cs[_BLOCK]
                if block:
                    s[_BLOCK] = True
                else:
                    s[_PARA] += cs[_CHARS]
                    s[_PCOMMAS] += cs[_COMMAS]
                    s[_PLINK] += cs[_LINK]
            st[el] = s
        return order, st

    # -- scoring -------------------------------------------------------------------------
    def _class_weight(self, el: HtmlElement) -> int:
        w = 0
        for attr in ("class", "id"):
            v = el.get(attr)
            if v:
                if _NEGATIVE_NAMES.found(v):
                    w -= self.settings.class_weight
                if _POSITIVE_NAMES.found(v):
                    w += self.settings.class_weight
        return w

    def score(self, order, st, body, skip_unlikely: bool) -> tuple[dict[HtmlElement, float], list[HtmlElement]]:
        """Readability's candidate scores (times 1 - link density), and the unlikely blocks left
        out (outermost only)."""
        s = self.settings
        unlikely: set[HtmlElement] = set()
        roots: list[HtmlElement] = []
        if skip_unlikely:
            named: dict[str, bool] = {}  # names -> unlikely by its names (pages repeat their class names)
            for el in order:
                parent = el.getparent()
                if parent in unlikely:
                    unlikely.add(el)
                    continue
                names = _names(el)
                by_name = named.get(names)
                if by_name is None:
                    by_name = named[names] = bool(names and _UNLIKELY_NAMES.found(names) and not _MAYBE_NAMES.found(names))
                if (by_name and el.tag not in ("body", "a", "html", "article", "main")) or \
                        (el.get("role") or "").lower() in BOILERPLATE_ROLES:
                    unlikely.add(el)
                    roots.append(el)
        scores: dict[HtmlElement, float] = {}
        for el in order:
            if el in unlikely:
                continue
            es = st[el]
            if es[_BLOCK]:  # a container's loose text: a paragraph whose parent is the container
                para, commas, start = es[_PARA], es[_PCOMMAS], el
                link = es[_PLINK] / para if para else 0.0
            elif el.tag in PARAGRAPH_TAGS:  # a leaf block: a paragraph, counted in its parent
                para, commas, start = es[_CHARS], es[_COMMAS], el.getparent()
                link = es[_LINK] / para if para else 0.0
            else:
                continue
            if para < s.min_paragraph_chars or start is None or link >= 1.0:
                continue  # too short, or all links: scores nothing
            value = (1 + commas + min(para // 100, 3)) * (1.0 - link)
            level = 0
            node = start
            while node is not None and level < s.ancestor_levels:
                if node not in st:
                    break
                if node not in scores:
                    scores[node] = TAG_WEIGHT.get(node.tag, 0) + self._class_weight(node)
                scores[node] += value / (1 if level == 0 else 2 if level == 1 else level * 3)
                if node is body:
                    break
                node = node.getparent()
                level += 1
        return {el: sc * (1.0 - (st[el][_LINK] / st[el][_CHARS] if st[el][_CHARS] else 0.0))
                for el, sc in scores.items()}, roots

    def choose(self, scores, st, body) -> tuple[HtmlElement | None, float]:
        s = self.settings
        if not scores:
            return None, 0.0
        ranked = sorted(scores, key=scores.get, reverse=True)
        top = ranked[0]
        best = scores[top]
        if top is not body:
            alternatives = [c for c in ranked[1:N_TOP_CANDIDATES]
                            if best and scores[c] / best >= s.alternative_ratio]
            if len(alternatives) >= s.min_top_candidates:
                lists = [set(c.iterancestors()) for c in alternatives]
                parent = top.getparent()
                while parent is not None and parent is not body:
                    if sum(1 for anc in lists if parent in anc) >= s.min_top_candidates:
                        top = parent
                        break
                    parent = parent.getparent()
            last = scores.get(top, best)
            parent = top.getparent()
            while s.climb and parent is not None and parent is not body and parent in st:
                ps = scores.get(parent)
                if ps is None:
                    parent = parent.getparent()
                    continue
                if ps < last / 3:
                    break
                if ps > last:
                    top = parent
                    break
                last = ps
                parent = parent.getparent()
            while top is not body and top.getparent() is not None and len(
                    [c for c in top.getparent() if c in st]) == 1:
                top = top.getparent()
        return top, scores.get(top, best)

    def siblings(self, top, top_score, scores, st, body) -> list[HtmlElement]:
        s = self.settings
        parent = top.getparent()
        if top is body or parent is None:
            return [top]
        threshold = max(s.sibling_min_score, top_score * s.sibling_ratio)
        cls = top.get("class") or ""
        out = []
        for sib in parent:
            if sib not in st:
                continue
            if sib is top:
                out.append(sib)
                continue
            bonus = top_score * s.sibling_ratio if cls and sib.get("class") == cls else 0.0
            if sib in scores and scores[sib] + bonus >= threshold:
                out.append(sib)
                continue
            ss = st[sib]
            if sib.tag == "p" or not ss[_BLOCK]:
                n = ss[_CHARS]
                ld = ss[_LINK] / n if n else 1.0
                if n > s.sibling_paragraph_chars and ld < s.sibling_link_density:
                    out.append(sib)
                elif 0 < n <= s.sibling_paragraph_chars and ld == 0 and SENTENCE_END.search(dom.text_of(sib)):
                    out.append(sib)
        return out

    def cousins(self, top, top_score, chosen, scores, body) -> list[HtmlElement]:
        """Add blocks elsewhere in the page with ``top``'s tag and class that score like a joining
        sibling (an article split in chunks); result in document order."""
        ref = top  # below single-child wrappers the chosen block may have a class
        while not ref.get("class") and len(ref) == 1 and isinstance(ref[0].tag, str):
            ref = ref[0]
        cls = ref.get("class")
        if not cls or top is body:
            return chosen
        s = self.settings
        threshold = max(s.sibling_min_score, top_score * s.sibling_ratio)
        inside = set(chosen)
        extra = [el for el, sc in scores.items()
                 if sc >= threshold and el not in inside and el.tag == ref.tag and el.get("class") == cls
                 and not any(a in inside for a in el.iterancestors())]
        extra = [el for el in extra if not any(a in extra for a in el.iterancestors())]
        if not extra:
            return chosen
        for el in extra:  # a cousin that holds a chosen node replaces it
            inside -= {c for c in inside if any(a is el for a in c.iterancestors())}
        order = {el: i for i, el in enumerate(body.iter())}
        return sorted(inside | set(extra), key=order.__getitem__)

    # -- the filter ----------------------------------------------------------------------
    def apply(self, page, ctx) -> None:
        s = self.settings
        body = dom.body_of(page.root)
        order, st = self.stats(body)
        if body not in st:
            ctx.note("skip", body, "no text in <body>; page left unchanged")
            return
        # The page type from the page as the chain left it (what the ignore filter dropped, e.g. the
        # declared types of JSON-LD, is not read: measured, the reader's F1 was lower with them on
        # wcxb-dev, issue 15) but for its add-to-cart control, which ignore removes with the other
        # buttons and forms: that is read from the page as parsed, as are the headline and byline
        # (pagesieve.analysis.pagemeta). Measured on wcxb-dev: collection .705 -> .713, product +.002.
        meta = pagemeta.of(page)
        kind = detect(page.root, page.url, cart=meta.cart)
        ctx.note("page-type", body, f"page type: {kind.kind} ({kind.why()})",
                 measured={k: round(v, 2) for k, v in kind.scores.items()}, kind=kind.kind)
        headline = meta.headline if s.headline else None
        byline = meta.byline if s.headline else None
        found = first = None
        for attempt, skip in enumerate((True, False), 1):
            scores, unlikely = self.score(order, st, body, skip_unlikely=skip)
            top, top_score = self.choose(scores, st, body)
            if top is None:
                continue
            chosen = self.siblings(top, top_score, scores, st, body)
            if s.cousins:
                chosen = self.cousins(top, top_score, chosen, scores, body)
            found = top, top_score, chosen, scores, attempt
            first = first or found
            kept = set(chosen)
            likely = sum(st[c][_CHARS] for c in chosen) - sum(
                st[u][_CHARS] for u in unlikely if any(a in kept for a in u.iterancestors()))
            if any(a in unlikely for c in chosen for a in (c, *c.iterancestors())):
                likely = 0
            if likely >= s.min_article_chars:
                break
        if found is None:
            ctx.note("skip", body, "no paragraph of at least min_paragraph_chars; page left unchanged",
                     threshold={"min_paragraph_chars": s.min_paragraph_chars})
            return
        if (found is not first and first is not None and kind.kind not in POSTS_ARE_CONTENT
                and any(_comment_thread(a, names=_thread_names(kind.kind)) for a in (found[0], *found[0].iterancestors()))):
            # A short story under a long comment thread: the second pass, over every paragraph, found
            # a comment; the story is the first pass's block, however short.
            ctx.note("first-pass", first[0], "the second pass chose a block inside a comment thread; "
                                             "the first pass's block is the story",
                     measured={"chars": sum(st[c][_CHARS] for c in first[2])},
                     threshold={"min_article_chars": s.min_article_chars})
            found = first
        top, top_score, chosen, scores, attempt = found
        chars = sum(st[c][_CHARS] for c in chosen)
        semantic = semantic_main(page.root) if s.main_share else None
        if s.main_share:
            main = semantic
            ms = st.get(main) if main is not None else None
            inside = main is not None and all(any(a is main for a in (c, *c.iterancestors())) for c in chosen)
            # A thin pick of the second pass (the page has no article-sized prose: a listing, a shop's
            # category, a schedule) takes the main block whatever its link density: its items are links.
            thin = chars < s.min_article_chars and attempt > 1
            if (ms and main is not body and ms[_CHARS] and chars < s.main_share * ms[_CHARS]
                    and (ms[_LINK] / ms[_CHARS] <= s.main_link_density or thin)
                    and not (inside and main is not None and (main.tag == "article" or kind.kind == "article" and attempt == 1))):
                ctx.note("widen", main, "the chosen block is a small part of the page's semantic main block",
                         measured={"chars": chars, "main_chars": ms[_CHARS]}, threshold={"main_share": s.main_share})
                top, top_score, chosen, chars = main, scores.get(main, top_score), [main], ms[_CHARS]
        grid = kind.grid
        # Whatever the page type, a short chosen block that is one item of the page's grid (a teaser
        # among a blog's alike teasers) says the grid is the content.
        in_grid = (grid is not None and kind.kind not in POSTS_ARE_CONTENT
                   and all(any(a is grid for a in c.iterancestors()) for c in chosen))
        if s.grid_share and (kind.kind in GRID_KINDS or in_grid):
            gs = st.get(grid) if grid is not None else None
            if (gs and grid is not None and grid is not body and not any(a in chosen for a in (grid, *grid.iterancestors()))
                    and chars < s.grid_share * gs[_CHARS] and (chars < s.min_article_chars or attempt > 1)
                    and _even_items(grid, st)):
                ctx.note("widen", grid, ("on a listing the grid of repeated items is the content, and it holds more "
                                         "text than the chosen block") if kind.kind in GRID_KINDS else
                         "the chosen block is one item of a grid of alike items: the grid is the content",
                         measured={"chars": chars, "grid_chars": gs[_CHARS]}, threshold={"grid_share": s.grid_share})
                top, top_score, chosen, chars = grid, scores.get(grid, top_score), [grid], gs[_CHARS]
        if s.section_link_density and kind.kind in SECTION_KINDS and len(chosen) > 1:
            chosen, chars = self._sibling_sections(chosen, st, chars, ctx)
        elif s.section_link_density and kind.kind in SECTION_KINDS and len(chosen) == 1:
            # A service, product, documentation or listing page is often sections side by side, each its own
            # block: climb while the parent adds prose (low link density), not navigation.
            node = chosen[0]
            parent = node.getparent()
            while (parent is not None and parent is not body and parent.tag not in BOILERPLATE_TAGS
                   and parent.tag != "article"):  # beside a story in its <article>: comments, related
                ps = st.get(parent)
                if not ps or not ps[_CHARS] or ps[_LINK] / ps[_CHARS] > s.section_link_density:
                    break
                node, parent = parent, parent.getparent()
            if node is not chosen[0] and st[node][_CHARS] > chars:
                ctx.note("widen", node, "on this kind of page the content is sections side by side: the "
                                        "prose block around the chosen one is kept",
                         measured={"chars": chars, "section_chars": st[node][_CHARS],
                                   "link_density": round(st[node][_LINK] / st[node][_CHARS], 3)},
                         threshold={"section_link_density": s.section_link_density})
                top, top_score, chosen, chars = node, scores.get(node, top_score), [node], st[node][_CHARS]
        if s.main_rest_link_density and s.main_share and kind.kind in SECTION_KINDS and semantic is not None:
            main, ms = semantic, st.get(semantic)
            if (ms and main is not body and main.tag != "article"
                    and all(any(a is main for a in c.iterancestors()) for c in chosen)):
                rest = ms[_CHARS] - chars
                rest_link = ms[_LINK] - sum(st[c][_LINK] for c in chosen)
                if rest >= s.min_article_chars / 2 and rest_link <= s.main_rest_link_density * rest:
                    ctx.note("widen", main, "on this kind of page the rest of the page's semantic main block "
                                            "is prose (few links): it is content beside the chosen block",
                             measured={"chars": chars, "main_chars": ms[_CHARS],
                                       "rest_link_density": round(rest_link / rest, 3) if rest else 0},
                             threshold={"main_rest_link_density": s.main_rest_link_density})
                    top, top_score, chosen, chars = main, scores.get(main, top_score), [main], ms[_CHARS]
        if s.thread_widen and kind.kind in POSTS_ARE_CONTENT:
            thread = kind.thread
            ts = st.get(thread) if thread is not None else None
            # Only when the chosen block is one of the posts (inside their block): a story chosen
            # outside a longer comment thread stays the story.
            if (ts and thread is not None and thread is not body and chars < ts[_CHARS]
                    and all(any(a is thread for a in c.iterancestors()) for c in chosen)):
                ctx.note("widen", thread, "on a forum thread every post is the content: the block of the "
                                          "repeated posts is kept, not one post",
                         measured={"chars": chars, "thread_chars": ts[_CHARS]})
                top, top_score, chosen, chars = thread, scores.get(thread, top_score), [thread], ts[_CHARS]
        if s.thread_widen and kind.kind in POSTS_ARE_CONTENT and len(chosen) == 1:
            joined = self._opening_post(chosen[0], st, body)
            if joined is not None:
                ctx.note("widen", joined, "on a forum thread the opening post beside the chosen block of replies is "
                                          "content too: their common block, which holds little else, is kept",
                         measured={"chars": chars, "joined_chars": st[joined][_CHARS]})
                top, top_score, chosen, chars = joined, scores.get(joined, top_score), [joined], st[joined][_CHARS]
        if chars < s.min_article_chars and s.section_link_density and kind.kind in SECTION_KINDS:
            block = self._prose_block(body, st)
            if block is not None and st[block][_CHARS] >= max(2 * s.min_article_chars, 4 * chars) and not any(
                    a in chosen for a in (block, *block.iterancestors())):
                ctx.note("widen", block, "the chosen block is thin: the page's largest block of prose (few links) "
                                         "is kept instead",
                         measured={"chars": chars, "block_chars": st[block][_CHARS],
                                   "link_density": round(st[block][_LINK] / st[block][_CHARS], 3)},
                         threshold={"min_article_chars": s.min_article_chars,
                                    "link_density": 2 * s.section_link_density})
                top, top_score, chosen, chars = block, scores.get(block, top_score), [block], st[block][_CHARS]
        container = _common_ancestor(chosen)
        ctx.note("select", chosen[0], f"best-scored content block (pass {attempt}); {len(chosen)} node(s) kept",
                 measured={"score": round(top_score, 2), "chars": chars,
                           "link_density": round(sum(st[c][_LINK] for c in chosen) / chars, 3) if chars else 0},
                 threshold={"min_article_chars": s.min_article_chars, "sibling_ratio": s.sibling_ratio})
        ctx.set_article(container)  # before removing: the loss guard then protects what is kept
        self._prune(body, chosen, st, ctx)
        if s.clean:
            self._clean(page, chosen, top, top_score, st, scores, chars, ctx, kind.kind)
        self._reveal_tab_panels(chosen, ctx)
        self._drop_copies(chosen, st, ctx)
        if headline is not None:
            self._put_headline(body, chosen, headline, byline, ctx)

    def _prose_block(self, body, st) -> HtmlElement | None:
        """The block below ``<body>`` with the most text at a link density of at most twice
        section_link_density, outside boilerplate tags and roles, of at least min_article_chars."""
        s = self.settings
        best, most = None, s.min_article_chars - 1
        stack = [c for c in body if isinstance(c.tag, str)]
        while stack:
            el = stack.pop()
            es = st.get(el)
            if not es or el.tag in BOILERPLATE_TAGS or (el.get("role") or "").lower() in BOILERPLATE_ROLES:
                continue
            if es[_CHARS] > most and es[_LINK] <= 2 * s.section_link_density * es[_CHARS]:
                best, most = el, es[_CHARS]
            stack.extend(c for c in el if isinstance(c.tag, str))
        return best

    def _sibling_sections(self, chosen, st, chars, ctx) -> tuple[list, int]:
        """Several chosen blocks side by side: a sibling of theirs that is a section of prose too —
        half of min_article_chars or more, link density at most section_link_density, not named or
        tagged as boilerplate — joins them (a shop's "plan your visit" beside its welcome, which
        scored below the joining bound for want of paragraphs). Short siblings stay out: a byline, a
        date, a post's author line."""
        s = self.settings
        parent = chosen[0].getparent()
        if parent is None or any(c.getparent() is not parent for c in chosen):
            return chosen, chars
        kept = set(chosen)
        joined = []
        for sib in parent:
            ss = st.get(sib)
            if (sib in kept or not ss or ss[_CHARS] < s.min_article_chars / 2
                    or ss[_LINK] > s.section_link_density * ss[_CHARS] or sib.tag in BOILERPLATE_TAGS
                    or (sib.get("role") or "").lower() in BOILERPLATE_ROLES or _BOILERPLATE_NAMES.found(_names(sib))):
                continue
            joined.append(sib)
            ctx.note("widen", sib, "on this kind of page the content is sections side by side: a section of "
                                   "prose beside the chosen ones joins them",
                     measured={"chars": ss[_CHARS], "link_density": round(ss[_LINK] / ss[_CHARS], 3)},
                     threshold={"min_chars": s.min_article_chars / 2,
                                "section_link_density": s.section_link_density})
        if not joined:
            return chosen, chars
        kept.update(joined)
        return [c for c in parent if c in kept], chars + sum(st[j][_CHARS] for j in joined)

    @staticmethod
    def _opening_post(node: HtmlElement, st, body: HtmlElement) -> HtmlElement | None:
        """The block joining ``node`` and the rest of its thread: climbing from ``node`` while each
        parent holds little else (OPENING_POST_SLACK), the first parent where ``node`` has beside it
        the opening post (its previous sibling, a block of prose: the question above the answers) or
        the replies (its next sibling, named like posts or comments: the thread under the first post)
        and holds little else than the two. None when there is none."""
        while True:
            parent = node.getparent()
            if parent is None or parent is body or parent not in st or node not in st:
                return None
            ns = st[node]
            prev, nxt = node.getprevious(), node.getnext()
            while prev is not None and not (isinstance(prev.tag, str) and prev in st):
                prev = prev.getprevious()
            while nxt is not None and not (isinstance(nxt.tag, str) and nxt in st):
                nxt = nxt.getnext()
            for other, opening in ((prev, True), (nxt, False)):
                if other is None:
                    continue
                os_ = st[other]
                if os_[_CHARS] < OPENING_POST_CHARS or os_[_LINK] > OPENING_POST_LINK_DENSITY * os_[_CHARS]:
                    continue
                if not opening and not POST_NAMES.search(_names(other)):
                    continue
                if st[parent][_CHARS] <= OPENING_POST_SLACK * (os_[_CHARS] + ns[_CHARS]):
                    return parent
            if st[parent][_CHARS] > OPENING_POST_SLACK * ns[_CHARS]:
                return None
            node = parent

    @staticmethod
    def _drop_copies(chosen, st, ctx) -> None:
        """Remove a block whose text is the text of a block above it, put in another place (another tag
        or class, or a parent of another tag or class), neither inside the other: a reply's preview of
        the post it answers, a post shown twice, a desktop and a mobile variant of one section. The
        page's CSS shows one (or one line of it); a listener would hear both. Only blocks of
        COPY_MIN_CHARS up to COPY_MAX_SHARE of the kept text; not table rows and cells nor inline
        phrases (data and notices repeat by right), not inside tab panels or folded answers
        (alternative views). Measured on every corpus: without the "another place" condition errata
        and lyrics pages lost repeated paragraphs their truth keeps (cleaneval final-442 .99 -> .68)."""
        total = sum(st[c][_CHARS] for c in chosen if c in st)
        blocks = [el for c in chosen if ctx.in_document(c) for el in c.iter()
                  if isinstance(el.tag, str) and el.tag not in INLINE_TAGS and el.tag not in TABLE_PARTS
                  and el in st and COPY_MIN_CHARS <= st[el][_CHARS] <= COPY_MAX_SHARE * total]
        by_size: dict[int, list] = defaultdict(list)
        for el in blocks:
            by_size[st[el][_CHARS]].append(el)
        seen: dict[str, HtmlElement] = {}
        for el in blocks:  # document order: the first of equal blocks stays
            if len(by_size[st[el][_CHARS]]) < 2 or not ctx.in_document(el):
                continue
            text = dom.text_of(el)
            first = seen.get(text)
            if first is None:
                seen[text] = el
            elif (_place(el) != _place(first) and not _in_panel(el) and not any(a is first for a in el.iterancestors())
                  and not any(a is el for a in first.iterancestors())):
                ctx.remove(el, "a copy of a block above", measured={"chars": st[el][_CHARS]},
                           threshold={"copy_min_chars": COPY_MIN_CHARS})

    @staticmethod
    def _reveal_tab_panels(chosen, ctx) -> None:
        """Show the hidden tab panels and folded answers kept (see HIDDEN, FOLDED): no tab or
        question can show them any more."""
        for block in chosen:
            if not ctx.in_document(block):
                continue
            for panel in [el for el in block.iter() if isinstance(el.tag, str) and _folded(el)]:
                if panel.get("hidden") is not None or (panel.get("aria-hidden") or "").strip().lower() == "true":
                    ctx.set_attr(panel, "hidden", None)
                    ctx.set_attr(panel, "aria-hidden", None)
                    if "none" in (panel.get("style") or "").replace(" ", "").lower():
                        ctx.set_attr(panel, "style", None)
                    ctx.note("reveal", panel, "a hidden tab panel or folded answer is shown: without the page's "
                                              "scripts no tab or question can show it")

    @staticmethod
    def _put_headline(body, chosen, headline, byline, ctx) -> None:
        """The headline as the one <h1> before the kept content, then the byline (module docstring)."""
        text = headline.text if headline.element is not None else _strip_site(headline.text)
        for h in list(body.iter("h1", "h2")):
            if h is headline.element or (h.tag == "h1" and same_words(text, dom.text_of(h))):
                ctx.remove(h, "the headline: put first as the page's one <h1>", explain=False)
            elif h.tag == "h1":
                h2 = copy.deepcopy(h)
                h2.tag = "h2"
                ctx.replace(h, h2, "a second <h1> below the headline becomes an <h2>")
            else:
                break  # only the headings before the first <h2> can be the headline's copies
        first = next((c for c in chosen if ctx.in_document(c)), None)  # after the edits above
        if first is None or first is body or first.getparent() is None or body not in first.iterancestors():
            first = next((c for c in body if isinstance(c.tag, str)), None)
            if first is None:
                return
        parent = first.getparent()
        index = parent.index(first)
        if headline.element is not None:  # the page's own heading, moved (its id and links stay)
            h1 = copy.deepcopy(headline.element)
            h1.tag = "h1"
            h1.set("class", f"{h1.get('class') or ''} {HEADLINE_CLASS}".strip())
        else:
            h1 = dom.element("h1", {"class": HEADLINE_CLASS}, text)
        h1.tail = "\n"
        ctx.insert(parent, index, h1)
        if byline:
            p = dom.element("p", {"class": BYLINE_CLASS}, byline)
            p.tail = "\n"
            ctx.insert(parent, index + 1, p)
        ctx.note("headline", h1, f"headline first ({headline.source})", measured={"byline": bool(byline)})

    @staticmethod
    def _prune(body, chosen, st, ctx) -> None:
        """Remove everything in ``body`` outside the chosen nodes; blank loose text on the way."""
        ctx.keep_only(body, chosen, reason="outside the main content block",
                      measured=lambda n: {"chars": st[n][_CHARS]} if n in st else None,
                      explain=lambda n: bool(n in st and st[n][_CHARS]))

    def _clean(self, page, chosen, top, top_score, st, scores, article_chars, ctx, kind: str = "article") -> None:
        """Remove boilerplate inside the chosen nodes (see the module docstring)."""
        s = self.settings
        if not article_chars:
            return
        keep = set(chosen)
        under: set[HtmlElement] = set()  # the elements below a chosen node
        for node in chosen:
            under.update(node.iterdescendants())
        inner = [el for el in scores if el not in keep and el in under]
        best = _best_below(chosen, inner, scores)
        core = top
        while True:  # down to the innermost block that holds nearly all of the score
            nxt = best.get(core)  # the best-scored inner element below core (the first of equals)
            if nxt is None or scores[nxt] < s.alternative_ratio * scores.get(core, top_score):
                break
            core = nxt
        if len(chosen) == 1 and core is top:
            core = None  # no inner core: every removal is bounded by clean_max_share
        core_path = set(core.iterancestors()) | {core} if core is not None else set()
        core_tree = set(core.iter()) if core is not None else set()  # core and what is below it
        title_words = _words(page.title)
        plan: list[tuple[HtmlElement, str, dict, dict]] = []
        bounded = 0  # characters of removals justified by size alone (not by lying outside the core)
        for node in chosen:  # a joining sibling may itself be boilerplate; the best block is not
            stack = list(reversed(node)) if node is top or core is None else [node]
            while stack:
                el = stack.pop()
                if not isinstance(el.tag, str):
                    continue
                outside_core = core is not None and el not in core_path and el not in core_tree
                reason = self._boilerplate(el, st, article_chars, title_words, outside_core, kind)
                if reason:
                    plan.append((el, *reason))
                    if not outside_core:
                        bounded += st[el][_CHARS] if el in st else 0
                else:
                    stack.extend(reversed(el))
        # A comment thread under a story may be most of the page: it is removed whatever its size
        # (not bounded by clean_max_total, not counted by the chain's article-loss guard) when the
        # story left holds THREAD_MIN_STORY_CHARS — never on a forum, where the posts are the content.
        threads = set()
        if kind not in POSTS_ARE_CONTENT:
            alike: dict = {}
            threads = {el for el, *_ in plan if _comment_thread(el, alike, _thread_names(kind))}
            left = article_chars - sum(st[el][_CHARS] for el, *_ in plan if el in st)
            if left < THREAD_MIN_STORY_CHARS:
                threads = set()
            bounded -= sum(st[el][_CHARS] for el in threads if el in st)
        if bounded > s.clean_max_total * article_chars:
            ctx.note("skip-clean", chosen[0], "cleanup would take too much of the article; left as chosen",
                     measured={"share": round(bounded / article_chars, 3)},
                     threshold={"clean_max_total": s.clean_max_total})
            return
        for el, why, measured, threshold in plan:
            if why == "image caption or gallery":
                _hand_on_caption(el, ctx)
            if el in threads:
                ctx.remove(el, "a comment thread under the story", measured=measured,
                           threshold={"thread_min_comments": THREAD_MIN_COMMENTS}, guarded=False)
            else:
                ctx.remove(el, why, measured=measured, threshold=threshold)

    def _collapsed_text(self, el: HtmlElement, es, names: str) -> bool:
        """A block named "read more" that holds prose (a paragraph's worth of text, mostly not
        links) and is the page's only one of its kind is the text a "read more" control unfolds — a
        product's description, a bio — not the control or a teaser list. Alike blocks repeated over
        the page (THREAD_MIN_COMMENTS of them) unfold the items of a list: reviews, teasers."""
        if not (READ_MORE.search(names) and es[_CHARS] >= self.settings.min_article_chars / 2
                and es[_LINK] <= 0.25 * es[_CHARS]):
            return False
        cls = el.get("class")
        alike = sum(1 for other in el.getroottree().getroot().iter(el.tag) if other.get("class") == cls)
        return alike < THREAD_MIN_COMMENTS

    def _text_slides(self, el: HtmlElement, es, names: str) -> bool:
        """Named only like a gallery, slideshow or carousel (not a caption or credit), holding no image
        and a few paragraphs of prose (half of min_article_chars, few links): a rotator of testimonials or
        quotes, not a gallery (whose images a script may load later: its text is a label, "1 / 8")."""
        return (es[_CHARS] >= self.settings.min_article_chars / 2 and es[_LINK] <= self.settings.clean_link_density * es[_CHARS]
                and all(SLIDES.fullmatch(x) for x in CAPTION.findall(names))
                and next(el.iter(*MEDIA_TAGS), None) is None)

    @staticmethod
    def _linked_blurb(el: HtmlElement, es) -> bool:
        """One link (a linked heading, a "learn more") and at least twice its text in prose beside it: a
        blurb of the page — a service, a feature — not a list of links."""
        links = el.iter("a")
        return (next(links, None) is not None and next(links, None) is None
                and es[_CHARS] - es[_LINK] >= 2 * es[_LINK])

    @staticmethod
    def _between_blocks(el: HtmlElement, st) -> bool:
        """An inline element standing between blocks (its own line), not inside a sentence."""
        parent, prev = el.getparent(), el.getprevious()
        ps = st.get(parent)
        before = prev.tail if prev is not None else parent.text
        return bool(ps and ps[_BLOCK]) and not (before or "").strip() and not (el.tail or "").strip()

    def _boilerplate(self, el, st, article_chars, title_words, outside_core,
                     kind: str = "article") -> tuple[str, dict, dict] | None:
        s = self.settings
        es = st.get(el)
        if es is None:
            if _hidden(el):
                return "hidden element", {}, {}
            return None
        chars = es[_CHARS]
        share = chars / article_chars
        big = share > s.clean_max_share  # only named or semantic boilerplate outside the core may be big
        thread_names = _thread_names(kind)
        if big and not outside_core and (kind in POSTS_ARE_CONTENT or not _comment_thread(el, names=thread_names)):
            return None  # ... or a comment thread (or one of its comments), wherever it is
        measured = {"chars": chars, "share": round(share, 3)}
        limit = {"clean_max_share": s.clean_max_share} if not big else {"outside_core": True}
        names = _names(el)
        if el.tag in BOILERPLATE_TAGS or (el.get("role") or "").lower() in BOILERPLATE_ROLES:
            return f"<{el.tag}> navigation or aside block inside the article", measured, limit
        if el.get("itemprop") in COUNTER_PROPS and not big:
            return "a count of likes, shares or comments (schema.org interactionStatistic)", measured, limit
        if (names and _BOILERPLATE_NAMES.found(names) and (el.tag not in INLINE_TAGS or self._between_blocks(el, st))
                and not (kind in POSTS_ARE_CONTENT and POST_NAMES.search(names))
                and not self._collapsed_text(el, es, names)):
            return f"named like boilerplate ({BOILERPLATE.search(names).group(0)})", measured, limit  # type: ignore[union-attr]
        if kind in REVIEW_KINDS and names and _comment_thread(el, names=thread_names):
            return "customer reviews on a product page", measured, limit
        if big:
            return None
        if 0 < chars < s.min_paragraph_chars and el.tag not in INLINE_TAGS and LABEL.match(dom.text_of(el)):
            return "a boilerplate label", measured, {"min_paragraph_chars": s.min_paragraph_chars}
        if s.captions and (el.tag in CAPTION_TAGS or (names and CAPTION.search(names)
                                                       and not self._text_slides(el, es, names))):
            return "image caption or gallery", measured, limit
        if el.tag in dom.HEADING_TAGS and title_words and chars:
            words = _words(dom.text_of(el))
            overlap = len(words & title_words) / len(words) if words else 0.0
            if overlap >= s.title_overlap:
                return "heading repeats the page title", {**measured, "overlap": round(overlap, 3)}, {
                    "title_overlap": s.title_overlap}
        if el.tag in CLEAN_TAGS and chars and es[_COMMAS] < s.clean_max_commas and kind not in ITEMS_ARE_CONTENT:
            ld = es[_LINK] / chars
            bound = s.clean_link_density_positive if _POSITIVE_NAMES.found(names) else s.clean_link_density
            if ld > bound and not self._linked_blurb(el, es):
                return "link list inside the article", {**measured, "link_density": round(ld, 3)}, {
                    "link_density": bound, "commas_below": s.clean_max_commas}
        return None


_SITE_SEP = re.compile(r"\s+[|–—]\s+|\s+-\s+")


#: In a grid of items no item holds more than this share of the items' text (a listing's cards and
#: teasers are alike; a column of sidebar boxes around one long story is not a grid).
GRID_ITEM_SHARE = 0.5


def _best_below(chosen: list[HtmlElement], inner: list[HtmlElement], scores: dict) -> dict[HtmlElement, HtmlElement]:
    """For each element below or at a chosen node: the best-scored element of ``inner`` strictly
    below it, the first in ``inner``'s order among equal scores (what ``max(below, key=scores.get)``
    picks). One walk up from the leaves, so the descent to the core costs the page's size once, not
    once per level (nested unclosed blocks made that descent cubic: 49 KB took 10 s)."""
    rank = {el: (scores[el], -i) for i, el in enumerate(inner)}
    best: dict[HtmlElement, HtmlElement] = {}

    def offer(el: HtmlElement, candidate: HtmlElement) -> None:
        theirs = best.get(el)
        if theirs is None or rank[candidate] > rank[theirs]:
            best[el] = candidate

    for node in chosen:
        for el in reversed(list(node.iter(dom.ELEMENT))):  # children before their parent
            parent = el.getparent()
            if parent is None:
                continue
            mine = best.get(el)
            if el in rank and (mine is None or rank[el] > rank[mine]):
                mine = el
            if mine is not None:
                offer(parent, mine)
    for node in chosen:  # and up from each chosen node to the root (inner elements are all below one)
        mine = best.get(node)
        if mine is not None:
            for a in node.iterancestors():
                offer(a, mine)
    return best


def _even_items(parent: HtmlElement, st) -> bool:
    """The largest group of ``parent``'s children with one tag and class has no dominant item."""
    groups: dict[tuple, list[int]] = {}
    for child in parent:
        if child in st:
            groups.setdefault((child.tag, child.get("class") or ""), []).append(st[child][_CHARS])
    items = max(groups.values(), key=len, default=[])
    return bool(items) and max(items) <= GRID_ITEM_SHARE * max(1, sum(items))


def _strip_site(title: str) -> str:
    """A metadata title without the site name after it ("Headline | Site"), when the rest is a headline."""
    parts = _SITE_SEP.split(title)
    return parts[0] if len(parts) > 1 and len(parts[0].split()) >= 3 else title


def _hand_on_caption(el: HtmlElement, ctx) -> None:
    """Remember a removed caption's text for the images it described (those of its figure, or of
    its parent block), so a later filter can still judge them by their caption."""
    text = dom.text_of(el)
    if not text:
        return
    holder = next(el.iterancestors("figure"), None)
    if holder is None:
        holder = el.getparent()
    if holder is None:
        return
    images = [img for img in holder.iter("img") if not any(a is el for a in img.iterancestors())]
    if not images:
        return
    captions = dict(ctx.state.removed_captions)  # image -> caption text, for image_captions
    for img in images:
        captions[img] = f"{captions.get(img, '')} {text}".strip()
    ctx.assign(removed_captions=captions)


_WORD = re.compile(r"\w+", re.U)


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def _common_ancestor(nodes: list[HtmlElement]) -> HtmlElement:
    """The deepest element that holds every node of ``nodes`` (the node itself for one)."""
    common = [nodes[0], *nodes[0].iterancestors()][::-1]
    for node in nodes[1:]:
        chain = [node, *node.iterancestors()][::-1]
        k = 0
        while k < min(len(common), len(chain)) and common[k] is chain[k]:
            k += 1
        common = common[:k]
    return common[-1]
