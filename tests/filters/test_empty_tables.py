"""The paper's empty-table remover: tables without substance after the other filters ran."""

import pytest

from tests.conftest import run_filter, run_filters
from tests.filters.test_article import para

STORY = f"<p id=story>{para(400)}</p>"


def test_min_chars_boundary():
    html = "<html><body><table id=t><tr><td>{}</td></tr></table>" + STORY + "</body></html>"
    page, state, _ = run_filter("empty_tables", html.format("x" * 19))
    assert page.root.get_element_by_id("t", None) is None
    entry = next(e for e in state.record if e["action"] == "remove")
    assert entry["measured"] == {"chars": 19} and entry["threshold"] == {"min_chars": 20}
    page, _, _ = run_filter("empty_tables", html.format("x" * 20))
    assert page.root.get_element_by_id("t", None) is not None


def test_substance_tags_are_a_setting():
    html = f"<html><body><table id=t><tr><td><img src=a.png alt=''></td></tr></table>{STORY}</body></html>"
    page, _, _ = run_filter("empty_tables", html)
    assert page.root.get_element_by_id("t", None) is not None
    page, _, _ = run_filter("empty_tables", html, substance_tags=["form"])
    assert page.root.get_element_by_id("t", None) is None


def test_outer_layout_table_of_emptied_tables_goes_too():
    html = (f"<html><body><table id=outer><tr><td><table id=inner><tr><td> </td></tr></table></td>"
            f"<td>&nbsp;</td></tr></table>{STORY}</body></html>")
    page, state, _ = run_filter("empty_tables", html)
    assert page.root.get_element_by_id("outer", None) is None
    assert [e["node"] for e in state.record if e["action"] == "remove"] == ["table#inner", "table#outer"]


def test_data_table_with_short_cells_stays():
    html = ("<html><body><table id=d><caption>N</caption><tr><th>a</th><th>b</th><th>c</th></tr>"
            "<tr><td>1</td><td>2</td><td>3</td></tr><tr><td>4</td><td>5</td><td>6</td></tr></table>"
            f"{STORY}</body></html>")
    page, _, _ = run_filter("empty_tables", html)
    assert page.root.get_element_by_id("d", None) is not None


def test_runs_after_other_filters_in_the_chain():
    # The ignore filter strips the ad iframe and spacer image; the table is then empty and goes.
    html = (f"<html><body><table id=t><tr><td><iframe src=//ads.example/x></iframe>"
            f"<img src=spacer.gif></td></tr></table>{STORY}</body></html>")
    page, _, _ = run_filters([("ignore", {}), ("empty_tables", {})], html)
    assert page.root.get_element_by_id("t", None) is None
    page, _, _ = run_filters([("empty_tables", {})], html)
    assert page.root.get_element_by_id("t", None) is not None


def test_a_small_table_right_before_the_article_is_its_head_and_stays():
    # The date of the story in a small table of its own, just before the article's table (old
    # layouts): the article's head, not an empty table. Elsewhere the same table goes; empty, it goes.
    date = "<table id=date><tr><td>{}</td></tr></table>"
    story = f"<table id=s><tr><td><p>{para(600)}</p></td></tr></table>"
    for where, text, kept in (("before", "20:00 Dec 31 2007", True), ("after", "20:00 Dec 31 2007", False),
                              ("before", " ", False)):
        body = date.format(text) + story if where == "before" else story + "<p>x</p>" + date.format(text)
        page, _, _ = run_filters([("article", {}), ("empty_tables", {})], f"<html><body>{body}</body></html>")
        assert (page.root.get_element_by_id("date", None) is not None) is kept, (where, text)


# A spacer image holds space, it is no substance: at most 8 px wide and high by its attributes, or named
# as a spacer; a real picture (wider or taller, or without sizes and with another name) keeps its table.
@pytest.mark.parametrize("img, kept", [
    ("<img src=/i/1x1.gif width=1 height=1>", False),
    ("<img src=/i/a.gif width=8 height=8>", False),
    ("<img src=/i/a.gif width=9 height=8>", True),
    ("<img src=/i/a.gif width='8px' height='2'>", False),
    ("<img src=/i/spacer.gif>", False),
    ("<img src='/i/clear.gif' width=300 height=20>", False),
    ("<img src=/i/photo.jpg>", True),
    ("<img src=/i/photo.jpg width=1>", True),
    ("<img src=/i/1x1.gif width=1 height=1><img src=/i/photo.jpg>", True),
    ("<video src=/v.mp4></video>", True),
])
def test_spacer_images_are_no_substance(img, kept):
    html = (f"<html><body><table id=t><tr><td bgcolor=#666666>{img}</td><td>&nbsp;</td></tr></table>"
            f"{STORY}</body></html>")
    page, _, _ = run_filter("empty_tables", html)
    assert (page.root.get_element_by_id("t", None) is not None) is kept
