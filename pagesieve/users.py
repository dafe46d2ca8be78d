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
import os
import re
import sys
import tempfile
import threading
import time
from collections import OrderedDict, deque
from functools import lru_cache
from pathlib import Path

import bcrypt
from mitmproxy.utils.htpasswd import HtpasswdFile

from pagesieve import config as C
from pagesieve.errors import ConfigError, InputError
from pagesieve.profiles import ProfileStore

DEFAULT_USER = "default"
"""The profile everyone shares when authentication is off."""

BCRYPT_ROUNDS = 12
"""bcrypt cost (log2 of the key-expansion rounds). 12 is the bcrypt package's default and above
OWASP's minimum of 10 (Password Storage Cheat Sheet, "bcrypt"); the proxy checks a password once
per connection-and-credential pair and caches the result, so the cost is paid rarely."""

REMEMBERED_FAILURES = 4096
"""Failed (user, password-hash) pairs the proxy remembers (least recent dropped) until the file
changes: a browser re-sends a saved wrong password with every request, and each must not cost a
bcrypt. Verified pairs are remembered apart, so guesses never push a real user's out."""

FAILURE_WINDOW_SECONDS = 300.0
"""Failed logins are counted over this window (seconds)."""

MAX_FAILURES_PER_ADDRESS = 10
"""Failed logins from one client address within the window before its further attempts are
refused at once (403, no bcrypt run) until the oldest failure leaves the window."""

MAX_FAILURES_PER_NAME = 10
"""Likewise per user name (guessing one account from many addresses). A user whose password is
already verified (remembered) keeps working: only unverified attempts are refused."""

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
        self._verified: set[tuple[str, bytes]] = set()  # one per user and password in use
        self._rejected: OrderedDict[tuple[str, bytes], None] = OrderedDict()  # bounded: guesses

    def read(self) -> dict[str, str]:
        """name → hash, in file order. A missing file is an empty one; a malformed line an error."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except OSError as err:
            raise ConfigError(f"users.htpasswd = {str(self.path)!r}: cannot read: {err.strerror or err}") from err
        try:
            parsed = HtpasswdFile(text).users  # mitmproxy's own parser: name:hash lines, # comments
        except ValueError as err:
            raise ConfigError(f"{self.path}: {err}; expected name:bcrypt-hash lines (htpasswd -B)") from err
        for name, digest in parsed.items():
            if not digest.encode().startswith(_HASH_PREFIXES):
                raise ConfigError(f"{self.path}: user {name!r}: expected name:bcrypt-hash (htpasswd -B); "
                                  "other hash types are not accepted")
        return dict(parsed)

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
            self._rejected.clear()
            self._stamp = stamp
        return self._hashes

    @staticmethod
    def _key(name: str, password: str) -> tuple[str, bytes]:
        # A hash of the password, never the password, is what is remembered.
        return name, hashlib.sha256(password.encode("utf-8", "surrogatepass")).digest()

    def remembered(self, name: str, password: str) -> bool | None:
        """The remembered verdict for this pair (no bcrypt run), or None when it must be checked."""
        key = self._key(name, password)
        with self._lock:
            self._current()
            if key in self._verified:
                return True
            if key in self._rejected:
                self._rejected.move_to_end(key)
                return False
            return None

    def check(self, name: str, password: str) -> bool:
        """True if ``password`` is ``name``'s. Verdicts are remembered (keyed by a hash of the
        password) until the file changes, so bcrypt runs once per pair. An unknown name costs
        one bcrypt of the same cost as a wrong password, so names cannot be told apart by time."""
        remembered = self.remembered(name, password)
        if remembered is not None:
            return remembered
        with self._lock:
            digest = self._current().get(name)
        pw = password.encode("utf-8", "surrogatepass")
        if digest is None:
            bcrypt.checkpw(pw[:MAX_PASSWORD_BYTES], dummy_hash())
            ok = False
        else:
            ok = len(pw) <= MAX_PASSWORD_BYTES and bcrypt.checkpw(pw, digest)
        key = self._key(name, password)
        with self._lock:
            if ok:
                self._verified.add(key)
            else:
                self._rejected[key] = None
                while len(self._rejected) > REMEMBERED_FAILURES:
                    self._rejected.popitem(last=False)
        return ok


@lru_cache(maxsize=1)
def dummy_hash() -> bytes:
    """A bcrypt hash of the real cost (:data:`BCRYPT_ROUNDS`), made once per process: checking a
    password against it takes as long as against a user's hash."""
    return bcrypt.hashpw(os.urandom(16).hex().encode(), bcrypt.gensalt(BCRYPT_ROUNDS))


class FailureLimiter:
    """Counts failed logins per client address and per user name over a sliding window; past
    the limits further attempts are refused at once (no password check) until failures age out."""

    def __init__(self, window: float = FAILURE_WINDOW_SECONDS, per_address: int = MAX_FAILURES_PER_ADDRESS,
                 per_name: int = MAX_FAILURES_PER_NAME, clock=time.monotonic) -> None:
        self.window, self.clock = window, clock
        self.limits = {"address": per_address, "name": per_name}
        self._failures: dict[tuple[str, str], deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, key: tuple[str, str], now: float) -> deque[float]:
        times = self._failures.get(key)
        if times is None:
            return deque()
        while times and times[0] <= now - self.window:
            times.popleft()
        if not times:
            del self._failures[key]
        return times

    def retry_after(self, address: str, name: str) -> float:
        """Seconds until an attempt from ``address`` for ``name`` is checked again (0: now)."""
        now = self.clock()
        wait = 0.0
        with self._lock:
            for key in (("address", address), ("name", name)):
                times = self._recent(key, now)
                if len(times) >= self.limits[key[0]]:
                    wait = max(wait, times[0] + self.window - now)
        return wait

    def failed(self, address: str, name: str) -> None:
        now = self.clock()
        with self._lock:
            if len(self._failures) > 100_000:  # a flood of names or addresses: forget the old ones
                for key in list(self._failures):
                    self._recent(key, now)
            for key in (("address", address), ("name", name)):
                self._failures.setdefault(key, deque()).append(now)


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

