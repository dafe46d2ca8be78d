"""The filters, and the one place that names them all.

A filter is one module here with one :class:`~pagesieve.filters.base.Filter` subclass. The
registry below is explicit (no registration on import); the order of the chain is not set
here but in ``config.yaml``'s presets.
"""

from __future__ import annotations

from pagesieve.filters.accessibility import AccessibilityFilter
from pagesieve.filters.ads import AdsFilter
from pagesieve.filters.article import ArticleFilter
from pagesieve.filters.base import Filter
from pagesieve.filters.empty_tables import EmptyTableFilter
from pagesieve.filters.ignore import IgnoreFilter
from pagesieve.filters.image_captions import ImageCaptionsFilter
from pagesieve.filters.link_blocks import LinkBlocksFilter
from pagesieve.filters.link_density import LinkDensityFilter
from pagesieve.filters.link_lists import LinkListFilter
from pagesieve.filters.main_content import MainContentFilter
from pagesieve.filters.removed_links import RemovedLinksFilter
from pagesieve.filters.segments import SegmentsFilter
from pagesieve.filters.template_blocks import TemplateBlocksFilter
from pagesieve.filters.text_density import TextDensityFilter

FILTERS: dict[str, type[Filter]] = {f.name: f for f in (
    IgnoreFilter,
    AdsFilter,
    LinkListFilter,
    ArticleFilter,
    EmptyTableFilter,
    RemovedLinksFilter,
    LinkBlocksFilter,
    LinkDensityFilter,
    MainContentFilter,
    TextDensityFilter,
    TemplateBlocksFilter,
    SegmentsFilter,
    ImageCaptionsFilter,
    AccessibilityFilter,
)}

__all__ = ["FILTERS", "Filter"]
