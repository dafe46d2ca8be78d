"""Mutated real pages for the chain's property test and the long fuzz run.

A case is a real corpus page with mutations a hostile or broken site produces: truncation,
byte flips, tag soup, deep nesting, control characters, odd attributes and wrong charsets.
:func:`check` runs one case through a built chain and returns what went wrong (None when every
property holds): no exception but :class:`InputError` escapes, no case runs past its time
bound, no filter raises (the chain would undo it and serve the page without that filter), nothing
in the output would run script (read as a browser reads it) and it carries the policy that forbids
scripts, the parser loses no text a browser shows, and a page whose body has text never comes back
without text.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path

from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser

from pagesieve.core.errors import InputError, UnparsableError
from pagesieve.core.tagscan import noscript_regions
from pagesieve.engine.document import detect_encoding, parse

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "data" / "extraction"
#: Pages per corpus the mutations start from (the smallest, so a case stays fast).
PAGES_PER_CORPUS = 6
#: CPU seconds one case may take through one chain before it counts as a hang (the proxy's default
#: time limit is lower; this bound only catches runaway work). CPU time, not wall time: a long run
#: at low priority on a busy machine saw cases of 0.5 s CPU take over 30 s of wall time.
CASE_SECONDS = 30

TAGS = ["div", "p", "span", "a", "table", "tr", "td", "ul", "li", "button", "form", "select", "option", "main",
        "article", "header", "nav", "script", "style", "svg", "math", "template", "noscript", "iframe", "textarea",
        "title", "body", "html", "head", "frameset", "plaintext", "xmp", "h1", "b", "i", "font", "center"]
ODD_ATTRIBUTES = ["{{ng-model}}", "a:b:c", "x\u00e9", ":", "-", "data-\u2603", "on", "onx", "xmlns:foo", "'", "@click",
                  "[prop]", "#ref", "v-on:click.prevent", "style", "href", "src"]
CHARSETS = ["utf-8", "gb2312", "shift_jis", "windows-1251", "iso-8859-7", "utf-16", "junk", "x-user-defined",
            "euc-kr", "koi8-r", "big5", "utf-7", "ascii", ""]
CONTROL = [chr(c) for c in range(0x20) if c not in (9, 10, 13)] + ["\x7f", "\ufffe", "\uffff", "\u2028", "\ud800"]


def seed_pages() -> list[bytes]:
    pages: list[bytes] = []
    for corpus in sorted(CORPORA.glob("*/pages")) if CORPORA.exists() else ():
        files = sorted(corpus.glob("*.html"), key=lambda p: p.stat().st_size)[:PAGES_PER_CORPUS]
        pages.extend(p.read_bytes() for p in files)
    return pages or [b"<html><body><main><h1>Harbour</h1>" + b"<p>The council voted to rebuild the wall.</p>" * 20
                     + b"</main></body></html>"]


@st.composite
def fragment(draw) -> bytes:
    """Tag soup, deep nesting, control characters, odd attributes or a charset declaration."""
    kind = draw(st.sampled_from(["soup", "deep", "control", "attribute", "charset", "entity"]))
    if kind == "soup":
        parts = draw(st.lists(st.tuples(st.sampled_from(TAGS), st.sampled_from(["<", "</", "<!--", "<?", "<!"])),
                              max_size=30))
        return "".join(f"{o}{t}>" if o in ("<", "</") else f"{o}{t}" for t, o in parts).encode()
    if kind == "deep":
        depth = draw(st.integers(1, 3000))
        tag = draw(st.sampled_from(["div", "span", "b", "table", "ul", "a", "p", "font"]))
        return (f"<{tag}>" * depth + "deep text " + (f"</{tag}>" * draw(st.integers(0, depth)))).encode()
    if kind == "control":
        chars = draw(st.lists(st.sampled_from(CONTROL), min_size=1, max_size=8))
        return "".join(chars).encode("utf-8", "surrogatepass")
    if kind == "attribute":
        name = draw(st.sampled_from(ODD_ATTRIBUTES))
        value = draw(st.sampled_from(["", "x", "javascript:alert(1)", "\"", "a b", "{{x}}", "\x01"]))
        tag = draw(st.sampled_from(TAGS))
        return f"<{tag} {name}=\"{value}\" {name}>text</{tag}>".encode("utf-8", "surrogatepass")
    if kind == "charset":
        return f"<meta charset=\"{draw(st.sampled_from(CHARSETS))}\">".encode()
    return draw(st.sampled_from([b"&#0;", b"&#xD800;", b"&#x110000;", b"&#1114111;", b"&nbsp", b"&#65535;",
                                 b"&#x1F;", b"&amp", b"&#99999999999;"]))


@st.composite
def mutated_page(draw, pages: list[bytes]) -> bytes:
    data = bytearray(draw(st.sampled_from(pages)))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["truncate", "flip", "insert", "insert", "insert", "delete"]))
        if not data:
            break
        at = draw(st.integers(0, len(data)))
        if op == "truncate":
            del data[at:]
        elif op == "flip":
            for _ in range(draw(st.integers(1, 16))):
                i = draw(st.integers(0, max(0, len(data) - 1)))
                if data:
                    data[i] = draw(st.integers(0, 255))
        elif op == "insert":
            data[at:at] = draw(fragment())
        else:
            del data[at:at + draw(st.integers(1, 2000))]
    return bytes(data)


class Hang(BaseException):
    """A case ran past :data:`CASE_SECONDS`."""


def _alarm(signum, frame):
    raise Hang()


def body_text(html: bytes, encoding: str | None = "utf-8") -> str:
    """The words of a page's body (empty when it does not parse). A page nested deeper than
    pagesieve's parser takes (2048 levels: it refuses such a page, and the proxy serves it as it
    came) is read as a browser reads it, by an HTML5 tree builder (lexbor): filtering may add a few
    levels to a page that was just under the limit, and a browser still shows all of it.
    ``encoding`` None: the page's own (sniffed from its bytes and ``<meta>``, as the chain does)."""
    try:
        page = parse(html, declared_encoding=encoding)
    except UnparsableError:
        tree = LexborHTMLParser(html.decode(encoding or detect_encoding(html, None), "replace"))
        tree.strip_tags(["script", "style", "noscript", "template"])
        for skip in tree.css("a.pagesieve-skip"):
            skip.decompose()
        return " ".join((tree.body.text(separator=" ") if tree.body is not None else "").split())
    except InputError:
        return ""
    for skip in page.root.xpath("//script|//style|//noscript|//template|//a[@class='pagesieve-skip']"):
        skip.drop_tree()
    return " ".join(page.body.text_content().split())


#: Words of a page's body a browser shows that the parser may miss before it counts as text lost (the
#: two tree builders differ on where some text of tag soup goes, not on whether it is there).
PARSE_LOSS_WORDS = 20
PARSE_LOSS_SHARE = 0.02
#: Attributes whose value a browser follows or loads as a URL (a script URL there runs).
URL_ATTRIBUTES = ("href", "src", "action", "formaction", "data", "xlink:href", "poster", "background")
_URL_NOISE = {c: None for c in range(0x21)}


def browser_words(data: bytes, encoding: str | None) -> list[str]:
    """The words of the body as a browser builds it (an HTML5 tree builder), scripts and styles aside.
    A browser runs with scripting on (a ``<noscript>``'s content is raw text to the first
    ``</noscript>``); lexbor parses with it off, so each ``<noscript>``'s content is taken out first."""
    text = data.decode(encoding or detect_encoding(data, None), "replace")
    pieces, pos = [], 0
    for _, start, end in noscript_regions(text):
        pieces.append(text[pos:start])
        pos = end
    tree = LexborHTMLParser("".join(pieces) + text[pos:])
    # a frame's content, and what stands in for frames and embeds where they work, is never shown
    tree.strip_tags(["script", "style", "noscript", "template", "title", "iframe", "noembed", "noframes"])
    if tree.body is None:
        return []
    if tree.body.css_first("svg, math") is None:
        return tree.body.text(separator=" ").split()
    return [w for node in tree.body.traverse(include_text=True)
            if node.tag == "-text" and drawn(node) for w in (node.text_content or "").split()]


#: Inside SVG a browser draws text only in its text elements (and HTML only in a foreignObject); inside
#: MathML only in its token elements. Text anywhere else in them (a stray run of characters, a <title>
#: or <desc>, which are a tooltip and a description) is in the DOM but never on screen: Chromium's
#: innerText leaves it out.
DRAWN_IN_FOREIGN = frozenset({"text", "foreignobject", "mi", "mo", "mn", "ms", "mtext"})
FOREIGN_ROOTS = frozenset({"svg", "math"})


def drawn(text_node) -> bool:
    """Whether a browser draws ``text_node`` (a lexbor text node): going up, a text or token element
    comes before an ``<svg>`` or ``<math>``, or neither comes (HTML content)."""
    node = text_node.parent
    while node is not None and node.tag != "body":
        tag = node.tag.lower()
        if tag in DRAWN_IN_FOREIGN:
            return True
        if tag in FOREIGN_ROOTS:
            return False
        node = node.parent
    return True


def parse_loss(data: bytes) -> str | None:
    """What of the body a browser shows the parser lost (None: nothing beyond the tolerance)."""
    from collections import Counter

    try:
        page = parse(data)
    except InputError:
        return None  # refused: the proxy serves the original bytes
    for skip in page.root.xpath("//script|//style|//noscript|//template|//title|//iframe|//noembed|//noframes"):
        skip.drop_tree()
    ours = Counter(" ".join(page.body.itertext()).split())
    theirs = Counter(browser_words(data, page.encoding))
    lost = sum((theirs - ours).values())
    if lost > max(PARSE_LOSS_WORDS, PARSE_LOSS_SHARE * sum(theirs.values())):
        return f"text lost in parsing: {lost} of {sum(theirs.values())} words a browser shows"
    return None


def executable(html: bytes, encoding: str) -> str | None:
    """What in ``html`` would run script in a browser (read as a browser reads it), or None."""
    tree = LexborHTMLParser(html.decode(encoding, "replace"))
    for node in tree.root.traverse() if tree.root is not None else ():
        if node.tag == "script":
            return "a <script> element"
        for name, value in (node.attributes or {}).items():
            if name.startswith("on") or name == "srcdoc":
                return f"a {name} attribute on <{node.tag}>"
            if name in URL_ATTRIBUTES and (value or "").translate(_URL_NOISE).lower().startswith(
                    ("javascript:", "vbscript:")):
                return f"a script URL in {name} of <{node.tag}>"
    return None


def check(chain, data: bytes) -> str | None:
    """What went wrong with ``data`` through ``chain`` (None when every property holds)."""
    previous = signal.signal(signal.SIGPROF, _alarm)
    signal.setitimer(signal.ITIMER_PROF, CASE_SECONDS)  # the process's CPU time (user + system)
    t0 = time.perf_counter()
    try:
        result = chain.process(data, url="http://fuzz.test/page")
    except InputError:
        return None  # refused with a clear reason: the proxy serves the original bytes
    except Hang:
        return f"hang: more than {CASE_SECONDS} s of CPU time"
    except Exception as err:  # noqa: BLE001 - what the property test is looking for
        return f"escaped: {type(err).__name__}: {err}"
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
    if result.failed:  # fail-open worked, but a filter that raises on a page is a defect too
        errors = [r["reason"] for r in result.record if r.get("action") == "error"]
        return f"filter failed: {', '.join(result.failed)}: {'; '.join(errors)[:300]}"
    if result.media_type == "text/html" and any(getattr(f, "secures", False) for f in getattr(chain, "filters", ())):
        if not result.content_security_policy or "script-src 'none'" not in result.content_security_policy:
            return "served without the policy that forbids scripts"
        found = executable(result.body, result.encoding)
        if found:
            return f"executable content left: {found}"
    lost = parse_loss(data)
    if lost:
        return lost
    try:
        if result.media_type == "text/plain":
            after = " ".join(result.body.decode(result.encoding).split())
        else:
            after = body_text(result.body, result.encoding)
        if after:
            return None
        # only when the output has none: the body's text as a browser shows it (charset sniffed, as the chain does)
        before = " ".join(browser_words(data, None))
    except Exception as err:  # noqa: BLE001 - parse raised on the output or the input: a finding, not a crash
        return f"escaped from parse: {type(err).__name__}: {err}"
    if len(before) >= 200:
        return f"text lost: {len(before)} characters of body text in, none out ({time.perf_counter() - t0:.1f} s)"
    return None
