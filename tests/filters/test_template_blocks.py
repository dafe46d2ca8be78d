"""template_blocks: block partition, cosine against the site's pages, IBDF, learning, no store."""

from __future__ import annotations

import pytest

from pagesieve.engine.chain import Chain
from pagesieve.engine.config import SafetySettings
from pagesieve.engine.document import parse
from pagesieve.engine.output import OutputSettings
from pagesieve.filters.template_blocks import TemplateBlocksFilter, TemplateBlocksSettings, all_blocks, blocks_of
from pagesieve.store.site_memory import MemorySite
from tests.conftest import run_filter

NAV = "<ul id='nav'><li><a href='/'>Home</a></li><li><a href='/news'>News</a></li><li><a href='/sport'>Sport</a></li></ul>"
FOOT = "<div id='foot'><p>Copyright Example Daily, all rights reserved</p><span>Contact the editors</span></div>"
STORIES = [
    "The council voted on Tuesday to repair the old stone bridge before the winter floods arrive.",
    "A local bakery won the regional prize for its rye bread after three years of trying.",
    "The football club announced a new coach who previously trained the national youth team.",
    "Heavy rain closed the mountain road for two days while crews cleared fallen rocks.",
]


def site_page(i: int, extra: str = "") -> bytes:
    return (f"<html><body>{NAV}<div id='main'><h1>Story {i}</h1><p id='story'>{STORIES[i]}</p>{extra}</div>"
            f"{FOOT}</body></html>").encode()


def run(pages: list[bytes], store, **settings) -> list:
    flt = TemplateBlocksFilter(TemplateBlocksSettings(**settings))
    chain = Chain([flt], OutputSettings(), SafetySettings())
    out = []
    for n, data in enumerate(pages):
        page = parse(data, url=f"https://example.org/{n}")
        state, stats = chain.run(page, store=store)
        out.append((page, state, stats))
    return out


def test_blocks_by_partition_tags_with_own_content():
    page = parse(b"<html><body>lead <div id='d'>outer <p>inner words</p> tail words</div></body></html>")
    top = blocks_of(page.root, frozenset(TemplateBlocksSettings().partition_tags))
    by_tag = {b.element.tag: b for b in all_blocks(top)}
    assert set(by_tag["div"].vector) == {"outer", "tail", "words"}  # the <p>'s tail is the div's content
    assert set(by_tag["p"].vector) == {"inner", "words"}
    assert set(top.vector) == {"lead"}
    assert abs(sum(v * v for v in by_tag["div"].vector.values()) - 1) < 1e-3


def test_no_store_does_nothing_and_says_why():
    page, state, _ = run_filter("template_blocks", site_page(0))
    assert page.root.get_element_by_id("nav") is not None
    assert state.record[0]["action"] == "skip" and "no site memory" in state.record[0]["reason"]


def test_first_page_only_learns_then_template_removed():
    store = MemorySite()
    (p0, s0, _), (p1, s1, _) = run([site_page(0), site_page(1)], store)
    assert p0.root.get_element_by_id("nav") is not None  # nothing to compare with yet
    assert "learning only" in s0.record[0]["reason"] and len(store) == 2
    assert p1.root.find(".//ul[@id='nav']") is None and p1.root.find(".//div[@id='foot']") is None
    assert p1.root.get_element_by_id("story") is not None and p1.root.get_element_by_id("main") is not None
    removal = next(r for r in s1.record if r["action"] == "remove")
    assert removal["measured"]["IBDF"] == 1.0 and removal["threshold"]["similarity"] == 0.9


def test_same_url_is_not_its_own_template():
    store = MemorySite()
    flt = TemplateBlocksFilter(TemplateBlocksSettings())
    chain = Chain([flt], OutputSettings(), SafetySettings())
    for _ in range(2):
        page = parse(site_page(0), url="https://example.org/same")
        chain.run(page, store=store)
    assert page.root.get_element_by_id("nav") is not None and len(store) == 1


@pytest.mark.parametrize("similarity, removed", [(0.9, False), (0.7, True)])
def test_similarity_threshold(similarity, removed):
    # the second page's menu has one more item: cosine 3/sqrt(12) = 0.866
    nav4 = NAV.replace("</ul>", "<li><a href='/arts'>Arts</a></li></ul>")
    second = site_page(1).replace(NAV.encode(), nav4.encode())
    (_, _, _), (p1, _, _) = run([site_page(0), second], MemorySite(), similarity=similarity)
    assert (p1.root.find(".//ul[@id='nav']") is None) is removed


@pytest.mark.parametrize("min_share, removed", [(0.5, True), (0.75, False)])
def test_min_share_of_pages(min_share, removed):
    # the "Related" box is on 2 of the 3 earlier pages: share 0.67 (IBDF 1.5)
    box = "<div id='rel'>Related reading on the weekend markets</div>"
    pages = [site_page(0, box), site_page(1), site_page(2, box), site_page(3, box)]
    *_, (p3, _, _) = run(pages, MemorySite(), min_share=min_share)
    assert (p3.root.find(".//div[@id='rel']") is None) is removed
    assert p3.root.find(".//ul[@id='nav']") is None  # on every page


def test_block_with_content_inside_is_kept():
    # the wrapper's own text recurs, but it holds this page's story: only the template parts go
    wrap = lambda i: (f"<html><body><div id='w'>Sections {NAV}<p id='story'>{STORIES[i]}</p></div>"  # noqa: E731
                      f"</body></html>").encode()
    (_, _, _), (p1, _, _) = run([wrap(0), wrap(1)], MemorySite())
    assert p1.root.get_element_by_id("w") is not None and p1.root.find(".//ul") is None


def test_bounded_memory():
    store = MemorySite()
    run([site_page(i % 4) for i in range(6)], store, max_pages=3)
    assert len(store) == 3


def test_learn_off_keeps_store_unchanged():
    store = MemorySite()
    run([site_page(0), site_page(1)], store, learn=False)
    assert len(store) == 0
