"""Who uses the proxy: the ``users:`` section and the htpasswd file (``pagesieve users`` edits it).

With ``users.auth`` on, the proxy asks every client for a user name and password (HTTP proxy
authentication, ``407 Proxy Authentication Required``) and checks them against
``users.htpasswd``, an Apache-style file of ``name:bcrypt-hash`` lines (``htpasswd -B`` writes
the same format). The authenticated name selects the user's profile
(:mod:`pagesieve.store.profiles`). With auth off everyone shares the ``default`` profile.

    pagesieve users add alice                 # asks the password twice (on a terminal)
    echo "$PW" | pagesieve users add alice --password-stdin
    pagesieve users list
    pagesieve users remove alice              # also deletes alice's saved settings
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import threading
import time
from collections import deque
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import bcrypt
from mitmproxy.utils.htpasswd import HtpasswdFile

from pagesieve.core.errors import ConfigError, InputError
from pagesieve.core.lru import LRU

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

MAX_FAILURES_PER_NAME_AND_ADDRESS = 5
"""Failed logins for one user name from one client address within the window before further
attempts for that name from there are refused at once. Never per name alone: guesses from
elsewhere would then lock the real user out. A user whose password is already verified
(remembered) keeps working: only unverified attempts are refused."""

MAX_CHECKS_PER_ADDRESS = 2
"""Password checks under way at once for one client address; a further attempt from there is
refused at once (``407`` with ``Retry-After``) instead of queueing behind them: 60 guesses sent
in parallel must not all be checked before the first failures count."""

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
        self._rejected: LRU[tuple[str, bytes], bool] = LRU(REMEMBERED_FAILURES)  # bounded: guesses

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
            if self._rejected.get(key):
                return False
            return None

    def knows(self, name: str) -> bool:
        with self._lock:
            return name in self._current()

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
        if digest is None or len(pw) > MAX_PASSWORD_BYTES:
            # Unknown name, or a password bcrypt cannot check (it refuses more than 72 bytes): the
            # same bcrypt against the dummy, so neither can be told from a wrong password by time.
            bcrypt.checkpw(pw[:MAX_PASSWORD_BYTES], dummy_hash())
            ok = False
        else:
            ok = bcrypt.checkpw(pw, digest)
        key = self._key(name, password)
        with self._lock:
            if ok:
                self._verified.add(key)
            else:
                self._rejected[key] = True
        return ok


@lru_cache(maxsize=1)
def dummy_hash() -> bytes:
    """A bcrypt hash of the real cost (:data:`BCRYPT_ROUNDS`), made once per process: checking a
    password against it takes as long as against a user's hash."""
    return bcrypt.hashpw(os.urandom(16).hex().encode(), bcrypt.gensalt(BCRYPT_ROUNDS))


@dataclass
class Attempt:
    """A login check let through by :meth:`FailureLimiter.begin`: counted as a failure already,
    until :meth:`FailureLimiter.end` says how it went."""

    address: str
    name: str
    at: float


class FailureLimiter:
    """Counts failed logins per client address and per (user name, address) over a sliding
    window; past the limits further attempts are refused at once (no password check) until
    failures age out. An attempt counts as a failure from the moment its check starts
    (:meth:`begin`), so attempts sent in parallel cannot all be checked before the first failures
    count; it is taken back when the password was right or could not be checked (:meth:`end`).
    At most :data:`MAX_CHECKS_PER_ADDRESS` checks per address run at once."""

    def __init__(self, window: float = FAILURE_WINDOW_SECONDS, per_address: int = MAX_FAILURES_PER_ADDRESS,
                 per_name: int = MAX_FAILURES_PER_NAME_AND_ADDRESS, checks_per_address: int = MAX_CHECKS_PER_ADDRESS,
                 clock=time.monotonic) -> None:
        self.window, self.clock = window, clock
        self.limits = {"address": per_address, "name": per_name}
        self.checks_per_address = checks_per_address
        self._failures: dict[tuple[str, str], deque[float]] = {}
        self._checking: dict[str, int] = {}
        self._lock = threading.Lock()

    @staticmethod
    def _keys(address: str, name: str) -> tuple[tuple[str, str], tuple[str, str]]:
        return ("address", address), ("name", f"{name}\0{address}")

    def _recent(self, key: tuple[str, str], now: float) -> deque[float]:
        times = self._failures.get(key)
        if times is None:
            return deque()
        while times and times[0] <= now - self.window:
            times.popleft()
        if not times:
            del self._failures[key]
        return times

    def _wait(self, address: str, name: str, now: float) -> float:
        wait = 0.0
        for key in self._keys(address, name):
            times = self._recent(key, now)
            if len(times) >= self.limits[key[0]]:
                wait = max(wait, times[0] + self.window - now)
        return wait

    def retry_after(self, address: str, name: str) -> float:
        """Seconds until an attempt from ``address`` for ``name`` is checked again (0: now)."""
        with self._lock:
            return self._wait(address, name, self.clock())

    def failed(self, address: str, name: str) -> None:
        with self._lock:
            self._record(address, name, self.clock())

    def _record(self, address: str, name: str, now: float) -> None:
        if len(self._failures) > 100_000:  # a flood of names or addresses: forget the old ones
            for key in list(self._failures):
                self._recent(key, now)
        for key in self._keys(address, name):
            self._failures.setdefault(key, deque()).append(now)

    def begin(self, address: str, name: str) -> tuple[Attempt | None, float, bool]:
        """Before a check: ``(attempt, 0, False)`` when it may run (counted as a failure until
        :meth:`end`); ``(None, seconds, locked)`` when refused — ``locked``: too many failures;
        else too many checks from this address under way."""
        now = self.clock()
        with self._lock:
            wait = self._wait(address, name, now)
            if wait > 0:
                return None, wait, True
            if self._checking.get(address, 0) >= self.checks_per_address:
                return None, 1.0, False
            self._checking[address] = self._checking.get(address, 0) + 1
            self._record(address, name, now)
            return Attempt(address, name, now), 0.0, False

    def end(self, attempt: Attempt, failed: bool) -> None:
        """After the check: a right password (or one that could not be checked) is not a failure."""
        with self._lock:
            left = self._checking.get(attempt.address, 1) - 1
            if left > 0:
                self._checking[attempt.address] = left
            else:
                self._checking.pop(attempt.address, None)
            if failed:
                return
            for key in self._keys(attempt.address, attempt.name):
                times = self._failures.get(key)
                if times is not None:
                    try:
                        times.remove(attempt.at)
                    except ValueError:  # aged out meanwhile
                        pass
                    if not times:
                        del self._failures[key]

