"""An FAQ's questions and an accordion's section names are buttons that open the text below them.
Without scripts they open nothing, but their words are the title of that text: the reader keeps them
(as headings, with the text they title), and the text output reads them; other buttons stay out."""

import lxml.html
import pytest

import pagesieve
from pagesieve.analysis import disclosures
from tests.conftest import run_filter

ANSWER = ("Most everyday shoes last nine to twelve months of regular wear before the cushioning gives out, "
          "and new insoles can extend that by a season. ")
QUESTIONS = ["How long should everyday shoes last?", "How often should you buy new walking shoes?",
             "Is it better to buy shoes bigger or smaller?"]


def button_in(html: str) -> bool:
    root = lxml.html.fromstring(f"<html><body>{html}</body></html>")
    return disclosures.is_title(next(root.iter("button")))


@pytest.mark.parametrize("html", [
    # the accordion's header button in its heading (WAI-ARIA's pattern)
    f'<h3><button aria-expanded="false" aria-controls="a1">Question one?</button></h3><div id=a1><p>{ANSWER}</p></div>',
    # a heading inside the button
    f'<button aria-expanded="true"><h3>Question one?</h3></button><div><p>{ANSWER}</p></div>',
    # a panel named by aria-controls, elsewhere on the page
    f'<div><button type="button" aria-controls="p9">How long do they last?</button></div><p>x</p><div id=p9>{ANSWER}</div>',
    # no ARIA at all: the panel is the block right after the button
    f'<div><button class="faq" @click="toggle(0)"><span>How long do they last?</span></button>'
    f'<div class="answer">{ANSWER}</div></div>',
    # the button alone in its block, the panel after that block
    f'<div><div><button>How long do they last?</button></div><div>{ANSWER}</div></div>',
    # a button of type button inside a form opens, it does not submit
    f'<form><button type="button" aria-controls="p1">Shipping and returns</button><div id=p1>{ANSWER}</div></form>',
])
def test_a_button_that_opens_prose_titles_it(html):
    assert button_in(html)


@pytest.mark.parametrize("html", [
    # a menu toggle: what it opens is links
    '<button aria-expanded="false" aria-controls="m">Open menu</button><nav id=m><ul>'
    + "".join(f'<li><a href="/{i}">Section number {i}</a></li>' for i in range(8)) + "</ul></nav>",
    # submits its form (no type in a form is a submit)
    f"<form><button>Sign me up</button><p>{ANSWER}</p></form>",
    f'<div><button type="submit">Send it now</button><p>{ANSWER}</p></div>',
    # after the text of its block: "read more", not a title
    f"<div><p>{ANSWER}</p><button>Read more</button><p>{ANSWER}</p></div>",
    # one word and no heading: a carousel's "Next", a "Close"
    f"<div><button>Next</button><div>{ANSWER}</div></div>",
    # a tab's name belongs to its tab list
    f'<div><button role="tab" aria-controls="t1">Technical details</button></div><div id=t1>{ANSWER}</div>',
    # a toggle: a "like", a "save", beside the card's other button
    '<div><button type="button" aria-pressed="false">Save this event: Networking for founders</button>'
    '<span><button>Share this event: Networking for founders and their first hires</button></span></div>',
    # a "menu" button whose menu opens with a sentence
    '<div><button type="button" aria-controls="nav">Open menu</button></div><nav id=nav><p>Sign in for the best '
    'experience and faster checkout</p><a href=/a>Camping</a></nav>',
    # "read more": it opens the text above it
    f'<div id=d><p>{ANSWER}</p></div><button type="button" aria-controls="d">Learn more about this item</button>',
    # its panel is a filter's labels, not sentences
    '<h3><button aria-expanded="true">Filter by size</button></h3><ul><li><label><input type=checkbox> Small (12)'
    '</label></li><li><label><input type=checkbox> Medium (30)</label></li></ul>',
    # the button does not share its block with the text alone: a card's control, not its title
    f'<div class=card><button type="button">Quick view now</button><div>{ANSWER}</div><a href=/p>Details</a></div>',
    # a card made clickable: a paragraph, not a title
    f"<div><button>{ANSWER * 3}</button><div>{ANSWER}</div></div>",
    # nothing after it to open
    "<div><button>Add to basket</button></div>",
    # an icon alone
    f'<div><button><svg viewBox="0 0 1 1"></svg></button><div>{ANSWER}</div></div>',
])
def test_other_buttons_are_not_titles(html):
    assert not button_in(html)


def faq_page(header: str = "<h2>Questions</h2>") -> str:
    items = "".join(
        f'<div class="item"><button class="faq" type="button">{q}</button><div class="answer">{ANSWER * 2}</div></div>'
        for q in QUESTIONS)
    return (f"<html><head><title>Shoes</title></head><body><nav><a href=/>Home</a> <a href=/shop>Shop</a>"
            f'<button type="button" aria-controls="menu">Open menu</button></nav>'
            f"<main><h1>Everyday shoes</h1><p>{ANSWER * 4}</p>{header}<div class=faqs>{items}</div></main></body></html>")


def test_the_reader_keeps_the_questions_as_headings_over_their_answers():
    out = pagesieve.filter_html(faq_page(), preset="reader")
    root = lxml.html.fromstring(out)
    assert not list(root.iter("button"))
    heads = [h for h in root.iter("h2", "h3") if h.text_content().strip() in QUESTIONS]
    assert [h.text_content().strip() for h in heads] == QUESTIONS
    assert {h.tag for h in heads} == {"h3"}  # a level below the section's heading
    for h in heads:  # each question right above its answer
        assert ANSWER.strip()[:40] in h.getnext().text_content()
    text = pagesieve.filter_html(faq_page(), preset="reader", output="text")
    for q in QUESTIONS:
        assert f"\n{q}\n" in text
    assert "Open menu" not in text


def test_the_reader_without_a_heading_before_them_makes_them_second_level():
    root = lxml.html.fromstring(pagesieve.filter_html(faq_page(header=""), preset="reader"))
    assert [h.tag for h in root.iter("h2", "h3", "h4") if h.text_content().strip() in QUESTIONS] == ["h2"] * 3


def test_a_button_in_a_heading_leaves_its_words_to_the_heading():
    html = (f'<html><body><p>{ANSWER}</p><h3 id=q><button aria-expanded="false" aria-controls="a1" class="x">'
            f'How long do they last?</button></h3><div id=a1><p>{ANSWER}</p></div></body></html>')
    page, state, _ = run_filter("ignore", html, buttons=True)
    h3 = page.root.get_element_by_id("q")
    assert h3.text_content().strip() == "How long do they last?" and not list(h3.iter("button"))
    assert [dict(el.attrib) for el in h3.iter("span")] == [{}]  # the control's class and states went with it
    note = next(e for e in state.record if e["action"] == "remove" and "measured" in e)
    assert note["measured"]["removed"]["button (its words kept)"] == 1


def test_declutter_keeps_the_button_and_its_text_reads_it():
    html = faq_page()
    page, _, _ = run_filter("ignore", html)
    assert len(list(page.root.iter("button"))) == 4  # the default keeps buttons: nothing to put back
    text = pagesieve.filter_html(html, preset="declutter", output="text")
    for q in QUESTIONS:
        assert f"\n{q}\n" in text
    assert "Open menu" not in text


def test_a_panel_named_by_an_id_the_page_lacks_is_the_block_after_the_button():
    panel = f"<div><p>{ANSWER}</p>" + "<span>word</span>" * 2000 + "</div>"  # read until its first sentence
    root = lxml.html.fromstring("<html><body>" + f"<div><button aria-controls=gone>Open this one</button>{panel}</div>"
                                * 100 + "</body></html>")
    assert len(disclosures.titles(root)) == 100


def test_the_controls_icons_go_with_it():
    html = (f'<html><body><div><button type=button><span>How long do they last?</span><span><svg viewBox="0 0 9 9">'
            f'<path d="M1 1"/></svg></span><i class="icon-plus"></i></button><div>{ANSWER}</div></div></body></html>')
    page, _, _ = run_filter("ignore", html, buttons=True)
    head = next(page.root.iter("h2"))
    assert lxml.html.tostring(head, encoding="unicode") == "<h2><span>How long do they last?</span></h2>"


def test_a_panel_is_found_after_its_button_when_the_page_repeats_ids():
    # two accordions of one component, each numbering its panels from 1
    items = "".join(f'<div><button type="button" aria-controls="p1">Question {n} of this list?</button>'
                    f'<div id="p1">{ANSWER}</div></div>' for n in (1, 2))
    root = lxml.html.fromstring(f"<html><body>{items}</body></html>")
    assert len(disclosures.titles(root)) == 2


def test_one_id_repeated_thousands_of_times_is_searched_not_scanned():
    # each button's panel is the first of the 6,000 elements with its id after it
    html = "".join(f"<div><button type=button aria-controls=x>Question number {i} here?</button>"
                   f"<div id=x><p>{ANSWER}</p></div></div>" for i in range(6000))
    root = lxml.html.fromstring(f"<html><body>{html}</body></html>")
    index = disclosures.Index(root)
    buttons = list(root.iter("button"))
    assert all(index.after("x", b) is b.getnext() for b in buttons[::500])
    assert len(disclosures.titles(root)) == 6000


def test_an_accordion_header_over_a_panel_its_script_fills_is_a_title():
    empty = '<h3><button aria-expanded="false" aria-controls="r1">What is it made of?</button></h3><div id=r1 hidden></div>'
    assert button_in(empty)
    # without the heading, or without naming the panel, an empty block after a button is nothing to title
    assert not button_in('<div><button aria-expanded="false">What is it made of?</button></div><div></div>')
    assert not button_in('<h3><button aria-expanded="false">What is it made of?</button></h3><div></div>')
