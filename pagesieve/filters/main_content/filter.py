"""The ``main_content`` filter: two scoring passes, the widening rules in order, then the clean-up
inside the kept blocks (see the package docstring)."""

from __future__ import annotations

from lxml.html import HtmlElement

from pagesieve.analysis import pagemeta
from pagesieve.analysis.furniture import semantic_main
from pagesieve.analysis.pagetype import detect
from pagesieve.core import dom
from pagesieve.filters.base import Filter
from pagesieve.filters.main_content import cleanup, scoring
from pagesieve.filters.main_content.common import POSTS_ARE_CONTENT, comment_thread, thread_names
from pagesieve.filters.main_content.settings import MainContentSettings
from pagesieve.filters.main_content.widening import WIDENINGS, Choice, Facts

#: One pass's find: the best block, its score, the kept blocks, the pass's scores and the pass (1 or 2).
Found = tuple[HtmlElement, float, list[HtmlElement], dict[HtmlElement, float], int]


class MainContentFilter(Filter):
    name = "main_content"
    assigns = ("article", "removed_links", "removed_captions")
    Settings = MainContentSettings
    summary = ("Reader: keep the best-scored content block (paragraph scores, link density), then remove bylines, "
               "share bars, related lists and comments inside it.")

    def _passes(self, order, st, body) -> tuple[Found | None, Found | None]:
        """The first pass (unlikely blocks left out) and the pass that found enough text: the second,
        over every paragraph, when the first kept fewer than ``min_article_chars`` characters."""
        s = self.settings
        found = first = None
        for attempt, skip in enumerate((True, False), 1):
            scores, unlikely = scoring.score(order, st, body, skip, s)
            top, top_score = scoring.choose(scores, st, body, s)
            if top is None:
                continue
            chosen = scoring.siblings(top, top_score, scores, st, body, s)
            if s.cousins:
                chosen = scoring.cousins(top, top_score, chosen, scores, body, s)
            found = top, top_score, chosen, scores, attempt
            first = first or found
            kept = set(chosen)
            likely = sum(st[c].chars for c in chosen) - sum(
                st[u].chars for u in unlikely if any(a in kept for a in u.iterancestors()))
            if any(a in unlikely for c in chosen for a in (c, *c.iterancestors())):
                likely = 0
            if likely >= s.min_article_chars:
                break
        return first, found

    def _find(self, order, st, body, kind: str, ctx) -> Found | None:
        """The pass whose choice is kept; None when no paragraph scores."""
        first, found = self._passes(order, st, body)
        if (found is not first and first is not None and found is not None and kind not in POSTS_ARE_CONTENT
                and any(comment_thread(a, names=thread_names(kind)) for a in (found[0], *found[0].iterancestors()))):
            # A short story under a long comment thread: the second pass, over every paragraph, found
            # a comment; the story is the first pass's block, however short.
            ctx.note("first-pass", first[0], "the second pass chose a block inside a comment thread; "
                                             "the first pass's block is the story",
                     measured={"chars": sum(st[c].chars for c in first[2])},
                     threshold={"min_article_chars": self.settings.min_article_chars})
            found = first
        return found

    def apply(self, page, ctx) -> None:
        s = self.settings
        body = dom.body_of(page.root)
        order, st = scoring.stats(body)
        if body not in st:
            ctx.note("skip", body, "no text in <body>; page left unchanged")
            return
        # The page type from the page as the chain left it (what the ignore filter dropped, e.g. the
        # declared types of JSON-LD, is not read: measured, the reader's F1 was lower with them on
        # wcxb-dev) but for its add-to-cart control, which ignore removes with the other
        # buttons and forms: that is read from the page as parsed, as are the headline and byline
        # (pagesieve.analysis.pagemeta). Measured on wcxb-dev: collection .705 -> .713, product +.002.
        meta = pagemeta.of(page)
        kind = detect(page.root, page.url, cart=meta.cart)
        ctx.note("page-type", body, f"page type: {kind.kind} ({kind.why()})",
                 measured={k: round(v, 2) for k, v in kind.scores.items()}, kind=kind.kind)
        headline = meta.headline if s.headline else None
        byline = meta.byline if s.headline else None
        found = self._find(order, st, body, kind.kind, ctx)
        if found is None:
            ctx.note("skip", body, "no paragraph of at least min_paragraph_chars; page left unchanged",
                     threshold={"min_paragraph_chars": s.min_paragraph_chars})
            return
        top, top_score, chosen, scores, attempt = found
        choice = Choice(top, top_score, chosen, sum(st[c].chars for c in chosen))
        facts = Facts(s, body, st, scores, kind, attempt, semantic_main(page.root) if s.main_share else None)
        for widen in WIDENINGS:
            widen(choice, facts, ctx)
        top, top_score, chosen, chars = choice.top, choice.top_score, choice.chosen, choice.chars
        container = _common_ancestor(chosen)
        ctx.note("select", chosen[0], f"best-scored content block (pass {attempt}); {len(chosen)} node(s) kept",
                 measured={"score": round(top_score, 2), "chars": chars,
                           "link_density": round(sum(st[c].link for c in chosen) / chars, 3) if chars else 0},
                 threshold={"min_article_chars": s.min_article_chars, "sibling_ratio": s.sibling_ratio})
        ctx.set_article(container)  # before removing: the loss guard then protects what is kept
        cleanup.prune(body, chosen, st, ctx)
        if s.clean:
            # found only on the pass over every paragraph and mostly links: a page of linked items (a
            # listing the page type did not see), whose lists are the content the choice holds
            links_are_content = attempt > 1 and sum(st[c].link for c in chosen) > s.main_link_density * chars
            cleanup.clean(page, chosen, top, top_score, st, scores, chars, ctx, s, kind.kind, links_are_content)
        cleanup.reveal_tab_panels(chosen, ctx)
        cleanup.drop_copies(chosen, st, ctx)
        if headline is not None:
            cleanup.put_headline(body, chosen, headline, byline, ctx)


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
