"""What a person sees: each corpus page rendered in headless Chromium before and after filtering.

    nice -n 10 .venv/bin/python benchmarks/see.py [--step N] [--corpus NAME ...] [--preset P ...]
                                                 [--page ID ...] [--json OUT] [--per-page] [--shots DIR]

The pages: every N-th page (truth.jsonl order, first page first; default every 15th, --step 1 is
all 1121 pages) of every corpus folder under ../shared/data/extraction/ (as benchmarks/axe_report.py
samples them; ``--corpus`` keeps only the named folders). Each page is filtered in-process by the
presets' chains (``config.build_chain``) and shown in one headless Chromium (``/usr/bin/chromium``,
viewport 1280 x 900 px) three ways besides the original: ``declutter`` (HTML), ``declutter-text``
(declutter with text output, shown as the browser shows text/plain) and ``reader`` (HTML).
``--preset`` picks among these three.

Offline, as the axe harness does: the page is the answer to a navigation to its own URL (the
corpus's ``url``, so relative addresses resolve as on the site; ``https://page.invalid/<id>``
when unknown) that a route handler gives itself; every other request is aborted and host names do
not resolve, so nothing leaves the machine. The page's own scripts are blocked by a
``Content-Security-Policy: script-src 'none'`` header (the filtered pages have none; the original
is then the page as it shows before its scripts run, the same every time).

Measured, per corpus and variant:

* **sentences whole**: the truth (the corpus's main text) is split into sentences (lines, then
  ``.``/``!``/``?`` and their full-width forms followed by a space; sentences under
  ``MIN_SENTENCE_CHARS`` characters are left out). A sentence counts when it stands whole inside
  one line of the original's ``document.body.innerText`` (NFKC, lower case, whitespace collapsed;
  innerText puts each block on its own line). Reported: the share of those also whole in the
  output's innerText. For every broken one the filter that broke it is found by re-running the
  chain with a snapshot of the page taken after each filter (one run; the final snapshot must
  equal the served page) and showing the snapshots (a binary search: a filter is taken never to
  bring back what an earlier one took): the first after which the sentence is no longer whole is
  to blame ("output" when every snapshot holds it and the text output does not; a "?" after the
  name when the probe run did not give the served page). ``link`` marks a break where that
  filter removed a text link from the sentence's line and left the rest of that line in place:
  the line the sentence stood in just before the filter, with the texts of the links the filter
  removed taken out, is a line of what the browser shows just after it (a sentence whose list
  item or block went whole is not the link's doing, even where its words show elsewhere).
* **story start**: the top (px from the top of the document) of the highest of the truth sentences
  that are whole in both the original and the output and that the original shows once (a name the
  menu shows too has no one place) (where the story's first words show, whichever
  sentence they are: a page whose truth starts in a narrow side column and goes on in the centre
  column is read from the centre's top once the layout table is linearised), found by a TreeWalker
  over the visible text nodes (not one clipped away inside a box of no width or height that hides
  what overflows it: a window the page's script sizes) and the start node's ``Range.getBoundingClientRect``. Counted: pages where the output shows it
  more than ``LOWERED_PX`` lower than the original. Two things a person would not see are taken
  out. Images the browser loads late (``loading="lazy"``) hold their declared shape until they are
  asked for and collapse once they fail, so every page is measured after all its images have ended
  (``SETTLE_MS``); otherwise a page whose menu went shows more of them pending, and taller. And a
  picture the original holds but does not show without its scripts (a lazy picture, one a no-script
  style hides), shown by the output above the story's start, is not counted against it (its height
  is ``revealed``): with its scripts, the site shows it there too.
* **pictures**: the images the original meant to show in its main content: ``<img>`` elements (and
  SVG ``<image>`` elements, at their ``href``) inside the smallest element holding ``REGION_SHARE`` of the located truth sentences, no lower
  than ``BELOW_LAST_PX`` under the last of them, with a real or lazy address (``src``, ``srcset``,
  ``data-src``, ``data-srcset``, ``data-lazy-src``, ``data-original``, a ``<picture>``'s
  ``<source>``), not a placeholder (a ``data:`` URL under ``PLACEHOLDER_DATA_CHARS`` characters,
  or a file named like a spacer: blank, spacer, pixel, placeholder, transparent, 1x1 …), not
  hidden (``checkVisibility``; a lazy one, which its loader may hide until it loads, only when its
  parent is not rendered), not a tracking pixel (a declared side of at most 2 px)
  and not an icon (both declared sides under ``ICON_PX``). The output shows one when one of its
  ``<img>`` has an address the browser loads by itself (``src``, ``srcset``, ``<picture>``
  sources: not the lazy attributes, which need the page's scripts) that is not a placeholder and
  matches one of the original's addresses (same URL, or same URL without the query), and the image
  is neither hidden (``checkVisibility`` with opacity and visibility) nor sized 0 (declared
  ``width``/``height`` attributes or inline style of 0 or 1 px). With the network blocked no
  image loads, so the judgement is by address and declared size, never ``naturalWidth``. Text
  output shows no pictures (its column is "-"). "story" counts the lost images that are the
  story's own pictures: not inside a link to another page, not the face of a control (inside a
  ``<button>`` or an element with a button, tab or menu role: a carousel's slide buttons), not
  named an icon (its class or id, or its parent's, says "icon"), not in the site's frame (a ``<nav>``,
  ``<header>``, ``<footer>`` or ``<aside>``, or the role of one, outside every ``<article>`` and the
  main block), not the icon before a link's name (its element holds a named link and under
  ``BESIDE_LINK_CHARS`` characters besides the links' names), not shown ``REPEATED_PICTURE`` times
  or more in the region and without a declared side under ``PICTURE_PX`` (the rest are buttons, badges and teasers inside the
  region), and not an ad or a tracker (an address the chain's ad lists block as an image from this page:
  an element that is only an ad may go whole); "alone" those of them lost while the truth sentence beside them (the located one that
  shares the picture's deepest ancestor, the nearest in height among those) is still shown: the picture went, not the passage it illustrates (a passage that went
  whole is a text loss, counted by the sentences and by ``pagesieve eval``). Each lost image is
  blamed on a filter as the sentences are (the first snapshot that no longer shows it).
* **shapes**: painted boxes with nothing in them, as big as a person notices: the outermost visible
  elements of at least ``SHAPE_MIN_PX2`` px² that paint (a background colour or image, an SVG drawing)
  and hold no text, picture, video, frame or control, their areas summed (clipped to the viewport's
  width) and given as the height of a full-width band (px). Counted: pages whose output shows
  ``SHAPES_PX`` px more of them than the original (a layout table's spacer cells turned into grey
  bars, an icon's drawing filling the page's width once the layout that sized it went).
* **blank**: outputs whose visible text (innerText, whitespace collapsed) is under ``BLANK_SHARE``
  of the original's while the original holds its main text (at least half the truth's sentences
  whole) and the output keeps under half of those sentences (a small output that keeps the truth
  is not blank: the page was mostly furniture).

``--json OUT`` writes the per-page results. tests/a11y/test_see.py is the gate (a few pages per
corpus; ``PAGESIEVE_SEE_GATE=0`` leaves it out).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import time
import unicodedata
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the corpus sampler lives in tests/a11y

from pagesieve.engine import config as C  # noqa: E402
from pagesieve.engine.chain import Chain, ChainResult  # noqa: E402
from pagesieve.engine.document import parse, serialize  # noqa: E402
from pagesieve.filters.base import Filter  # noqa: E402
from tests.a11y.axe_run import CHROMIUM, CHROMIUM_ARGS, STEP, CorpusPage, sample  # noqa: E402

#: The variants shown besides the original: name -> (preset, output format).
VARIANTS: dict[str, tuple[str, str]] = {"declutter": ("declutter", "html"),
                                        "declutter-text": ("declutter", "text"),
                                        "reader": ("reader", "html")}
VIEWPORT = {"width": 1280, "height": 900}
#: ``--shots``: how much of each page (px from the top) a screenshot holds.
SHOT_PX = 2000
#: Truth sentences shorter than this (characters) are not measured: "Share", "Photo: AP" and the
#: like say nothing of a page's text being whole.
MIN_SENTENCE_CHARS = 30
#: A story start shown this much lower (px) in the output than in the original counts as lowered.
LOWERED_PX = 100
#: An output whose visible text is under this share of the original's may be blank (see the doc).
BLANK_SHARE = 0.2
#: The main-content region: the deepest element holding this share of the located truth sentences.
REGION_SHARE = 0.8
#: Images further below the last located truth sentence (px) are not the story's (related stories).
BELOW_LAST_PX = 300
#: A data: URL shorter than this is a placeholder (a 1x1 GIF is about 70 characters; a real inline
#: picture is thousands).
PLACEHOLDER_DATA_CHARS = 400
#: An image with both declared sides under this (px) is an icon, not a picture of the story.
ICON_PX = 40
#: A broken sentence is a link's doing when this much of it (characters) outside the link is still shown.
MIN_REST_CHARS = 10
#: A meant image with a declared side under this (px) is a button or thumbnail rather than the story's picture.
PICTURE_PX = 100
#: A picture whose element holds a named link and fewer characters than this besides the links' names
#: is that link's icon ("[icon] Digg", "[icon] Email this"), not a picture of the story.
BESIDE_LINK_CHARS = 20
#: An address the main-content region shows this many times or more is an icon, not a picture of the story.
REPEATED_PICTURE = 3
#: A painted box with nothing in it counts as a shape from this area (px²): a 100 px square, a band of
#: 1280 x 8 px.
SHAPE_MIN_PX2 = 10_000
#: An output showing this much more of such shapes than the original (px of a full-width band) counts.
SHAPES_PX = 300
#: Truth sentences whose place in the page is looked up (region, story start): the first this many.
LOCATE_MAX = 60
#: How long (ms) a shown page may take for its late (lazy) images to end before it is measured.
SETTLE_MS = 3000
#: Where a page without a known URL is "loaded from" (never resolved).
PAGE_URL = "https://page.invalid/"
#: Nothing resolves: a route handler answers the page itself, every other request is aborted.
BROWSER_ARGS = [*CHROMIUM_ARGS, "--host-resolver-rules=MAP * ~NOTFOUND"]

_SENTENCE_END = re.compile(r"(?<=[.!?。！？])[\"'”’»)\]]*\s+")
_SPACE = re.compile(r"\s+")
_INVISIBLE = re.compile("[\u00ad\u200b\u200c\u200d\u2060\ufeff]")

# The JavaScript run in the shown page. norm() must match :func:`norm` (NFKC, invisible characters
# out, lower case); "bare" drops all whitespace so that a sentence split over text nodes
# (<a>, <em>) is still found.
_JS_COMMON = r"""
const INVIS = /[\u00ad\u200b\u200c\u200d\u2060\ufeff]/g;
const bare = s => s.normalize('NFKC').replace(INVIS, '').toLowerCase().replace(/\s+/g, '');
function textNodes() {
  const out = [], starts = [];
  let acc = '';
  const walker = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || el.closest('script,style,noscript,template') || !el.getClientRects().length) continue;
    const b = bare(n.data);
    if (!b) continue;
    starts.push(acc.length); out.push(n); acc += b;
  }
  return {nodes: out, starts, acc};
}
function locate(tn, needle) {
  const at = tn.acc.indexOf(bare(needle));
  if (at < 0) return null;
  let lo = 0, hi = tn.starts.length - 1;
  while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (tn.starts[mid] <= at) lo = mid; else hi = mid - 1; }
  return tn.nodes[lo];
}
function clipped(node) {
  // inside a box of no width or height that hides what overflows it: not shown (a window its script sizes)
  for (let e = node.parentElement; e && e !== document.body; e = e.parentElement) {
    const cs = getComputedStyle(e);
    if (cs.overflowX === 'visible' && cs.overflowY === 'visible') continue;
    const r = e.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) return true;
  }
  return false;
}
function top(node) {
  const r = document.createRange(); r.selectNodeContents(node);
  let rect = r.getBoundingClientRect();
  if (!rect.height && node.parentElement) rect = node.parentElement.getBoundingClientRect();
  return {top: rect.top + window.scrollY, bottom: rect.bottom + window.scrollY};
}
const PLACEHOLDER = /(^|[\/_.-])(blank|spacer|pixel|placeholder|transparent|clear|1x1|empty|lazy|loading|grey|gray|dot)[\w-]*\.(gif|png|svg|jpe?g|webp)(\?|$)/i;
function real(url, dataChars) {
  if (!url) return null;
  url = url.trim();
  if (!url || url.startsWith('about:') || url.startsWith('javascript:')) return null;
  if (url.startsWith('data:')) return url.length >= dataChars ? 'data:' + url.length : null;
  let abs;
  try { abs = new URL(url, document.baseURI); } catch (e) { return null; }
  if (PLACEHOLDER.test(abs.pathname)) return null;
  abs.hash = '';
  return abs.href;
}
function fromSrcset(v) { return (v || '').split(/,\s+/).map(s => s.trim().split(/\s+/)[0]).filter(Boolean); }
function addresses(img, lazy, dataChars) {
  // an SVG <image> is a picture too, at its href
  const raw = img.tagName === 'image' ? [img.getAttribute('href'), img.getAttribute('xlink:href')] : [img.getAttribute('src')];
  raw.push(...fromSrcset(img.getAttribute('srcset')));
  const pic = img.parentElement && img.parentElement.tagName === 'PICTURE' ? img.parentElement : null;
  if (pic) for (const s of pic.querySelectorAll('source')) raw.push(...fromSrcset(s.getAttribute('srcset')));
  if (lazy) {
    for (const a of ['data-src', 'data-lazy-src', 'data-original', 'data-lazy', 'data-url', 'data-hi-res-src'])
      raw.push(img.getAttribute(a));
    raw.push(...fromSrcset(img.getAttribute('data-srcset')), ...fromSrcset(img.getAttribute('data-lazy-srcset')));
    if (pic) for (const s of pic.querySelectorAll('source')) raw.push(...fromSrcset(s.getAttribute('data-srcset')));
  }
  const out = new Set();
  for (const u of raw) { const r = real(u, dataChars); if (r) out.add(r); }
  return [...out];
}
function declared(img, name) {
  const a = img.getAttribute(name);
  const s = img.style[name];
  for (const v of [a, s]) {
    if (v == null || v === '') continue;
    const m = /^\s*(\d+(?:\.\d+)?)\s*(px)?\s*$/.exec(v);
    if (m) return parseFloat(m[1]);
  }
  return null;
}
"""

_JS_SHOW = "(args) => {" + _JS_COMMON + r"""
  const text = document.body ? document.body.innerText : (document.documentElement.innerText || '');
  if (!args.locate.length) return {text, tops: []};
  const tn = textNodes();
  // once=true: a sentence the page shows twice or more (a product's name in the menu and in the
  // story) has no one place, and is not located
  const once = s => { const b = bare(s), at = tn.acc.indexOf(b); return at < 0 || tn.acc.indexOf(b, at + 1) < 0; };
  const tops = args.locate.map(s => { const n = (!args.once || once(s)) && locate(tn, s); return n && !clipped(n) ? top(n).top : null; });
  return {text, tops};
}"""

# The original: where the truth sentences are, the region holding most of them, its pictures.
_JS_MEANT = "(args) => {" + _JS_COMMON + r"""
  const tn = textNodes();
  const found = [], foundAt = [];
  args.sentences.forEach((s, i) => { const n = locate(tn, s); if (n) { found.push(n); foundAt.push(i); } });
  if (!found.length) return {located: 0, images: []};
  const counts = new Map();
  for (const n of found) for (let el = n.parentElement; el; el = el.parentElement) counts.set(el, (counts.get(el) || 0) + 1);
  let region = document.body, depth = -1;
  for (const [el, c] of counts) {
    if (c < args.share * found.length) continue;
    let d = 0; for (let p = el; p; p = p.parentElement) d++;
    if (d > depth) { depth = d; region = el; }
  }
  const last = Math.max(...found.map(n => top(n).bottom));
  const lazyAttr = ['data-src', 'data-srcset', 'data-lazy-src', 'data-original', 'data-lazy', 'data-lazy-srcset'];
  const images = [];
  for (const img of region.querySelectorAll('img, svg image')) {
    const w = declared(img, 'width'), h = declared(img, 'height');
    if ((w != null && w <= 2) || (h != null && h <= 2)) continue;
    if (w != null && h != null && w < args.icon && h < args.icon) continue;
    const lazy = lazyAttr.some(a => img.hasAttribute(a));
    const addr = addresses(img, true, args.dataChars);
    if (!addr.length) continue;
    if (!lazy && !img.checkVisibility({visibilityProperty: true, opacityProperty: true})) continue;
    // a lazy image may be hidden by its loader until loaded, but one whose parent is not rendered at
    // all (display:none: a blog's Pinterest-only pictures, hidden whatever loads) was not meant to show
    if (lazy && img.parentElement && !img.parentElement.checkVisibility()) continue;
    const t = top(img).top;
    if (t > last + args.below) continue;
    const a = img.closest('a[href]');
    let elsewhere = false;
    if (a) { try { elsewhere = !/\.(jpe?g|png|gif|webp|avif|svg|bmp)$/i.test(new URL(a.getAttribute('href'), document.baseURI).pathname); } catch (e) { elsewhere = true; } }
    const control = !!img.closest('button, [role=button], [role=tab], [role=menuitem], [role=option], [role=switch]')
      || [img, img.parentElement].some(e => e && /icon/i.test((e.getAttribute('class') || '') + ' ' + (e.id || '')));
    // in the site's frame: a menu, banner, footer or sidebar (by tag or role) that is not part of an
    // article or the main block
    const frame = img.closest('nav, aside, header, footer, [role=navigation], [role=banner], [role=contentinfo], [role=complementary]');
    const framed = !!frame && !(frame.parentElement && frame.parentElement.closest('article, main, [role=main]'));
    // the icon before a link's name: its element holds a named link and few words of its own ("[icon] Digg")
    const par = img.parentElement;
    let beside = false;
    if (par && !img.closest('a[href]')) {
      const named = [...par.querySelectorAll('a[href]')].filter(x => x.textContent.trim());
      const linked = named.reduce((n, x) => n + x.textContent.trim().length, 0);
      beside = named.length > 0 && par.textContent.trim().length - linked < args.besideChars;
    }
    // the truth sentence beside it: the one sharing its deepest ancestor (its caption, its item, its
    // column), the nearest in height among those
    const depthOf = new Map();
    let dd = 0; for (let p = img; p; p = p.parentElement) depthOf.set(p, dd--);
    let near = null, best = -Infinity, gap = Infinity;
    found.forEach((n, k) => {
      let p = n.parentElement; while (p && !depthOf.has(p)) p = p.parentElement;
      const shared = p ? depthOf.get(p) : -Infinity, d = Math.abs(top(n).top - t);
      if (shared > best || (shared === best && d < gap)) { best = shared; gap = d; near = foundAt[k]; }
    });
    images.push({addresses: addr, top: Math.round(t), lazy, width: w, height: h, elsewhere, control, framed, beside, near});
  }
  const uses = new Map();  // how often the region shows each address: a status icon, a rating star
  for (const im of images) uses.set(im.addresses[0], (uses.get(im.addresses[0]) || 0) + 1);
  for (const im of images) im.repeats = uses.get(im.addresses[0]);
  return {located: found.length, region: region.tagName.toLowerCase() + (region.id ? '#' + region.id : ''), images};
}"""

# Painted boxes with nothing in them (see the module doc): their summed area as the height (px) of a
# band the viewport's width, and the largest one's tag, class and size.
_JS_SHAPES = r"""(args) => {
  const EMPTY_OF = 'img,picture,video,canvas,iframe,object,embed,input,select,textarea,button,image';
  const inside = new Set();
  let area = 0, largest = null, most = 0;
  if (!document.body) return {px: 0, largest: null};
  for (const e of document.body.getElementsByTagName('*')) {
    if (inside.has(e.parentElement)) { inside.add(e); continue; }
    const r = e.getBoundingClientRect();
    const w = Math.max(0, Math.min(r.right, args.width) - Math.max(r.left, 0));
    if (w * r.height < args.minArea) continue;
    if ((e.textContent || '').trim() || e.matches(EMPTY_OF) || e.querySelector(EMPTY_OF)) continue;
    if (!e.checkVisibility({opacityProperty: true, visibilityProperty: true})) continue;
    const cs = getComputedStyle(e);
    const bg = cs.backgroundColor, paints = e.tagName.toLowerCase() === 'svg' || cs.backgroundImage !== 'none'
      || (bg && bg !== 'transparent' && !/rgba\([^)]*,\s*0\)$/.test(bg));
    if (!paints) continue;
    inside.add(e);
    const a = w * r.height;
    area += a;
    if (a > most) { most = a; largest = `${e.tagName.toLowerCase()}${e.className && e.className.baseVal === undefined && e.className ? '.' + String(e.className).trim().split(/\s+/).slice(0, 2).join('.') : ''} ${Math.round(w)}x${Math.round(r.height)}`; }
  }
  return {px: Math.round(area / args.width), largest};
}"""

# After loading: every image the browser would load late (loading="lazy", out of view) is asked for
# now and the page waits for all of them to end (none can load: the network is blocked), so that
# where anything shows does not hang on which images happened to be near the viewport.
_JS_SETTLE = r"""(ms) => {
  for (const el of document.querySelectorAll('img[loading], iframe[loading]')) el.loading = 'eager';
  const pending = [...document.images].filter(i => !i.complete)
    .map(i => new Promise(done => { i.addEventListener('load', done); i.addEventListener('error', done); }));
  return Promise.race([Promise.all(pending), new Promise(done => setTimeout(done, ms))]);
}"""

# The original: the addresses of the pictures it holds but does not show (a lazy picture whose
# loader is a blocked script, one hidden until that script runs); the site shows them.
_JS_UNSHOWN = "(args) => {" + _JS_COMMON + r"""
  const out = [];
  for (const img of document.querySelectorAll('img, svg image')) {
    const r = img.getBoundingClientRect();
    if (r.width > 1 && r.height > 1 && img.checkVisibility({visibilityProperty: true, opacityProperty: true})) continue;
    out.push(...addresses(img, true, args.dataChars));
  }
  return out;
}"""

# The output: how much height (px) above ``y`` the pictures of ``keys`` take (the original's pictures
# that only its scripts show, shown here without them); pictures side by side count once.
_JS_REVEALED = "(args) => {" + _JS_COMMON + r"""
  const keys = new Set(args.keys), spans = [];
  const key = u => u.startsWith('data:') ? u : u.split('?')[0];
  for (const img of document.querySelectorAll('img, svg image')) {
    if (!addresses(img, false, args.dataChars).some(a => keys.has(a) || keys.has(key(a)))) continue;
    const r = img.getBoundingClientRect(), t = r.top + window.scrollY, b = r.bottom + window.scrollY;
    if (r.height > 0 && b <= args.y) spans.push([t, b]);
  }
  spans.sort((a, b) => a[0] - b[0]);
  let sum = 0, end = -Infinity;
  for (const [t, b] of spans) { if (b > end) { sum += b - Math.max(t, end); end = b; } }
  return sum;
}"""

# The output: every picture it shows (loadable, unhidden, not sized 0), by address.
_JS_SHOWN = "(args) => {" + _JS_COMMON + r"""
  const out = [];
  for (const img of document.querySelectorAll('img, svg image')) {
    const addr = addresses(img, false, args.dataChars);
    if (!addr.length) continue;
    if (!img.checkVisibility({visibilityProperty: true, opacityProperty: true})) continue;
    const w = declared(img, 'width'), h = declared(img, 'height');
    if ((w != null && w <= 1) || (h != null && h <= 1)) continue;
    out.push(...addr);
  }
  return out;
}"""


def norm(text: str) -> str:
    """Text as compared: NFKC, invisible characters out, lower case, whitespace collapsed."""
    return _SPACE.sub(" ", _INVISIBLE.sub("", unicodedata.normalize("NFKC", text)).lower()).strip()


def lines_of(inner_text: str) -> str:
    """innerText as compared: each line :func:`norm`-ed, blank lines out, joined by newlines (a
    sentence without a newline that is in it stands whole inside one line)."""
    return "\n".join(n for n in (norm(line) for line in inner_text.split("\n")) if n)


def sentences(truth: str) -> list[str]:
    """The truth's sentences (:func:`norm`-ed) of at least ``MIN_SENTENCE_CHARS`` characters, in order."""
    out = []
    for line in truth.split("\n"):
        for piece in _SENTENCE_END.split(line):
            s = norm(piece)
            if len(s) >= MIN_SENTENCE_CHARS:
                out.append(s)
    return out


def story_picture(img: dict) -> bool:
    """A meant image that is a picture of the story itself, not a button or a teaser: not inside a link
    to another page (a link to the picture's own file is fine), without a declared side under
    ``PICTURE_PX``, not shown ``REPEATED_PICTURE`` times or more in the region (a forum's status
    icon beside every post, the digits of a date drawn as pictures), not in the site's frame and not
    the icon before a link's name (see the module doc)."""
    small = any(img.get(k) is not None and img[k] < PICTURE_PX for k in ("width", "height"))
    return (not img.get("elsewhere") and not small and not img.get("control") and not img.get("framed")
            and not img.get("beside") and img.get("repeats", 1) < REPEATED_PICTURE)


def ad_or_tracker(chain: Chain, addresses: list[str], page_url: str | None) -> bool:
    """Whether the ad lists of ``chain`` (its ``ads`` filter) block one of ``addresses`` as an image the page
    at ``page_url`` loads: an ad or a tracking pixel, never a picture of the story. False without the filter."""
    engine = next((getattr(f, "engine", None) for f in chain.filters if f.name == "ads"), None)
    if engine is None:
        return False
    return any(engine.check_network_urls(a, page_url or a, "image").matched
               for a in addresses if a.startswith(("http://", "https://")))


def _link_broke(sentence: str, links: list[str], before: str, after: str) -> bool:
    """Whether a removed text link broke ``sentence``: the line that held it in ``before`` (the lines
    shown just before the filter), with the texts of ``links`` (those the filter removed) taken out,
    is still a line of ``after`` and keeps ``MIN_REST_CHARS`` or more of the sentence. When the
    sentence's block or list item went whole it is not a link's doing, even where the same words
    show elsewhere on the page."""
    inside = [t for t in links if len(t) >= 2 and t in sentence]
    if not inside:
        return False
    shown = set(after.split("\n"))
    for line in before.split("\n"):
        if sentence not in line:
            continue
        cut = re.compile("|".join(re.escape(t) for t in sorted(inside, key=len, reverse=True)))
        kept = max((len(piece.strip()) for piece in cut.split(sentence)), default=0)
        if kept >= MIN_REST_CHARS and norm(cut.sub(" ", line)) in shown:
            return True
    return False


def _url_keys(urls) -> set[str]:
    """Each address and the address without its query (a resized copy of the same picture)."""
    keys = set()
    for u in urls:
        keys.add(u)
        if not u.startswith("data:"):
            keys.add(u.split("?", 1)[0])
    return keys


class _Snapshot(Filter):
    """Not a filter: takes a copy of the page (and how many text links have left it) after the filter before."""

    name = "snapshot"
    destructive = False

    def __init__(self, after: str, into: list) -> None:
        super().__init__(None)
        self.after, self.into = after, into

    def apply(self, page, ctx) -> None:
        self.into.append((self.after, serialize(page), len(ctx.state.removed_links)))


def snapshots(chain: Chain, data: bytes, url: str | None) -> tuple[list[tuple[str, bytes, list[str]]], ChainResult]:
    """The page after each filter of ``chain``: (filter, HTML, the texts of the links that filter
    removed), one run; and that run's result (its body must equal the chain's own)."""
    taken: list = []
    filters: list[Filter] = []
    for flt in chain.filters:
        filters += [flt, _Snapshot(flt.name, taken)]
    probe = Chain(filters, chain.output, chain.safety, preset=chain.preset, check=False)
    probe.collects_links = True
    from pagesieve.engine.output import render

    page = parse(data, url=url)
    state, stats = probe.run(page)
    body, media_type = render(page, state, probe.output)
    out, seen = [], 0
    for name, html, n_links in taken:
        out.append((name, html, [norm(t) for _pos, _href, t in state.removed_links[seen:n_links] if norm(t)]))
        seen = n_links
    result = ChainResult(body=body, media_type=media_type, encoding=page.encoding, record=state.record, filters=stats,
                         ms=0.0, preset=chain.preset)
    return out, result


class Browser:
    """One headless Chromium, one page reused: ``with Browser() as b: b.show(body, media_type, url)``."""

    def __enter__(self) -> "Browser":
        from playwright.sync_api import sync_playwright

        self._pw = sync_playwright().start()
        try:
            self._browser = self._pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=BROWSER_ARGS)
        except Exception:
            self._pw.stop()
            raise
        self._context = self._browser.new_context(viewport=VIEWPORT, service_workers="block")
        self._context.route("**/*", self._serve)
        self.page = self._context.new_page()
        self._body = b""
        self._type = "text/html"
        return self

    def __exit__(self, *exc) -> None:
        self._context.close()
        self._browser.close()
        self._pw.stop()

    def _serve(self, route) -> None:
        request = route.request
        if request.is_navigation_request() and request.frame == self.page.main_frame:
            headers = {"content-type": self._type}
            if self._type.startswith("text/html"):
                headers["content-security-policy"] = "script-src 'none'"
            route.fulfill(status=200, body=self._body, headers=headers)
        elif request.url.startswith("data:"):
            route.continue_()
        else:
            route.abort()

    def load(self, body: bytes, media_type: str, encoding: str, url: str) -> None:
        """Show ``body`` as if ``url`` had answered it."""
        self._body, self._type = body, f"{media_type}; charset={encoding}"
        try:
            self.page.goto(url, wait_until="load", timeout=60_000)
        except Exception:  # noqa: BLE001 - an address the browser refuses: show it under the stand-in one
            self.page.goto(PAGE_URL, wait_until="load", timeout=60_000)
        self.page.evaluate(_JS_SETTLE, SETTLE_MS)

    def show(self, locate: list[str], once: bool = False) -> tuple[str, list[float | None]]:
        """The shown page's innerText and the top (px) of each sentence of ``locate`` (None: not found;
        with ``once``, also when the page shows it more than once)."""
        r = self.page.evaluate(_JS_SHOW, {"locate": locate, "once": once})
        return r["text"], r["tops"]

    def meant(self, located: list[str]) -> dict:
        return self.page.evaluate(_JS_MEANT, {"sentences": located, "share": REGION_SHARE, "below": BELOW_LAST_PX,
                                              "icon": ICON_PX, "dataChars": PLACEHOLDER_DATA_CHARS,
                                              "besideChars": BESIDE_LINK_CHARS})

    def unshown_images(self) -> list[str]:
        return self.page.evaluate(_JS_UNSHOWN, {"dataChars": PLACEHOLDER_DATA_CHARS})

    def revealed_above(self, keys: set[str], y: float) -> float:
        return self.page.evaluate(_JS_REVEALED, {"keys": sorted(keys), "y": y, "dataChars": PLACEHOLDER_DATA_CHARS})

    def shapes(self) -> tuple[int, str | None]:
        """The painted boxes with nothing in them (see the module doc): px of a full-width band, the largest."""
        r = self.page.evaluate(_JS_SHAPES, {"minArea": SHAPE_MIN_PX2, "width": VIEWPORT["width"]})
        return r["px"], r["largest"]

    def shown_images(self) -> list[str]:
        return self.page.evaluate(_JS_SHOWN, {"dataChars": PLACEHOLDER_DATA_CHARS})

    def screenshot(self, path: Path) -> None:
        """The top ``SHOT_PX`` of the page (less if it is shorter), as a PNG."""
        height = min(SHOT_PX, self.page.evaluate("() => document.documentElement.scrollHeight") or VIEWPORT["height"])
        self.page.screenshot(path=str(path), full_page=True,
                             clip={"x": 0, "y": 0, "width": VIEWPORT["width"], "height": max(height, 100)})


@dataclass
class Seen:
    """One page in one variant, against its original."""

    corpus: str
    id: str
    url: str
    variant: str
    whole_before: int  # truth sentences whole in the original
    whole_after: int  # of those, whole in the output
    broken: list[dict[str, Any]] = field(default_factory=list)  # sentence, filter, link
    start_before: float | None = None
    start_after: float | None = None
    revealed: float = 0.0  # px above the output's story start taken by pictures only the site's scripts show
    images_meant: int = 0
    images_shown: int = 0
    images_lost: list[dict[str, Any]] = field(default_factory=list)  # address, story (story_picture), filter
    chars_before: int = 0
    chars_after: int = 0
    truth_sentences: int = 0
    blank: bool = False
    failed: list[str] = field(default_factory=list)
    shapes_before: int = 0  # px of a full-width band of painted boxes with nothing in them
    shapes_after: int = 0
    shape: str | None = None  # the output's largest such box

    @property
    def shaped(self) -> bool:
        return self.shapes_after - self.shapes_before > SHAPES_PX

    @property
    def lowered(self) -> float:
        if self.start_before is None or self.start_after is None:
            return 0.0
        return self.start_after - self.revealed - self.start_before


@dataclass
class Original:
    url: str
    truth: list[str]
    whole: list[str]  # truth sentences whole in the original, truth order
    tops: dict[str, float]
    chars: int
    images: list[dict]
    html: bytes
    encoding: str
    lines: str = ""  # what the browser shows of the original (:func:`lines_of`)
    unshown: set[str] = field(default_factory=set)  # addresses of pictures it holds but does not show
    shapes: int = 0  # px of a full-width band of painted boxes with nothing in them


def truths(corpus_dir: Path) -> dict[str, str]:
    out = {}
    for line in (corpus_dir / "truth.jsonl").read_text(encoding="utf-8").split("\n"):
        if line.strip():
            row = json.loads(line)
            out[row["id"]] = row.get("body") or ""
    return out


class See:
    """Measures pages; one browser, the chains built once."""

    def __init__(self, browser: Browser, variants: list[str], cfg: C.Config | None = None,
                 shots: Path | None = None) -> None:
        cfg = cfg or C.load()
        self.browser = browser
        self.shots = shots
        self.chains: dict[str, Chain] = {}
        for v in variants:
            preset, fmt = VARIANTS[v]
            spec = cfg.resolve(preset, C.overrides_to_tree([("output.format", fmt)]))
            self.chains[v] = C.build_chain(spec)
        self._texts: dict[str, tuple[str, set[str]]] = {}  # sha1 of a shown snapshot -> what it shows
        self._truths: dict[Path, dict[str, str]] = {}

    def truth(self, page: CorpusPage) -> str:
        d = page.path.parent.parent
        if d not in self._truths:
            self._truths[d] = truths(d)
        return self._truths[d].get(page.id, "")

    @staticmethod
    def url(page: CorpusPage) -> str:
        return (page.url.split("#", 1)[0] if page.url.startswith(("http://", "https://")) else "") or f"{PAGE_URL}{page.id}"

    def original(self, page: CorpusPage) -> Original:
        data = page.path.read_bytes()
        enc = parse(data).encoding
        html = data.decode(enc, errors="replace").encode("utf-8")
        url = self.url(page)
        truth = sentences(self.truth(page))
        self.browser.load(html, "text/html", "utf-8", url)
        self._shot(page, "original")
        text, _ = self.browser.show([])
        shown = lines_of(text)
        whole = [s for s in truth if s in shown]
        located = whole[:LOCATE_MAX]
        _, tops = self.browser.show(located, once=True)
        meant = self.browser.meant(located) if located else {"images": []}
        return Original(url, truth, whole, {s: t for s, t in zip(located, tops) if t is not None},
                        len(norm(text)), meant["images"], html, "utf-8", shown,
                        _url_keys(self.browser.unshown_images()), self.browser.shapes()[0])

    def measure(self, page: CorpusPage, orig: Original | None = None) -> list[Seen]:
        orig = orig or self.original(page)
        data = page.path.read_bytes()
        out = []
        for v, chain in self.chains.items():
            res = chain.process(data, url=page.url or None)
            self.browser.load(res.body, res.media_type, res.encoding, orig.url)
            self._shot(page, v)
            located = [s for s in orig.whole if s in orig.tops][:LOCATE_MAX]
            text, tops = self.browser.show(located)
            shown = lines_of(text)
            kept = [s for s in orig.whole if s in shown]
            seen = Seen(page.corpus, page.id, page.url, v, len(orig.whole), len(kept), chars_before=orig.chars,
                        chars_after=len(norm(text)), truth_sentences=len(orig.truth), failed=res.failed)
            if VARIANTS[v][1] == "html":
                seen.shapes_before = orig.shapes
                seen.shapes_after, seen.shape = self.browser.shapes()
            after = dict(zip(located, tops))
            both = [s for s in located if after.get(s) is not None and s in shown]
            if both:  # the story starts where its first words show, whichever sentence they are
                seen.start_before, seen.start_after = min(orig.tops[s] for s in both), min(after[s] for s in both)
                if orig.unshown and VARIANTS[v][1] == "html":  # pictures the site's scripts would show above it
                    seen.revealed = self.browser.revealed_above(orig.unshown, seen.start_after)
            lost = []
            if VARIANTS[v][1] == "html":
                shown_keys = _url_keys(self.browser.shown_images())
                seen.images_meant = len(orig.images)
                lost = [img for img in orig.images if not _url_keys(img["addresses"]) & shown_keys]
                seen.images_shown = seen.images_meant - len(lost)
            holds = orig.truth and len(orig.whole) >= 0.5 * len(orig.truth)
            seen.blank = bool(holds and seen.chars_after < BLANK_SHARE * orig.chars and len(kept) < 0.5 * len(orig.whole))
            broken = [s for s in orig.whole if s not in shown]
            if broken or lost:
                seen.broken, seen.images_lost = self.blame(chain, data, page, orig, res, broken, lost)
                near = orig.whole[:LOCATE_MAX]
                for img, entry in zip(lost, seen.images_lost):  # lost alone: the sentence beside it is still shown
                    i = img.get("near")
                    entry["alone"] = bool(entry["story"] and i is not None and i < len(near) and near[i] in shown)
            out.append(seen)
        return out

    def _shot(self, page: CorpusPage, what: str) -> None:
        if self.shots is not None:
            self.shots.mkdir(parents=True, exist_ok=True)
            self.browser.screenshot(self.shots / f"{page.corpus}-{page.id[:12]}-{what}.png")

    def _snapshot(self, html: bytes, encoding: str, url: str) -> tuple[str, set[str]]:
        """A snapshot's lines (:func:`lines_of`) and the addresses of the pictures it shows."""
        key = hashlib.sha1(html).hexdigest()
        if key not in self._texts:
            self.browser.load(html, "text/html", encoding, url)
            self._texts[key] = (lines_of(self.browser.show([])[0]), _url_keys(self.browser.shown_images()))
            if len(self._texts) > 256:
                self._texts.pop(next(iter(self._texts)))
        return self._texts[key]

    def blame(self, chain: Chain, data: bytes, page: CorpusPage, orig: Original, res: ChainResult, broken: list[str],
              lost: list[dict]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Which filter broke each sentence of ``broken`` and took each picture of ``lost`` (see the module
        doc): (sentence, filter, link) and (address, story, filter) records."""
        snaps, probe = snapshots(chain, data, page.url or None)
        sound = probe.body == res.body

        def view(k: int) -> tuple[str, set[str]]:
            return self._snapshot(snaps[k][1], probe.encoding, orig.url)

        def first_gone(gone_in) -> int | None:
            """The first snapshot without the item (binary search: a filter never brings back what an
            earlier one took), None when the last snapshot still has it."""
            lo, hi = 0, len(snaps) - 1
            if hi < 0 or not gone_in(view(hi)):
                return None
            while lo < hi:
                mid = (lo + hi) // 2
                if gone_in(view(mid)):
                    hi = mid
                else:
                    lo = mid + 1
            return lo

        found: dict[str, dict[str, Any]] = {}
        for s in broken:
            k = first_gone(lambda seen, s=s: s not in seen[0])
            if k is not None:
                before = view(k - 1)[0] if k else orig.lines
                found[s] = {"sentence": s, "filter": snaps[k][0],
                            "link": _link_broke(s, snaps[k][2], before, view(k)[0])}
        gone: dict[int, str] = {}
        for i, img in enumerate(lost):
            keys = _url_keys(img["addresses"])
            k = first_gone(lambda seen, keys=keys: not keys & seen[1])
            if k is not None:
                gone[i] = snaps[k][0]
        mark = "" if sound else "?"  # the probe run did not give the served page: not a sure answer
        sentences_out = []
        for s in broken:
            entry = found.get(s) or {"sentence": s, "filter": "output", "link": False}
            entry["filter"] += mark
            sentences_out.append(entry)
        images_out = [{"address": img["addresses"][0],
                       "story": story_picture(img) and not ad_or_tracker(chain, img["addresses"], orig.url),
                       "filter": gone.get(i, "output") + mark} for i, img in enumerate(lost)]
        return sentences_out, images_out


def _pct(a: int, b: int) -> str:
    return f"{100 * a / b:.1f}%" if b else "-"


def table(results: list[Seen], variants: list[str]) -> str:
    groups: dict[tuple[str, str], list[Seen]] = defaultdict(list)
    for r in results:
        groups[r.corpus, r.variant].append(r)
        groups["all", r.variant].append(r)
    head = (f"{'corpus':<14} {'variant':<15} {'pages':>5} {'whole':>7} {'of':>6} {'broken':>6} {'(link)':>6} "
            f"{'lowered':>7} {'img meant':>9} {'shown':>6} {'lost':>5} {'story':>5} {'alone':>5} {'shapes':>6} {'blank':>5} "
            f"{'failed':>6}")
    rows = [head, "-" * len(head)]
    corpora = sorted({c for c, _ in groups if c != "all"}) + ["all"]
    for c in corpora:
        for v in variants:
            rs = groups.get((c, v))
            if not rs:
                continue
            before = sum(r.whole_before for r in rs)
            after = sum(r.whole_after for r in rs)
            broken = sum(len(r.broken) for r in rs)
            link = sum(sum(b["link"] for b in r.broken) for r in rs)
            lowered = sum(r.lowered > LOWERED_PX for r in rs)
            html = VARIANTS[v][1] == "html"
            meant = sum(r.images_meant for r in rs)
            shown = sum(r.images_shown for r in rs)
            story = sum(sum(i["story"] for i in r.images_lost) for r in rs)
            alone = sum(sum(i.get("alone", False) for i in r.images_lost) for r in rs)
            shaped = sum(r.shaped for r in rs)
            img = (f"{meant:>9} {shown:>6} {meant - shown:>5} {story:>5} {alone:>5} {shaped:>6}" if html
                   else f"{'-':>9} {'-':>6} {'-':>5} {'-':>5} {'-':>5} {'-':>6}")
            rows.append(f"{c:<14} {v:<15} {len(rs):>5} {_pct(after, before):>7} {before:>6} {broken:>6} {link:>6} "
                        f"{lowered:>7} {img} {sum(r.blank for r in rs):>5} {sum(bool(r.failed) for r in rs):>6}")
        rows.append("")
    return "\n".join(rows)


def details(results: list[Seen]) -> str:
    out = []
    blame: dict[tuple[str, str], int] = defaultdict(int)
    for r in results:
        for b in r.broken:
            blame[r.variant, b["filter"] + (" (link)" if b["link"] else "")] += 1
    out.append("broken sentences by the filter that broke them:")
    for (v, f), n in sorted(blame.items(), key=lambda kv: (kv[0][0], -kv[1])):
        out.append(f"  {v:<15} {f:<28} {n:>5}")
    took: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for r in results:
        for i in r.images_lost:
            took[r.variant, i["filter"]][0] += 1
            took[r.variant, i["filter"]][1] += i["story"]
    out.append("\nimages lost by the filter that took them (all, the story's own pictures):")
    for (v, f), (n, story) in sorted(took.items(), key=lambda kv: (kv[0][0], -kv[1][0])):
        out.append(f"  {v:<15} {f:<28} {n:>5} {story:>5}")
    out.append("\nbroken sentences (page, variant, filter, sentence):")
    for r in results:
        for b in r.broken:
            out.append(f"  {r.corpus}/{r.id[:12]} {r.variant} {b['filter']}{' link' if b['link'] else ''}: "
                       f"{b['sentence'][:90]}")
    out.append(f"\nstory start lowered by more than {LOWERED_PX} px (page, variant, px before -> after):")
    for r in results:
        if r.lowered > LOWERED_PX:
            shown = f" ({r.revealed:.0f} of it pictures only the site's scripts show)" if r.revealed else ""
            out.append(f"  {r.corpus}/{r.id[:12]} {r.variant} {r.start_before:.0f} -> {r.start_after:.0f}{shown}  {r.url}")
    out.append("\nimages lost (page, variant, filter, * = the story's own picture, first address):")
    for r in results:
        for i in r.images_lost:
            out.append(f"  {r.corpus}/{r.id[:12]} {r.variant} {i['filter']} {'*' if i['story'] else ' '} {i['address'][:110]}")
    out.append(f"\npainted boxes with nothing in them grown by more than {SHAPES_PX} px (page, variant, px before "
               "-> after, the largest):")
    for r in results:
        if r.shaped:
            out.append(f"  {r.corpus}/{r.id[:12]} {r.variant} {r.shapes_before} -> {r.shapes_after}, {r.shape}  {r.url}")
    out.append("\nblank outputs (page, variant, visible chars before -> after, sentences kept):")
    for r in results:
        if r.blank:
            out.append(f"  {r.corpus}/{r.id[:12]} {r.variant} {r.chars_before} -> {r.chars_after}, "
                       f"{r.whole_after}/{r.whole_before}  {r.url}")
    fails = [f"  {r.corpus}/{r.id[:12]} {r.variant} {r.failed}" for r in results if r.failed]
    if fails:
        out.append("\nfilters that failed:\n" + "\n".join(fails))
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--step", type=int, default=STEP, help="every N-th page of each corpus (default %(default)s)")
    ap.add_argument("--corpus", nargs="+", default=None, help="only these corpus folders (by name)")
    ap.add_argument("--preset", nargs="+", default=list(VARIANTS), choices=list(VARIANTS),
                    help="variants to show (default: all three)")
    ap.add_argument("--page", nargs="+", default=None, help="only the pages with these ids (with --step 1)")
    ap.add_argument("--json", type=Path, default=None, help="write the per-page results here")
    ap.add_argument("--per-page", action="store_true", help="print one line per page as it is measured")
    ap.add_argument("--shots", type=Path, default=None,
                    help="save a screenshot (PNG, the top %d px) of every page shown, original and outputs, here" % SHOT_PX)
    ap.add_argument("--from-json", nargs="+", type=Path, default=None, metavar="JSON",
                    help="measure nothing: print the tables of earlier --json files together (runs split by corpus)")
    args = ap.parse_args(argv)
    if args.from_json:
        results = [Seen(**row) for f in args.from_json for row in json.loads(f.read_text(encoding="utf-8"))]
        variants = [v for v in VARIANTS if any(r.variant == v for r in results)]
        pages = {(r.corpus, r.id) for r in results}
        print(f"see: {len(pages)} pages from {', '.join(str(f) for f in args.from_json)}\n")
        print(table(results, variants))
        print(details(results))
        return 0
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        print("see: cannot run: playwright is not installed (pip install -e '.[test]')", file=sys.stderr)
        return 2
    if not CHROMIUM.exists():
        print(f"see: cannot run: {CHROMIUM} not found", file=sys.stderr)
        return 2
    pages = [p for p in sample(args.step) if (not args.corpus or p.corpus in args.corpus)
             and (not args.page or p.id in args.page)]
    if not pages:
        print("see: no pages (the shared corpora are missing, or --corpus names none of them)", file=sys.stderr)
        return 2
    results: list[Seen] = []
    t0 = time.perf_counter()
    with Browser() as browser:
        see = See(browser, args.preset, shots=args.shots)
        for i, page in enumerate(pages, 1):
            try:
                rs = see.measure(page)
            except Exception as err:  # noqa: BLE001 - one page's trouble is reported, the run goes on
                print(f"  {page.corpus}/{page.id[:12]}: not measured: {type(err).__name__}: {err}", flush=True)
                continue
            results += rs
            if args.per_page:
                for r in rs:
                    print(f"[{i}/{len(pages)} {time.perf_counter() - t0:.0f}s] {r.corpus}/{r.id[:12]} {r.variant}: "
                          f"whole {r.whole_after}/{r.whole_before} broken {len(r.broken)} "
                          f"start {r.start_before}->{r.start_after}"
                          f"{f' (pictures {r.revealed:.0f})' if r.revealed else ''} img {r.images_shown}/{r.images_meant} "
                          f"chars {r.chars_before}->{r.chars_after}{' BLANK' if r.blank else ''}", flush=True)
    print(f"see: {len(pages)} pages (every {args.step}th of each corpus), viewport {VIEWPORT['width']} px, "
          f"{time.perf_counter() - t0:.0f} s\n")
    print(table(results, args.preset))
    print(details(results))
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in results], ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
