"""The proxy's settings (the global ``proxy:`` section) and the addon that holds the configuration.

:class:`ProxySettings` is declared in :mod:`pagesieve.engine.globals` (below the proxy, so the engine reads it
without mitmproxy).
:class:`ConfigSource` is the first pagesieve addon: it declares the mitmproxy options
``pagesieve_config`` (a config file) and ``pagesieve_preset`` (the default preset), loads and
validates the file when they change — a bad file is refused with mitmproxy's own option error,
and the configuration in use stays as it was — and hands the loaded
:class:`~pagesieve.engine.config.Config` to the addons after it (``source.cfg``).
"""

from __future__ import annotations

import logging
import os
from typing import Any

from mitmproxy import ctx, exceptions

from pagesieve.core.errors import ConfigError
from pagesieve.engine import config as C
from pagesieve.engine.globals import ProxySettings

__all__ = ["ConfigSource", "ProxySettings"]

log = logging.getLogger("pagesieve.proxy")


class ConfigSource:
    """Holds the validated configuration for the addons after it (mitmproxy options in, ``cfg`` out)."""

    name = "pagesieve_config_source"

    def __init__(self, cfg: Any = None) -> None:
        self._given = cfg
        self.cfg = cfg
        self.preset: str | None = None

    @property
    def default_preset(self) -> str:
        """The preset of users who chose none: the run's (``--preset``, ``pagesieve_preset``), else the
        config file's ``preset``. The one place that decides it ("" before the configuration is loaded:
        mitmproxy reads every attribute of an addon when it loads it)."""
        return self.cfg.preset_for(self.preset) if self.cfg is not None else ""

    def load(self, loader) -> None:
        loader.add_option("pagesieve_config", str, "",
                          "pagesieve config file (empty: $PAGESIEVE_CONFIG, else the repository's config.yaml).")
        loader.add_option("pagesieve_preset", str, "",
                          "pagesieve preset for users who chose none (empty: the config's `preset`).")

    def configure(self, updated: set[str]) -> None:
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
