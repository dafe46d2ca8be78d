"""pagesieve: a filtering HTTP(S) proxy that declutters web pages.

The package has three parts: ``filters`` (one module per DOM filter, pure, no HTTP),
``nlp`` (named-entity work for the image-caption filter) and ``proxy_addons`` (the
mitmproxy addons that run a chain of filters on every HTML response).
"""

__version__ = "0.1.0"
