"""Page type detection from the page itself: declared types, repeated items, furniture, address."""

import lxml.html
import pytest

from pagesieve.analysis.pagetype import KINDS, MIN_ITEMS, detect
from tests.conftest import run_filter

PROSE = "<div id=story>" + "".join(f"<p>Paragraph {i} of a long story, with enough words to be prose here.</p>"
                                   for i in range(40)) + "</div>"


def items(n: int, price: bool = False) -> str:
    return "<ul>" + "".join(f"<li class=item><a href=/i{i}>Item {i}</a> {'$12.50' if price else 'a short teaser'}</li>"
                            for i in range(n)) + "</ul>"


def cards(n: int, summary: str) -> str:
    """Teaser cards whose one link wraps the whole card: a heading and a summary."""
    return "<div>" + "".join(f"<div class=card><a href=/s{i}><h3>Story {i}</h3><p>{summary}</p></a></div>"
                             for i in range(n)) + "</div>"


def shop_items(n: int) -> str:
    """A shop's product tiles: one kind (the first class name), each with names of its own after it."""
    return "<ul class=products>" + "".join(
        f"<li class='product post-{1500 + i} {('first', 'last', 'instock')[i % 3]} product_cat-{i % 4}'>"
        f"<a href=/p{i}><h2>Cup {i}</h2><span class=price>$29.95</span></a> <span>In 8 colours</span></li>"
        for i in range(n)) + "</ul>"


def posts(n: int) -> str:
    return "".join(f"<div class=post><span class=username>user{i}</span><p>This is reply number {i} to the thread, "
                   f"with an opinion.</p><a href=/u{i}>profile</a></div>" for i in range(n))


def camel_posts(n: int) -> str:
    """A forum's posts named in camelCase ("cPost", "ipsComment", "elComment_67260087"), each a link beside it."""
    return "".join(f"<article id=elComment_{6726 + i} class='cPost ipsBox ipsComment'><a href=/u{i}>user{i}</a>"
                   f"<span class=ipsType_author>user{i}</span><p>This is reply number {i} to the thread, with an "
                   f"opinion of its own.</p></article>" for i in range(n))


@pytest.mark.parametrize("html, url, kind", [
    ("<script type='application/ld+json'>{\"@type\": \"Product\", \"name\": \"Sock\"}</script><p>Sock</p>", None,
     "product"),
    (f"<body>{PROSE}</body>", "https://example.org/2024/05/story.html", "article"),
    (f"<body>{posts(5)}</body>", None, "forum"),
    (f"<body>{camel_posts(MIN_ITEMS)}</body>", None, "forum"),  # posts, not a listing of linked items
    (f"<body>{items(MIN_ITEMS)}</body>", None, "listing"),
    (f"<body>{items(MIN_ITEMS - 1)}</body>", None, "service"),  # below the item count: no signal
    (f"<body>{items(MIN_ITEMS, price=True)}</body>", None, "collection"),
    (f"<body>{shop_items(MIN_ITEMS)}</body>", None, "collection"),
    # a card whose one link holds its title and a summary of a sentence or more is a linked item too
    (f"<body>{cards(MIN_ITEMS, 'A renter was stopped by the police because her car was listed as stolen.' * 2)}"
     "</body>", None, "listing"),
    # ... but a menu of links wrapping a heading and a short label is not a listing
    (f"<body>{cards(MIN_ITEMS, 'Browse models')}</body>", None, "service"),
    ("<body>" + "<pre>code()</pre>" * 3 + "</body>", None, "documentation"),
    ("<body><h1>We build websites</h1><p>Call us.</p></body>", None, "service"),
    # a service page's FAQ marks its entries as schema.org Questions: not a forum (a QAPage is)
    ("<body><h1>Data services</h1>" + "<div itemscope itemtype=https://schema.org/Question><h3>Why us?</h3>"
     "<p>Because.</p></div>" * 3 + "</body>", None, "service"),
    ("<body><div itemscope itemtype=https://schema.org/QAPage><h1>How do I sort a dict?</h1></div></body>", None,
     "forum"),
    # Amazon names every section "celwidget": not a sidebar widget, its grid is the page's
    (f"<body><div class='celwidget c-f'>{items(MIN_ITEMS, price=True)}</div></body>", None, "collection"),
    (f"<body><div class='widget widget_text'>{items(MIN_ITEMS, price=True)}</div></body>", None, "service"),
])
def test_detect(html, url, kind):
    got = detect(lxml.html.document_fromstring(f"<html>{html}</html>"), url)
    assert got.kind == kind and got.kind in KINDS
    assert got.why()  # every decision says why


def test_reader_explains_the_page_type():
    _, state, _ = run_filter("main_content", f"<html><body>{PROSE}</body></html>", url="https://example.org/a.html")
    note = next(e for e in state.record if e["action"] == "page-type")
    assert note["reason"].startswith("page type: article (") and "prose block" in note["reason"]


def test_declared_types_can_come_from_metadata_read_earlier():
    from pagesieve.analysis import pagemeta
    from pagesieve.analysis.pagetype import detect
    from pagesieve.engine.document import parse

    page = parse(b"<html><head><meta property='og:type' content='product'></head><body><p>x</p></body></html>")
    meta = pagemeta.of(page)
    for m in list(page.root.iter("meta")):
        m.getparent().remove(m)
    assert detect(page.root).kind == "service"  # the tree no longer says it
    assert detect(page.root, declared=meta).kind == "product"


def test_json_ld_nested_deeper_than_python_s_stack_is_ignored():
    # Found while fixing a fuzz finding: json.loads raises RecursionError (not ValueError) there.
    from pagesieve.analysis.headline import page_headline

    root = lxml.html.fromstring("<html><head><script type='application/ld+json'>" + "[" * 50000 + "]" * 50000
                                + "</script></head><body><h1>Harbour wall rebuilt</h1><p>text</p></body></html>")
    assert detect(root).kind in KINDS
    assert page_headline(root).text == "Harbour wall rebuilt"
