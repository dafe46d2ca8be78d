"""The shared text measurement equals dom.text_len for every element, before and after every kind
of change a filter makes through its context (random changes on real pages)."""

import random
import re

import pytest

from pagesieve.core import dom
from pagesieve.core.measure import SILENT, UNCOUNTED, TextMeasure, chars, letters, words
from pagesieve.engine.context import FilterContext
from pagesieve.engine.state import RunState
from pagesieve.engine.document import parse
from pagesieve.filters.link_lists.measures import link_stats

HTML = ("<html><head><style>p { x: 1 }</style><script>var a = 1;</script></head><body>"
        "<div id=a> one <p>two <b>three</b> four</p><!-- no --> five<script>nope()</script> six</div>"
        "<ul><li>a b</li><li>c</li></ul> tail </body></html>")


def check(state: RunState) -> None:
    m = state.measure()
    walked = link_stats(state.root)  # link_lists' own walk: links, link letters, letters
    for el in state.root.iter():
        if isinstance(el.tag, str):
            assert m.text_len(el) == dom.text_len(el), dom.path(el)
            assert m.link_stats(el) == walked.get(el), dom.path(el)


def mutate(page, ctx: FilterContext, rng: random.Random, steps: int) -> None:
    for _ in range(steps):
        els = [e for e in page.root.iter() if isinstance(e.tag, str) and e.tag not in ("html", "head", "body")]
        if not els:
            return
        el = rng.choice(els)
        kind = rng.randrange(7)
        if kind == 0:
            ctx.remove(el, "test", explain=False)
        elif kind == 1:
            ctx.replace(el, dom.element("span", text=rng.choice(["new text", "  ", None, "x y z"])), "test")
        elif kind == 2:
            ctx.insert(el, rng.randrange(len(el) + 1), dom.element("em", text="inserted words"))
        elif kind == 3:
            ctx.set_text(el, rng.choice([None, "", " a b ", "longer text here"]), tail=rng.random() < 0.5)
        elif kind == 4:  # a link gains or loses its href (ignore drops javascript: hrefs)
            a = rng.choice(list(page.root.iter("a")) or [el])
            ctx.set_attr(a, "href", None if a.get("href") is not None else "https://example.org/")
        elif kind == 5:
            link = dom.element("a", {"href": "/x"}, text="a new link")
            link.tail = " after the link "
            ctx.insert(el, 0, link)
        else:
            new = dom.element("i", text="x")
            new.tail = " tail text "
            ctx.insert(el, 0, new)


def test_measure_matches_text_len_on_a_small_page():
    page = parse(HTML.encode())
    m = TextMeasure(page.root)
    assert m.text_len(page.root.find(".//div")) == len("onetwothreefourfivesix")
    assert m.text_len(page.root.find("head")) == 0


@pytest.mark.parametrize("seed", range(3))
def test_measure_stays_exact_through_context_changes(corpus, seed):
    rng = random.Random(seed)
    for _, path, _ in rng.sample(corpus, 4):
        page = parse(path.read_bytes())
        state = RunState(root=page.root)
        check(state)
        ctx = FilterContext("test", state, page)
        mutate(page, ctx, rng, 40)
        check(state)
        ctx.rollback()  # undo drops the measurement; the next one is exact again
        check(state)


def test_words_are_runs_of_word_characters_as_the_eval_tokenizes():
    assert words("It's 2 o'clock — café_au_lait!") == 6 and words("") == words(None) == words(" » | ") == 0


def test_letters_counts_word_characters_but_the_underscore():
    for text in ("", "a_b 12 !", "Grüße, 東京 — ok_", "\u00a0x\ty", *ODD_TEXTS):
        assert letters(text) == sum(c.isalnum() for c in text), text
        assert letters(text) == _letters_reference(text), text


def _letters_reference(text: str | None) -> int:
    """Letters as measure counted them before it counted runs of them: one match a letter."""
    return len(re.findall(r"[^\W_]", text)) if text else 0


def test_link_stats_of_a_small_page():
    page = parse(b"<body><div><a href=/a>one two</a> three <a>four</a><noscript><a href=/b>x</a></noscript>"
                 b"<template><a href=/c>y</a></template></div></body>")
    m = TextMeasure(page.root)
    div = page.root.find(".//div")
    assert m.link_stats(div) == (1, 6, 15)
    assert m.link_stats(div.find("noscript")) is None


def test_checkpoint_edits_are_not_trusted():
    page = parse(HTML.encode())
    state = RunState(root=page.root)
    state.measure()
    ctx = FilterContext("test", state, page)
    live = ctx.checkpoint(page.root.find(".//ul"))
    live[0].text = "changed behind the context's back"  # allowed on a checkpointed copy
    assert state.measure() is None and ctx.text_len(live) == dom.text_len(live)
    FilterContext("next", state, page)  # the next filter measures again
    check(state)


def _measure_reference(top) -> tuple[dict, dict]:
    """The measurement as TextMeasure took it before it counted ASCII text by deleting bytes,
    looped over child slices and counted other text's letters as runs (one element at a time, the
    text split into words, one match a letter)."""
    counts: dict = {}
    stats: dict = {}
    for el in reversed(list(top.iter())):
        tag = el.tag
        if not isinstance(tag, str):
            continue
        if tag in UNCOUNTED:
            silent = tag in SILENT
            n = 0 if silent else chars(el.text)
            for child in el:
                n += counts.get(child, 0)
                if not silent and child.tail:
                    n += chars(child.tail)
            counts[el] = n
            continue
        n, letter_count = chars(el.text), _letters_reference(el.text)
        links = link_letters = 0
        for child in el:
            n += chars(child.tail) + counts.get(child, 0)
            letter_count += _letters_reference(child.tail)
            got = stats.get(child)
            if got is not None:
                links += got[0]
                link_letters += got[1]
                letter_count += got[2]
        if tag == "a" and el.get("href") is not None:
            links += 1
            link_letters = letter_count
        counts[el] = n
        stats[el] = [links, link_letters, letter_count]
    return counts, stats


#: Text that str.split() and the byte deletion must count alike: ASCII separators str.split() knows
#: (\x1c-\x1f, vertical tab, form feed), non-ASCII spaces, letters, digits, underscores, marks;
#: non-ASCII text whose letters come in runs broken by marks, underscores, signs and other numbers.
ODD_TEXTS = ["a\x1cb\x1dc\x1ed\x1fe", "\x0b\x0c", " x_y 1 ", "\u00a0\u2003 Grüße_東京 \u3000", "\x1c", "e\u0301",
             "  \n\t ", "tab\tand\r\nCRLF", "..._!?", "١٢٣ ٤", "x²_ⅷ½·é\u0301e—“ok”", "Москва́,\u00adдом\u200b№5",
             "a\u00a0_\u00a0b"]


def test_measure_counts_as_the_word_splitting_reference():
    rng = random.Random(7)
    for round_ in range(40):
        parts = []
        for i in range(30):
            text, tail = rng.choice(ODD_TEXTS), rng.choice(ODD_TEXTS)
            tag = rng.choice(["p", "a href=/x", "a", "span", "script", "style", "noscript", "template", "b"])
            parts.append(f"<{tag}>{text}<i>{rng.choice(ODD_TEXTS)}</i><!--{text}-->{tail}</{tag.split()[0]}>{tail}")
            if i % 7 == 0:
                parts.append("<div>" + rng.choice(ODD_TEXTS))
        page = parse(("<html><body>" + "".join(parts) + "</body></html>").encode())
        counts, stats = _measure_reference(page.root)
        m = TextMeasure(page.root)
        assert m.chars == counts, round_
        assert m.links == stats, round_
        for el in page.root.iter():
            if isinstance(el.tag, str):
                assert m.text_len(el) == dom.text_len(el)
