"""The adversarial corpus: hostile and odd responses, built here at test time (no checked-in megabytes).

Each :class:`Case` is an origin route plus what the proxy may answer: the page filtered (and
then its ``marker`` sentence kept) or the origin's bytes unchanged — never anything else. Used
by ``tests/proxy/test_adversarial.py`` (through a real ``pagesieve run``) and by
``benchmarks/bench_load.py``.

    python -m tests.proxy.adversarial      # lists the cases and their sizes
"""

from __future__ import annotations

import gzip
import itertools
import struct
import zlib
from dataclasses import dataclass

from tests.proxy.conftest import ARTICLE, Route

MARKER = "The harbour wall will be rebuilt in two summers"
MB = 1 << 20


def page(body: str, head: str = "", charset: str = "utf-8") -> str:
    return (f"<!doctype html><html><head><meta charset={charset}><title>Case</title>{head}</head>"
            f"<body><script>var tracker = 1;</script>{body}</body></html>")


NORMAL = page(f"<div id=story><h1>Normal</h1><p>{MARKER}.</p>{ARTICLE}</div>").encode()


@dataclass
class Case:
    name: str
    route: Route
    #: A sentence a filtered answer must keep (None: the page has no text to keep).
    marker: str | None = MARKER
    #: The origin never ends the body: the client reads this many bytes and hangs up.
    endless: bool = False
    #: What the proxy's X-Pagesieve must say, when only one answer is right (else any).
    expect: str | None = None
    #: A known defect that makes this case fail today (where it is tracked), or None.
    known: str | None = None
    #: How the proxy's X-Pagesieve must start, when only that is fixed (e.g. "filtered;").
    expect_start: str | None = None


def gzip_bomb(inflated: int = 1100 * MB) -> bytes:
    """A valid gzip body of ``inflated`` zero bytes, ~1 KB per MB (built in well under a second:
    one full-flushed deflate block of 1 MB of zeros, repeated; full flushes make blocks independent)."""
    zeros = bytes(MB)
    co = zlib.compressobj(9, zlib.DEFLATED, -15)
    co.compress(zeros)
    co.flush(zlib.Z_FULL_FLUSH)  # the first block; the next ones are byte-identical
    block = co.compress(zeros) + co.flush(zlib.Z_FULL_FLUSH)
    end = co.flush()
    n = inflated // MB
    crc = 0
    for _ in range(n):
        crc = zlib.crc32(zeros, crc)
    return (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff" + block * n + end
            + struct.pack("<II", crc, (n * MB) & 0xFFFFFFFF))


def endless_html():
    yield page("<div id=story>").encode()[:-len("</body></html>")]
    for i in itertools.count():
        yield (f"<p>Paragraph {i}: {MARKER}.</p>" * 200).encode()


def build_cases() -> list[Case]:
    html = {"Content-Type": "text/html; charset=utf-8"}
    story = f"<div id=story><p>{MARKER}.</p>{ARTICLE}</div>"
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 40
    cases = [
        Case("gzip-bomb", Route(headers={**html, "Content-Encoding": "gzip"}, body=gzip_bomb()), marker=None,
             expect="unfiltered; reason=too-large"),
        Case("endless-chunked", Route(headers=html, chunks=endless_html), endless=True,
             expect="unfiltered; reason=too-large"),
        Case("page-50mb", Route(headers=html, body=page(story + "<p>filler text</p>" * (50 * MB // 18)).encode()),
             expect="unfiltered; reason=too-large"),
        Case("elements-1m", Route(headers=html, body=page(story + "<i>a</i>" * 1_000_000).encode())),
        Case("attribute-10mb", Route(headers=html, body=page(f'<div title="{"x" * (10 * MB)}">{story}</div>').encode())),
        Case("nul-bytes", Route(headers=html, body=page(story + "<p>a\x00b\x00\x00c</p>").encode())),
        Case("invalid-utf8", Route(headers=html, body=page(story).encode() + b"<p>\xff\xfe\xc3\x28 \xed\xa0\x80</p>")),
        Case("unknown-charset", Route(headers={"Content-Type": "text/html; charset=x-no-such-charset"},
                                      body=page(story, charset="x-no-such-charset").encode())),
        Case("xhtml", Route(headers={"Content-Type": "application/xhtml+xml"},
                            body=(f'<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml">'
                                  f"<head><title>x</title></head><body><p>{MARKER}.</p></body></html>").encode()),
             expect="unfiltered; reason=not-html"),
        Case("png-as-html", Route(headers=html, body=png), marker=None),
        Case("empty-body", Route(headers=html, body=b""), marker=None),
        Case("deep-nesting-10k", Route(headers=html, body=page("<div>" * 10_000 + story).encode()),
             expect="unfiltered; reason=unparsable"),
        Case("deep-nesting-400", Route(headers=html, body=page("<div>" * 400 + story).encode())),
        Case("button-swallows-page", Route(headers=html, body=page("<header><button><div><div></button></header>"
                                                                   + story).encode())),
        Case("utf8-labelled-gb2312", Route(headers={"Content-Type": "text/html"},
                                           body=page(story + "<p>Zürich — 中文</p>", charset="gb2312")
                                           .encode("utf-8"))),
        Case("xml-declaration-junk", Route(headers=html, body=('<?xml version="1.0" encoding="junk"?>'
                                                               + page(story)).encode())),
        Case("origin-sends-x-pagesieve", Route(headers={**html, "X-Pagesieve": "unfiltered; reason=bypassed"},
                                               body=page(story).encode())),
        Case("gzip-corrupt", Route(headers={**html, "Content-Encoding": "gzip"},
                                   body=gzip.compress(page(story).encode())[:-40] + b"garbage" * 5),
             marker=None),
        Case("control-chars", Route(headers=html, body=page(story + "<p>\x01\x02\x0b\x1b[31m\x7f</p>").encode())),
        # Pages that once left with their scripts, or lost text, while labelled filtered.
        Case("nul-in-first-4k", Route(headers=html, body=page("<p>\x00</p>" + story).encode()),
             expect_start="filtered;"),
        Case("object-fallback-is-the-text", Route(headers=html, body=page(f"<object>{story}</object>").encode()),
             expect_start="filtered;"),
        Case("brace-attribute", Route(headers=html, body=page(f'<i {{x="javascript:alert(1)">i</i>{story}').encode()),
             expect_start="filtered;"),
        Case("svg-style-markup", Route(headers=html, body=page(f"<svg><style><img src=x onerror=alert(1)></style></svg>"
                                                                f"{story}").encode()), expect_start="filtered;"),
        Case("stray-end-of-html", Route(headers=html, body=page(f"<p>First. </html>{MARKER}.</p>{ARTICLE}").encode()),
             expect_start="filtered;"),
        Case("unclosed-embed", Route(headers=html, body=page(f"<p>a</p><embed src=x><p>{MARKER}.</p>{ARTICLE}").encode()),
             expect_start="filtered;"),
    ]
    return cases


if __name__ == "__main__":
    for c in build_cases():
        print(f"{c.name:28} {len(c.route.body):>12,} bytes{'  (endless)' if c.endless else ''}")
