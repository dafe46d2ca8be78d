"""users_ldap: directory logins against a real slapd on loopback (mitmproxy's Ldap validator,
pagesieve's cache and reconnect in front), and the settings' validation."""

from __future__ import annotations

import logging

import pytest

from pagesieve.core.errors import ConfigError
from pagesieve.engine.globals import DirectorySettings
from pagesieve.store.users_ldap import DirectoryValidator, EitherValidator, mitmproxy_spec
from tests.scale import services as S

pytestmark = pytest.mark.slow

USERS = {"erin": "erin-pw-12345", "frank": "frank-pw-67890"}


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def slapd():
    why = S.Slapd.missing()
    if why:
        pytest.skip(why)
    server = S.Slapd(USERS)
    yield server
    server.close()


def settings(url: str, **kw) -> DirectorySettings:
    return DirectorySettings(url=url, bind_dn=S.LDAP_ADMIN, bind_password=S.LDAP_ADMIN_PASSWORD,
                             base_dn=S.LDAP_PEOPLE, **kw)


def test_logins_checked_in_the_directory(slapd):
    v = DirectoryValidator(settings(slapd.url))
    assert v("erin", USERS["erin"]) and v("frank", USERS["frank"])
    assert not v("erin", USERS["frank"])
    assert not v("nobody", "whatever-pw")
    assert not v("erin", "") and not v("", "x")
    assert not v("*", USERS["erin"]) and not v("erin)(uid=*", USERS["erin"])  # filter characters escaped


def test_cache_keeps_good_logins_for_cache_seconds_and_fails_closed_when_the_directory_is_gone(caplog):
    server = S.Slapd(USERS)
    clock = Clock()
    v = DirectoryValidator(settings(server.url, cache_seconds=60), clock=clock)
    try:
        assert v("erin", USERS["erin"])
        server.proc.kill()
        server.proc.wait(10)
        caplog.set_level(logging.WARNING, logger="pagesieve.proxy")
        assert v("erin", USERS["erin"])  # cached: the directory is not asked
        assert not v("frank", USERS["frank"])  # not cached, directory gone: refused
        assert not v("frank", USERS["frank"])
        assert sum("unavailable" in r.getMessage() for r in caplog.records) == 1  # said once
        clock.now += 61
        assert not v("erin", USERS["erin"])  # cache expired: asked again, refused
    finally:
        server.close()


def test_reconnects_after_the_directory_restarts(slapd):
    v = DirectoryValidator(settings(slapd.url, cache_seconds=0))
    assert v("erin", USERS["erin"])
    v._ldap.conn.unbind()  # the service connection dropped (as after a directory restart)
    assert v("frank", USERS["frank"])


def test_either_validator_tries_each():
    assert EitherValidator(lambda u, p: False, lambda u, p: u == "a")("a", "x")
    assert not EitherValidator(None, lambda u, p: False)("a", "x")


@pytest.mark.parametrize("change, message", [
    ({"url": "http://x"}, "expected ldap://host:port"),
    ({"bind_dn": ""}, "directory.bind_dn is empty"),
    ({"bind_password": "a:b"}, "must not contain ':'"),
    ({"base_dn": "ou=p?x,dc=o"}, "must not contain '?'"),
    ({"user_attribute": "u=id"}, "must not contain '='"),
])
def test_settings_that_mitmproxy_cannot_take_are_refused(change, message):
    base = dict(url="ldap://127.0.0.1:389", bind_dn="cn=a,dc=o", bind_password="pw", base_dn="dc=o")
    with pytest.raises(ConfigError, match=message):
        mitmproxy_spec(DirectorySettings(**{**base, **change}))
    assert mitmproxy_spec(DirectorySettings(**base)) == "ldap:127.0.0.1:389:cn=a,dc=o:pw:dc=o?search_filter_key=uid"


def test_a_directory_that_never_answers_refuses_instead_of_hanging():
    import socket
    import threading

    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)  # accepts connections (the kernel does), never answers a bind
    try:
        v = DirectoryValidator(settings(f"ldap://127.0.0.1:{silent.getsockname()[1]}"))
        out = []
        t = threading.Thread(target=lambda: out.append(v("erin", USERS["erin"])), daemon=True)
        t.start()
        t.join(60)  # the directory's timeouts are a few seconds; a hang would be minutes
        assert out == [False]
    finally:
        silent.close()
