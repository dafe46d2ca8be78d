"""The page control: what the proxy adds to a filtered page so that a person can get past it, and
the one-page bypass that only a person can ask for.

**The control.** Every filtered HTML page gets a small landmark right after its skip link (where the
chain's output leaves room: :attr:`pagesieve.engine.chain.ChainResult.slot`), drawn from
``templates/control.html``: a ``<nav>`` labelled by its heading, with

* *Show original* — this page as the site sent it (a link that carries a bypass token, below);
* *What was removed (N)* — a readable page of this page's removals by filter and reason
  (``http://<users.settings_host>/removed/<id>``: the page's ``--explain`` record, kept in a bounded
  :class:`RemovalLog` in the proxy process);
* *Settings* — the settings page;
* *Always show this site as sent* — a form that adds a "do not filter" site rule for this user (as
  the settings page's per-site rules do), protected by a token bound to the user and the site.

No scripts, a few inline styles (each ``!important``: a site's style sheet should not hide it or
make it unreadable). Text output ends with one line that says how to see the original and where
the settings are. ``proxy.page_control: false`` turns it all off (the bypass stays as below).

**The bypass.** ``?pagesieve=off`` in a URL (``proxy.bypass_param``) is honoured only with a valid
token: ``?pagesieve=off-<token>``, the token an HMAC of the user and the URL without it, under the
installation's key in the state database (every instance accepts it; a per-process random key when
there is no profile store). A bare or wrong ``?pagesieve=off`` on a navigation — typed by hand, or
asked for by the site itself with a redirect or a ``Refresh`` header — gets a small page of the
proxy's own, "Show this page as sent?", whose link carries a valid token: a person can still ask for
the original, a site cannot opt itself out of filtering. The parameter never reaches the site. The
``X-Pagesieve-Bypass`` request header stays as it was (a page cannot make a browser send it).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2

from pagesieve.core.lru import LRU

log = logging.getLogger("pagesieve.proxy")

TEMPLATES = Path(__file__).resolve().parent / "templates"
#: Pages whose removals are kept per user for "What was removed" (the most recent ones), and users kept.
#: A page's removals are a few KB (median 2.5 KB, at most 10 KB over 60 scrapinghub pages).
REMOVED_PAGES_PER_USER = 20
REMOVED_USERS = 200
#: The path of the settings host that shows one page's removals, and the one that takes the
#: "Always show this site as sent" form.
REMOVED_PATH = "/removed/"
ALWAYS_PATH = "/always-as-sent"
#: Headers of the proxy's own pages (as the settings page's: nothing loads, nothing frames them).
OWN_PAGE_HEADERS = {
    "Content-Type": "text/html; charset=utf-8",
    "Cache-Control": "no-store",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; "
                               "base-uri 'none'; form-action 'none'",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
}


@dataclass(frozen=True)
class PageRemovals:
    """What the chain removed from one page, kept for one user."""

    user: str
    url: str
    preset: str
    filters: tuple[tuple[str, str, int], ...]  # (filter, status, removed) in chain order
    removals: tuple[dict[str, Any], ...]  # the record's removal entries (worker.removals_of)
    at: float


class RemovalLog:
    """The last :data:`REMOVED_PAGES_PER_USER` pages' removals of each user, under random ids (bounded)."""

    def __init__(self, per_user: int = REMOVED_PAGES_PER_USER, users: int = REMOVED_USERS) -> None:
        self.per_user = per_user
        self._users: LRU[str, LRU[str, PageRemovals]] = LRU(users)
        self._lock = threading.Lock()

    def add(self, entry: PageRemovals) -> str:
        key = secrets.token_urlsafe(12)
        with self._lock:
            pages = self._users.get(entry.user)
            if pages is None:
                pages = LRU(self.per_user)
                self._users[entry.user] = pages
        pages[key] = entry
        return key

    def get(self, user: str, key: str) -> PageRemovals | None:
        """The page kept under ``key`` for ``user`` (None: unknown, forgotten, or another user's)."""
        pages = self._users.get(user)
        return pages.get(key) if pages is not None else None


def with_param(url: str, item: str) -> str:
    """``url`` with ``item`` (``name=value``) appended to its query."""
    base, hsep, fragment = url.partition("#")
    return base + ("&" if "?" in base else "?") + item + (hsep + fragment if hsep else "")


def take_bypass_param(path: str, param: str) -> tuple[str, str | None]:
    """``path`` without the bypass items (``param`` or ``param-<token>``) of its query, and the token
    of the last of them ("" for a bare ``param``; None: there was none)."""
    base, sep, query = path.partition("?")
    if not sep or not param:
        return path, None
    query, hsep, fragment = query.partition("#")
    items = query.split("&")
    token = None
    kept = []
    for item in items:
        if item == param:
            token = ""
        elif item.startswith(param + "-"):
            token = item[len(param) + 1:]
        else:
            kept.append(item)
    if token is None:
        return path, None
    rest = "&".join(kept)
    return base + ("?" + rest if rest else "") + (hsep + fragment if hsep else ""), token


class PageControl:
    """The control's URLs, tokens and markup, shared by the filtering addon (which inserts it) and the
    settings page (which shows the removals and takes the form); knows no filter's internals."""

    def __init__(self, source: Any, identity: Any = None) -> None:
        self.source = source
        self.identity = identity
        self.removed = RemovalLog()
        self._process_key = secrets.token_bytes(32)  # without a profile store (no identity addon)
        self._env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True,
                                       trim_blocks=True, lstrip_blocks=True)

    # -- settings ------------------------------------------------------------------------------
    @property
    def enabled(self) -> bool:
        s = self._proxy()
        return bool(getattr(s, "page_control", False))

    @property
    def param(self) -> str:
        s = self._proxy()
        return getattr(s, "bypass_param", "") if s is not None else ""

    def _proxy(self) -> Any:
        cfg = self.source.cfg
        return cfg.globals.get("proxy") if cfg is not None else None

    @property
    def settings_url(self) -> str:
        return self.settings_for("http")

    def settings_for(self, scheme: str) -> str:
        """The settings page's address for a page of ``scheme``: https for an https page (the proxy
        answers it itself, :class:`SettingsTunnel`), so its form is no insecure form on a secure page."""
        cfg = self.source.cfg
        host = cfg.globals["users"].settings_host if cfg is not None else "pagesieve.core.settings"
        return f"{'https' if scheme == 'https' else 'http'}://{host}/"

    # -- tokens --------------------------------------------------------------------------------
    def token(self, purpose: str, *parts: str) -> str:
        """A token for ``purpose`` over ``parts``: the profile store's (one key for every instance),
        else this process's own. Raises StateUnavailable when the state database is away."""
        store = getattr(self.identity, "store", None)
        if store is not None:
            return store.token(purpose, *parts)
        message = "\0".join((purpose, *parts)).encode("utf-8")
        return hmac.new(self._process_key, message, hashlib.sha256).hexdigest()[:32]

    def check(self, token: str | None, purpose: str, *parts: str) -> bool:
        return bool(token) and hmac.compare_digest(self.token(purpose, *parts), token or "")

    def original_url(self, user: str, url: str) -> str:
        """``url`` with the bypass parameter and a token for ``user``: this page as the site sent it."""
        return with_param(url, f"{self.param}-{self.token('bypass', user, url)}")

    # -- markup --------------------------------------------------------------------------------
    def html(self, user: str, url: str, host: str, removed: int, removed_key: str | None) -> str:
        """The control's markup for one filtered page (its settings links in the page's scheme)."""
        from pagesieve.store.profiles import normalize_host

        settings = self.settings_for(url.split(":", 1)[0])
        try:
            site: str | None = normalize_host(host)  # as the site rule stores it
        except ValueError:
            site = None  # e.g. an IP address with a port: no site rule for it
        return self._env.get_template("control.html").render(
            original=self.original_url(user, url) if self.param else None,
            removed_url=settings.rstrip("/") + REMOVED_PATH + removed_key if removed_key else None,
            removed=removed, settings=settings, always=settings.rstrip("/") + ALWAYS_PATH, host=site, back=url,
            token=self.token("always", user, site) if site else None).strip()

    def text_line(self, user: str, url: str) -> str:
        """The line text output ends with."""
        original = f"As sent: {self.original_url(user, url)}  " if self.param else ""
        return f"Filtered by pagesieve. {original}Settings: {self.settings_for(url.split(':', 1)[0])}"

    def confirm_page(self, user: str, url: str) -> str:
        """The proxy's own "Show this page as sent?" page for ``url`` (without the bypass parameter)."""
        return self._env.get_template("as_sent.html").render(
            url=url, original=self.original_url(user, url), settings=self.settings_for(url.split(":", 1)[0]))

    def keep(self, user: str, url: str, preset: str, filters: Any, removals: Any) -> str:
        """Keep one page's removals for "What was removed"; their key."""
        return self.removed.add(PageRemovals(user, url, preset, tuple((f.name, f.status, f.removed) for f in filters),
                                             tuple(removals), time.time()))


class SettingsTunnel:
    """Lets the settings host be reached over HTTPS: a ``CONNECT`` to it is answered by the proxy
    (no connection to a server of that name is tried), and the requests inside the tunnel reach the
    settings page as over plain HTTP. An HTTPS page's control links there, so its form is not an
    insecure form on a secure page (browsers warn before sending one). After
    :class:`~pagesieve.proxy_addons.identity.Identity`: a CONNECT it refused stays refused."""

    name = "pagesieve_settings_tunnel"

    def __init__(self, source: Any) -> None:
        self.source = source

    def http_connect(self, flow: Any) -> None:
        from mitmproxy import http

        cfg = self.source.cfg
        if flow.response is not None or cfg is None:
            return
        if flow.request.pretty_host.lower() == cfg.globals["users"].settings_host.lower():
            flow.response = http.Response.make(200)
