"""Directory logins: proxy users checked against an LDAP directory (the ``directory:`` section).

With ``users.auth`` on and ``directory.url`` set, a user name and password that the htpasswd file
(``users.htpasswd``) does not accept is checked in the directory, with mitmproxy's own LDAP
validator (:class:`mitmproxy.addons.proxyauth.Ldap`, ldap3): bind as ``directory.bind_dn``, search
``directory.base_dn`` for ``(<user_attribute>=<name>)``, bind as the entry found with the password.
In front of it, pagesieve keeps:

* a cache of successful checks (keyed by a SHA-256 of the password, never the password) for
  ``directory.cache_seconds``, so the directory sees one bind per user and period, not one per
  plain-HTTP request; a changed password in the directory takes effect after that period;
* one lock around the service connection (ldap3's synchronous connection is not thread-safe), and
  a reconnect when the directory dropped it (a restart, an idle timeout) — one log line each time;
* whatever identity.py puts in front of every validator (bcrypt off the event loop, the rate limit
  on failed logins).

A directory that cannot be reached refuses logins it has not cached (fail closed: a proxy that
let anyone in would be worse than one that asks again) and says so once in the log. To the proxy
(:meth:`DirectoryValidator.check`) that is :class:`DirectoryUnavailable` — "try again", never a
failed login that would count towards a lock-out — and for :data:`RETRY_SECONDS` after an outage
was seen logins are answered so at once, not after another wait; a check that would wait longer
than :data:`CONNECT_TIMEOUT_SECONDS` for one under way (a directory that hangs) is answered so too.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from typing import Any, Callable
from urllib.parse import urlsplit

from pagesieve.core.errors import ConfigError
from pagesieve.engine.globals import DirectorySettings

log = logging.getLogger("pagesieve.proxy")

CONNECT_TIMEOUT_SECONDS = 3
"""How long connecting to (or waiting for an answer from) the directory may take (a directory on the
LAN answers in milliseconds; past this it counts as unreachable and the login is refused)."""



def mitmproxy_spec(s: DirectorySettings) -> str:
    """The ``ldap[s]:host:port:bind_dn:password:base_dn?search_filter_key=attr`` string of mitmproxy's
    Ldap validator; ConfigError naming the key when a value cannot be expressed in it."""
    parts = urlsplit(s.url)
    if parts.scheme not in ("ldap", "ldaps") or not parts.hostname:
        raise ConfigError(f"directory.url = {s.url!r}: expected ldap://host:port or ldaps://host:port")
    port = parts.port or (636 if parts.scheme == "ldaps" else 389)
    for key in ("bind_dn", "bind_password", "base_dn", "user_attribute"):
        value = getattr(s, key)
        if not value:
            raise ConfigError(f"directory.{key} is empty: a directory needs url, bind_dn, bind_password, "
                              "base_dn and user_attribute")
        bad = [c for c in ":?=" if c in value] if key in ("bind_password", "user_attribute") else \
            [c for c in ":?" if c in value]
        if bad:
            raise ConfigError(f"directory.{key} = {value if key != 'bind_password' else '***'!r}: must not "
                              f"contain {' or '.join(repr(c) for c in bad)} (mitmproxy's LDAP specification)")
    host = parts.hostname
    return f"{parts.scheme}:{host}:{port}:{s.bind_dn}:{s.bind_password}:{s.base_dn}?search_filter_key={s.user_attribute}"


RETRY_SECONDS = 5.0
"""After the directory failed to answer, logins it has not cached are answered "try again" at once
for this long (seconds) before it is asked again: a hung directory costs one wait per period, not
one per login."""


class DirectoryUnavailable(Exception):
    """The directory could not be asked (unreachable, not answering, busy with a hung check)."""


class DirectoryValidator:
    """``validator(user, password) -> bool`` against the directory, with a cache and one reconnect."""

    def __init__(self, settings: DirectorySettings, clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self.spec = mitmproxy_spec(settings)
        self.clock = clock
        self._lock = threading.Lock()
        self._ldap: Any = None
        self._cache: dict[tuple[str, bytes], float] = {}
        self._unreachable = False
        self._retry_at = 0.0  # while the clock is before this, the directory is not asked

    def _connect(self) -> Any:
        """mitmproxy's validator, built as its ``__init__`` builds it plus timeouts (its own server
        has none: an unreachable directory would hold the proxy for the OS's TCP timeout)."""
        import ldap3
        from mitmproxy.addons.proxyauth import Ldap

        use_ssl, host, port, user, password, subtree, key = Ldap.parse_spec(self.spec)
        ldap = Ldap.__new__(Ldap)
        ldap.server = ldap3.Server(host, port=port, use_ssl=use_ssl, connect_timeout=CONNECT_TIMEOUT_SECONDS)
        ldap.dn_subtree, ldap.filter_key = subtree, key
        # binds as bind_dn (auto_bind): raises when that fails
        ldap.conn = ldap3.Connection(ldap.server, user, password, auto_bind=True,
                                     receive_timeout=CONNECT_TIMEOUT_SECONDS)
        return ldap

    @staticmethod
    def _key(username: str, password: str) -> tuple[str, bytes]:
        return username, hashlib.sha256(password.encode("utf-8", "surrogatepass")).digest()

    def remembered(self, username: str, password: str) -> bool | None:
        """True when this pair was verified within ``cache_seconds`` (no directory asked), else None."""
        expiry = self._cache.get(self._key(username, password))
        return True if expiry is not None and expiry > self.clock() else None

    def __call__(self, username: str, password: str) -> bool:
        """Whether the directory accepts the pair; False also when it cannot be asked (fail closed)."""
        try:
            return self.check(username, password)
        except DirectoryUnavailable:
            return False

    def check(self, username: str, password: str) -> bool:
        """Whether the directory accepts the pair; DirectoryUnavailable when it cannot be asked."""
        if not username or not password:
            return False
        if self.remembered(username, password):
            return True
        if self.clock() < self._retry_at:
            raise DirectoryUnavailable(f"directory {self.settings.url} did not answer; try again shortly")
        if not self._lock.acquire(timeout=CONNECT_TIMEOUT_SECONDS):
            raise DirectoryUnavailable(f"directory {self.settings.url} is busy with a check that does not end")
        try:
            ok = self._check(username, password)
        finally:
            self._lock.release()
        now = self.clock()
        if ok and self.settings.cache_seconds > 0:
            if len(self._cache) > 10_000:  # a bound, not a tuning knob: drop what expired
                self._cache = {k: v for k, v in self._cache.items() if v > now}
            self._cache[self._key(username, password)] = now + self.settings.cache_seconds
        return ok

    def _check(self, username: str, password: str) -> bool:
        from ldap3.core.exceptions import LDAPBindError, LDAPException

        for attempt in (1, 2):
            try:
                if self._ldap is None:
                    self._ldap = self._connect()
            except LDAPException as err:
                self._ldap = None
                if not self._unreachable:
                    log.warning("directory %s unavailable (%s); directory logins answered 'try again' until it "
                                "is back", self.settings.url, err)
                    self._unreachable = True
                self._retry_at = self.clock() + RETRY_SECONDS
                raise DirectoryUnavailable(f"directory {self.settings.url} unavailable: {err}") from err
            if self._unreachable:
                log.warning("directory %s is back", self.settings.url)
                self._unreachable = False
            try:
                return bool(self._ldap(username, password))
            except LDAPBindError:  # the user's own bind: wrong password
                return False
            except LDAPException as err:  # the service connection broke: reconnect once
                self._ldap = None
                if attempt == 2:
                    log.warning("directory %s: lookup of %r failed: %s", self.settings.url, username, err)
                    self._retry_at = self.clock() + RETRY_SECONDS
                    raise DirectoryUnavailable(f"directory {self.settings.url}: lookup failed: {err}") from err
        return False


class EitherValidator:
    """The first validator that accepts wins (htpasswd, then the directory)."""

    def __init__(self, *validators: Callable[[str, str], bool]) -> None:
        self.validators = [v for v in validators if v is not None]

    def __call__(self, username: str, password: str) -> bool:
        return any(v(username, password) for v in self.validators)


def with_directory(validator: Callable[[str, str], bool] | None, settings: DirectorySettings | None):
    """``validator`` alone, or followed by the directory when ``directory.url`` is set."""
    if settings is None or not settings.url:
        return validator
    if validator is None:
        return DirectoryValidator(settings)
    return EitherValidator(validator, DirectoryValidator(settings))
