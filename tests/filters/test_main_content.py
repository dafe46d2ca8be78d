import pytest

from pagesieve.core import dom
from pagesieve.engine.document import parse
from pagesieve.filters.main_content.scoring import stats as block_stats
from tests.conftest import run_filter, run_filters

SENTENCE = "The council met on Tuesday, heard the residents, and voted to repair the old bridge before winter. "


def para(n: int = 3, ident: str = "") -> str:
    return f"<p{' id=' + ident if ident else ''}>{SENTENCE * n}</p>"


ARTICLE_PAGE = f"""<html><head><title>Bridge repairs approved</title></head><body>
<div id=top class=header><ul class=menu><li><a href=/>Home</a></li><li><a href=/news>News</a></li>
<li><a href=/sport>Sport</a></li><li><a href=/weather>Weather</a></li></ul></div>
<div id=page>
 <div id=main class=article-main>
  <h1 id=headline>Bridge repairs approved</h1>
  <p class=byline id=byline>By Jane Doe, staff writer</p>
  <div class=share-bar id=share><a href=/s/fb>Share on Facebook</a> <a href=/s/tw>Share on Twitter</a></div>
  {para(3, "p1")}
  <figure id=fig><img id=img src=bridge.jpg alt=bridge>
   <figcaption id=cap>The old bridge, photo by A. Lens</figcaption></figure>
  {para(4, "p2")}
  <h2 id=sub>What happens next</h2>
  {para(2, "p3")}
  <ul class=related-articles id=related><li><a href=/a>Council budget passes</a></li>
   <li><a href=/b>Road works on Main Street</a></li><li><a href=/c>New library opens</a></li></ul>
  <div id=comments class=comments><h3>3 comments</h3>
   <p>I think this is a wonderful idea, finally someone listens to us, thank you all for it.</p>
   <p>Too late, and too expensive, the bridge should have been repaired ten years ago, really.</p></div>
 </div>
 <div class=sidebar id=side><h3>Most read</h3><ul><li><a href=/x>Story x that everyone reads today</a></li>
  <li><a href=/y>Story y that everyone reads today</a></li></ul></div>
</div>
<div id=foot class=footer><p>Copyright 2019 The Town Paper, all rights reserved, every one of them.</p></div>
</body></html>"""


def ids(page):
    return {el.get("id") for el in page.root.iter() if isinstance(el.tag, str) and el.get("id")}


def reasons(state):
    return {e.get("node"): e.get("reason") for e in state.record if e["action"] == "remove"}


def test_golden_article_kept_and_boilerplate_inside_removed():
    page, state, stats = run_filter("main_content", ARTICLE_PAGE)
    left = ids(page)
    assert {"p1", "p2", "p3", "sub", "fig", "img"} <= left  # the text paragraphs, a real sub-heading, the image
    assert not {"top", "side", "foot"} & left  # outside the chosen block
    assert not {"byline", "share", "related", "comments", "cap"} & left  # boilerplate inside it
    first = next(page.root.iter("h1"))  # the headline (repeating the title) is not boilerplate: it comes first
    assert first.get("id") == "headline" and "pagesieve-headline" in first.get("class")
    assert state.article is not None and state.article.get("id") == "main"
    assert stats[0]["status"] == "ok"
    why = reasons(state)
    assert why["p#byline.byline"] == "named like boilerplate (byline)"
    assert why["div#share.share-bar"] == "named like boilerplate (share)"
    assert why["ul#related.related-articles"] == "named like boilerplate (related)"
    assert why["h1#headline"] == "heading repeats the page title"
    assert why["figcaption#cap"] == "image caption or gallery"
    select = next(e for e in state.record if e["action"] == "select")
    assert select["node"] == "div#main.article-main" and select["measured"]["chars"] > 500
    assert "min_article_chars" in select["threshold"]


def test_every_removal_inside_is_explained_with_measures():
    _, state, _ = run_filter("main_content", ARTICLE_PAGE)
    inside = [e for e in state.record if e["action"] == "remove" and e["reason"] != "outside the main content block"]
    assert inside and all("chars" in e["measured"] and e["threshold"] for e in inside)


def test_clean_off_keeps_everything_inside_the_chosen_block():
    page, _, _ = run_filter("main_content", ARTICLE_PAGE, clean=False)
    assert {"byline", "share", "related", "cap", "headline", "p1"} <= ids(page)
    assert "side" not in ids(page)


def test_captions_kept_when_off():
    page, _, _ = run_filter("main_content", ARTICLE_PAGE, captions=False)
    assert "cap" in ids(page) and "byline" not in ids(page)


def link_block(link_share: float) -> str:
    """A <div> of 100 characters of which ``link_share`` are inside two links, no commas."""
    linked = round(100 * link_share)
    return f"<div id=lb><a href=/l>{'l' * (linked // 2)}</a><a href=/m>{'m' * (linked - linked // 2)}</a> {'w' * (100 - linked)}</div>"


@pytest.mark.parametrize("link_share, removed", [(0.15, False), (0.25, True)])
def test_link_density_bound_both_sides(link_share, removed):
    html = (f"<html><body><div id=art>{para(4, 'a')}{link_block(link_share)}{para(4, 'b')}{para(4, 'c')}"
            f"</div><div id=nav><a href=/1>one</a></div></body></html>")
    page, state, _ = run_filter("main_content", html)
    assert ("lb" not in ids(page)) is removed
    if removed:
        entry = next(e for e in state.record if e.get("node") == "div#lb")
        assert entry["measured"]["link_density"] > entry["threshold"]["link_density"] == 0.2


def test_link_block_with_many_commas_is_prose():
    block = "<div id=lb>" + "".join(f"<a href=/{i}>w{i}</a>, " for i in range(12)) + "</div>"
    page, _, _ = run_filter("main_content", f"<html><body><div>{para(4)}{block}{para(4)}</div></body></html>")
    assert "lb" in ids(page)


@pytest.mark.parametrize("state, removed", [("hide-read-more-ad", False), ("no-comments", False),
                                            ("read-more", True)])
def test_a_class_that_says_what_a_block_hides_or_lacks_does_not_name_it(state, removed):
    # a news section's grids say they hide the "read more" advert: they are the stories, not a teaser
    grids = "".join(f"<div class='grid {state}' id=g{i}><p>{'Story %d, reported at length, with its details. ' % i * 3}"
                    "</p></div>" for i in range(4))
    page, _, _ = run_filter("main_content", f"<html><body><div id=core>{para(8)}{grids}</div></body></html>")
    assert ("g1" not in ids(page)) is removed


@pytest.mark.parametrize("share, removed", [(0.29, True), (0.31, False)])
def test_boilerplate_inside_the_core_is_bounded_by_share(share, removed):
    # one text block (the core); an author box inside it holding ``share`` of its characters
    body_chars = 2000
    box_chars = round(body_chars * share)
    html = (f"<html><body><div id=core><p>{'x' * (body_chars - box_chars)}, y.</p>"
            f"<div class=author-box id=box><p>{'a' * box_chars}</p></div></div></body></html>")
    page, _, _ = run_filter("main_content", html)
    assert ("box" not in ids(page)) is removed


def test_large_comment_block_beside_the_article_goes():
    comments = "".join(f"<p>Comment number {i}, with an opinion that is long enough to count here.</p>"
                       for i in range(30))
    html = (f"<html><body><article id=post><div class=entry-content id=entry>{para(4, 'a')}{para(4, 'b')}"
            f"</div><footer><div class=comment-list id=comments>{comments}</div></footer></article></body></html>")
    page, _, _ = run_filter("main_content", html)
    assert {"a", "b", "entry"} <= ids(page) and "comments" not in ids(page)


def _thread(n: int, words: int = 40) -> str:
    return "".join(f"<div class=comments-body><p>{'Reader opinion number %d, ' % i}{'blah ' * words}</p>"
                   f"<span class=comments-post>Comment #{i} - Posted by: someone</span></div>" for i in range(n))


@pytest.mark.parametrize("comments, removed", [(2, False), (3, True)])
def test_a_comment_thread_many_times_the_story_goes_whatever_its_size(comments, removed):
    # the story's paragraphs and, in the same block, reader comments with five times their text: the
    # cleanup's size bounds and the chain's article-loss guard would keep them; a thread (3+ alike
    # blocks named like comments) goes, two such blocks are not a thread and stay.
    html = (f"<html><body><div class=blog id=blog><h2>Sunday</h2>{para(4, 'a')}{para(4, 'b')}"
            f"<div class=comments-head id=head>Comments</div>{_thread(comments, 1800 // comments)}</div>"
            f"</body></html>")
    page, state, stats = run_filter("main_content", html)
    assert {"a", "b"} <= ids(page)
    left = sum(1 for el in page.root.iter("div") if el.get("class") == "comments-body")
    assert left == (0 if removed else comments)
    assert stats[0]["status"] == "ok"
    assert ("a comment thread under the story" in reasons(state).values()) is removed


def test_what_makes_a_comment_thread():
    from lxml import html as H

    from pagesieve.filters.main_content.common import comment_thread

    block = H.fromstring(f"<div>{_thread(3)}</div>")
    assert all(comment_thread(el) for el in block)  # alike siblings named like comments
    assert not comment_thread(H.fromstring("<div class=comment-form><p>Leave a reply</p></div>"))
    outer = H.fromstring(f"<section id=comments>{_thread(3)}</section>")
    assert comment_thread(outer)  # holds 3+ blocks named like comments


@pytest.mark.parametrize("page, kept, gone", [
    # a short post (a quote) under two long comments: the second pass picked a comment
    ("233", "After all, silence and slowness lead to reflection", "Nathan"),
    # a workout of the day under 150 comments, 97% of the page: the cleanup was skipped
    ("R756", "Partition the run and burpee pull-ups as needed", "Comment #1 - Posted by"),
])
def test_reader_keeps_the_post_not_its_comment_thread_on_real_pages(page, kept, gone):
    from tests.conftest import EXTRACTION

    path = EXTRACTION / "dragnet-dev" / "pages" / f"{page}.html"
    if not path.is_file():
        pytest.skip("the dragnet-dev corpus is not beside the repository")
    from pagesieve.api import Filterer

    out = str(Filterer(preset="reader", output="text")(path.read_bytes()))
    assert kept in out and gone not in out


@pytest.mark.parametrize("widen", [True, False])
def test_on_a_forum_thread_the_block_of_the_posts_is_kept(widen):
    # a long first post and short replies: the scorer picks the first post's body (and its alike
    # cousins); on a forum thread the block of the repeated posts is the content
    posts = "".join(f"<article class='message post' id=m{i}><div class=user-info><a href=/u/{i} class=username>"
                    f"user{i}</a> Mar {i + 1}, 2024</div><div class=message-body id=b{i}><p>"
                    f"{SENTENCE * 8 if i == 0 else 'Thanks, that sounds like a good plan to me, really.'}</p></div>"
                    f"</article>" for i in range(5))
    html = (f"<html><head><title>New tank thoughts</title></head><body><div class=nav><a href=/>Home</a> "
            f"<a href=/forums>Forums</a></div><h1>New tank thoughts</h1><div class=thread id=thread>{posts}</div>"
            f"<div class=footer id=foot><a href=/terms>Terms</a></div></body></html>")
    page, state, _ = run_filter("main_content", html, thread_widen=widen)
    assert all(f"b{i}" in ids(page) for i in range(5)) and "foot" not in ids(page)
    assert any(e["action"] == "widen" and e["node"] == "div#thread.thread" for e in state.record) is widen


@pytest.mark.parametrize("link_density, widened, url, kind", [
    (0.1, True, None, "service"), (0, False, None, "service"),
    (0.1, True, "https://acme.example/events/", "listing"),  # a listing by its address: its prose sections too
])
def test_a_service_page_of_sections_side_by_side_keeps_every_section(link_density, widened, url, kind):
    # three sections, each its own block: the scorer picks the longest; on a service page (no other
    # signal) the chosen block widens while its parents add prose, up to the wrapper, not the nav
    secs = "".join(f"<section class={n} id=s{i}><div class=container><div class=col><h2>Service {i}</h2>"
                   f"<p id=p{i}>{SENTENCE * (6 if i == 0 else 1)}</p></div></div></section>"
                   for i, n in enumerate(["hero", "features", "pricing"]))
    html = (f"<html><head><title>Our services</title></head><body><nav id=nav><a href=/>Home</a> "
            f"<a href=/about>About</a> <a href=/contact>Contact</a></nav><div id=wrap><h1>Data services</h1>{secs}"
            f"</div><footer id=foot><a href=/terms>Terms</a> <a href=/privacy>Privacy</a></footer></body></html>")
    page, state, _ = run_filter("main_content", html, url=url, section_link_density=link_density)
    assert next(e for e in state.record if e["action"] == "page-type")["kind"] == kind
    assert ({"p1", "p2"} <= ids(page)) is widened and "p0" in ids(page)
    assert not {"nav", "foot"} & ids(page)
    assert any(e["action"] == "widen" and e["node"] == "div#wrap" for e in state.record) is widened


@pytest.mark.parametrize("n, scored", [(24, False), (25, True)])
def test_min_paragraph_chars_both_sides(n, scored):
    html = f"<html><body><div id=a><p>{'z' * n}</p></div><div id=b><a href=/>menu</a></div></body></html>"
    page, state, _ = run_filter("main_content", html, min_article_chars=0)
    assert ("b" not in ids(page)) is scored
    assert any(e["action"] == ("select" if scored else "skip") for e in state.record)


def test_retry_without_leaving_out_unlikely_blocks():
    # the article sits in a block named "supplemental": the first pass finds under 500 characters
    html = (f"<html><body><div class=supplemental id=s>{para(3, 'a')}{para(3, 'b')}</div>"
            f"<div id=n><p>A short teaser line of text for you.</p></div></body></html>")
    page, state, _ = run_filter("main_content", html)
    assert {"a", "b"} <= ids(page) and "n" not in ids(page)
    assert "pass 2" in next(e for e in state.record if e["action"] == "select")["reason"]


@pytest.mark.parametrize("dialog, chosen", [
    ('<div id=consent role=dialog aria-label="Your privacy">', False),
    ('<div id=consent aria-modal=true>', False),
    ("<dialog id=consent>", False),
    ('<div id=consent class=preferences>', True),  # the same box not marked as a dialog is text like any other
])
def test_a_dialog_over_the_page_is_never_the_content_even_on_the_pass_over_every_paragraph(dialog, chosen):
    # a listing has no article-sized prose, so the second pass scores every paragraph: a consent
    # manager's long policy text in its dialog outscored the page's own short intro
    close = "</dialog>" if dialog.startswith("<dialog") else "</div>"
    items = "".join(f"<li><a href=/r{i}>Recipe number {i} with tomatoes</a></li>" for i in range(12))
    html = (f"<html><body><main id=main><p id=intro>Our collection of tomato sauce recipes, for pasta, pizza "
            f"and stews.</p><ul id=items>{items}</ul></main>"
            f"{dialog}{para(3, 'policy1')}{para(3, 'policy2')}{close}</body></html>")
    page, state, _ = run_filter("main_content", html)
    assert ("policy1" in ids(page)) is chosen
    assert ("intro" in ids(page)) is not chosen


def test_sibling_paragraph_joins_by_length_and_link_density():
    html = (f"<html><body><div id=wrap><div id=body>{para(4)}{para(4)}</div>"
            f"<p id=long>{SENTENCE}</p><p id=links><a href=/x>{SENTENCE}</a></p></div></body></html>")
    page, _, _ = run_filter("main_content", html)
    assert "long" in ids(page) and "links" not in ids(page)


@pytest.mark.parametrize("cousins, kept", [(True, {"c1", "c2"}), (False, {"c2"})])
def test_article_split_in_chunks(cousins, kept):
    html = (f"<html><body><div id=g1><div><div><div class=body-chunk id=c1>{para(3)}{para(2)}</div>"
            f"<div class=ad>Advert</div></div></div></div>"
            f"<div id=g2><div class=body-chunk id=c2>{para(4)}{para(4)}</div>"
            f"</div><div id=side><a href=/1>Other story</a></div></body></html>")
    page, _, _ = run_filter("main_content", html, cousins=cousins)
    assert ids(page) & {"c1", "c2"} == kept and "side" not in ids(page)


@pytest.mark.parametrize("heading, removed", [("Bridge repairs approved", True), ("Bridge costs", False)])
def test_heading_repeating_the_title(heading, removed):
    html = (f"<html><head><title>Bridge repairs approved - Town Paper</title></head><body><div>"
            f"<h2 id=h>{heading}</h2>{para(4)}{para(4)}</div></body></html>")
    page, _, _ = run_filter("main_content", html)
    assert (page.root.find(".//h2[@id='h']") is None) is removed
    # the page has no <h1>: the heading that says what the <title> says is its headline, put first
    assert [h.get("id") for h in page.root.iter("h1")] == (["h"] if removed else [])


@pytest.mark.parametrize("html", [
    "<html><body></body></html>",
    "<html><body><p>short</p><a href=/>x</a></body></html>",
    "<html><body><ul><li><a href=/1>one link text here that is long</a></li></ul></body></html>",
])
def test_pages_without_paragraphs_pass_unchanged(html):
    page, state, stats = run_filter("main_content", html)
    before, _, _ = run_filter("ignore", html, scripts=False, meta=False, iframes=False, embeds=False,
                              non_link_images=False, image_links=False, style_attributes=False)
    assert dom.text_of(page.root) == dom.text_of(before.root)
    assert stats[0]["status"] == "ok" and state.record[-1]["action"] == "skip"


def test_hidden_elements_do_not_count_and_go():
    html = (f"<html><body><div id=art>{para(4)}<div hidden id=h><p>{SENTENCE * 3}</p></div>{para(4)}</div>"
            f"</body></html>")
    page, _, _ = run_filter("main_content", html)
    assert "h" not in ids(page)


def test_reader_main_preset_runs_end_to_end(cfg):
    from pagesieve.engine import config as C

    chain = C.build_chain(cfg.resolve("reader-main", C.overrides_to_tree([("output.format", "text")])))
    res = chain.process(ARTICLE_PAGE.encode(), url="https://example.org/bridge")
    text = res.body.decode(res.encoding)
    assert not res.failed and res.media_type == "text/plain"
    assert "voted to repair the old bridge" in text
    for clutter in ("Share on Facebook", "By Jane Doe", "Council budget passes", "Most read", "Copyright"):
        assert clutter not in text


def test_large_boilerplate_outside_the_core_goes_small_rule_inside():
    # a joining sibling block named like a newsletter box holds most of the kept text: it lies
    # outside the core (the best-scored block), so the share bound does not protect it
    promo = "".join(f"<p>Subscribe today, get our letter, read it with coffee, every week, number {i}.</p>"
                    for i in range(12))
    html = (f"<html><body><div id=post><div class=story id=entry>{para(4, 'a')}{para(4, 'b')}{para(4, 'c')}</div>"
            f"<div class=newsletter-box id=nl>{promo}</div></div><div id=side><a href=/>x</a></div></body></html>")
    page, state, _ = run_filter("main_content", html, sibling_ratio=0.0)
    assert {"a", "b", "c", "entry"} <= ids(page) and "nl" not in ids(page)
    entry = next(e for e in state.record if e.get("node") == "div#nl.newsletter-box")
    assert entry["measured"]["share"] > 0.3 and entry["threshold"] == {"outside_core": True}


@pytest.mark.parametrize("snippet, removed", [
    ("<span class=timestamp id=t>Updated 5:27 am, November 20, 2019</span>", True),  # its own line
    ("<p>Written <span class=author id=t>by the desk</span> today.</p>", False),  # inside a sentence
])
def test_named_inline_boilerplate_only_between_blocks(snippet, removed):
    html = f"<html><body><div id=art><p class=byline>By Jane Doe</p>{snippet}{para(4)}{para(4)}</div></body></html>"
    page, _, _ = run_filter("main_content", html)
    assert ("t" not in ids(page)) is removed


def test_headline_first_as_the_one_h1_then_byline():
    story = "".join(f"<p>Paragraph {i} of the story, with words, commas, and more words to score well.</p>"
                    for i in range(12))
    html = ("<html><head><title>Storm hits coast | Daily</title><meta property='og:title' content='Storm hits "
            "the coast at dawn | Daily'><meta name=author content='Ann Lee'>"
            "<meta property='article:published_time' content='2024-05-01T10:00:00Z'></head><body>"
            "<div id=top><h1 id=hl>Storm hits the coast at dawn</h1><nav><a href=/>Home</a></nav></div>"
            f"<div id=body><h1 id=name>Interviewee</h1>{story}</div></body></html>")
    page, state, _ = run_filter("main_content", html)
    h1s = list(page.root.iter("h1"))
    assert [h.get("id") for h in h1s] == ["hl"] and "pagesieve-headline" in h1s[0].get("class")
    assert page.root.get_element_by_id("name").tag == "h2"  # the second <h1> is demoted
    byline = h1s[0].getnext()
    assert byline.get("class") == "pagesieve-byline" and byline.text == "By Ann Lee · 2024-05-01"
    assert h1s[0].getnext().getnext().get("id") == "body"
    page, _, _ = run_filter("main_content", html, headline=False)
    assert [h.get("id") for h in page.root.iter("h1")] == ["name"]


def test_headline_from_metadata_without_site_name():
    story = "".join(f"<p>Paragraph {i} of the story, with words, commas, and more words to score well.</p>"
                    for i in range(12))
    html = ("<html><head><meta property='og:title' content='Storm hits the coast at dawn | Daily News'></head>"
            f"<body><div id=body>{story}</div></body></html>")
    page, _, _ = run_filter("main_content", html)
    (h1,) = page.root.iter("h1")
    assert h1.text == "Storm hits the coast at dawn" and page.root.find(".//p[@class='pagesieve-byline']") is None


def test_headline_when_the_chosen_node_is_itself_a_demoted_h1():
    # A chosen node that the headline step replaces (a second <h1> made <h2>) must not lose its place.
    from pagesieve.analysis.headline import Headline
    from pagesieve.engine.context import FilterContext
    from pagesieve.engine.state import RunState
    from pagesieve.engine.document import parse
    from pagesieve.filters.main_content.cleanup import put_headline

    page = parse(b"<html><body><div id=c><h1 id=x>Other heading here</h1></div></body></html>")
    body = page.body
    chosen = [page.root.get_element_by_id("x")]
    ctx = FilterContext("main_content", RunState(root=page.root), page)
    put_headline(body, chosen, Headline("Storm hits the coast at dawn", "og:title"), None, ctx)
    assert [(h.tag, h.text) for h in body.iter("h1", "h2")] == [("h1", "Storm hits the coast at dawn"),
                                                                ("h2", "Other heading here")]


# -- widening to the page's own content block ---------------------------------------
SERVICE_SECTIONS = "".join(
    f"<section id=s{i}><h2>Feature number {i}</h2><p>Set up in a minute {i}</p></section>" for i in range(16))
SERVICE_PAGE = f"""<html><head><title>Acme tools</title></head><body>
<nav><ul><li><a href=/>Home</a></li><li><a href=/about>About</a></li></ul></nav>
<main id=box>{SERVICE_SECTIONS}<div id=pitch><p>{SENTENCE * 2}</p></div></main>
<footer><p>Copyright Acme, every right reserved, all of them, forever and ever.</p></footer></body></html>"""


@pytest.mark.parametrize("main_share, widened", [(0.5, True), (0.0, False)])
def test_a_small_chosen_block_widens_to_the_semantic_main(main_share, widened):
    # the rule alone: the second opinion would keep the sections too
    page, state, _ = run_filter("main_content", SERVICE_PAGE, main_share=main_share, section_link_density=0,
                                second_opinion_share=0)
    assert ({"s0", "s15", "pitch"} <= ids(page)) is widened
    assert "pitch" in ids(page)
    assert any(e["action"] == "widen" for e in state.record) is widened


@pytest.mark.parametrize("footer_tag, widened", [("footer", True), ("div", False)])
def test_a_choice_in_the_pages_footer_gives_way_to_its_main_block(footer_tag, widened):
    """A shop's category page: its own text named like a footer (left out of the first pass), the page's
    footer longer: the pass over every paragraph chose the footer; the page's <main> is the content."""
    blurbs = "".join(f"<p>Reward cash {i}: when you reach a hundred points you earn five dollars of cash.</p>"
                     for i in range(12))
    html = (f"<html><head><title>Clogs</title></head><body><main id=main><h1>Classic clogs</h1>"
            f"<div class=seo-footer-copy><p id=own>Experience iconic comfort with classic clogs: timeless "
            f"favourites in every colour, for every day of the week.</p></div></main>"
            f"<{footer_tag} id=foot><div>{blurbs}</div></{footer_tag}></body></html>")
    page, state, _ = run_filter("main_content", html)
    assert ("own" in ids(page)) is widened
    assert ("foot" in ids(page)) is not widened
    assert any(e["action"] == "widen" and "furniture" in e["reason"] for e in state.record) is widened


@pytest.mark.parametrize("parts", [5, 10])  # a story under and over min_article_chars: either pass
def test_a_cookie_consent_banner_is_never_the_story(parts):
    """A shop's category page: its consent banner (named so, no dialog role) holds more prose than the
    guide under the products; the pass that leaves unlikely blocks out chose the banner."""
    banner = "".join(f"<h4>Cookies of kind {i}</h4><p>These cookies are essential to provide you with the "
                     f"services available through our platform and to let you use some of its features.</p>"
                     for i in range(8))
    story = "".join(f"<p>The watchmaker who first made a self-winding movement, part {i}, worked in the 1770s "
                    f"in the Swiss mountains.</p>" for i in range(parts))
    html = (f"<html><head><title>Automatic watches</title></head><body class=adpt-cookie-bar>"  # the page, whatever its name
            f"<div id=modal_cookie-consent class=modal_><div class=modal_content>{banner}</div></div>"
            f"<div class=panel><div id=story class=group>{story}</div></div></body></html>")
    page, state, _ = run_filter("main_content", html)
    assert "story" in ids(page)
    assert "Cookies of kind" not in page.body.text_content()


def test_an_article_inside_its_article_element_does_not_widen():
    """Inside an <article>, the rest beside the chosen story is comments and related lists."""
    html = SERVICE_PAGE.replace("<main id=box>", "<article id=box>").replace("</main>", "</article>")
    html = html.replace(SENTENCE * 2, SENTENCE * 8).replace(SERVICE_SECTIONS, SERVICE_SECTIONS * 3)
    page, state, _ = run_filter("main_content", html)
    assert "pitch" in ids(page) and "s0" not in ids(page)
    assert not any(e["action"] == "widen" for e in state.record)


def _linked_main(intro_sentences: int) -> str:
    links = "".join(f"<li><a href=/r{i}>Crispy air fryer recipe number {i} with garlic and lemon</a></li>"
                    for i in range(20))
    return f"""<html><head><title>Recipes</title></head><body>
<nav><ul><li><a href=/>Home</a></li><li><a href=/about>About</a></li></ul></nav>
<main id=box><div id=intro><p>{SENTENCE * intro_sentences}</p></div><ul id=links>{links}</ul></main>
<footer><p>Copyright Acme, every right reserved, all of them, forever and ever.</p></footer></body></html>"""


@pytest.mark.parametrize("intro_sentences, main_share, widened", [(1, 0.5, True), (1, 0.0, False), (8, 0.5, False)])
def test_a_thin_choice_takes_a_link_dense_main_block(intro_sentences, main_share, widened):
    """No article-sized prose on the page (the second pass's pick is thin): the page's <main> is the
    content whatever its link density (a list of linked items); a page with an article keeps it."""
    page, state, _ = run_filter("main_content", _linked_main(intro_sentences), main_share=main_share)
    assert "intro" in ids(page)
    assert ("links" in ids(page)) is widened


def test_a_main_block_of_linked_cards_taken_as_the_content_keeps_its_cards():
    # no text of article size: the pass over every paragraph picks the short intro, which widens to the
    # page's <main> of linked cards; the cards are what was chosen, not link lists inside a text (removed
    # one by one, they took nearly all of the choice and the whole filter was undone)
    cards = "".join(f"<a href=/r{i} class=card><div class=card__content id=c{i}><span>Slow-cooked tomato sauce "
                    f"number {i} with garlic</span></div></a>" for i in range(8))
    html = (f"<html><head><title>Tomato sauces</title></head><body><header id=top><a href=/>Home</a> "
            f"<a href=/about>About</a></header><main id=main><div id=head><h1>Tomato sauces</h1><p id=intro>"
            f"Our collection of tomato sauce recipes has something for every dish, pasta or pizza.</p></div>"
            f"<div id=grid>{cards}</div></main>"
            f"<footer id=foot><p>Copyright Acme, every right reserved, all of them, forever and ever.</p></footer>"
            f"</body></html>")
    page, state, _ = run_filter("main_content", html)
    assert {"intro", "c0", "c7"} <= ids(page) and "foot" not in ids(page)
    assert not any(e["action"] == "revert" for e in state.record)


def _listing(intro_sentences: int, items: int = 12, own_names: bool = False) -> str:
    # own_names: each item carries names of its own after the kind's (a shop's post-1501, first, instock)
    grid = "".join(f"<div class='card{f' post-{1500 + i} ' + ('first', 'last')[i % 2] if own_names else ''}' id=c{i}>"
                   f"<a href=/p/{i}>Product number {i}</a> <span>${i}9.99 in stock</span></div>" for i in range(items))
    return f"""<html><head><title>Tools</title></head><body>
<div id=intro><p>{SENTENCE * intro_sentences}</p></div>
<div class=grid id=grid>{grid}</div></body></html>"""


@pytest.mark.parametrize("intro_sentences, widened, own_names", [(1, True, False), (8, False, False), (1, True, True)])
def test_a_thin_choice_on_a_listing_widens_to_its_grid(intro_sentences, widened, own_names):
    """A short text block beside the grid gives way to it; an article-sized one does not. Items are
    alike by their first class name, whatever names of their own follow it."""
    page, state, _ = run_filter("main_content", _listing(intro_sentences, own_names=own_names))
    assert ({"grid", "c0", "c11"} <= ids(page)) is widened
    assert ("intro" in ids(page)) is not widened


def test_a_grid_has_no_dominant_item():
    from pagesieve.engine.document import parse
    from pagesieve.filters.main_content.widening import even_items

    def even(html):
        page = parse(f"<html><body><div id=g>{html}</div></body></html>".encode())
        _, st = block_stats(dom.body_of(page.root))
        return even_items(page.root.get_element_by_id("g"), st)

    cards = "".join(f"<div class=c><a href=/{i}>Card {i}</a> $9</div>" for i in range(6))
    assert even(cards)
    assert not even(cards + f"<div class=c><a href=/x>Card x</a> {SENTENCE * 3}</div>")


def test_headline_and_byline_from_metadata_the_ignore_filter_removed():
    # ignore (first in the reader chain) drops <meta> and JSON-LD; the headline and byline are read
    # before it, so the reader still puts the og:title headline first, not the site's <h1>.
    story = "".join(f"<p>Paragraph {i} of the story, with words, commas, and more words to score well.</p>"
                    for i in range(12))
    html = ("<html><head><meta property='og:title' content='Storm hits the coast at dawn'>"
            "<meta name=author content='Ann Lee'><script type='application/ld+json'>"
            '{"@type": "NewsArticle"}</script></head><body><div id=top><h1>The Daily Site</h1></div>'
            f"<div id=body><h2>Storm hits the coast at dawn</h2>{story}</div></body></html>")
    page, state, _ = run_filters([("ignore", {}), ("main_content", {})], html)
    assert page.root.find(".//meta[@property='og:title']") is None  # ignore removed it
    h1s = list(page.root.iter("h1"))
    assert [dom.text_of(h) for h in h1s] == ["Storm hits the coast at dawn"]
    assert page.root.find(".//p[@class='pagesieve-byline']").text == "By Ann Lee"
    note = next(e for e in state.record if e["action"] == "page-type")
    assert "schema.org" not in note["reason"]  # the page type reads the page as the chain left it


def _reviews(n: int) -> str:
    return "".join(f"<div class=product-review><span class=review-title>Great shelf {i}</span>"
                   f"<span class=review-text>Easy to assemble, sturdy, and it fits the living room well; "
                   f"{'we use it every day and it still looks new. ' * 6}</span></div>" for i in range(n))


@pytest.mark.parametrize("url, gone", [
    ("https://shop.example/us/p/kallax-shelf-80275887/", True),   # a product page: the reviews are its comments
    ("https://news.example/2024/05/shelves-tested", False),       # an article: blocks named "review" stay
])
def test_customer_reviews_on_a_product_page_are_a_thread_not_the_description(url, gone):
    # the description and specifications, then 12 customer reviews with more text than they have:
    # on a product page repeated blocks named like reviews are the customers' comments
    html = (f"<html><head><title>KALLAX shelf unit</title></head><body><div id=page>"
            f"<div class=product-details id=desc><h2>Product details</h2>{para(4, 'd1')}"
            f"<h2>Good to know</h2>{para(3, 'd2')}</div>"
            f"<div class=reviews id=reviews><h2>Reviews</h2>{_reviews(12)}</div></div></body></html>")
    page, state, stats = run_filter("main_content", html, url=url)
    assert {"d1", "d2"} <= ids(page)
    left = sum(1 for el in page.root.iter("div") if el.get("class") == "product-review")
    assert left == (0 if gone else 12)
    assert stats[0]["status"] == "ok"


def test_the_add_to_cart_control_that_ignore_removes_still_makes_a_product_page():
    # ignore removes buttons and forms before main_content detects the page type: the control is
    # read from the page as parsed (pagesieve.analysis.pagemeta)
    html = (f"<html><body><div id=buy><p>Price: $99.60</p><form action=/cart><button>Add to cart</button></form>"
            f"</div><div id=desc>{para(5, 'd')}</div></body></html>")
    page, state, _ = run_filters([("ignore", {"forms": True, "buttons": True}), ("main_content", {})], html)
    assert not list(page.root.iter("button")) and not list(page.root.iter("form"))
    kind = next(e for e in state.record if e["action"] == "page-type")
    assert kind["reason"].startswith("page type: product") and "add-to-cart" in kind["reason"]


@pytest.mark.parametrize("expanders, kept", [(1, True), (3, False)])
def test_a_read_more_block_of_prose_is_the_text_it_unfolds_unless_it_repeats(expanders, kept):
    # one "read more" block holding a paragraph of prose: a product's description, folded; the same
    # block repeated (one per review or teaser) unfolds list items and goes as before
    fold = "".join(f"<div class='content-toggle read-more' id=fold{i}><p>{SENTENCE * 4}</p></div>"
                   for i in range(expanders))
    html = (f"<html><body><div id=main><h2>Item details</h2>{para(12, 'a')}{fold}"
            f"<div class=read-more id=link><a href=/more>Read more</a></div></div></body></html>")
    page, state, _ = run_filter("main_content", html)
    left = ids(page)
    assert "a" in left and "link" not in left
    assert ("fold0" in left) is kept and sum(f"fold{i}" in left for i in range(expanders)) == (expanders if kept else 0)


def _front_page(kind_signals: str, lead_sentences: int) -> str:
    # a blog's front page: alike teasers, each deep in its card; the first one longer
    teasers = "".join(
        f"<article class=teaser id=t{i}><div class=card-body><div class=card-text><h2><a href=/p/{i}>Story {i}</a></h2>"
        f"<p>{SENTENCE * lead_sentences if i == 0 else 'A short teaser, read on'}</p><p>By Jane, {i + 1} May</p>"
        f"</div></div></article>"
        for i in range(8))
    return (f"<html><head><title>The Blog</title>{kind_signals}</head><body><div class=nav><a href=/>Home</a></div>"
            f"<div class=posts id=grid>{teasers}</div></body></html>")


@pytest.mark.parametrize("lead_sentences, widened", [(2, True), (9, False)])
def test_a_thin_block_inside_one_item_of_a_grid_widens_to_the_grid_whatever_the_page_type(lead_sentences, widened):
    # declared an article (og:type, address), so not a listing by type; the chosen block is the first
    # teaser's text: the grid of teasers is the content. A story of 500+ characters stays itself.
    html = _front_page("<meta property=og:type content=article>", lead_sentences)
    page, state, _ = run_filter("main_content", html, url="https://blog.example/2024/05/index.html")
    assert next(e for e in state.record if e["action"] == "page-type")["reason"].startswith("page type: article")
    assert all(f"t{i}" in ids(page) for i in range(8)) is widened
    assert any(e["action"] == "widen" and e["node"] == "div#grid.posts" for e in state.record) is widened


def test_hidden_tab_panels_are_content_and_shown_other_hidden_blocks_are_not():
    # a documentation page's code sample in three languages, two of them in hidden tab panels: no tab
    # can show them without the page's scripts, so they are kept and shown; a hidden dialog still goes
    panels = "".join(f"<div role=tabpanel id=tab{i} aria-labelledby=t{i}{' hidden' if i else ''}>"
                     f"<pre>install sample {i} with the {lang} package manager</pre></div>"
                     for i, lang in enumerate(("Python", "Node", "Ruby")))
    html = (f"<html><body><div id=doc><h1>Quickstart</h1>{para(5, 'a')}<div class=tabs>{panels}</div>"
            f"{para(2, 'b')}<div hidden id=dialog><p>{SENTENCE}</p></div></div></body></html>")
    page, state, _ = run_filter("main_content", html)
    left = ids(page)
    assert {"a", "b", "tab0", "tab1", "tab2"} <= left and "dialog" not in left
    assert not any(page.root.get_element_by_id(f"tab{i}").get("hidden") is not None for i in range(3))
    assert sum(e["action"] == "reveal" for e in state.record) == 2


def _qa_page(question_sentences: int) -> str:
    # a question above its block of answers (Stack Exchange): the scorer picks the answers
    answers = "".join(f"<div class=answer id=a{i}><div class=post-text><p>{SENTENCE * 4}</p></div>"
                      f"<span class=user>user{i}</span></div>" for i in range(4))
    return (f"<html><head><title>How should I prepare?</title></head><body><div class=nav><a href=/>Home</a></div>"
            f"<div id=mainbar><h1>How should I prepare?</h1><div class=question id=q><div class=post-text>"
            f"<p id=qtext>{SENTENCE * question_sentences}</p></div></div><div id=answers>{answers}</div></div>"
            f"<div class=sidebar id=side><a href=/x>Hot network questions</a></div></body></html>")


@pytest.mark.parametrize("question_sentences, joined", [(3, True), (1, False)])
def test_on_a_forum_the_question_above_the_chosen_answers_is_kept(question_sentences, joined):
    url = "https://cooking.example/questions/123/how-should-i-prepare"
    page, state, _ = run_filter("main_content", _qa_page(question_sentences), url=url)
    left = ids(page)
    assert all(f"a{i}" in left for i in range(4)) and "side" not in left
    assert ("qtext" in left) is joined  # a one-sentence block is no opening post (OPENING_POST_CHARS)


def test_on_a_forum_the_replies_after_the_chosen_first_post_are_kept():
    # Vanilla: the first post in its own list, the comments in a block after it (named like comments)
    comments = "".join(f"<li class='Item ItemComment{' Alt' if i % 2 else ''}' id=c{i}><div class=Comment>"
                       f"<div class=Item-BodyWrap><div class=Item-Body><div class=Message><p>"
                       f"{'Thanks, that makes sense to me and I will try it this weekend. ' * 2}</p></div></div></div>"
                       f"</div></li>" for i in range(3))
    html = (f"<html><body><div class=Frame><div class='Content MainContent' id=main>"
            f"<div class='MessageList Discussion'><div class=Item><div class=Discussion><div class=Item-BodyWrap>"
            f"<div class=Item-Body><div class=Message id=first><p>{SENTENCE * 8}</p></div></div></div></div></div></div>"
            f"<div class=CommentsWrap id=comments><div class=DataBox><ul class=Comments>{comments}</ul></div></div>"
            f"</div><div class=Panel id=panel><a href=/c>Categories</a></div></div></body></html>")
    page, state, _ = run_filter("main_content", html, url="https://forum.example/discussion/39620/a-topic")
    left = ids(page)
    assert {"first", "comments", "c0", "c2"} <= left and "panel" not in left


def test_a_count_of_likes_marked_as_an_interaction_statistic_goes_the_post_stays():
    # Discourse marks each post's "1 Like" as a schema.org interactionStatistic: a figure about the
    # post, read out as if it were part of it
    posts = "".join(f"<div class=topic-body itemprop=comment id=p{i}><div class=post itemprop=text><p>{SENTENCE * 2}"
                    f"</p></div><div itemprop=interactionStatistic id=s{i}><span class=post-likes>{i + 1} Like</span>"
                    f"</div></div>" for i in range(3))
    page, state, _ = run_filter("main_content", f"<html><body><div id=thread>{posts}</div></body></html>")
    left = ids(page)
    assert {"p0", "p1", "p2"} <= left and not {"s0", "s1", "s2"} & left


@pytest.mark.parametrize("sentences, removed", [(3, True), (1, False)])
def test_a_short_post_under_a_long_thread_is_the_post(sentences, removed):
    # an "open thread" post of a few sentences under a long comment thread: the thread goes when the
    # post left holds a paragraph (THREAD_MIN_STORY_CHARS), not only a story of min_article_chars
    html = (f"<html><body><div class=blog id=blog><h2>September open thread</h2><p id=post>{SENTENCE * sentences}</p>"
            f"<div class=comments-head id=head>Comments</div>{_thread(6, 300)}</div></body></html>")
    page, state, _ = run_filter("main_content", html)
    assert "post" in ids(page)
    left = sum(1 for el in page.root.iter("div") if el.get("class") == "comments-body")
    assert left == (0 if removed else 6)


def test_a_rotator_of_testimonials_is_text_but_a_gallery_label_is_not():
    # wcxb 4900 and 0095: a "testimonial_rotator ... slideshow" of quotes (no image, no links) was removed as an
    # image gallery; a gallery whose images a script loads later says only "1 / 8 Back to Gallery".
    quotes = "".join(f"<p>“{SENTENCE.strip()} Thank you, number {i}!”</p>" for i in range(3))
    page, state, _ = run_filter("main_content", f"""<html><body><div id=main>{para(4, "p1")}
      <div id=rotator class="testimonial_rotator cycletwo-slideshow">{quotes}</div>
      <div id=label class="gallery-overlay"><p>Bridges of the county</p><p>1 / 8</p><p>Back to Gallery</p></div>
      <div id=pics class="photo-gallery"><img src=a.jpg alt="the bridge"><p>{SENTENCE}{SENTENCE}{SENTENCE}</p></div>
      {para(4, "p2")}</div></body></html>""")
    left = ids(page)
    assert {"p1", "p2", "rotator"} <= left
    assert "label" not in left
    assert reasons(state)["div#label.gallery-overlay"] == "image caption or gallery"
    # the gallery's text goes, its picture stays
    pics = page.root.get_element_by_id("pics")
    assert [img.get("src") for img in pics.iter("img")] == ["a.jpg"] and not pics.text_content().strip()


def test_a_carousel_of_feature_cards_is_text_beside_its_pictures():
    # a laptop's product page shows its features as slides, each a picture beside a paragraph: the
    # paragraphs are the product's description, not captions (only the pictures were left)
    feature = ("Enjoy robust performance driven by the latest processor, with dedicated engines that boost "
               "productivity while the advanced thermal system keeps it cool and quiet. Opt for discrete "
               "graphics to work on large models, and a bright display to see every detail of them, "
               "indoors or out, all day long. ")
    slides = "".join(f"<div class='feature-gallery content-left' id=f{i}><img src=f{i}.jpg alt='feature {i}'>"
                     f"<div class=gallery-content><h3>Feature {i}</h3><p>{feature}</p></div></div>" for i in range(3))
    page, _, _ = run_filter("main_content", f"""<html><body><div id=main>{para(8, "p1")}
      {slides}{para(8, "p2")}</div></body></html>""")
    for i in range(3):
        card = page.root.get_element_by_id(f"f{i}")
        assert "thermal system" in card.text_content() and len(list(card.iter("img"))) == 1


def test_a_gallery_keeps_its_story_pictures_once_and_drops_controls_teasers_and_thumbnails():
    page, state, _ = run_filter("main_content", f"""<html><body><div id=main>{para(4, "p1")}
      <div id=car class="carousel slide"><div class=carousel-inner>
        <div class="carousel-item active"><img src=one.jpg alt="the first bridge" width=800 height=450></div>
        <div class=carousel-item><picture><source srcset=two.webp><img src=two.jpg alt="the second bridge"></picture></div>
        <div class=carousel-item><img src=one.jpg alt="the first bridge, again for the loop"></div>
        <div class=carousel-item><img src=three.jpg></div></div>
        <button><img src=one-xs.jpg alt="slide 1"></button>
        <a href="/other-story"><img src=teaser.jpg alt="another story"></a>
        <img src=thumb.jpg alt="a thumbnail" width=60 height=40>
        <div class=carousel-caption><p>Bridges of the county, photographed in May.</p></div></div>
      {para(4, "p2")}</div></body></html>""")
    car = page.root.get_element_by_id("car")
    # a slide that does not say what it shows stays too (the caption handed on to it says it)
    assert [img.get("src") for img in car.iter("img")] == ["one.jpg", "two.jpg", "three.jpg"]
    assert car.find(".//picture/source") is not None  # the <picture> around a kept image stays whole
    assert not car.text_content().strip()
    assert "image caption or gallery: its text and controls (its pictures stay)" in reasons(state).values()
    # their caption is handed on to the pictures, for image_captions to judge them by
    assert all("Bridges of the county" in state.removed_captions[img] for img in car.iter("img"))


def test_a_blurb_with_one_link_is_text_but_a_line_of_links_is_not():
    # wcxb 4900: "Cover Letter Help" (a linked heading) over a sentence was removed as a link list.
    page, state, _ = run_filter("main_content", f"""<html><body><div id=main>{para(4, "p1")}
      <div id=blurb><h4><a href=/cover>Cover letter writing help</a></h4>
       <p>Need a winning cover letter? We write one for you, fast.</p></div>
      <div id=related><a href=/a>Council budget passes</a> and <a href=/b>Road works on Main Street</a></div>
      <div id=more><p>Read more: <a href=/c>The bridge that was never built in our town</a></p></div>
      {para(4, "p2")}</div></body></html>""")
    left = ids(page)
    assert {"p1", "p2", "blurb"} <= left
    assert not {"related", "more"} & left
    assert reasons(state)["div#more"] == "link list inside the article"


@pytest.mark.parametrize("link_density, joined", [(0.1, True), (0, False)])
def test_a_section_of_prose_beside_chosen_sections_joins_them(link_density, joined):
    # wcxb 4854: three alike sections chosen together; the fourth, "plan your visit", has its text in
    # <div>s (no paragraphs: it scores low) and was left out. A short date line beside them stays out.
    about = "".join(f"<div class=about id=a{i}><div class=col>{para(4)}</div></div>" for i in range(3))
    visit = "<div class=contact id=visit><h2>Plan your visit</h2>" + "".join(
        f"<div>{SENTENCE}</div>" for _ in range(3)) + "</div>"
    html = (f"<html><head><title>Our gallery</title></head><body><nav id=nav><a href=/>Home</a> "
            f"<a href=/shop>Shop</a></nav><div id=wrap>{about}<div id=when>Feb 14, 2026 | 9:05 pm</div>{visit}</div>"
            f"<footer id=foot><a href=/terms>Terms</a></footer></body></html>")
    page, state, _ = run_filter("main_content", html, section_link_density=link_density)
    assert next(e for e in state.record if e["action"] == "page-type")["kind"] == "service"
    left = ids(page)
    assert {"a0", "a1", "a2"} <= left and not {"nav", "foot", "when"} & left
    assert ("visit" in left) is joined


def test_folded_faq_answers_are_content_and_shown_other_hidden_blocks_are_not():
    # wcxb 0132, 0607, 2951: the answers of an FAQ are hidden until a script unfolds them; without the
    # page's scripts nothing can, so the reader shows them. A hidden sign-up box stays out.
    faq = "".join(f"<div class=faq__question>Question {i}, what does it cost?</div>"
                  f"<div class=faq__answer id=ans{i} hidden><div>{SENTENCE * 2}</div></div>" for i in range(3))
    page, state, _ = run_filter("main_content", f"""<html><body><div id=main>{para(4, "p1")}
      <div id=faq class=faqs><h2>Frequently asked questions</h2>{faq}</div>
      <div id=signup class=modal hidden><p>{SENTENCE}</p></div></div></body></html>""")
    left = ids(page)
    assert {"p1", "ans0", "ans1", "ans2"} <= left and "signup" not in left
    assert all(page.root.get_element_by_id(f"ans{i}").get("hidden") is None for i in range(3))
    assert sum(1 for e in state.record if e["action"] == "reveal") == 3


@pytest.mark.parametrize("min_chars, replaced", [(500, True), (5000, False)])
def test_a_thin_choice_gives_way_to_the_pages_large_block_of_prose(min_chars, replaced):
    # wcxb 2846: a marketing page of short lines ("3.6x faster time to market"), each under
    # min_paragraph_chars: the scorer finds only a banner's sentence; the page's largest block of few
    # links (at least twice min_article_chars and four times the banner) is kept.
    body = "".join(f"<div class=row><h3>Feature {i}</h3><p>{i}x faster to market!</p><p>{i}% shorter plans</p></div>"
                   for i in range(40))
    html = (f"<html><head><title>Our app</title></head><body><div id=wrap><div id=banner><p>{SENTENCE}</p></div></div>"
            f"<nav id=nav><a href=/>Home</a> <a href=/p>Pricing</a></nav><div id=content>{body}</div>"
            f"<footer id=foot><a href=/terms>Terms</a></footer></body></html>")
    page, state, _ = run_filter("main_content", html, min_article_chars=min_chars)
    assert next(e for e in state.record if e["action"] == "page-type")["kind"] == "service"
    assert ("content" in ids(page)) is replaced and "nav" not in ids(page)
    assert any(e["action"] == "widen" and e["node"] == "div#content" for e in state.record) is replaced


def test_a_copy_of_a_block_in_another_place_goes_but_repeated_text_in_one_place_stays():
    # wcxb 0549: each reply carries a one-line preview of the post it answers (the whole post in the DOM,
    # clamped by CSS), so the reader read every post twice. Repeated lines of one list (an errata page's
    # "the revision needs to be noted ...") stay: they repeat in the same place, by right.
    post = SENTENCE * 2
    notice = "The revision needs to be noted in the printed products of this year and in the package, on page thirteen."
    html = (f"<html><body><div id=thread>"
            f"<div class=post id=p1><div class=content id=c1><p>{post}</p></div></div>"
            f"<div class=post id=p2><div class=reply-to id=preview><span>{post}</span></div>"
            f"<div class=content id=c2><p>{SENTENCE * 3}</p></div></div>"
            f"<ul id=errata><li id=e1>{notice} One.</li><li id=n1>{notice}</li><li id=e2>{notice} Two.</li>"
            f"<li id=n2>{notice}</li></ul></div></body></html>")
    page, state, _ = run_filter("main_content", html)
    left = ids(page)
    assert {"c1", "c2", "n1", "n2", "e1", "e2"} <= left and "preview" not in left
    assert reasons(state)["div#preview.reply-to"] == "a copy of a block above"


def test_galleries_whose_captions_went_are_no_copies_of_each_other():
    # wcxb 4694: a gear list's photo carousels, each a photo and a caption of the same length. The
    # captions go (their text is handed to the pictures); the carousels, empty of text now, read the
    # same (""), and the second was removed as a copy of the first, with its photos.
    cap1 = "Staying hydrated is key, and a simple way to filter your drinking water makes it easier. " * 2
    cap2 = cap1.replace("hydrated", "prepared").replace("drinking", "cleaning")
    assert len(cap1) == len(cap2)
    html = (f"<html><body><div id=story><p>{SENTENCE * 4}</p>"
            f"<div class=photonormal><div class=carousel id=g1><img src=/a.jpg width=800 height=450 alt=''>"
            f"<div class=photo-caption>{cap1}</div></div></div><p>{SENTENCE * 3}</p>"
            f"<section class=photos><div class=carousel id=g2><img src=/b.jpg width=800 height=450 alt=''>"
            f"<div class=photo-caption>{cap2}</div></div></section><p>{SENTENCE * 3}</p></div></body></html>")
    page, state, _ = run_filter("main_content", html)
    assert {img.get("src") for img in page.root.iter("img")} == {"/a.jpg", "/b.jpg"}
    assert "a copy of a block above" not in reasons(state).values()


def test_a_drawer_an_accordion_slides_open_is_content_a_sidebar_is_not():
    # wcxb-dev-more 0581: a shop's product description sits in a drawer (role=dialog, an <aside> inside)
    # that the "Description" accordion slides open; as a dialog it was removed, with all the description.
    desc = "The training top is made of a light material that lets you move freely and keeps you dry. " * 4
    html = (f"<html><body><main id=main><h1>Arrival T-Shirt</h1><p id=price>{SENTENCE}</p>"
            f"<section class=accordion-container><div class=accordion><button>Description</button>"
            f"<div class=sheet role=dialog aria-modal=false id=drawer><aside><div><p>{desc}</p></div></aside></div>"
            f"</div></section>" + f"<p>{SENTENCE * 3}</p>" * 6 +
            f"<aside id=side><p>{SENTENCE}</p></aside></main></body></html>")
    page, state, _ = run_filter("main_content", html)
    left = ids(page)
    assert "drawer" in left and "side" not in left
    assert "light material" in page.root.text_content()


def _stats_reference(body):
    """scoring.stats as it was before it picked the elements in C and counted ASCII text by
    deleting bytes (the reference), its counts in the positional lists it used then."""
    from pagesieve.filters.main_content.common import FOLDED, HIDDEN
    from pagesieve.filters.main_content.common import names_of as _names
    from pagesieve.filters.main_content.scoring import COMMAS, BlockScore
    from pagesieve.filters.main_content.scoring import SKIP_TAGS as _SKIP

    _PARA, _CHARS, _LINK, _COMMAS, _BLOCK, _PCOMMAS, _PLINK = range(7)
    order, in_link = [], {}
    hidden = {el for el in HIDDEN(body) if not FOLDED.search(_names(el))}
    stack = [body]
    while stack:
        el = stack.pop()
        if not isinstance(el.tag, str) or el.tag in _SKIP or el in hidden:
            continue
        in_link[el] = el.tag == "a" or in_link.get(el.getparent(), False)
        order.append(el)
        stack.extend(reversed(el))
    st = {}
    for el in reversed(order):
        link = in_link[el]
        chars = commas = 0
        for t in (el.text, *[c.tail for c in el]):
            if t and (words := t.split()):
                joined = "".join(words)
                chars += len(joined)
                if "," in joined or not joined.isascii():
                    commas += joined.count(",") if joined.isascii() else len(COMMAS.findall(joined))
        s = [chars, chars, chars if link else 0, commas, False, commas, chars if link else 0]
        for c in el:
            cs = st.get(c)
            if cs is None:
                continue
            s[_CHARS] += cs[_CHARS]
            s[_LINK] += cs[_LINK]
            s[_COMMAS] += cs[_COMMAS]
            if c.tag in dom.BLOCK_TAGS or cs[_BLOCK]:
                s[_BLOCK] = True
            else:
                s[_PARA] += cs[_CHARS]
                s[_PCOMMAS] += cs[_COMMAS]
                s[_PLINK] += cs[_LINK]
        st[el] = s
    return order, {el: BlockScore(*s) for el, s in st.items()}


STATS_PAGE = ("<html><body><div id=a> one, two <a href=/x>link, <b>bold</b> text</a> tail,\u00a0more <!-- c, c --> "
              "after<p>para\uff0c full\u060c width, <span hidden>gone, <i>x</i></span> kept</p>"
              "<div aria-hidden=' TRUE '>hidden, block<p>p</p></div><script>a, b</script> x,y "
              "<noscript><p>no, script</p></noscript><ul><li>item, <a>one</a></li><li>two</li></ul>"
              "<input type=HIDDEN><div role=tabpanel hidden>tab, panel<p>shown, here</p></div>"
              "<div class=faq__answer hidden>folded, answer<p>shown, too</p></div>"
              "<svg><text>s, v</text></svg> Grüße, 東京，end</div><p>\u2003</p></body></html>")


def test_stats_are_those_of_the_walk_they_replaced(corpus):
    import random

    pages = [parse(STATS_PAGE.encode())] + [parse(path.read_bytes())
                                            for _, path, _ in random.Random(5).sample(corpus, 10)]
    for page in pages:
        body = dom.body_of(page.root)
        assert block_stats(body) == _stats_reference(body)
        inner = body.find(".//div")
        if inner is not None:
            assert block_stats(inner) == _stats_reference(inner)


# A reference page: one long section and short ones beside it in the page's <main>, each with a
# cross-reference or two (too many links for the sections-side-by-side climb, section_link_density),
# and the documentation's menu outside <main>.
DOCS_REST = "".join(f"<section id=r{i}><h2>Option {i}</h2><p>The option sets the timeout of a request, see "
                    f"<a href=/docs/ref/{i}>the reference</a> for its values, in seconds.</p></section>"
                    for i in range(4))
DOCS_PAGE = f"""<html><head><title>Middleware</title></head><body>
<nav id=menu>{''.join(f'<a href=/docs/{i}>Topic {i}</a> ' for i in range(30))}</nav>
<main id=doc><section id=big><h2>Overview</h2><p>{SENTENCE * 14}</p>
<p>See <a href=/docs/a>the first guide to requests</a>, <a href=/docs/b>the second guide to responses</a>,
<a href=/docs/c>the guide to options and their defaults</a>, <a href=/docs/d>the guide to caching of pages</a>
and <a href=/docs/e>the guide to the middleware order</a>.</p><pre><code>a = 1</code></pre>
<pre><code>b = 2</code></pre><pre><code>c = 3</code></pre></section>{DOCS_REST}</main>
<footer id=foot><a href=/terms>Terms</a></footer></body></html>"""


@pytest.mark.parametrize("rest_link_density, widened", [(0.25, True), (0.0, False)])
def test_on_a_documentation_page_the_rest_of_a_prose_main_block_is_kept(rest_link_density, widened):
    # the chosen section holds most of <main> (so the semantic-main widening, main_share, does not
    # apply); the rest of <main> is short sections of prose with a link each: content too
    page, state, _ = run_filter("main_content", DOCS_PAGE, url="https://acme.example/docs/middleware/",
                                main_rest_link_density=rest_link_density)
    assert next(e for e in state.record if e["action"] == "page-type")["kind"] == "documentation"
    assert "big" in ids(page) and not {"menu", "foot"} & ids(page)
    assert ({f"r{i}" for i in range(4)} <= ids(page)) is widened
    assert any(e["action"] == "widen" and e["node"] == "main#doc" for e in state.record) is widened


def test_the_rest_of_an_article_element_is_not_widened_to():
    """As the main is an <article> (no <main>), the rest beside the chosen block is its header,
    byline and comments: it stays out."""
    html = DOCS_PAGE.replace("<main id=doc>", "<article id=doc>").replace("</main>", "</article>")
    page, state, _ = run_filter("main_content", html, url="https://acme.example/docs/middleware/")
    assert "big" in ids(page) and not {f"r{i}" for i in range(4)} & ids(page)
    assert not any(e["action"] == "widen" for e in state.record)


def test_headline_is_the_post_title_that_the_page_title_holds_not_the_site_name_h1():
    # A blog's template: the site's name is the <h1>, the post's title an <h2> that the <title> holds
    # (no og:title or JSON-LD). The post's title comes first as the one <h1>, moved from its place.
    story = "".join(f"<p>Paragraph {i} of the story, with words, commas, and more words to score well.</p>"
                    for i in range(12))
    html = ("<html><head><title>Making Email More Scalable « Rand's Blog</title></head><body>"
            "<div id=top><h1 id=site><a href='/blog'>Rand's Blog</a></h1></div>"
            f"<div id=post><h2 id=title>Making Email More Scalable</h2>{story}<h2>34 comments</h2></div>"
            "</body></html>")
    page, state, _ = run_filters([("ignore", {}), ("main_content", {})], html)
    h1s = list(page.root.iter("h1"))
    assert [(h.get("id"), dom.text_of(h)) for h in h1s] == [("title", "Making Email More Scalable")]
    assert "pagesieve-headline" in h1s[0].get("class") and page.root.find(".//h2[@id='title']") is None
    assert "Rand's Blog" not in dom.text_of(page.root.find(".//body"))
    note = next(e for e in state.record if e["action"] == "headline")
    assert note["reason"] == "headline first (<h2> matching the <title>)"


def test_picture_blocks_between_and_just_before_the_chosen_text_join_it():
    # a page builder's text blocks, chosen as siblings, with the story's pictures in blocks of their own:
    # the lead photo just before the first, a photo between them; not a picture block after the text,
    # not a teaser picture linking elsewhere, not a block of more than a caption's text
    html = f"""<html><body><div id=menu><a href=/>Home</a> <a href=/x>News</a></div><div id=wrap>
      <div id=lead><img src=lead.jpg alt="The bridge at dawn" width=1200 height=600></div>
      <div id=a class=text>{para(4, "p1")}</div>
      <div id=pic><img src=mid.jpg alt="Workers on the bridge" width=800 height=500><span>Photo: A. Lens</span></div>
      <div id=teaser><a href=/other-story><img src=teaser.jpg alt="Another story" width=800 height=500></a></div>
      <div id=thumb><img src=thumb.jpg alt="A thumbnail" width=60 height=40></div>
      <div id=b class=text>{para(4, "p2")}</div>
      <div id=after><img src=after.jpg alt="An advert" width=800 height=500></div>
      <div id=c><p>Comments are closed.</p></div></div></body></html>"""
    page, state, _ = run_filter("main_content", html)
    left = ids(page)
    assert {"lead", "a", "pic", "b", "p1", "p2"} <= left
    assert not {"teaser", "thumb", "after", "c", "menu"} & left
    assert any(e["action"] == "widen" and "pictures" in e["reason"] for e in state.record)


def test_a_link_list_inside_the_article_keeps_its_story_picture():
    # a photo block whose only text is the photographer's linked credit is a link list by density:
    # its link goes, the photo (no link) stays
    html = f"""<html><body><div id=main>{para(4, "p1")}
      <div id=photo><figure><img id=img src=kitchen.jpg alt="The new kitchen" width=800 height=500>
        <figcaption><a id=credit href=/photographers/lens>A. Lens Photography</a></figcaption></figure></div>
      {para(4, "p2")}</div></body></html>"""
    page, state, _ = run_filter("main_content", html, captions=False)
    left = ids(page)
    assert {"img", "p1", "p2"} <= left and "credit" not in left
    assert "link list inside the article: its links and text (its pictures stay)" in reasons(state).values()


def test_a_block_named_like_boilerplate_keeps_its_story_pictures():
    # a shop's picture column is named for the share buttons it also holds: the buttons and their
    # links go, the product's photos (no link, not a thumbnail) stay; a thumbnail and a linked picture go too
    html = f"""<html><body><div id=main>{para(4, "p1")}
      <div id=river class="atf-left-river atf-left-river--share">
        <img id=photo src=/i/bag-front.jpg alt="The bag from the front" width=500 height=500>
        <img id=thumb src=/i/bag-thumb.jpg alt="" width=64 height=64>
        <a id=pin href=/share/pin><img id=pinned src=/i/pin.png alt=Pin width=300 height=300></a>
        <a id=share href=/share/mail>Share by e-mail</a></div>
      {para(4, "p2")}</div></body></html>"""
    page, state, _ = run_filter("main_content", html)
    left = ids(page)
    assert {"photo", "p1", "p2"} <= left and not {"thumb", "pin", "pinned", "share"} & left
    assert "named like boilerplate (share): its links and text (its pictures stay)" in reasons(state).values()


def test_a_site_header_with_its_picture_is_no_lead_photo():
    # just before the text: the site's header with a picture and its navigation (or a link home) stays out
    for header in ("<div id=head><img src=banner.jpg alt='Our town' width=1200 height=300>"
                   "<nav><a href=/>Home</a> <a href=/news>News</a></nav></div>",
                   "<div id=head><img src=banner.jpg alt='Our town' width=1200 height=300>"
                   "<a href=/>Back to the front page</a></div>"):
        html = f"""<html><body><div id=wrap>{header}<div id=a class=text>{para(4, "p1")}</div>
          <div id=b class=text>{para(4, "p2")}</div></div></body></html>"""
        page, _, _ = run_filter("main_content", html)
        assert "head" not in ids(page) and {"p1", "p2"} <= ids(page)


def _sections_page(sections: int, rest_words: int) -> str:
    """A firm's service page: sections side by side right under <body> (no wrapper), the first one
    long, the others a short paragraph each; a menu, a footer."""
    first = f"<section id=s0><h2>What we do</h2><p id=p0>{SENTENCE * 6}</p></section>"
    rest = "".join(f"<section id=s{i}><h2>Question {i}</h2><p id=p{i}>{'We answer every question here. ' * rest_words}"
                   f"</p></section>" for i in range(1, sections))
    return (f"<html><head><title>Our services</title></head><body><nav id=nav><a href=/>Home</a> "
            f"<a href=/about>About</a> <a href=/contact>Contact</a></nav>{first}{rest}"
            f"<footer id=foot><a href=/terms>Terms</a> <a href=/privacy>Privacy</a></footer></body></html>")


@pytest.mark.parametrize("share, sections, widened", [
    (0.4, 8, True),   # the chosen section holds a third of the text outside the furniture
    (0.0, 8, False),  # off
    (0.4, 3, False),  # it holds more than 0.4 of it (five eighths): the choice stands
])
def test_a_second_opinion_keeps_the_sections_beside_a_small_choice(share, sections, widened):
    html = _sections_page(sections, 5)
    page, state, _ = run_filter("main_content", html, second_opinion_share=share)
    assert next(e for e in state.record if e["action"] == "page-type")["kind"] == "service"
    assert "p0" in ids(page) and not {"nav", "foot"} & ids(page)
    assert ({f"p{i}" for i in range(1, sections)} <= ids(page)) is widened
    assert any(e["action"] == "widen" and "second opinion" in e["reason"] for e in state.record) is widened


# -- a chosen <article> stands; a block's lists of links go, its prose stays ---------------------------
PLAIN_SPEC = "Made of steel and oak it stands firm on any floor and lasts for years of daily work. "


def _product_page(desc_tag: str) -> str:
    """A shop's product page: <main> holds the buying box, the description (an <article>, or not) and
    the customers' reviews; the description is a third of the main block's text, the only prose."""
    reviews = "".join(f"<article class=review id=r{i}><h3>Review {i}</h3><span>{PLAIN_SPEC * 3}</span></article>"
                      for i in range(5))
    return (f"<html><head><title>Oak workbench</title></head><body><nav><a href=/>Home</a> <a href=/shop>Shop</a>"
            f"</nav><main id=shop><section id=wrap><div id=box><h1>Oak workbench</h1><span id=spec>{PLAIN_SPEC * 6}</span></div>"
            f"<{desc_tag} id=desc><h2>About this bench</h2>{para(6, 'd1')}{para(2, 'd2')}</{desc_tag}>"
            f"<section id=reviews>{reviews}</section></section></main><footer><a href=/terms>Terms</a></footer></body></html>")


@pytest.mark.parametrize("desc_tag, widened", [("article", False), ("div", True)])
def test_a_chosen_article_is_not_widened_to_the_main_block_around_it(desc_tag, widened):
    page, state, _ = run_filter("main_content", _product_page(desc_tag), second_opinion_share=0,
                                section_link_density=0)
    chosen = next(e for e in state.record if e["action"] == "select")
    assert {"d1", "d2"} <= ids(page)
    assert ({"spec", "r0", "r4"} <= ids(page)) is widened
    assert any(e["action"] == "widen" and "semantic main" in e["reason"] for e in state.record) is widened
    if not widened:
        assert chosen["node"] == "article#desc"


SERVICES = "".join(f"<li>{name}</li>" for name in ("Screening exams", "Cleanings", "Extractions", "X-rays",
                                                   "Fillings", "Preventive care", "Root canals"))
OFFICES = "".join(f"<li><a href=/office{i}>Community health centre number {i}</a></li>" for i in range(4))
HOURS = ("Do you have an emergency? Our walk-in centre is open most Saturdays from one to four, and you can "
         "call us with any question.")


@pytest.mark.parametrize("box, kept, gone", [
    # what the service offers, its offices' links and a paragraph on its hours: the offices' list goes
    (f"<div id=box><h2 id=h>Procedures and services</h2><ul id=offers>{SERVICES}</ul>"
     f"<h2>Centres that offer it</h2><ul id=offices>{OFFICES}</ul><p id=hours>{HOURS}</p></div>",
     {"box", "offers", "hours"}, {"offices"}),
    # a box of teasers: a linked headline over each summary, then more links: it goes whole
    ("<div id=box><h2><a href=/a>A storm hits the coast</a></h2><p id=t1>" + HOURS + "</p>"
     "<h2><a href=/b>The mayor opens the bridge</a></h2><p id=t2>" + HOURS + "</p>"
     f"<ul id=offices>{OFFICES}</ul></div>", set(), {"box", "t1", "t2", "offices"}),
])
def test_a_block_with_its_links_in_one_list_loses_only_the_list(box, kept, gone):
    html = (f"<html><head><title>Dental care</title></head><body><div id=main>{para(9, 'p1')}{box}"
            f"{para(9, 'p2')}</div></body></html>")
    page, state, _ = run_filter("main_content", html)
    left = ids(page)
    assert {"p1", "p2"} | kept <= left and not gone & left
    assert "link list inside the article" in reasons(state).values()


@pytest.mark.parametrize("after, title_goes", [
    ("<h2 id=next>Opening hours</h2>", True),   # the list ends the heading's section
    ("", True),                                 # nothing follows the list in its block
    (f"<p id=next>{HOURS}</p>", False),         # the heading heads the paragraph after the list too
])
def test_the_heading_of_a_removed_list_of_links_goes_with_it(after, title_goes):
    html = (f"<html><head><title>Dental care</title></head><body><div id=main>{para(9, 'p1')}"
            f"<div id=box><p id=intro>{HOURS}</p><h2 id=title>Our offices</h2><ul id=offices>{OFFICES}</ul>{after}</div>"
            f"{para(9, 'p2')}</div></body></html>")
    page, state, _ = run_filter("main_content", html)
    left = ids(page)
    assert {"p1", "p2", "intro"} <= left and "offices" not in left
    assert ("title" not in left) is title_goes
    assert ("the heading of a list of links removed" in reasons(state).values()) is title_goes
    if after:
        assert "next" in left
