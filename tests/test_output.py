import pytest

from pagesieve.engine.document import parse
from pagesieve.engine.output import OutputSettings, render, text_shown, to_text, words_shown


def text(html, **kw):
    return to_text(parse(html.encode()).body, OutputSettings(format="text", **kw))


def test_blocks_on_their_own_lines():
    assert text("<h1>Title</h1><p>One  two\n three</p><ul><li>a</li>\n<li>b</li></ul><p>end</p>") == \
        "Title\n\nOne two three\n\n• a\n• b\n\nend"


@pytest.mark.parametrize("limit, expected", [
    (1, "a\nb"),
    (2, "a\n\nb"),
    (3, "a\n\n\nb"),
])
def test_line_break_limit(limit, expected):
    assert text("<p>a" + "<br>" * 6 + "b</p>", max_line_breaks=limit) == expected


def test_no_limit_keeps_breaks():
    assert text("<p>a" + "<br>" * 4 + "b</p>", limit_line_breaks=False) == "a\n\n\n\nb"


def test_scripts_styles_and_comments_are_not_text():
    assert text("<p>a<script>var x</script><style>p{}</style><!-- c -->b</p>") == "ab"


def test_the_fallback_of_a_video_an_audio_or_a_canvas_is_not_text():
    # What a browser that plays them never shows (Chromium's innerText leaves it out): a service page's eight
    # carousel videos read "Your browser does not support the video tag." eight times.
    html = ("<p>one</p><ul><li><video poster=p.webp><source src=v.mp4>Your browser does not support the video tag."
            "</video></li></ul><audio src=a.mp3>No audio here</audio><canvas>No canvas</canvas><p>two</p>")
    assert text(html) == "one\n\ntwo"
    assert words_shown(parse(f"<body>{html}</body>".encode()).body) == 2


def test_a_line_of_zero_width_characters_is_no_line():
    # A page's &zwj; between its blocks read as 49 lines holding nothing a listener hears; inside a word or an
    # emoji sequence the joiner stays.
    html = "<p>one</p>\u200d<div>&zwj;</div><p>\u200b\ufeff</p><p>fam\u200dily \U0001F468\u200d\U0001F469</p><p>two</p>"
    assert text(html) == "one\n\nfam\u200dily \U0001F468\u200d\U0001F469\n\ntwo"


def test_a_fields_label_goes_with_the_field_but_an_options_label_is_read():
    # A comment form read "Name (required)", "Email (will not be published) (required)" with nothing to fill in;
    # a checkbox's label says what the option is (a checklist's item), and reads as text.
    html = ("<h2>Leave a response</h2><form><p><input id=author><label for=author>Name (required)</label></p>"
            "<p><label>Email <input type=email name=e></label></p><p><label for=c>Country</label>"
            "<select id=c><option>France</option></select></p><textarea id=t></textarea><label for=t>Comment</label>"
            "<p><input type=checkbox id=k><label for=k>Pack the tent</label></p>"
            "<p><label><input type=radio name=r> Weekly digest</label></p></form><label>Price</label> 12 EUR")
    assert text(html) == "Leave a response\n\nPack the tent\n\nWeekly digest\n\nPrice 12 EUR"


def test_a_permalink_glyph_is_not_read_but_a_link_with_words_or_a_footnote_number_is():
    # Documentation headings read "Declare Models¶" and "§Examples"; a footnote's "[11]" and a link to a section
    # by its name say something.
    html = ('<h2>Declare models<a class=headerlink href="#declare">\u00b6</a></h2><h3><a href="#ex">\u00a7</a>Examples</h3>'
            '<p>Text<sup><a href="#fn11">[11]</a></sup>, see <a href="#ex">the examples</a>.</p>'
            '<p>Note <a href="#back">^</a> <a href="https://example.org/">\u00a7</a></p>')
    assert text(html) == "Declare models\n\nExamples\n\nText[11], see the examples.\n\nNote \u00a7"


def test_a_link_over_the_menus_to_the_content_is_not_read_but_a_link_to_a_section_is():
    # "Skip to content" was the first line a listener heard on many pages: text is read from the top, with
    # nowhere to jump. A table of contents (links to sections) and a link in a sentence are read.
    story = "<p>" + "Story text of the page. " * 10 + "</p>"
    html = (f'<div class=skip><a href="#content">Skip to content</a></div><ul><li><a href="/">Home</a></li></ul>'
            f'<div id=content><main><ul><li><a href="#part">Part one</a></li></ul>{story}'
            f'<h2 id=part>Part one</h2><p>See <a href="#content">the top</a>.</p></main></div>'
            f'<p><a href="#more">Skip to more content</a></p><div id=more>{story * 3}</div>')
    out = text(html)
    assert "Skip to" not in out and out.startswith("• Home")
    assert "• Part one" in out and "See the top." in out


def test_alt_text_in_brackets_when_asked():
    html = '<p>see <img src=x alt="a cat"> here</p>'
    assert text(html) == "see here"
    assert text(html, image_alt_in_text=True) == "see [a cat] here"


def test_pre_keeps_its_lines():
    assert text("<p>x</p><pre>a\n  b</pre>") == "x\n\na\n  b"


def test_a_style_inside_pre_is_not_text_but_its_tail_is():
    # CSS-in-JS code blocks put a <style> in each sample (wcxb-dev 0681: the CSS came out as code)
    html = "<pre><code><style>.c1{color:red}</style><span class=c1>1</span>pip<script>x()</script> install</code></pre>"
    assert text(html) == "1pip install"


def test_render_text_has_title_and_is_utf8_whatever_the_page_encoding():
    page = parse("<title>Été</title><p>café</p>".encode("cp1252"), declared_encoding="windows-1252")
    body, media = render(page, None, OutputSettings(format="text"))
    assert media == "text/plain"
    assert body.decode("utf-8") == "Été\n\ncafé\n"


def test_text_output_has_no_character_references_for_characters_the_page_charset_lacks():
    """a cp1252 page holding "ć" (from &#263;) gave "&#263;" in text output."""
    page = parse("<title>Kraków</title><p>Dobranoc, Ko&#263;ma &amp; co.</p>".encode("cp1252"),
                 declared_encoding="windows-1252")
    body, _ = render(page, None, OutputSettings(format="text"))
    assert body.decode("utf-8") == "Kraków\n\nDobranoc, Koćma & co.\n"
    assert b"&#" not in body


def test_chain_result_says_utf8_for_text_output():
    from pagesieve.engine import config as C

    spec = C.load().resolve("declutter", {"output": {"format": "text"}})
    result = C.build_chain(spec).process("<p>Ko&#263;ma</p>".encode("cp1252"), declared_encoding="windows-1252")
    assert (result.media_type, result.encoding) == ("text/plain", "utf-8")
    assert "Koćma" in result.body.decode("utf-8")


def test_text_of_a_page_nested_2000_levels_deep():
    html = "<p>top</p>" + "<div>" * 2000 + "<p>deep text</p>" + "</div>" * 2000 + "<p>after</p>"
    assert text(html) == "top\n\ndeep text\n\nafter"


@pytest.mark.parametrize("text_title, first_line", [(True, "My title"), (False, "Body text.")])
def test_text_title_setting(text_title, first_line):
    page = parse(b"<html><head><title>My title</title></head><body><p>Body text.</p></body></html>")
    body, _ = render(page, None, OutputSettings(format="text", text_title=text_title))
    assert body.decode().splitlines()[0] == first_line


def test_words_shown_counts_what_the_page_reads_without_scripts():
    body = parse(b"<body><p>one</p><p>two</p><noscript><p>three four</p></noscript><script>no words</script>"
                 b"<template><p>inert</p></template><select><option>menu</option></select>"
                 b"<p>it's 2 <b>x</b>y</p></body>").body
    # blocks are separate words without a space between them; <noscript> counted; the rest not read out
    assert words_shown(body) == 9  # one two three four it s 2 x y
    assert words_shown(body.find(".//template")) == words_shown(body.find(".//script")) == 0
    assert words_shown(body.find(".//b")) == 1  # the subtree alone, not its tail


def test_text_shown_leaves_out_what_no_reader_gets_in_document_order():
    a = parse(b"<body><a>Get <b>started</b><svg><title>Docs</title></svg> now<!-- c --> here"
              b"<select><option>o</option></select>!</a></body>").body.find(".//a")
    assert text_shown(a) == "Get started now here!"
    assert text_shown(parse(b"<body><p>  one\n two </p></body>").body.find("p")) == "one two"


def test_links_side_by_side_in_the_markup_are_separate_words():
    # a footer's links set apart by the page's style sheet only: "comparisonsDesktop" is no word
    assert text("<p><a href=/c>Product comparisons</a><a href=/d>Desktop lookbook</a></p>") == \
        "Product comparisons Desktop lookbook"
    assert text("<p>(<a href=/x>x</a>), <b>W</b>ord <a href=/a>A</a>-<a href=/b>B</a></p>") == "(x), Word A-B"
    assert text("<p><a href=/a>A</a><!-- item --><a href=/b>B</a><!-- x -->C<a href=/c>D</a></p>") == "A BCD"


def _contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two #rrggbb colours."""
    def lum(c: str) -> float:
        rgb = [int(c[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        lin = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in rgb]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_every_reading_theme_has_enhanced_contrast():
    from pagesieve.engine.output import THEMES

    assert set(THEMES) == {"light", "dark", "sepia", "contrast"}
    for name, (text_color, background, link) in THEMES.items():
        assert _contrast(text_color, background) >= 7, name
        assert _contrast(link, background) >= 7, name
    assert _contrast("#767676", "#ffffff") < 7  # the measure does fail a grey on white


def _styles(html: bytes) -> list:
    return parse(html).root.xpath("//style[@class='pagesieve-reader-look']")


def test_the_reading_look_goes_into_the_reader_view_only():
    page = b"<html><head><title>T</title></head><body><p>Text</p></body></html>"
    plain, _ = render(parse(page), None, OutputSettings())
    assert _styles(plain) == []
    looked, media = render(parse(page), None, OutputSettings(reader_view=True, text_size=150, line_height=1.8,
                                                             width=60, colors="sepia"))
    css = _styles(looked)[0].text
    assert media == "text/html"
    assert "html{font-size:150% !important}" in css and "line-height:1.8 !important" in css
    assert "max-width:60ch !important" in css and "#f4ecd8" in css and "prefers-color-scheme" not in css
    auto = _styles(render(parse(page), None, OutputSettings(reader_view=True))[0])[0].text
    assert "@media (prefers-color-scheme: dark){" in auto and "#ffffff" in auto and "#121212" in auto
    spoken, media = render(parse(page), None, OutputSettings(reader_view=True, format="text"))
    assert media == "text/plain" and b"font-size" not in spoken


def test_the_reader_preset_draws_the_reading_look(cfg):
    assert cfg.resolve("reader").output.reader_view is True
    assert cfg.resolve("declutter").output.reader_view is False


# Inline items side by side with nothing between them in the markup are two words; a word split across
# inline tags stays one (its rest is text, or one styled letter), and so do a highlighter's spans in code.
@pytest.mark.parametrize("html, expected", [
    ("<p><span class=rep>55.4k</span><span class=badge>24</span><span class=sr>24 gold badges</span></p>",
     "55.4k 24 24 gold badges"),
    ("<p><span>Joe</span><span>2011-02-12</span></p>", "Joe 2011-02-12"),
    ("<p><b>W</b>ord and <b>Wo</b>rd</p>", "Word and Word"),
    ("<p><span class=drop>T</span><span>he river</span></p>", "The river"),
    ("<p><span>ab</span><span>c</span></p>", "abc"),  # one character: below ITEM_MIN_CHARS
    ("<p><span>ab</span><span>cd</span></p>", "ab cd"),
    ("<p><span>ab</span> <span>cd</span></p>", "ab cd"),
    ("<p><span>ab.</span><span>cd</span></p>", "ab.cd"),  # no letter or digit glued across
    ("<p><code><span class=n>foo</span><span class=n>bar</span></code></p>", "foobar"),
    ("<p><span>ab</span><!-- c --><span>cd</span></p>", "ab cd"),
])
def test_inline_items_side_by_side_are_separate_words(html, expected):
    assert text(html) == expected


@pytest.mark.parametrize("html, expected", [
    ("<ul><li>One</li><li><img src=a.png></li><li>Two</li></ul>", "• One\n• Two"),
    ("<ul><li><p>A paragraph in an item.</p></li></ul>", "• A paragraph in an item."),
    ("<ul><li><a href=/x><img src=a.png></a></li></ul><p>After</p>", "After"),
])
def test_a_bullet_goes_with_its_item_text_and_never_alone(html, expected):
    assert text(html) == expected


@pytest.mark.parametrize("form, read", [
    ("<form><label>Email <input name=e></label><label>Password <input type=password name=p></label>"
     "<label><input type=checkbox> Remember me</label><button>Log in</button></form>", False),
    # no password: the form's text stays (a field's own label goes with the field, as in any form)
    ("<form><p>Search the archive</p><label>Search <input type=search name=q></label></form>", True),
    (f"<form><input type=password><p>{'Long form text. ' * 40}</p></form>", True),  # a page wrapped in a form
])
def test_a_login_box_is_not_read(form, read):
    out = text(f"<p>Story.</p>{form}")
    assert out.startswith("Story.") and (out != "Story.") is read
    assert text(f"<p>Story.</p>{form}", login_forms=True) != "Story."  # the switch: read as the page has it


def test_a_login_box_holding_blocks_read_elsewhere_is_read():
    # the accessibility step's read-later owner inside the form: skipping the form would lose what it owns
    html = ("<main><p>Story.</p><form><input type=password> Password"
            "<div class=pagesieve-read-later aria-owns=posts></div></form></main><div id=posts><p>The posts.</p></div>")
    assert "The posts." in text(html)


def test_style_sheets_inside_removed_blocks_stay_in_the_page():
    from pagesieve.engine.chain import Chain
    from pagesieve.engine.config import SafetySettings
    from pagesieve.filters.base import Filter

    class DropHeader(Filter):
        name = "drop_header"

        def apply(self, page, ctx) -> None:
            ctx.remove(page.root.get_element_by_id("hdr"), "test: the header goes")
            ctx.remove(page.root.get_element_by_id("gone"), "test: a style sheet removed for itself")

    html = ("<html><head><title>t</title></head><body><header id=hdr><button><style>.icon{width:24px}</style>"
            "<svg class=icon></svg></button><link rel=stylesheet href=/h.css><link rel=author href=/me></header>"
            "<style id=gone>.x{color:red}</style><main><p>Story <svg class=icon></svg></p></main></body></html>")
    res = Chain([DropHeader(None)], OutputSettings(), SafetySettings(), check=False).process(html.encode())
    out = res.body.decode()
    head = out[:out.index("<body")]
    assert ".icon{width:24px}" in head and 'href="/h.css"' in head  # the header's style sheets, in the head
    assert ".x{color:red}" not in out and 'rel="author"' not in out and "<header" not in out


@pytest.mark.parametrize("html, expected", [
    # a row that is one line of text keeps its cells on it, as a browser shows them side by side
    ("<table><tr><td>Revision Date</td><td>Revision Details</td></tr><tr><td>Size</td><td>12</td></tr></table>",
     "Revision Date Revision Details\nSize 12"),
    # a label first in its row heads the first line of the cell after it
    ("<table><tr><td><b>09/13/06</b></td><td><b>Publication 1001, column 3</b><ul><li>Changed.</li></ul></td></tr>"
     "</table>", "09/13/06 Publication 1001, column 3\n\n• Changed."),
    # a row of long cells or cells that are blocks keeps a line each
    ("<table><tr><td><p>First block.</p></td><td><p>Second block.</p></td></tr></table>",
     "First block.\n\nSecond block."),
])
def test_a_table_row_reads_as_it_shows(html, expected):
    assert text(html) == expected
