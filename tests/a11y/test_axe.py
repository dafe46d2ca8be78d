"""axe-core on real pages before and after filtering: the filtered page never has a serious or
critical violation the original did not have (issues 7 and 17), on ``GATE_PAGES`` pages of every
shared corpus, for the declutter and reader presets; every other shipped preset on the first
page of each corpus. Totals and the full run: benchmarks/axe_report.py."""

from __future__ import annotations

import pytest

from pagesieve import config as C
from pagesieve.document import parse, serialize
from tests.a11y.axe_run import GATE_PAGES, PRESETS, gated, sample
from tests.conftest import run_filters

pytestmark = pytest.mark.slow

PAGES = sample(per_corpus=GATE_PAGES)
#: The first sampled page of each corpus also runs through every other preset.
FIRST = {p.corpus: p for p in reversed(PAGES)}


@pytest.fixture(scope="module")
def chains(cfg):
    return {name: C.build_chain(cfg.resolve(name)) for name in cfg.presets}


def test_harness_sees_violations_and_the_filter_repairs_them(axe):
    # No lang, no title, an image without alt in a figure with a caption, no <main>, an h1 then an h4,
    # a focusable link hidden from screen readers: axe must see them, and not after the filter.
    html = ("<html><head></head><body><h1>Floods</h1><figure><img src=x.png width=400 height=300>"
            "<figcaption>The river at dawn</figcaption></figure><h4>Later</h4>"
            "<p>The river rose through the night and the town watched it climb the old stone wall.</p>"
            "<div aria-hidden=true><a href=/more>Read more</a></div></body></html>")
    before = {v.rule for v in axe.violations(html)}
    assert {"html-has-lang", "document-title", "image-alt", "landmark-one-main", "heading-order",
            "aria-hidden-focus"} <= before
    page, _, _ = run_filters([("accessibility", {})], html, url="https://example.org/news/floods")
    after = {v.rule for v in axe.violations(serialize(page).decode(page.encoding))}
    assert not after & {"html-has-lang", "document-title", "image-alt", "landmark-one-main", "heading-order",
                        "aria-hidden-focus", "region", "bypass"}, after


@pytest.mark.skipif(not PAGES, reason="shared corpora not found (set PAGESIEVE_CORPORA or PAGESIEVE_CORPUS)")
@pytest.mark.parametrize("page", PAGES, ids=[f"{p.corpus}-{p.id[:8]}" for p in PAGES])
def test_no_new_serious_violation(axe, chains, page):
    data = page.path.read_bytes()
    before = gated(axe.violations(data.decode(parse(data).encoding, errors="replace")))
    names = [n for n in chains if n in PRESETS or FIRST[page.corpus] is page]
    new = {}
    for name in names:
        res = chains[name].process(data, url=page.url or None)
        assert res.failed == [], f"{name}: filters failed: {res.failed}"
        after = gated(axe.violations(res.body.decode(res.encoding, errors="replace")))
        if after - before:
            new[name] = sorted(after - before)
    assert not new, f"{page.corpus}/{page.id[:10]} ({page.url}): new serious/critical axe violations {new}"
