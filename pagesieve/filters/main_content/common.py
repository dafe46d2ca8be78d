"""What the parts of ``main_content`` share: the class/id patterns, page kinds, tag sets and the
tests of names, comment threads and hidden or folded blocks."""

from __future__ import annotations

import re
from collections import Counter

from lxml import etree
from lxml.html import HtmlElement

from pagesieve.core import dom

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
UNLIKELY_NAMES, MAYBE_NAMES = dom.NamePattern(UNLIKELY), dom.NamePattern(MAYBE)
POSITIVE_NAMES, NEGATIVE_NAMES = dom.NamePattern(POSITIVE), dom.NamePattern(NEGATIVE)
BOILERPLATE_NAMES = dom.NamePattern(BOILERPLATE)
# The page type decides what is content (pagesieve.analysis.pagetype): on a forum thread the posts and
# comments are the content (their names are not boilerplate there); on listings, shop collections,
# product and documentation pages the link-dense item lists and tables of contents are.
POSTS_ARE_CONTENT = frozenset({"forum"})
# A comment thread: a block named like comments that repeats (siblings of the same name) or holds
# repeated comment blocks — the readers' posts under a story, not the story (see comment_thread).
COMMENT_NAMES = re.compile(r"comment", re.I)
# On a product page the customers' reviews are its comments (wcxb-dev's product truths hold the
# description and specifications, never the reviews): the same thread rule, with their names.
REVIEW_KINDS = frozenset({"product"})
REVIEW_NAMES = re.compile(r"comment|review", re.I)
#: Blocks named like comments, in or beside a block, that make it a thread.
THREAD_MIN_COMMENTS = 3
POST_NAMES = re.compile(r"comment|repl|post|message|answer", re.I)
#: Dialogs too (Readability's UNLIKELY_ROLES: alertdialog, dialog): a modal a script opens over the page (sign-up,
#: video player, store picker) is not the page's content, and a widened main block brings them in.
BOILERPLATE_ROLES = frozenset({"navigation", "complementary", "contentinfo", "banner", "search", "menu", "menubar",
                               "toolbar", "dialog", "alertdialog"})
BOILERPLATE_TAGS = frozenset({"nav", "aside", "footer", "form", "button", "select", "textarea", "input", "menu",
                              "dialog"})
INLINE_TAGS = frozenset({"a", "span", "b", "i", "em", "strong", "small", "abbr", "cite", "q", "sup", "sub", "time",
                         "mark", "u", "font", "label"})


def names_of(el: HtmlElement) -> str:
    """A block's class and id, what the name patterns are tested on, less the class names that say
    what the block has, lacks or hides (``has-comments``, ``no-sidebar``, ``hide-read-more-ad``):
    those describe a state or a neighbour, not what the block is."""
    cls = el.get("class") or ""
    if "-" in cls or "_" in cls:
        cls = _STATE_NAMES.sub(" ", cls)
    return f"{cls} {el.get('id') or ''}".strip()


#: Class names of a state: what a block has, lacks, shows or hides (see names_of).
_STATE_NAMES = re.compile(r"(?:^|\s)(?:no|not|without|hide|hidden)[-_]\S*", re.I)


def thread_names(kind: str) -> re.Pattern:
    """What the blocks of a readers' thread are named like on a page of this kind."""
    return REVIEW_NAMES if kind in REVIEW_KINDS else COMMENT_NAMES


def comment_thread(el: HtmlElement, alike: dict | None = None, names: re.Pattern = COMMENT_NAMES) -> bool:
    """``el`` is named like comments (``names``) and is one of THREAD_MIN_COMMENTS such siblings
    of its tag and class, or holds that many blocks named like comments: a thread, not a story's
    part. ``alike``: a cache of the (tag, class) counts per parent, for callers that ask of many
    siblings."""
    if not names.search(names_of(el)):
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
        if isinstance(sub.tag, str) and sub.tag not in INLINE_TAGS and names.search(names_of(sub)):
            inside += 1
            if inside >= THREAD_MIN_COMMENTS:
                return True
    return False


# Hidden elements are not content — except a tab panel: the page hides every tab's panel but the
# selected one, and without the page's scripts (and its tab buttons, which ignore removes) no tab can
# show the others: the code samples of a documentation page in every other language. And except a link
# hidden from assistive technology and the keyboard alike (aria-hidden, tabindex=-1): a card's second
# link to its story, on its summary, kept from screen readers because the title already leads there.
# Every visitor who sees the card sees the summary (a topic page's list of stories lost them all).
# As the owners of those attributes (the same elements; libxml2 walks attributes far faster than it tests a
# predicate on every element).
HIDDEN = etree.XPath("(.//*/@hidden | .//*/@aria-hidden[translate(normalize-space(.),'TRUE','true')='true']"
                     "[not(parent::a[@tabindex='-1'])] "
                     "| .//*/@type[translate(.,'HIDEN','hiden')='hidden'])/parent::*[not(@role='tabpanel')]")


#: ... and a folded answer: an accordion's or FAQ's hidden answer, which only the page's scripts unfold.
FOLDED = re.compile(r"answer|accordion|collaps|(?:^|[\s_-])faq", re.I)
FOLDED_NAMES = dom.NamePattern(FOLDED)


def is_folded(el: HtmlElement) -> bool:
    """A tab panel or a block named like a folded answer: hidden by the page, content all the same."""
    return el.get("role") == "tabpanel" or FOLDED_NAMES.found(names_of(el))


def is_hidden(el: HtmlElement) -> bool:
    """Hidden by an attribute (``hidden``, ``aria-hidden``, ``type=hidden``) and not folded content, nor
    a link hidden from assistive technology only to spare it a second link (see HIDDEN)."""
    return (el.get("hidden") is not None or (el.get("aria-hidden") or "").strip().lower() == "true"
            and not (el.tag == "a" and (el.get("tabindex") or "").strip() == "-1")
            or (el.get("type") or "").lower() == "hidden") and not is_folded(el)

