"""mitmproxy addons: the only part of pagesieve that knows HTTP. They hand HTML bodies to the chain and nothing else.

:func:`default_addons` is the one ordered list of them (like mitmproxy's own
``mitmproxy/addons/__init__.py``): ``pagesieve run`` and ``mitmdump -s pagesieve/proxy_addons/script.py``
both load exactly this list. The order matters:

1. :class:`~pagesieve.proxy_addons.options.ConfigSource` declares the ``pagesieve_config`` /
   ``pagesieve_preset`` mitmproxy options and holds the validated configuration; every other
   addon reads ``source.cfg`` (never parses config per request).
   :class:`~pagesieve.proxy_addons.proxy_protocol.ProxyProtocol` (right after it) reads the PROXY
   protocol header a trusted load balancer puts in front of a connection: every addon after it sees
   the client's own address.
2. :class:`~pagesieve.proxy_addons.identity.Identity`: who the user is (mitmproxy's proxy
   authentication with pagesieve's htpasswd validator) and their settings for the request
   (``flow.metadata["pagesieve.profile"]``, built when the filtering addon needs them).
3. :class:`~pagesieve.proxy_addons.control.SettingsTunnel` answers a ``CONNECT`` to the settings
   host itself (the settings page over HTTPS, for HTTPS pages' controls);
   :class:`~pagesieve.proxy_addons.settings_page.SettingsPage` answers requests to the settings
   host itself (``flow.metadata["pagesieve.own_page"]``: never filtered).
4. :class:`~pagesieve.proxy_addons.filtering.Declutter`: runs the chain on HTML responses.
5. :class:`~pagesieve.proxy_addons.health.Health`: answers the load balancer's health check
   (``http://pagesieve.health/``) on the request's headers; never filtered, never logged.
   :class:`~pagesieve.proxy_addons.metrics.Metrics` (before it) counts what the filtering addon
   decided, for ``http://pagesieve.health/metrics``.
6. :class:`~pagesieve.proxy_addons.connections.ConnectionLimits`: closes client connections that
   stay idle, or send no request headers, too long.
"""

from __future__ import annotations

from typing import Any


def default_addons(cfg: Any = None, *, executor: Any = None) -> list:
    """The ordered addon list. ``cfg`` is a loaded :class:`pagesieve.engine.config.Config`, or None to
    load the file named by the ``pagesieve_config`` option (``$PAGESIEVE_CONFIG`` / ``config.yaml``
    when that is empty). ``executor`` replaces the worker pool (tests)."""
    from pagesieve.proxy_addons.connections import ConnectionLimits
    from pagesieve.proxy_addons.control import PageControl, SettingsTunnel
    from pagesieve.proxy_addons.filtering import Declutter
    from pagesieve.proxy_addons.health import Health
    from pagesieve.proxy_addons.identity import Identity
    from pagesieve.proxy_addons.metrics import Metrics
    from pagesieve.proxy_addons.options import ConfigSource
    from pagesieve.proxy_addons.proxy_protocol import ProxyProtocol
    from pagesieve.proxy_addons.settings_page import SettingsPage

    source = ConfigSource(cfg)
    identity = Identity(source)
    control = PageControl(source, identity)  # the page control: the filtering addon and the settings app share it
    declutter = Declutter(source, executor=executor, control=control, identity=identity)
    balancers = ProxyProtocol(source)
    metrics = Metrics(identity, declutter, balancers)
    return [
        source,
        balancers,
        identity,
        SettingsTunnel(source),
        SettingsPage(source, identity, control),
        declutter,
        metrics,
        Health(identity, declutter, metrics),
        ConnectionLimits(source),
    ]
