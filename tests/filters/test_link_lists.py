"""The paper's link-list remover: links / non-linked words (letters / chars_per_word) > ratio."""


import pytest
from lxml import etree

from pagesieve.core import dom
from tests.conftest import run_filter, run_filters
from tests.filters.test_article import para

STORY = f"<p id=story>{para(400)}</p>"  # text that stays, so the chain's loss guard has no say


def menu(n: int, words: str = "") -> str:
    links = "".join(f"<li><a href=/p{i}>Page {i}</a></li>" for i in range(n))
    return f"<ul id=menu>{links}</ul>{words}"


def test_ratio_boundary_is_strict():
    # 2 links, 20 non-link letters = 4 words: ratio 0.5. Removed when the ratio setting is below it.
    html = "<html><body><div id=b><a href=/a>A</a> <a href=/b>B</a> " + "abcde " * 4 + f"</div>{STORY}</body></html>"
    page, state, _ = run_filter("link_lists", html, ratio=0.49)
    assert page.root.get_element_by_id("b", None) is None
    entry = next(e for e in state.record if e["action"] == "remove")
    assert entry["measured"] == {"links": 2, "non_linked_words": 4.0, "ratio": 0.5}
    assert entry["threshold"]["ratio"] == 0.49
    page, _, _ = run_filter("link_lists", html, ratio=0.5)  # "exceeds": equal stays
    assert page.root.get_element_by_id("b", None) is not None


def test_chars_per_word_changes_the_word_count():
    html = "<html><body><div id=b><a href=/a>A</a> <a href=/b>B</a> " + "abcde " * 4 + f"</div>{STORY}</body></html>"
    page, _, _ = run_filter("link_lists", html, ratio=0.3, chars_per_word=2)  # 10 words: 0.2
    assert page.root.get_element_by_id("b", None) is not None
    page, _, _ = run_filter("link_lists", html, ratio=0.3, chars_per_word=10)  # 2 words: 1.0
    assert page.root.get_element_by_id("b", None) is None


def test_menu_removed_story_kept_and_all_siblings_walked():
    html = (f"<html><body><nav id=n1>{menu(5)}</nav><p id=story>{para(300)}</p>"
            f"<div id=n2>{menu(4)}</div><aside id=n3>{menu(6)}</aside></body></html>")
    page, state, _ = run_filter("link_lists", html)
    for gone in ("n1", "n2", "n3"):  # every link list, not only the first (walk not cut by removals)
        assert page.root.get_element_by_id(gone, None) is None, gone
    assert page.root.get_element_by_id("story") is not None
    assert [e["filter"] for e in state.record if e["action"] == "remove"] == ["link_lists"] * 3


def test_single_link_is_not_a_list_unless_configured():
    html = f"<html><body><div id=b><a href=/a>Read more</a></div>{STORY}</body></html>"
    page, _, _ = run_filter("link_lists", html)
    assert page.root.get_element_by_id("b", None) is not None
    page, _, _ = run_filter("link_lists", html, min_links=1)
    assert page.root.get_element_by_id("b", None) is None


def test_table_cell_content_or_cell_removed():
    html = (f"<html><body><table id=t><tr><td id=nav>{menu(5)}</td><td id=main>{para(300)}</td></tr></table>"
            "</body></html>")
    page, _, _ = run_filter("link_lists", html, tags=["td"])
    cell = page.root.get_element_by_id("nav")
    assert cell is not None and not len(cell) and not (cell.text or "").strip()  # emptied, grid kept
    page, _, _ = run_filter("link_lists", html, tags=["td"], remove_cells=True)
    assert page.root.get_element_by_id("nav", None) is None
    assert page.root.get_element_by_id("main") is not None


def test_data_table_cells_are_never_link_lists():
    rows = "".join(f"<tr><td><a href=/a{i}>A{i}</a> <a href=/b{i}>B{i}</a></td><td><a href=/c{i}>C</a> "
                   f"<a href=/d{i}>D</a></td><td>{i}</td></tr>" for i in range(4))
    html = f"<html><body><table id=t><tr><th>Name</th><th>Links</th><th>N</th></tr>{rows}</table></body></html>"
    page, _, _ = run_filter("link_lists", html, tags=["td"])
    assert len(page.root.findall(".//a")) == 16


def test_big_text_wrapper_is_not_removed_whole():
    html = (f"<html><body><div id=wrap>{menu(40)}<p id=story>{para(800)}</p></div></body></html>")
    page, _, _ = run_filter("link_lists", html)
    assert page.root.get_element_by_id("wrap") is not None
    assert page.root.get_element_by_id("story") is not None
    assert page.root.get_element_by_id("menu", None) is None  # the inner block was judged instead


def test_inside_the_article_only_link_heavy_blocks_go():
    # Inside the marked article: a short text block with 3 links is mostly text: kept; a related-links list goes.
    inline = ("<div id=inline>See <a href=/x>x</a>, <a href=/y>y</a> and <a href=/z>z</a> "
              "for the full ruling of the court today.</div>")
    html = (f"<html><body><div id=art><p>{para(700)}</p>{inline}<ul id=rel><li><a href=/r1>Related story one</a>"
            f"<li><a href=/r2>Related story two</a></ul></div></body></html>")
    page, state, _ = run_filters([("article", {}), ("link_lists", {"ratio": 0.3})], html)
    assert state.article.get("id") == "art"
    assert page.root.get_element_by_id("inline") is not None
    assert page.root.get_element_by_id("rel", None) is None
    # Without the article mark the same block is a link list at this ratio.
    page, _, _ = run_filter("link_lists", html, ratio=0.3)
    assert page.root.get_element_by_id("inline", None) is None


def test_removed_text_links_are_recorded_for_the_retainer():
    html = f"<html><body><nav>{menu(3)}</nav>{STORY}</body></html>"
    _, state, _ = run_filters([("link_lists", {}), ("removed_links", {})], html)
    assert [(h, t) for _, h, t in state.removed_links] == [("/p0", "Page 0"), ("/p1", "Page 1"), ("/p2", "Page 2")]
    # removals undone (the menu was all the text there was: reverted), links no longer "removed"
    _, state, stats = run_filters([("link_lists", {}), ("removed_links", {})],
                                  f"<html><body><nav>{menu(3)}</nav></body></html>")
    assert stats[0]["status"] == "reverted" and state.removed_links == []


def test_corpus_declutter_link_lists_keep_the_article(corpus):
    """On real pages the filter (after ignore + article marking) keeps nearly all main text."""
    import re
    recalls = []
    for _, path, truth in corpus[:40]:
        page, _, _ = run_filters([("ignore", {}), ("article", {}), ("link_lists", {})], path.read_bytes())
        want = re.findall(r"\w+", truth.lower())
        got = set(re.findall(r"\w+", dom.text_of(dom.body_of(page.root)).lower()))
        if want:
            recalls.append(sum(w in got for w in want) / len(want))
    assert min(recalls) >= 0.9 and sum(recalls) / len(recalls) >= 0.98, (min(recalls), sum(recalls) / len(recalls))


def _cards(n: int, price: bool) -> str:
    return "".join(f"<div class='card c{i}'><a href=/p{i}>Solid walnut dining table number {i}, hand finished</a>"
                   f"{' <span>$19.99 each</span>' if price else ''}</div>" for i in range(n))


@pytest.mark.parametrize("price, kept", [(True, True), (False, True)])
def test_a_grid_of_items_is_not_a_link_list(price, kept):
    # 8 repeated items: with a price each (text of their own), or long whole-link cards that are the page
    html = f"<html><body><nav id=n>{menu(6)}</nav><div id=grid>{_cards(8, price)}</div></body></html>"
    page, state, _ = run_filter("link_lists", html)
    assert page.root.get_element_by_id("n", None) is None  # the menu still goes
    assert (page.root.get_element_by_id("grid", None) is not None) is kept
    assert any(e["action"] == "keep" and "grid" in e["reason"] for e in state.record)


def test_min_items_boundary_and_grids_in_furniture_go():
    html = f"<html><body><div id=grid>{_cards(3, False)}</div>{STORY}</body></html>"
    page, _, _ = run_filter("link_lists", html)  # 3 items < min_items 4: a link list again
    assert page.root.get_element_by_id("grid", None) is None
    html = f"<html><body><footer><div id=grid>{_cards(8, True)}</div></footer>{STORY}</body></html>"
    page, _, _ = run_filter("link_lists", html)  # in the footer: furniture, never protected (not as a
    assert page.root.get_element_by_id("grid", None) is None  # grid, nor as a shelf: prices beside links)


@pytest.mark.parametrize("url, kept", [
    ("https://docs.example.org/guides/auth", True),            # /guides/auth/apple … are under this page
    ("https://docs.example.org/guides/auth/", True),
    ("https://docs.example.org/guides/billing", False),        # a list of another section's pages
    ("https://other.example.org/guides/auth", False),          # same path, another site
    ("https://docs.example.org/", False),                      # every page is under the root
    (None, False),
])
def test_a_list_of_the_pages_under_this_one_in_main_is_its_table_of_contents(url, kept):
    grid = "".join(f"<div><a href='https://docs.example.org/guides/auth/{p.lower()}'>{p}</a></div>"
                   for p in ("Apple", "Azure", "GitHub", "Google", "Slack"))
    html = (f"<html><body><div id=side>{menu(6)}</div><main><p>Sign your users in with a provider:</p>"
            f"<div id=providers>{grid}</div>{STORY}</main></body></html>")
    page, state, _ = run_filter("link_lists", html, url=url)
    assert (page.root.get_element_by_id("providers", None) is not None) == kept
    assert "Page 19" not in page.body.text_content()  # the side menu goes either way


def test_a_wrapper_holding_most_of_the_page_is_not_removed_whole():
    links = " ".join(f"<a href=/x{i}>Story headline number {i}</a>" for i in range(30))
    html = f"<html><body><div id=app><div id=inner>{links} a few words</div></div></body></html>"
    page, _, _ = run_filter("link_lists", html, page_share=0.5)
    assert page.root.get_element_by_id("app", None) is not None  # the page itself
    assert page.root.get_element_by_id("inner", None) is not None  # also 100% of the page
    page, _, _ = run_filter("link_lists", html, page_share=1.0)
    assert page.root.get_element_by_id("app", None) is not None  # 100% >= 1.0: still the page


def _categories(n: int) -> str:
    return "<ul id=cats>" + "".join(f"<li><a href=/c{i}>Category {i}</a></li>" for i in range(n)) + "</ul>"


@pytest.mark.parametrize("letters, kept", [(260, True), (150, False)])
def test_a_column_holding_a_short_post_beside_its_categories_is_not_removed_whole(letters, kept):
    # The column is link-dense (40 category links) but holds a paragraph of prose: only the list goes.
    html = (f"<html><body><div id=col><div id=side>{_categories(40)}</div>"
            f"<div id=post><p>{'word ' * (letters // 4)}</p></div></div><p>{para(1500)}</p></body></html>")
    page, _, _ = run_filter("link_lists", html)
    assert page.root.get_element_by_id("cats", None) is None
    assert (page.root.get_element_by_id("post", None) is not None) is kept


@pytest.mark.parametrize("letters, kept", [(260, True), (150, False)])
def test_a_post_written_with_line_breaks_not_paragraphs_counts_as_prose(letters, kept):
    # A forum post in a <div> with <br> (no <p>) among 30 links (quotes, mentions, signature): its own
    # run of text is a paragraph, so its message block is not removed whole.
    links = " ".join(f"<a href=/m{i}>@user{i}</a>" for i in range(30))
    text = "<br>".join(["<b>so</b> " + "word " * (letters // 20)] * 4)
    html = (f"<html><body><div id=msg class=message-inner><div id=body class=bbWrapper>{text}<br>{links}</div>"
            f"</div><p>{para(1500)}</p></body></html>")
    page, _, _ = run_filter("link_lists", html)
    assert (page.root.get_element_by_id("msg", None) is not None) is kept


def test_a_wrapper_named_like_furniture_but_holding_the_page_is_not_furniture():
    # "nonav" names the page's wrapper: its name does not make the whole page furniture.
    html = (f"<html><body><div class='page nonav'><div id=col><div id=side>{_categories(40)}</div>"
            f"<div id=post><p>{'word ' * 60}</p></div></div>{STORY}</div></body></html>")
    page, _, _ = run_filter("link_lists", html)
    assert page.root.get_element_by_id("post", None) is not None
    assert page.root.get_element_by_id("cats", None) is None


def test_link_lists_that_are_the_main_blocks_content_stay():
    # a category page: <main> holds cards of recipes, each a link, and a heading; the site's about box
    # outside it has paragraphs of its own, so the page-wide rule alone would take the cards
    cards = "".join(f"<li><a href=/r{i}><img src=/r{i}.jpg alt=''>Tomato sauce number {i}</a></li>" for i in range(30))
    notice = "<div id=about><p>" + "Our kitchen has tested recipes for home cooks since the year 2001. " * 12 + "</p></div>"
    html = (f"<html><body><header>{menu(8)}</header><main><h1>Tomato sauces</h1><ul id=cards>{cards}</ul></main>"
            f"{notice}</body></html>")
    page, state, _ = run_filter("link_lists", html)
    assert page.root.get_element_by_id("cards", None) is not None
    assert page.root.get_element_by_id("menu", None) is None  # the site's menu still goes
    assert any(e["action"] == "keep" and "main block's content" in e["reason"] for e in state.record)


@pytest.mark.parametrize("articles, kept", [(3, True), (2, False)])
def test_the_few_links_of_a_listed_article_item_stay(articles, kept):
    item = ("<article><h2>Story {i}</h2><div class=info id=info{i}><a href=/s{i}>Read story {i}</a> "
            "<a href=/a{i}>Ann Author</a></div><p>" + "A few words of summary for this story. " * 3 + "</p></article>")
    html = (f"<html><body>{menu(6)}<section>{''.join(item.format(i=i) for i in range(articles))}</section>"
            f"<p>{'words ' * 200}</p></body></html>")
    page, _, _ = run_filter("link_lists", html)
    assert (page.root.get_element_by_id("info0", None) is not None) is kept
    assert page.root.get_element_by_id("menu", None) is None


def test_a_headline_said_outside_headings_keeps_its_block():
    # a profile's name in a styled <div> (no heading says the og:title): its block of links stays
    profile = ("<div id=profile><div id=name>Ada Lovelace</div><div id=aff>Mathematician, "
               "<a href=/org/1>University of London</a></div><div id=tags><a href=/t/1>analysis</a> "
               "<a href=/t/2>engines</a> <a href=/t/3>poetry</a> <a href=/t/4>notes</a></div></div>")
    html = (f"<html><head><meta property='og:title' content='Ada Lovelace'><title>Ada Lovelace - Profiles</title>"
            f"</head><body>{menu(6)}{profile}<p>{para(1500)}</p></body></html>")
    page, _, _ = run_filter("link_lists", html)
    assert page.root.get_element_by_id("name", None) is not None
    assert page.root.get_element_by_id("aff", None) is not None
    assert page.root.get_element_by_id("tags", None) is None  # its inner link list still goes
    # without the metadata headline the block is judged as before
    page, _, _ = run_filter("link_lists", html.replace("<meta property='og:title' content='Ada Lovelace'>", ""))
    assert page.root.get_element_by_id("profile", None) is None


def test_the_block_holding_the_page_headline_is_not_removed_whole():
    post = ("<div id=entry><div id=edit><a href=/e>Edit</a> <a href=/d>Delete</a> <a href=/t>Tags</a></div>"
            "<h2>Origami animals</h2><div id=body>via <a href=/s>a site</a>. Not your usual origami.</div>"
            "<div id=share><a href=/tw>Tweet</a> <a href=/l>Like</a> <a href=/c>Comment</a></div></div>")
    html = (f"<html><head><title>Origami animals - A blog</title></head><body>{menu(6)}"
            f"<div id=wrap>{post}</div><div id=side>{menu(20)}</div><p>{para(1500)}</p></body></html>")
    page, _, _ = run_filter("link_lists", html)
    assert page.root.get_element_by_id("entry", None) is not None  # the post under the page's headline
    assert page.root.get_element_by_id("body", None) is not None
    assert page.root.get_element_by_id("edit", None) is None  # its edit links still go
    assert "Page 19" not in page.body.text_content()  # the side menu still goes


@pytest.mark.parametrize("meta, kept", [("by <a href=/u/cf>Cyrus F</a> - Nov 9, 2012 1:50 pm UTC", True),
                                        ("<a href=/share/tw>Tweet</a> <a href=/share/fb>Share</a> now", False)])
def test_the_byline_beside_the_headline_stays_share_links_go(meta, kept):
    html = (f"<html><head><title>Credit rating heads toward junk | Site</title></head><body>{menu(6)}"
            f"<article><header><h1>Credit rating heads toward junk</h1><div id=meta>{meta} "
            f"<a href=/c>97 comments</a></div></header><p>{para(800)}</p></article></body></html>")
    page, _, _ = run_filter("link_lists", html)
    assert (page.root.get_element_by_id("meta", None) is not None) is kept
    assert "Page 5" not in page.body.text_content()


@pytest.mark.parametrize("meta", [
    # the date is a link to the post, with the date in <time>; the author is a link too
    'Modified on <a href=/2012/09/14/post><time datetime="2012-09-14">September 14, 2012</time></a> by '
    '<a href=/author/sue>Sue Waters</a>',
    # the date outside links, in a block named like a header (the post's own "entry-header")
    'By <a href=/author/rb>Robert B</a><a href="mailto:rb@example.org">Email Author</a> November 6, 2012 | '
    '12:37 pm | Categories: <a href=/c/russia>Russia</a>'])
def test_a_byline_named_like_a_header_or_dated_in_a_time_element_stays(meta):
    html = (f"<html><head><title>Minister collides with the president | Site</title></head><body>{menu(6)}"
            f"<div class=post><h1>Minister collides with the president</h1>"
            f"<div id=meta class=entry-header>{meta}</div><div class=entry><p>{para(900)}</p></div></div>"
            f"<div id=side>{menu(20)}</div></body></html>")
    page, state, _ = run_filter("link_lists", html)
    assert page.root.get_element_by_id("meta", None) is not None
    assert any(e["action"] == "keep" and "byline" in e["reason"] for e in state.record)
    assert "Page 19" not in page.body.text_content()  # the side menu still goes


def test_a_dated_menu_beside_the_headline_in_a_nav_still_goes():
    html = (f"<html><head><title>The story | Site</title></head><body><h1>The story</h1>"
            f"<nav id=archive><a href=/2012/10>October 2012</a> <a href=/2012/09>September 2012</a> "
            f"<time>2012</time></nav><p>{para(800)}</p></body></html>")
    page, _, _ = run_filter("link_lists", html)
    assert page.root.get_element_by_id("archive", None) is None


@pytest.mark.parametrize("href, kept", [("/uploads/2019/11/concept-{i}.jpg", True),  # opens the picture
                                        ("/gallery/concept-{i}/", False)])          # opens another page
def test_a_gallery_of_thumbnails_opening_their_pictures_stays(href, kept):
    thumbs = "".join(f'<dl><dt><a href="{href.format(i=i)}"><img src=/t{i}-200x200.jpg width=200 height=200 alt=""></a>'
                     f"</dt></dl>" for i in range(6))
    html = (f"<html><body>{menu(6)}<div class=post><p>{para(900)}</p><div id=gallery class=gallery>{thumbs}</div>"
            f"</div></body></html>")
    page, _, _ = run_filter("link_lists", html)
    assert (page.root.get_element_by_id("gallery", None) is not None) is kept
    assert "Page 5" not in page.body.text_content()  # the menu still goes


@pytest.mark.parametrize("picture, kept", [
    ("/uploads/2025/03/bootcamp.png width=800 height=426", True),  # the story's picture, opening its own file
    ("/uploads/2025/03/bootcamp-80x80.png width=80 height=80", False),  # a thumbnail
])
def test_a_picture_opening_its_own_file_with_a_share_button_beside_it_stays(picture, kept):
    # wcxb-dev 0375: each course's picture is a link to its full-size file, with a "Pin it" link beside it:
    # two links and no words, so the block went as a link list and the story lost all its pictures
    src, size = picture.split(" ", 1)
    block = (f'<div id=picture class=block-image><a href="https://pinterest.com/pin/create/button/?media={src}">'
             f'<img src=/pin-it.png alt="Pin it"></a><a href="{src}" class=js-popup><img src="{src}" {size} '
             f'alt="The bootcamp"></a></div>')
    html = f"<html><body>{menu(6)}<div class=post><p>{para(900)}</p>{block}<p>{para(400)}</p></div></body></html>"
    page, _, _ = run_filter("link_lists", html)
    assert (page.root.get_element_by_id("picture", None) is not None) is kept
    assert "Page 5" not in page.body.text_content()  # the menu still goes


@pytest.mark.parametrize("item, kept", [
    ("<div class=slide><img src=/p/tumbler-front.png alt='Tumbler, front'></div>", True),  # the product's photo
    ("<div class=slide><img src=/i/digg.gif alt=''> <a href=/digg>Digg</a></div>", False),  # a link's icon
])
def test_a_products_photos_under_its_breadcrumb_are_not_a_link_list(item, kept):
    # wcxb-dev 4781: once the buttons and forms are gone, a product's gallery holds its photos and the two
    # links of its breadcrumb, no other words: it went as a link list, and the product lost its pictures
    block = (f"<div id=gallery><a href=/drinkware>Drinkware</a> <a href=/drinkware/tumblers>Tumblers</a>"
             f"{item}{item.replace('front', 'back')}</div>")
    html = f"<html><body>{menu(6)}<div class=product><p>{para(900)}</p>{block}</div></body></html>"
    page, _, _ = run_filter("link_lists", html)
    assert (page.root.get_element_by_id("gallery", None) is not None) is kept
    assert "Page 5" not in page.body.text_content()


@pytest.mark.parametrize("href", ["http://[oops/p.jpg", "http://[oops/docs/a"])
def test_an_address_no_browser_can_follow_breaks_no_rule(href):
    # urlsplit refuses "http://[oops" (an unclosed IPv6 host): the gallery and table-of-contents tests
    # read addresses, and one such link must not make the filter fail (and the page go out unfiltered)
    thumbs = "".join(f'<a href="{href}"><img src=/t{i}.jpg alt=""></a>' for i in range(4))
    html = (f"<html><body>{menu(6)}<main><p>{para(900)}</p><div id=g>{thumbs}</div>"
            f"<ul id=toc><li><a href='{href}'>One</a></li><li><a href='#b'>Two</a></li></ul></main></body></html>")
    page, state, _ = run_filter("link_lists", html, url="https://example.org/docs/")
    assert not [e for e in state.record if e.get("action") == "error"]
    assert "Page 5" not in page.body.text_content()


def test_a_byline_like_block_in_the_footer_still_goes():
    html = (f"<html><head><title>The story</title></head><body><h1>The story</h1><p>{para(800)}</p>"
            f"<div id=footer>© 2012 <a href=/a>About</a> <a href=/p>Privacy</a></div></body></html>")
    page, _, _ = run_filter("link_lists", html)
    assert page.root.get_element_by_id("footer", None) is None


def test_a_table_of_many_alike_rows_is_a_list_of_items_kept_whole():
    # A ranked list of 20 books as table rows: each row's cells are link-dense, the rows are alike.
    rows = "".join(f"<tr><td>{i}</td><td><a href=/b{i}>Book title {i}</a> by <a href=/a{i}>Author {i}</a>"
                   f"</td><td><a href=/r{i}>4.3 avg rating</a> score: {i}0,000</td></tr>" for i in range(20))
    html = f"<html><body>{menu(6)}<table id=list>{rows}</table><p>{para(300)}</p></body></html>"
    page, state, _ = run_filter("link_lists", html)
    assert "Book title 19" in page.body.text_content() and "Author 7" in page.body.text_content()
    assert any(e["action"] == "keep" and e["node"].startswith(("table", "tbody")) for e in state.record)
    assert "Page 5" not in page.body.text_content()


def test_a_layout_table_with_one_big_row_is_not_kept_as_a_list():
    cells = "".join(f"<tr><td><a href=/m{i}>Menu {i}</a> <a href=/n{i}>Next {i}</a> go</td></tr>" for i in range(4))
    html = (f"<html><body><table id=layout>{cells}<tr><td><div id=links>{menu(30)} ok</div>"
            f"<p>{para(900)}</p></td></tr></table></body></html>")
    page, _, _ = run_filter("link_lists", html)
    assert "Page 29" not in page.body.text_content()  # the menu inside the layout table still goes


@pytest.mark.parametrize("price", ["$34.95", "€ 1.299,00"])
def test_short_product_cards_with_a_price_are_a_grid(price):
    items = "".join(f"<div class=col><div class=product><a href=/p{i}>Light {i}</a> <a href=/p{i}>New</a> "
                    f"<span>{price}</span></div></div>" for i in range(6))
    html = f"<html><body>{menu(8)}<div id=grid>{items}</div><p>{para(600)}</p></body></html>"
    page, _, _ = run_filter("link_lists", html)
    assert page.root.get_element_by_id("grid", None) is not None


def test_text_outside_links_of_a_very_deep_block():
    # Found by the long fuzz run: the byline check walked the tree recursively and a page nested
    # past Python's recursion limit made link_lists fail (and be undone).
    from pagesieve.engine.document import parse
    from pagesieve.filters.link_lists.measures import text_outside_links

    page = parse(b"<html><body><div id=top>" + b"<div>" * 1500 + b"By <a href=/a>Ann Lee</a> on 12 May 2024"
                 + b"</div>" * 1500 + b"<p>after</p></div></body></html>")
    text = " ".join(text_outside_links(page.root.get_element_by_id("top")).split())
    assert text == "By on 12 May 2024 after"


def test_the_cards_of_a_grid_are_not_link_lists_one_by_one():
    # wcxb-dev 4437: 17 cards, each an image link, a name link and "Item# 59370 $499.00" (ratio 0.53 on
    # its own), the grid as a whole under the ratio (some cards have a description): each short card
    # was removed. The cards and the blocks wrapping a whole card stay; a link list inside a
    # card (its own share links) is still tested.
    cards = "".join(
        f"<div class='col-6 col-md-3' id=c{i}><div class=card><div class=card-img><a href=/item/{i}><img src={i}.jpg "
        f"alt=''></a></div><div class=card-body><div class=name><a href=/item/{i}>"
        f"Watch {i}</a></div>"
        f"<div class=price>Item# 5937{i} $499.00</div>"
        f"{'<p>Water resistant to 200 metres, steel bracelet, two year warranty</p>' if i % 2 else ''}"
        f"{'<div class=share id=s%d><a href=/fb>Facebook</a> <a href=/tw>Twitter</a> <a href=/pin>Pinterest</a></div>' % i if i == 0 else ''}"
        f"</div></div></div>" for i in range(12))
    html = f"<html><body><nav id=n>{menu(6)}</nav><div class=row id=grid>{cards}</div></body></html>"
    page, state, _ = run_filter("link_lists", html)
    left = {el.get("id") for el in page.root.iter() if el.get("id")}
    assert all(f"c{i}" in left for i in range(12)), sorted(left)
    assert "n" not in left and "s0" not in left


@pytest.mark.parametrize("teaser, kept", [
    ("Providing training to managers and supervisors to improve employee relations and morale, reducing "
     "turnover in the process.", True),
    ("Learn more", False),  # a menu's short descriptions are still link labels
])
def test_cards_that_are_whole_links_around_a_paragraph_are_not_a_link_list(teaser, kept):
    # wcxb-dev 3033: six service cards, each one <a> around a heading, a teaser paragraph and "Learn
    # More": every letter was link text, so the block went as a link list
    cards = "".join(f"<div class=col><a href=/s/{i}><div class=card><h3>Service {i}</h3><p>{teaser}</p>"
                    f"<span>Learn More</span></div></a></div>" for i in range(3))
    html = f"<html><body><p>{para(1500)}</p><div id=cards><h2>Our services</h2>{cards}</div></body></html>"
    page, state, _ = run_filter("link_lists", html)
    assert (page.root.get_element_by_id("cards", None) is not None) is kept


@pytest.mark.parametrize("price, kept", [("From $599", True), ("Take a closer look", False)])
def test_a_shelf_of_links_that_each_show_a_price_is_not_a_link_list(price, kept):
    # wcxb-dev 0655, 3069: a shop's shelf of product cards, each card one link around its name and
    # price ("NEW MacBook Air Take a closer look From $1099 Buy"): every letter is link text. A link
    # farm's links show no price.
    cards = "".join(f"<div class=card-{i}><a href=/p/{i}><span>Laptop {i}</span> <span>{price}</span> "
                    f"<span>Buy</span></a></div>" for i in range(5))  # no two alike: not a grid of items
    html = f"<html><body><p>{para(1500)}</p><div id=shelf>{cards}</div></body></html>"
    page, state, _ = run_filter("link_lists", html)
    assert (page.root.get_element_by_id("shelf", None) is not None) is kept
    assert any(e["action"] == "keep" and e["node"] == "div#shelf" for e in state.record) is kept


@pytest.mark.parametrize("price, wrap, kept", [
    ("$4,499.00", "div", True),
    ("In stock", "div", False),
    ("$4,499.00", "aside", False),  # beside the page: furniture (as when the prices are in the links)
])
def test_product_cards_with_their_price_beside_their_links_are_not_a_link_list(price, wrap, kept):
    # wcxb-dev-more 4351, 2955: a shop's carousel of three product cards, each a picture link and a name
    # link to the product, its price outside the links and a "Learn more" link to the financing page
    # (three links, four words outside them): the cards went as link lists, one by one and together.
    # A price is shown for each place the links lead to; a link farm's places show none.
    cards = "".join(f"<div class=card-{i}><a href=/p/{i}><img src=/i/{i}.jpg alt=''></a>"
                    f"<a href=/p/{i}>Home Gym Trainer {i}</a><div class=price>{price}</div>"
                    f"<p>Eligible <a href=/flex>Learn more</a></p></div>" for i in range(3))
    html = f"<html><body><p>{para(1500)}</p><{wrap} id=shelf>{cards}</{wrap}></body></html>"
    page, state, _ = run_filter("link_lists", html)
    assert (page.root.get_element_by_id("shelf", None) is not None) is kept
    assert ("Home Gym Trainer 2" in page.body.text_content()) is kept


@pytest.mark.parametrize("names, furniture", [
    ("carousel dark-nav-btns", False), ("slider nav-arrows", False), ("menu-toggle", False),
    ("site-nav", True), ("navbar-toggle", True), ("main-menu", True), ("nav-buttons-menu", True),
])
def test_a_name_of_a_furnitures_control_is_not_furniture(names, furniture):
    # wcxb-dev-more 4351: a carousel of products styled "dark-nav-btns" (its arrow buttons are dark)
    # was taken as navigation, so its cards were not a grid of items and went as link lists.
    from pagesieve.analysis.furniture import FURNITURE_NAMES

    assert FURNITURE_NAMES.found(names) is furniture


@pytest.mark.parametrize("names, kept", [("carousel dark-nav-btns", True), ("carousel site-nav", False)])
def test_a_carousel_named_for_its_arrow_buttons_is_a_grid_of_items(names, kept):
    cards = "".join(f"<div class=item><a href=/p/{i}><img src=/i/{i}.jpg alt=''></a>"
                    f"<a href=/p/{i}>Rowing machine {i}</a><span>Rated 4.8 by 120</span></div>" for i in range(6))
    html = f"<html><body><p>{para(1500)}</p><div class='{names}' id=grid>{cards}</div></body></html>"
    page, state, _ = run_filter("link_lists", html)
    assert (page.root.get_element_by_id("grid", None) is not None) is kept


@pytest.mark.parametrize("teaser, wrap, kept", [
    ("Sync your subscribers and leads across platforms.", "div", True),
    ("Sync your subscribers and leads across platforms", "div", False),  # a label, not a sentence
    ("Sync your subscribers.", "div", False),  # too short to be a teaser
    ("Early entries to our street signs contest!", "div", False),  # a headline, not a teaser
    ("Sync your subscribers and leads across platforms.", "nav", False),  # a menu's descriptions
])
def test_cards_that_are_whole_links_around_a_teaser_sentence_are_not_a_link_list(teaser, wrap, kept):
    # wcxb-dev-more 0694, wcxb-dev 2831, 2903: a grid of integration or feature cards, each one <a>
    # around a heading and a teaser of one sentence (under card_prose_letters): every letter was link
    # text, so the grid went as a link list. A menu's entries, even with short descriptions, still go.
    cards = "".join(f"<li><a href=/i/{i}><h3>Integration {i}</h3><p>{teaser}</p></a></li>" for i in range(3))
    html = (f"<html><body><p>{para(1500)}</p><{wrap} id=cards><h2>Integrations</h2><ul>{cards}</ul></{wrap}>"
            f"</body></html>")
    page, state, _ = run_filter("link_lists", html)
    assert (page.root.get_element_by_id("cards", None) is not None) is kept


def test_the_core_of_a_grid_item_is_not_removed_but_a_small_link_list_inside_it_is():
    # wcxb-dev 2914: each product of a listing is a <section> whose inner block (name link, tagline,
    # topic links) was removed as a link list, leaving the upvote count. That block holds most of the
    # item's letters (ITEM_CORE_SHARE): it is the item. The topic links alone are still a link list.
    items = "".join(
        f"<section class=item id=i{i}><div class=body id=b{i}><a href=/p/{i}>Product number {i}</a>"
        f" <span>Sell whatever you ship, instantly</span> <div class=topics id=t{i}><a href=/t/a>Productivity</a> "
        f"<a href=/t/b>GitHub</a></div></div><div class=votes>{i}9 upvotes so far today</div></section>"
        for i in range(6))
    html = f"<html><body><nav id=n>{menu(6)}</nav><main><div id=grid>{items}</div></main></body></html>"
    page, state, _ = run_filter("link_lists", html)
    left = {el.get("id") for el in page.root.iter() if el.get("id")}
    assert all(f"b{i}" in left for i in range(6)), sorted(left)
    assert not {"n", *(f"t{i}" for i in range(6))} & left


def bookmarks(n: int) -> str:
    """A table of link cells: a page of bookmarks (every cell a link list)."""
    cells = "".join(f"<td id=c{i}><p><a href=/u{i}a>University of Place {i}</a></p>"
                    f"<p><a href=/u{i}b>State College at Town {i}</a></p></td>" for i in range(n))
    return f"<table><tr>{cells}</tr></table>"


def test_link_lists_that_are_the_page_stay_the_menu_goes():
    intro = f"<p>{para(300)}</p>"  # too short to be the page beside its lists
    html = (f"<html><body><nav id=top>{menu(6)}</nav><h1>Some useful web pages</h1>{intro}{bookmarks(20)}"
            f"</body></html>")
    page, state, _ = run_filter("link_lists", html)
    assert page.root.get_element_by_id("top", None) is None  # furniture still goes
    assert all(len(page.root.get_element_by_id(f"c{i}")) == 2 for i in range(20))  # the bookmarks stay
    keep = next(e for e in state.record if e["action"] == "keep" and "the page's content" in e["reason"])
    assert keep["measured"]["lists"] == 20 and keep["measured"]["rest_letters"] < 500 <= keep["measured"]["list_letters"]
    page, _, _ = run_filter("link_lists", html, min_rest=0)  # the paper's rule alone: every cell emptied
    assert all(len(page.root.get_element_by_id(f"c{i}")) == 0 for i in range(20))
    # beside a story, the same lists are link lists
    page, _, _ = run_filter("link_lists", html.replace("</h1>", f"</h1>{STORY}"))
    assert all(len(page.root.get_element_by_id(f"c{i}")) == 0 for i in range(20))


def test_in_furniture_answers_as_the_furniture_set_on_corpus_pages(corpus):
    """``_in_furniture`` (asked per element, for pagetype) is ``_furniture``'s rule, element for element."""
    from pagesieve.analysis.furniture import furniture_of as _furniture
    from pagesieve.analysis.furniture import in_furniture as _in_furniture
    from pagesieve.engine.document import parse

    small = ("<body><div class=menu><p>m</p></div><main><header>h</header><p>x</p></main><nav><b>n</b></nav>"
             "<div class='page sidebar'><article><footer>f</footer></article></div><div role=Navigation><i>r</i>"
             "</div><main role=navigation><span class=footer>s</span></main></body>")
    pages = [parse(small.encode())] + [parse(path.read_bytes()) for _, path, _ in corpus[::10]]
    for page in pages:
        body = dom.body_of(page.root)
        furniture, test = _furniture(body), _in_furniture(body)
        elements = list(body.iter(etree.Element))
        for el in elements[::3] + elements[1::3] + elements[2::3]:  # not in document order: tests the memo
            assert test(el) == (el in furniture), page.root.getroottree().getpath(el)


# The heading that says what the page's title says is its headline, also when it is itself a link and sits
# in a block named like a header (a question's div#question-header): never removed as a link list. In the
# site's own banner or menu (<header>, <nav>, their roles) it is furniture as before; a heading that says
# something else is no headline.
@pytest.mark.parametrize("wrap, heading, kept", [
    ("<div id=question-header>{}<div><a href=/ask>Ask Question</a></div></div>",
     "Catering event for 1st time. How should I prepare?", True),
    ("<div id=page-header class=header>{}<a href=/ask>Ask</a></div>", "Catering event for 1st time. How should I prepare?", True),
    ("<div id=question-header>{}<div><a href=/ask>Ask Question</a></div></div>", "Hot network questions today", False),
    ("<aside id=question-header>{}<a href=/ask>Ask</a> <a href=/tour>Tour</a></aside>",
     "Catering event for 1st time. How should I prepare?", False),
    ("<div role=banner id=question-header>{}<a href=/ask>Ask</a> <a href=/tour>Tour</a></div>",
     "Catering event for 1st time. How should I prepare?", False),
])
def test_the_page_headline_is_never_a_link_list(wrap, heading, kept):
    block = wrap.format(f"<h1 id=h><a href=/questions/12068/catering>{heading}</a></h1>")
    html = (f"<html><head><title>equipment - Catering event for 1st time. How should I prepare? - Seasoned Advice"
            f"</title><meta property=og:title content='Catering event for 1st time. How should I prepare?'></head>"
            f"<body>{menu(6)}<div id=content>{block}<p>{para(800)}</p></div></body></html>")
    page, _, _ = run_filter("link_lists", html)
    assert (page.root.get_element_by_id("h", None) is not None) is kept
    assert "Page 5" not in page.body.text_content()


def test_prose_in_links_counts_the_paragraphs_inside_links_under_the_block():
    # read from the paragraphs (most blocks hold none) instead of from every link: the same counts, and
    # a block under 1,500 nested blocks of 2,000 links no longer reads every link once per block
    import lxml.html

    from pagesieve.filters.link_lists import items
    from pagesieve.filters.link_lists.settings import LinkListSettings

    s = LinkListSettings()
    teaser = "Apple has released a new version of its phone software today, with many changes for everyone who owns one."
    root = lxml.html.fromstring(
        f"<div id=top><a id=card href=/a><p>{teaser}</p></a><div id=mid><a href=/b><span><p>{teaser}</p></span></a>"
        f"<p>{teaser}</p><p><a href=/c>{teaser}</a></p></div></div>")
    top, mid, card = (root.get_element_by_id(i) for i in ("top", "mid", "card"))
    one = items.letters(teaser)
    assert items.prose_in_links(top, s) == 3 * one  # two inside links, one made of one link
    assert items.prose_in_links(mid, s) == 2 * one
    assert items.prose_in_links(card, s) == one  # the block is the link itself
    assert items.prose_in_links(card.find("p"), s) == 0  # a paragraph whose link is above the block
