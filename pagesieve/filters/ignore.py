"""``ignore``: the paper's first set of filters — drop whole kinds of tags or attributes.

Source: dom-and-nlp-content-extraction-proxy.txt, "Extractor Settings" (Figure 1): ignore
scripts (optionally showing ``<noscript>`` content instead, but for a copy of text the page already shows), styles, style attributes, non-link
images (optionally showing their ALT text), image links, text links, forms, ``<input>``,
``<button>``, ``<select>``, ``<meta>``, ``<iframe>``, ``<embed>``/``<object>``, table cell widths.
The defaults are the ones ticked in that figure; presets change them (``declutter`` keeps images).

Ignoring scripts means that no script runs: besides ``<script>`` elements, event-handler
attributes (``on*``), ``srcdoc``, script URLs (``javascript:``, ``vbscript:``, HTML/XML/SVG
``data:`` documents outside images) in any attribute, SVG animations that would set a handler or
a link, and a ``<meta http-equiv=refresh>`` to a script URL go (a link keeps its text); the page
then asks to be served with a Content-Security-Policy that forbids scripts (``script-src
'none'``; ``object-src 'none'`` too when embeds are ignored), in a ``<meta>`` and, through the
proxy, a header — so whatever a filter misses cannot run either. All of that is the filter's secure
step (:meth:`IgnoreFilter.secure`), run before the rest and never undone by the article-loss guard
or by a failure of the rest: none of it is text a reader sees.
"""

from __future__ import annotations

from copy import deepcopy
from dataclasses import dataclass

from lxml import etree
from lxml.html import HtmlElement

from pagesieve.analysis import disclosures, entrance, inline_styles, lazy_images, noscript_styles, pagemeta, streamed
from pagesieve.analysis.inline_styles import HIDDEN_STYLE, hidden_style  # noqa: F401 - also the filter's
from pagesieve.analysis.inline_styles import xpath_translate as _translate
from pagesieve.core import dom
from pagesieve.core.measure import ATTRS
from pagesieve.core.settings import setting
from pagesieve.filters.base import Filter

# <meta> that keep a page usable or safe: a Content-Security-Policy (the page's own only narrows what
# may run; ours is among them), its encoding (re-declared on output anyway), the mobile
# viewport (zoom and reflow for low-vision users depend on it) and the colour scheme (a page that
# declares "dark" gets light default text from the browser: without it, its own dark background
# would be left under black text; axe color-contrast). These are never ignored.
KEPT_META = etree.XPath("self::meta[@charset or translate(@name,'VIEWPORT','viewport')='viewport' "
                        "or translate(@name,'COLRSHEM','colrshem')='color-scheme' "
                        "or translate(@http-equiv,'CONTENT-TYPE','content-type')='content-type' "
                        "or translate(@http-equiv,'CONTENT-SECURITYPOLICY','content-securitypolicy')"
                        "='content-security-policy']")
# KEPT_META and HIDDEN_STYLE (analysis.inline_styles) in Python, for the loops that ask them of every <meta> and every styled element: an
# XPath evaluated on one element costs a few microseconds of set-up, str.translate well under one
# (tests/filters/test_ignore.py checks both against the XPaths).


_VIEWPORT = _translate("VIEWPORT", "viewport")
_COLOR_SCHEME = _translate("COLRSHEM", "colrshem")
_CONTENT_TYPE = _translate("CONTENT-TYPE", "content-type")
_POLICY = _translate("CONTENT-SECURITYPOLICY", "content-securitypolicy")


def kept_meta(meta: HtmlElement) -> bool:
    """:data:`KEPT_META` of a ``<meta>``."""
    if meta.get("charset") is not None:
        return True
    name = meta.get("name")
    if name is not None and (name.translate(_VIEWPORT) == "viewport"
                             or name.translate(_COLOR_SCHEME) == "color-scheme"):
        return True
    equiv = meta.get("http-equiv")
    return equiv is not None and (equiv.translate(_CONTENT_TYPE) == "content-type"
                                  or equiv.translate(_POLICY) == "content-security-policy")


#: Attributes that may run script: handlers, srcdoc, and any value holding a script or data URL
#: (selected in C; :func:`_runs_script` decides on each).
SCRIPT_ATTRIBUTES = etree.XPath(
    "//@*[starts-with(name(), 'on') or name() = 'srcdoc' "
    "or contains(translate(., 'SCRIPTDA', 'scriptda'), 'script:') or contains(translate(., 'DATA', 'data'), 'data:')]")
#: URL schemes that run script when navigated to or loaded (after tab/newline removal, lowercased).
#: translate(., 'SCRIPTDA', 'scriptda') of the XPath above.
_SCRIPTDA = str.maketrans("SCRIPTDA", "scriptda")
#: Elements whose content a browser never shows: a frame's content is a raw string to it (an
#: object's fallback, by contrast, shows when the object cannot). Their removal is not counted as
#: article text lost.
UNSHOWN_TAGS = frozenset({"iframe", "frame"})
#: Raw-text elements inside SVG or MathML that still hold markup after parsing (see secure()).
_FOREIGN_RAW_MARKUP = etree.XPath("(//svg | //math)//*[self::style or self::title or self::textarea or self::xmp "
                                  "or self::iframe or self::noembed or self::noframes or self::noscript]"
                                  "[contains(., '<')]")
#: <div hidden> (React's streamed segments are among them), selected in C: most pages have none.


def script_attributes(root: HtmlElement) -> list[tuple[HtmlElement, str, str]]:
    """(element, attribute name, value) of the attributes that may run script, in document order
    (:func:`py_script_attributes`), read by the compiled walk where it is built: same answer, about
    ten times faster (tests/test_pagetable.py compares the two on corpus pages)."""
    if ATTRS is not None:
        return ATTRS.script_attributes(root)
    return py_script_attributes(root)


def py_script_attributes(root: HtmlElement) -> list[tuple[HtmlElement, str, str]]:
    """(element, attribute name, value) of the attributes :data:`SCRIPT_ATTRIBUTES` selects, in
    document order: names starting with "on", ``srcdoc``, values holding "script:" or "data:"
    (those letters in any case). One walk in Python: the XPath evaluates its string functions on
    every attribute of the page, ~4x slower. Each element's values are tested joined (one string
    search for all of them; NUL, which no test looks for, between them) and its names only when
    they do not hold a candidate: most elements are passed over without a loop over their attributes."""
    out = []
    for el in root.iter(dom.ELEMENT):
        values = el.values()
        if not values:
            continue
        joined = "\0".join(values)
        if not (":" in joined and ("t:" in joined or "a:" in joined or "T:" in joined or "A:" in joined)):
            names = " " + " ".join(el.keys())
            if " on" not in names and " srcdoc" not in names:
                continue
        for name, value in el.items():
            if (name.startswith("on") or name == "srcdoc"
                    or ((":" in value) and ("t:" in value or "a:" in value or "T:" in value or "A:" in value)
                        and ("script:" in (low := value.translate(_SCRIPTDA)) or "data:" in low))):
                out.append((el, name, value))
    return out


SCRIPT_SCHEMES = ("javascript:", "vbscript:", "livescript:")
#: data: documents a browser may run script in (as a frame, object or navigation; images never do).
SCRIPT_DATA_TYPES = ("data:text/html", "data:application/xhtml", "data:text/xml", "data:application/xml",
                     "data:image/svg+xml", "data:text/javascript", "data:application/javascript")
#: SVG animations whose target attribute is a handler or a link could set either at run time.
SVG_ANIMATIONS = ("animate", "set", "animatemotion", "animatetransform", "discard")
_URL_NOISE = {ord(c): None for c in "\t\n\r"}


@dataclass(frozen=True)
class IgnoreSettings:
    """Which kinds of tags and attributes to drop (the paper's "Ignore Settings" screen)."""

    scripts: bool = setting(True, "Remove <script> elements.", group="ignore", scope="user")
    # Sources: When scripts are removed, put content a page streams in a hidden <div id=S:n> (React's streamed server
    # rendering) where its script would have put it, in place of the <template id=B:n> placeholder and its loading
    # skeleton (else it stays hidden: a blank page).
    reveal_streamed: bool = setting(True, "When scripts are removed, show content that the page sends in pieces and "
                                          "its scripts would have put in place (else such a page stays blank).",
                                    group="ignore", scope="user")
    reveal_animated: bool = setting(True, "When scripts are removed, show text and pictures that the page leaves transparent "
                                          "(an opacity of 0 in their style attribute, marked data-aos for an "
                                          "animation library, or a part of the main block that the page's style "
                                          "sheet shows only once a script adds a class) for its scripts to fade in "
                                          "as they scroll into view, "
                                          "the blocks that hide the page's own headline for its scripts to show, "
                                          "a page that its own style sheet keeps out of sight as a whole until a "
                                          "script shows it, and, where style attributes are kept, a box folded "
                                          "shut by its style attribute that holds text, such as an FAQ's answer "
                                          "(else they stay invisible).",
                                    group="ignore", scope="user")
    lazy_images: bool = setting(True, "When scripts are removed, give images that a script would load (their "
                                      "address in data-src, data-srcset, data-lazy-src, data-original ...) that "
                                      "address, in place of their placeholder; a <noscript> copy beside such an image "
                                      "is then not shown a second time.", group="ignore", scope="user")
    app_shells: bool = setting(True, "When scripts are removed, serve a page whose content its scripts make (an "
                                     "empty app shell: a bare #root or #app, an \"enable JavaScript\" notice, the "
                                     "text only in a data blob) as it was sent, unfiltered, instead of the notice it "
                                     "shows without its scripts. Off: such pages are filtered like any other.",
                               group="ignore", scope="user")
    show_noscript: bool = setting(True, "When scripts are removed, show <noscript> content in their place "
                                        "(else remove it too).", group="ignore", scope="user")
    styles: bool = setting(False, "Remove <style> elements and linked style sheets.", group="ignore", scope="user")
    style_attributes: bool = setting(True, "Remove style attributes (an element hidden by its style stays hidden, "
                                           "one folded shut by a height of zero stays folded and an icon's small box "
                                           "keeps its size, unless it holds text a script was to open, such as an "
                                           "FAQ's answer; a background colour stays, with the text colour set "
                                           "beside it).",
                                     group="ignore", scope="user")
    style_attribute_tags: tuple[str, ...] = setting(("div",), "The tags whose style attribute is removed "
                                                              "(layout boxes: <div>); [\"*\"] means all.", group="ignore", scope="preset")
    non_link_images: bool = setting(True, "Remove images that are not inside a link.", group="ignore", scope="user")
    image_links: bool = setting(True, "Remove images inside links (and the link, if it has no text left).",
                                group="ignore", scope="user")
    display_alt_text: bool = setting(False, "Put a removed image's ALT text in its place.", group="ignore", scope="user")
    text_links: bool = setting(False, "Remove text links (the removed-links list can re-add them at the end).",
                               group="ignore", scope="user")
    forms: bool = setting(False, "Remove <form> elements with everything in them.", group="ignore", scope="user")
    # Sources: A <form> holding at least this many characters of text wraps page content (ASP.NET pages wrap the whole
    # body in one): it is replaced by a <div> of its content instead of removed, its controls going by the
    # inputs/buttons/selects settings (the paper's article threshold, 500).
    form_wrapper_chars: int = setting(500, "A form holding at least this many characters of text wraps the page's "
                                           "content: its content is kept (its controls follow the settings for "
                                           "inputs, buttons and lists) instead of removing it all.",
                                      minimum=0, group="ignore", scope="user")
    inputs: bool = setting(False, "Remove <input> and <textarea> elements.", group="ignore", scope="user")
    buttons: bool = setting(False, "Remove <button> elements. A button that titles the text it opens "
                                   "(an FAQ's question) leaves its words in its place.", group="ignore",
                          scope="user")
    selects: bool = setting(False, "Remove <select> elements.", group="ignore", scope="user")
    meta: bool = setting(True, "Remove <meta> elements (except charset and viewport, which keep the page usable).",
                         group="ignore", scope="user")
    iframes: bool = setting(True, "Remove <iframe> and <frame> elements.", group="ignore", scope="user")
    embeds: bool = setting(True, "Remove <embed>, <object> and <applet> elements.", group="ignore", scope="user")
    table_cell_widths: bool = setting(False, "Remove width attributes of tables and table cells.", group="ignore", scope="user")


class IgnoreFilter(Filter):
    name = "ignore"
    assigns = ("removed_links", "content_security_policy")
    Settings = IgnoreSettings
    summary = "Drop whole kinds of tags and attributes: scripts, styles, images, links, forms, meta, iframes, embeds."

    def __init__(self, settings: IgnoreSettings) -> None:
        super().__init__(settings)
        s = settings
        tags = []
        if s.scripts and not s.show_noscript:
            tags.append("noscript")
        if s.styles:
            tags.append("style")
        if s.forms:
            tags.append("form")
        if s.inputs:
            tags += ["input", "textarea"]
        if s.buttons:
            tags.append("button")
        if s.selects:
            tags.append("select")
        if s.iframes:
            tags += ["iframe", "frame"]
        if s.embeds:
            tags += ["embed", "object", "applet"]
        self._tags = tuple(tags)
        self.spares_app_shells = s.scripts and s.app_shells

    @property
    def secures(self) -> bool:
        return self.settings.scripts

    @classmethod
    def fail_safe_policy(cls, settings: IgnoreSettings) -> str | None:
        if not settings.scripts:
            return None
        return "script-src 'none'" + ("; object-src 'none'" if settings.embeds else "")

    def secure(self, page, ctx) -> None:
        """Everything that would run script goes, and the page asks for a policy that forbids
        scripts (see the module doc). Its own step: nothing in it is text a reader sees, so the
        article-loss guard never undoes it, nor does a failure of the rest of this filter."""
        root = page.root
        pagemeta.of(page)  # the headline, byline and declared types, read before <meta> and scripts go
        counts: dict[str, int] = {}
        for node in list(root.iter("script")):
            if ctx.remove(node, "<script> is ignored", explain=False, guarded=False):
                counts["script"] = counts.get("script", 0) + 1
        for node in _FOREIGN_RAW_MARKUP(root):
            # Left by the parser only when it could not be read as a browser reads it: markup a
            # browser would build inside SVG or MathML, which no filter here can see.
            if ctx.remove(node, f"<{node.tag}> holding markup inside SVG or MathML", explain=False, guarded=False):
                counts["foreign markup"] = counts.get("foreign markup", 0) + 1
        self._script_vectors(root, ctx, counts)
        if counts:
            ctx.note("remove", reason="what would run script", measured={"removed": counts})

    def apply(self, page, ctx) -> None:
        s = self.settings
        root = page.root
        pagemeta.of(page)  # the headline, byline and declared types, read before <meta> goes
        counts: dict[str, int] = {}
        forms = []
        if s.buttons and (kept := disclosures.keep_words(root, ctx)):  # an FAQ's questions stay, as headings
            counts["button (its words kept)"] = kept
        for node in list(root.iter(*self._tags)) if self._tags else ():
            if node.tag == "form":
                forms.append(node)  # last: controls inside a wrapper form go first
            elif ctx.remove(node, f"<{node.tag}> is ignored", explain=False, guarded=node.tag not in UNSHOWN_TAGS):
                counts[node.tag] = counts.get(node.tag, 0) + 1
        for node in forms:
            if not ctx.in_document(node):
                continue
            chars = ctx.text_len(node)
            if s.form_wrapper_chars and chars >= s.form_wrapper_chars:
                ctx.replace(node, dom.copy_as(node, "div"), "<form> wraps page content: its content is kept, the form goes",
                            measured={"text_chars": chars}, threshold={"form_wrapper_chars": s.form_wrapper_chars})
                counts["form (unwrapped)"] = counts.get("form (unwrapped)", 0) + 1
            elif ctx.remove(node, "<form> is ignored", explain=False):
                counts["form"] = counts.get("form", 0) + 1
        if s.scripts and s.reveal_streamed:
            revealed = streamed.reveal(root, ctx)
            if revealed:
                counts["streamed segment (revealed)"] = revealed
        if s.scripts and s.reveal_animated:
            shown = entrance.reveal(root, ctx)
            for label, n in zip(("page left out of sight (shown)", "transparent until a script adds a class (shown)"),
                                entrance.reveal_by_style_sheets(root, ctx)):  # the page's style sheets, read once
                if n:
                    counts[label] = n
            if shown:
                counts["transparent first frame (shown)"] = shown
            headline = pagemeta.of(page).headline
            if entrance.reveal_headline(root, headline and headline.element, ctx):
                counts["hidden headline (shown)"] = 1
        if s.scripts and s.lazy_images:
            counts.update(lazy_images.fix(root, ctx).counts())  # nothing will load them: their addresses now
        if s.scripts and s.show_noscript:
            self._show_noscripts(root, ctx)
        if s.styles:
            for link in list(root.iter("link")):
                if "stylesheet" in (link.get("rel") or "").lower():
                    if ctx.remove(link, "linked style sheet is ignored", explain=False):
                        counts["link[rel=stylesheet]"] = counts.get("link[rel=stylesheet]", 0) + 1
        if s.meta:
            for meta in list(root.iter("meta")):
                if not kept_meta(meta) and ctx.remove(meta, "<meta> is ignored", explain=False):
                    counts["meta"] = counts.get("meta", 0) + 1
        inline_styles.tidy(root, s.style_attribute_tags, ctx, drop_them=s.style_attributes,
                           open_folds=s.scripts and s.reveal_animated)
        if s.table_cell_widths:
            for node in list(root.iter("td", "th", "table", "col", "colgroup")):
                if node.get("width") is not None:
                    ctx.set_attr(node, "width", None)
        if s.non_link_images or s.image_links:
            self._images(root, ctx, counts)
        if s.text_links:
            for a in list(root.iter("a")):
                if a.get("href") is not None and dom.text_of(a):
                    if ctx.remove(a, "text link is ignored", explain=False):
                        counts["text link"] = counts.get("text link", 0) + 1
        if counts:
            ctx.note("remove", reason="kinds of tags this filter is set to ignore", measured={"removed": counts})


    def _script_vectors(self, root: HtmlElement, ctx, counts: dict[str, int]) -> None:
        """Remove what would run script without a <script> element, then ask for a policy that
        forbids scripts (see the module doc)."""
        for node in list(root.iter(*SVG_ANIMATIONS, "meta")):
            if node.tag == "meta":
                refresh = (node.get("http-equiv") or "").strip().lower() == "refresh"
                if refresh and _runs_script(node.get("content") or "", anywhere=True):
                    if ctx.remove(node, "<meta http-equiv=refresh> to a script URL", explain=False):
                        counts["script refresh"] = counts.get("script refresh", 0) + 1
                continue
            target = (node.get("attributename") or "").strip().lower()
            if (target.startswith("on") or target.endswith("href")) and ctx.remove(
                    node, "SVG animation of a handler or link is ignored with scripts", explain=False):
                counts["script animation"] = counts.get("script animation", 0) + 1
        for node, name, value in script_attributes(root):
            if name.startswith("on") or name == "srcdoc":
                kind = "event handler" if name.startswith("on") else "srcdoc"
            elif _runs_script(value, anywhere=name in ("values", "to", "from", "by", "content"),
                              image=node.tag == "img" and name in ("src", "srcset")):
                kind = "script URL"
            else:
                continue
            ctx.set_attr(node, name, None)
            counts[kind] = counts.get(kind, 0) + 1
        policy = "script-src 'none'" + ("; object-src 'none'" if self.settings.embeds else "")
        ctx.set_content_security_policy(policy)
        head = root.find("head")
        if head is not None:
            meta = dom.element("meta", {"http-equiv": "Content-Security-Policy", "content": policy})
            ctx.insert(head, 0, meta)

    def _images(self, root: HtmlElement, ctx, counts: dict[str, int]) -> None:
        s = self.settings
        for img in list(root.iter("img", "picture")):
            if not ctx.in_document(img):
                continue
            link = next(img.iterancestors("a"), None)
            if link is None and not s.non_link_images or link is not None and not s.image_links:
                continue
            kind = "image link" if link is not None else "non-link image"
            target = img.getparent() if img.getparent() is not None and img.getparent().tag == "picture" else img
            alt = (img.get("alt") or "").strip()
            if s.display_alt_text and alt:
                span = dom.element("span")
                span.text = alt
                ctx.replace(target, span, f"{kind} replaced by its ALT text")
            elif not ctx.remove(target, f"{kind} is ignored", explain=False):
                continue
            counts[kind] = counts.get(kind, 0) + 1
            if link is not None and not dom.text_of(link) and ctx.in_document(link):
                ctx.remove(link, "image link left with no text", explain=False)

    def _show_noscripts(self, root: HtmlElement, ctx) -> None:
        """The page as it reads without scripts, its pictures loaded: each ``<noscript>``'s content in its
        place, but for a copy of pictures shown beside it or of text the page already shows."""
        noscripts = list(root.iter("noscript"))
        noscript_styles.prune_all([st for node in noscripts for st in node.iter("style")], root, ctx)
        page_text: str | None = None
        seen: dict[HtmlElement, set[str]] = {}
        for node in noscripts:
            if lazy_images.shown_beside(node, seen):
                ctx.remove(node, "<noscript> copy of pictures the page already shows beside it", explain=False)
                continue
            text = dom.text_of(node)
            if len(text) >= NOSCRIPT_COPY_CHARS:
                if page_text is None:
                    page_text = dom.text_of(root)
                if page_text.count(text[:NOSCRIPT_COPY_CHARS]) > 1:
                    # the page already shows this text outside the <noscript>: its script-less copy
                    ctx.remove(node, "<noscript> copy of text the page already shows",
                               measured={"chars": len(text)}, threshold={"copy_chars": NOSCRIPT_COPY_CHARS})
                    continue
            self._unwrap(node, ctx)

    def _unwrap(self, node: HtmlElement, ctx) -> None:
        """Replace <noscript> by a copy of its content (what a browser without scripts shows);
        in <head>, where a <span> cannot go, its style sheets take its place and the rest goes."""
        if any(a.tag == "head" for a in node.iterancestors()):
            parent, at = node.getparent(), node.getparent().index(node)
            for k, sheet in enumerate(s for s in node if s.tag in ("style", "link")):
                ctx.insert(parent, at + k, deepcopy(sheet))
            ctx.remove(node, "<noscript> in <head> is ignored", explain=False)
            return
        span = dom.copy_as(node, "span")
        self._noscript_images(node, span, ctx)
        ctx.replace(node, span, "<noscript> content shown in place of the removed script")

    @staticmethod
    def _noscript_images(node: HtmlElement, span: HtmlElement, ctx) -> None:
        """Images without ``alt`` in shown ``<noscript>`` content (they became new axe
        image-alt failures). After an image, the ``<noscript>`` is that image's lazy-load fallback:
        its images take that image's ``alt``. Elsewhere such an image is a tracking pixel or a
        "turn on JavaScript" notice for script-less clients, and is dropped."""
        lazy = node.getprevious()
        lazy = lazy if lazy is not None and lazy.tag in ("img", "picture") else None
        alt = None
        if lazy is not None:
            img = lazy if lazy.tag == "img" else lazy.find(".//img")
            alt = img.get("alt") if img is not None else None
        for img in list(span.iter("img")):
            if img.get("alt") is not None or img.get("aria-label") or img.get("title"):
                continue
            if lazy is not None:
                if alt is not None:
                    img.set("alt", alt)
            else:
                ctx.note("remove", img, "image without alt in <noscript> content (a tracking pixel or notice "
                         "for clients without scripts) not shown", measured={"src": (img.get("src") or "")[:80]})
                dom.remove_keep_tail(img)


#: A <noscript> whose first this-many characters of text the page also shows elsewhere is a script-less copy
#: of content already on the page (a whole article repeated for crawlers): not shown twice.
NOSCRIPT_COPY_CHARS = 200


def _runs_script(value: str, *, anywhere: bool = False, image: bool = False) -> bool:
    """True when ``value`` is (or, with ``anywhere``, holds) a URL that runs script: a script
    scheme, or a data: document other than an image's. Browsers drop tabs and newlines from
    URLs and leading spaces, and compare schemes case-insensitively; so does this."""
    url = value.translate(_URL_NOISE).strip().lower()
    if anywhere:
        return any(s in url for s in SCRIPT_SCHEMES) or not image and any(d in url for d in SCRIPT_DATA_TYPES)
    if url.startswith(SCRIPT_SCHEMES):
        return True
    return not image and url.startswith(SCRIPT_DATA_TYPES)
