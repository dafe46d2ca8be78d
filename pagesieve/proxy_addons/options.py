"""The proxy's settings (the global ``proxy:`` section) and the addon that holds the configuration.

:class:`ProxySettings` is declared here once; ``config.yaml``'s generated block documents it.
:class:`ConfigSource` is the first pagesieve addon: it declares the mitmproxy options
``pagesieve_config`` (a config file) and ``pagesieve_preset`` (the default preset), loads and
validates the file when they change — a bad file is refused with mitmproxy's own option error,
and the configuration in use stays as it was — and hands the loaded
:class:`~pagesieve.config.Config` to the addons after it (``source.cfg``).
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from typing import Any

from mitmproxy import ctx, exceptions

from pagesieve.errors import ConfigError
from pagesieve.settings import setting

log = logging.getLogger("pagesieve.proxy")

LOG_LEVELS = ("debug", "info", "warning", "error")


@dataclass(frozen=True)
class ProxySettings:
    """The filtering proxy (``pagesieve run`` / ``mitmdump -s pagesieve/proxy_addons/script.py``)."""

    listen_host: str = setting("127.0.0.1", "Address the proxy listens on (127.0.0.1: this machine only; "
                                            "0.0.0.0 exposes it to the network).", group="proxy")
    listen_port: int = setting(8080, "TCP port the proxy listens on.", minimum=1, maximum=65535, group="proxy")
    confdir: str = setting("~/.mitmproxy", "mitmproxy's directory: its CA certificate (mitmproxy-ca-cert.pem, "
                                           "to trust for HTTPS) and its own config.", group="proxy")
    workers: int = setting(0, "Worker processes that run the filters (0: one per CPU core).",
                           minimum=0, maximum=256, group="proxy")
    max_body_bytes: int = setting(8_000_000, "Bodies larger than this many bytes (compressed or decoded) are "
                                             "served unfiltered (reason=too-large); the largest corpus page "
                                             "is 1.5 MB.", minimum=1, group="proxy")
    timeout_seconds: float = setting(10.0, "A page whose filtering takes longer than this many seconds is served "
                                           "unfiltered (reason=timeout); time waiting for a free worker does "
                                           "not count.", minimum=0.01, maximum=600, group="proxy")
    max_queue_ms: int = setting(2000, "A page that would wait longer than this many milliseconds for a free "
                                      "worker is served unfiltered (reason=busy): an overloaded proxy degrades "
                                      "to a plain proxy instead of slowing every page down.",
                                minimum=0, maximum=600_000, group="proxy")
    bypass_hosts: tuple[str, ...] = setting((), "Sites never filtered: a host matches an entry equal to it or "
                                                "ending in '.' + entry (example.org covers www.example.org).",
                                            group="proxy")
    bypass_param: str = setting("pagesieve=off", "Query parameter (name=value) that shows one page unfiltered; "
                                                 "removed before the request goes to the site. Empty: none.",
                                pattern=(r"(?:[^=&?# ][^&?# ]*=[^&?# ]*)?",
                                         "name=value, e.g. pagesieve=off, or empty"), group="proxy")
    bypass_header: str = setting("X-Pagesieve-Bypass", "Request header that, when present and not '0', shows one "
                                                       "page unfiltered; removed before the request goes to the "
                                                       "site. Empty: none.",
                                 pattern=(r"[!#$%&'*+.^_`|~0-9A-Za-z-]*",
                                          "an HTTP header name, e.g. X-Pagesieve-Bypass, or empty"), group="proxy")
    log_level: str = setting("info", "Log level of the proxy's own messages (info: one line per filtered page "
                                     "and per page served unfiltered because of an error).",
                             choices=LOG_LEVELS, group="proxy")


class ConfigSource:
    """Holds the validated configuration for the addons after it (mitmproxy options in, ``cfg`` out)."""

    name = "pagesieve_config_source"

    def __init__(self, cfg: Any = None) -> None:
        self._given = cfg
        self.cfg = cfg
        self.preset: str | None = None

    def load(self, loader) -> None:
        loader.add_option("pagesieve_config", str, "",
                          "pagesieve config file (empty: $PAGESIEVE_CONFIG, else the repository's config.yaml).")
        loader.add_option("pagesieve_preset", str, "",
                          "pagesieve preset for users who chose none (empty: the config's `preset`).")

    def configure(self, updated: set[str]) -> None:
        from pagesieve import config as C

        if "pagesieve_config" in updated or self.cfg is None:
            path = ctx.options.pagesieve_config
            if path or self._given is None:
                try:
                    cfg = C.load(os.path.expanduser(path) if path else None)
                except ConfigError as err:
                    raise exceptions.OptionsError(f"pagesieve_config: {err}") from err
            else:
                cfg = self._given
            self._check_preset(cfg, ctx.options.pagesieve_preset)
            self.cfg = cfg
        if "pagesieve_preset" in updated:
            self._check_preset(self.cfg, ctx.options.pagesieve_preset)
        self.preset = ctx.options.pagesieve_preset or None
        level = self.settings.log_level.upper()
        log.setLevel(level)

    def running(self) -> None:
        """`mitmdump -s`: mitmproxy's listen_host defaults to "" (every interface) and its servers
        start before a script is loaded. Without an explicit --listen-host they are restarted on
        proxy.listen_host (127.0.0.1 by default) — pass --listen-host to skip that first moment."""
        want = self.settings.listen_host
        if "listen_host" not in ctx.options or ctx.options.listen_host != "" or not want:
            return
        ctx.options.update(listen_host=want)
        if ctx.options.server:
            log.warning("listening on %s (proxy.listen_host), not on every interface", want)
            ctx.options.update(server=False)  # mitmproxy's own switch: stops the servers…
            ctx.options.update(server=True)  # …and starts them on the new address

    @staticmethod
    def _check_preset(cfg: Any, preset: str) -> None:
        if preset and preset not in cfg.presets:
            raise exceptions.OptionsError(
                f"pagesieve_preset = {preset!r}: unknown preset; available: {', '.join(sorted(cfg.presets))}")

    @property
    def settings(self) -> ProxySettings:
        # mitmproxy reads every attribute of an addon when it registers it (looking for commands),
        # before `configure` loaded the file: defaults until then.
        if self.cfg is None:
            return ProxySettings()
        return self.cfg.globals.get("proxy") or ProxySettings()
