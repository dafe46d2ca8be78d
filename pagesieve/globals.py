"""Sections of ``config.yaml`` that apply to the whole process rather than to one preset.

Each is a frozen settings dataclass declared next to the code that uses it; this is the one
place that lists them (so ``config.yaml``'s generated block and validation see them all).
"""

from __future__ import annotations

from pagesieve.proxy_addons.options import ProxySettings
from pagesieve.state import StateSettings
from pagesieve.users import UsersSettings
from pagesieve.users_ldap import DirectorySettings

GLOBAL_SECTIONS: dict[str, type] = {
    "proxy": ProxySettings,
    "state": StateSettings,
    "users": UsersSettings,
    "directory": DirectorySettings,
}
