"""Images a page loads by script, made loadable without it (what a reader view does before it judges images).

Many pages put an image's real address in ``data-src``, ``data-srcset``, ``data-lazy-src``,
``data-original`` (or ``<picture><source data-srcset>``) behind a placeholder ``src`` — a 1x1 GIF, a
small inline SVG or base64 data URL, a ``blank.gif`` — or none, and a script copies the address in
when the image scrolls into view. With the page's scripts removed nothing does, and the picture is
gone. Mozilla Readability's ``_fixLazyImages`` fixes such images before it scores anything; this is
the same rule, with the lazy-loading attributes of the common libraries named first:

* a ``src`` that is a placeholder (a ``data:`` URL of a few bytes, or a spacer file) is dropped when the
  element holds an image address in another attribute (Readability: a base64 image under 133
  characters; SVG placeholders too, when a lazy address stands beside them);
* an ``<img>``, ``<picture>`` or ``<source>`` without a loadable ``src``/``srcset`` (or with "lazy" in
  its class, whose ``src`` is then a low-quality stand-in) gets its lazy address: an attribute that
  holds a list of image candidates (``a.jpg 1x, b.jpg 2x``) becomes its ``srcset``, one that holds
  one image address its ``src``; a ``<figure>`` with such an attribute and no image gets an ``<img>``;
* a ``<noscript>`` that only holds the script-less copy of the image just before (or after) it is its
  fallback: a lazy twin that found no address of its own takes the fallback's (keeping its alt, class
  and place), and the fallback goes once the twin loads — one visible image, never two and never
  none (Readability's ``_unwrapNoscriptImages`` likewise puts the fallback's image in the twin's place);
* a ``<noscript>`` that only holds pictures its parent already shows outside it (the same files, at any
  size: a shop's gallery slide holds the script-less copy beside the one its script would enlarge) is
  a copy too (:func:`shown_beside`): shown, every picture would stand twice.

Nothing here reaches the network: addresses are copied, never fetched. Changes go through the
filter's context (``ctx.set_attr``, ``ctx.insert``, ``ctx.remove``): explained and undoable.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from lxml.html import HtmlElement

from pagesieve.core import dom

#: The attributes lazy-loading libraries keep an image's one address in (lazysizes, WordPress's
#: lazy-load plugins, jQuery lazyload, lozad ...), tried first and in this order.
LAZY_SRC_ATTRS = ("data-src", "data-lazy-src", "data-original", "data-lazy", "data-original-src",
                  "data-hi-res-src", "data-fallback-src", "data-wpfc-original-src", "data-actualsrc", "data-ll-src")
#: The attributes they keep an image's candidate list (``srcset``) in.
LAZY_SRCSET_ATTRS = ("data-srcset", "data-lazy-srcset", "data-original-srcset", "data-wpfc-original-srcset")
#: A value that is a list of image candidates (Readability: an image file, then a width or density).
SRCSET_VALUE = re.compile(r"\.(?:jpe?g|png|webp|gif|avif)\S*\s+\d", re.I)
#: A value that is one image address (Readability's rule, with GIF and AVIF).
SRC_VALUE = re.compile(r"^\s*\S+\.(?:jpe?g|png|webp|gif|avif)\S*\s*$", re.I)
#: A base64 ``data:`` image whose payload is shorter than this is a placeholder (Readability: under
#: 100 bytes, 133 characters once encoded, is too small to be a picture).
PLACEHOLDER_B64_CHARS = 133
#: A non-base64 ``data:`` image (an inline SVG) shorter than this, beside a lazy address, is a placeholder:
#: an empty ``<svg>`` with a view box keeps the space, it draws nothing.
PLACEHOLDER_DATA_CHARS = 400
#: File names of the stand-ins lazy-loading plugins show until the script swaps the address in
#: ("lazyload-placeholder.png", "loading.gif", "grey.gif"), besides the spacers of :data:`pagesieve.core.dom.SPACER_FILE`.
PLACEHOLDER_FILE = re.compile(r"(?:^|/)(?:[^/]*(?:placeholder|lazy|loading|loader|spinner)[^/]*|"
                              r"(?:blank|pixel|transparent|gr[ae]y|empty)[-_]?\d*)\.(?:gif|png|svg|jpe?g|webp)$", re.I)
_B64 = re.compile(r"^\s*data:\s*([^\s;,]+)[^,]*?;\s*base64\s*,", re.I)
_NOT_URL = frozenset({"src", "srcset", "alt", "class", "id", "style", "title", "width", "height", "sizes",
                      "loading", "decoding"})


@dataclass
class Result:
    """What :func:`fix` changed: images given their lazy address, placeholders dropped, ``<noscript>``
    fallbacks dropped beside their lazy twin, twins that took their fallback's address."""

    fixed: int = 0
    placeholders: int = 0
    fallbacks_dropped: int = 0
    from_fallback: int = 0

    def counts(self) -> dict[str, int]:
        return {k: v for k, v in (("lazy image (address set)", self.fixed),
                                  ("lazy image placeholder", self.placeholders),
                                  ("lazy image (address from its noscript fallback)", self.from_fallback),
                                  ("noscript fallback of a lazy image", self.fallbacks_dropped)) if v}


def is_placeholder(value: str | None) -> bool:
    """Whether an image address is a stand-in: empty, a tiny ``data:`` image, or a spacer file."""
    if value is None:
        return True
    if len(value) > _CACHED_CHARS:
        return _placeholder(value)
    return _cached_placeholder(value)


#: Addresses up to this long are remembered with their answer (an image's addresses are asked about two or
#: three times a page, and pages share their spacers); a longer one (an inline image) is judged each time.
#: The last _CACHED_ADDRESSES of them: a few pages' images.
_CACHED_CHARS = 1000
_CACHED_ADDRESSES = 512


def _placeholder(value: str) -> bool:
    """:func:`is_placeholder` of an address (a pure function of the string)."""
    if not value.strip():
        return True
    v = value.strip()
    if v[:5].lower() == "data:":
        m = _B64.match(v)
        if m is not None:
            return len(v) - m.end() < PLACEHOLDER_B64_CHARS
        return len(v) < PLACEHOLDER_DATA_CHARS
    path = dom.url_path(v)
    return dom.SPACER_FILE.search(path) is not None or PLACEHOLDER_FILE.search(path) is not None


_cached_placeholder = functools.lru_cache(maxsize=_CACHED_ADDRESSES)(_placeholder)


def loadable(el: HtmlElement) -> bool:
    """Whether an ``<img>``/``<source>`` has an address a browser loads a picture from without scripts."""
    return not is_placeholder(el.get("src")) or not is_placeholder(el.get("srcset"))


def lazy_address(el: HtmlElement) -> tuple[str, str] | None:
    """(``src`` or ``srcset``, value): the address a lazy-loading script would have set, if ``el`` holds one."""
    if not any(name.startswith("data-") for name in el.keys()):
        return None  # every attribute read below is a data-* one (most images: src, alt and sizes only)
    for name in LAZY_SRCSET_ATTRS:
        value = (el.get(name) or "").strip()
        if value and not is_placeholder(value.split(",")[0].split()[0]):
            return "srcset", value
    for name in LAZY_SRC_ATTRS:
        value = (el.get(name) or "").strip()
        if value and not is_placeholder(value) and not value.lower().startswith(("javascript:", "data:")):
            return "src", value
    for name, value in el.items():  # any other attribute holding an image address (Readability)
        if name in _NOT_URL or not name.startswith("data-"):
            continue
        if SRCSET_VALUE.search(value):
            return "srcset", value.strip()
        if SRC_VALUE.match(value) and not is_placeholder(value):
            return "src", value.strip()
    return None


def _is_lazy(el: HtmlElement) -> bool:
    return "lazy" in (el.get("class") or "").lower()


def _fix_one(el: HtmlElement, ctx, result: Result) -> bool:
    """Give ``el`` (an ``<img>`` or ``<source>``) its lazy address; True if it changed."""
    found = lazy_address(el)
    if found is None:
        return False
    if loadable(el) and not _is_lazy(el):
        return False
    name, value = found
    if el.get(name) == value:
        _mark_loaded(el, ctx)  # the address is in place: the loader's hiding style must not apply
        return False
    for attr in ("src", "srcset"):
        if attr != name and el.get(attr) is not None and is_placeholder(el.get(attr)):
            ctx.set_attr(el, attr, None)  # a stand-in left beside the address would be shown instead
            result.placeholders += 1
    ctx.set_attr(el, name, value)
    if name == "srcset" and el.tag == "img" and is_placeholder(el.get("src")):
        first = value.split(",")[0].split()
        if first:
            ctx.set_attr(el, "src", first[0])  # a src too, for clients that ignore srcset
    _mark_loaded(el, ctx)
    return True


#: The attributes a lazy loader reads the display size from (copied to ``sizes``).
LAZY_SIZES_ATTRS = ("data-sizes", "data-lazy-sizes")


def _mark_loaded(el: HtmlElement, ctx) -> None:
    """Make ``el`` look loaded to the page's style sheet: the lazy loaders' style sheets hide an image
    until their script has swapped its address in (``img[data-lazy-src]{opacity:0}``,
    ``.lazyload{opacity:0}``), so with the address set and no script to come, the lazy attributes and
    the lazy class names go (their display size is kept as ``sizes``). The hiding rule may also name
    the ``<picture>`` around the image (``.lazysize img{opacity:0}``): its lazy class names go too. And
    the image gets the class the loader sets when the picture has come (:data:`LOADED_CLASS`), which
    the same style sheets show it by (``.lazysize img.lazyloaded{opacity:1}``)."""
    sizes = next((el.get(a) for a in LAZY_SIZES_ATTRS if (el.get(a) or "").strip() not in ("", "auto")), None)
    if sizes is not None and el.get("sizes") is None:
        ctx.set_attr(el, "sizes", sizes)
    for name in (*LAZY_SRC_ATTRS, *LAZY_SRCSET_ATTRS, *LAZY_SIZES_ATTRS):
        if el.get(name) is not None:
            ctx.set_attr(el, name, None)
    _drop_lazy_classes(el, ctx, LOADED_CLASS if el.tag == "img" else None)
    parent = el.getparent()
    if parent is not None and parent.tag == "picture":
        _drop_lazy_classes(parent, ctx)


#: The class lazysizes (and the WordPress loaders built on it) gives an image once its picture has
#: loaded, in place of ``lazyload``: the loaders' style sheets show the image by it.
LOADED_CLASS = "lazyloaded"


def _drop_lazy_classes(el: HtmlElement, ctx, loaded: str | None = None) -> None:
    """Take the class names that say "lazy" off ``el`` (and add ``loaded``, when given)."""
    names = (el.get("class") or "").split()
    kept = [n for n in names if "lazy" not in n.lower()]
    if loaded is not None:
        kept.append(loaded)
    if kept != names:
        ctx.set_attr(el, "class", " ".join(kept) or None)


def _fallback_image(noscript: HtmlElement) -> HtmlElement | None:
    """The one image a ``<noscript>`` holds when that is all it holds (no text), else None."""
    if dom.text_len(noscript):
        return None
    images = [el for el in noscript.iter("img")]
    if len(images) != 1:
        return None
    others = [el for el in noscript.iter(dom.ELEMENT) if el is not noscript and el.tag not in ("img", "picture", "source")]
    return None if others else images[0]


def _adjacent(node: HtmlElement, preceding: bool) -> HtmlElement | None:
    """The element just before (or after) ``node`` among its siblings, comments passed over."""
    return next((sib for sib in node.itersiblings(preceding=preceding) if isinstance(sib.tag, str)), None)


def _twin(noscript: HtmlElement) -> HtmlElement | None:
    """The lazy image a fallback ``<noscript>`` stands for: its sibling just before (or after) it, an
    ``<img>`` or a ``<picture>``, with a lazy address or without a loadable one."""
    for sibling in (_adjacent(noscript, True), _adjacent(noscript, False)):
        if sibling is None or sibling.tag not in ("img", "picture"):
            continue
        img = sibling if sibling.tag == "img" else sibling.find(".//img")
        if img is not None and (lazy_address(img) is not None or not loadable(img)):
            return sibling
    return None


def fix(root: HtmlElement, ctx) -> Result:
    """Make the lazy images under ``root`` loadable without scripts (see the module doc). Call it when
    the page's scripts are removed, before its ``<noscript>`` content is shown and before anything
    judges images."""
    result = Result()
    twins: dict[HtmlElement, HtmlElement] = {}  # noscript -> its lazy twin
    for noscript in root.iter("noscript"):
        if _fallback_image(noscript) is not None:
            twin = _twin(noscript)
            if twin is not None:
                twins[noscript] = twin
    for el in list(root.iter("img", "source", "figure")):
        if el.tag == "figure":
            if el.find(".//img") is None and el.find(".//picture") is None and next(
                    (n for n in el.iterancestors("noscript")), None) is None:
                found = lazy_address(el)
                if found is not None:
                    ctx.insert(el, 0, dom.element("img", {found[0]: found[1], "alt": ""}))
                    result.fixed += 1
            continue
        if next(el.iterancestors("noscript"), None) is not None:
            continue  # a fallback's own image: left as it is
        if el.tag == "source" and (el.getparent() is None or el.getparent().tag != "picture"):
            continue
        if _fix_one(el, ctx, result):
            result.fixed += 1
    for noscript, twin in twins.items():
        img = twin if twin.tag == "img" else twin.find(".//img")
        fallback = _fallback_image(noscript)
        if img is None or fallback is None:
            continue
        if not loadable(img) and loadable(fallback):
            # no lazy address the twin could take: the fallback's address, in the twin's place (its
            # alt, class and position stay)
            for attr in ("src", "srcset"):
                if fallback.get(attr) is not None or img.get(attr) is not None:
                    ctx.set_attr(img, attr, fallback.get(attr))
            if twin.tag == "picture":
                for source in twin.iter("source"):
                    if source.get("srcset") is not None and not loadable(source):
                        ctx.set_attr(source, "srcset", None)  # a source without srcset is passed over
            _mark_loaded(img, ctx)
            result.from_fallback += 1
        if loadable(img):
            ctx.remove(noscript, "<noscript> fallback of a lazy image that loads without scripts now", explain=False)
            result.fallbacks_dropped += 1
    return result


def _files(img: HtmlElement) -> set[str]:
    """The picture files an ``<img>`` names (``src`` and ``srcset``), without scheme, query or fragment."""
    out = set()
    for value in (img.get("src"), *(c.split()[0] for c in (img.get("srcset") or "").split(",") if c.split())):
        if value and not is_placeholder(value):
            out.add(value.strip().split("#")[0].split("?")[0].split("//", 1)[-1])
    return out


def shown_beside(noscript: HtmlElement, seen: dict[HtmlElement, set[str]]) -> bool:
    """Whether ``noscript`` holds pictures and nothing else to read, and its parent shows each of them
    already outside every ``<noscript>`` (a loadable ``<img>`` of the same file): the script-less copy.
    ``seen`` keeps each parent's files, read once (a page of many ``<noscript>`` under one parent)."""
    parent = noscript.getparent()
    pictures = list(noscript.iter("img"))
    if parent is None or not pictures or dom.text_len(noscript):
        return False
    shown = seen.get(parent)
    if shown is None:
        shown = seen[parent] = set()
        for img in parent.iter("img"):
            if loadable(img) and next(img.iterancestors("noscript"), None) is None:
                shown |= _files(img)
    return bool(shown) and all(_files(img) and _files(img) <= shown for img in pictures)
