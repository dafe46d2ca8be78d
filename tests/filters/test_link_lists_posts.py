"""link_lists keeps the short posts, replies, teasers and blurbs of a page's content that are link-dense on
their own: a reply of one line under its title, score and author links; a story card's teaser that is a
link; a headline card in a river of longer posts; a game's two-sentence blurb in a block named like a
header. The site's menus around them still go."""

import pytest

from tests.conftest import run_filter
from tests.filters.test_article import para
from tests.filters.test_link_lists import menu


def comment(cid: int, body: str, replies: str = "") -> str:
    """A thread's comment: a head (title, score and author links), a body, a foot of action links and
    its replies nested in a list of comments of the same kind."""
    return (f"<li class='comment full' id=c{cid}><div class=cw id=cw{cid}>"
            f"<div class=commentTop id=top{cid}><div class=title><h4><a href=/c?cid={cid}>Title of comment {cid}</a>"
            f" <span class=score>(<a href='#'>Score:</a>1)</span></h4></div>"
            f"<div class=details>by <a href=/~user{cid}>user{cid}</a></div></div>"
            f"<div class=commentBody id=body{cid}><p>{body}</p></div>"
            f"<div class=commentSub><a href=/reply/{cid}>Reply</a> <a href=/parent/{cid}>Parent</a></div></div>"
            f"<ul class=replies id=r{cid}>{replies}</ul></li>")


@pytest.mark.parametrize("nested", [True, False])
def test_a_short_reply_nested_in_a_thread_is_not_a_link_list(nested):
    # dragnet-dev 369: a reply of one sentence under its title, score and author links is link-dense
    # on its own; nested in a comment of the thread (a list of comments of the same kind), it is a post
    # of the thread and stays, with its title. Without the thread around it, the same block is a link list.
    short = "A funny rant, but it is pretty much all BS."
    reply = comment(99, short)
    thread = "".join(comment(i, para(300), reply if i == 2 else "") for i in range(5))
    if nested:
        html = (f"<html><body><nav id=n>{menu(6)}</nav><p>{para(600)}</p>"
                f"<ul class=thread id=thread>{thread}</ul></body></html>")
    else:
        html = (f"<html><body><nav id=n>{menu(6)}</nav><p>{para(600)}</p>"
                f"<div id=alone><ul>{reply}</ul></div></body></html>")
    page, state, _ = run_filter("link_lists", html)
    text = " ".join(page.root.text_content().split())
    assert page.root.get_element_by_id("n", None) is None
    assert (short in text) is nested
    assert ("Title of comment 99" in text) is nested  # the reply's head, its title link, stays with it


def test_the_head_of_a_short_post_stays_its_action_links_go():
    # dragnet-dev 369: a comment of the thread whose post is short (its replies hold most of its
    # letters): its head of six links (title, score, author) went as a link list, taking its title.
    reply = comment(50, para(400))
    thread = "".join(comment(i, "Throw eggs." if i == 1 else para(300), reply if i == 1 else "") for i in range(5))
    html = f"<html><body><nav id=n>{menu(6)}</nav><ul class=thread>{thread}</ul></body></html>"
    page, state, _ = run_filter("link_lists", html)
    text = " ".join(page.root.text_content().split())
    assert "Title of comment 1" in text and "Throw eggs." in text


@pytest.mark.parametrize("teaser, kept", [
    ("Apple has released a new firmware update for the USB-C variant of the AirPods Max, although no "
     "information is available about the update's contents.", True),
    ("Read more", False),  # a short link under a title is a label, not a teaser
])
def test_story_cards_whose_teaser_is_a_link_are_not_a_link_list(teaser, kept):
    # wcxb-dev-more 1310: a topic page's river of <article> cards, each a picture link, a title link, a
    # teaser paragraph that is one link to the story, an author link and a comment count link: 96% of
    # the letters are link text, and three such cards went as one link list.
    cards = "".join(f"<article class=river><a href=/a/{i}><img src=/i/{i}.jpg alt=''></a><header>"
                    f"<h2><a href=/a/{i}>Story number {i} about headphones</a></h2>"
                    f"<p class=desc><a href=/a/{i}>{teaser}</a></p>"
                    f"<div class=aux><a href=/editor/{i}>Writer {i}</a> <a href=/a/{i}#comments>4</a></div>"
                    f"</header></article>" for i in range(3))
    html = (f"<html><body><nav id=n>{menu(6)}</nav><main><h1>Headphones</h1><p>{para(600)}</p>"
            f"<div id=cards><section>{cards}</section></div></main></body></html>")
    page, state, _ = run_filter("link_lists", html)
    assert page.root.get_element_by_id("n", None) is None
    assert (page.root.get_element_by_id("cards", None) is not None) is kept


def test_headline_cards_in_a_river_of_longer_posts_stay():
    # wcxb-dev-more 2969: a front page's river holds quick posts of several paragraphs beside headline
    # cards (a title link, an author, a date): the items differ in size, so the grid's items were not
    # protected, and each headline card (two links, three words outside them) went as a link list.
    quick = (f"<div class=card><a href=/q/1>Quick post</a><div class=body><p>{para(900)}</p></div>"
             f"<span>Terrence Brien</span> <span>Mar 7</span></div>")
    cards = "".join(f"<div class=card id=h{i}><div class=inner><a href=/s/{i}>Headline number {i} of the day</a>"
                    f"<div class=meta><span>Lawrence Ulrich</span> <span>Mar {i + 1}</span>"
                    f" <a href=/s/{i}#comments>12</a></div></div></div>" for i in range(5))
    html = (f"<html><body><nav id=n>{menu(6)}</nav><main><div id=river>{quick}{cards}</div>"
            f"<p>{para(900)}</p></main></body></html>")
    page, state, _ = run_filter("link_lists", html)
    left = {el.get("id") for el in page.root.iter() if el.get("id")}
    assert all(f"h{i}" in left for i in range(5)), sorted(left)
    assert "n" not in left


def post(i: int, body: str, tag: str = "article") -> str:
    """A forum thread's post: an author card (name, title, join date links), a body and a foot of
    reaction and reply links."""
    return (f"<{tag} class=message id=m{i}><div class=user><a href=/u/{i}>Member {i}</a>"
            f" <span>Well-known member</span> <a href=/u/{i}/about>Joined Mar 2, 2019</a>"
            f" <a href=/u/{i}/posts>Messages 4,321</a></div><div class=cell id=cell{i}>"
            f"<div class=attribution><a href=/p/{i}>Jan 15, 2024</a> <a href=/p/{i}#share>Share</a></div>"
            f"<div class=bbWrapper id=body{i}>{body}</div>"
            f"<div class=foot id=foot{i}><a href=/r/{i}>Like</a> <a href=/q/{i}>Quote</a>"
            f" <a href=/reply/{i}>Reply</a> <a href=/report/{i}>Report</a></div></div></{tag}>")


SHORT_POST = "Rolex Daytona and AP Royal Oak. Come on, do you really have to ask?"


def test_the_body_of_a_short_forum_post_stays_its_reaction_links_go():
    # wcxb-dev-more 0529, 0519: a forum thread's posts, each an author card (name, title, join date
    # links), a body and a foot of reaction and reply links. A post of one line: its message block
    # (date link, body, reactions) was link-dense and went. The block around the post's longest text
    # without links stays; the foot's links are still a link list.
    posts = "".join(post(i, SHORT_POST if i == 3 else para(250)) for i in range(6))
    html = f"<html><body><nav id=n>{menu(6)}</nav><div id=thread>{posts}</div></body></html>"
    page, state, _ = run_filter("link_lists", html)
    left = {el.get("id") for el in page.root.iter() if el.get("id")}
    assert "body3" in left, sorted(left)
    assert "foot3" not in left and "n" not in left


@pytest.mark.parametrize("tag, kept", [("article", True), ("div", False)])
def test_a_short_post_beside_a_long_one_in_a_thread_of_articles_stays(tag, kept):
    # wcxb-dev-more 0529: the thread's posts are <article>s and one is long (more than item_max_share
    # of the thread's letters): items of unlike size outside a main block were taken for the page's
    # layout columns, none protected, and the short posts' message blocks went as link lists. A list
    # of <article>s is a list of compositions, whatever their sizes; <div>s of unlike size stay layout.
    posts = "".join(post(i, SHORT_POST if i == 3 else para(2500 if i == 1 else 250), tag) for i in range(6))
    html = f"<html><body><nav id=n>{menu(6)}</nav><div id=thread>{posts}</div></body></html>"
    page, state, _ = run_filter("link_lists", html)
    left = {el.get("id") for el in page.root.iter() if el.get("id")}
    assert ("body3" in left) is kept, sorted(left)
    assert "n" not in left


@pytest.mark.parametrize("blurb, kept", [
    ("Nine distinct classes provide a broad range of tactical abilities and personalities. Constantly "
     "updated with new game modes, maps, equipment and, most importantly, hats!", True),
    ("Nine distinct classes provide a broad range of tactical abilities and personalities", False),
])
def test_a_blurb_of_two_sentences_in_the_story_head_is_prose(blurb, kept):
    # wcxb-dev-more 3072: a game's page opens with a block of links (tags, developer, reviews) around
    # the game's blurb of two sentences (under prose_letters), in a block named like a header: the
    # whole block went as a link list. Two whole sentences are prose (a menu's labels never end like
    # sentences); a header-named block inside the article is the article's own head.
    tags = "".join(f"<a href=/tag/{i}>Tag number {i}</a> " for i in range(30))
    top = (f"<div class=page_top id=top><div class=game_header_ctn><div class=snippet>{blurb}</div>"
           f"<div class=dev><a href=/dev>Valve</a> <a href=/pub>Valve</a></div></div>"
           f"<div class=tags>{tags}</div></div>")
    html = (f"<html><body><nav id=n>{menu(6)}</nav><div id=content>{top}<p>{para(1500)}</p></div>"
            f"</body></html>")
    page, state, _ = run_filters_article(html)
    text = " ".join(page.root.text_content().split())
    assert ("Nine distinct classes" in text) is kept


def run_filters_article(html: str):
    """link_lists after the article is found (the chain's order in the presets)."""
    from tests.conftest import run_filters
    return run_filters([("article", {}), ("link_lists", {})], html, check=False)


def test_a_menu_with_a_date_in_the_page_layout_still_goes():
    # l3s-gn1-dev 3ecf8ed4, dragnet-dev R572: the page's layout (banner, story, sidebar, footer) is a
    # grid of unlike blocks; its banner's menu has a date and a section heading outside its links. Only
    # in the main block are the items of an unlike grid kept: here the menu went, and the page's first
    # heading is the story's, not the banner's.
    banner = ("<div id=banner><h1>News &amp; Gossip</h1><p>Tuesday 12 March 2024, London edition</p><p>"
              + "".join(f"<a href=/s/{i}>Section {i}</a> " for i in range(9)) + "</p></div>")
    story = f"<div id=story><h2>The story of the day</h2><p>{para(1500)}</p></div>"
    side = f"<div id=side><p>Weather today: sunny, 14 degrees</p><p>{para(120)}</p></div>"
    foot = "<div id=foot><p>" + "".join(f"<a href=/f/{i}>Footer link {i}</a> " for i in range(4)) + "</p></div>"
    html = f"<html><body><div id=layout>{banner}{story}{side}{foot}</div></body></html>"
    page, state, _ = run_filter("link_lists", html)
    left = {el.get("id") for el in page.root.iter() if el.get("id")}
    assert "story" in left and "banner" not in left, sorted(left)
