"""``removed_links``: list the text links the other filters removed at the end of the page.

Source: dom-and-nlp-content-extraction-proxy.txt, "removed link retainer": it keeps track of
every text link removed during filtering and, once the tree has been processed, adds the list
at the bottom of the page, so that links that were removed stay reachable ("to keep the page
browsable"). It therefore runs after the removing filters.

The list is compact and never read unasked: a labelled landmark, ``<nav aria-label="…">``, last
in ``<body>``, holding a collapsed ``<details>`` whose ``<summary>`` says what it is and how many
links it holds, then a ``<ul>`` of the links in page order. Each address is listed once (compared
without its ``#fragment``, its trailing ``/`` and the case of scheme and host, resolved against the
page's address), with its first text that has a word in it. Never listed: links whose address is
unsafe to emit again (``javascript:``, ``data:``, ``vbscript:`` …, see ``dom.is_safe_url``), links
whose texts are all empty or symbols only ("»", "|", "…"), by default links to the same page
(``#…``) and addresses still on the page.

Never a longer text: in text output, where the list cannot be collapsed and is read out in full, it
is left out when it would hold more words (its summary included) than the filters took away from the
page (``FilterContext.removed_words``: the removed text as the page reads without scripts, less what
replacements kept); ``--explain`` says so with both counts.
Such a list would give back every removed word and add its own: on a page whose filters removed a
handful of menu links, the retainer would make the text longer, not decluttered. In HTML the list
stays whatever its length: collapsed, it is read only when asked, and it keeps the removed menus
reachable. Measured on the five corpora (881 pages, text output): declutter precision up on every
corpus, recall unchanged but for two pages whose short lists held main-text words (``only_if_shorter``;
a stricter share of the removed words lost recall below .99 on three corpora).

Also in text output only, a link removed from page furniture (``dom.furniture_between``: a ``<nav>``,
the banner's ``<header>``, the ``<footer>``, an ``<aside>``, their ARIA roles) whose text is shorter
than ``furniture_min_words`` is left out: "Home", "Contact us" read out again, where no link can be
followed, are the menu the filters took away; a headline-long link text, or an address the content
also linked, stays. Measured on the five corpora: declutter precision scrapinghub .561 -> .589, wcxb
.635 -> .655, dragnet .446 -> .454, recall unchanged but wcxb .9908 -> .9905.
Any other removed link is left out, in text output, when its text is a single word
(``min_words``): "Home", "Jobs", "UK" are a menu's labels wherever the page put its menu (old
layouts build menus of plain ``<div>``s and cells, which no furniture test sees), and read out alone
they name nothing to follow. Measured on the five corpora: no page's text output holds more
non-content words than the page (3 pages did), declutter precision up on all five, recall down at
most .0003 (wcxb) and at least .990 everywhere.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urljoin, urlsplit, urlunsplit

from lxml import etree
from lxml.html import HtmlElement

from pagesieve.core import dom
from pagesieve.core.measure import words
from pagesieve.core.settings import setting
from pagesieve.filters.base import Filter

#: The class of the section, for style sheets and for tests.
SECTION_CLASS = "pagesieve-removed-links"
_WORDY = re.compile(r"\w", re.U)
#: The addresses of the page's links (``<a href>``, an empty one too), as plain strings.
_HREFS = etree.XPath("descendant-or-self::a/@href", smart_strings=False)


def link_key(href: str, base: str | None) -> str:
    """The address a link leads to, for "the same link": resolved against ``base``, without the
    fragment and the trailing ``/``, scheme and host lower-cased. Same-page links (``#…``) stay as
    they are."""
    href = href.strip()
    if href.startswith("#"):
        return href
    if base and href[:1] == "/" and href[1:2] != "/":
        href = dom.join_root_relative(base, href) or href
    if dom.PLAIN_URL.match(href):
        # What urljoin + urlsplit + urlunsplit make of it, without them: an absolute http(s) URL is
        # its own join; its netloc ends at the first of / ? #, the fragment starts at #, the query at ?.
        scheme, _, rest = href.partition("://")
        cut = len(rest)
        for sep in "/?#":
            i = rest.find(sep, 0, cut)
            if i >= 0:
                cut = i
        netloc, rest = rest[:cut], rest[cut:].partition("#")[0]
        path, _, query = rest.partition("?")
        if netloc and ";" not in path:  # a ; in the path: urlparse's params, urljoin decides
            return f"{scheme.lower()}://{netloc.lower()}{path.rstrip('/') or '/'}" + (f"?{query}" if query else "")
    try:
        parts = urlsplit(urljoin(base, href) if base else href)
    except ValueError:
        return href
    path = parts.path.rstrip("/") or ("/" if parts.netloc else "")
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), path, parts.query, ""))


@dataclass(frozen=True)
class RemovedLinksSettings:
    """How the removed links come back (the paper's "Append Links to Bottom of Page")."""

    # Sources: Summary of the collapsed list (followed by the number of links) and accessible name (aria-label) of the
    # section.
    label: str = setting("Links removed from this page", "The title of the list of removed links (the number of links"
                                                         " follows it); screen readers also name the list by it.",
                         group="output", scope="user", max_chars=200)
    max_links: int = setting(0, "List at most this many links (0 = all).", minimum=0, maximum=100000,
                             group="output", scope="user")
    skip_present: bool = setting(True, "Leave out links whose address is still on the page.", group="output", scope="user")
    # Sources: In text output, where no link can be followed, a link removed from page furniture (a <nav>, the banner
    # <header>, the <footer>, an <aside>, their ARIA roles) is listed only when its text has at least this many words:
    # a menu's labels ('Home', 'Contact us') read out again are noise, a headline is not. An address also linked from
    # the content counts as content. 0: list them all.
    furniture_min_words: int = setting(
        3, "In plain text, where links cannot be followed, a link taken from a menu, header, footer or side bar is "
           "listed only when its text has at least this many words: menu labels read out again are noise, a headline "
           "is not. 0: list them all.",
        minimum=0, maximum=1000, group="output", scope="user")
    # Sources: In text output, a removed link from anywhere else is listed only when its text has at least this many
    # words: a one-word label ('Home', 'Jobs', 'UK') is a menu's, wherever the page put its menu, and read out alone
    # it names nothing to follow. 0 or 1: list them all.
    min_words: int = setting(
        2, "In plain text, any other removed link is listed only when its text has at least this many words (a one-"
           "word label names nothing to follow). 0 or 1: list them all.",
        minimum=0, maximum=1000, group="output", scope="user")
    same_page: bool = setting(False, "Also list links to places on the same page (href starting with #).",
                              group="output", scope="user")
    # Sources: Leave the list out when it would hold more words than the filters took away from the page (it would
    # give back every removed word and add its own): 'text' in text output only, where the list cannot be collapsed
    # and is read out in full (in HTML it stays, collapsed, so the page's menus stay reachable); 'always'; 'never'.
    only_if_shorter: Literal["text", "always", "never"] = setting(
        "text", "Leave the list out when it would hold more words than the filters took away: text leaves it out in "
                "plain text only (in a web page it stays, folded); always; never.",
        choices=("text", "always", "never"), group="output", scope="user")


class RemovedLinksFilter(Filter):
    name = "removed_links"
    requires = ("removed_links",)
    assigns = ("removed_links_nav",)
    Settings = RemovedLinksSettings
    summary = "List every text link the other filters removed at the end of the page, in page order."
    destructive = False

    def apply(self, page, ctx) -> None:
        s = self.settings
        removed = ctx.state.removed_links
        if not removed:
            return
        base = page.url
        keys: dict[str, str] = {}  # href -> link_key(href, base): pages repeat their links

        def key_of(href: str) -> str:
            got = keys.get(href)
            if got is None:
                got = keys[href] = link_key(href, base)
            return got

        # Each distinct address on the page once: pages repeat theirs (menus, a story's links at its top
        # and bottom), and a set of the strings read in C is cheaper than a lookup per link.
        present = {key_of(href) for href in set(_HREFS(page.root))} if s.skip_present else set()
        texts: dict[str, str] = {}  # address -> its first text with a word in it, in page order
        order: list[tuple[str, str]] = []
        furniture_only: dict[str, bool] = {}  # address -> every removed link to it was in page furniture
        in_furniture = ctx.state.removed_in_furniture
        unsafe = 0
        safe: dict[str, bool] = {}  # href -> dom.is_safe_url(href)
        for position, href, text in sorted(removed, key=lambda item: item[0]):
            ok = safe.get(href)
            if ok is None:
                ok = safe[href] = dom.is_safe_url(href)
            if not ok:
                unsafe += 1
                continue
            key = key_of(href)
            if key in present or (not s.same_page and href.startswith("#")):
                continue
            if key not in texts:
                texts[key] = ""
                order.append((key, href))
            furniture_only[key] = furniture_only.get(key, True) and position in in_furniture
            if not texts[key] and _WORDY.search(text or ""):
                texts[key] = " ".join(text.split())
        short = 0
        if (s.furniture_min_words or s.min_words) and ctx.state.output_format == "text":
            # a menu's labels read out where no link can be followed: left out (see the settings)
            kept_order = [(key, href) for key, href in order
                          if not (texts[key] and words(texts[key]) < (s.furniture_min_words if furniture_only[key]
                                                                      else s.min_words))]
            short, order = len(order) - len(kept_order), kept_order
        chosen = [(href, texts[key]) for key, href in order if texts[key]]
        if s.max_links:
            chosen = chosen[:s.max_links]
        if not chosen:
            ctx.note("skip", reason="no removed link to list",
                     measured={"removed": len(removed), "unsafe": unsafe, "short_labels": short})
            return
        body = dom.body_of(page.root)
        measured = {"listed": len(chosen), "removed": len(removed), "unsafe": unsafe}
        if short:
            measured["short_labels"] = short
        if s.only_if_shorter == "always" or (s.only_if_shorter == "text" and ctx.state.output_format == "text"):
            measured["list_words"] = words(self._summary(len(chosen))) + sum(words(text) for _, text in chosen)
            measured["removed_words"] = ctx.removed_words(enough=measured["list_words"])  # at least
            if measured["list_words"] > measured["removed_words"]:
                ctx.note("skip", reason="the list would hold more words than the filters removed",
                         measured=measured, threshold={"only_if_shorter": s.only_if_shorter})
                return
        nav = self._section(chosen)
        ctx.insert(body, len(body), nav)
        ctx.assign(removed_links_nav=nav)  # for accessibility, which labels and places it
        ctx.note("add", reason="removed links listed at the end of the page, collapsed", measured=measured)

    def _summary(self, count: int) -> str:
        return f"{self.settings.label} ({count})"

    def _section(self, links: list[tuple[str, str]]) -> HtmlElement:
        s = self.settings
        nav = dom.element("nav", {"aria-label": s.label, "class": SECTION_CLASS})
        details = etree.SubElement(nav, "details")
        summary = etree.SubElement(details, "summary")
        summary.text = self._summary(len(links))
        ul = etree.SubElement(details, "ul")
        ul.text = "\n"
        for href, text in links:
            li = etree.SubElement(ul, "li")
            a = etree.SubElement(li, "a", href=href)
            a.text = text
            li.tail = "\n"
        nav.tail = "\n"
        return nav
