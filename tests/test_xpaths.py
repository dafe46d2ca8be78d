"""XPaths written as the owners of attributes (``//@role[.='main']/..``, faster in libxml2) select what
the plain predicate form (``//*[@role='main']``) selects, in the same order, on pages with each case."""

import pytest
from lxml import etree

from pagesieve.analysis import furniture, scan, streamed
from pagesieve.core import dom
from pagesieve.engine.document import parse
from pagesieve.filters import accessibility, ads, main_content

PLAIN = [
    (ads.WITH_URL, "//*[@src or @href or @srcset or @poster or self::object[@data]]", "root"),
    (furniture.MAINS, "//main | //*[@role='main']", "root"),
    (furniture.ARTICLES, "//article | //*[@itemprop='articleBody']", "root"),
    (accessibility.MAINS, ".//main | .//*[@role='main']", "body"),
    (accessibility.ARIA_HIDDEN, ".//*[translate(normalize-space(@aria-hidden),'TRUE','true')='true']", "body"),
    (accessibility.POSITIVE_TABINDEX, ".//*[@tabindex and number(@tabindex) > 0]", "body"),
    (accessibility.DIALOGS, ".//dialog | .//*[@role='dialog' or @role='alertdialog']", "body"),
    (accessibility.ROLE_OWNERS, "descendant-or-self::*[@role]", "body"),
    (accessibility.LANG_OWNERS, ".//*[@lang]", "body"),
    (streamed.HIDDEN_DIVS, "descendant-or-self::div[@hidden]", "root"),
    (scan.ITEMTYPES, "//*[@itemtype]/@itemtype", "root"),
    (main_content.HIDDEN, ".//*[(@hidden or translate(normalize-space(@aria-hidden),'TRUE','true')='true' "
                          "or translate(@type,'HIDEN','hiden')='hidden') and not(@role='tabpanel')]", "body"),
]

PAGES = [
    # the context node itself has each attribute: a relative query leaves it out
    "<html role=main itemtype=https://schema.org/WebPage><body role=main aria-hidden=true tabindex=2 hidden "
    "src=x.png><main><p>t</p></main></body></html>",
    "<html><body><div role=main id=a><main><a href=/x>x</a></main></div><article itemprop=articleBody>"
    "<div itemprop=articleBody>b</div></article><div role=' main'>not main</div></body></html>",
    "<html><head><link href=/s.css rel=stylesheet><script src=/a.js></script></head><body>"
    "<img src=a.png srcset='a.png 1x, b.png 2x'><video poster=p.jpg><source src=v.mp4></video>"
    "<object data=o.swf></object><embed data=e.swf><iframe src=/f></iframe><a>no href</a>"
    "<div itemscope itemtype='https://schema.org/Person'><span itemtype=https://schema.org/Thing>n</span></div>"
    "</body></html>",
    "<html><body><div aria-hidden=' TRUE '>a</div><span aria-hidden=false>b</span><i aria-hidden=true>c</i>"
    "<p tabindex=1>x</p><p tabindex=0>y</p><p tabindex=-1>z</p><p tabindex=' 3 '>w</p><p tabindex=two>v</p>"
    "<dialog>d</dialog><div role=dialog>e</div><div role=alertdialog>f</div><div role=Dialog>g</div>"
    "<div hidden role=tabpanel>h</div><div hidden>i</div><input type=HIDDEN><input type=text>"
    "<section role=tabpanel aria-hidden=true>j</section></body></html>",
    "<html lang=en><body lang=fr><p lang=de_DE>a</p><div id=S:0 hidden><p lang=''>b</p></div>"
    "<span role=button>c</span></body></html>",
]


@pytest.mark.parametrize("html", PAGES)
@pytest.mark.parametrize("fast, plain, context", PLAIN, ids=[p[1][:40] for p in PLAIN])
def test_owner_of_attribute_form_selects_what_the_predicate_form_selects(fast, plain, context, html):
    root = parse(html.encode()).root
    node = root if context == "root" else dom.body_of(root)
    assert fast(node) == etree.XPath(plain)(node)


def test_each_query_has_a_case_that_selects_something():
    for fast, _, context in PLAIN:
        found = [fast(r if context == "root" else dom.body_of(r)) for r in (parse(h.encode()).root for h in PAGES)]
        assert any(found), fast
