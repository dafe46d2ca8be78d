"""``removed_links``: list the text links the other filters removed at the end of the page.

Source: dom-and-nlp-content-extraction-proxy.txt, "removed link retainer": it keeps track of
every text link removed during filtering and, once the tree has been processed, adds the list
at the bottom of the page, so that links that were removed stay reachable ("to keep the page
browsable"). It therefore runs after the removing filters.

The list is a labelled landmark, ``<nav aria-label="…">`` with a heading and a ``<ul>`` of the
links in page order, each address once (its first text). Links whose address is unsafe to
emit again (``javascript:``, ``data:``, ``vbscript:`` …, see ``dom.is_safe_url``) are never
listed; neither, by default, are links to the same page (``#…``) or addresses still on the page.
"""

from __future__ import annotations

from dataclasses import dataclass

from lxml import etree

from pagesieve import dom
from pagesieve.filters.base import Filter
from pagesieve.settings import setting

#: The class of the section, for style sheets and for tests.
SECTION_CLASS = "pagesieve-removed-links"


@dataclass(frozen=True)
class RemovedLinksSettings:
    """How the removed links come back (the paper's "Append Links to Bottom of Page")."""

    label: str = setting("Links removed from this page", "Heading and accessible name (aria-label) of the section.",
                         group="output", scope="user")
    heading_level: int = setting(2, "Level of the section's heading (2 = <h2>).", minimum=1, maximum=6,
                                 group="output", scope="user")
    max_links: int = setting(0, "List at most this many links (0 = all).", minimum=0, maximum=100000,
                             group="output", scope="user")
    skip_present: bool = setting(True, "Leave out links whose address is still on the page.", group="output", scope="user")
    same_page: bool = setting(False, "Also list links to places on the same page (href starting with #).",
                              group="output", scope="user")


class RemovedLinksFilter(Filter):
    name = "removed_links"
    Settings = RemovedLinksSettings
    summary = "List every text link the other filters removed at the end of the page, in page order."
    destructive = False

    def apply(self, page, ctx) -> None:
        s = self.settings
        removed = ctx.state.removed_links
        if not removed:
            return
        present = ({(a.get("href") or "").strip() for a in page.root.iter("a")} if s.skip_present else set())
        seen: set[str] = set()
        chosen: list[tuple[str, str]] = []
        unsafe = 0
        for _, href, text in sorted(removed, key=lambda item: item[0]):
            if href in seen:
                continue
            seen.add(href)
            if not dom.is_safe_url(href):
                unsafe += 1
                continue
            if href in present or (not s.same_page and href.startswith("#")):
                continue
            chosen.append((href, text))
        if s.max_links:
            chosen = chosen[:s.max_links]
        if not chosen:
            ctx.note("skip", reason="no removed link to list", measured={"removed": len(removed), "unsafe": unsafe})
            return
        body = dom.body_of(page.root)
        ctx.insert(body, len(body), self._section(chosen))
        ctx.note("add", reason="removed links listed at the end of the page",
                 measured={"listed": len(chosen), "removed": len(removed), "unsafe": unsafe})

    def _section(self, links: list[tuple[str, str]]) -> etree._Element:
        s = self.settings
        nav = dom.element("nav", {"aria-label": s.label, "class": SECTION_CLASS})
        nav.text = "\n"
        heading = etree.SubElement(nav, f"h{s.heading_level}")
        heading.text = s.label
        heading.tail = "\n"
        ul = etree.SubElement(nav, "ul")
        ul.text = "\n"
        ul.tail = "\n"
        for href, text in links:
            li = etree.SubElement(ul, "li")
            a = etree.SubElement(li, "a", href=href)
            a.text = text
            li.tail = "\n"
        nav.tail = "\n"
        return nav
