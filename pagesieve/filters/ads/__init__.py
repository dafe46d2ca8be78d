"""``ads``: remove elements that load from (or link to) ad servers, and elements the lists hide.

Source: dom-and-nlp-content-extraction-proxy.txt, "Content Extraction" (the advertisement
remover): "the values of the src and href attributes throughout the page are surveyed to
determine the servers to which the links refer. If a link address matches against a list of
common advertisement servers, the node of the DOM tree that contained the link is removed";
the "Ignore All Advertisements" box of the settings screen (Figure 1) switches it.

The "list of common advertisement servers" is real EasyList-format lists (EasyList and
EasyPrivacy by default, see :mod:`pagesieve.analysis.blocklists`) run by the ``adblock`` engine
(adblock-rust), which decides with the lists' network rules, ``@@`` exceptions and options
such as ``$third-party`` or ``$script``:

* **network rules** — every ``src``, ``href``, ``srcset``, ``poster`` and ``<object data>`` is
  resolved against ``<base href>`` and the page URL and checked with the request type of its tag
  (``<script>`` script, ``<img>`` image, ``<iframe>`` subdocument, ``<link rel=stylesheet>``
  stylesheet, ``<video>``/``<audio>`` media, ``<embed>``/``<object>`` object, ``<a>`` document, …).
  A link in running text (``<a href>`` in a sentence) is content, not something the page loads:
  when its target matches, it loses its ``href`` and keeps its words; a link that is a block's
  whole text (a menu item, a banner, a sponsored card) goes whole — but inside the story a reader
  chose (the detected article, when a content finder ran first), every link with words keeps them:
  a deals post's "Get it on Amazon for $199" lines and a shop's name after its "Clothes:" label are
  the story's text, and without them a label or a full stop stands alone. Third-party is judged from
  the page URL. Without a page URL, relative URLs count as
  first-party and are not checked; absolute ones are checked as third-party requests. An ad
  image inside a link that holds nothing else takes the link with it.
* **element-hiding rules** (``##selector``) — generic ones for the page's classes and ids and
  the rest (``hidden_class_id_selectors``, the engine's generic list), site-specific ones for
  the page URL (``url_cosmetic_resources``), minus ``#@#`` exceptions, applied as removals — but a
  link in running text that a rule hides (a site's ``[rel*="sponsored"]``) loses its address and
  keeps its words, as above.
  Selectors lxml cannot run (procedural ``:has-text()``, ``:upward()``, pseudo-elements, and
  ``:is()``/``:where()``/``:has(> …)`` which cssselect mistranslates) are skipped and counted.

Never removed: ``<html>``, ``<head>``, ``<body>``, a node that contains the detected article,
or the matches of one hiding rule that hold more than ``max_cosmetic_share`` of the page's
text (lists contain rules such as ``##.article`` that would blank some sites).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Iterable

from lxml.html import HtmlElement

from pagesieve.analysis.blocklists import DEBIAN_LISTS, DEBIAN_PACKAGE, DOWNLOADS, load_engine, with_downloads
from pagesieve.core import dom
from pagesieve.core.settings import setting
from pagesieve.filters.ads import network
from pagesieve.filters.ads.index import GenericRules, PageIndex
from pagesieve.filters.ads.network import LINK_TARGET_ATTRS, WITH_URL
from pagesieve.filters.ads.selectors import Selector, compile_selector
from pagesieve.filters.base import Filter

log = logging.getLogger("pagesieve.filters.ads")

NEVER_REMOVED = frozenset({"html", "head", "body"})
# Without a page URL, site-specific hiding rules cannot apply; this reserved name (RFC 2606)
# asks the engine for its generic rules only.
NO_SITE_URL = "https://pagesieve.invalid/"
# Below this many characters of matched text a hiding rule is never blocked by the share guard:
# an ad slot's "Advertisement" label on a nearly empty page is not the page.
GUARD_MIN_CHARS = 200


@dataclass(frozen=True)
class AdsSettings:
    """How ads are found: which lists, which kinds of rules, and the guard."""

    # Sources: Remove elements whose src/href points at an ad or tracking server (the lists' network rules; the
    # paper's advertisement remover).
    network: bool = setting(True, "Remove elements that load from, or point at, an ad or tracking server named in the"
                                  " ad lists.", group="ignore", scope="user")
    # Sources: Remove elements the lists hide (##selector rules, generic and site-specific; #@# exceptions respected).
    cosmetic: bool = setting(True, "Remove elements that the ad lists hide, on every site or on the site at hand (the"
                                   " lists' exceptions respected).", group="ignore", scope="user")
    # Sources: Check link targets (<a>/<area> href) too, not only loaded resources (the paper surveys src and href).
    links: bool = setting(True, "Also check where links lead, not only what the page loads.", group="advanced", scope="user")
    lists: tuple[str, ...] = setting(DEBIAN_LISTS, "EasyList-format block lists: file paths or http(s) URLs "
                                                   "(default: Debian's EasyList and EasyPrivacy, package "
                                                   "webext-ublock-origin-firefox).", group="advanced")
    download_urls: tuple[str, ...] = setting(tuple(DOWNLOADS.values()), "Where `pagesieve lists update` (the "
                                             "operator's command) downloads lists into cache_dir/lists; a "
                                             "missing list file of the same name is read from there.",
                                             group="advanced")
    cache_dir: str | None = setting("~/.cache/pagesieve/ads", "Directory for downloaded lists and the compiled "
                                                              "engine (null: no cache, lists parsed at every "
                                                              "start).", group="advanced")
    refresh_hours: float = setting(24.0, "Hours a downloaded list is used before it is fetched again at start-up "
                                         "(EasyList's header asks for 4-6 days; daily keeps a long-running proxy "
                                         "current).", minimum=0, maximum=8760, group="advanced")
    # Sources: A hiding rule whose matches hold more than this fraction of the article's text (the body's before an
    # article is found) is not applied (pagesieve's guard against rules like ##.article; below
    # safety.max_article_loss).
    max_cosmetic_share: float = setting(0.5, "An ad-list hiding rule is not applied when what it would hide holds "
                                             "more than this share of the article's text (a rule that would hide the "
                                             "article itself).", minimum=0, maximum=1, group="advanced", scope="user")



class AdsFilter(Filter):
    name = "ads"
    assigns = ("removed_links",)
    Settings = AdsSettings
    summary = "Remove ads: elements loading from or linking to ad servers, and elements EasyList hides."

    def __init__(self, settings: AdsSettings) -> None:
        super().__init__(settings)
        self.load = load_engine(with_downloads(settings.lists, settings.cache_dir), settings.cache_dir,
                                settings.refresh_hours)
        self.engine = self.load.engine
        if self.engine is None:
            log.warning("ads: inactive — no block list could be read; pages are filtered without it "
                        "(apt install %s, or run `pagesieve lists update`)", DEBIAN_PACKAGE)
        else:
            log.info("ads: %d block list(s) ready in %.0f ms (%s)", len(self.load.sources), self.load.ms,
                     "from the engine cache" if self.load.from_cache else "parsed")
        self._selectors: dict[str, Selector | None] = {}
        self.generic: GenericRules | None = None
        if self.engine is not None:
            generic = self.engine.url_cosmetic_resources(NO_SITE_URL)
            self.generic = GenericRules(generic.hide_selectors, self._compiled)

    def apply(self, page, ctx) -> None:
        if self.engine is None:
            ctx.note("skip", reason="inactive: no block list could be read (see the start-up log); nothing removed",
                     measured={"missing": [m for m, _ in self.load.missing]})
            return
        protected = self._protected(ctx)
        counts = {"network": 0, "cosmetic": 0}
        # With both kinds of rules, one walk of the page serves both: the hiding rules' index, taken
        # before the network rules remove anything, also lists the elements those rules check.
        index = (PageIndex(page.root, self.generic.value_names) if self.settings.cosmetic and self.generic
                 else None)
        if self.settings.network:
            counts["network"] = self._network(page, ctx, protected, index)
        skipped = 0
        if self.settings.cosmetic:
            counts["cosmetic"], skipped = self._cosmetic(page, ctx, protected, index)
        if counts["network"] or counts["cosmetic"] or skipped:
            ctx.note("summary", reason="ads removed by the block lists' rules",
                     measured={"removed_network": counts["network"], "removed_cosmetic": counts["cosmetic"],
                               "hiding_rules_not_runnable": skipped})

    # -- network rules ----------------------------------------------------------------
    def _network(self, page, ctx, protected: set, index: PageIndex | None = None) -> int:
        """Remove what points at an ad server; ``index``: the page's index (its :attr:`PageIndex.with_url`
        are the elements to check), told what was removed."""
        root = page.root
        source, base = network.origin(page, root)
        engine = self.engine
        assert engine is not None  # apply() runs the rules only with an engine
        checked: dict[tuple[str, str], Any] = {}  # (url, request type) -> adblock's BlockerResult
        resolved: dict[str, Any] = {}  # url -> absolute URL or None (False: not resolved yet)
        gone: set = set()  # what this loop removed, with everything under it (the list was read before)
        removed = 0
        links = self.settings.links
        article = ctx.article

        def in_article(node: HtmlElement) -> bool:  # in the reader's story, its links are its text
            return article is not None and any(a is article for a in node.iterancestors())

        for node in (index.with_url if index is not None else WITH_URL(root)):
            tag = node.tag
            if not isinstance(tag, str) or tag in NEVER_REMOVED or (gone and node in gone):
                continue
            if tag == "a":  # most of a page's URLs: requests_of's answer without the call
                href = node.get("href") if links else None
                requests: Iterable[tuple[str, str]] = ((href, "document"),) if href else ()
            else:
                requests = network.requests_of(node, links)
            for url, rtype in requests:
                absolute = resolved.get(url, False)
                if absolute is False:
                    absolute = resolved[url] = network.absolute(url, base)
                if absolute is None:
                    continue
                key = (absolute, rtype)
                result = checked.get(key)
                if result is None:
                    result = checked[key] = engine.check_network_urls(absolute, source, rtype)
                if result.matched:
                    target = network.target(node)
                    if tag == "a" and (network.keeps_words(node) or in_article(node) and dom.text_len(node)):
                        # A network rule says what a page loads, not where a link leads: a link with
                        # words is content (a sentence would lose them); it loses its address only.
                        for attr in LINK_TARGET_ATTRS:
                            ctx.set_attr(node, attr, None)
                        ctx.note("unlink", node, "link to an ad or tracking server: its address dropped, "
                                 "its words kept", measured={"url": absolute, "request_type": rtype},
                                 threshold={"rule": result.filter})
                    elif target in protected:
                        ctx.note("keep", target, "points at an ad server but holds the article",
                                 measured={"url": absolute, "rule": result.filter})
                    elif ctx.remove(target, "points at an ad server" if target is node
                                    else "link around an element that points at an ad server",
                                    measured={"url": absolute, "request_type": rtype},
                                    threshold={"rule": result.filter}):
                        removed += 1
                        gone.update(target.iter())
                    break
        if index is not None:
            index.forget(gone)
        return removed

    # -- element hiding -----------------------------------------------------------------
    def _cosmetic(self, page, ctx, protected: set, index: PageIndex | None = None) -> tuple[int, int]:
        root = page.root
        engine, generic = self.engine, self.generic
        assert engine is not None and generic is not None  # apply() runs the rules only with an engine
        resources: Any = engine.url_cosmetic_resources(page.url or NO_SITE_URL)
        if index is None:
            index = PageIndex(root, generic.value_names)
        rules = set(resources.hide_selectors)
        if not resources.generichide:
            rules.update(engine.hidden_class_id_selectors(index.classes, index.ids, resources.exceptions))
        # Site-specific and class/id rules are few: all run. Of the generic rest (the same for every
        # page, minus this site's exceptions), only those the page can match.
        other = rules - generic.texts
        skipped = len(rules & generic.not_runnable) + sum(1 for t in other if self._compiled(t) is None)
        todo = (rules & generic.candidates(index)) | {t for t in other if self._compiled(t) is not None}
        guard = None  # (node, text length) the share guard measures against, when first needed
        removed = 0
        for text in sorted(todo):
            sel = self._compiled(text)
            if sel is None or not index.may_match(sel):  # never None: todo holds runnable rules only
                continue
            found_by = index.matches(*sel.simple) if sel.simple else sel.xpath(root)
            matches = [n for n in found_by if isinstance(n, HtmlElement) and n.tag not in NEVER_REMOVED]
            for n in matches:
                if n in protected:
                    ctx.note("keep", n, "hidden by an ad list rule but holds the article",
                             measured={"hiding_selector": text})
            matches = [n for n in matches if n not in protected]
            found = set(matches)
            matches = [n for n in matches if ctx.in_document(n) and not any(a in found for a in n.iterancestors())]
            if not matches:
                continue
            if guard is None:
                guard = ctx.state.guard_base()
            guard_node, guard_chars = guard
            inside = sum(ctx.text_len(n) for n in matches if n is guard_node
                         or any(a is guard_node for a in n.iterancestors()))
            share = inside / guard_chars if guard_chars else 0.0
            if inside > GUARD_MIN_CHARS and share > self.settings.max_cosmetic_share:
                ctx.note("keep", matches[0], "an ad list hiding rule would remove too much of the page's text",
                         measured={"hiding_selector": text, "matches": len(matches), "text_share": round(share, 3)},
                         threshold={"max_cosmetic_share": self.settings.max_cosmetic_share})
                continue
            for n in matches:
                if n.tag == "a" and network.keeps_words(n):
                    # a sponsored link in a sentence: hidden, it would cut the sentence; it loses its address
                    for attr in LINK_TARGET_ATTRS:
                        ctx.set_attr(n, attr, None)
                    ctx.note("unlink", n, "link hidden by an ad list rule, in running text: its address dropped, "
                             "its words kept", threshold={"hiding_selector": text})
                elif ctx.remove(n, "hidden by an ad list rule", measured={"text_chars": ctx.text_len(n)},
                                threshold={"hiding_selector": text}):
                    removed += 1
        return removed, skipped

    def _compiled(self, text: str) -> Selector | None:
        try:
            return self._selectors[text]
        except KeyError:
            sel = self._selectors[text] = compile_selector(text)
            return sel

    @staticmethod
    def _protected(ctx) -> set:
        """Nodes never removed: the article and everything that contains it."""
        article = ctx.article
        if article is None:
            return set()
        return {article, *article.iterancestors()}
