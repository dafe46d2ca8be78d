"""Lazy images made loadable when the page's scripts are removed (the ignore filter calls lazy_images.fix)."""

import pytest
from lxml import html as lxml_html

from pagesieve.analysis import lazy_images
from tests.conftest import run_filter

GIF = "data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"
SVG = "data:image/svg+xml,%3Csvg%20xmlns='http://www.w3.org/2000/svg'%20viewBox='0%200%20800%20600'%3E%3C/svg%3E"
BIG = "data:image/png;base64," + "A" * 200  # a real inline picture: 200 characters of payload


def ignore(body, **settings):
    settings.setdefault("non_link_images", False)
    settings.setdefault("image_links", False)
    page, state, _ = run_filter("ignore", f"<html><body><p>Story text.</p>{body}</body></html>", **settings)
    return page, state


def imgs(page):
    return [(i.get("src"), i.get("srcset")) for i in page.root.iter("img")]


@pytest.mark.parametrize("markup, expected", [
    # the address behind a placeholder, or behind no src at all
    (f"<img id=i src='{GIF}' data-src=/a.jpg>", [("/a.jpg", None)]),
    ("<img id=i data-src=/a.jpg>", [("/a.jpg", None)]),
    (f"<img id=i src=\"{SVG}\" data-lazy-src=/a.jpg>", [("/a.jpg", None)]),
    ("<img id=i src=/img/blank.gif data-original=/a.jpg>", [("/a.jpg", None)]),
    ("<img id=i data-srcset='/a.jpg 1x, /b.jpg 2x'>", [("/a.jpg", "/a.jpg 1x, /b.jpg 2x")]),
    ("<img id=i src=/img/pixel.gif data-lazy-srcset='/a.jpg 400w, /b.jpg 800w'>", [("/a.jpg", "/a.jpg 400w, /b.jpg 800w")]),
    # Readability's rule: any data attribute holding one image address
    ("<img id=i data-lazyload-image=/a.webp>", [("/a.webp", None)]),
    # a picture's sources get their candidate list
    ("<picture><source data-srcset='/a.webp 1x' type=image/webp><img id=i data-src=/a.jpg></picture>",
     [("/a.jpg", None)]),
    # "lazy" in the class: the src is a low-quality stand-in, replaced
    ("<img id=i class=lazyload src=/tiny/a.jpg data-src=/a.jpg>", [("/a.jpg", None)]),
    # left alone: a loadable src, a real inline picture, no lazy address, a lazy address that is itself a placeholder
    ("<img id=i src=/real.jpg data-src=/other.jpg>", [("/real.jpg", None)]),
    (f"<img id=i src='{BIG}' data-src=/a.jpg>", [(BIG, None)]),
    (f"<img id=i src='{GIF}'>", [(GIF, None)]),
    (f"<img id=i src='{GIF}' data-src='{GIF}'>", [(GIF, None)]),
    ("<img id=i data-caption='A river'>", [(None, None)]),
])
def test_lazy_addresses_are_set(markup, expected):
    page, _ = ignore(markup)
    assert imgs(page) == expected
    page, _ = ignore(markup, lazy_images=False)  # switched off: every image as the page wrote it
    assert imgs(page) == [(i.get("src"), i.get("srcset")) for i in lxml_html.fromstring(markup).iter("img")]


def test_a_fixed_image_looks_loaded_to_the_loaders_style_sheet():
    # WP Rocket hides img[data-lazy-src], lazysizes hides .lazyload, until their script has run
    page, _ = ignore(f"<img id=i class='gb-image lazyload' src=\"{SVG}\" data-lazy-src=/a.jpg "
                     "data-lazy-srcset='/a.jpg 1200w, /b.jpg 300w' data-lazy-sizes='(max-width: 1200px) 100vw'>")
    img = page.root.get_element_by_id("i")
    assert img.get("src") == "/a.jpg" and img.get("srcset") == "/a.jpg 1200w, /b.jpg 300w"
    assert img.get("sizes") == "(max-width: 1200px) 100vw"
    assert not [a for a in img.attrib if a.startswith("data-")] and img.get("class") == "gb-image lazyloaded"
    # its address already in place: only the lazy marks go
    page, _ = ignore("<img id=i class=lazyload src=/a.jpg data-src=/a.jpg>")
    img = page.root.get_element_by_id("i")
    assert img.get("src") == "/a.jpg" and img.get("class") == "lazyloaded" and img.get("data-src") is None


def test_a_fixed_picture_is_not_hidden_by_its_wrappers_lazy_class():
    # a news site's style sheet: ".lazysize img{opacity:0} .lazysize img.lazyloaded{opacity:1}"
    page, _ = ignore("<picture id=p class='embed lazysize'><source data-srcset='/a.webp 1x'>"
                     "<img id=i class='photo lazyload' data-src=/a.jpg></picture>")
    assert page.root.get_element_by_id("p").get("class") == "embed"
    assert page.root.get_element_by_id("i").get("class") == "photo lazyloaded"
    # an image that needed nothing keeps its classes and its wrapper's
    page, _ = ignore("<picture id=p class=lazysize><img id=i class=photo src=/a.jpg></picture>")
    assert page.root.get_element_by_id("p").get("class") == "lazysize"
    assert page.root.get_element_by_id("i").get("class") == "photo"


def test_picture_sources_get_their_srcset():
    page, _ = ignore("<picture><source id=s data-srcset='/a.webp 1x' type=image/webp><img data-src=/a.jpg></picture>")
    assert page.root.get_element_by_id("s").get("srcset") == "/a.webp 1x"


def test_a_figure_without_an_image_gets_one():
    page, _ = ignore("<figure id=f data-src=/a.jpg><figcaption>A river</figcaption></figure>")
    assert [i.get("src") for i in page.root.get_element_by_id("f").iter("img")] == ["/a.jpg"]


@pytest.mark.parametrize("markup, src", [
    # the lazy twin gets its own address; its fallback is not shown a second time
    (f"<img src='{GIF}' data-src=/a.jpg alt=River><noscript><img src=/a.jpg alt=River></noscript>", "/a.jpg"),
    # no lazy address the twin can read: it takes the fallback's, keeping its alt
    (f"<img src='{GIF}' class=js-img alt=River><noscript><img src=/a.jpg></noscript>", "/a.jpg"),
    (f"<picture><source srcset='{GIF}'><img src='{GIF}' alt=River></picture><noscript><img src=/a.jpg></noscript>",
     "/a.jpg"),
    # after the image as before it
    (f"<noscript><img src=/a.jpg></noscript><img src='{GIF}' data-src=/a.jpg alt=River>", "/a.jpg"),
])
def test_noscript_fallback_and_its_lazy_twin_end_as_one_image(markup, src):
    page, _ = ignore(f"<div>{markup}</div>")
    shown = [i for i in page.root.iter("img") if lazy_images.loadable(i)]
    assert [i.get("src") for i in shown] == [src]
    assert [i.get("alt") for i in shown] == ["River"]
    assert len(list(page.root.iter("img"))) == 1


def test_a_noscript_with_text_beside_a_lazy_image_is_not_its_fallback():
    page, _ = ignore(f"<div><img src='{GIF}' data-src=/a.jpg><noscript><p>Turn on JavaScript</p></noscript></div>")
    assert imgs(page) == [("/a.jpg", None)] and "Turn on JavaScript" in page.root.text_content()


def test_without_removing_scripts_nothing_changes():
    page, _ = ignore(f"<img src='{GIF}' data-src=/a.jpg>", scripts=False)
    assert imgs(page) == [(GIF, None)]


@pytest.mark.parametrize("value, placeholder", [
    (None, True), ("", True), (GIF, True), (SVG, True), (BIG, False),
    ("data:image/png;base64," + "A" * 132, True), ("data:image/png;base64," + "A" * 133, False),
    ("/img/spacer.gif", True), ("/img/1x1.gif", True), ("/img/photo.jpg", False),
    ("/dist/images/lazyload-placeholder.png", True), ("/img/loading.gif", True), ("/img/grey.gif", True),
    ("/img/greyhound.jpg", False), ("/2019/11/tweets.jpg?resize=560,572", False),
])
def test_placeholder_threshold(value, placeholder):
    assert lazy_images.is_placeholder(value) is placeholder


@pytest.mark.parametrize("markup, expected", [
    # a shop's gallery slide: the script-less copy, then the picture its script enlarges (same file, other size)
    ("<li><noscript><div><img src='//shop.example/p/a.png?width=1946' alt=A></div></noscript>"
     "<div class=opener><img srcset='//shop.example/p/a.png?width=493 493w' src='//shop.example/p/a.png?width=1946' "
     "alt=A></div></li>", ["//shop.example/p/a.png?width=1946"]),
    # a picture the parent shows nowhere else: the fallback is shown
    ("<li><noscript><img src=/p/b.png alt=B></noscript><img src=/p/a.png alt=A></li>", ["/p/b.png", "/p/a.png"]),
    # a notice with words is not a copy of pictures
    ("<div><noscript><img src=/p/a.png alt=A> Turn on scripts to zoom.</noscript><img src=/p/a.png alt=A></div>",
     ["/p/a.png", "/p/a.png"]),
])
def test_a_noscript_copy_of_pictures_shown_beside_it_is_not_shown_twice(markup, expected):
    page, _ = ignore(markup)
    assert [i.get("src") for i in page.root.iter("img")] == expected
    assert not list(page.root.iter("noscript"))
