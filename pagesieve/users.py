"""Who uses the proxy: the ``users:`` section, the htpasswd file, ``pagesieve users add|remove|list``.

With ``users.auth`` on, the proxy asks every client for a user name and password (HTTP proxy
authentication, ``407 Proxy Authentication Required``) and checks them against
``users.htpasswd``, an Apache-style file of ``name:bcrypt-hash`` lines (``htpasswd -B`` writes
the same format). The authenticated name selects the user's profile
(:mod:`pagesieve.profiles`). With auth off everyone shares the ``default`` profile.

    pagesieve users add alice                 # asks the password twice (on a terminal)
    echo "$PW" | pagesieve users add alice --password-stdin
    pagesieve users list
    pagesieve users remove alice              # also deletes alice's saved settings
"""

from __future__ import annotations

import getpass
import hashlib
import hmac
import os
import re
import sys
import tempfile
import threading
from pathlib import Path

import bcrypt

from pagesieve import config as C
from pagesieve.errors import ConfigError, InputError
from pagesieve.profiles import ProfileStore

DEFAULT_USER = "default"
"""The profile everyone shares when authentication is off."""

BCRYPT_ROUNDS = 12
"""bcrypt cost (log2 of the key-expansion rounds). 12 is the bcrypt package's default and above
OWASP's minimum of 10 (Password Storage Cheat Sheet, "bcrypt"); the proxy checks a password once
per connection-and-credential pair and caches the result, so the cost is paid rarely."""

MIN_PASSWORD_CHARS = 8
"""Shortest password ``users add`` accepts (NIST SP 800-63B, section 5.1.1.2: at least 8)."""

MAX_PASSWORD_BYTES = 72
"""bcrypt uses only the first 72 bytes of a password; longer ones are refused rather than cut."""

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$")
_HASH_PREFIXES = (b"$2a$", b"$2b$", b"$2y$")


def check_name(name: str) -> str:
    """``name`` if it is a valid user name, else InputError saying what is allowed."""
    if not _NAME.match(name or ""):
        raise InputError(f"user name {name!r}: use 1-64 letters, digits, '.', '_', '@' or '-', "
                         "starting with a letter or digit")
    return name


def hash_password(password: str, rounds: int = BCRYPT_ROUNDS) -> str:
    data = password.encode("utf-8")
    if len(password) < MIN_PASSWORD_CHARS:
        raise InputError(f"password too short: use at least {MIN_PASSWORD_CHARS} characters")
    if len(data) > MAX_PASSWORD_BYTES:
        raise InputError(f"password too long: bcrypt uses at most {MAX_PASSWORD_BYTES} bytes")
    return bcrypt.hashpw(data, bcrypt.gensalt(rounds)).decode("ascii")


class Htpasswd:
    """An htpasswd file of bcrypt hashes: read, check, and rewrite it atomically."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path).expanduser()
        self._lock = threading.Lock()
        self._stamp: tuple[int, int] | None = None
        self._hashes: dict[str, bytes] = {}
        self._verified: dict[tuple[str, bytes], bytes] = {}

    def read(self) -> dict[str, str]:
        """name → hash, in file order. A missing file is an empty one; a malformed line an error."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except OSError as err:
            raise ConfigError(f"users.htpasswd = {str(self.path)!r}: cannot read: {err.strerror or err}") from err
        out: dict[str, str] = {}
        for n, line in enumerate(text.splitlines(), 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, sep, digest = line.partition(":")
            if not sep or not digest.encode().startswith(_HASH_PREFIXES):
                raise ConfigError(f"{self.path}:{n}: expected name:bcrypt-hash (htpasswd -B); "
                                  "other hash types are not accepted")
            out[name] = digest
        return out

    def write(self, entries: dict[str, str]) -> None:
        """Replace the file with ``entries`` (atomic rename; owner-only permissions)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".htpasswd.", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.writelines(f"{name}:{digest}\n" for name, digest in entries.items())
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def _current(self) -> dict[str, bytes]:
        """The hashes, re-read when the file changed (users added while the proxy runs)."""
        try:
            st = self.path.stat()
            stamp = (st.st_mtime_ns, st.st_size)
        except FileNotFoundError:
            stamp = None
        if stamp != self._stamp:
            self._hashes = {k: v.encode("ascii") for k, v in self.read().items()} if stamp else {}
            self._verified.clear()
            self._stamp = stamp
        return self._hashes

    def check(self, name: str, password: str) -> bool:
        """True if ``password`` is ``name``'s. Successful checks are remembered (keyed by a hash
        of the password, never the password) until the file changes, so bcrypt runs once."""
        with self._lock:
            digest = self._current().get(name)
        if digest is None:
            bcrypt.checkpw(b"timing", _DUMMY_HASH)  # same cost as a wrong password for a real user
            return False
        pw = password.encode("utf-8")
        key = (name, hashlib.sha256(pw).digest())
        with self._lock:
            if hmac.compare_digest(self._verified.get(key, b""), digest):
                return True
        if len(pw) > MAX_PASSWORD_BYTES or not bcrypt.checkpw(pw, digest):
            return False
        with self._lock:
            self._verified[key] = digest
        return True


_DUMMY_HASH = bcrypt.hashpw(b"timing", bcrypt.gensalt(4))


def _read_password(args) -> str:
    if args.password_stdin:
        line = sys.stdin.readline()
        if not line:
            raise InputError("--password-stdin: no password on standard input")
        return line.rstrip("\r\n")
    if not sys.stdin.isatty():
        raise InputError("not a terminal: pass the password on standard input with --password-stdin")
    first = getpass.getpass("Password: ")
    if first != getpass.getpass("Password (again): "):
        raise InputError("the two passwords differ; nothing changed")
    return first


def _settings(args):
    cfg = C.load(args.config)
    users = cfg.globals["users"]
    return cfg, Htpasswd(args.htpasswd or users.htpasswd)


def cmd_users(args) -> int:
    cfg, ht = _settings(args)
    entries = ht.read()
    if args.action == "list":
        for name in entries:
            print(name)
        return 0
    name = check_name(args.name)
    if args.action == "add":
        existed = name in entries
        if existed and not args.update:
            raise InputError(f"user {name!r} already exists in {ht.path}; use --update to change the password")
        entries[name] = hash_password(_read_password(args))
        ht.write(entries)
        print(f"{ht.path}: {'updated' if existed else 'added'} {name}")
        return 0
    if name not in entries:
        raise InputError(f"user {name!r} is not in {ht.path}")
    del entries[name]
    ht.write(entries)
    dropped = ""
    if not args.keep_profile:
        store = ProfileStore(cfg)
        try:
            if store.delete(name):
                dropped = " and their saved settings"
        finally:
            store.close()
    print(f"{ht.path}: removed {name}{dropped}")
    return 0


def add_parser(sub) -> None:
    """``pagesieve users add|remove|list`` (called by :mod:`pagesieve.cli`)."""
    p = sub.add_parser("users", help="manage the proxy's users (htpasswd file, bcrypt)")
    p.add_argument("--config", metavar="FILE", help="configuration file (default: $PAGESIEVE_CONFIG or config.yaml)")
    p.add_argument("--htpasswd", metavar="FILE", help="password file (default: the config's users.htpasswd)")
    acts = p.add_subparsers(dest="action", required=True, parser_class=sub._parser_class)
    a = acts.add_parser("add", help="add a user (asks the password twice, or reads it with --password-stdin)")
    a.add_argument("name")
    a.add_argument("--password-stdin", action="store_true", help="read the password from the first line of stdin")
    a.add_argument("--update", action="store_true", help="change the password of an existing user")
    r = acts.add_parser("remove", help="remove a user and their saved settings")
    r.add_argument("name")
    r.add_argument("--keep-profile", action="store_true", help="keep the user's saved settings")
    acts.add_parser("list", help="list user names")
    p.set_defaults(func=cmd_users)

