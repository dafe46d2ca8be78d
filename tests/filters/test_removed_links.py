"""The paper's removed-link retainer: removed text links listed at the end, in page order, safely."""

import pytest

from pagesieve.core import dom
from pagesieve.filters.removed_links import SECTION_CLASS, link_key
from tests.conftest import run_filters
from tests.filters.test_article import para

STORY = f"<p id=story>{para(400)} <a href=/kept>kept link</a></p>"


def listed(page):
    nav = page.root.find(f".//nav[@class='{SECTION_CLASS}']")
    return nav, [(a.get("href"), a.text) for a in nav.iter("a")] if nav is not None else []


def run(html, output_format="html", **settings):
    return run_filters([("link_lists", {}), ("removed_links", settings)], html, output_format=output_format)


def test_links_listed_in_page_order_deduplicated_and_safe():
    html = (f"<html><body><nav id=top><a href=/b>B</a> <a href=/a>A</a> <a href='javascript:evil()'>J</a>"
            f" <a href=/kept>Kept again</a> <a href='#top'>Top</a></nav>{STORY}"
            f"<ul id=foot><li><a href=/c>C</a><li><a href=/a>A again</a><li><a href='JaVaScRiPt:x'>J2</a>"
            f"<li><a href='data:text/html,x'>D</a></ul></body></html>")
    # text: the list is weighed against what went (menu labels kept here: see the furniture test)
    page, state, _ = run(html, output_format="text", furniture_min_words=0, min_words=0)
    assert page.root.get_element_by_id("top", None) is None and page.root.get_element_by_id("foot", None) is None
    nav, links = listed(page)
    assert links == [("/b", "B"), ("/a", "A"), ("/c", "C")]  # no javascript:/data:, no #, no address still on page
    assert nav.get("aria-label") == "Links removed from this page"
    (details,) = nav
    assert details.tag == "details" and details.get("open") is None  # collapsed: not read unasked
    assert details[0].tag == "summary" and details[0].text == "Links removed from this page (3)"
    assert nav.find(".//h2") is None
    assert nav.getparent().tag == "body" and nav.getnext() is None  # at the end of the page
    add = next(e for e in state.record if e["filter"] == "removed_links" and e["action"] == "add")
    assert add["measured"]["unsafe"] == 3 and add["measured"]["listed"] == 3
    # removed: "B A J Kept again Top" (6) and "C A again J2 D" (5); listed: the summary's 6 words, "B", "A", "C"
    assert add["measured"]["removed_words"] == 11 and add["measured"]["list_words"] == 9
    assert "evil" not in dom.text_of(page.root) and b"javascript" not in __import__("lxml.html").html.tostring(page.root)


def test_settings_label_level_max_same_page_skip_present():
    html = (f"<html><body><nav><a href=/a>A</a> <a href=/b>B</a> <a href='#s'>S</a> <a href=/kept>K</a></nav>"
            f"{STORY}</body></html>")
    page, _, _ = run(html, label="Hidden links", max_links=2, same_page=True, skip_present=False)
    nav, links = listed(page)
    assert nav.find(".//summary").text == "Hidden links (2)" and links == [("/a", "A"), ("/b", "B")]
    page, _, _ = run(html, same_page=True, skip_present=False)
    assert [h for h, _ in listed(page)[1]] == ["/a", "/b", "#s", "/kept"]


def test_no_list_in_text_that_would_hold_more_words_than_were_removed():
    html = f"<html><body><nav><a href=/a>Alpha</a> <a href=/b>Beta</a> <a href=/c>Gamma</a></nav>{STORY}</body></html>"
    page, state, _ = run(html, output_format="text", furniture_min_words=0, min_words=0)
    assert page.root.find(".//nav") is None and listed(page)[0] is None  # the menu went, no list came back
    skip = next(e for e in state.record if e["filter"] == "removed_links")
    assert skip["action"] == "skip" and skip["measured"]["list_words"] == 9 and skip["measured"]["removed_words"] == 3
    assert skip["threshold"] == {"only_if_shorter": "text"}
    # in HTML the list stays, collapsed: the menu's links stay reachable
    for output_format, setting, kept in [("html", "text", True), ("html", "always", False), ("text", "never", True)]:
        page, _, _ = run(html, output_format=output_format, only_if_shorter=setting, furniture_min_words=0, min_words=0)
        assert [h for h, _ in listed(page)[1]] == (["/a", "/b", "/c"] if kept else []), (output_format, setting)


def test_words_of_a_replacement_are_not_counted_as_removed():
    # ignore shows the <noscript> content in place of the removed script: no word of it was taken away
    html = (f"<html><body><noscript><p>{para(120)}</p></noscript><nav><a href=/a>Alpha</a> <a href=/b>Beta</a>"
            f" to read about Alpha and Beta and more</nav>{STORY}</body></html>")
    page, state, _ = run_filters([("ignore", {}), ("link_lists", {"ratio": 0.1}),
                                  ("removed_links", {"furniture_min_words": 0, "min_words": 0})], html, output_format="text")
    rec = next(e for e in state.record if e["filter"] == "removed_links")
    assert rec["measured"]["removed_words"] == 10, rec  # the nav's words only


def test_in_text_a_menus_short_labels_are_not_read_out_again():
    story_links = "".join(f"<li><a href=/story{i}>Harbour wall story number {i}</a></li>" for i in range(3))
    html = (f"<html><body><header><nav><a href=/>Home</a> <a href=/news>News</a> <a href=/about>About us</a>"
            f" <a href=/harbour>The harbour wall rebuilt at last</a></nav></header>"
            f"<div id=art>{STORY}<ul id=more>{story_links}<li><a href=/news>News</a></li></ul></div></body></html>")
    chain = [("link_lists", {}), ("removed_links", {"only_if_shorter": "never", "min_words": 0})]
    page, state, _ = run_filters(chain, html, output_format="text")
    hrefs = [h for h, _ in listed(page)[1]]
    # /, /about: short labels of the banner's menu; /harbour: a headline; /news: also linked from the content
    assert hrefs == ["/news", "/harbour", "/story0", "/story1", "/story2"], hrefs
    add = next(e for e in state.record if e["filter"] == "removed_links")
    assert add["measured"]["short_labels"] == 2
    page, _, _ = run_filters(chain, html)  # HTML: every removed link stays reachable
    assert [h for h, _ in listed(page)[1]][:3] == ["/", "/news", "/about"]
    chain[1][1]["furniture_min_words"] = 0
    page, _, _ = run_filters(chain, html, output_format="text")
    assert len(listed(page)[1]) == 7


def test_in_text_one_word_labels_are_not_read_out_wherever_the_menu_sits():
    # a menu of plain <div>s (no nav, no furniture name): its one-word labels are still a menu's
    menu = "".join(f"<div><a href=/{w.lower()}>{w}</a></div>" for w in ("Home", "Jobs", "UK"))
    more = "".join(f"<div><a href=/s{i}>Harbour wall story {i}</a></div>" for i in range(3))
    html = (f"<html><body><div id=menu>{menu}<div><a href=/sp>Special reports</a></div></div>{STORY}"
            f"<div id=more>{more}</div></body></html>")
    chain = [("link_lists", {}), ("removed_links", {"only_if_shorter": "never"})]
    page, state, _ = run_filters(chain, html, output_format="text")
    assert [h for h, _ in listed(page)[1]] == ["/sp", "/s0", "/s1", "/s2"]
    add = next(e for e in state.record if e["filter"] == "removed_links")
    assert add["measured"]["short_labels"] == 3
    page, _, _ = run_filters(chain, html)  # HTML: every removed link stays reachable
    assert len(listed(page)[1]) == 7
    chain[1][1]["min_words"] = 0
    page, _, _ = run_filters(chain, html, output_format="text")
    assert len(listed(page)[1]) == 7


def test_entries_read_as_the_page_shows_the_links():
    # an icon's <svg><title> is not text the page shows: an entry gives back what was shown, and an
    # icon-only link is still named by its title
    html = (f"<html><body><nav><a href=/rcs>Get started with RCS<svg><title>Twilio RCS Documentation</title></svg></a>"
            f" <a href=/tw><svg><title>Twitter</title></svg></a> <a href=/c>Contact</a></nav>{STORY}</body></html>")
    page, _, _ = run(html)
    assert listed(page)[1] == [("/rcs", "Get started with RCS"), ("/tw", "Twitter"), ("/c", "Contact")]


def test_nothing_removed_nothing_added():
    page, state, _ = run(f"<html><body>{STORY}</body></html>")
    assert listed(page)[0] is None


def test_links_removed_by_any_filter_are_listed():
    html = (f"<html><body><div class=ad-banner><a href=/sponsor>Sponsor</a></div>"
            f"<form><a href=/help>Help</a><input name=q></form>{STORY}</body></html>")
    page, _, _ = run_filters([("ignore", {"forms": True}), ("removed_links", {})], html)
    assert ("/help", "Help") in listed(page)[1]


def test_one_entry_per_address_with_a_wordy_text_none_still_on_the_page():
    html = (f"<html><body><nav><a href=/a>»</a> <a href='/a#top'>Alpha</a> <a href=/a/>Alpha again</a> "
            f"<a href=/b>|</a> <a href=/c>  </a> <a href=https://EXAMPLE.org/kept/>Kept, absolute</a> "
            f"<a href=/d><img src=x.png></a> <a href=/e>Echo</a></nav>{STORY}</body></html>")
    page, state, _ = run_filters([("link_lists", {}), ("removed_links", {})], html,
                                 url="https://example.org/page")
    _, links = listed(page)
    assert links == [("/a", "Alpha"), ("/e", "Echo")]  # /b, /c, /d: no word in any text; /kept still on the page


@pytest.mark.parametrize("href, base, key", [
    ("/a/#x", "https://Example.org/p", "https://example.org/a"),
    ("HTTPS://EXAMPLE.org/a?q=1#f", None, "https://example.org/a?q=1"),
    ("#top", "https://example.org/p", "#top"),
    ("b", "https://example.org/dir/p", "https://example.org/dir/b"),
])
def test_link_key(href, base, key):
    assert link_key(href, base) == key
