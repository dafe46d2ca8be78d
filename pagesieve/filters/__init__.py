"""The filters, and the one place that names them all.

A filter is one module here with one :class:`~pagesieve.filters.base.Filter` subclass. The
registry below is explicit (no registration on import); the order of the chain is not set
here but in ``config.yaml``'s presets.
"""

from __future__ import annotations

from pagesieve.filters.base import Filter
from pagesieve.filters.ignore import IgnoreFilter
from pagesieve.filters.link_density import LinkDensityFilter
from pagesieve.filters.text_density import TextDensityFilter

FILTERS: dict[str, type[Filter]] = {f.name: f for f in (
    IgnoreFilter,
    LinkDensityFilter,
    TextDensityFilter,
)}

__all__ = ["FILTERS", "Filter"]
