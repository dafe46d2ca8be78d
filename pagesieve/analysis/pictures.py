"""Which pictures of a page are the story's own: set in the text, not a teaser of another page, not a
thumbnail or a control, and saying what they show to someone who cannot see them.

Filters that take blocks away (captions, galleries, unrelated images) ask these questions before a
picture goes with its block, so that the story keeps its pictures."""

from __future__ import annotations

from lxml.html import HtmlElement

from pagesieve.core import dom

#: A picture with a declared side under this (px) is an icon or a thumbnail, not a picture of the story (what
#: the filters that keep the story's pictures pass as ``min_px``).
STORY_PICTURE_PX = 100
#: The ends of an address that is a picture's own file (a link to the full-size picture is no link elsewhere).
_PICTURE_FILE = (".jpg", ".jpeg", ".png", ".gif", ".webp", ".avif", ".svg", ".bmp")


def has_alternative(img: HtmlElement) -> bool:
    """Whether ``img`` says what it shows to someone who cannot see it: an ``alt`` (empty: decoration),
    a ``title``, an ARIA name, or the caption of its ``<figure>``. A picture without one is judged by
    its caption as before: kept, it would be read out as its file name."""
    if img.get("alt") is not None or (img.get("title") or "").strip():
        return True
    if (img.get("aria-label") or "").strip() or img.get("aria-labelledby"):
        return True
    figure = next(img.iterancestors("figure"), None)
    return figure is not None and any(dom.text_of(c) for c in figure.iter("figcaption"))


def opens_picture(link: HtmlElement) -> bool:
    """Whether the link ``link`` leads to a picture file (the full-size picture of a thumbnail), not a page."""
    return dom.url_path((link.get("href") or "").strip()).lower().endswith(_PICTURE_FILE)


def gallery(node: HtmlElement, min_links: int = 2) -> bool:
    """Whether ``node``'s links (``min_links`` or more) each show a picture and open a picture file, with no
    words of their own: the story's gallery of thumbnails, not a list of links to other pages."""
    links = [a for a in node.iter("a") if a.get("href") is not None]
    return len(links) >= min_links and all(
        opens_picture(a) and next(a.iter("img"), None) is not None and not dom.text_len(a) for a in links)


def enlarged_picture(node: HtmlElement, min_px: int) -> bool:
    """Whether ``node`` holds a picture of the story (see :func:`story_picture`) inside a link, without
    words, that opens the picture's own file (a lightbox's full-size view): the block is the story's
    picture, whatever share buttons stand beside it ("Pin it", "Share"), not a list of links."""
    for a in node.iter("a"):
        if a.get("href") is None or not opens_picture(a) or dom.text_len(a):
            continue
        if any(story_picture(img, min_px) and not in_control(img) for img in a.iter("img")):
            return True
    return False


def unlinked_picture(node: HtmlElement, min_px: int) -> bool:
    """Whether ``node`` holds a picture of the story (see :func:`story_picture`) outside every link and
    not beside one in the same element: a product's photo, a figure; not a banner or a logo, which
    lead somewhere, nor the icon before a link's name ("[icon] Digg")."""
    for img in node.iter("img"):
        if not story_picture(img, min_px) or in_control(img) or next(img.iterancestors("a"), None) is not None:
            continue
        parent = img.getparent()
        if parent is None or not any(a.get("href") is not None for a in parent.iter("a")):
            return True
    return False


def story_picture(img: HtmlElement, min_px: int) -> bool:
    """Whether ``img`` is a picture set in the story: not inside a link to another page (a link to a
    picture file is the picture's own) and without a declared width or height under ``min_px``."""
    link = next((a for a in img.iterancestors("a") if a.get("href") is not None), None)
    if link is not None and not opens_picture(link):
        return False
    for attr in ("width", "height"):
        size = dom.px(img.get(attr))
        if size is not None and size < min_px:
            return False
    return True


#: Roles of an element that is a control: a picture inside one is its face (a carousel's slide button, a
#: tab), not a picture of the story.
CONTROL_ROLES = frozenset({"button", "tab", "menuitem", "option", "switch"})


def in_control(img: HtmlElement) -> bool:
    """Whether ``img`` is the face of a control: inside a ``<button>`` or an element whose role is one."""
    return any(a.tag == "button" or (a.get("role") or "").strip().lower() in CONTROL_ROLES
               for a in img.iterancestors())
