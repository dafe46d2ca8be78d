"""The public API: ``pagesieve.filter_html`` and the reusable ``pagesieve.Filterer``."""

from __future__ import annotations

import lxml.html
import pytest

import pagesieve
from pagesieve.core.errors import ConfigError, InputError

ARTICLE = ("<p>The council of Brightwater voted on Tuesday to rebuild the old harbour wall after the winter "
           "storms. Engineers said the work would take two summers and cost less than a new breakwater.</p>") * 6
PAGE = f"""<!doctype html><html lang=en><head><meta charset=utf-8><title>Harbour news</title></head><body>
<nav id=menu><ul><li><a href=/a>Home</a><li><a href=/b>World</a><li><a href=/c>Sport</a><li><a href=/d>Weather</a>
<li><a href=/e>Money</a><li><a href=/f>Culture</a></ul></nav>
<div id=story><h1>Harbour wall to be rebuilt — café</h1>{ARTICLE}</div><script>track()</script></body></html>"""


def test_public_names_are_pinned():
    assert pagesieve.__all__ == ["ConfigError", "Filtered", "Filterer", "InputError", "PagesieveError",
                                 "__version__", "filter_html"]
    for name in pagesieve.__all__:
        assert getattr(pagesieve, name) is not None
    with pytest.raises(AttributeError):
        pagesieve.no_such_name  # noqa: B018


def test_filter_html_takes_str_and_bytes_and_returns_str():
    out = pagesieve.filter_html(PAGE)
    assert isinstance(out, str)
    doc = lxml.html.document_fromstring(out)
    assert doc.get_element_by_id("menu", None) is None and "track()" not in out  # declutter removed them
    assert "Harbour wall to be rebuilt — café" in out
    assert pagesieve.filter_html(PAGE.encode("utf-8")) == out
    cp1252 = PAGE.replace("<meta charset=utf-8>", "<meta charset=windows-1252>").replace(" — ", " - ")
    assert "café" in pagesieve.filter_html(cp1252.encode("cp1252"))


def test_filter_html_preset_output_and_settings():
    text = pagesieve.filter_html(PAGE, preset="reader", output="text")
    assert text.startswith("Harbour news") and "<p>" not in text and "Engineers said" in text
    kept = pagesieve.filter_html(PAGE, settings={"filters.link_lists.ratio": 100.0, "link_lists.min_links": 1000})
    assert lxml.html.document_fromstring(kept).get_element_by_id("menu", None) is not None
    with pytest.raises(ConfigError, match="filters.link_lists.ratio = -1.0: expected a number from 0 to 100"):
        pagesieve.filter_html(PAGE, settings={"filters.link_lists.ratio": -1})
    with pytest.raises(ConfigError, match="preset = 'nope': unknown preset"):
        pagesieve.filter_html(PAGE, preset="nope")
    with pytest.raises(InputError):
        pagesieve.filter_html(b"\x00\x01\x02" * 100)


def test_a_filterer_is_built_once_and_called_many_times():
    f = pagesieve.Filterer(preset="reader", output="text")
    a, b = f(PAGE, url="https://news.example/a"), f(PAGE.encode(), url="https://news.example/b")
    assert isinstance(a, pagesieve.Filtered)
    assert a.text == b.text == str(a) and a.html is None and a.format == "text"
    assert a.removals and {r["filter"] for r in a.removals} >= {"ignore"}
    assert all(r["filter"] in f.spec.chain for r in a.removals)
    assert [s["filter"] for s in a.filters] == list(f.spec.chain) and not a.failed
    again = pagesieve.Filterer.for_spec(f.spec)
    assert all(x is y for x, y in zip(again.chain.filters, f.chain.filters, strict=True))  # lists, models: once
    h = pagesieve.Filterer()(PAGE)
    assert h.html == str(h) and h.text is None and h.media_type == "text/html"
