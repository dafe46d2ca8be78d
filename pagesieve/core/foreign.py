"""SVG and MathML content as a browser's tree builder reads it (WHATWG HTML §13.2.6.5): the HTML tags that
take it out of that content, and the elements inside which tags are read as HTML again. Read by the tag
scan (:mod:`pagesieve.core.tagscan`, before a page is parsed) and by the parse's checks of libxml2's tree
(:mod:`pagesieve.engine.html5`), which knows no foreign content."""

from __future__ import annotations

import re

#: Start tags that take the tree builder out of SVG or MathML content (HTML: "any other start tag" in
#: foreign content's list of HTML elements; ``<font>`` with attributes aside).
BREAKOUT = frozenset("b big blockquote body br center code dd div dl dt em embed h1 h2 h3 h4 h5 h6 head hr i img "
                     "li listing menu meta nobr ol p pre ruby s small span strong strike sub sup table tt u ul "
                     "var".split())
#: The elements inside which tags are read as in HTML, by the foreign content they stand in: SVG's HTML
#: integration points, and MathML's text integration points (and ``annotation-xml``, an HTML integration
#: point only with an HTML ``encoding``: :func:`integration_point`). A MathML ``<title>`` is none: what a
#: ``<plaintext>`` in it starts is markup to a browser.
INTEGRATION_POINTS = {"svg": frozenset({"foreignobject", "desc", "title"}),
                      "math": frozenset({"mi", "mo", "mn", "ms", "mtext", "annotation-xml"})}
_HTML_ENCODING = re.compile(r"""\sencoding\s*=\s*["']?\s*(?:text/html|application/xhtml\+xml)\s*(?:["'\s/>]|$)""",
                            re.I)


def integration_point(space: str, name: str, start_tag: str = "") -> bool:
    """Whether an element ``name`` (lower case) in ``space``'s content (``svg`` or ``math``, the foreign element
    it stands in) reads its content as HTML; ``start_tag``, its markup, tells an ``annotation-xml`` of HTML
    from one of other markup."""
    if name not in INTEGRATION_POINTS.get(space, ()):
        return False
    return name != "annotation-xml" or bool(_HTML_ENCODING.search(start_tag))
