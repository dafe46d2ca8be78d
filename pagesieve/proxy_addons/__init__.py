"""mitmproxy addons: the only part of pagesieve that knows HTTP. They hand HTML bodies to the chain and nothing else.

:func:`default_addons` is the one ordered list of them (like mitmproxy's own
``mitmproxy/addons/__init__.py``): ``pagesieve run`` and ``mitmdump -s pagesieve/proxy_addons/script.py``
both load exactly this list. The order matters:

1. :class:`~pagesieve.proxy_addons.options.ConfigSource` declares the ``pagesieve_config`` /
   ``pagesieve_preset`` mitmproxy options and holds the validated configuration; every other
   addon reads ``source.cfg`` (never parses config per request).
2. identity / per-user addons (they set ``flow.metadata["pagesieve.profile"]`` and
   ``flow.metadata["pagesieve.own_page"]`` before the response hook).
3. :class:`~pagesieve.proxy_addons.filtering.Declutter`: runs the chain on HTML responses.
"""

from __future__ import annotations

from typing import Any


def default_addons(cfg: Any = None, *, executor: Any = None) -> list:
    """The ordered addon list. ``cfg`` is a loaded :class:`pagesieve.config.Config`, or None to
    load the file named by the ``pagesieve_config`` option (``$PAGESIEVE_CONFIG`` / ``config.yaml``
    when that is empty). ``executor`` replaces the worker pool (tests)."""
    from pagesieve.proxy_addons.filtering import Declutter
    from pagesieve.proxy_addons.options import ConfigSource

    source = ConfigSource(cfg)
    return [
        source,
        Declutter(source, executor=executor),
    ]
