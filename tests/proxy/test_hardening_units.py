"""Proxy defects, the parts testable in process: bounded decoding, caching headers,
password checks (cost of an unknown user, remembered failures, the failure limiter), the state
database's mode, the bypass parameter checked where it is declared."""

from __future__ import annotations

import gzip
import os
import stat
import time
import zlib

import brotli
import pytest
import yaml
import zstandard
from mitmproxy import http

from pagesieve.core.errors import ConfigError
from pagesieve.engine import config as C
from pagesieve.proxy_addons.bodies import declared_size, decode_capped
from pagesieve.proxy_addons.http_rules import private_caching
from pagesieve.store import state
from pagesieve.store.users import BCRYPT_ROUNDS, FailureLimiter, Htpasswd, dummy_hash, hash_password
from tests.conftest import REPO
from tests.proxy.adversarial import gzip_bomb

PAGE = b"<p>hello world</p>" * 500


@pytest.mark.parametrize("coding, data", [
    ("gzip", gzip.compress(PAGE)), ("deflate", zlib.compress(PAGE)), ("deflate", zlib.compress(PAGE)[2:-4]),
    ("br", brotli.compress(PAGE)), ("zstd", zstandard.ZstdCompressor().compress(PAGE)),
    ("identity", PAGE), ("gzip, br", brotli.compress(gzip.compress(PAGE))), ("GZIP", gzip.compress(PAGE)),
], ids=["gzip", "zlib-deflate", "raw-deflate", "br", "zstd", "identity", "gzip-then-br", "upper-case"])
def test_decode_capped_both_sides_of_the_limit(coding, data):
    assert decode_capped(data, coding, len(PAGE)) == PAGE
    assert decode_capped(data, coding, len(PAGE) - 1) is None


@pytest.mark.parametrize("coding, data, message", [
    ("gzip", b"\x1f\x8b\x08\x00 not gzip", "gzip:"),
    ("br", brotli.compress(PAGE)[:-4], "truncated brotli"),
    ("compress", b"x", "unknown content-encoding 'compress'"),
], ids=["gzip", "br", "compress"])
def test_decode_capped_refuses_corrupt_bodies(coding, data, message):
    with pytest.raises(ValueError, match=message):
        decode_capped(data, coding, 10**6)


@pytest.mark.parametrize("coding, bomb", [
    ("gzip", lambda: gzip_bomb(1100 << 20)),
    ("zstd", lambda: zstandard.ZstdCompressor(level=1).compress(bytes(300 << 20))),
    ("br", lambda: brotli.compress(bytes(64 << 20), quality=1)),
])
def test_a_bomb_stops_inflating_at_the_limit(coding, bomb):
    """1.1 GB of gzip (~1 MB sent): before bounded decoding, all of it was inflated."""
    data = bomb()
    t0 = time.process_time()
    assert decode_capped(data, coding, 8_000_000) is None
    # Inflating 8 MB costs milliseconds; the whole bomb, seconds (CPU time: load does not count).
    assert time.process_time() - t0 < 1.0


def headers(**kw) -> http.Headers:
    return http.Headers([(k.replace("_", "-").encode(), v.encode()) for k, v in kw.items()])


def test_filtered_response_does_not_claim_the_origins_validators():
    h = headers(etag='"abc"', accept_ranges="bytes", last_modified="Mon, 01 Jan 2024 00:00:00 GMT",
                cache_control="public, max-age=600, s-maxage=900")
    private_caching(h, "key1", auth=False)
    assert "accept-ranges" not in h and "last-modified" not in h
    assert h["etag"].startswith('W/"ps-') and h["etag"] != '"abc"'
    assert h["cache-control"] == "private, max-age=600"
    assert "vary" not in h
    other = headers(etag='"abc"')
    private_caching(other, "key2", auth=False)
    assert other["etag"] != h["etag"]  # other settings, other tag


@pytest.mark.parametrize("before, auth, after, vary", [
    (None, False, None, None),
    (None, True, "private", "Proxy-Authorization"),
    ("no-store", True, "no-store", "Proxy-Authorization"),
    ("max-age=60", False, "max-age=60", None),
    ("public", False, "private", None),
    # A quoted field list holds commas: it stays one directive (or goes whole, as private's does).
    ('private="Set-Cookie, X-Foo"', False, "private", None),
    ('private="Set-Cookie, X-Foo", max-age=60', False, "private, max-age=60", None),
    ('no-cache="Set-Cookie, X-Foo", max-age=60', False, 'no-cache="Set-Cookie, X-Foo", max-age=60', None),
    ('no-cache="Set-Cookie, X-Foo", public', True, 'private, no-cache="Set-Cookie, X-Foo"', "Proxy-Authorization"),
    ("no-store, max-age=0", False, "no-store, max-age=0", None),
    ("public, no-store", False, "no-store", None),
    ("Public, Max-Age=300, S-Maxage=600", False, "private, Max-Age=300", None),
    ('max-age=60, no-cache="unclosed', False, "private", None),  # unparsable: kept from shared caches
])
def test_cache_control_and_vary(before, auth, after, vary):
    h = headers(**({"cache_control": before} if before else {}), **({"vary": "Accept-Encoding"} if vary else {}))
    private_caching(h, "k", auth=auth)
    assert h.get("cache-control") == after
    if vary:
        assert h["vary"] == "Accept-Encoding, Proxy-Authorization"


@pytest.fixture(scope="module")
def htpasswd(tmp_path_factory):
    ht = Htpasswd(tmp_path_factory.mktemp("ht") / "htpasswd")
    ht.write({"alice": hash_password("correct horse")})
    return ht


def test_unknown_user_costs_a_real_bcrypt(htpasswd):
    """User names must not be told apart by time: the dummy hash has the real cost."""
    assert dummy_hash().startswith(f"$2b${BCRYPT_ROUNDS:02d}$".encode())

    def cost(name: str, password: str) -> float:
        t0 = time.process_time()
        assert htpasswd.check(name, password) is False
        return time.process_time() - t0

    dummy_hash()
    wrong, unknown = cost("alice", "wrong guess 1"), cost("mallory", "wrong guess 2")
    assert unknown > wrong / 3, (unknown, wrong)


def test_verdicts_are_remembered(htpasswd):
    assert htpasswd.remembered("alice", "correct horse") in (None, True)
    assert htpasswd.check("alice", "correct horse")
    assert htpasswd.remembered("alice", "correct horse") is True
    assert not htpasswd.check("alice", "another wrong one")
    assert htpasswd.remembered("alice", "another wrong one") is False
    t0 = time.process_time()
    for _ in range(20):
        assert not htpasswd.check("alice", "another wrong one")  # a browser re-sending it
    assert time.process_time() - t0 < 0.5


def test_failure_limiter_per_address_and_name_at_that_address():
    now = [0.0]
    lim = FailureLimiter(window=60, per_address=3, per_name=2, clock=lambda: now[0])
    for i in range(3):
        assert lim.retry_after("10.0.0.1", f"bob{i}") == 0
        lim.failed("10.0.0.1", f"bob{i}")
    assert lim.retry_after("10.0.0.1", "alice") == pytest.approx(60)  # this address is blocked
    lim.failed("10.0.0.2", "alice")
    lim.failed("10.0.0.2", "alice")
    assert lim.retry_after("10.0.0.2", "alice") == pytest.approx(60)  # alice from there is blocked
    assert lim.retry_after("10.0.0.2", "carol") == 0  # not the address (2 of 3)
    for address in ("10.0.0.3", "10.0.0.4", "10.0.0.5"):
        lim.failed(address, "alice")
    assert lim.retry_after("10.0.0.9", "alice") == 0  # guesses from elsewhere never lock alice out
    now[0] = 61
    assert lim.retry_after("10.0.0.1", "alice") == 0  # failures aged out


def test_an_attempt_counts_as_failed_from_its_start_until_it_succeeds():
    lim = FailureLimiter(window=60, per_address=3, per_name=3, checks_per_address=10, clock=lambda: 0.0)
    running = [lim.begin("10.0.0.1", "alice")[0] for _ in range(3)]  # three checks under way
    assert all(running)
    assert lim.begin("10.0.0.1", "alice") == (None, pytest.approx(60), True)  # the 4th is refused
    lim.end(running[0], failed=False)  # the right password: not a failure
    attempt, _, _ = lim.begin("10.0.0.1", "alice")
    assert attempt is not None


def test_checks_under_way_per_address_are_limited():
    lim = FailureLimiter(window=60, per_address=10, per_name=10, checks_per_address=2, clock=lambda: 0.0)
    first, second = lim.begin("10.0.0.1", "a")[0], lim.begin("10.0.0.1", "b")[0]
    assert first and second
    assert lim.begin("10.0.0.1", "c") == (None, 1.0, False)  # busy, not locked
    assert lim.begin("10.0.0.2", "c")[0] is not None  # another address
    lim.end(first, failed=True)
    assert lim.begin("10.0.0.1", "c")[0] is not None


def test_an_over_long_password_costs_a_bcrypt_for_a_known_name(htpasswd):
    def cost(name: str, password: str) -> float:
        t0 = time.process_time()
        assert htpasswd.check(name, password) is False
        return time.process_time() - t0

    dummy_hash()
    known, unknown = cost("alice", "k" * 81), cost("mallory", "u" * 81)
    assert known > unknown / 3, (known, unknown)  # was 0.005 s against 0.30 s


def test_state_database_is_owner_only(tmp_path):
    path = tmp_path / "state" / "state.sqlite3"
    conn = state.connect(str(path))
    conn.execute("CREATE TABLE t (x)")
    conn.execute("INSERT INTO t VALUES (1)")
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in path.parent.iterdir()}
    assert set(modes) >= {"state.sqlite3", "state.sqlite3-wal", "state.sqlite3-shm"}
    assert all(m == 0o600 for m in modes.values()), modes
    conn.close()
    os.chmod(path, 0o644)  # made by an older pagesieve
    state.connect(str(path)).close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


@pytest.mark.parametrize("key, value, ok", [
    ("bypass_param", "pagesieve=off", True), ("bypass_param", "", True),
    ("bypass_param", "noequals", False), ("bypass_param", "=x", False), ("bypass_param", "a=1&b=2", False),
    ("bypass_header", "X-Pagesieve-Bypass", True), ("bypass_header", "Bad Header", False),
])
def test_bypass_settings_checked_when_the_config_loads(tmp_path, key, value, ok):
    """`config check` and `run` both load the config: one check, in the declaration."""
    data = yaml.safe_load((REPO / "config.yaml").read_text(encoding="utf-8"))
    data["proxy"][key] = value
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    if ok:
        assert C.load(str(path)).globals["proxy"].__getattribute__(key) == value
    else:
        with pytest.raises(ConfigError, match=f"proxy.{key} = {value!r}: expected"):
            C.load(str(path))


def test_a_body_that_states_a_size_past_the_limit_is_not_inflated_at_all():
    """The gzip trailer's ISIZE (and a zstd frame's content size) stop it before a byte is
    inflated: here the deflate data is garbage, which inflating would report as corrupt."""
    stated = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff" + b"not deflate" * 900 + (0).to_bytes(4, "little") \
        + (9_000_000).to_bytes(4, "little")
    assert declared_size(stated, "gzip") == 9_000_000
    assert decode_capped(stated, "gzip", 8_000_000) is None
    with pytest.raises(ValueError, match="gzip:"):
        decode_capped(stated, "gzip", 10_000_000)  # under the limit: inflated, and found corrupt
    zstd = zstandard.ZstdCompressor(level=1).compress(bytes(9_000_000))
    assert declared_size(zstd, "zstd") == 9_000_000
    assert decode_capped(zstd, "zstd", 8_000_000) is None


def test_a_bomb_that_understates_its_size_is_still_capped():
    """A forged trailer (ISIZE 100) does not let the bomb through: the cap still stops it."""
    bomb = gzip_bomb(64 << 20)
    lying = bomb[:-4] + (100).to_bytes(4, "little")
    assert declared_size(lying, "gzip") == 100
    assert decode_capped(lying, "gzip", 8_000_000) is None


def test_a_stated_size_deflate_cannot_reach_is_no_size():
    """A corrupt body whose last four bytes happen to read as 1.9 GB is reported corrupt (inflated,
    and found not to be gzip), not too large: deflate cannot inflate 22 bytes that far."""
    broken = b"\x1f\x8b\x08\x00 this is not gzip"
    assert declared_size(broken, "gzip") == -1
    with pytest.raises(ValueError, match="gzip:"):
        decode_capped(broken, "gzip", 8_000_000)
