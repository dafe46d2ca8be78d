"""The page's headline (pagesieve.analysis.headline.page_headline): the page's own heading, not the site's
name in the site's header, and never the site's name that ends the title."""

import lxml.html

from pagesieve.analysis.headline import page_headline

PROSE = "<p>" + "The harbour wall was rebuilt over the winter, stone by stone. " * 4 + "</p>"


def headline_of(html: str):
    return page_headline(lxml.html.fromstring(html))


def test_the_heading_in_the_pages_body_is_preferred_to_the_sites_name_in_its_header():
    # A documentation site: its name, an <h1> in the site's header, makes half of the <title>'s words too.
    got = headline_of(f"""<html><head><title>What is ownership? - The Rust Book</title></head><body>
      <header><h1>The Rust Book</h1></header>
      <div class=content><h1>What is ownership?</h1>{PROSE}</div></body></html>""")
    assert got.text == "What is ownership?" and got.element is not None


def test_an_articles_own_header_is_no_part_of_the_sites_frame():
    got = headline_of(f"""<html><head><title>Harbour news: Harbour wall rebuilt</title></head><body>
      <header><h1>Harbour news</h1></header>
      <article><header><h1>Harbour wall rebuilt</h1></header>{PROSE}</article></body></html>""")
    assert got.text == "Harbour wall rebuilt"


def test_a_heading_that_says_the_first_part_of_the_title_is_the_headline():
    # "Garden accessories - Garden kneelers & more | Shop": the page's heading says the first part only, too
    # few of the whole title's words to agree with it; before, the metadata's title was shown, site name and all.
    got = headline_of(f"""<html><head><meta property="og:title"
      content="Garden accessories - Garden kneelers &amp; more | Green Shop"></head><body>
      <div><h1>Garden accessories</h1>{PROSE}</div></body></html>""")
    assert got.element is not None and got.text == "Garden accessories"
    assert got.source == "<h1> matching the og:title"


def test_the_heading_that_says_the_title_best_is_the_headline():
    # "Dental Care | ONE Health Ohio": a later section's heading ("... Centers that Offer Dental") shares
    # enough of the whole title's words to agree with it, but the page's own "Dental Care" says the
    # title's first part word for word, and is its headline
    got = headline_of(f"""<html><head><title>Dental Care | ONE Health Ohio</title></head><body>
      <div><h1>Dental Care</h1>{PROSE}<h1>ONE Health Ohio Centers that Offer Dental</h1>{PROSE}</div></body></html>""")
    assert got.text == "Dental Care"


def test_the_sites_name_that_ends_the_title_is_not_matched_by_itself():
    got = headline_of(f"""<html><head><meta property="og:title"
      content="Valkyrie keyboard wireless tri-mode - AliExpress"></head><body>
      <div><h1>AliExpress</h1>{PROSE}</div></body></html>""")
    assert got.element is None and got.text == "Valkyrie keyboard wireless tri-mode - AliExpress"


def test_without_a_heading_that_says_the_title_the_first_h1_outside_the_sites_frame_is_taken():
    got = headline_of(f"""<html><head><title>The Harbour Blog</title></head><body>
      <header><h1>Logo text</h1></header>
      <div><h1>Harbour wall rebuilt</h1>{PROSE}</div></body></html>""")
    assert got.text == "Harbour wall rebuilt"
    # with only the site's <h1>, that one (as before: the page has nothing better to say)
    got = headline_of(f"""<html><head><title>The Harbour Blog</title></head><body>
      <header><h1>Logo text</h1></header><div>{PROSE}</div></body></html>""")
    assert got.text == "Logo text"
