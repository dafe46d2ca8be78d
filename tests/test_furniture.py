"""The page's semantic main block: one walk for both of its XPaths, the same answer."""

import pytest

from pagesieve.analysis.furniture import ARTICLES, MAINS, semantic_main
from pagesieve.engine.document import parse
from tests.conftest import EXTRACTION


def by_xpaths(root):
    """:func:`semantic_main` as its two XPaths say it (the definition it keeps to)."""
    for xpath in (MAINS, ARTICLES):
        found = [el for el in xpath(root) if isinstance(el.tag, str)]
        if len(found) == 1:
            return found[0]
    return None


@pytest.mark.parametrize("body, expected", [
    ("<main id=m><p>x</p></main>", "m"),
    ("<div role=main id=m><p>x</p></div>", "m"),
    ("<main id=m></main><div role=main id=n></div><article id=a></article>", "a"),  # two mains: the article
    ("<article id=a><main id=m></main></article>", "m"),
    ("<article id=a></article><article id=b></article>", None),
    ("<div itemprop=articleBody id=b></div>", "b"),
    ("<article role=main id=a></article><article id=b></article>", "a"),  # the main, though two articles
    ("<div role=Main id=m></div><div itemprop=articlebody id=b></div>", None),  # values compared as written
    ("<p>no landmark</p>", None),
])
def test_the_one_main_else_the_one_article(body, expected):
    root = parse(f"<html><body>{body}</body></html>".encode()).root
    got = semantic_main(root)
    assert (got.get("id") if got is not None else None) == expected
    assert got is by_xpaths(root)
    assert semantic_main(root.find("body")) is got  # the whole document, from any element


def test_the_walk_is_the_xpaths_on_corpus_pages():
    pages = sorted(EXTRACTION.glob("*/pages/*.html"))[::5]
    if not pages:
        pytest.skip(f"no corpus pages under {EXTRACTION}")
    found = 0
    for path in pages:
        root = parse(path.read_bytes()).root
        got = semantic_main(root)
        assert got is by_xpaths(root), path
        found += got is not None
    assert found > len(pages) // 4
