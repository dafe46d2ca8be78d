"""What a screen reader speaks first on filtered pages of every corpus, read from
Chromium's accessibility tree (tests/a11y/spoken.py): the skip link first, one <h1> among the
first three named nodes, the removed-links list last and, once collapsed, silent. Whether that <h1>
matches the title, and the text output's order, are measured, not gated: their pass rate is printed
by ``benchmarks/axe_report.py --spoken``."""

from __future__ import annotations

import pytest

from pagesieve.engine.document import parse
from tests.a11y.axe_run import sample
from tests.a11y.spoken import REMOVED_LIST, check_page

pytestmark = pytest.mark.slow

PAGES = sample(per_corpus=1)


def test_reading_order_of_a_crafted_page(axe, cfg, tmp_path):
    # A page whose headline sits after a banner and whose nav links are removed: the skip link,
    # then the headline, and none of the removed links spoken.
    from tests.a11y.axe_run import CorpusPage
    from tests.filters.test_article import para

    html = ("<html><head><title>River rises in the night - The Daily</title></head><body>"
            "<div class=nav><a href=/a>World</a> | <a href=/b>Sport</a> | <a href=/c>Weather</a> | "
            "<a href=/d>Money</a> | <a href=/e>Travel</a></div>"
            f"<div class=story><h1>River rises in the night</h1><p>{para(900)}</p></div></body></html>")
    path = tmp_path / "p.html"
    path.write_text(html, encoding="utf-8")
    page = CorpusPage("crafted", "p", path, "https://example.org/river", "article")
    for preset in ("reader", "declutter"):
        outcome = check_page(axe, cfg, preset, page)
        assert outcome.checks["skip_first"] and outcome.checks["one_h1"], (preset, outcome.first)
        assert outcome.checks["headline_early"] and outcome.checks["headline_is_title"], (preset, outcome.first)
        assert outcome.checks["no_removed"] and outcome.checks["text_headline"], (preset, outcome.first)


def test_declutter_reads_the_headline_before_the_site_header(axe, cfg, tmp_path):
    # declutter keeps the site header and a byline between it and the story: the skip link, then the
    # headline (the header is read after the content), and nothing of the header before it.
    from tests.a11y.axe_run import CorpusPage
    from tests.filters.test_article import para

    html = ("<html><head><title>River rises in the night - The Daily</title></head><body>"
            "<div class=masthead><a href=/><img src=logo.png alt='The Daily'></a> <span>Tuesday 3 May</span> "
            "<form action=/search><input name=q aria-label=Search><button>Search</button></form></div>"
            "<div class=story><h1>River rises in the night</h1><p>By A. Writer</p>"
            f"<div class=body><p>{para(900)}</p></div></div></body></html>")
    path = tmp_path / "p.html"
    path.write_text(html, encoding="utf-8")
    outcome = check_page(axe, cfg, "declutter", CorpusPage("crafted", "p", path, "https://example.org/river", "article"))
    assert outcome.first[:2] == ["link: Skip to main content", "heading1: River rises in the night"], outcome.first
    assert outcome.checks["text_headline"], outcome.first


@pytest.mark.skipif(not PAGES, reason="shared corpora not found (set PAGESIEVE_CORPORA or PAGESIEVE_CORPUS)")
@pytest.mark.parametrize("preset", ["declutter", "reader"])
@pytest.mark.parametrize("page", PAGES, ids=[f"{p.corpus}-{p.id[:8]}" for p in PAGES])
def test_skip_link_first_one_h1_removed_links_last(axe, cfg, page, preset):
    outcome = check_page(axe, cfg, preset, page)
    assert outcome.checks["skip_first"], outcome.first
    assert outcome.checks["one_h1"], outcome.first
    assert outcome.checks["headline_early"], outcome.first  # the <h1> among the first three named nodes
    assert outcome.checks["list_last"] is not False
    # A collapsed list (a closed <details>) must keep its links out of what is spoken.
    res = __import__("pagesieve.engine.config", fromlist=["build_chain"]).build_chain(cfg.resolve(preset)).process(
        page.path.read_bytes(), url=page.url or None)
    lists = parse(res.body).body.xpath(REMOVED_LIST)
    if lists and lists[0].xpath(".//details[not(@open)]"):
        assert outcome.checks["no_removed"], outcome.first
