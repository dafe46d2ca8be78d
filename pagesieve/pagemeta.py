"""What a page says about itself in its metadata, read once from the page as parsed.

The page's headline (schema.org ``headline``, ``og:title``: :func:`pagesieve.filters.article.page_headline`),
its byline (``author`` and publication date ``<meta>``) and its declared types (schema.org ``@type`` in
JSON-LD and microdata, ``og:type``: :mod:`pagesieve.pagetype`) live in ``<meta>`` elements and
``<script type=application/ld+json>``. The ``ignore`` filter, first in every chain, removes both; a
filter after it that read them from the tree found nothing and fell back to the page's first ``<h1>``
— often the site's name (issue 15: the reader's headline check). So the first reader — ``ignore``,
before it removes anything — reads them once and keeps them with the page (``Page.meta``); every
later reader gets the same answer, whatever the filters removed since.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

_KEY = "pagemeta"


@dataclass(frozen=True)
class PageMeta:
    """The page's headline (:class:`pagesieve.filters.article.Headline` or None), byline ("By
    <author> · <date>" or None) and declared types (lower-case schema.org type names, ``og:type``
    values)."""

    headline: Any
    byline: str | None
    schema_types: tuple[str, ...]
    og_types: tuple[str, ...]
    cart: bool = False


def of(page) -> PageMeta:
    """The metadata of ``page`` (a :class:`pagesieve.document.Page`), read on the first call."""
    got = page.meta.get(_KEY)
    if got is None:
        from pagesieve.filters.article import page_headline
        from pagesieve.filters.main_content import _byline
        from pagesieve.pagetype import _OG_TYPE, _schema_types, has_cart

        root = page.root
        got = page.meta[_KEY] = PageMeta(headline=page_headline(root), byline=_byline(root),
                                         schema_types=tuple(_schema_types(root)),
                                         og_types=tuple(str(t) for t in _OG_TYPE(root)), cart=has_cart(root))
    return got
