"""segments (DeSeA): delimiter levels down to α, next-to merging, DoR from anchor text, top ω."""

from __future__ import annotations

import re

import pytest

from pagesieve.core import dom
from pagesieve.core import settings as S
from pagesieve.core.errors import ConfigError
from pagesieve.engine.chain import Chain
from pagesieve.engine.config import SafetySettings
from pagesieve.engine.document import parse, serialize
from pagesieve.engine.output import OutputSettings
from pagesieve.filters.segments import SegmentsFilter, SegmentsSettings
from tests.conftest import run_filter

FILLER = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore "


def text(n: int, fill: str = FILLER) -> str:
    """Exactly ``n`` characters of filler (no cue phrase in it), not ending in a space."""
    out = (fill * (n // len(fill) + 1))[:n]
    return out[:-1] + "x" if out.endswith(" ") else out


def page(body: str) -> str:
    return f"<html><head><title>T</title></head><body>{body}</body></html>"


def segments(html: str, **settings) -> tuple[list[dict], object, object]:
    pg, state, stats = run_filter("segments", html, **settings)
    assert stats[0]["status"] == "ok", state.record
    return state.segments, pg, state


def seg_of(pg, ident: str) -> str | None:
    return pg.root.get_element_by_id(ident).get("data-pagesieve-segment")


# -- 1. splitting ------------------------------------------------------------------------------

def test_window_size_alpha_boundary():
    html = page(f"<p id=a>{text(100)}</p><p id=b>{text(100)}</p>")
    whole, _, _ = segments(html, alpha=100_000)
    assert len(whole) == 1
    n = whole[0]["chars"]
    blocks, _, _ = segments(html, alpha=n)  # chars <= α: Single(n), not divided
    assert len(blocks) == 1
    blocks, pg, state = segments(html, alpha=n - 1, next_to=[])  # chars > α: divided
    assert [b["chars"] for b in blocks] == [100, 100]
    assert seg_of(pg, "a") == "1" and seg_of(pg, "b") == "2"
    split = next(e for e in state.record if e["action"] == "split")
    assert split["measured"]["chars"] == n and split["threshold"] == {"alpha": n - 1}


def test_level_one_first_then_higher_levels_only_where_larger_than_alpha():
    html = page(f"<div id=top><p id=p1>{text(120)}</p><p id=p2>{text(120)}</p></div><hr>"
                f"<div id=small><p id=p3>{text(60)}</p><p id=p4>{text(60)}</p></div>"
                f"<h2 id=h>Heading</h2><p id=p5>{text(50)}</p>")
    blocks, pg, _ = segments(html, alpha=200, next_to=[])
    # level 1: <hr> ends the first block, <h2> opens one; the first (240 chars > α) goes down to
    # its <p> at level 3; the second (121 <= α) and the heading block (57 <= α) stay whole.
    assert [(b["kind"], b["level"], b["chars"]) for b in blocks] == [
        ("p", 3, 120), ("p", 3, 120), ("run", 1, 121), ("h2", 1, 57)]
    assert seg_of(pg, "p1") == "1" and seg_of(pg, "p2") == "2"
    assert seg_of(pg, "small") == "3" and seg_of(pg, "p3") is None  # the whole div is one block
    assert seg_of(pg, "h") == seg_of(pg, "p5") == "4"


def test_level_two_containers_before_level_three():
    html = page(f"<div id=d1><p>{text(80)}</p><p>{text(80)}</p></div>"
                f"<div id=d2><p>{text(80)}</p><p>{text(80)}</p></div>")
    blocks, pg, _ = segments(html, alpha=200, next_to=[])
    assert [(b["kind"], b["level"]) for b in blocks] == [("div", 2), ("div", 2)]
    assert (seg_of(pg, "d1"), seg_of(pg, "d2")) == ("1", "2")
    blocks, _, _ = segments(html, alpha=100, next_to=[])  # each div (161 > α) goes on to its <p>
    assert [(b["kind"], b["level"], b["chars"]) for b in blocks] == [("p", 3, 80)] * 4


def test_custom_levels_and_a_leaf_larger_than_alpha_stays_whole():
    html = page(f"<section id=s1><p>{text(400)}</p></section><section id=s2><p>{text(50)}</p></section>")
    blocks, pg, _ = segments(html, alpha=100, levels=["section"])
    assert [b["chars"] for b in blocks] == [400, 50]  # no level left to divide the long one
    assert (seg_of(pg, "s1"), seg_of(pg, "s2")) == ("1", "2")


def test_br_closes_a_block_and_bold_paragraph_opens_one():
    html = page(f"<div id=d>{text(150)}<br id=br1>{text(150)}</div>"
                f"<p id=bold><strong>Contact</strong></p><p id=after>{text(40)}</p>")
    blocks, pg, _ = segments(html, alpha=200, next_to=[])
    assert [(b["kind"], b["chars"]) for b in blocks] == [("br", 150), ("run", 150), ("p+strong", 47)]
    assert seg_of(pg, "br1") == "1"  # the <br> belongs to the block it closes
    assert seg_of(pg, "bold") == seg_of(pg, "after") == "3"


# -- 2. merging -----------------------------------------------------------------------------

def test_small_next_to_siblings_merge_within_alpha():
    items = "".join(f"<li id=i{n}>{text(50)}</li>" for n in range(10))
    html = page(f"<ul>{items}</ul><p id=p>{text(40)}</p>")
    blocks, pg, state = segments(html, alpha=300)
    # ten 50-character items: merged left to right while the sum stays <= 300 (6 + 4); the <p>
    # after the list (a block from level 2, where <p> is no delimiter yet) is of another type.
    assert [(b["kind"], b["chars"]) for b in blocks] == [("li", 300), ("li", 200), ("run", 40)]
    assert {seg_of(pg, f"i{n}") for n in range(6)} == {"1"} and seg_of(pg, "i6") == "2"
    merges = [e for e in state.record if e["action"] == "merge"]
    assert len(merges) == 8 and all(e["measured"]["chars"] <= e["threshold"]["alpha"] for e in merges)
    blocks, _, _ = segments(html, alpha=300, next_to=[])
    assert len(blocks) == 11


def test_merge_boundary_and_same_heading_level_only():
    html = page(f"<h3>A</h3><p>{text(100)}</p><h3>B</h3><p>{text(98)}</p><h4>C</h4><p>{text(10)}</p>"
                f"<div>{text(300)}</div>")
    blocks, _, _ = segments(html, alpha=200)
    # h3 blocks of 101 and 99 characters: 200 <= α merge; the h4 block is another type.
    assert [(b["kind"], b["chars"]) for b in blocks][:2] == [("h3", 200), ("h4", 11)]
    blocks, _, _ = segments(html, alpha=199)
    assert [(b["kind"], b["chars"]) for b in blocks][:3] == [("h3", 101), ("h3", 99), ("h4", 11)]


# -- 3. degree of relevance -------------------------------------------------------------------

@pytest.mark.parametrize("gap,relevant", [(60, True), (61, False)])
def test_anchor_text_is_the_80_characters_before_the_block(gap, relevant):
    # "research interests" (18) + space + gap + the space between the blocks: 80 characters at 60.
    html = page(f"<p id=a>research interests {text(gap)}</p><p id=b>{text(100)}</p>")
    blocks, pg, _ = segments(html, alpha=50, cue_phrases=["research interests:2"])
    assert blocks[1]["dor"] == (2.0 if relevant else 0.0)
    assert (pg.root.get_element_by_id("b").get("data-pagesieve-relevance") == "2") is relevant
    assert blocks[0]["dor"] == 0  # the cue inside a block does not make that block relevant


def test_anchor_chars_is_a_setting_and_cues_match_whole_words():
    html = page(f"<p>teaching {text(100)}</p><p id=b>{text(100)}</p>")
    blocks, _, _ = segments(html, alpha=50, cue_phrases=["teaching"], anchor_chars=200)
    assert blocks[1]["dor"] == 1.0
    blocks, _, _ = segments(html, alpha=50, cue_phrases=["teach"], anchor_chars=200)
    assert blocks[1]["dor"] == 0.0


def test_heading_that_opens_a_block_is_anchor_text():
    html = page(f"<p>{text(200)}</p><h2 id=h>Research Interests</h2><p id=u>{text(60)}</p>")
    blocks, pg, _ = segments(html, alpha=150, cue_phrases=["research interests:3"])
    assert (blocks[-1]["kind"], blocks[-1]["chars"], blocks[-1]["dor"]) == ("h2", 78, 3.0)
    assert pg.root.get_element_by_id("u").get("data-pagesieve-rank") == "1"
    blocks, _, _ = segments(html, alpha=150, cue_phrases=["research interests:3"], heading_in_anchor=False)
    assert blocks[-1]["dor"] == 0.0


def test_highest_priority_in_an_anchor_counts_and_merged_blocks_keep_the_higher_dor():
    html = page(f"<p>teaching and research interests {text(30)}</p><p id=b>{text(100)}</p>")
    blocks, _, _ = segments(html, alpha=50, cue_phrases=["teaching:1", "research interests:5"])
    assert blocks[1]["dor"] == 5.0 and blocks[1]["cue"] == "research interests"
    items = f"<li>{text(100)} projects</li><li>{text(30)}</li><li>{text(100)}</li>"
    blocks, _, _ = segments(page(f"<p>{text(200)}</p><ul>{items}</ul>"), alpha=150, cue_phrases=["projects:4"])
    # the first item (DoR 0: its anchor is the <p>) and the second (DoR 4) merge: 109 + 30 <= α.
    assert [(b["kind"], b["chars"], b["dor"]) for b in blocks][-2:] == [("li", 139, 4.0), ("li", 100, 4.0)]
    blocks, _, _ = segments(page(f"<p>{text(200)}</p><ul>{items}</ul>"), alpha=150, cue_phrases=["projects:4"],
                            next_to=[])
    assert [(b["chars"], b["dor"]) for b in blocks][-3:] == [(109, 0.0), (30, 4.0), (100, 4.0)]


# -- 4. priorities and the top ω ------------------------------------------------------------------

SECTIONS = page(f"<div id=nav>{text(120)}</div>"
                f"<h2>Teaching</h2><p id=t>{text(200)}</p>"
                f"<h2>Publications</h2><p id=pub>{text(200)}</p>"
                f"<h2>Research</h2><p id=r>{text(200)}</p>")
CUES = ["teaching:1", "research:3", "publications:2"]


def test_candidates_ranked_by_priority_not_position():
    blocks, pg, _ = segments(SECTIONS, cue_phrases=CUES)
    assert [(b["cue"], b["dor"], b["rank"]) for b in blocks if b["dor"]] == [
        ("teaching", 1.0, 3), ("publications", 2.0, 2), ("research", 3.0, 1)]
    assert [pg.root.get_element_by_id(i).get("data-pagesieve-rank") for i in ("r", "pub", "t")] == ["1", "2", "3"]


def test_top_omega_blocks_are_kept_the_rest_removed():
    blocks, pg, state = segments(SECTIONS, cue_phrases=CUES, mode="keep", top_blocks=2)
    body_text = dom.text_of(dom.body_of(pg.root))
    assert "Research" in body_text and "Publications" in body_text and "Teaching" not in body_text
    assert pg.root.get_element_by_id("nav", None) is None and pg.root.get_element_by_id("t", None) is None
    assert pg.root.get_element_by_id("r") is not None and pg.root.get_element_by_id("pub") is not None
    gone = next(e for e in state.record if e["action"] == "remove" and e["node"] == "h2")
    assert gone["measured"]["best_rank"] == 3 and gone["threshold"]["top_blocks"] == 2
    assert pg.root.find(".//title").text == "T"  # <head> untouched
    assert [b["relevant"] for b in blocks if b["dor"]] == [False, True, True]


def test_ties_keep_document_order():
    html = page(f"<h2>News</h2><p id=a>{text(200)}</p><h2>News</h2><p id=b>{text(200)}</p>")
    _, pg, _ = segments(html, cue_phrases=["news"], mode="keep", top_blocks=1)
    assert pg.root.get_element_by_id("a") is not None and pg.root.get_element_by_id("b", None) is None


def test_text_between_elements_follows_its_block_in_keep_mode():
    html = page(f"<div><p id=p>{text(200)} research</p>Intro {text(100)} <b id=kw>hearts</b> and lungs<br>"
                f"{text(150, 'other words ')}</div>")
    blocks, pg, _ = segments(html, alpha=120, cue_phrases=["research"], mode="keep", top_blocks=1)
    assert [(b["kind"], b["starts_in"], b["dor"]) for b in blocks] == [
        ("p", "element", 0.0), ("br", "tail", 1.0), ("run", "tail", 0.0)]
    # kept: the run after the <p> up to the <br> (text, <b>, text); the <p> and the last run go.
    assert dom.text_of(dom.body_of(pg.root)) == f"Intro {text(100)} hearts and lungs"
    assert pg.root.get_element_by_id("p", None) is None and pg.root.get_element_by_id("kw") is not None


# -- no cue phrase: no-op -----------------------------------------------------------------------

@pytest.mark.parametrize("cues,why", [([], "without cue phrases"), (["quantum"], "no cue phrase occurs")])
def test_keep_mode_without_relevance_leaves_the_page_unchanged(cues, why):
    before = serialize(parse(SECTIONS.encode()))
    _, pg, state = segments(SECTIONS, cue_phrases=cues, mode="keep")
    assert serialize(pg) == before
    assert any(e["action"] == "skip" and why in e["reason"] for e in state.record)


def test_cue_only_inside_blocks_keep_mode_unchanged_and_says_so():
    html = page(f"<p>{text(100)} quantum</p>" + "".join(f"<p>{text(200)}</p>" for _ in range(3)))
    before = serialize(parse(html.encode()))
    _, pg, state = segments(html, alpha=150, cue_phrases=["quantum"], mode="keep", anchor_chars=5)
    assert serialize(pg) == before
    assert any(e["action"] == "skip" and "no block has a cue phrase" in e["reason"] for e in state.record)


def test_mark_mode_without_cues_numbers_blocks_only():
    blocks, pg, _ = segments(SECTIONS)
    assert len(blocks) == 4 and not any(b["dor"] for b in blocks)
    assert not pg.root.xpath("//*[@data-pagesieve-relevance or @data-pagesieve-rank]")


# -- settings ----------------------------------------------------------------------------------

@pytest.mark.parametrize("values,message", [
    ({"cue_phrases": ["research:high"]}, "filters.segments.cue_phrases: 'research:high': after the last ':' a "
                                         "priority must follow, a number > 0"),
    ({"cue_phrases": ["research:0"]}, "'research:0': after the last ':' a priority must follow"),
    ({"cue_phrases": [":2"]}, "':2': empty phrase"),
    ({"levels": ["div p", "p"]}, "filters.segments.levels: 'p' is in level 1 and level 2"),
    ({"levels": ["div", "  "]}, "filters.segments.levels: level 2 is empty"),
    ({"levels": ["<div>"]}, "filters.segments.levels: level 1: '<div>' is not a tag name"),
    ({"levels": []}, "filters.segments.levels = []: expected at least one level"),
    ({"next_to": ["H3!"]}, "filters.segments.next_to: 'H3!' is not a tag name"),
    ({"mode": "drop"}, "filters.segments.mode = 'drop': expected one of 'mark', 'keep'"),
])
def test_bad_settings_are_refused_naming_the_key(values, message):
    with pytest.raises(ConfigError) as err:
        S.build(SegmentsSettings, values, "filters.segments")
    assert message in str(err.value)


def test_the_article_loss_guard_applies_in_keep_mode_only():
    assert SegmentsFilter(SegmentsSettings(mode="keep")).destructive
    assert not SegmentsFilter(SegmentsSettings()).destructive
    # The one relevant block (about 200 of 4000 characters) is less than a tenth of the text: the
    # chain's default guard (max_article_loss 0.9) undoes keep mode; lifted, the selection stays.
    html = SECTIONS.replace("</body>", f"<div>{text(3200)}</div></body>")
    pg, state, stats = run_filter("segments", html, cue_phrases=["research"], mode="keep")
    assert stats[0]["status"] == "reverted" and pg.root.get_element_by_id("nav") is not None
    pg, state, stats = _run(html.encode(), cue_phrases=["research"], mode="keep")
    assert stats[0]["status"] == "ok" and pg.root.get_element_by_id("nav", None) is None


# -- the shared corpus ----------------------------------------------------------------------------

TITLE_WORD = re.compile(r"[^\W\d_]{5,}")
HEADING_KINDS = {"h1", "h2", "h3", "h4", "h5", "h6", "p+strong"}


def _title_phrase(root) -> str | None:
    """The first word (5+ letters) of the page title that its first <h1> also holds."""
    title = root.findtext(".//title") or ""
    heads = [dom.text_of(h).casefold() for h in dom.body_of(root).iter("h1")]
    for word in TITLE_WORD.findall(title):
        pattern = re.compile(r"(?<!\w)" + re.escape(word.casefold()) + r"(?!\w)")
        if any(pattern.search(h) for h in heads):
            return word
    return None


def _squash(s: str) -> str:
    return "".join(s.split()).casefold()


def _run(data: bytes, **values):
    flt = SegmentsFilter(S.build(SegmentsSettings, values, "filters.segments"))
    pg = parse(data)
    # The selection is the test's subject, not the chain's article-loss guard: lift it.
    state, stats = Chain([flt], OutputSettings(), SafetySettings(max_article_loss=1.0)).run(pg)
    return pg, state, stats


@pytest.mark.slow
def test_corpus_mark_mode_blocks_are_disjoint(corpus):
    for pid, path, _ in corpus:
        pg, state, stats = _run(path.read_bytes())
        assert stats[0]["status"] == "ok", (pid, state.record[-1])
        marked = pg.root.xpath("//*[@data-pagesieve-segment]")
        assert marked, pid
        for el in marked:  # a block's elements never nest inside another block's
            assert not any(a.get("data-pagesieve-segment") for a in el.iterancestors()), (pid, dom.path(el))
        numbers = {int(el.get("data-pagesieve-segment")) for el in marked}
        assert numbers <= set(range(1, len(state.segments) + 1)), pid


@pytest.mark.slow
def test_corpus_keep_mode_keeps_the_blocks_after_a_title_phrase(corpus):
    """With a word of each page's title (and headline) as the one cue phrase, keep mode keeps
    exactly the ranked blocks (checked against a mark-mode run), each of them follows that word
    in the original page text (checked on that text, not the filter's offsets), and a phrase
    that is nowhere on the page changes nothing."""
    pages_with_phrase = pages_kept = 0
    for pid, path, _ in corpus:
        data = path.read_bytes()
        original = parse(data)
        phrase = _title_phrase(original.root)
        if phrase is None:
            continue
        pages_with_phrase += 1
        page_text = _squash(dom.text_of(dom.body_of(original.root)))
        marked, _, _ = _run(data, cue_phrases=[phrase])
        kept, kstate, stats = _run(data, cue_phrases=[phrase], mode="keep")
        assert stats[0]["status"] == "ok", (pid, kstate.record[-1])
        relevant = [b for b in kstate.segments if b["relevant"]]
        assert len(relevant) <= 10
        out = _squash(dom.text_of(dom.body_of(kept.root)))
        if not relevant:
            assert serialize(kept) == serialize(parse(data)), pid
            continue
        pages_kept += 1
        notes = [e for e in kstate.record if e["action"] == "segment" and "): relevant:" in e["reason"]]
        assert len(notes) == len(relevant), pid
        for block in relevant:
            anchor = _squash(block["anchor"])
            assert anchor in page_text, (pid, block)  # real page text ...
            assert _squash(phrase) in anchor, (pid, block)  # ... holding the phrase ...
            where = block["anchor_before"]  # the (merged) part the anchor belongs to
            if where["starts_in"] == "tail":
                continue  # its text starts after an element: no element to read it from
            first = _squash(dom.text_of(original.root.xpath(where["path"])[0]))
            if block["kind"] in HEADING_KINDS:  # ... that ends with the heading opening the block
                assert anchor.endswith(first), (pid, block, first)
            else:  # ... that stands right before the block
                assert anchor + first[:30] in page_text, (pid, block, first[:30])
        # keep mode kept the ranked blocks of mark mode, and little else.
        ranked = marked.root.xpath("//*[@data-pagesieve-rank]")
        for el in ranked:
            assert _squash(dom.text_of(el)) in out, (pid, dom.path(el))
        assert len(out) <= sum(b["chars"] for b in relevant), pid
        absent, _, _ = _run(data, cue_phrases=["zzyzxq"], mode="keep")
        assert serialize(absent) == serialize(parse(data)), pid
    assert pages_with_phrase >= 170
    assert pages_kept >= 150, (pages_kept, pages_with_phrase)
