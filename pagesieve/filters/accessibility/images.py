"""Images and figures (WCAG 1.1.1): text alternatives for images that have none, blank ones made
empty, and captions of figures whose image is gone removed."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from lxml import etree
from lxml.html import HtmlElement

from pagesieve.core import dom
from pagesieve.filters.accessibility.shared import WS, Doc, shorten

if TYPE_CHECKING:
    from pagesieve.filters.accessibility import AccessibilitySettings

#: What makes a <figure> more than a caption.
FIGURE_MEDIA = etree.XPath(".//img | .//picture | .//svg | .//video | .//audio | .//canvas | .//iframe | "
                           ".//object | .//embed | .//table | .//pre | .//code | .//blockquote | .//math")


#: A caption handed on to this many pictures or more is a gallery's label (alt_text): two photos may share
#: one credit line, each read with it; 23 screenshots under one heading are not 23 things to hear alike.
GALLERY_LABEL_PICTURES = 3


def alt_text(doc: Doc, ctx, s: AccessibilitySettings) -> None:
    """An ``<img>`` without ``alt`` (setting ``image_alt``): ``alt=""`` when decorative, else its
    figure's caption, else the caption a reader chain took out of the text around it, else its ``title``."""
    if not s.image_alt:
        return
    body, taken = doc.body, doc.captions
    # A caption taken out of the text that GALLERY_LABEL_PICTURES or more pictures share is a gallery's
    # label ("Trailers & Screenshots 1 of 23"), not what each one shows: the first picture is given it,
    # the others are passed by (alt=""), so a screen reader says it once, not once a picture.
    labels = Counter(WS.sub(" ", text).strip() for text in taken.values())
    labelled: set[str] = set()
    for img in body.iter("img"):
        if img.get("alt") is not None or img.get("aria-label") or img.get("aria-labelledby"):
            continue
        role = (img.get("role") or "").strip().lower()
        width, height = dom.px(img.get("width")), dom.px(img.get("height"))
        if role in ("presentation", "none") or (img.get("aria-hidden") or "").strip().lower() == "true":
            alt, source = "", "decorative by its role or aria-hidden"
        elif width is not None and height is not None and max(width, height) <= s.decorative_max_px:
            alt, source = "", "decorative spacer or tracking pixel"
        elif any(n is not None and n <= s.decorative_max_px for n in (width, height)):
            alt, source = "", "decorative rule or spacer (a few pixels high or wide shows no picture)"
        elif dom.SPACER_FILE.search(dom.url_path(img.get("src") or "")):
            alt, source = "", "decorative spacer (by its file name)"
        else:
            alt, source = _caption(img), "from the figure caption"
            if not alt and taken.get(img):
                # the caption an earlier filter took out of the text around it (main_content's captions)
                alt, source = WS.sub(" ", taken[img]).strip(), "from its caption (taken out of the text)"
                if labels[alt] >= GALLERY_LABEL_PICTURES and alt in labelled:
                    alt, source = "", "passed by: the gallery's label its first picture was given"
                    img.set("alt", alt)
                    ctx.note("alt", img, f"alt set: {source} (WCAG 1.1.1)", measured={"alt": alt})
                    continue
                labelled.add(alt)
            if not alt:
                alt, source = WS.sub(" ", img.get("title") or "").strip(), "from the title attribute"
            if not alt:
                ctx.note("alt", img, "image without alt and without a caption or title; left as it is")
                continue
            alt = shorten(alt, s.alt_max_chars)
        img.set("alt", alt)
        ctx.note("alt", img, f"alt set: {source} (WCAG 1.1.1)", measured={"alt": alt},
                 threshold={"decorative_max_px": s.decorative_max_px} if "pixel" in source else None)


def blank_alts(doc: Doc, ctx, s: AccessibilitySettings) -> None:
    """``alt=" "`` (blank, not empty) means "decoration" but some screen readers read the file name
    then (axe ``image-alt``): it becomes ``alt=""``."""
    if not s.image_alt:
        return
    body = doc.body
    for img in body.iter("img"):
        alt = img.get("alt")
        if alt and not alt.strip():
            img.set("alt", "")
            ctx.note("alt", img, "blank alt made empty: decoration (WCAG 1.1.1; axe image-alt)")


def orphan_captions(doc: Doc, ctx, s: AccessibilitySettings) -> None:
    """A ``<figcaption>`` whose figure lost its image (to an earlier filter) and holds nothing else
    describes nothing: removed (setting ``orphan_captions``)."""
    if not s.orphan_captions:
        return
    body = doc.body
    for fig in list(body.iter("figure")):
        caps = [c for c in fig if isinstance(c.tag, str) and c.tag == "figcaption"]
        # Whatever else is left (a poem in <p>s, a credit line) is what the caption describes.
        rest = dom.text_len(fig) - sum(dom.text_len(c) for c in caps)
        if caps and not rest and not FIGURE_MEDIA(fig):
            for cap in caps:
                ctx.remove(cap, "caption of a figure whose image is gone", measured={"chars": dom.text_len(cap)})


def _caption(img: HtmlElement) -> str:
    fig = next(img.iterancestors("figure"), None)
    if fig is None:
        return ""
    cap = fig.find(".//figcaption")
    return dom.text_of(cap) if cap is not None else ""
