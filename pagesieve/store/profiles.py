"""Per-user filter settings, persisted in the state database (:mod:`pagesieve.store.state`).

A profile stores only what its user changed relative to ``config.yaml``, never a copy of the
defaults, so a changed default reaches every user who did not override that key:

- ``preset``: the user's preset (None: the configured default);
- ``overrides``: dotted setting keys → values (``filters.link_lists.ratio``, ``output.format``,
  ``safety.max_article_loss``), the same keys ``--set`` accepts;
- ``toggles``: filter name → on/off, where the user put a filter into, or took it out of, their
  preset's chain (the chain's order stays the preset's);
- ``sites``: host → :class:`SiteRule` (a different preset, or no filtering, on that site and its
  subdomains; the longest matching host wins).

Every save is validated with the same rules as ``config.yaml`` (:meth:`pagesieve.engine.config.Config.resolve`)
before anything is written; a bad value raises :class:`ProfileError` naming each bad key.
:meth:`ProfileStore.effective` gives the proxy what it needs for one request.

Schema (component ``profiles``, in SQLite or PostgreSQL through :mod:`pagesieve.store.state`; append
to :data:`MIGRATIONS` to change it, never edit an applied script; each entry has the same schema
in both dialects, ``"user"`` quoted because it is a reserved word in PostgreSQL)::

    profiles(user PK, preset, updated_at)
    profile_settings(user, key, value JSON)        -- key: dotted setting key or "chain.<filter>"
    profile_sites(user, host, preset, bypass)
    secrets(name PK, value)                         -- the CSRF key of the settings page
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import re
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Mapping
from urllib.parse import urlsplit

from pagesieve.core.errors import ConfigError, StateUnavailable
from pagesieve.core.hosts import within
from pagesieve.engine.config import Config, check_user_key, overrides_to_tree
from pagesieve.engine.order import ChainOrderError, check_order
from pagesieve.filters import FILTERS
from pagesieve.store import state

log = logging.getLogger("pagesieve.store.profiles")

COMPONENT = "profiles"
MIGRATIONS = [
    {"sqlite": """
    CREATE TABLE profiles (
        user TEXT PRIMARY KEY,
        preset TEXT,
        updated_at REAL NOT NULL
    );
    CREATE TABLE profile_settings (
        user TEXT NOT NULL REFERENCES profiles(user) ON DELETE CASCADE,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (user, key)
    );
    CREATE TABLE profile_sites (
        user TEXT NOT NULL REFERENCES profiles(user) ON DELETE CASCADE,
        host TEXT NOT NULL,
        preset TEXT,
        bypass INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (user, host)
    );
    CREATE TABLE secrets (
        name TEXT PRIMARY KEY,
        value BLOB NOT NULL
    );
    """,
     "postgresql": """
    CREATE TABLE profiles (
        "user" TEXT PRIMARY KEY,
        preset TEXT,
        updated_at DOUBLE PRECISION NOT NULL
    );
    CREATE TABLE profile_settings (
        "user" TEXT NOT NULL REFERENCES profiles("user") ON DELETE CASCADE,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY ("user", key)
    );
    CREATE TABLE profile_sites (
        "user" TEXT NOT NULL REFERENCES profiles("user") ON DELETE CASCADE,
        host TEXT NOT NULL,
        preset TEXT,
        bypass INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY ("user", host)
    );
    CREATE TABLE secrets (
        name TEXT PRIMARY KEY,
        value BYTEA NOT NULL
    );
    """},
]

CHAIN_PREFIX = "chain."
CSRF_SECRET = "settings_page.csrf"
CSRF_KEY_BYTES = 32
MAX_SITE_RULES = 200
"""Per-site rules one profile may hold (a guard against a runaway form, not a tuning knob)."""
MAX_HOST_INPUT = 2048
"""The longest text read as a site (an address pasted whole, with its path and query)."""
AS_SENT = "as-sent"
"""The profile's preset when its user wants pages as the sites send them (nothing filtered; a
site rule naming a preset still applies on that site)."""

_HOST = re.compile(r"^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$")


class ProfileError(ConfigError):
    """A profile change that does not validate; ``errors`` maps each bad key to its message."""

    def __init__(self, errors: Mapping[str, str]) -> None:
        self.errors = dict(errors)
        super().__init__("; ".join(self.errors.values()))


@dataclass(frozen=True)
class SiteRule:
    """On one host (and its subdomains): another preset, or no filtering at all."""

    preset: str | None = None
    bypass: bool = False


@dataclass(frozen=True)
class Profile:
    """One user's changes to the configuration (see the module docstring)."""

    user: str
    preset: str | None = None
    overrides: Mapping[str, Any] = field(default_factory=dict)
    toggles: Mapping[str, bool] = field(default_factory=dict)
    sites: Mapping[str, SiteRule] = field(default_factory=dict)


def normalize_host(host: str) -> str:
    """A site as rules store it, from whatever a person pastes: a host name (``www.example.org``),
    with a port (``example.org:8080``), a whole address (``https://www.example.org/news`` gives
    ``www.example.org``), ``*.example.org`` (a rule covers the subdomains anyway), or an
    international name (``bücher.de`` gives ``xn--bcher-kva.de``): lower case, no trailing dot, no
    port. ValueError, in one line, for anything else."""
    text = (host or "").strip()
    shown = text if len(text) <= 60 else text[:57] + "..."
    if not text:
        raise ValueError("no site given: type a name such as example.org")
    if len(text) > MAX_HOST_INPUT:
        raise ValueError(f"{shown!r}: {len(text)} characters, too long for a site's address")
    if "://" not in text:
        text = "//" + text.removeprefix("//")
    try:
        h = urlsplit(text).hostname or ""
    except ValueError:
        h = ""
    h = h.rstrip(".")
    h = h.removeprefix("*.")
    try:
        h = h.encode("idna").decode("ascii") if h and not h.isascii() else h
    except UnicodeError:
        h = ""
    if not _HOST.match(h):
        raise ValueError(f"{shown!r}: not a valid host name (type a site such as example.org, or paste its address)")
    return h


def site_rule_for(sites: Mapping[str, SiteRule], host: str) -> SiteRule | None:
    """The rule of the longest entry of ``sites`` equal to ``host`` or a parent domain of it."""
    host = (host or "").lower().rstrip(".")
    best = None
    for entry, rule in sites.items():
        if within(host, entry) and (best is None or len(entry) > len(best[0])):
            best = (entry, rule)
    return best[1] if best else None


def chain_for(cfg: Config, preset: str, toggles: Mapping[str, bool]) -> list[str]:
    """``preset``'s chain with the user's toggles: switched-off filters dropped, switched-on
    ones inserted after the chain's last filter that precedes them in the registry's order, or
    later, at the first place where every filter has what it requires (:func:`check_order`; with
    none, the chain is refused when it is resolved, with a message naming what is missing)."""
    chain = [n for n in cfg.presets[preset]["chain"] if toggles.get(n, True)]
    order = list(FILTERS)
    for name, on in toggles.items():
        if not on or name in chain or name not in FILTERS:
            continue
        rank = order.index(name)
        at = 0
        for i, existing in enumerate(chain):
            if existing in FILTERS and order.index(existing) < rank:
                at = i + 1
        for place in range(at, len(chain) + 1):
            if _in_order([*chain[:place], name, *chain[place:]]):
                at = place
                break
        chain.insert(at, name)
    return chain


def _in_order(chain: list[str]) -> bool:
    try:
        check_order([FILTERS[n] for n in chain if n in FILTERS])
    except ConfigError:
        return False
    return True


def overrides_tree(cfg: Config, preset: str, profile: Profile) -> dict:
    """The nested overrides (as :meth:`Config.resolve` takes them) of ``profile`` on ``preset``."""
    tree = overrides_to_tree(dict(profile.overrides))
    base = list(cfg.presets[preset]["chain"])
    chain = chain_for(cfg, preset, profile.toggles)
    if chain != base:
        tree["chain"] = chain
    return tree


def validate(cfg: Config, profile: Profile, default_preset: str | None = None) -> None:
    """Raise :class:`ProfileError` (every bad key with its message) unless ``profile`` resolves
    under ``cfg`` for its preset and for every preset its site rules name."""
    errors: dict[str, str] = {}
    default = cfg.preset_for(default_preset)
    for key, preset in (("preset", None if profile.preset == AS_SENT else profile.preset),
                        *((f"sites.{h}", r.preset) for h, r in profile.sites.items())):
        if preset is not None and preset not in cfg.presets:
            errors[key] = (f"{key} = {preset!r}: unknown preset; available: "
                           + ", ".join(sorted(cfg.presets)))
    for name in profile.toggles:
        if name not in FILTERS:
            errors[CHAIN_PREFIX + name] = f"{CHAIN_PREFIX}{name}: unknown filter; available: {', '.join(FILTERS)}"
    if len(profile.sites) > MAX_SITE_RULES:
        errors["sites"] = f"sites: at most {MAX_SITE_RULES} per-site rules"
    base = cfg.preset_for(profile.preset if profile.preset in cfg.presets else None, default)
    for key, value in profile.overrides.items():  # one by one, so every bad key is reported
        try:
            check_user_key(key)  # operator- and preset-scope settings never come from a profile
            cfg.resolve(base, overrides_to_tree({key: value}))
        except ConfigError as err:
            errors[key] = str(err)
    if errors:
        raise ProfileError(errors)
    mine = None if profile.preset == AS_SENT else profile.preset
    presets = {mine or default} | {r.preset or mine or default for r in profile.sites.values()}
    for preset in sorted(presets):
        try:
            cfg.resolve(preset, overrides_tree(cfg, preset, profile))
        except ChainOrderError as err:  # at the switch of the filter left without what it needs
            errors[CHAIN_PREFIX + err.filter] = f"preset {preset}: {err}"
        except ConfigError as err:
            errors[f"preset {preset}"] = str(err)
    if errors:
        raise ProfileError(errors)


class ProfileStore:
    """User profiles in the state database (SQLite or PostgreSQL, :mod:`pagesieve.store.state`); thread-safe.

    Only user-scope settings are accepted (:func:`pagesieve.engine.config.check_user_key`); a stored key
    of another scope (saved before scopes existed) is ignored, logged once, never applied.

    ``effective()`` is called for every proxied request: it reads a profile once and caches it
    until a save here, or a commit by another process or instance (:meth:`Database.change_token`:
    SQLite's ``PRAGMA data_version``, PostgreSQL's change counter polled every
    ``state.refresh_seconds``). While the database is unavailable, ``effective()`` answers from
    that cache (the last known settings) or with the defaults, and ``get``/``save`` raise
    :class:`~pagesieve.core.errors.StateUnavailable` (the settings page answers 503).
    """

    def __init__(self, cfg: Config, path: str | None = None) -> None:
        self.cfg = cfg
        where = path if path is not None else cfg.globals["state"]
        try:
            self.db = state.open_database(where)
        except StateUnavailable as err:  # at start-up: say so in one line
            raise ConfigError(f"{err} (is PostgreSQL running and state.url right?)") from err
        self.path = self.db.location
        self._lock = threading.RLock()
        self._cache: dict[str, Profile] = {}
        self._last_known: dict[str, Profile] = {}  # survives invalidation: served while the database is down
        self._usable: dict[tuple[str, str | None], tuple[Profile, Profile]] = {}
        self._data_version: Any = None
        self._logged: set[tuple[str, str, str]] = set()  # (user, key, message) already logged as ignored
        self._csrf: bytes | None = None
        try:
            with self._lock:
                self.db.migrate(COMPONENT, MIGRATIONS)
        except BaseException:
            self.db.close()
            raise

    @property
    def available(self) -> bool:
        """False while the state database cannot be reached (PostgreSQL down)."""
        return self.db.available

    def close(self) -> None:
        with self._lock:
            self.db.close()

    # -- reading -----------------------------------------------------------------------------

    def _fresh(self) -> None:
        v = self.db.change_token()
        if v != self._data_version:
            self._last_known.update(self._cache)
            self._cache.clear()
            self._usable.clear()
            self._data_version = v

    def get(self, user: str) -> Profile:
        """``user``'s profile (an empty one when they never saved); StateUnavailable when it is
        not cached and the database cannot be reached."""
        with self._lock:
            self._fresh()
            cached = self._cache.get(user)
            if cached is not None:
                return cached
            try:
                profile = self._read(user)
            except StateUnavailable:
                if user in self._last_known:
                    return self._last_known[user]
                raise
            self._cache[user] = self._last_known[user] = profile
            return profile

    def _read(self, user: str) -> Profile:
        """``user``'s profile as the database has it now."""
        rows = self.db.query('SELECT preset FROM profiles WHERE "user" = ?', (user,))
        overrides, toggles = {}, {}
        for key, value in self.db.query(
                'SELECT key, value FROM profile_settings WHERE "user" = ? ORDER BY key', (user,)):
            if key.startswith(CHAIN_PREFIX):
                toggles[key[len(CHAIN_PREFIX):]] = bool(json.loads(value))
            else:
                overrides[key] = json.loads(value)
        sites = {host: SiteRule(preset, bool(bypass)) for host, preset, bypass in self.db.query(
            'SELECT host, preset, bypass FROM profile_sites WHERE "user" = ? ORDER BY host', (user,))}
        return Profile(user, rows[0][0] if rows else None, overrides, toggles, sites)

    def users(self) -> list[str]:
        with self._lock:
            return [r[0] for r in self.db.query('SELECT "user" FROM profiles ORDER BY "user"')]

    def usable(self, profile: Profile, default_preset: str | None = None) -> Profile:
        """``profile`` without what no longer validates under the current ``config.yaml`` (a
        preset or setting removed since it was saved); each dropped item is logged."""
        try:
            validate(self.cfg, profile, default_preset)
            return profile
        except ProfileError as err:
            bad = err.errors
        new = {(profile.user, k, m) for k, m in bad.items()} - self._logged
        if new:  # once per user, key and reason (the profile is re-checked after every commit)
            self._logged |= new
            log.warning("profile of %s: ignoring what does not validate: %s", profile.user,
                        "; ".join(m for _, _, m in sorted(new)))
        keep = Profile(
            profile.user,
            None if "preset" in bad else profile.preset,
            {k: v for k, v in profile.overrides.items() if k not in bad},
            {k: v for k, v in profile.toggles.items() if CHAIN_PREFIX + k not in bad},
            {h: r for h, r in profile.sites.items() if f"sites.{h}" not in bad})
        try:
            validate(self.cfg, keep, default_preset)
            return keep
        except ProfileError:
            return Profile(profile.user)

    def effective(self, user: str, host: str, default_preset: str | None = None) -> dict[str, Any]:
        """What the proxy needs for ``user`` fetching from ``host``:
        ``{"user", "preset" (None: the default), "overrides" (nested tree), "bypass"}``."""
        with self._lock:
            try:
                profile = self.get(user)
            except StateUnavailable:  # logged once by the database; the defaults until it is back
                profile = Profile(user)
            hit = self._usable.get((user, default_preset))
            if hit is None or hit[0] is not profile:
                hit = self._usable[(user, default_preset)] = (profile, self.usable(profile, default_preset))
        p = hit[1]
        rule = site_rule_for(p.sites, host)
        if rule is not None and rule.bypass:
            return {"user": user, "preset": p.preset, "overrides": {}, "bypass": True}
        preset = (rule.preset if rule else None) or p.preset
        if preset == AS_SENT:
            return {"user": user, "preset": None, "overrides": {}, "bypass": True}
        base = self.cfg.preset_for(preset, default_preset)
        return {"user": user, "preset": preset, "overrides": overrides_tree(self.cfg, base, p), "bypass": False}

    # -- writing -----------------------------------------------------------------------------

    def save(self, profile: Profile, default_preset: str | None = None) -> None:
        """Validate ``profile`` and replace ``profile.user``'s stored one with it (one transaction)."""
        validate(self.cfg, profile, default_preset)
        rows = [(profile.user, k, json.dumps(v)) for k, v in profile.overrides.items()]
        rows += [(profile.user, CHAIN_PREFIX + k, json.dumps(v)) for k, v in profile.toggles.items()]
        sites = [(profile.user, h, r.preset, int(r.bypass)) for h, r in profile.sites.items()]
        with self._lock:
            with self.db.transaction() as tx:
                tx.execute('INSERT INTO profiles ("user", preset, updated_at) VALUES (?, ?, ?) '
                           'ON CONFLICT ("user") DO UPDATE SET preset = excluded.preset, '
                           'updated_at = excluded.updated_at', (profile.user, profile.preset, time.time()))
                tx.execute('DELETE FROM profile_settings WHERE "user" = ?', (profile.user,))
                tx.execute('DELETE FROM profile_sites WHERE "user" = ?', (profile.user,))
                for row in rows:
                    tx.execute('INSERT INTO profile_settings ("user", key, value) VALUES (?, ?, ?)', row)
                for site in sites:
                    tx.execute('INSERT INTO profile_sites ("user", host, preset, bypass) VALUES (?, ?, ?, ?)', site)
            self._last_known.update(self._cache)
            self._last_known[profile.user] = profile
            self._cache.clear()
            self._usable.clear()

    def delete(self, user: str) -> bool:
        """Forget ``user``'s profile; True if there was one."""
        with self._lock:
            with self.db.transaction() as tx:
                n = tx.execute('DELETE FROM profiles WHERE "user" = ?', (user,))
            self._last_known.pop(user, None)
            self._cache.clear()
            self._usable.clear()
            return n > 0

    # -- the settings page's CSRF tokens -------------------------------------------------------

    def _csrf_key(self) -> bytes:
        """The installation's key (one row, written by whichever instance came first; then kept here)."""
        with self._lock:
            if self._csrf is None:
                with self.db.transaction() as tx:
                    tx.execute("INSERT INTO secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
                               (CSRF_SECRET, secrets.token_bytes(CSRF_KEY_BYTES)))
                self._csrf = bytes(self.db.query("SELECT value FROM secrets WHERE name = ?", (CSRF_SECRET,))[0][0])
            return self._csrf

    def csrf_token(self, user: str) -> str:
        """The settings form's token for ``user``: HMAC-SHA256 of the user name under a random key
        kept in the state database (so it survives restarts and differs per installation)."""
        return hmac.new(self._csrf_key(), b"csrf\0" + user.encode("utf-8"), hashlib.sha256).hexdigest()

    def check_csrf(self, user: str, token: str | None) -> bool:
        return token is not None and bool(token) and hmac.compare_digest(self.csrf_token(user), token)

    def token(self, purpose: str, *parts: str) -> str:
        """A token for ``purpose`` over ``parts`` (e.g. a user and a URL): HMAC-SHA256 under the same
        installation key as the CSRF tokens (so every instance makes and accepts the same), 128 bits in hex."""
        message = "\0".join((purpose, *parts)).encode("utf-8")
        return hmac.new(self._csrf_key(), b"token\0" + message, hashlib.sha256).hexdigest()[:32]
