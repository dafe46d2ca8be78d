"""scan.Scan (one walk of the page for every metadata reader) reads what the whole-page XPaths it
replaced read: the same <meta> contents, JSON-LD scripts, itemtypes, headings and controls, in the
same order, on pages with each case (meta in the body, a heading outside it, fragments, no <body>)."""

import json

import lxml.html
import pytest
from lxml import etree

from pagesieve.analysis import headline, pagemeta, scan
from pagesieve.analysis.pagetype import _OG_TYPE, detect, has_cart, schema_types
from pagesieve.core import dom
from pagesieve.engine.document import parse

# The XPaths the readers asked before the scan (article, main_content, pagetype).
OLD = {
    headline._META_HEADLINE: "//meta[@property='og:title' or @name='og:title' or @name='twitter:title' "
                            "or @property='twitter:title']/@content",
    headline._AUTHOR_META: "//meta[@name='author' or @property='article:author' or @name='article:author' "
                               "or @name='byl' or @name='dc.creator']/@content",
    headline._DATE_META: "//meta[@property='article:published_time' or @name='article:published_time' "
                             "or @itemprop='datePublished' or @name='date' or @name='pubdate']/@content",
    _OG_TYPE: "//meta[@property='og:type' or @name='og:type']/@content",
}
JSONLD = etree.XPath("//script[@type='application/ld+json']")
ITEMTYPES = etree.XPath("//@itemtype")

PAGE = (
    "<html itemtype=https://schema.org/WebPage><head><title>T</title>"
    "<meta property=og:title content='Harbour wall rebuilt | Gazette'><meta name=og:title>"
    "<meta name=twitter:title content=' '><meta property=twitter:title content='Second'>"
    "<meta name=author content='https://x.example/me'><meta name=AUTHOR content=Upper><meta name=byl content='By Ann'>"
    "<meta property=og:type content=article><meta name=og:type content=' product '>"
    "<meta itemprop=datePublished content='2024-01-02T10:00'><meta name=pubdate content=never>"
    "<script type='application/ld+json'>{\"@type\": \"NewsArticle\", \"headline\": \"Harbour  wall\"}</script>"
    "<script type='application/ld+json '>{\"@type\": \"Product\"}</script>"
    "<script type='APPLICATION/LD+JSON'>{\"@type\": \"Recipe\"}</script>"
    "<script type='application/ld+json'>{not json</script>"
    "<script type='application/ld+json'></script>"
    "<script>var headline = 1;</script></head>"
    "<body><meta name=dc.creator content='In Body'><h2>Harbour wall rebuilt</h2><h1></h1><h1>Harbour wall</h1>"
    "<div itemscope itemtype='https://schema.org/Person/'><span itemtype=Thing>n</span></div>"
    "<form class=search><input name=q><button>Add to cart</button></form>"
    "<script type='application/ld+json'>[{\"@graph\": [{\"@type\": [\"Organization\", 3]}]}]</script>"
    "<!-- <meta name=author content=comment> --></body></html>"
)
PAGES = [
    PAGE,
    "<html><head><meta name=author content=A></head><body><p>no headline</p></body></html>",
    "<html><body><h2>Only an h2</h2><h2>Two</h2></body></html>",
    "<p>a fragment <meta name=author content=F></p>",
    "",
]


def _roots():
    for html in PAGES:
        if html:
            page = parse(html.encode())
            yield page.root
            yield lxml.html.fromstring(html)  # a fragment's root is its element, not the document's
    # Trees the HTML parser does not make: a heading and a control in <head>, <meta> in <body>, a
    # <body> below a <div>, no <body> at all.
    html = dom.element("html")
    head = dom.element("head")
    head.append(dom.element("h1", text="In head"))
    head.append(dom.element("button", {"class": "add-to-cart"}))
    head.append(dom.element("meta", {"name": "author", "content": "Head"}))
    html.append(head)
    body = dom.element("body")
    body.append(dom.element("meta", {"name": "author", "content": "Body"}))
    body.append(dom.element("h1", text="In body"))
    html.append(etree.Comment("c"))
    html.append(body)
    yield html
    outer = dom.element("html")
    div = dom.element("div")
    div.append(dom.element("h1", text="Before"))
    inner = dom.element("body")
    inner.append(dom.element("h1", text="Inside"))
    div.append(inner)
    outer.append(div)
    outer.append(dom.element("meta", {"property": "og:type", "content": "product"}))
    yield outer
    bare = dom.element("div")
    bare.append(dom.element("h1", text="No body"))
    bare.append(dom.element("input", {"value": "Buy now"}))
    yield bare


@pytest.mark.parametrize("root", list(_roots()), ids=lambda r: r.tag)
def test_scan_reads_what_the_xpaths_read(root):
    found = scan.Scan(root)
    for keys, xpath in OLD.items():
        assert found.content(keys) == etree.XPath(xpath)(root)
    parsed = []
    for script in JSONLD(root):
        try:
            parsed.append(json.loads(script.text or ""))
        except ValueError:
            continue
    assert found.jsonld == parsed
    assert found.itemtypes == ITEMTYPES(root)
    body = dom.body_of(root)
    assert found.h1 == list(body.iter("h1"))
    assert found.h2 == list(body.iter("h2"))
    assert found.controls == list(body.iter("button", "form", "input"))
    title = next((t for t in root.getroottree().getroot().iter("title")
                  if not any(a.tag == "svg" for a in t.iterancestors())), None)
    assert found.title == (" ".join(title.text_content().split()) if title is not None else "")


def test_scan_title_is_the_documents_not_an_svg_images():
    page = parse(b"<html><body><svg><title>Icon</title></svg><h1>x</h1></body></html>")
    assert scan.Scan(page.root).title == ""
    page = parse(b"<html><head><title> Story \n | Site </title></head><body><svg><title>Icon</title></svg></body></html>")
    assert scan.Scan(page.root).title == "Story | Site"


def test_page_metadata_from_the_scan():
    page = parse(PAGE.encode())
    meta = pagemeta.of(page)
    assert meta.headline.text == "Harbour wall" and meta.headline.source == "<h1> matching the schema.org headline"
    assert meta.byline == "By By Ann · 2024-01-02"  # the address is no author, values match as written
    assert meta.schema_types == ("newsarticle", "organization", "webpage", "person", "thing")
    assert meta.og_types == ("article", " product ")
    assert meta.cart
    assert pagemeta.of(page) is meta  # read once
    # The root-only readers (no scan given) say the same.
    root = page.root
    assert headline.page_headline(root) == meta.headline
    assert headline.byline(root) == meta.byline
    assert tuple(schema_types(root)) == meta.schema_types
    assert has_cart(root) == meta.cart
    assert detect(root).scores == detect(root, declared=meta, cart=meta.cart).scores
