"""What a page says about itself in its metadata, read once from the page as parsed.

The page's headline (schema.org ``headline``, ``og:title``, ``<title>``: :func:`pagesieve.analysis.headline.page_headline`),
its byline (``author`` and publication date ``<meta>``) and its declared types (schema.org ``@type`` in
JSON-LD and microdata, ``og:type``: :mod:`pagesieve.analysis.pagetype`) live in ``<meta>`` elements and
``<script type=application/ld+json>``. The ``ignore`` filter, first in every chain, removes both; a
filter after it that read them from the tree would find nothing and fall back to the page's first
``<h1>`` — often the site's name. So the first reader — ``ignore``, before it removes anything —
reads them once and keeps them with the page (``Page.meta``); every later reader gets the same
answer, whatever the filters removed since. The readers share one :class:`~pagesieve.analysis.scan.Scan`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pagesieve.analysis.headline import byline, page_headline
from pagesieve.analysis.pagetype import has_cart, og_types, schema_types
from pagesieve.analysis.scan import Scan

_KEY = "pagemeta"


@dataclass(frozen=True)
class PageMeta:
    """The page's headline (:class:`pagesieve.analysis.headline.Headline` or None), byline ("By
    <author> · <date>" or None) and declared types (lower-case schema.org type names, ``og:type``
    values)."""

    headline: Any
    byline: str | None
    schema_types: tuple[str, ...]
    og_types: tuple[str, ...]
    cart: bool = False


def of(page) -> PageMeta:
    """The metadata of ``page`` (a :class:`pagesieve.engine.document.Page`), read on the first call."""
    got = page.meta.get(_KEY)
    if got is None:
        root = page.root
        scan = Scan(root)
        got = page.meta[_KEY] = PageMeta(headline=page_headline(root, scan), byline=byline(root, scan),
                                         schema_types=tuple(schema_types(root, scan)),
                                         og_types=tuple(og_types(root, scan)), cart=has_cart(root, scan))
    return got
