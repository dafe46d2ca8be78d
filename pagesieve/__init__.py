"""pagesieve: a filtering HTTP(S) proxy that declutters web pages.

The package has three parts: ``filters`` (one module per DOM filter, pure, no HTTP),
``nlp`` (named-entity work for the image-caption filter) and ``proxy_addons`` (the
mitmproxy addons that run a chain of filters on every HTML response).

The public API (:mod:`pagesieve.api`)::

    pagesieve.filter_html(html, *, url=None, preset=None, output="html", settings=None) -> str
    pagesieve.Filterer(preset=None, *, output=None, settings=None, config=None)  # build once, call per page
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"
__all__ = ["ConfigError", "Filtered", "Filterer", "InputError", "PagesieveError", "__version__", "filter_html"]

_API = {"Filtered", "Filterer", "filter_html"}
_ERRORS = {"ConfigError", "InputError", "PagesieveError"}


def __getattr__(name: str) -> Any:
    # Loaded on first use (PEP 562): `import pagesieve.core.dom` must not build the whole engine, and the
    # engine's modules import this package first.
    if name in _API:
        from pagesieve import api
        return getattr(api, name)
    if name in _ERRORS:
        from pagesieve.core import errors
        return getattr(errors, name)
    raise AttributeError(f"module 'pagesieve' has no attribute {name!r}")
