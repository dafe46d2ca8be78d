"""link_density: the four measures, both sides of each threshold, steps 3-5, and a real page."""

from __future__ import annotations

import pytest

from pagesieve.engine.document import parse
from pagesieve.filters.link_density import LinkDensityFilter, LinkDensitySettings, measures, node_stats
from tests.conftest import run_filter

WORDS = "Plain words of the story go on and on here. "  # 35 non-whitespace characters


def stats_of(html: str, xpath: str) -> dict:
    page = parse(html.encode())
    st = node_stats(page.root, frozenset(LinkDensitySettings().ignored_tags))
    return measures(st[page.root.xpath(xpath)[0]])


def test_measures_count_text_links_and_nodes():
    m = stats_of('<div id="x">abcdefgh<a href="/">ab</a><script>zzzzzz</script><span></span></div>',
                 '//div[@id="x"]')
    # NTL 10 chars; link chars 2; LA 1; nodes: "abcdefgh", <a>, "ab" -> 3 (script, empty span left out)
    assert m == {"LTD": 0.2, "LA": 1, "NTL": 10, "LAD": round(1 / 3, 4)}


def test_text_less_link_is_not_counted():
    m = stats_of('<div id="x">words here<a href="/"><img src="a.png"></a></div>', '//div[@id="x"]')
    assert m["LA"] == 0


def _page(article: str, nav_links: int = 10) -> str:
    nav = "".join(f'<li><a href="/{i}">Section link {i}</a></li>' for i in range(nav_links))
    return (f"<html><head><title>t</title></head><body><div id='nav'><ul>{nav}</ul></div>"
            f"<div id='main'>{article}</div><div id='foot'><a href='/a'>About us</a> "
            f"<a href='/b'>Contact</a></div></body></html>")


def test_extracts_the_article_and_removes_the_rest():
    article = "".join(f"<p>{WORDS * 3}</p>" for _ in range(4))
    page, state, stats = run_filter("link_density", _page(article))
    assert stats[0]["status"] == "ok"
    ids = [d.get("id") for d in page.body]
    assert ids == ["main"]
    assert state.article is not None and state.article.get("id") == "main"
    assert any(e["action"] == "remove" and "link density" in e["reason"] for e in state.record)


def _meets(html: str, xpath: str, which: str, **settings) -> bool:
    f = LinkDensityFilter(LinkDensitySettings(**settings))
    page = parse(html.encode())
    st = node_stats(page.root, f._ignored)
    bounds = f._basic if which == "basic" else f._precise
    return f._meets(measures(st[page.root.xpath(xpath)[0]]), bounds)


@pytest.mark.parametrize("ntl_chars, basic", [(99, False), (100, True)])
def test_basic_ntl_is_a_lower_bound(ntl_chars, basic):
    assert _meets(f"<body><div id='a'>{'x' * ntl_chars}</div></body>", "//div", "basic") is basic


@pytest.mark.parametrize("ntl_chars, precise", [(49, False), (50, True)])
def test_precise_ntl_is_a_lower_bound(ntl_chars, precise):
    assert _meets(f"<body><div id='a'>{'x' * ntl_chars}</div></body>", "//div", "precise") is precise


@pytest.mark.parametrize("links, basic", [(1, True), (2, False)])
def test_basic_lad_is_an_upper_bound(links, basic):
    # LAD = links / nodes; each link is 2 nodes (<a> and its text) plus the plain text nodes.
    html = f"<body><div>{'t' * 200}{''.join('<a href=/>k</a>' for _ in range(links))}</div></body>"
    # 1 link: 1/3 <= 0.34 is basic; 2 links: 2/5 > 0.34 is not.
    assert _meets(html, "//div", "basic", basic_lad=0.34) is basic


@pytest.mark.parametrize("link_chars, basic", [(40, True), (41, False)])
def test_basic_ltd_is_an_upper_bound(link_chars, basic):
    # body: 100 characters, link_chars of them in links; LTD 0.40 is basic, 0.41 is not.
    html = (f"<body><div id='a'>{'y' * (100 - link_chars)}<a href='/'>{'z' * link_chars}</a></div>"
            "<div id='b'></div></body>")
    f = LinkDensityFilter(LinkDensitySettings())
    page = parse(html.encode())
    st = node_stats(page.root, f._ignored)
    div = page.root.xpath("//div[@id='a']")[0]
    assert f._meets(measures(st[div]), f._basic) is basic


@pytest.mark.parametrize("links, precise", [(10, True), (11, False)])
def test_precise_la_is_an_upper_bound(links, precise):
    text = "w" * 2000
    html = f"<body><div id='a'>{text}{''.join('<a href=/>k</a> ' for _ in range(links))}</div></body>"
    f = LinkDensityFilter(LinkDensitySettings(precise_lad=1.0))
    page = parse(html.encode())
    st = node_stats(page.root, f._ignored)
    div = page.root.xpath("//div[@id='a']")[0]
    assert f._meets(measures(st[div]), f._precise) is precise


def test_step5_adds_precise_siblings_and_setting_turns_it_off():
    rel = "".join(f"<a href=/{i}>r</a>" for i in range(12))  # LA 12 > 10: 'inner' is not precise
    html = _page(f"<div id='inner'><p id='p1'>{WORDS * 8}</p><p id='p2'>{WORDS * 2}</p><div id='rel'>{rel}</div></div>")
    # The walk descends into 'inner', picks p1 (p2 is not basic: NTL 70 < 100); step 5 adds p2 (precise).
    page, _, _ = run_filter("link_density", html)
    assert page.root.xpath("//p[@id='p1']") and page.root.xpath("//p[@id='p2']")
    assert not page.root.xpath("//div[@id='rel']")
    page, _, _ = run_filter("link_density", html, siblings=False)
    assert page.root.xpath("//p[@id='p1']") and not page.root.xpath("//p[@id='p2']")


def test_link_heavy_body_left_unchanged_unless_search_is_on():
    nav = "".join(f"<a href='/{i}'>a long link text number {i}</a>" for i in range(40))
    html = f"<body><div id='nav'>{nav}</div><div id='wrap'><div id='main'><p>{WORDS * 6}</p></div></div></body>"
    page, state, _ = run_filter("link_density", html)
    assert page.root.xpath("//div[@id='nav']")
    assert any(e["action"] == "skip" and "does not suit" in e["reason"] for e in state.record)
    page, _, _ = run_filter("link_density", html, search_link_heavy=True)
    assert not page.root.xpath("//div[@id='nav']") and page.root.xpath("//div[@id='main']")


def test_real_page_keeps_most_of_the_article(corpus):
    from pagesieve.engine.output import OutputSettings, to_text
    from pagesieve.evaluation.metrics import prf, tokens

    pid, path, truth = corpus[0]
    page, _, stats = run_filter("link_density", path.read_bytes(), search_link_heavy=True, precise_la=40,
                                precise_lad=0.3)
    assert stats[0]["status"] == "ok"
    p, r, f = prf(tokens(to_text(page.body, OutputSettings(format="text"))), tokens(truth))
    assert r > 0.8 and p > 0.5, (pid, p, r)
