"""Who is asking: the user behind each request, and that user's settings for it.

With ``users.auth`` on, this addon authenticates every client as mitmproxy's ``proxyauth`` addon
does (same header parsing, ``407 Proxy Authentication Required`` with the realm of
``users.realm``, a connection authenticated once by ``CONNECT`` stays so, the checked name in
``flow.metadata["proxyauth"]``) — but without blocking the event loop: proxyauth calls its
validator synchronously in its hooks, and a bcrypt check (cost 12) there stalls every client.
Here the hooks are async and a password is checked in a small thread pool
(:data:`BCRYPT_THREADS`) against ``users.htpasswd`` (:class:`pagesieve.store.users.Htpasswd`:
re-read when the file changes; verdicts remembered, so a pair costs one bcrypt). Failed logins
are limited per client address (behind a load balancer, the one its PROXY protocol header gave:
:mod:`pagesieve.proxy_addons.proxy_protocol`) and per (user name, address) (:class:`pagesieve.store.users.FailureLimiter`,
an attempt counted as failed from the moment its check starts): past the limit a client gets
``403`` with ``Retry-After`` at once, and a remembered good password still works.

Guessing must not delay real users: a remembered good pair never waits for a check; at most
:data:`~pagesieve.store.users.MAX_CHECKS_PER_ADDRESS` checks per address and :data:`MAX_PENDING_CHECKS`
in all are under way or queued, a further attempt is answered ``407`` with ``Retry-After`` at once.
The directory (``directory:``, :mod:`pagesieve.store.users_ldap`) is asked for names not in the
htpasswd file, in its own thread, never in the bcrypt threads, so a hung directory delays no htpasswd user; when it cannot be asked the
client gets ``503`` with ``Retry-After`` and the attempt does not count as a failed login.
mitmproxy's own ``proxyauth`` option must stay unset with ``users.auth``.
The user name comes only from ``flow.metadata["proxyauth"]``: no request header can claim an
identity. With auth off everyone is the ``default`` user.

The user name goes to ``flow.metadata["pagesieve.user"]`` (the settings page, the page control).
The user's effective settings on the site (:meth:`pagesieve.store.profiles.ProfileStore.effective`:
preset, overrides, per-site rule) go to ``flow.metadata["pagesieve.profile"]`` only when the
filtering addon asks for them (:meth:`Identity.load_profile`), for a response that may be HTML:
the request hook notes whose settings apply and for which host, style sheets and images never
build them.
"""

from __future__ import annotations

import asyncio
import logging
import math
import threading
import weakref
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from mitmproxy import connection, ctx, exceptions, http
from mitmproxy.addons.proxyauth import http_auth_header, is_http_proxy, parse_http_basic_auth
from mitmproxy.net.http import status_codes

from pagesieve.core.errors import ConfigError
from pagesieve.proxy_addons import flowkeys
from pagesieve.proxy_addons.options import ConfigSource
from pagesieve.store.users_ldap import DirectoryUnavailable

log = logging.getLogger("pagesieve.proxy")

#: The host a request's profile is for, noted by the request hook; the profile is built from it on demand.
PROFILE_HOST_KEY = "pagesieve.profile_host"
#: Threads that run bcrypt checks: at most this many checks at once, whatever the number of
#: clients guessing (bcrypt releases the GIL; the event loop keeps serving meanwhile).
BCRYPT_THREADS = 2
#: Password checks under way or queued at once (all addresses); past it an attempt is answered 407
#: with Retry-After at once. Three per bcrypt thread: a first login waits for at most three checks
#: (about 0.3 s each at cost 12 on one core) before its own.
MAX_PENDING_CHECKS = 3 * BCRYPT_THREADS
#: Directory checks under way or queued at once; past it "try again" (the directory answers in
#: milliseconds when it is well; more waiting means it is not).
MAX_PENDING_DIRECTORY_CHECKS = 4
#: Retry-After (seconds) when the checks are all taken or the directory is unavailable.
RETRY_AFTER_SECONDS = 2


class HtpasswdValidator:
    """The callable mitmproxy's ``proxyauth`` addon asks: ``validator(user, password) -> bool``."""

    def __init__(self, path: str) -> None:
        from pagesieve.store.users import Htpasswd

        self.htpasswd = Htpasswd(path)
        self.htpasswd.read()  # a malformed file fails at start-up, not on the first request

    def remembered(self, username: str, password: str) -> bool | None:
        try:
            return self.htpasswd.remembered(username, password)
        except ConfigError as err:
            log.warning("proxy authentication: %s", err)
            return False

    def knows(self, username: str) -> bool:
        """Whether ``username`` is in the file (then only its password there logs in)."""
        try:
            return self.htpasswd.knows(username)
        except ConfigError:
            return False

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
        self.validator: Any = None  # validator(user, password) -> bool, e.g. HtpasswdValidator
        self.directory: Any = None  # users_ldap.DirectoryValidator, or None
        self.realm = "pagesieve"
        self.limiter: Any = None
        self._checks: ThreadPoolExecutor | None = None
        self._directory_checks: ThreadPoolExecutor | None = None
        self.counts: Counter[str] = Counter()  # login checks by result (metrics)
        self._pending = 0  # password checks under way or queued
        self._pending_directory = 0
        # Connections authenticated by a CONNECT (as mitmproxy's proxyauth keeps them).
        self.authenticated: weakref.WeakKeyDictionary[connection.Client, tuple[str, str]] = (
            weakref.WeakKeyDictionary())

    def configure(self, updated: set[str]) -> None:
        cfg = self.source.cfg
        if cfg is None:
            return
        users = cfg.globals["users"]
        self.auth = users.auth
        self.realm = users.realm
        if users.auth:
            from pagesieve.store.users import FailureLimiter, dummy_hash

            if getattr(ctx.options, "proxyauth", None):
                raise exceptions.OptionsError("users.auth is on: leave mitmproxy's proxyauth option unset "
                                              "(pagesieve checks users.htpasswd itself)")
            path = Path(users.htpasswd).expanduser()
            directory = cfg.globals.get("directory")
            if not path.exists() and not (directory and directory.url):
                from pagesieve.preflight import command

                raise exceptions.OptionsError(f"users.auth is on but users.htpasswd ({path}) does not exist; "
                                              f"add a user with `{command(cfg, 'users add NAME')}`")
            try:
                self.validator = HtpasswdValidator(str(path))
                if directory and directory.url:  # directory logins after htpasswd
                    from pagesieve.store.users_ldap import DirectoryValidator

                    self.directory = DirectoryValidator(directory)
                else:
                    self.directory = None
            except ConfigError as err:
                raise exceptions.OptionsError(str(err)) from err
            if self.limiter is None:
                self.limiter = FailureLimiter()
            if self._checks is None:
                self._checks = ThreadPoolExecutor(BCRYPT_THREADS, thread_name_prefix="pagesieve-bcrypt")
            if self.directory is not None and self._directory_checks is None:
                # One thread: the directory's service connection takes one check at a time.
                self._directory_checks = ThreadPoolExecutor(1, thread_name_prefix="pagesieve-directory")
            # The unknown-user hash costs a real bcrypt to make: make it now, off the event loop.
            threading.Thread(target=dummy_hash, daemon=True).start()
        else:
            self.validator = None
        key = (id(cfg), cfg.globals["state"].path)
        if key != self._store_key:
            from pagesieve.store.profiles import ProfileStore

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
        for pool in (self._checks, self._directory_checks):
            if pool is not None:
                pool.shutdown(wait=False, cancel_futures=True)
        self._checks = self._directory_checks = None

    # -- authentication (mitmproxy's proxyauth flow, checked off the event loop) ----------
    async def http_connect(self, flow: http.HTTPFlow) -> None:
        if self.auth and await self._authenticate(flow):
            # All further requests over this connection are authenticated.
            self.authenticated[flow.client_conn] = flow.metadata["proxyauth"]

    async def _authenticate(self, flow: http.HTTPFlow) -> bool:
        """Check the request's credentials; set ``flow.metadata["proxyauth"]`` or an error response."""
        assert self.validator is not None and self.limiter is not None and self._checks is not None
        is_proxy = is_http_proxy(flow)
        header = http_auth_header(is_proxy)
        try:
            _, user, password = parse_http_basic_auth(flow.request.headers.get(header, ""))
        except ValueError:
            flow.response = self._challenge(is_proxy)
            return False
        ok = self._remembered(user, password)  # known pairs never wait behind guesses
        if ok is None:
            address = flow.client_conn.peername[0] if flow.client_conn.peername else ""
            if self._pending >= MAX_PENDING_CHECKS:
                self.counts["refused-busy"] += 1
                flow.response = self._busy(is_proxy)
                return False
            attempt, wait, locked = self.limiter.begin(address, user)
            if attempt is None:
                self.counts["refused-locked" if locked else "refused-busy"] += 1
                flow.response = self._too_many(wait) if locked else self._busy(is_proxy)
                return False
            failed = True
            self._pending += 1
            try:
                ok = await self._check(user, password)
                failed = not ok
            except DirectoryUnavailable as err:
                failed = False  # not the client's fault: not counted
                self.counts["directory-unavailable"] += 1
                log.warning("proxy authentication of %r from %s: %s", user, address, err)
                flow.response = self._unavailable()
                return False
            finally:
                self._pending -= 1
                self.limiter.end(attempt, failed)
            self.counts["ok" if ok else "failed"] += 1
            if not ok:
                log.info("proxy authentication failed for %r from %s", user, address)
        if not ok:
            flow.response = self._challenge(is_proxy)
            return False
        flow.metadata["proxyauth"] = (user, password)
        del flow.request.headers[header]
        return True

    def _remembered(self, user: str, password: str) -> bool | None:
        """A verdict known without a check (a pair verified or refused before), else None."""
        remembered = getattr(self.validator, "remembered", None)
        ok = remembered(user, password) if remembered is not None else None
        if self.directory is None or ok:
            return ok
        # Not htpasswd's: the directory's, if it verified the pair lately; else it is asked.
        return True if self.directory.remembered(user, password) else None

    async def _check(self, user: str, password: str) -> bool:
        """The password checks: htpasswd (bcrypt threads), then the directory (its own thread)."""
        assert self._checks is not None
        loop = asyncio.get_running_loop()
        if await loop.run_in_executor(self._checks, self.validator, user, password):
            return True
        if self.directory is None or self._directory_checks is None or self.validator.knows(user):
            return False  # a name in the htpasswd file is the file's alone
        if self._pending_directory >= MAX_PENDING_DIRECTORY_CHECKS:
            raise DirectoryUnavailable("the directory has too many checks under way")
        self._pending_directory += 1
        try:
            return await loop.run_in_executor(self._directory_checks, self.directory.check, user, password)
        finally:
            self._pending_directory -= 1

    def _busy(self, is_proxy: bool) -> http.Response:
        """Too many checks under way: ask for the credentials again after RETRY_AFTER_SECONDS."""
        response = self._challenge(is_proxy)
        response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response

    @staticmethod
    def _unavailable() -> http.Response:
        return http.Response.make(
            status_codes.SERVICE_UNAVAILABLE,
            f"The user directory is not answering; try again in {RETRY_AFTER_SECONDS} s.\n",
            {"Retry-After": str(RETRY_AFTER_SECONDS), "Content-Type": "text/plain; charset=utf-8"})

    def _challenge(self, is_proxy: bool) -> http.Response:
        code = status_codes.PROXY_AUTH_REQUIRED if is_proxy else status_codes.UNAUTHORIZED
        realm = self.realm.replace("\\", "\\\\").replace('"', '\\"')
        name = "Proxy-Authenticate" if is_proxy else "WWW-Authenticate"
        reason = status_codes.RESPONSES[code]
        return http.Response.make(code, f"<html><head><title>{code} {reason}</title></head>"
                                        f"<body><h1>{code} {reason}</h1></body></html>",
                                  {name: f'Basic realm="{realm}"', "Content-Type": "text/html"})

    @staticmethod
    def _too_many(wait: float) -> http.Response:
        seconds = max(1, math.ceil(wait))
        return http.Response.make(
            status_codes.FORBIDDEN,
            f"Too many failed logins from this address; try again in {seconds} s.\n",
            {"Retry-After": str(seconds), "Content-Type": "text/plain; charset=utf-8"})

    def user_of(self, flow: http.HTTPFlow) -> str | None:
        """The authenticated user, ``default`` without auth, None when authentication failed."""
        from pagesieve.store.users import DEFAULT_USER

        if not self.auth:
            return DEFAULT_USER
        creds = flow.metadata.get("proxyauth")
        return creds[0] if creds else None

    async def requestheaders(self, flow: http.HTTPFlow) -> None:
        if self.auth and self.validator is not None:
            if flow.client_conn in self.authenticated:  # by an earlier CONNECT
                flow.metadata["proxyauth"] = self.authenticated[flow.client_conn]
            elif not flow.is_replay and not await self._authenticate(flow):
                return
        user = self.user_of(flow)
        if user is not None:
            flow.metadata[flowkeys.USER] = user

    def request(self, flow: http.HTTPFlow) -> None:
        """Note that this request's user has settings to apply (not for a response an addon already
        made); :meth:`load_profile` builds them when the response may be HTML."""
        if flow.metadata.get(flowkeys.USER) is None or flow.response is not None or self.store is None:
            return
        flow.metadata[PROFILE_HOST_KEY] = flow.request.pretty_host

    async def load_profile(self, flow: http.HTTPFlow) -> None:
        """Build the user's profile for the host noted by :meth:`request`, once per flow."""
        host = flow.metadata.pop(PROFILE_HOST_KEY, None)
        user = flow.metadata.get(flowkeys.USER)
        if host is None or user is None or self.store is None or flowkeys.PROFILE in flow.metadata:
            return
        try:
            # In a thread: a cache miss or a change check reads the state database, which may be
            # slow or locked (5 s of SQLite busy timeout); the event loop serves everyone else.
            flow.metadata[flowkeys.PROFILE] = await asyncio.to_thread(
                self.store.effective, user, host, self.source.default_preset)
        except Exception as err:  # noqa: BLE001 - a broken profile store must not stop browsing
            log.warning("profile of %s unavailable (%s); the default settings apply", user, err)
