import pytest

from pagesieve.document import detect_encoding, parse, serialize
from pagesieve.errors import InputError


@pytest.mark.parametrize("data, declared, expected", [
    (b"\xef\xbb\xbf<p>x", None, "utf-8"),
    (b"<p>caf\xe9</p>", None, "windows-1252"),
    ("<p>café</p>".encode(), None, "utf-8"),
    (b'<meta charset="shift_jis"><p>x', None, "shift_jis"),
    (b'<meta http-equiv="Content-Type" content="text/html; charset=windows-1251"><p>x', None, "cp1251"),
    (b'<meta charset="utf-8"><p>x', "iso-8859-2", "iso8859-2"),  # the server's word wins over <meta>
    (b"<p>x", "latin-1", "windows-1252"),  # WHATWG: latin-1 means windows-1252
    (b"<p>x", "no-such-charset", "utf-8"),
])
def test_detect_encoding(data, declared, expected):
    assert detect_encoding(data, declared) == expected


@pytest.mark.parametrize("data, message", [
    (b"", "input is empty"),
    (b"  \n\t ", "input is empty"),
    (b"\x89PNG\r\n\x1a\n....", "input is not HTML: binary data"),
    (b"<p>a\x00b</p>", "input is not HTML: binary data (contains NUL bytes)"),
])
def test_bad_input(data, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse(data)


def test_roundtrip_keeps_encoding_and_declares_it():
    src = '<html><head><meta charset="windows-1251"><title>Тест</title></head><body><p>Привет, мир</p></body></html>'
    page = parse(src.encode("cp1251"))
    out = serialize(page)
    assert out.decode("cp1251").count("Привет, мир") == 1
    assert b'<meta charset="windows-1251">' in out
    assert out.count(b"charset") == 1


def test_unencodable_characters_become_references():
    page = parse("<p>x</p>".encode(), declared_encoding="windows-1252")
    page.body[0].text = "snowman ☃"
    assert b"&#9731;" in serialize(page)


def test_broken_html_is_repaired_not_rejected():
    page = parse(b"<div><p>one<p>two</div></span><table><td>cell")
    assert [p.text for p in page.root.iter("p")] == ["one", "two"]
    assert page.root.find(".//td").text == "cell"


def test_doctype_kept():
    out = serialize(parse(b'<!DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.01//EN"><p>x'))
    assert out.startswith(b'<!DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.01//EN">')


@pytest.mark.parametrize("html, attrs", [
    ("<html><BODY><body bgcolor=white text='#000000'><p>x</p></html>", {"bgcolor": "white", "text": "#000000"}),
    ("<html><body class=a><p>x</p><body class=b id=z onload='go()'></html>", {"class": "a", "id": "z"}),
    ("<html><body bgcolor=black><p>x</p></html>", {"bgcolor": "black"}),
])
def test_a_second_body_tag_adds_the_attributes_the_body_lacks(html, attrs):
    # As browsers parse it (issue 17: the page's colours must survive, or axe sees other contrasts).
    assert dict(parse(html.encode()).body.attrib) == attrs
