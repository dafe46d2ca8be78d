import pytest

from tests.conftest import run_filter

PAGE = """<html><head><meta charset=utf-8><meta name=viewport content="width=device-width">
<meta name=description content=d><meta name=color-scheme content=dark><style>p{}</style><link rel=stylesheet href=s.css></head><body>
<script>evil()</script><noscript><p id=ns>no js</p></noscript>
<div style="color:red" id=red>r</div><div style="display: none" id=hid>h</div><p style="x" id=ps>p</p>
<img src=a.png alt="plain image"><a href=/big><img src=b.png alt="linked image"></a>
<a href=/text id=tl>text link</a><form><input name=q><button>Go</button><select><option>1</select></form>
<iframe src=f></iframe><embed src=e><object data=o></object>
<table width=500><tr><td width=100>cell</td></tr></table></body></html>"""


def tags(page, tag):
    return page.root.findall(f".//{tag}")


def test_paper_defaults():
    page, state, _ = run_filter("ignore", PAGE)
    assert not tags(page, "script") and not tags(page, "iframe") and not tags(page, "embed")
    assert not tags(page, "object") and not tags(page, "img")
    assert page.root.find(".//p[@id='ns']") is not None  # <noscript> content shown
    assert not tags(page, "noscript")
    assert [m.get("charset") or m.get("name") or m.get("http-equiv") for m in tags(page, "meta")] == [
        "Content-Security-Policy", "utf-8", "viewport", "color-scheme"]
    assert page.root.get_element_by_id("red").get("style") is None
    hidden = page.root.get_element_by_id("hid")
    assert hidden.get("style") is None and hidden.get("hidden") == ""  # still hidden
    assert page.root.get_element_by_id("ps").get("style") == "x"  # only <div> by default
    assert tags(page, "style") and tags(page, "form") and tags(page, "button")
    assert page.root.find(".//a[@href='/big']") is None  # image link left with no text
    assert page.root.get_element_by_id("tl") is not None
    secured, removed = (r["measured"]["removed"] for r in state.record if r.get("reason") in (
        "what would run script", "kinds of tags this filter is set to ignore"))
    assert secured["script"] == 1 and removed["non-link image"] == 1 and removed["image link"] == 1


@pytest.mark.parametrize("setting, present_xpath", [
    ("styles", "//style | //link[@rel='stylesheet']"),
    ("forms", "//form"),
    ("inputs", "//input"),
    ("buttons", "//button"),
    ("selects", "//select"),
    ("text_links", "//a[@id='tl']"),
])
def test_each_switch_on_and_off(setting, present_xpath):
    on, _, _ = run_filter("ignore", PAGE, **{setting: True})
    off, _, _ = run_filter("ignore", PAGE, **{setting: False})
    assert not on.root.xpath(present_xpath)
    assert off.root.xpath(present_xpath)


def test_noscript_removed_when_not_shown():
    page, _, _ = run_filter("ignore", PAGE, show_noscript=False)
    assert page.root.find(".//p[@id='ns']") is None


def test_scripts_kept_when_off():
    page, _, _ = run_filter("ignore", PAGE, scripts=False)
    assert tags(page, "script") and tags(page, "noscript")


def test_alt_text_replaces_removed_images():
    page, _, _ = run_filter("ignore", PAGE, display_alt_text=True)
    spans = [s.text for s in tags(page, "span")]
    assert "plain image" in spans and "linked image" in spans


def test_images_kept_when_off():
    page, _, _ = run_filter("ignore", PAGE, non_link_images=False, image_links=False)
    assert len(tags(page, "img")) == 2


def test_style_attributes_of_all_tags_and_cell_widths():
    page, _, _ = run_filter("ignore", PAGE, style_attribute_tags=["*"], table_cell_widths=True)
    assert page.root.get_element_by_id("ps").get("style") is None
    assert not page.root.xpath("//*[@width]")


@pytest.mark.parametrize("style, hidden", [("display: none", True), ("position:absolute; VISIBILITY: hidden", True),
                                           ("visibility:visible;color:red", False), ("", False)])
def test_an_element_its_style_hid_stays_hidden_when_the_style_goes(style, hidden):
    # slide-out layers a script shows on hover: with the style gone they would stand open over the story
    page, _, _ = run_filter("ignore", f"<html><body><div id=d style='{style}'><img src=/layer.gif></div>"
                                      "<p>Story.</p></body></html>")
    d = page.root.get_element_by_id("d")
    assert d.get("style") is None and (d.get("hidden") is not None) is hidden


def test_meta_kept_when_off():
    page, _, _ = run_filter("ignore", PAGE, meta=False)
    assert len(tags(page, "meta")) == 4 + 1  # the page's four and the script policy


@pytest.mark.parametrize("html, alts", [
    # a tracking pixel for script-less clients: not shown (it was never shown with scripts on)
    ("<p>a<noscript><img src=px.gif></noscript>b</p>", []),
    # a lazy-load fallback beside its lazy twin: one image, the twin with its address and alt
    ("<p><img data-src=x.jpg alt='The river'><noscript><img src=x.jpg></noscript></p>", ["The river"]),
    ("<p><img data-src=x.jpg><noscript><img src=x.jpg></noscript></p>", [None]),
    # with the lazy images left alone, the fallback takes the lazy image's alt
    ("<p><img class=x alt='The river'><noscript><img src=x.jpg></noscript></p>", ["The river"]),
    ("<p><noscript><img src=c.png alt='Chart'></noscript></p>", ["Chart"]),
])
def test_noscript_images_without_alt(html, alts):
    page, _, _ = run_filter("ignore", f"<html><body>{html}</body></html>", non_link_images=False)
    assert [i.get("alt") for i in tags(page, "img")] == alts


@pytest.mark.parametrize("style, kept", [
    ("color:red", None),  # a text colour alone goes: the text inherits its colour with its background
    ("width:300px; background: #036; color:#fff; float:left", "background:#036;color:#fff"),
    ("BACKGROUND-COLOR: black", "background-color:black"),  # a background stays: text coloured for it
    ("background:url(/x.png) #000; margin:0", None),  # an image to load is no colour: it goes
])
def test_style_attributes_keep_a_background_with_its_text_colour(style, kept):
    # Dropped alone, a background leaves text coloured for it (a child's own colour, the
    # site's style sheet) on the page's white
    page, _, _ = run_filter("ignore", f"<html><body><div id=d style='{style}'><span style='color:#eee'>t</span>"
                                      "</div></body></html>")
    assert page.root.get_element_by_id("d").get("style") == kept


@pytest.mark.parametrize("style, kept", [
    ("transition-property:max-height,opacity;pointer-events:none;max-height:0", "max-height:0"),
    ("height: 0px; overflow: hidden; width:900px", "height:0px;overflow:hidden"),
    ("background:#036;color:#fff;max-height:0 !important", "background:#036;color:#fff;max-height:0 !important"),
    ("height:10px;overflow:hidden", None),  # open, if small: its content shows as the page shows it
    ("max-height:0.5em", None),
    ("overflow:hidden;display:flex", None),  # no fold: overflow alone goes with the rest
])
def test_style_attributes_keep_a_fold_of_zero_height(style, kept):
    # A site's drop-down menu folded shut by its style (max-height:0; its style sheet hides what overflows):
    # with the style gone the whole menu stood open in the page above the story.
    page, _, _ = run_filter("ignore", f"<html><body><div id=d style='{style}'><a href=/a>Product</a></div>"
                                      "<p>Story.</p></body></html>")
    assert page.root.get_element_by_id("d").get("style") == kept


ANSWER = ("Typically, you can hire a designer in about 48 hours. For larger teams, timelines may vary; our "
          "matchers work with you to understand your goals, your needs and your team, and match you quickly with "
          "the designer your project needs. Most clients start within the same week.")


@pytest.mark.parametrize("inside, kept", [
    (ANSWER, None),                                                   # an FAQ's answer: opened
    (f"<p>{ANSWER}</p><a href=/more>Read more</a>", None),
    ("".join(f"<a href=/p{i}>Product number {i} of the shop</a>" for i in range(12)), "max-height:0"),  # a menu
    ("3 homes508K 485K 410K 1.00M 380K 525K 440K 425K 499K 741K 830K 480K 450K 270K 630K " * 3, "max-height:0"),
    ("Short answer.", "max-height:0"),
])
def test_a_fold_that_holds_prose_is_opened(inside, kept):
    # An FAQ's answers folded by max-height:0 for its script to open: with the scripts gone nobody could
    # open them (and offline the folded answers were drawn over each other). A fold of links (a menu), a
    # map's markers or a line stay shut.
    page, _, _ = run_filter("ignore", f"<html><body><h2>FAQs</h2><div id=d style='max-height:0'>{inside}</div>"
                                      "<p>Story.</p></body></html>")
    assert page.root.get_element_by_id("d").get("style") == kept


@pytest.mark.parametrize("style, inside, kept", [
    ("max-height:0;overflow:hidden;background:#eee", ANSWER, "background:#eee"),  # an FAQ's answer opens
    ("width:0px;height:0px;padding:4px", f"<p>{ANSWER}</p>", "padding:4px"),  # a window grown by script
    ("max-height:0;overflow:hidden", "<a href=/a>Product</a>", "max-height:0;overflow:hidden"),  # a menu: shut
    ("display:flex;height:270px", ANSWER, "display:flex;height:270px"),  # the page's layout: kept
    ("width:24px;height:24px", "<svg width=100% height=100%></svg>", "width:24px;height:24px"),  # an icon's box
])
def test_kept_style_attributes_open_only_what_a_script_was_to_open(style, inside, kept):
    # With the page's layout kept (a row of flex boxes stays a row: without it an icon drawn at 100%
    # filled the page's width), only a box holding prose that the scripts were to open opens
    html = f"<html><body><div id=d style='{style}'>{inside}</div><p>Story.</p></body></html>"
    page, _, _ = run_filter("ignore", html, style_attributes=False)
    assert page.root.get_element_by_id("d").get("style") == kept
    page, _, _ = run_filter("ignore", html, style_attributes=False, reveal_animated=False)
    assert page.root.get_element_by_id("d").get("style") == style  # nothing is shown that the page hides


def test_a_window_grown_from_nothing_by_script_is_no_icon():
    # A product page's whole story sat in a window the page's script grows from 0 x 0: kept as an icon's
    # box it stayed 0 wide, one word a line, 54,000 px tall
    page, _, _ = run_filter("ignore", f"<html><body><div id=d style='width:0px;height:0px'><p>{ANSWER * 3}</p>"
                                      "</div></body></html>")
    assert page.root.get_element_by_id("d").get("style") is None


@pytest.mark.parametrize("style, kept", [
    ("bottom:35%;height:3rem;width:3rem", "width:3rem;height:3rem"),  # a floating button's box
    ("width: 24px; height: 24px; margin: 4px", "width:24px;height:24px"),
    ("width:300px;height:20px", None),  # a bar, not an icon: the layout goes
    ("width:100%;height:3rem", None),
    ("height:48px", None),  # one side only: no box
])
def test_style_attributes_keep_an_icons_box(style, kept):
    # The icon inside is drawn at 100% of its box: without the box it filled the page's width
    page, _, _ = run_filter("ignore", f"<html><body><div id=d style='{style}'><svg width=100% height=100% "
                                      "viewBox='0 0 24 24'><path d='M0 0h24v24z'/></svg></div></body></html>")
    assert page.root.get_element_by_id("d").get("style") == kept


@pytest.mark.parametrize("svg, size", [
    ("<svg id=s viewBox='0 -6 32 34'><path d='M0 0h1z'/></svg>", ("32", "34")),
    ("<svg id=s viewBox='0,0,24,24'><path d='M0 0h1z'/></svg>", ("24", "24")),
    ("<svg id=s viewBox='0 0 1440 320'><path d='M0 0h1z'/></svg>", (None, None)),  # a drawing as wide as the page
    ("<svg id=s width=100% viewBox='0 0 24 24'><path d='M0 0h1z'/></svg>", ("100%", None)),  # its own size
    ("<svg id=s><path d='M0 0h1z'/></svg>", (None, None)),  # no drawing size to give
])
def test_a_small_svg_without_a_size_gets_its_drawings_size(svg, size):
    # sized by a row or a box whose style went, an SVG icon of 32 by 34 was drawn 1,200 px wide
    page, _, _ = run_filter("ignore", f"<html><body><div style='display:flex;height:60px'>{svg}</div></body></html>")
    s = page.root.get_element_by_id("s")
    assert (s.get("width"), s.get("height")) == size
    page, _, _ = run_filter("ignore", f"<html><body><div>{svg}</div></body></html>", style_attributes=False)
    s = page.root.get_element_by_id("s")
    assert (s.get("width"), s.get("height")) == size  # the layout kept, but a style sheet may not load: the
    # attributes only count where none sizes the drawing


STREAMED = ("<html><body><header><a href=/>Home</a></header>{marker}<template id=\"B:0\"></template>{fallback}"
            "{close}<footer>Foot</footer><script>$RC(\"B:0\",\"S:0\")</script>"
            "<div hidden id=\"S:0\"><main id=real><h1>Full EV cars</h1><p id=story>" + "Electric cars run on batteries. " * 20
            + "</p></main></div></body></html>")


@pytest.mark.parametrize("marker, close", [("<!--$?-->", "<!--/$-->"), ("", "")])
def test_content_streamed_in_a_hidden_segment_is_put_where_its_script_would_put_it(marker, close):
    html = STREAMED.format(marker=marker, close=close, fallback="<main id=skeleton><div class=pulse></div></main>")
    page, state, stats = run_filter("ignore", html)
    body = page.root.find("body")
    kids = [c.get("id") or c.tag for c in body if isinstance(c.tag, str)]
    assert kids[:3] == ["header", "real", "footer"], kids  # in the placeholder's place, the skeleton gone
    assert page.root.find(".//template") is None and page.root.find(".//div[@hidden]") is None
    assert stats[0]["status"] == "ok"
    assert any(e["action"] == "reveal" for e in state.record)


def test_without_markers_a_fallback_with_real_text_is_not_taken_for_a_placeholder():
    fallback = "<section id=other><p>" + "This block is real content of the page, not a skeleton. " * 8 + "</p></section>"
    page, _, _ = run_filter("ignore", STREAMED.format(marker="", close="", fallback=fallback))
    ids = [c.get("id") or c.tag for c in page.root.find("body") if isinstance(c.tag, str)]
    assert ids[:4] == ["header", "real", "other", "footer"], ids


def test_streamed_segments_stay_hidden_when_scripts_are_kept_or_the_setting_is_off():
    html = STREAMED.format(marker="<!--$?-->", close="<!--/$-->", fallback="<main id=skeleton></main>")
    for settings in ({"scripts": False}, {"reveal_streamed": False}):
        page, _, _ = run_filter("ignore", html, **settings)
        assert page.root.find(".//div[@hidden]") is not None and page.root.find(".//template") is not None


def test_a_noscript_copy_of_text_the_page_shows_is_not_shown_twice():
    # wcxb-dev 0219: the article sits in the page and again in a <noscript> (for crawlers): shown in place
    # of the removed script, every paragraph was read twice. A <noscript> with text of its own is shown.
    story = " ".join(f"Paragraph {i} of the story about plumbing systems, water pressure and pipes." for i in range(6))
    html = (f"<html><body><div id=story><p>{story}</p></div><noscript><div id=copy><p>{story}</p></div></noscript>"
            f"<noscript><div id=own><p>{story[::-1]}</p></div></noscript></body></html>")
    page, state, _ = run_filter("ignore", html)
    ids = {el.get("id") for el in page.root.iter() if isinstance(el.tag, str) and el.get("id")}
    assert {"story", "own"} <= ids and "copy" not in ids
    assert any(e.get("reason") == "<noscript> copy of text the page already shows" for e in state.record)


def test_script_attributes_walk_selects_what_the_xpath_selects():
    # The walk passes over an element by its joined values and names: every case the XPath takes
    # must still be found, in document order, and nothing else.
    from pagesieve.engine.document import parse
    from pagesieve.filters.ignore import SCRIPT_ATTRIBUTES, py_script_attributes, script_attributes

    html = ("<html><body onload=x()><a href='JavaScript:go()' title=t>a</a><a href=https://e.org/>b</a>"
            "<iframe srcdoc='<p>x</p>' data-srcdoc=y></iframe><img src='DATA:image/png;base64,AA' alt=i>"
            "<div class=a data-x='vb' style='color:red' ONCLICK=f() onmouseover=g()>c</div><svg><set to='vbscript:x'/>"
            "</svg><p title='at: 9' lang=en>a: b, t: c</p><object data='Data:text/html,x'></object>"
            "<a href='java&#9;script:y()'>d</a><span data-on=x ona=1>e</span><!-- onclick=c() --></body></html>")
    root = parse(html.encode()).root
    expected = [(v.getparent(), v.attrname, str(v)) for v in SCRIPT_ATTRIBUTES(root)]
    assert len(expected) >= 8
    assert script_attributes(root) == expected
    assert py_script_attributes(root) == expected  # the walk where the compiled one is not built


SENTENCES = " ".join(f"This is sentence number {i} of the fallback text." for i in range(40))


@pytest.mark.parametrize("preset", ["declutter", "reader"])
@pytest.mark.parametrize("html", [
    # the rest of ignore is undone (nearly all text is an object's fallback), its script removal is not
    f"<html><body><object><p>{SENTENCES}</p></object><script>alert(1)</script></body></html>",
    # an attribute name lxml cannot look up, holding a script URL
    '<html><body><p>Hello world text</p><i {x="javascript:alert(1)">x</i><script>alert(2)</script></body></html>',
    # markup inside SVG's <style> is live markup to a browser
    "<html><body><p>Hi there</p><svg><style><img src=x onerror=alert(1)></style></svg></body></html>",
    "<html><body><p>Hi there</p><math><style><img src=x onerror=alert(1)></style></math></body></html>",
    "<html><body><p>Hi there</p><svg><title><a href='javascript:alert(1)'>t</a></title></svg></body></html>",
])
def test_no_script_survives_a_revert_or_an_odd_page(preset, html):
    from pagesieve.engine import config as C

    result = C.build_chain(C.load(None).resolve(preset)).process(html.encode())
    out = result.body.decode().lower()
    assert "<script" not in out and "onerror" not in out and "javascript:" not in out
    assert result.content_security_policy == "script-src 'none'; object-src 'none'"
    assert not [f for f in result.filters if f["status"] == "error"]


def test_frames_content_is_not_counted_as_article_text_lost():
    page, _, stats = run_filter("ignore", f"<html><body><iframe src=x><p>{SENTENCES}</p></iframe><p>shown</p></body></html>")
    assert stats[0]["status"] == "ok" and not tags(page, "iframe")


@pytest.mark.parametrize("settings, policy", [
    ({}, "script-src 'none'; object-src 'none'"),
    ({"embeds": False}, "script-src 'none'"),
    ({"scripts": False}, None),
])
def test_fail_safe_policy_follows_the_settings(settings, policy):
    from pagesieve.core import settings as S
    from pagesieve.filters import FILTERS

    cls = FILTERS["ignore"]
    assert cls.fail_safe_policy(S.build(cls.Settings, settings, "filters.ignore")) == policy


def test_a_piece_streamed_inside_another_piece_is_moved_too():
    # a product page's details are a boundary inside the boundary that holds the page's body: the outer
    # piece brings the inner placeholder with it, and the inner piece goes there, not into a removed copy
    html = ("<html><body><header><a href=/>Home</a></header><!--$?--><template id=\"B:0\"></template>"
            "<div class=skeleton></div><!--/$--><footer>Foot</footer>"
            "<div hidden id=\"S:0\"><main id=outer><h1>Black edition</h1><!--$?--><template id=\"B:1\"></template>"
            "<p class=pulse></p><!--/$--><p>Price</p></main></div>"
            "<script>$RC(\"B:0\",\"S:0\")</script>"
            "<div hidden id=\"S:1\"><section id=details><p id=story>" + "This shake delivers protein and fibre. " * 20
            + "</p></section></div><script>$RC(\"B:1\",\"S:1\")</script>"
            "<div hidden id=\"S:2\"><span id=small>Ships today</span></div><script>$RS(\"S:2\",\"P:2\")</script>"
            "</body></html>").replace("<p>Price</p>", "<template id=\"P:2\"></template><p>Price</p>")
    page, state, stats = run_filter("ignore", html)
    body = page.root.find("body")
    assert [c.get("id") or c.tag for c in body if isinstance(c.tag, str)][:3] == ["header", "outer", "footer"]
    main = page.root.get_element_by_id("outer")
    assert [c.get("id") or c.tag for c in main if isinstance(c.tag, str)] == ["h1", "details", "small", "p"]
    assert page.root.find(".//template") is None and page.root.find(".//div[@hidden]") is None
    assert page.root.find(".//*[@class='pulse']") is None
    assert sum(e["action"] == "reveal" for e in state.record) == 3


#: <meta> and style attributes on both sides of the tests, with the cases a translate table gets wrong: letters
#: outside the mapped ones, a space XPath's translate drops, a non-ASCII look-alike (the Kelvin sign).
META_CASES = ("<meta charset=x>", "<meta charset>", "<meta name=VIEWPORT>", "<meta name=ViewPort>",
              "<meta name=' viewport'>", "<meta name=viewports>", "<meta name=Color-Scheme>",
              "<meta name=COLOR-SCHEME>", "<meta name=color_scheme>", "<meta name=description>", "<meta>",
              "<meta http-equiv=Content-Type>", "<meta http-equiv=CONTENT-TYPE>", "<meta http-equiv=content-typ>",
              "<meta http-equiv=Content-Security-Policy>", "<meta http-equiv=refresh>",
              "<meta http-equiv='content-security-policy '>", "<meta name=viewport http-equiv=x>",
              "<meta name=\u212aviewport>", "<meta http-equiv=\u212acontent-type>")
STYLE_CASES = ("display:none", "DISPLAY : NONE", "display: none !important", "Display:None", "displaynone",
               "visibility:hidden", "VISIBILITY: HIDDEN", "visibility :hidden;color:red", "visibility:visible",
               "dis play:no ne", "display:\u212anone", "", "color:red", "DISPLAY:NONE", "display:block")


def test_kept_meta_and_hidden_style_are_the_xpaths():
    """ignore's loops test each <meta> and styled element in Python; the answers are the XPaths' (which
    stay the definition), on the cases above and on every <meta> and style attribute of the corpus pages."""
    from lxml import etree

    from pagesieve.engine.document import parse
    from pagesieve.filters.ignore import HIDDEN_STYLE, KEPT_META, hidden_style, kept_meta
    from tests.conftest import EXTRACTION

    head = parse(("<html><head>" + "".join(META_CASES) + "</head><body>"
                  + "".join(f"<p style='{s}'>x</p>" for s in STYLE_CASES) + "</body></html>").encode()).root
    roots = [head] + [parse(p.read_bytes()).root for p in sorted(EXTRACTION.glob("*/pages/*.html"))[::7]]
    metas = styled = 0
    for root in roots:
        for meta in root.iter("meta"):
            assert kept_meta(meta) is bool(KEPT_META(meta)), etree.tostring(meta)
            metas += 1
        for el in root.iter():
            if isinstance(el.tag, str) and el.get("style") is not None:
                assert hidden_style(el.get("style")) is HIDDEN_STYLE(el), el.get("style")
                styled += 1
    assert sum(kept_meta(m) for m in head.iter("meta")) == 10
    assert sum(hidden_style(s) for s in STYLE_CASES) == 8 and metas > 100 and styled > 1000


NO_SCRIPT_SHEET = """<html><head><title>t</title><noscript><style>.gallery{opacity:1 !important}
.lazyContainer > img { display: none;} /* the plain copy shows instead */ @media (min-width: 1px) {
img[alt='The falls'] { visibility: hidden } } img.pixel{display:none}</style></noscript></head><body>
<p>Our tours around the island, with pictures of each stop.</p>
<span class=lazyContainer><img class=lazyload alt="Kerid crater" src="data:image/gif;base64,R0lGODlhAQABAAAAACw="
 data-src="https://example.org/kerid.jpg" width=883 height=588><noscript><img alt="Kerid crater"
 src="https://example.org/kerid.jpg"></noscript></span>
<img data-lazy="https://example.org/falls.jpg" alt="The falls"><img class=pixel src="https://t.example.org/p.gif" width=1 height=1>
<div class=gallery><p>Gallery</p></div></body></html>"""


def test_a_sheet_for_clients_without_scripts_does_not_hide_the_pictures_given_their_address():
    # wcxb-dev 0075: <noscript><style>.lazyContainer > img {display:none}</style> hides the lazy image
    # because the <noscript> copy beside it shows instead. The lazy image gets its address and the copy
    # goes: kept whole, the sheet hid the one copy left, and the story showed no picture at all.
    from pagesieve.engine.output import OutputSettings, render

    for preset_styles in (False, True):
        page, state, _ = run_filter("ignore", NO_SCRIPT_SHEET, styles=preset_styles, non_link_images=False)
        html = render(page, state, OutputSettings())[0].decode()
        if preset_styles:
            assert "<style>" not in html.split("<body")[0].replace('<style class="pagesieve', "")
            continue
        sheet = next(s for s in page.root.iter("style") if ".gallery" in (s.text or ""))
        assert sheet.getparent().tag == "head"  # in place of its <noscript>, still styling the page
        assert "lazyContainer" not in sheet.text and "The falls" not in sheet.text
        assert "opacity:1" in sheet.text and "img.pixel" in sheet.text  # what shows content, a pixel hidden
        assert html.count("https://example.org/kerid.jpg") == 1 and "https://example.org/falls.jpg" in html
        assert html.count(".gallery{opacity:1") == 1  # not put back a second time when the page is written


def test_sheets_for_clients_without_scripts_are_not_put_back_when_noscript_content_is_not_shown():
    from pagesieve.engine.output import OutputSettings, render

    page, state, _ = run_filter("ignore", NO_SCRIPT_SHEET, show_noscript=False, non_link_images=False)
    assert ".gallery" not in render(page, state, OutputSettings())[0].decode()


def test_the_rules_of_a_style_sheet_are_found_in_blocks_and_past_comments():
    from pagesieve.analysis.noscript_styles import rules

    css = "@import url(a.css); a{color:red} @media (x) { .b > img {display:none} @supports (y) {c{d:e}} } f{}"
    assert [(sel, decl.strip()) for _, _, sel, decl in rules(css)] == [
        ("a", "color:red"), (".b > img", "display:none"), ("c", "d:e"), ("f", "")]
    start, end, _, _ = rules(css)[1]
    assert css[start:end].strip() == ".b > img {display:none}"


def test_the_rules_of_a_style_sheet_are_found_however_deep_its_blocks_nest():
    # one pass over the text: a sheet of 3,000 nested @media blocks (a recursive reading ran out of
    # stack) and one of 200,000 declarations outside any block
    from pagesieve.analysis.noscript_styles import rules

    deep = "@media x{" * 3000 + "img{display:none}" + "}" * 3000
    assert [(sel, decl) for _, _, sel, decl in rules(deep)] == [("img", "display:none")]
    assert rules("a:b;" * 200_000) == []


def test_only_a_bounded_number_of_hiding_rules_is_matched_against_the_page():
    from pagesieve.analysis import noscript_styles

    sheet = "".join(f".x{i} img{{display:none}}" for i in range(500)) + ".lazy{display:none}"
    html = (f"<html><head><noscript><style>{sheet}</style></noscript></head><body><p>Story text here.</p>"
            "<img class=lazy data-src=https://example.org/a.jpg alt=a></body></html>")
    page, _, _ = run_filter("ignore", html, non_link_images=False)
    style = next(s for s in page.root.iter("style") if ".x0 img" in (s.text or ""))
    assert ".lazy{display:none}" in style.text  # past the bound: left as it was
    assert noscript_styles.MAX_RULES < 500
