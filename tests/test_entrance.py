"""Elements left transparent for a script to fade in are shown once the scripts are removed; what the
page means to keep hidden stays hidden."""

import lxml.html
import pytest

from pagesieve.analysis.entrance import declarations
from tests.conftest import run_filter

STORY = "The harbour froze over in the night and the ferries stayed in port until the ice broke. "
FRAME = "-webkit-transform:translate3d(0, 5%, 0);transform:translate3d(0, 5%, 0) scale3d(1, 1, 1);opacity:0"


def page(attrs: str, tag: str = "section") -> str:
    return f"<html><body><h1>Harbour</h1><{tag} id=s {attrs}><p>{STORY * 3}</p></{tag}></body></html>"


def style_of(html: str, **settings) -> str | None:
    out, state, _ = run_filter("ignore", html, **settings)
    return out.root.get_element_by_id("s").get("style")


@pytest.mark.parametrize("style, left", [
    (FRAME, None),  # the first frame of an entrance: shown, no offset
    (f"color:#333; {FRAME}", "color:#333"),  # the rest of the style stays as written
    ("opacity: 0 !important; background:url(data:image/png;base64,iVBO=) no-repeat",
     "background:url(data:image/png;base64,iVBO=) no-repeat"),
    ("opacity:.0", None),
    ("opacity:0.5", "opacity:0.5"),  # half seen: the page's look, not a frame waiting for a script
    ("opacity:0.05", "opacity:0.05"),
    ("opacity:0;display:none", "opacity:0;display:none"),  # hidden whatever the script: stays hidden
    ("opacity:0; visibility: hidden", "opacity:0; visibility: hidden"),
])
def test_a_transparent_first_frame_is_shown(style, left):
    assert style_of(page(f'style="{style}"')) == left


@pytest.mark.parametrize("attrs, tag", [
    ('aria-hidden="true"', "section"),  # hidden from assistive technology too: decoration
    ('role="dialog"', "section"),  # a dialog its script opens on demand
    ('aria-modal="true"', "section"),
    ("", "dialog"),
])
def test_what_the_page_keeps_hidden_stays_hidden(attrs, tag):
    assert style_of(page(f'{attrs} style="{FRAME}"', tag=tag)) == FRAME


@pytest.mark.parametrize("inside, shown", [
    ("", False),  # an empty layer (a site builder's "Fade BG"): shown, it would only cover the page
    ("<div><span> </span></div>", False),
    ("<img src=/hero.jpg alt=''>", True),
    ("<svg viewBox='0 0 10 10'><rect width=10 height=10 /></svg>", True),
    ("Ice", True),
])
def test_an_empty_transparent_layer_stays_transparent(inside, shown):
    html = f"<html><body><h1>Harbour</h1><section id=s style='opacity:0'>{inside}</section><p>{STORY}</p></body></html>"
    assert (style_of(html) is None) == shown
    html = f"<html><body><section id=s style='opacity:0;background-image:url(/hero.jpg)'></section><p>{STORY}</p></body></html>"
    assert style_of(html) == "background-image:url(/hero.jpg)"  # a picture of its own, faded in


@pytest.mark.parametrize("settings", [{"scripts": False}, {"reveal_animated": False}])
def test_with_the_scripts_kept_or_the_setting_off_the_frame_stays(settings):
    # with its scripts the page fades the section in itself
    assert style_of(page(f'style="{FRAME}"'), **settings) == FRAME


def test_the_change_is_explained():
    _, state, _ = run_filter("ignore", page(f'style="{FRAME}"'))
    note = next(e for e in state.record if e["action"] == "remove" and "measured" in e)
    assert note["measured"]["removed"]["transparent first frame (shown)"] == 1


@pytest.mark.parametrize("attrs, left", [
    ('data-aos="fade-up" data-aos-duration="600"', None),  # the library's style sheet no longer matches it
    ('data-aos="fade-up" aria-hidden="true"', "fade-up"),
])
def test_an_element_marked_for_the_animation_library_loses_the_mark(attrs, left):
    out, _, _ = run_filter("ignore", page(attrs, tag="div"))
    assert out.root.get_element_by_id("s").get("data-aos") == left


def test_declarations_split_outside_brackets_and_quotes():
    assert declarations("a:1; b:url('x;y'); c:url(data:a;b) ;") == ["a:1", "b:url('x;y')", "c:url(data:a;b)"]


def shop(wrapper: str, extra: str = "") -> str:
    """A product page whose whole story waits in a block its deferred script shows."""
    return ('<html><head><title>Almond thins | Shop</title><meta property="og:title" content="Almond thins">'
            f'</head><body><header><a href="/">Shop</a></header>{extra}<div id=s {wrapper}><article>'
            f'<h1>Almond thins</h1><p>{STORY * 3}</p></article></div></body></html>')


@pytest.mark.parametrize("wrapper", ['style="display: none"', "hidden", 'style="visibility:hidden; color:red"'])
def test_a_block_that_hides_the_pages_own_headline_is_shown(wrapper):
    out, state, _ = run_filter("ignore", shop(wrapper))
    s = out.root.get_element_by_id("s")
    assert s.get("hidden") is None and "none" not in (s.get("style") or "") and "hidden" not in (s.get("style") or "")
    assert next(e for e in state.record if e["action"] == "reveal")["reason"].startswith("the page's headline")


@pytest.mark.parametrize("wrapper, extra", [
    ('role="dialog" style="display:none"', ""),  # a dialog its script opens on demand
    ('aria-hidden="true" hidden', ""),
    # the page shows the same heading elsewhere: the hidden one is a copy (a dialog to republish the story)
    ('style="display:none"', "<h1>Almond thins</h1><p>The story, shown.</p>"),
])
def test_a_hidden_headline_the_page_means_to_hide_stays_hidden(wrapper, extra):
    out, _, _ = run_filter("ignore", shop(wrapper, extra))
    s = out.root.get_element_by_id("s")
    assert s.get("hidden") is not None or "none" in (s.get("style") or "")


@pytest.mark.parametrize("settings", [{"scripts": False}, {"reveal_animated": False}])
def test_with_the_scripts_kept_or_the_setting_off_the_headline_stays_hidden(settings):
    out, _, _ = run_filter("ignore", shop('style="display: none"'), **settings)
    assert out.root.get_element_by_id("s").get("hidden") is not None or out.root.get_element_by_id("s").get("style")


def whole_page(sheet: str, html_attrs: str = "", body_attrs: str = "", media: str = "") -> str:
    return (f"<html {html_attrs}><head><style {media}>{sheet}</style></head><body {body_attrs}><h1>Harbour</h1>"
            f"<p>{STORY * 3}</p></body></html>")


def page_styles(html: str, **settings) -> tuple[str | None, str | None]:
    out, _, _ = run_filter("ignore", html, **settings)
    return out.root.get("style"), out.root.find("body").get("style")


SHOWN = "opacity: 1 !important; visibility: visible !important"


@pytest.mark.parametrize("sheet, attrs, shown", [
    # a guard against a flash of the page, lifted by a later style sheet or a script: the page is shown
    ("html, body { font-family: sans-serif } body { opacity: 0; transition: opacity .25s; margin: 0 }", {}, "body"),
    ("/* hide until ready */ html{visibility:hidden!important}", {}, "html"),
    ("body.blog { opacity: 0 }", {"body_attrs": 'class="blog post"'}, "body"),
    ("@media screen { :root { opacity: 0 } }", {}, "html"),
    # the body keeps its own style beside the one that shows it
    ("body { opacity: 0 }", {"body_attrs": 'style="margin:0; opacity:0"'}, "body+"),
    # not the page as a whole, or not as it is: nothing changes
    ("body.menu-open { visibility: hidden }", {"body_attrs": 'class="home"'}, None),  # waits for a class it lacks
    ("body .reveal { opacity: 0 }", {}, None),  # a rule for the page's parts
    ("body { opacity: 0.5 }", {}, None),  # half seen: the page's look
    ("body { display: none }", {}, None),
    ("body { opacity: 0 }", {"media": 'media="print"'}, None),  # print only
])
def test_a_page_its_style_sheet_keeps_out_of_sight_is_shown(sheet, attrs, shown):
    html_style, body_style = page_styles(whole_page(sheet, **attrs))
    if shown is None:
        assert html_style is None and body_style in (None, "margin:0; opacity:0")
    elif shown == "html":
        assert (html_style, body_style) == (SHOWN, None)
    elif shown == "body":
        assert (html_style, body_style) == (None, SHOWN)
    else:
        assert body_style == f"margin:0; {SHOWN}"


@pytest.mark.parametrize("settings", [{"scripts": False}, {"reveal_animated": False}])
def test_with_the_scripts_kept_or_the_setting_off_the_page_stays_as_written(settings):
    assert page_styles(whole_page("body { opacity: 0 }"), **settings) == (None, None)


def test_showing_the_page_is_explained():
    _, state, _ = run_filter("ignore", whole_page("body { opacity: 0 }"))
    note = next(e for e in state.record if e["action"] == "reveal" and e.get("node") == "body")
    assert note["measured"] == {"rule": "body"}


def test_at_most_so_many_whole_page_selectors_are_tested():
    # a hostile sheet of many selectors for the page: each is tested on <html> and <body> alone, and only the first
    # WHOLE_PAGE_MAX of them (a page writes one or two)
    from pagesieve.analysis.entrance import WHOLE_PAGE_MAX
    sheet = "".join(f"body.c{i} {{ opacity: 0 }}" for i in range(WHOLE_PAGE_MAX))
    assert page_styles(whole_page(sheet + "body { opacity: 0 }")) == (None, None)
    assert page_styles(whole_page("body { opacity: 0 }" + sheet)) == (None, SHOWN)


def gated_page(sheet: str, section: str, where: str = "main") -> str:
    open_, close = {"main": ("<main>", "</main>"), "header": ("<header>", "</header><main><p>x</p></main>"),
                    "none": ("<div>", "</div>")}[where]
    return f"<html><head><style>{sheet}</style></head><body><h1>Harbour</h1>{open_}{section}{close}</body></html>"


def classes_of(html: str, **settings) -> dict[str, str | None]:
    out, _, _ = run_filter("ignore", html, **settings)
    return {el.get("id"): el.get("class") for el in out.root.iter() if el.get("id")}


WAYPOINT = (".waypoint .step-up { opacity: 0 } .waypoint .step-up { transform: translateY(50px) }"
            ".waypoint.waypoint-reveal .step-up { opacity: 1; transform: none }")
SECTION = f"<div id=w class=waypoint><div id=s class=step-up><p>{STORY}</p></div></div>"


@pytest.mark.parametrize("sheet, section, shown", [
    # a "reveal on scroll" script adds the class to the section as it comes into view: added where the rule asks
    (WAYPOINT, SECTION, {"w": "waypoint waypoint-reveal", "s": "step-up"}),
    # the class on the element itself
    (".fade-in { opacity: 0 } .fade-in.is-visible { opacity: 1 }",
     f"<div id=s class=fade-in><p>{STORY}</p></div>", {"s": "fade-in is-visible"}),
    # a class on any block around it: its nearest block gets it
    ("._1xtz { opacity: 0; padding: 0 } ._3BCe ._1xtz { opacity: 1 }",
     f"<div id=w><div id=s class=_1xtz><p>{STORY}</p></div></div>", {"w": "_3BCe", "s": "_1xtz"}),
    # a class in :not() is no class the script adds
    (".card:not(.flat) { opacity: 0 } .card:not(.flat).in-view { opacity: 1 }",
     f"<div id=s class=card><p>{STORY}</p></div>", {"s": "card in-view"}),
])
def test_a_part_of_the_main_block_waiting_for_a_class_gets_it(sheet, section, shown):
    assert classes_of(gated_page(sheet, section)) == shown


@pytest.mark.parametrize("sheet, section, where", [
    (WAYPOINT, SECTION, "header"),  # outside the main block: a menu, a pop-up, a cookie bar wait the same way
    (WAYPOINT, SECTION, "none"),  # no main block to tell them apart
    # hidden on purpose: whatever the script does
    (".step-up { opacity: 0; visibility: hidden } .step-up.open { opacity: 1 }",
     f"<div id=s class=step-up><p>{STORY}</p></div>", "main"),
    (".step-up { opacity: 0; pointer-events: none } .step-up.open { opacity: 1 }",
     f"<div id=s class=step-up><p>{STORY}</p></div>", "main"),
    (".step-up { opacity: 0 } .step-up.open { opacity: 1 }",
     f"<div id=s class=step-up aria-hidden=true><p>{STORY}</p></div>", "main"),
    # a control's label, not a sentence
    (".tip { opacity: 0 } .tip.shown { opacity: 1 }", "<span id=s class=tip>Copied!</span>", "main"),
    # the page carries the class already: the rule applies where the page put it
    (".step-up { opacity: 0 } .step-up.open { opacity: 1 }",
     f"<div id=s class=step-up><p>{STORY}</p></div><p id=o class=open>x</p>", "main"),
    # a sibling's state (+, ~) is not followed
    (".step-up { opacity: 0 } .toggle.on + .step-up { opacity: 1 }",
     f"<p id=t class=toggle>t</p><div id=s class=step-up><p>{STORY}</p></div>", "main"),
])
def test_what_stays_out_of_the_gated_reveal(sheet, section, where):
    before = {el.get("id"): el.get("class") for el in lxml.html.fromstring(gated_page(sheet, section, where)).iter()
              if el.get("id")}
    assert classes_of(gated_page(sheet, section, where)) == before


@pytest.mark.parametrize("settings", [{"scripts": False}, {"reveal_animated": False}])
def test_with_the_scripts_kept_or_the_setting_off_no_class_is_added(settings):
    assert classes_of(gated_page(WAYPOINT, SECTION), **settings) == {"w": "waypoint", "s": "step-up"}


def test_the_gated_reveal_is_explained():
    _, state, _ = run_filter("ignore", gated_page(WAYPOINT, SECTION))
    note = next(e for e in state.record if e["action"] == "reveal")
    assert note["measured"] == {"rule": ".waypoint.waypoint-reveal .step-up", "elements": 1}


def test_at_most_so_many_gated_rules_are_matched():
    # each such rule reads the whole page: a hostile sheet of many is cut at GATED_MAX
    from pagesieve.analysis.entrance import GATED_MAX
    n = GATED_MAX + 2
    sheet = "".join(f".f{i} {{ opacity: 0 }} .f{i}.on{i} {{ opacity: 1 }}" for i in range(n))
    section = "".join(f"<div id=s{i} class=f{i}><p>{STORY}</p></div>" for i in range(n))
    got = classes_of(gated_page(sheet, section))
    assert sum(cls != f"f{i}" for i, cls in enumerate(got[f"s{i}"] for i in range(n))) == GATED_MAX


@pytest.mark.parametrize("media, shown", [("", True), ('media="screen"', True), ('media="(min-width: 768px)"', True),
                                          ('media="print"', False), ('media="screen, print"', True)])
def test_a_style_sheet_for_print_alone_hides_nothing_on_screen(media, shown):
    assert page_styles(whole_page("body { opacity: 0 }", media=media)) == (None, SHOWN if shown else None)
