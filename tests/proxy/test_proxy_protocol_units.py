"""The PROXY protocol reader on both sides of what it accepts (proxy_addons/proxy_protocol.py), and the
operator setting that turns it on."""

from __future__ import annotations

import asyncio
import socket
import struct

import pytest

from pagesieve.core.errors import ConfigError
from pagesieve.core.settings import build
from pagesieve.engine.globals import ProxySettings
from pagesieve.proxy_addons.proxy_protocol import V2_SIGNATURE, HeaderError, networks, read_header


def v2(command: int = 1, family: int = 1, addresses: bytes | None = None, tlv: bytes = b"") -> bytes:
    if addresses is None:
        addresses = (socket.inet_aton("203.0.113.7") + socket.inet_aton("10.0.0.1")
                     + struct.pack("!HH", 51234, 3128))
    body = addresses + tlv
    return V2_SIGNATURE + bytes([0x20 | command, (family << 4) | 1]) + struct.pack("!H", len(body)) + body


IPV6 = (socket.inet_pton(socket.AF_INET6, "2001:db8::5") + socket.inet_pton(socket.AF_INET6, "2001:db8::1")
        + struct.pack("!HH", 40000, 3128))


def read(data: bytes, then: bytes = b"GET / HTTP/1.1\r\n") -> tuple[object, bytes]:
    """(what read_header returns or raises, the bytes left for mitmproxy)."""

    async def go():
        reader = asyncio.StreamReader()
        reader.feed_data(data + then)
        reader.feed_eof()
        try:
            got: object = await read_header(reader)
        except HeaderError as err:
            got = err
        return got, await reader.read()

    return asyncio.run(go())


@pytest.mark.parametrize("data, expected", [
    (v2(), ("203.0.113.7", 51234)),
    (v2(family=2, addresses=IPV6), ("2001:db8::5", 40000)),
    (v2(tlv=b"\x04\x00\x01\x00"), ("203.0.113.7", 51234)),  # a NOOP TLV after the addresses
    (v2(command=0), None),  # LOCAL: HAProxy's health check
    (v2(family=0, addresses=b""), None),  # AF_UNSPEC
    (b"PROXY TCP4 198.51.100.2 10.0.0.1 5000 3128\r\n", ("198.51.100.2", 5000)),
    (b"PROXY TCP6 2001:db8::9 2001:db8::1 5000 3128\r\n", ("2001:db8::9", 5000)),
    (b"PROXY UNKNOWN\r\n", None),
    (b"PROXY UNKNOWN ffff::1 ffff::2 1 2\r\n", None),
])
def test_valid_headers_give_the_client_and_leave_the_request(data, expected):
    got, left = read(data)
    assert got == expected
    assert left == b"GET / HTTP/1.1\r\n"  # not a byte of the request was taken


@pytest.mark.parametrize("data, why", [
    (b"GET http://example.org/ HTTP/1.1\r\n", "does not start with a PROXY protocol header"),
    (b"PROXY TCP4 198.51.100.2 10.0.0.1 5000\r\n", "unexpected 'TCP4' or 4 fields"),
    (b"PROXY TCP4 2001:db8::9 10.0.0.1 5000 3128\r\n", "does not match its family"),
    (b"PROXY TCP4 198.51.100.2 10.0.0.1 99999 3128\r\n", "does not match its family, or a bad port"),
    (b"PROXY TCP4 300.1.1.1 10.0.0.1 5000 3128\r\n", "PROXY v1:"),
    (b"PROXY TCP4 " + b"1" * 120 + b"\r\n", "no line end within 107 bytes"),
    (v2(command=2), "unknown command 2"),
    (V2_SIGNATURE[:6], "closed after 6 bytes"),
    (v2(addresses=b"\x01\x02\x03"), "3 bytes of addresses, 12 needed"),
    (V2_SIGNATURE + bytes([0x11, 0x11]) + b"\x00\x00", "not a PROXY protocol v2 header"),  # version 1 in a v2 frame
])
def test_anything_else_is_refused_with_a_reason(data, why):
    got, _ = read(data, then=b"")
    assert isinstance(got, HeaderError) and why in str(got), got


def test_the_setting_takes_addresses_and_networks_and_names_a_bad_entry():
    s = build(ProxySettings, {"proxy_protocol_from": ["10.0.0.5", "192.168.0.0/24", "fd00::/8"]}, "proxy")
    nets = networks(s.proxy_protocol_from)
    assert [str(n) for n in nets] == ["10.0.0.5/32", "192.168.0.0/24", "fd00::/8"]
    assert build(ProxySettings, {}, "proxy").proxy_protocol_from == ()  # off by default
    with pytest.raises(ConfigError, match=r"proxy.proxy_protocol_from entry 2 = 'haproxy.local': expected an IP "
                                          r"address or a network"):
        build(ProxySettings, {"proxy_protocol_from": ["10.0.0.5", "haproxy.local"]}, "proxy")
