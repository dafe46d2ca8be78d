"""The paper's article-subtree rule: paragraph sums, the 500-character threshold, the first in DOM."""

import pytest

from pagesieve.core import dom
from pagesieve.filters.article import paragraph_sums
from tests.conftest import run_filter

WORDS = "The river rose through the night and the town watched it climb the old stone wall. "


def para(n: int) -> str:
    """A paragraph of exactly ``n`` characters (whitespace collapsed)."""
    text = (WORDS * (n // len(WORDS) + 1))[:n]
    assert len(" ".join(text.split())) == n or text.endswith(" ")
    return " ".join(text.split()).ljust(n, "x")


def test_paragraph_sums_count_p_div_and_br_text():
    html = (f"<html><body><div id=a><p>{'a' * 100}</p><div>{'b' * 50}<p>nested not own</p></div>"
            f"<span>{'c' * 30}</span></div><div id=b>{'d' * 40}<br>{'e' * 40}</div></body></html>")
    page, _, _ = run_filter("ignore", html)  # only to parse the same way
    sums = dict(paragraph_sums(dom.body_of(page.root), frozenset({"p", "div"}), True))
    a, b = page.root.get_element_by_id("a"), page.root.get_element_by_id("b")
    # a: its <p> child (100) + its <div> child's own text (50, not the nested <p>); the <span> is no paragraph
    assert sums[a] == 150
    # b: own text split by <br> counts (the paper's third kind)
    assert sums[b] == 80
    assert dict(paragraph_sums(dom.body_of(page.root), frozenset({"p", "div"}), False)).get(b) is None


def test_threshold_is_inclusive_at_min_chars():
    body = "<html><body><div id=art><p>{}</p></div></body></html>"
    page, state, _ = run_filter("article", body.format(para(500)))
    assert state.article is page.root.get_element_by_id("art")
    assert state.record[-1]["measured"]["paragraph_chars"] == 500
    page, state, _ = run_filter("article", body.format(para(499)))
    assert state.article is None
    assert state.record[-1]["action"] == "skip"
    assert state.record[-1]["measured"]["best_paragraph_chars"] == 499
    page, state, _ = run_filter("article", body.format(para(499)), min_chars=499)
    assert state.article is not None


def test_first_in_dom_versus_largest():
    html = (f"<html><body><div id=first><p>{para(600)}</p></div>"
            f"<div id=big><p>{para(900)}</p><p>{para(900)}</p></div></body></html>")
    page, state, _ = run_filter("article", html)
    assert state.article.get("id") == "first"
    assert state.record[-1]["measured"]["candidates"] == 2
    page, state, _ = run_filter("article", html, choose="largest")
    assert state.article.get("id") == "big"


def test_mark_mode_changes_nothing():
    html = f"<html><body><nav><a href=/a>A</a></nav><div id=art><p>{para(700)}</p></div><footer>f</footer></body></html>"
    page, state, _ = run_filter("article", html)
    assert page.root.find(".//nav") is not None and page.root.find(".//footer") is not None
    assert state.article is not None


def test_keep_mode_keeps_article_and_headline_only():
    html = (f"<html><head><title>T</title></head><body>stray<header><h1 id=hl>Flood in town</h1>"
            f"<a href=/home>Home</a></header>"
            f"<div id=wrap>wrapper text<div id=art><p>{para(700)}</p><p>second</p></div><aside>Related</aside></div>"
            f"<footer>Copyright</footer>tail text</body></html>")
    page, state, _ = run_filter("article", html, mode="keep")
    text = dom.text_of(dom.body_of(page.root))
    assert "Flood in town" in text and "second" in text
    for gone in ("Home", "Related", "Copyright", "stray", "tail text", "wrapper text"):
        assert gone not in text, gone
    assert page.root.find(".//title").text == "T"
    removed = [e for e in state.record if e["action"] == "remove"]
    assert removed and all(e["reason"] == "outside the article" for e in removed)


def test_keep_mode_without_headline_setting():
    html = f"<html><body><h1>Headline</h1><div id=art><p>{para(700)}</p></div></body></html>"
    page, _, _ = run_filter("article", html, mode="keep", keep_headline=False)
    assert "Headline" not in dom.text_of(dom.body_of(page.root))


def test_no_article_on_a_short_page_removes_nothing():
    html = "<html><body><p>short</p><ul><li><a href=/x>x</a></li></ul></body></html>"
    page, state, _ = run_filter("article", html, mode="keep")
    assert state.article is None and page.root.find(".//ul") is not None


def test_script_and_style_text_never_counts():
    html = f"<html><body><div id=s><p><script>{'x' * 900}</script></p><style>{'y' * 900}</style></div></body></html>"
    _, state, _ = run_filter("article", html)
    assert state.article is None


def test_corpus_articles_are_found(corpus):
    """On real pages the rule finds an article on most of them and it holds much of the main text."""
    import re

    from tests.conftest import run_filters

    found, recall = 0, []
    for _, path, truth in corpus[:60]:
        page, state, _ = run_filters([("ignore", {}), ("article", {})], path.read_bytes())
        if state.article is None:
            continue
        found += 1
        want = re.findall(r"\w+", truth.lower())
        got = set(re.findall(r"\w+", dom.text_of(state.article).lower()))
        if want:
            recall.append(sum(w in got for w in want) / len(want))
    assert found >= 50, found
    assert sum(recall) / len(recall) >= 0.6, sum(recall) / len(recall)


def _headline_of(head: str, body: str):
    from pagesieve.analysis.headline import page_headline
    from pagesieve.engine.document import parse

    got = page_headline(parse(f"<html><head>{head}</head><body>{body}</body></html>".encode()).root)
    return (got.text, got.source, got.element is not None) if got is not None else None


SITE_H1 = "<h1><a href='/blog'>Rand's Blog</a></h1>"


@pytest.mark.parametrize("head, body, expected", [
    # a blog's template: the site's name is the <h1>, the post's title an <h2> that the <title> holds
    ("<title>Making Email More Scalable « Rand's Blog</title>",
     f"{SITE_H1}<h2>Making Email More Scalable</h2><h2>34 comments</h2>",
     ("Making Email More Scalable", "<h2> matching the <title>", True)),
    ("<meta property='og:title' content=\"Making Email More Scalable « Rand's Blog\">",
     f"{SITE_H1}<h2>Making Email More Scalable</h2>",
     ("Making Email More Scalable", "<h2> matching the og:title", True)),
    # an <h1> that says what the <title> says wins over an <h2> that does too, and over an earlier <h1>
    ("<title>Storm hits the coast | Daily</title>", "<h1>Storm hits the coast</h1><h2>Storm hits the coast</h2>",
     ("Storm hits the coast", "<h1> matching the <title>", True)),
    ("<title>Storm hits the coast | Daily</title>", "<h1>Daily</h1><h1>Storm hits the coast</h1>",
     ("Storm hits the coast", "<h1> matching the <title>", True)),
    # an <h2> with a word the title lacks is not the title less the site's name: the <h1> stays (it says the
    # title's first part, the one before the site's name)
    ("<title>Spanish Materials - The Center for Language Learning</title>",
     "<h1>Materials</h1><h2>Center for Language Teaching and Learning</h2>",
     ("Materials", "<h1> matching the <title>", True)),
    # an <h2> holding under half the title's words is a section's, not the headline
    ("<title>Storm hits the coast at dawn | Daily</title>", "<h1>Daily</h1><h2>Storm</h2>",
     ("Daily", "first <h1>", True)),
    # an <h1> restating the <h2> (the story's title over a section that repeats it) stays the headline:
    # with metadata, the metadata's words as before
    ("<meta property='og:title' content='How Fast Do Skateboards Go? Top Speeds Revealed'>",
     "<h1>How Fast Does a Skateboard Go? Speeds Revealed</h1><h2>How Fast Do Skateboards Go</h2>",
     ("How Fast Do Skateboards Go? Top Speeds Revealed", "og:title", False)),
    # only the first three <h2> may be the headline
    ("<title>Making Email More Scalable « Rand's Blog</title>",
     f"{SITE_H1}<h2>One</h2><h2>Two</h2><h2>Three</h2><h2>Making Email More Scalable</h2>",
     ("Rand's Blog", "first <h1>", True)),
    # no <h1>: the <h2> that says what the title says
    ("<title>Walking as a way of life</title>", "<h2>Walking as a way of life</h2>",
     ("Walking as a way of life", "<h2> matching the <title>", True)),
    # nothing says what the title says, or no title: the first <h1>, else none
    ("<title>Welcome</title>", "<h1>Our story</h1><h2>Products</h2>", ("Our story", "first <h1>", True)),
    ("", "<h1>Our story</h1>", ("Our story", "first <h1>", True)),
    ("<title>Welcome</title>", "<h2>Products</h2>", None),
])
def test_page_headline_prefers_the_heading_that_says_the_title_to_a_site_name_h1(head, body, expected):
    assert _headline_of(head, body) == expected
