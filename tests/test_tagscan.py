"""The count of attributes per start tag before parsing (pagesieve.core.tagscan): the compiled scan and
the Python one give the same answer on every kind of markup, it counts what the parsers will build,
and a page over the limit is refused before it is parsed."""

from __future__ import annotations

import random

import pytest

from pagesieve.core import tagscan
from pagesieve.core.errors import UnparsableError
from pagesieve.engine import document
from tests.conftest import EXTRACTION

try:
    from pagesieve.core._tagscan import scan as compiled_scan
except ImportError:  # not built here
    compiled_scan = None

READINGS = (tagscan.LIBXML2, tagscan.BROWSER, tagscan.MODES)
compiled = pytest.mark.skipif(compiled_scan is None, reason="the compiled scan is not built (setup.py build_ext)")

#: (markup, most attributes in libxml2's reading, in the browser's): hand-checked against the tokenizer's states.
HOSTILE = [
    ('<img a0=">" a1=">" a2>', 3, 3),  # a > inside a quoted value ends no tag
    ("<img a='>' b c>", 3, 3),
    ('<img a="x', 0, 0),  # an unclosed quote: the page ends inside the tag, which is no tag
    ("<img a b", 0, 0),
    ("<!-- <img a b c> --><p x>", 1, 1),  # comments hold no tags
    ("<!--> <img a b> -->", 2, 2),  # ... but "<!-->" is a whole (empty) comment
    ("<!---> <img a b c> -->", 3, 3),
    ("<!-- a --!> <img a b>", 2, 2),
    ('<script>"<img a b c>"</script><p x>', 1, 1),  # script content is text
    ("<script><!--<script></script><img a b c></script><p x y>", 2, 2),  # a double-escaped script goes on
    ("<script><!-- <script> --> <i a b c> </script>", 0, 0),
    ('<script>x</script a="</script>"><img a b>', 2, 2),  # an end tag's quoted value hides a > too
    ("<SCRIPT>x</ScRiPt\t><b a b>", 2, 2),
    ("<title><img a b></TITLE ><i a b c>", 3, 3),
    ("<textarea><b a b c></textarea/>", 0, 0),
    ("<style>p{}</style x><b a b c>", 3, 3),
    ("<p><plaintext><img a b>", 0, 0),  # the rest is text
    ("<noscript><img a b c></noscript>", 3, 3),  # libxml2 and lexbor (scripting off) parse it as markup
    ("<img a/b/c>", 3, 3),  # / between attributes
    ("<img a b c/>", 3, 3),
    ("<img a=1 a=2 a=3>", 3, 3),  # duplicates are compared all the same
    ('<img a="x"b c>', 3, 3),
    ("<img ==x y>", 2, 2),
    ("</p a b c d e><i a>", 1, 1),  # end tags' attributes are not counted
    ('<!doctype html "<img a b c>"><p a>', 1, 1),  # a doctype ends at its first >
    ("<?php <img a b c> ?><p a>", 1, 1),
    ("x < y > <z a b>", 2, 2),
    ("<svg><style><img a b c d></style></svg>", 0, 4),  # inside SVG a browser reads <style> as markup
    ("<svg/><style><img a b c></style>", 0, 0),
    ("<math><svg></svg><style><i a b></style></math>", 0, 2),
    ("<svg><![CDATA[ > <img a b c> ]]></svg><p q>", 3, 1),  # CDATA only in foreign content
    ("<p><![CDATA[ x > <img a b c> ]]>", 3, 3),
]


#: (markup, most attributes in libxml2's reading, in the browser's, in the insertion modes' reading):
#: a start tag that the tree builder ignores is not raw text, so what follows it is markup.
MODES = [
    ("<select><style><img a b c></style></select>", 0, 0, 3),  # an older browser's select ignores <style>...
    ("<select><style><img " + " ".join(f"a{i}" for i in range(1500)) + "></style>", 0, 0, 1500),
    ("<select><title><i a b></title>", 0, 0, 2),
    ("<select><xmp><i a b></xmp><iframe><i a b c></iframe>", 0, 0, 3),
    ("<select><noembed><i a b></noembed><noframes><i a b c></noframes>", 0, 0, 3),
    ("<select><plaintext><i a b>", 0, 0, 2),
    ("<select><script><i a b></script></select>", 0, 0, 0),  # ...not <script>
    ("<select><textarea><i a b></textarea>", 0, 0, 0),  # <textarea> closes the select
    ("<select></select><style><i a b></style>", 0, 0, 0),
    ("<select><input><style><i a b></style>", 0, 0, 0),
    ("<select><select><style><i a b></style>", 0, 0, 0),  # so does a second <select>
    ("<select><template><style><i a b></style></template><style><i a b c></style>", 0, 0, 3),
    ("<template><select></template><style><i a b></style>", 0, 0, 0),
    ("<select><svg><style><i a b></style></svg>", 0, 2, 2),  # <svg> in a select: ignored, or SVG
    ("<frameset><style><frame a b></style>", 0, 0, 2),  # in a frameset only <noframes> is raw text
    ("<frameset><script><frame a b></script><textarea><frame a b c>", 0, 0, 3),
    ("<frameset><noframes><frame a b></noframes><frame c>", 1, 1, 1),
    ("<frameset><svg><style><frame a b>", 0, 2, 2),
    ("<frameset><![CDATA[ > <frame a b> ]]>", 2, 2, 2),
    ("<head><template><frameset></template></head><frameset><style><frame a b>", 0, 0, 2),
    ("<head><template><frameset></template></head><style><frame a b>", 0, 0, 0),  # ignored in a template
    ("<svg><p><frameset></svg><style><frame a b>", 0, 0, 2),  # <p> leaves the SVG, the frameset counts
    ("<p>x</p><frameset><style><frame a b>", 0, 0, 2),  # too late for a frameset: counted all the same
]


def scans():
    out = [tagscan.py_scan]
    if compiled_scan is not None:
        out.append(compiled_scan)
    return out


@pytest.mark.parametrize("markup,libxml2,browser", HOSTILE)
def test_hostile_markup_counts_as_the_tokenizer_reads_it(markup, libxml2, browser):
    for scan in scans():
        assert scan(markup, False, 0)[0] == libxml2, (scan, markup)
        saw = scan(markup, False, 0)[2]
        assert (scan(markup, True, saw)[0] if saw >= 0 else libxml2) == browser, (scan, markup)
    assert tagscan.most_attributes(markup)[0] == max(libxml2, browser)


@pytest.mark.parametrize("markup,libxml2,browser,modes", MODES)
def test_start_tags_the_tree_builder_ignores_are_not_raw_text(markup, libxml2, browser, modes):
    for scan in scans():
        assert scan(markup, tagscan.LIBXML2, 0)[0] == libxml2, (scan, markup)
        saw = scan(markup, tagscan.LIBXML2, 0)[2]
        assert (scan(markup, tagscan.BROWSER, saw)[0] if saw >= 0 else libxml2) == browser, (scan, markup)
        assert scan(markup, tagscan.MODES, 0)[0] == modes, (scan, markup)
    assert tagscan.most_attributes(markup)[0] == max(libxml2, browser, modes)


@pytest.mark.parametrize("markup", [m for m, *counts in HOSTILE + MODES if max(counts) <= document.MAX_ATTRIBUTES])
def test_the_count_is_never_below_what_the_parsers_build(markup):
    """libxml2's tree (and lexbor's, where the page is read the HTML5 way) holds no element with more
    attributes than the count (fewer where duplicates were dropped)."""
    page = document.parse(markup.encode(), declared_html=True)
    built = max(len(el.attrib) for el in page.root.iter() if isinstance(el.tag, str))
    assert built <= tagscan.most_attributes(markup)[0], markup


@compiled
def test_both_scans_agree_on_random_markup():
    rng = random.Random(7)
    pieces = ["<", ">", "/", '"', "'", "=", " ", "\n", "-", "!", "?", "a", "B", "script", "style", "svg", "math",
              "</svg>", "<!--", "-->", "--!>", "[CDATA[", "]]>", "title", "é", "\u4e2d", "\U0001f600",
              "select", "SELECT", "template", "frameset", "input", "textarea", "noframes", "<select>", "</select>",
              "<template>", "</template>", "<frameset>"]
    for _ in range(20_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 40)))
        for reading in READINGS:
            assert compiled_scan(text, reading, 0) == tagscan.py_scan(text, reading, 0), (text, reading)


def corpus_texts(per_corpus: int | None):
    rng = random.Random(5)
    for corpus in sorted(EXTRACTION.glob("*/pages")):
        found = sorted(corpus.glob("*.html"))
        for path in found if per_corpus is None else rng.sample(found, min(per_corpus, len(found))):
            data = path.read_bytes()
            encoding, text = document._detect(data, None)
            yield path, document.clean_text(text if text is not None else data.decode(encoding, errors="replace"))


def assert_agree_on_corpus(per_corpus: int | None) -> None:
    seen = 0
    for path, text in corpus_texts(per_corpus):
        for reading in READINGS:
            assert compiled_scan(text, reading, 0) == tagscan.py_scan(text, reading, 0), (path, reading)
        assert tagscan.most_attributes(text)[0] <= document.MAX_ATTRIBUTES, path  # no real page is refused
        seen += 1
    if not seen:
        pytest.skip(f"no corpus pages under {EXTRACTION}")


@compiled
def test_both_scans_agree_on_a_sample_of_every_corpus():
    assert_agree_on_corpus(6)


@compiled
@pytest.mark.slow
def test_both_scans_agree_on_every_corpus_page():
    assert_agree_on_corpus(None)


def many(n: int, quoted: bool = False) -> str:
    return " ".join(f'a{i}=">"' if quoted else f"a{i}" for i in range(n))


@pytest.mark.parametrize("body,refused", [
    (f"<p>story</p><img {many(document.MAX_ATTRIBUTES)}>", False),
    (f"<p>story</p><img {many(document.MAX_ATTRIBUTES + 1)}>", True),
    (f"<p>story</p><img {many(document.MAX_ATTRIBUTES + 1, quoted=True)}>", True),
    (f"<p>story</p><noscript><img {many(document.MAX_ATTRIBUTES + 1)}></noscript>", True),
    (f"<p>story</p><svg><style><img {many(document.MAX_ATTRIBUTES + 1)}></style></svg>", True),
    (f"<p>story</p><select><style><img {many(document.MAX_ATTRIBUTES + 1)}></style></select>", True),
    (f"<p>story</p><select><script>'<img {many(document.MAX_ATTRIBUTES + 1)}>'</script></select>", False),
    (f"<p>story</p><script>'<img {many(document.MAX_ATTRIBUTES + 1)}>'</script>", False),
    (f"<p>story</p><!-- <img {many(document.MAX_ATTRIBUTES + 1)}> -->", False),
])
def test_a_tag_over_the_limit_refuses_the_page_before_parsing(body, refused):
    data = f"<!doctype html><html><head><title>t</title></head><body>{body}</body></html>".encode()
    if refused:
        with pytest.raises(UnparsableError, match=f"a tag with {document.MAX_ATTRIBUTES + 1} attributes "
                                                  f"\\(more than {document.MAX_ATTRIBUTES}\\)") as err:
            document.parse(data)
        assert err.value.reason == "unparsable"
    else:
        assert "story" in document.parse(data).body.text_content()


def test_a_long_tag_after_a_frameset_is_refused_before_the_html5_parse(monkeypatch):
    """In a frameset the tree builder ignores ``<style>``, so the tag after it is markup to lexbor: read
    again the HTML5 way (the page has no body), its 20,000 attributes took lexbor 1.2 s, and it was
    refused only afterwards."""
    calls = []
    monkeypatch.setattr(document.html5_markup, "serialize", lambda text: calls.append(text))
    data = f"<html><head></head><frameset><style><frame {many(20_000)}></style></frameset></html>".encode()
    with pytest.raises(UnparsableError, match="a tag with 20000 attributes"):
        document.parse(data)
    assert calls == []


def test_a_body_tag_inside_a_script_is_not_parsed_for_its_attributes():
    """The second-<body> merge finds "<body" with a regular expression, in scripts too: one with
    80,000 attributes there took 3.4 s to read; it is skipped, the real second tag still counts."""
    data = (f"<body><p>story</p><script>'<body {many(80_000)}>'</script><body bgcolor=red>").encode()
    page = document.parse(data)
    assert dict(page.body.attrib) == {"bgcolor": "red"}
    assert "a79999" in page.body.find("script").text  # the script's text, as it was


@pytest.mark.parametrize("markup, open_at_end", [
    ("<p>a</p><img src=x>", False),
    ("<td id=\"x><p>a</p>", True),  # a quote left open: what follows is the attribute's value
    ("<td id='x'><p>it's</p>", False),  # a quote in text is text
    ("</table", True),
    ("a <", True), ("a </", True), ("a <!", True), ("a < b", False),
    ("<!-- a", True), ("<!-- a -->", False), ("<!-->b", False),
    ("<script>a</script>", False), ("<script>a", True), ("<style>a</style><textarea>b", True),
    ("<plaintext>a", True), ("<?x a>b", False), ("</ a>b", False),
])
def test_where_markup_ends_open(markup, open_at_end):
    assert tagscan.ends_open(markup) is open_at_end


@pytest.mark.parametrize("markup, foreign, html", [
    ("<p>a</p>", [], None),
    ("<p>a<plaintext class=x>b</p>", [], (5, 14, 23)),
    ("<!-- <plaintext> --><script><plaintext></script><noscript><plaintext></noscript>", [], None),
    ("<img alt='<plaintext>'>", [], None),
    # in SVG or MathML it is an element like any other; after </math> it is HTML's again
    ("<math><plaintext>a</plaintext></math><plaintext>", [(7, 16), (20, 29)], (38, 47, 48)),
    ("<svg/><plaintext>", [], (7, 16, 17)),
    # an HTML tag leaves foreign content (a fuzzed page: the rest of it, text to a browser, was read as markup)
    ("<svg><p>a<plaintext>", [], (10, 19, 20)),
    ("<svg><math><title><b>t</b></title><plaintext>", [(35, 44)], None),  # <b> inside an integration point
    ("<svg><foreignObject><plaintext>", [], (21, 30, 31)),  # inside one a tag is read as in HTML
    ("<math><mi><title>x</title></mi><plaintext>", [(32, 41)], None),  # its <title> is HTML's, then closed
    ("<math></p><plaintext>", [], (11, 20, 21)),
    # a MathML <title> or <desc> is no integration point (an SVG one is): what follows is markup (a fuzzed page lost
    # 59 of 592 words, read as text); annotation-xml is one only with an HTML encoding
    ("<math><title><plaintext>", [(14, 23)], None),
    ("<math><desc><plaintext>", [(13, 22)], None),
    ("<svg><desc><plaintext>", [], (12, 21, 22)),
    ("<math><title><b>x</b><plaintext>", [], (22, 31, 32)),  # <b> leaves the MathML
    ('<math><annotation-xml encoding="text/html"><plaintext>', [], (44, 53, 54)),
    ("<math><annotation-xml><plaintext>", [(23, 32)], None),
])
def test_plaintext_tags_as_a_browser_reads_them(markup, foreign, html):
    assert tagscan.plaintext_tags(markup) == (foreign, html)


@pytest.mark.parametrize("markup, closed", [
    ("<html/><p>a</p>", True), ("<HTML lang=en />", True), ('<html a="b"/>', True),
    ("<html\t/\t>", False), ("<html a=b/>", False),  # a slash not just before ">" closes nothing (libxml2 agrees)
    ("<html </> r <p>a</p>", True),  # a "<" is an attribute's name: the tag ends at "/>"
    ('<html a="x>" /><p>a</p>', True),  # a quoted value runs over its ">"
    ('<html a="x/>"><p>a</p>', False), ("<html><p>a/>b</p>", False), ("<htmlx/>", False),
    ('<html a="x><p>a</p>', False),  # the page ends inside the tag
    ('<html a="<html/>">', False),  # inside a value, no tag: the scan resumes after the tag it read
    ("<html><html a/>", True),
])
def test_a_self_closed_html_tag_as_a_tokenizer_reads_it(markup, closed):
    assert tagscan.self_closed_html(markup) is closed


def test_a_self_closed_html_tag_after_the_body_ended_loses_nothing():
    """libxml2 reads ``<html </>`` (a fuzzed page: a quote lost in the root's tag, a stray ``</body>``)
    as a self-closed root, ends the document there and drops the rest, where a browser shows it all."""
    words = " ".join(f"word{i}" for i in range(60))
    for tag in ("<html </>", '<html a="x>" />', "<html x=< />"):
        page = document.parse(f"<p>first</p></body></p>>{tag} r M<p>{words}</p>".encode())
        assert words in " ".join(page.body.text_content().split()), tag
