"""The compiled page table and the pure-Python measurement give equal tables, on pages of every
corpus and through every kind of change a filter makes; the compiled one is what runs where it is
built, the Python one where it is not."""

import os
import random
import subprocess
import sys

import pytest
from lxml import etree

from pagesieve.core import measure
from pagesieve.core.measure import PyTextMeasure
from pagesieve.engine.context import FilterContext
from pagesieve.engine.document import parse
from pagesieve.engine.state import RunState
from tests.conftest import EXTRACTION, REPO
from tests.test_measure import check, mutate

try:
    from pagesieve.core._pagetable import PageTable
except ImportError:  # not built here: the tests of equality cannot run, the one below says why
    PageTable = None

compiled = pytest.mark.skipif(PageTable is None, reason="the compiled page table is not built (setup.py build_ext)")

#: Pages from every corpus beside the repository, a seeded sample of each.
PER_CORPUS = 12


@pytest.fixture(scope="module")
def pages() -> list:
    rng = random.Random(3)
    out = []
    for corpus in sorted(EXTRACTION.glob("*/pages")):
        found = sorted(corpus.glob("*.html"))
        out += rng.sample(found, min(PER_CORPUS, len(found)))
    if not out:
        pytest.skip(f"no corpus pages under {EXTRACTION}")
    return out


def assert_equal_tables(py, table, root, where="") -> None:
    """Every element both know, with the same counts; neither knows one the other does not."""
    assert table.chars == py.chars, where
    assert table.links == py.links, where
    for el in root.iter():
        assert table.text_len(el) == py.text_len(el), where
        assert table.link_stats(el) == py.link_stats(el), where


def test_the_compiled_table_is_the_one_in_use_where_it_is_built():
    """``make test`` sets PAGESIEVE_REQUIRE_COMPILED=1: the set-up must have built the extension."""
    built = list((REPO / "pagesieve" / "core").glob("_*.so"))
    if os.environ.get("PAGESIEVE_REQUIRE_COMPILED") == "1":
        assert PageTable is not None, "the set-up did not build pagesieve/core/_pagetable (see setup.py's output)"
    if PageTable is None and not built:
        pytest.skip("the compiled page table is not built here")
    if os.environ.get("PAGESIEVE_PURE_PYTHON"):
        assert not measure.COMPILED
        pytest.skip("PAGESIEVE_PURE_PYTHON is set: the Python measurement runs")
    assert measure.COMPILED and measure.TextMeasure is PageTable and measure.BLOCKS is not None, \
        "a compiled module of pagesieve/core is missing (see setup.py's output)"
    assert RunState(root=parse(b"<p>x</p>").root).measure().__class__ is PageTable


@pytest.mark.parametrize("hide", ["import", "env"])
def test_the_python_measurement_runs_when_the_extension_is_hidden(hide):
    """Hidden (the import fails, as where it was never built) or switched off, the fallback runs,
    with the same numbers."""
    code = ("import sys\n"
            + ("sys.modules['pagesieve.core._pagetable'] = sys.modules['pagesieve.core._blocks'] = sys.modules['pagesieve.core._tagscan'] = None\n"
               if hide == "import" else "")
            + "from pagesieve.core import measure\n"
            "from pagesieve.engine.document import parse\n"
            "m = measure.TextMeasure(parse(b'<div><a href=/x>one two</a> three<script>x</script></div>').root)\n"
            "print(measure.COMPILED, measure.TextMeasure.__name__, sorted(m.chars.values()), sorted(map(tuple, m.links.values())))\n")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("PAGESIEVE_PURE_PYTHON", None)
    if hide == "env":
        env["PAGESIEVE_PURE_PYTHON"] = "1"
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[:2] == ["False", "PyTextMeasure"]
    assert r.stdout.split(None, 2)[2].strip() == "[0, 6, 11, 11, 11] [(1, 6, 6), (1, 6, 11), (1, 6, 11), (1, 6, 11)]"


@compiled
def test_equal_tables_on_pages_of_every_corpus(pages):
    for path in pages:
        root = parse(path.read_bytes()).root
        assert_equal_tables(PyTextMeasure(root), PageTable(root), root, path)


class Both:
    """Both measurements in the run state's place: every change reaches both, every answer is
    compared."""

    def __init__(self, root) -> None:
        self.py, self.table = PyTextMeasure(root), PageTable(root)

    def text_len(self, node) -> int:
        got = self.py.text_len(node)
        assert self.table.text_len(node) == got
        return got

    def __getattr__(self, name):
        def both(*args):
            getattr(self.py, name)(*args)
            getattr(self.table, name)(*args)
        return both


@compiled
@pytest.mark.parametrize("seed", range(3))
def test_equal_tables_through_context_changes(seed, pages):
    """Removals, replacements, insertions, text and href changes update both alike: the removed
    nodes' counts too (the Python measurement keeps them), and the page's counts stay exact."""
    rng = random.Random(seed)
    for path in rng.sample(pages, 6):
        page = parse(path.read_bytes())
        state = RunState(root=page.root)
        both = Both(page.root)
        state._measure = both  # type: ignore[assignment]
        ctx = FilterContext("test", state, page)
        mutate(page, ctx, rng, 60)
        assert_equal_tables(both.py, both.table, page.root, path)
        state._measure = both.table
        check(state)  # the compiled table against dom.text_len and link_lists' own walk


@compiled
def test_a_removed_node_is_still_known_after_its_proxies_are_gone():
    """A removed subtree stays allocated while the table lives: its node is not reused for a new
    element that would then be taken for it."""
    page = parse(b"<body><div><p>one two three</p></div>" + b"<i>x</i>" * 50 + b"</body>")
    state = RunState(root=page.root)
    table = state._measure = PageTable(page.root)
    ctx = FilterContext("test", state, page)
    p = page.root.find(".//p")
    ctx.remove(p, "test", explain=False)
    state.removed_nodes.clear()
    del p
    fresh = [parse(b"<p>a</p>").root.find(".//p") for _ in range(200)]
    assert all(table.text_len(f) == 1 for f in fresh)
    assert table.text_len(page.root.find(".//div")) == 0


@compiled
def test_main_contents_block_counts_are_the_python_ones(pages):
    """main_content's per-element counts (chars, commas, link characters, paragraphs, blocks) in C
    equal its Python walk's, element for element and in the same order, also after the page was
    changed (the reader's filters before main_content remove and replace nodes)."""
    from pagesieve.core import _blocks, dom
    from pagesieve.filters.main_content import scoring

    extra = [b"<body><a href=/x>one, two<div>three\xef\xbc\x8cfour</div></a><p hidden>gone</p>"
             b"<p class=answer hidden>folded, kept</p><svg><text>no</text></svg> tail, here</body>"]
    rng = random.Random(5)
    for path in pages:
        for data in (path.read_bytes(), *extra):
            page = parse(data)
            body = dom.body_of(page.root)
            for round_ in range(2):
                order, st = scoring.py_stats(body)
                hidden = scoring._hidden(body)
                assert hidden is not None
                got_order, got = _blocks.block_counts(body, hidden, scoring.SKIP_TAGS, dom.BLOCK_TAGS,
                                                         scoring.BlockScore)
                assert got_order == order and got == st, (path, round_)
                assert scoring.stats(body) == (order, st)
                els = [e for e in body.iter() if e is not body]
                for el in rng.sample(els, min(20, len(els))):
                    if el.getparent() is not None:
                        dom.remove_keep_tail(el)
        extra = []


#: Attribute cases the corpus pages may lack: a comment, a processing instruction, script URLs in odd
#: cases and characters, a namespaced attribute (set through lxml: the HTML parser makes none), and
#: a URL attribute only on an <object>.
ATTRIBUTE_CASES = (b"<html><body onload=x() class='a b'><!-- c --><?pi x?><a href='JaVaScRiPt:go()' id=i>a</a>"
                   b"<p title='\xc3\xa9data:x' data-x='DATA:text/html,' style='s'>t</p><object data=o></object>"
                   b"<embed src=e><img srcset='a 1x' poster=p><span ona=1 on=2 srcdoc=3 data-on=4>x</span>"
                   b"<div class=a id=i2 CLASS=b>t</div><iframe srcdoc='<p>x</p>'></iframe>"
                   b"<i ARIA-Label=x>i</i><b data-aria-x=1 rolex=2>b</b><u role=note>u</u><s \xc3\xa9aria-=1>s</s>"
                   b"</body></html>")


@compiled
def test_the_compiled_attribute_walks_are_the_python_ones(pages):
    """The ads filter's page index, the ignore filter's script attributes and the accessibility
    filter's ARIA candidates read in C equal their Python walks: the same names, values, elements
    and order, also after the page was changed."""
    from pagesieve.core import _attrs
    from pagesieve.filters.ads.index import page_attributes
    from pagesieve.filters.ads.network import URL_ATTRS
    from pagesieve.filters.ignore import py_script_attributes

    rng = random.Random(7)
    for data in (ATTRIBUTE_CASES, *(p.read_bytes() for p in pages)):
        root = parse(data).root
        for round_ in range(2):
            names = ("class", "id", "style", "href", "data-x", "title")
            py_values, c_values = {n: [] for n in names}, {n: [] for n in names}
            py = page_attributes(root, py_values, URL_ATTRS)
            got = _attrs.page_attributes(root, c_values, URL_ATTRS)
            assert got == py and c_values == py_values, round_
            assert all(a is b for a, b in zip(got[2] + got[3] + got[4], py[2] + py[3] + py[4]))
            assert _attrs.script_attributes(root) == py_script_attributes(root), round_
            aria = [el for el in root.iter(etree.Element)
                    if "role" in el.keys() or "aria-" in " ".join(el.keys()).lower()]
            assert _attrs.aria_elements(root) == aria, round_
            assert len(aria) >= 4 or round_ or data is not ATTRIBUTE_CASES  # the cases above are read
            els = [e for e in root.iter() if e is not root and isinstance(e.tag, str)]
            if not els:  # the sample took every element
                break
            els[0].set("{urn:x}onclick", "javascript:x()")  # namespaced: by its full name, never "on…"
            els[-1].set("{urn:x}href", "y")
            for el in rng.sample(els, min(20, len(els))):
                if el.getparent() is not None:
                    el.getparent().remove(el)


#: (tags, attribute names) as the callers of elements_with ask, and some that catch a wrong name or case.
ELEMENTS_WITH_ASKS = (
    (frozenset({"nav", "header", "footer", "aside"}), ("role", "class", "id")),
    (frozenset({"dialog"}), ("class", "id", "role", "aria-modal")),
    (frozenset({"dialog"}), ("role", "aria-modal")),
    (frozenset(), ("CLASS", "data-x", "title")),
    (frozenset({"{urn:x}nav", "p", "NAV"}), ()),
)


@compiled
def test_the_compiled_elements_with_is_the_python_walk(pages):
    """The elements of some tags or with some attributes, picked in C, are those of the Python walk, in the
    same order, from the root or any element, namespaced tags and attributes included (an attribute is
    matched by its plain name only, as ``el.get`` does), also after the page was changed."""
    from pagesieve.core import _attrs
    from pagesieve.core.measure import py_elements_with

    rng = random.Random(11)
    for data in (ATTRIBUTE_CASES, *(p.read_bytes() for p in pages)):
        root = parse(data).root
        els = [e for e in root.iter() if e is not root and isinstance(e.tag, str)]
        els[0].set("{urn:x}role", "navigation")  # namespaced: never matched by a plain name
        etree.SubElement(els[-1], "{urn:x}nav").set("role", "x")
        for round_ in range(2):
            for top in (root, *rng.sample(els, min(5, len(els)))):
                for tags, attrs in ELEMENTS_WITH_ASKS:
                    got, want = _attrs.elements_with(top, tags, attrs), py_elements_with(top, tags, attrs)
                    assert got == want and all(a is b for a, b in zip(got, want)), (round_, tags, attrs)
            for el in rng.sample(els, min(20, len(els))):
                if el.getparent() is not None:
                    el.getparent().remove(el)
    assert _attrs.elements_with(parse(ATTRIBUTE_CASES).root, frozenset(), ("u", "class")) != []
    with pytest.raises(ValueError, match="at most 8 attribute names"):
        _attrs.elements_with(root, frozenset(), tuple("abcdefghi"))


@compiled
def test_the_compiled_parents_of_is_the_xpath(pages):
    """The elements with n or more element children, picked in C, are the XPath's and the Python walk's (comments,
    processing instructions and text count for nothing), from the root or any element, also after the page
    was changed."""
    from pagesieve.core import _attrs
    from pagesieve.core.measure import py_parents_of

    rng = random.Random(13)
    for data in (ATTRIBUTE_CASES, b"<ul><li>a<!--c--><?p x?><li>b</ul><div><p>1<p>2<!--x--></div>",
                 *(p.read_bytes() for p in pages)):
        root = parse(data).root
        els = [e for e in root.iter() if e is not root and isinstance(e.tag, str)]
        for round_ in range(2):
            for top in (root, *rng.sample(els, min(5, len(els)))):
                for least in (0, 1, 2, 3, 5):
                    got = _attrs.parents_of(top, least)
                    assert got == etree.XPath(f"descendant-or-self::*[count(*) >= {least}]")(top), (round_, least)
                    assert got == py_parents_of(top, least)
            for el in rng.sample(els, min(20, len(els))):
                if el.getparent() is not None:
                    el.getparent().remove(el)


@compiled
def test_the_compiled_paragraph_sums_are_the_python_ones(pages):
    """The article filter's paragraph sums counted in C equal its Python walk's, element for element and
    in the same order, with and without <br> paragraphs, also after the page was changed."""
    from pagesieve.core import _paragraphs, dom
    from pagesieve.filters.article import _UNCOUNTED, py_paragraph_sums

    tags = frozenset({"p", "pre", "blockquote"})
    extra = (b"<body><div><p> one  two\xc2\xa0three\xe2\x80\x83four </p>five<br>six <!-- c --> seven"
             b"<script>no words</script><p>a<b> b </b>c<span>d</span></p><noscript><p>hidden text</p></noscript>"
             b"<blockquote>q<p>r</p></blockquote></div><svg><p>x y</p></svg></body>")
    rng = random.Random(11)
    for data in (extra, *(p.read_bytes() for p in pages)):
        page = parse(data)
        body = dom.body_of(page.root)
        for round_ in range(2):
            for br in (True, False):
                want = py_paragraph_sums(body, tags, br)
                assert _paragraphs.paragraph_sums(body, tags, dom.BLOCK_TAGS, _UNCOUNTED, br) == want, round_
                assert want or round_ or data is not extra  # the case above has paragraphs
            els = [e for e in body.iter() if e is not body]
            for el in rng.sample(els, min(20, len(els))):
                if el.getparent() is not None:
                    dom.remove_keep_tail(el)
