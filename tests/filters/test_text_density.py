"""text_density: row blocks, the adaptive threshold, surge/drop regions, and the DOM mapping."""

from __future__ import annotations

import pytest

from pagesieve.filters.text_density import adaptive_threshold, regions, row_blocks
from tests.conftest import run_filter

SENTENCE = "This sentence of the article carries plenty of characters for a dense line. "


def test_row_blocks_sum_n_lines():
    assert row_blocks([1, 2, 3, 4, 0, 0], 3) == [6, 9, 7, 4, 0, 0]


def test_adaptive_threshold_maximises_g():
    blocks = [0] * 20 + [300, 320, 310, 305, 5, 8] + [0] * 10
    t, g = adaptive_threshold(blocks, range(20, 141, 10))
    # every T in 20..140 splits text blocks (~300) from clutter (0..8): g is the same for all, first wins
    assert t == 20 and g is not None
    assert adaptive_threshold([0, 0, 0], range(20, 141, 10)) == (None, None)


@pytest.mark.parametrize("block, surge", [(60, False), (61, True)])
def test_surge_needs_more_than_t(block, surge):
    blocks = [0, 0, block, 5, 5, 5, 0, 0]
    assert bool(regions(blocks, 60, 3, 0)) is surge


def test_surge_needs_n_nonzero_blocks_after_it():
    assert regions([0, 100, 5, 0, 5, 0], 60, 3, 0) == []
    assert regions([0, 100, 5, 5, 5, 0], 60, 3, 0) == [(1, 4)]


@pytest.mark.parametrize("drop_max, end", [(0, 5), (5, 2)])
def test_drop_point_is_zero_or_close(drop_max, end):
    assert regions([0, 100, 9, 5, 5, 7, 0, 0], 60, 3, drop_max)[0][1] == end


def _page() -> str:
    nav = "\n".join(f"<li><a href='/{i}'>Nav {i}</a></li>" for i in range(20))
    body = "\n".join(f"<p>{SENTENCE}</p>" for _ in range(12))
    return (f"<html><head><title>t</title></head><body>\n<ul id='nav'>\n{nav}\n</ul>\n\n\n\n\n\n\n"
            f"<div id='main'>\n{body}\n</div>\n\n\n\n\n\n\n<div id='foot'>\nCopyright\n</div>\n</body></html>")


@pytest.mark.parametrize("mode", ["source", "blocks"])
def test_keeps_dense_lines_and_removes_the_rest(mode):
    page, state, stats = run_filter("text_density", _page(), line_mode=mode)
    assert stats[0]["status"] == "ok"
    assert page.root.xpath("//div[@id='main']") and len(page.root.xpath("//p")) == 12
    assert not page.root.xpath("//ul[@id='nav']") and not page.root.xpath("//div[@id='foot']")
    assert state.article is not None and state.article.get("id") == "main"
    assert any(e["action"] == "remove" and "selected lines" in e["reason"] for e in state.record)


def test_fixed_threshold_above_every_block_leaves_page_unchanged():
    page, state, _ = run_filter("text_density", _page(), threshold=100000)
    assert page.root.xpath("//ul[@id='nav']")
    assert any(e["action"] == "skip" for e in state.record)


def test_minified_page_source_mode_is_all_or_nothing_blocks_mode_separates():
    html = _page().replace("\n", "")
    page, _, _ = run_filter("text_density", html, line_mode="source")
    assert page.root.xpath("//ul[@id='nav']")  # one line: the nav goes with the text
    page, _, _ = run_filter("text_density", html, line_mode="blocks", regions="all")
    # the surge block starts up to n-1 lines before the dense text: the nav's last item may stay
    assert len(page.root.xpath("//li")) <= 1 and len(page.root.xpath("//p")) == 12
