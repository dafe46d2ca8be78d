"""Sections of ``config.yaml`` that apply to the whole process rather than to one preset.

They are declared here, below the proxy: the engine (:mod:`pagesieve.engine.config`, ``pagesieve filter``)
reads and validates them without importing mitmproxy or bcrypt, and the proxy layer
(:mod:`pagesieve.proxy_addons`, :mod:`pagesieve.store.users`) imports them from here — never the reverse.
This is the one place that lists them (so ``config.yaml``'s generated block and validation see
them all). Every setting here is operator-scope (the default of :func:`~pagesieve.core.settings.setting`).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from pagesieve.core.errors import ConfigError
from pagesieve.core.settings import setting


@dataclass(frozen=True)
class StateSettings:
    """Where pagesieve keeps what it learns and what users choose (profiles, site memory)."""

    path: str = setting(
        "~/.local/share/pagesieve/state.sqlite3",
        "The SQLite state database (user profiles, per-site memory); ~ is expanded, a relative path "
        "is relative to the working directory, :memory: keeps nothing across restarts.",
        group="advanced")
    url: str = setting(
        "",
        "PostgreSQL instead of the SQLite file, for several proxy instances sharing their state: "
        "postgresql://user[:password]@host:port/dbname (a libpq URL). Empty: the SQLite file state.path.",
        pattern=(r"(?:postgres(?:ql)?://\S+)?", "empty, or a URL postgresql://user[:password]@host:port/dbname "
                                                "(for a SQLite file, set state.path)"),
        group="advanced")
    refresh_seconds: float = setting(
        2.0,
        "With state.url: how often each instance asks PostgreSQL whether another instance saved "
        "something (seconds); a setting saved through one instance is in force on all within this bound.",
        minimum=0.1, maximum=60, group="advanced")


@dataclass(frozen=True)
class DirectorySettings:
    """Proxy users from an LDAP directory (checked after users.htpasswd; needs users.auth)."""

    url: str = setting("", "The LDAP server: ldap://host:port or ldaps://host:port. Empty: no directory, "
                           "only the htpasswd file.", group="users")
    bind_dn: str = setting("", "The DN pagesieve binds as to look users up, e.g. "
                               "cn=pagesieve,ou=services,dc=example,dc=org.", group="users")
    bind_password: str = setting("", "That DN's password (no ':' — mitmproxy's LDAP specification "
                                     "separates its parts with ':').", group="users")
    base_dn: str = setting("", "Where users are searched, e.g. ou=people,dc=example,dc=org.", group="users")
    user_attribute: str = setting("uid", "The attribute that holds the user name the browser sends "
                                         "(uid, cn, sAMAccountName...).", group="users")
    cache_seconds: float = setting(300.0, "How long a successful directory login is remembered (seconds); "
                                          "a password changed in the directory is required after this.",
                                   minimum=0, maximum=86400, group="users")


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
    worker_niceness: int = setting(5, "How much lower the workers' CPU priority is than the proxy's (os.nice): "
                                      "under load, relaying every response comes first and filtering "
                                      "second, so pages the workers cannot keep up with are served "
                                      "unfiltered (reason=busy) rather than late. 0: the same priority.",
                                   minimum=0, maximum=19, group="proxy")
    max_body_bytes: int = setting(8_000_000, "Bodies larger than this many bytes (compressed or decoded) are "
                                             "served unfiltered (reason=too-large); the largest corpus page "
                                             "is 1.5 MB.", minimum=1, group="proxy")
    timeout_seconds: float = setting(10.0, "A page whose filtering takes longer than this many seconds is served "
                                           "unfiltered (reason=timeout); time waiting for a free worker does "
                                           "not count.", minimum=0.01, maximum=600, group="proxy")
    idle_timeout_seconds: int = setting(60, "A client connection with no traffic either way for this many seconds "
                                            "is closed (mitmproxy's tcp_timeout, 600 by default: idle connections "
                                            "held memory — 18,600 of them took the proxy from 130 to 427 MB).",
                                        minimum=1, maximum=3600, group="proxy")
    header_timeout_seconds: float = setting(15.0, "A client connection that has not sent the headers of its first "
                                                  "request this many seconds after connecting is closed (a client "
                                                  "sending one byte now and then is never idle).",
                                            minimum=0.5, maximum=600, group="proxy")
    max_queue_ms: int = setting(1000, "A page that would wait longer than this many milliseconds for a free "
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
    page_control: bool = setting(True, "Put a small navigation region on every filtered HTML page, right after its skip "
                                       "link: show the original, what was removed, the settings page, always show "
                                       "this site as sent (no scripts); text output ends with one line saying how to "
                                       "see the original. Off: the pages carry nothing of the proxy's own.",
                                 group="proxy")
    proxy_protocol_from: tuple[str, ...] = setting(
        (), "Addresses or networks (10.0.0.5, 10.0.0.0/24) of the load balancers in front of this proxy that "
            "send each client's address in a PROXY protocol header (HAProxy's send-proxy-v2): the logins' "
            "limits and lock-outs, the fair queue for the workers and the logs then see each client, not the "
            "balancer. A connection from such an address without a valid header is refused; from any other "
            "address a header is never honoured. Empty: no header is read.",
        group="proxy")
    log_level: str = setting("info", "Log level of the proxy's own messages (info: one line per filtered page "
                                     "and per page served unfiltered because of an error).",
                             choices=LOG_LEVELS, group="proxy")

    def __post_init__(self) -> None:
        for i, entry in enumerate(self.proxy_protocol_from, 1):
            try:
                ipaddress.ip_network(entry, strict=False)
            except ValueError as err:
                raise ConfigError(f"proxy.proxy_protocol_from entry {i} = {entry!r}: expected an IP address or "
                                  "a network (10.0.0.5, 10.0.0.0/24, fd00::/8)") from err


@dataclass(frozen=True)
class UsersSettings:
    """Proxy users: authentication, their password file, the settings page's address."""

    auth: bool = setting(False, "Ask proxy clients for a user name and password (checked against htpasswd); "
                                "each user then has their own settings. Off: everyone shares the "
                                "'default' profile.", group="users")
    htpasswd: str = setting("~/.config/pagesieve/htpasswd", "The password file (name:bcrypt-hash lines, as "
                                                            "`htpasswd -B` writes); managed with `pagesieve "
                                                            "users add|remove|list`. ~ is expanded.",
                            group="users")
    settings_host: str = setting("pagesieve.core.settings", "Host name of the settings page the proxy serves "
                                                       "itself (open http://<this>/ through the proxy).",
                                 group="users")
    realm: str = setting("pagesieve", "The realm named in the proxy's authentication request.", group="users")



GLOBAL_SECTIONS: dict[str, type] = {
    "proxy": ProxySettings,
    "state": StateSettings,
    "users": UsersSettings,
    "directory": DirectorySettings,
}
