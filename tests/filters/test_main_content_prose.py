"""``main_content``'s *prose around a fragment*: a long text split in sibling chunks (old table layouts, a
``<font>`` per part) keeps every chunk, not the best-scored one; the climb stops at clutter beside it.
And the *semantic main* widening keeps a text of article size when what the main block adds is links."""

import pytest

from tests.conftest import run_filter

SENTENCE = "The council met on Tuesday, heard the residents, and voted to repair the old bridge before winter. "
URL = "http://mills.example/guides/practical-guide.htm"  # an article by its address (pagetype)
PLAIN = "Water runs through the valley in spring and the farmers open the gates of the old mill again. "


def ids(page):
    return {el.get("id") for el in page.root.iter() if isinstance(el.tag, str) and el.get("id")}


def split_page(beside: str = "") -> str:
    """A guide in a layout table: the first part has commas (it scores), the other parts are long plain
    text in tables of their own (they score little: no commas), all in one cell with few links."""
    parts = "".join(f"<table id=t{i}><tr><td><p id=p{i}>{PLAIN * 9}</p></td></tr></table>" for i in range(1, 4))
    return (f"<html><head><title>A practical guide to mills</title></head><body>"
            f"<table><tr><td id=menu><a href=/>Home</a> <a href=/mills>Mills</a> <a href=/contact>Contact</a>"
            f" <a href=/about>About us</a> <a href=/shop>Shop</a></td>"
            f"<td id=cell><h1>A practical guide to mills</h1>"
            f"<table id=t0><tr><td><p id=p0>{SENTENCE * 8}</p></td></tr></table>{parts}{beside}</td></tr></table>"
            f"</body></html>")


@pytest.mark.parametrize("on", [True, False])
def test_a_text_split_in_chunks_keeps_every_chunk(on):
    page, state, _ = run_filter("main_content", split_page(), url=URL, prose_around=on)
    assert next(e for e in state.record if e["action"] == "page-type")["kind"] == "article"
    assert "p0" in ids(page) and ({"p1", "p2", "p3"} <= ids(page)) is on
    assert "menu" not in ids(page)
    widen = [e for e in state.record if e["action"] == "widen"]
    assert bool(widen) is on
    if on:  # --explain says what was chosen first, what won and why
        assert widen[0]["node"] == "td#cell" and widen[0]["measured"]["chars"] < widen[0]["measured"]["prose_chars"] / 2
        assert "less than half of the prose block around it" in widen[0]["reason"]


@pytest.mark.parametrize("side_links, widened", [(8, True), (40, False)])
def test_the_climb_passes_a_row_a_little_over_the_link_bound(side_links, widened):
    # the text's first part sits in a row whose other cell holds a few links (the row alone is a little
    # over section_link_density, the table around all parts well under it): the climb passes the row;
    # a cell of many links makes the whole table a link block and it does not
    links = " ".join(f"<a href=/s{i}>Section {i} of it</a>" for i in range(side_links))
    parts = "".join(f"<tr><td colspan=2><p id=p{i}>{PLAIN * 9}</p></td></tr>" for i in range(1, 4))
    html = (f"<html><head><title>A practical guide to mills</title></head><body><table id=doc>"
            f"<tr><td id=first><table><tr><td><p id=p0>{SENTENCE * 8}</p></td></tr></table></td>"
            f"<td id=side>{links}</td></tr>{parts}</table></body></html>")
    page, state, _ = run_filter("main_content", html, url=URL)
    assert "p0" in ids(page) and ({"p1", "p2", "p3"} <= ids(page)) is widened
    if widened:
        widen = next(e for e in state.record if e["action"] == "widen")
        assert widen["measured"]["link_density"] <= widen["threshold"]["section_link_density"]


def test_the_climb_stops_at_a_comment_thread_beside_the_text():
    comments = "".join(f"<div class=comment id=c{i}><p>{PLAIN * 4}</p></div>" for i in range(8))
    page, state, _ = run_filter("main_content", split_page(f"<div class=comments id=thread>{comments}</div>"),
                                url=URL)
    assert "p0" in ids(page) and "c0" not in ids(page)
    assert not any(e["action"] == "widen" and e["node"] == "td#cell" for e in state.record)


def test_a_short_story_does_not_take_the_furniture_around_it():
    # under min_article_chars: a short story, and what lies beside it is the page's own (a newsletter box)
    html = (f"<html><head><title>Short news</title></head><body><table><tr><td id=cell>"
            f"<div id=story><p id=p0>{SENTENCE * 3}</p></div>"
            f"<table id=box><tr><td>Get the news by mail every day. {PLAIN * 4}</td></tr></table>"
            f"</td></tr></table></body></html>")
    page, state, _ = run_filter("main_content", html, url=URL)
    assert next(e for e in state.record if e["action"] == "page-type")["kind"] == "article"
    assert "p0" in ids(page) and "box" not in ids(page)


@pytest.mark.parametrize("on", [True, False])
def test_a_category_text_is_kept_without_the_grid_of_links_beside_it(on):
    # the page's <main> holds a shop category's description (article size) and a grid of products whose
    # names are links: the main block as a whole is under main_link_density, what it adds beside the text
    # is mostly links; the text wins over the semantic-main widening, and the note says why
    items = "".join(f"<li id=i{i}><a href=/p/{i}>Silver hoop earrings model {i}</a> <span>Silver</span>"
                    f" <span>${400 + i}</span></li>" for i in range(30))
    html = (f"<html><head><title>Silver earrings</title></head><body><nav id=nav><a href=/>Home</a>"
            f" <a href=/shop>Shop</a></nav><main id=main><h1>Silver earrings</h1><ul class=grid id=grid>{items}"
            f"</ul><div class=seo id=text><p id=p0>{SENTENCE * 4}</p><p id=p1>{PLAIN * 3}</p></div></main>"
            f"<footer id=foot><a href=/terms>Terms</a></footer></body></html>")
    page, state, _ = run_filter("main_content", html, text_over_links=on)
    assert {"p0", "p1"} <= ids(page) and ("i0" in ids(page)) is not on
    keep = [e for e in state.record if e["action"] == "keep"]
    assert bool(keep) is on
    if on:
        assert keep[0]["measured"]["rest_link_density"] > keep[0]["threshold"]["main_link_density"]
        assert "mostly links" in keep[0]["reason"]


def test_the_headings_right_above_the_chosen_blocks_join_them():
    # an FAQ of answer blocks chosen as one class's cousins: each answer's question (a heading right
    # above it) joins; a heading that links elsewhere (a teaser's) and a page heading do not
    items = "".join(f"<div class=item><h3 id=q{i}>Question {i}: how long does the bridge repair take?</h3>"
                    f"<div class=answer id=a{i}><p>{SENTENCE * 3}</p></div></div>" for i in range(3))
    html = (f"<html><body><div id=menu><a href=/>Home</a> <a href=/a>About</a></div><div id=faq>{items}</div>"
            f"<div class=item><h3 id=teaser><a href=/other>Another story about the bridge</a></h3>"
            f"<div class=answer id=t><p>{SENTENCE * 3}</p></div></div></body></html>")
    page, state, _ = run_filter("main_content", html)
    left = ids(page)
    assert {"q0", "a0", "q1", "a1", "q2", "a2", "t"} <= left
    assert "teaser" not in left and "menu" not in left
    note = next(e for e in state.record if e["action"] == "widen" and "headings" in e["reason"])
    assert note["measured"] == {"headings": 3}


def test_a_cards_summary_link_hidden_from_screen_readers_only_is_shown():
    # a topic page's stories: each card links its title, and again its summary, the second link kept
    # from screen readers and the keyboard (aria-hidden, tabindex=-1) as a duplicate: a reader still sees it
    cards = "".join(f"<article class=card><h2><a href=/s{i}>Story {i} about the bridge</a></h2>"
                    f"<p id=sum{i}><a href=/s{i} aria-hidden=true tabindex=-1>{SENTENCE}</a></p>"
                    f"<p>{SENTENCE}</p></article>" for i in range(4))
    html = (f"<html><body><div id=menu><a href=/>Home</a> <a href=/a>About</a></div><main id=list>{cards}"
            f"<p id=skip aria-hidden=true>{SENTENCE}</p></main></body></html>")
    page, _, _ = run_filter("main_content", html)
    left = ids(page)
    assert {"sum0", "sum1", "sum2", "sum3"} <= left
    assert all(len(page.root.get_element_by_id(f"sum{i}")) == 1 for i in range(4))  # the link and its words
    assert "skip" not in left  # hidden from everyone who reads it aloud, and not a link: still left out


@pytest.mark.parametrize("related, kept", [
    # the page's own instructions in a block its site named "map-and-related": prose, hardly a link
    (f"<div id=map-and-related><p id=r1>{SENTENCE * 3}</p><p>Visit <a href=/help>our help pages</a> "
     f"to look up more.</p></div>", True),
    # a list of related stories, each a linked title over its summary: the links make it a list
    ("<div id=related-stories>" + "".join(f"<p id=r{i}><a href=/s{i}>Another story about the old bridge "
                                          f"number {i}</a> The council met again.</p>" for i in range(1, 5))
     + "</div>", False),
])
def test_a_block_named_related_is_kept_only_when_it_is_prose(related, kept):
    html = (f"<html><body><div id=menu><a href=/>Home</a> <a href=/a>About</a></div><main><article id=story>"
            f"<h1>Legal help</h1><p id=intro>{SENTENCE * 9}</p>{related}</article></main></body></html>")
    page, _, _ = run_filter("main_content", html)
    left = ids(page)
    assert "intro" in left and ("r1" in left) is kept
