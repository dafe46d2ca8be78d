"""dom helpers checked against their plain forms."""

import random

import lxml.html
import pytest

from lxml import etree

from pagesieve.core import dom
from pagesieve.engine.document import parse

_TEXTS = etree.XPath(".//text()[not(parent::script or parent::style)]", smart_strings=False)


def _text_of_by_xpath(node) -> str:
    """text_of as it was before it read a childless element's own text (the reference)."""
    if not isinstance(node.tag, str):
        return ""
    return " ".join("".join(_TEXTS(node)).split())


SMALL = ("<html><head><style>p {}</style><script>var a;</script><title> T  t </title></head><body>"
         "<a href=/a> one\n two </a><a></a><a> </a><p>x<!-- c -->y</p><p><!-- only --></p>"
         "<div> a <script>no()</script> b <style>.x{}</style><b> c </b> d</div><span>\u00a0</span>"
         "<noscript><a href=/n>n</a></noscript><textarea> t </textarea><script></script></body></html>")


def test_text_of_is_the_xpath_text_on_a_small_page_and_on_corpus_pages(corpus):
    pages = [parse(SMALL.encode())] + [parse(path.read_bytes()) for _, path, _ in random.Random(3).sample(corpus, 8)]
    for page in pages:
        for node in page.root.iter():
            assert dom.text_of(node) == _text_of_by_xpath(node), page.root.getroottree().getpath(node)


def test_name_pattern_finds_what_the_case_insensitive_pattern_finds(corpus):
    import re

    from pagesieve.analysis.furniture import FURNITURE
    from pagesieve.filters.main_content import BOILERPLATE, NEGATIVE, UNLIKELY

    names = {f"{el.get('class') or ''} {el.get('id') or ''}" for _, path, _ in corpus[::10]
             for el in parse(path.read_bytes()).root.iter() if isinstance(el.tag, str)}
    names |= {"MAIN-Menu", "x AD", "Ad", "\u212aey-footer", "ſidebar", "Tags", "naV\n", ""}  # case, non-ASCII folds
    for pattern in (FURNITURE, BOILERPLATE, NEGATIVE, UNLIKELY):
        fast = dom.NamePattern(pattern)
        assert [fast.found(n) for n in names] == [pattern.search(n) is not None for n in names], pattern.pattern
    for bad in (re.compile("Menu", re.I), re.compile("menu")):  # upper case, or not case-insensitive
        with __import__("pytest").raises(ValueError):
            dom.NamePattern(bad)


WHO = ("<table id=t><tr><td colspan=6 height=2></td></tr><tr><td colspan=4><b>WHO definitions</b></td></tr>"
       "<tr><td width=1 rowspan=10></td><td colspan=2></td></tr>"
       "<tr><td><b>Blood pressure (mmHg)</b></td><td>Diagnosis</td></tr>"
       + "".join(f"<tr><td>Up to {a}</td><td align=right>{b}</td></tr>"
                 for a, b in (("120/80", "Optimal"), ("130/85", "Normal"), ("140/90", "High normal"),
                              ("160/100", "Mild hypertension")))
       + "</table>")


@pytest.mark.parametrize("table, data", [
    (WHO, True),  # two columns of short values among spacer rows and a title across the columns
    # layout: a menu column beside the story, a column of links, too few rows
    ("<table id=t>" + "<tr><td><a href=/a>Home</a></td><td>" + "The story goes on. " * 8 + "</td></tr>" * 5
     + "</table>", False),
    ("<table id=t>" + "".join(f"<tr><td><a href=/{i}>Page {i}</a></td><td><a href=/x{i}>More {i}</a></td></tr>"
                             for i in range(6)) + "</table>", False),
    ("<table id=t><tr><td>Size</td><td>12</td></tr><tr><td>Weight</td><td>3 kg</td></tr></table>", False),
    ("<table id=t>" + "<tr><td><ul><li>Size</li></ul></td><td>12</td></tr>" * 5 + "</table>", False),
    # a header row whose cells centre their labels in a <div>
    ("<table id=t><tr><td><div align=center><b>Tactic</b></div></td><td><div><b>Skilled</b></div></td></tr>"
     + "<tr><td>Active listening: summarizing</td><td>7.5</td></tr>" * 5 + "</table>", True),
])
def test_a_grid_of_short_values_is_a_data_table(table, data):
    root = lxml.html.fromstring(f"<html><body>{table}</body></html>")
    assert dom.is_data_table(root.get_element_by_id("t")) is data


_DETAILS = "<b>Publication 1001, column 3</b><ul><li>" + "The column is an addition to income. " * 4 + "</li></ul>"


@pytest.mark.parametrize("table, data", [
    # a change log: a head row of labels, each row led by a date, its details in lists and paragraphs
    ("<table id=t><tr><td><b>Revision Date</b></td><td><b>Revision Details</b></td></tr>"
     + f"<tr><td><b>09/13/06</b></td><td>{_DETAILS}<p>Noted in print.</p></td></tr>" * 3 + "</table>", True),
    ("<table id=t><tr><td colspan=2>Day</td><td>Task</td></tr>"  # head cells spanning columns count as wide
     + f"<tr><td>Mon</td><td>9:00</td><td>{_DETAILS}</td></tr>" * 2 + "</table>", True),
    # layout: a menu of links over the page, rows led by the story, a row wider than the head, too few rows
    ("<table id=t><tr><td><a href=/>Home</a></td><td><a href=/n>News</a></td></tr>"
     + f"<tr><td>Menu</td><td>{_DETAILS}</td></tr>" * 3 + "</table>", False),
    ("<table id=t><tr><td>Date</td><td>Details</td></tr>"
     + f"<tr><td>{_DETAILS}</td><td>Side</td></tr>" * 3 + "</table>", False),
    ("<table id=t><tr><td>Date</td><td>Details</td></tr>"
     + f"<tr><td>09/13/06</td><td>{_DETAILS}</td><td>x</td></tr>" * 3 + "</table>", False),
    ("<table id=t><tr><td>Date</td><td>Details</td></tr>"
     + f"<tr><td>09/13/06</td><td>{_DETAILS}</td></tr>" + "</table>", False),
])
def test_a_table_of_records_is_a_data_table(table, data):
    """A change log's table ("Revision Date | Details"): linearised as layout, each date stood on a line of
    its own above its entry, apart from the heading it dates."""
    root = lxml.html.fromstring(f"<html><body>{table}</body></html>")
    assert dom.is_data_table(root.get_element_by_id("t")) is data


def test_inherited_reads_each_ancestor_once_and_stops_at_top():
    root = lxml.html.fromstring("<html><body><nav><ul><li id=a>x</li><li id=b>y</li></ul></nav><p id=c>z</p></body></html>")
    body = root.find("body")
    reads = []

    def step(above, node):
        reads.append(node.tag)
        return above or node.tag == "nav"

    known: dict = {}
    a, b, c = (root.get_element_by_id(i) for i in "abc")
    assert dom.inherited(a, known, False, step, top=body) is True
    assert dom.inherited(b, known, False, step, top=body) is True
    assert dom.inherited(c, known, False, step, top=body) is False
    assert reads == ["body", "nav", "ul", "li", "li", "p"]  # the shared ancestors once; nothing above body
    assert dom.inherited(None, known, "start", step) == "start"


@pytest.mark.parametrize("html, frame", [
    ("<nav>x</nav>", True), ("<aside>x</aside>", True), ("<div role=' Navigation '>x</div>", True),
    ("<div role=menu>x</div>", True), ("<div>x</div>", False), ("<main>x</main>", False),
    ("<div role=region>x</div>", False),
])
def test_is_furniture_reads_the_tag_and_the_role(html, frame):
    el = lxml.html.fragment_fromstring(html)
    assert dom.is_furniture(el) is frame


def test_copy_as_holds_a_copy_of_the_content_and_not_the_tail():
    root = lxml.html.fromstring("<div><form id=f class=x>lead <b>bold</b> rest<i>it</i></form>after</div>")
    form = root.get_element_by_id("f")
    new = dom.copy_as(form, "div", {"id": "g"})
    assert lxml.html.tostring(new, encoding="unicode") == '<div id="g">lead <b>bold</b> rest<i>it</i></div>'
    assert form[0] is not new[0] and len(form) == 2  # copies: the original keeps its children
