"""link_blocks: the paper's counting rules, both sides of C_t and d_t, removal spans, LCR/CCR."""

from __future__ import annotations

import pytest

from pagesieve.filters.link_blocks import find_blocks, text_distance
from tests.conftest import run_filter

STORY = "<p id='story'>The council met on Tuesday and voted to repair the old bridge before winter.</p>"


@pytest.mark.parametrize("text, units", [
    ("Bei Jing 2008", 3),            # the paper's example: two words and a number
    ("March 8th, 2014", 1),          # the paper's example: a whole date
    ("2014-03-08", 1),
    ("8 March 2014 came", 2),
    ("北京欢迎你", 5),                # one per CJK character
    ("Hello!!! world...", 4),        # a run of the same mark counts 1
    ("a | b | c", 5),
    ("3.14159 and 1,000", 3),
    ("", 0),
])
def test_text_distance_counting_rules(text, units):
    assert text_distance(text) == units


@pytest.mark.parametrize("gaps, c_t, d_t, blocks", [
    ([0, 1, 1, 1], 3, 2, [(0, 3)]),
    ([0, 1, 2, 1], 3, 2, []),          # d = 2 is not < d_t = 2: runs of 2 and 2 links
    ([0, 1, 1, 5, 1, 1], 3, 2, [(0, 2), (3, 5)]),
    ([0, 1, 5, 1, 1], 3, 2, [(2, 4)]),
    ([0, 1], 3, 2, []),                # 2 links < C_t
    ([0, 1], 2, 2, [(0, 1)]),
    ([], 3, 2, []),
])
def test_find_blocks_both_sides_of_thresholds(gaps, c_t, d_t, blocks):
    assert find_blocks(gaps, c_t, d_t) == blocks


def _page(sep: str, n: int = 5) -> str:
    links = sep.join(f"<a href='/{i}'>Item {i}</a>" for i in range(n))
    return f"<html><body><div id='nav'>{links}</div>{STORY}</body></html>"


def test_menu_removed_story_kept():
    page, state, stats = run_filter("link_blocks", _page(" | "))
    assert not page.root.xpath("//div[@id='nav']//a") and page.root.get_element_by_id("story") is not None
    assert page.root.find(".//div[@id='nav']") is None  # left empty, removed
    assert "|" not in page.root.text_content()  # the code between the links went too
    measure = next(r for r in state.record if r["action"] == "measure")
    assert measure["measured"]["links"] == 5 and measure["measured"]["LCR"] == 1.0
    assert 0 < measure["measured"]["CCR"] < 1
    assert stats[0]["status"] == "ok"


@pytest.mark.parametrize("words, removed", [(9, True), (10, False)])
def test_text_distance_threshold(words, removed):
    sep = " " + " ".join(["word"] * words) + " "
    page, _, _ = run_filter("link_blocks", _page(sep), max_text_distance=10)
    assert (not page.root.xpath("//a")) is removed


@pytest.mark.parametrize("n, removed", [(2, False), (3, True)])
def test_min_links(n, removed):
    page, _, _ = run_filter("link_blocks", _page(" ", n), min_links=3)
    assert (not page.root.xpath("//a")) is removed


def test_code_distance_counts_tags_without_attributes():
    # between </a> and <a>: "</li><li>" = 9 characters whatever the attributes
    html = ("<html><body><ul>" + "".join(f"<li class='very-long-class-name'><a href='/{i}'>x</a></li>"
                                        for i in range(4)) + "</ul>" + STORY + "</body></html>")
    kept, _, _ = run_filter("link_blocks", html, distance="code", max_code_distance=9)
    gone, _, _ = run_filter("link_blocks", html, distance="code", max_code_distance=10)
    assert len(kept.root.xpath("//a")) == 4 and not gone.root.xpath("//a")
    assert gone.root.find(".//ul") is None and gone.root.get_element_by_id("story") is not None


def test_ad_links_inside_a_paragraph():
    html = ("<html><body><p id='p'>The mayor said the repairs would take six weeks and cost less than planned. "
            "<a href='//ads/1'>Cheap loans</a> <a href='//ads/2'>Hot deals</a> <a href='//ads/3'>Win now</a> "
            "Work starts on Monday and traffic will be diverted through the north road meanwhile.</p>"
            "</body></html>")
    page, _, _ = run_filter("link_blocks", html)
    text = page.root.get_element_by_id("p").text_content()
    assert "Cheap" not in text and "Win now" not in text
    assert "six weeks" in text and "north road" in text


@pytest.mark.parametrize("d_t, kept", [(10, 3), (40, 0)])
def test_inline_links_in_a_sentence(d_t, kept):
    html = ("<html><body><p>See <a href='/a'>the report</a> which says the bridge is safe for light traffic, "
            "unlike <a href='/b'>the survey</a> published last spring by engineers of the city council, and "
            "<a href='/c'>the letter</a> too.</p></body></html>")
    page, _, _ = run_filter("link_blocks", html, max_text_distance=d_t)
    assert len(page.root.xpath("//a")) == kept


def test_article_links_kept_when_article_known():
    from pagesieve.engine.chain import Chain
    from pagesieve.engine.config import SafetySettings
    from pagesieve.engine.document import parse
    from pagesieve.engine.output import OutputSettings
    from pagesieve.filters.link_blocks import LinkBlocksFilter, LinkBlocksSettings

    page = parse(_page(" ").encode())

    class MarkNav:
        name, destructive = "mark", False
        requires, uses, assigns = (), (), ("article",)

        def apply(self, page, ctx):
            ctx.set_article(page.root.get_element_by_id("nav"))

    chain = Chain([MarkNav(), LinkBlocksFilter(LinkBlocksSettings())], OutputSettings(), SafetySettings())
    chain.run(page)
    assert len(page.root.xpath("//a")) == 5


def test_no_links_page_unchanged():
    page, state, _ = run_filter("link_blocks", f"<html><body>{STORY}</body></html>")
    assert page.root.get_element_by_id("story") is not None
    assert state.record[0]["measured"] == {"links": 0, "blocks": 0, "LCR": 0.0, "CCR": 0.0}
