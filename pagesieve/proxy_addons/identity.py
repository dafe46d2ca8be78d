"""Who is asking: the user behind each request, and that user's settings for it.

With ``users.auth`` on, mitmproxy's own proxy authentication (the ``proxyauth`` addon: ``407
Proxy Authentication Required``, connections authenticated once by ``CONNECT``) checks every
client; this addon gives it pagesieve's validator — the htpasswd file of ``users.htpasswd``
(:class:`pagesieve.users.Htpasswd`: bcrypt, re-read when the file changes, a verified password
remembered so bcrypt does not run on every plain-HTTP request). The user name then comes only from
``flow.metadata["proxyauth"]``, which mitmproxy sets after checking the password: no request
header can claim an identity. With auth off everyone is the ``default`` user.

For each request the user's effective settings on that site
(:meth:`pagesieve.profiles.ProfileStore.effective`: preset, overrides, per-site rule) go to
``flow.metadata["pagesieve.profile"]`` for the filtering addon; the user name to
``flow.metadata["pagesieve.user"]`` for the settings page.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from mitmproxy import ctx, exceptions, http

from pagesieve.errors import ConfigError
from pagesieve.proxy_addons.options import ConfigSource

log = logging.getLogger("pagesieve.proxy")

USER_KEY = "pagesieve.user"
PROFILE_KEY = "pagesieve.profile"


class HtpasswdValidator:
    """The callable mitmproxy's ``proxyauth`` addon asks: ``validator(user, password) -> bool``."""

    def __init__(self, path: str) -> None:
        from pagesieve.users import Htpasswd

        self.htpasswd = Htpasswd(path)
        self.htpasswd.read()  # a malformed file fails at start-up, not on the first request

    def __call__(self, username: str, password: str) -> bool:
        try:
            return self.htpasswd.check(username, password)
        except ConfigError as err:  # the file became unreadable or malformed while running
            log.warning("proxy authentication: %s", err)
            return False


class Identity:
    name = "pagesieve_identity"

    def __init__(self, source: ConfigSource) -> None:
        self.source = source
        self.store: Any = None
        self._store_key: Any = None
        self.auth = False

    def configure(self, updated: set[str]) -> None:
        cfg = self.source.cfg
        if cfg is None:
            return
        users = cfg.globals["users"]
        self.auth = users.auth
        if users.auth:
            proxyauth = ctx.master.addons.get("proxyauth")
            if proxyauth is None:
                raise exceptions.OptionsError("users.auth is on but mitmproxy's proxyauth addon is not loaded")
            path = Path(users.htpasswd).expanduser()
            directory = cfg.globals.get("directory")
            if not path.exists() and not (directory and directory.url):
                raise exceptions.OptionsError(f"users.auth is on but users.htpasswd ({path}) does not exist; "
                                              "add a user with `pagesieve users add NAME`")
            try:
                from pagesieve.users_ldap import with_directory  # directory logins after htpasswd

                proxyauth.validator = with_directory(HtpasswdValidator(str(path)), directory)
            except ConfigError as err:
                raise exceptions.OptionsError(str(err)) from err
        key = (id(cfg), cfg.globals["state"].path)
        if key != self._store_key:
            from pagesieve.profiles import ProfileStore

            try:
                store = ProfileStore(cfg)
            except ConfigError as err:
                raise exceptions.OptionsError(str(err)) from err
            if self.store is not None:
                self.store.close()
            self.store, self._store_key = store, key

    def done(self) -> None:
        if self.store is not None:
            self.store.close()
            self.store = None

    def user_of(self, flow: http.HTTPFlow) -> str | None:
        """The authenticated user, ``default`` without auth, None when authentication failed."""
        from pagesieve.users import DEFAULT_USER

        if not self.auth:
            return DEFAULT_USER
        creds = flow.metadata.get("proxyauth")
        return creds[0] if creds else None

    def requestheaders(self, flow: http.HTTPFlow) -> None:
        user = self.user_of(flow)
        if user is not None:
            flow.metadata[USER_KEY] = user

    def request(self, flow: http.HTTPFlow) -> None:
        user = flow.metadata.get(USER_KEY)
        if user is None or flow.response is not None or self.store is None:
            return
        try:
            flow.metadata[PROFILE_KEY] = self.store.effective(user, flow.request.pretty_host, self.source.preset)
        except Exception as err:  # noqa: BLE001 - a broken profile store must not stop browsing
            log.warning("profile of %s unavailable (%s); the default settings apply", user, err)
