"""The real client address behind a load balancer: the PROXY protocol (v2 and v1) on the listener.

Behind HAProxy in TCP mode every connection comes from the balancer, so without more every client
would share its address: one client's failed logins would lock out everyone's logins from it, and
per-client limits, fair queueing, logs and metrics would see a single client. HAProxy's
``send-proxy-v2`` (``deploy/haproxy.cfg``) puts a small header in front of each connection that
names the client; mitmproxy does not read it (it would take it for a broken request line), so this
addon does, on its ``client_connected`` hook — after mitmproxy accepted the connection and before
it reads a byte of it — and sets ``client.peername`` to the address the header gives. Everything
after it (the login limits, the lock-outs, the fair queue, the log lines) reads that address.

Only from the operator's balancers: ``proxy.proxy_protocol_from`` lists the addresses (or networks)
trusted to send the header; empty (the default) means no connection is read this way. A connection
from one of them that does not start with a valid header is refused (closed before anything is
answered): a balancer set up without ``send-proxy-v2`` then fails loudly instead of sharing one
address among all clients. From any other address a header is never honoured: it reaches
mitmproxy as the start of a request and is answered ``400 Bad Request``.

A header that says LOCAL (v2: HAProxy's own health checks) or UNKNOWN (v1), or names no IP
address (a Unix socket), keeps the connection's own address. mitmproxy's ``block_global`` and
``block_private`` options are applied to the client's address once it is known.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import struct
from typing import Any

from mitmproxy import connection, ctx
from mitmproxy.utils import human

from pagesieve.proxy_addons.options import ConfigSource

log = logging.getLogger("pagesieve.proxy")

#: The 12 bytes a version 2 header starts with (the PROXY protocol specification, section 2.2).
V2_SIGNATURE = b"\r\n\r\n\x00\r\nQUIT\n"
#: A version 1 header is one line of at most this many bytes, CRLF included (section 2.1).
V1_MAX_BYTES = 107
#: What a version 2 header holds after its 16 fixed bytes, by address family: (size, struct format of
#: source address, destination address, source port, destination port) — section 2.2.
_V2_FAMILIES = {0x1: (12, "!4s4sHH"), 0x2: (36, "!16s16sHH")}

Address = tuple[str, int]


class HeaderError(ValueError):
    """The connection did not start with a valid PROXY protocol header."""


def parse_v1(line: bytes) -> Address | None:
    """The client address of a version 1 line (``PROXY TCP4 src dst sport dport\\r\\n``); None for
    ``PROXY UNKNOWN`` (keep the connection's own address)."""
    if not line.startswith(b"PROXY ") or not line.endswith(b"\r\n") or len(line) > V1_MAX_BYTES:
        raise HeaderError("not a PROXY protocol v1 line")
    parts = line[6:-2].decode("ascii", "replace").split(" ")
    if parts[0] == "UNKNOWN":
        return None
    if parts[0] not in ("TCP4", "TCP6") or len(parts) != 5:
        raise HeaderError(f"PROXY v1: unexpected {parts[0][:10]!r} or {len(parts)} fields")
    family = 4 if parts[0] == "TCP4" else 6
    try:
        source = ipaddress.ip_address(parts[1])
        ipaddress.ip_address(parts[2])
        port = int(parts[3])
        int(parts[4])
    except ValueError as err:
        raise HeaderError(f"PROXY v1: {err}") from err
    if source.version != family or not 0 <= port <= 65535 or not parts[3].isdigit():
        raise HeaderError("PROXY v1: the address does not match its family, or a bad port")
    return str(source), port


def parse_v2(fixed: bytes, rest: bytes) -> Address | None:
    """The client address of a version 2 header (``fixed``: its first 16 bytes, ``rest``: the
    length they announce); None when it names none (LOCAL, an unspecified or Unix address)."""
    if fixed[:12] != V2_SIGNATURE or fixed[12] >> 4 != 2:
        raise HeaderError("not a PROXY protocol v2 header")
    command, family = fixed[12] & 0x0F, fixed[13] >> 4
    if command == 0x0:  # LOCAL: the balancer speaking for itself (a health check)
        return None
    if command != 0x1:
        raise HeaderError(f"PROXY v2: unknown command {command}")
    if family not in _V2_FAMILIES:
        return None  # AF_UNSPEC or AF_UNIX: no IP address to take
    size, layout = _V2_FAMILIES[family]
    if len(rest) < size:
        raise HeaderError(f"PROXY v2: {len(rest)} bytes of addresses, {size} needed")
    source, _, port, _ = struct.unpack(layout, rest[:size])
    return str(ipaddress.ip_address(source)), port


async def read_header(reader: asyncio.StreamReader) -> Address | None:
    """Read one PROXY protocol header (v2 or v1) off ``reader`` and nothing after it: the client's
    address, or None when the header names none. HeaderError when the bytes are no such header."""
    try:
        start = await reader.readexactly(12)
        if start == V2_SIGNATURE:
            fixed = start + await reader.readexactly(4)
            (length,) = struct.unpack("!H", fixed[14:16])
            return parse_v2(fixed, await reader.readexactly(length))
        if not start.startswith(b"PROXY "):
            raise HeaderError("the connection does not start with a PROXY protocol header")
        line = bytearray(start)
        while not line.endswith(b"\r\n"):  # a byte at a time: nothing after the line is taken
            if len(line) >= V1_MAX_BYTES:
                raise HeaderError(f"PROXY v1: no line end within {V1_MAX_BYTES} bytes")
            line += await reader.readexactly(1)
        return parse_v1(bytes(line))
    except asyncio.IncompleteReadError as err:
        raise HeaderError(f"the connection closed after {len(err.partial)} bytes of a header") from err


def networks(entries: tuple[str, ...]) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    """``proxy.proxy_protocol_from`` as networks (a bare address is a network of one)."""
    return tuple(ipaddress.ip_network(e, strict=False) for e in entries)


def _ip(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    address = ipaddress.ip_address(host.split("%", 1)[0])
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped  # a dual-stack listener names IPv4 clients ::ffff:a.b.c.d
    return address


class ProxyProtocol:
    """Sets each connection's client address from its balancer's PROXY header (module doc)."""

    name = "pagesieve_proxy_protocol"

    def __init__(self, source: ConfigSource) -> None:
        self.source = source
        self._trusted: tuple[Any, ...] = ()
        self.refused = 0  # connections from a trusted address without a valid header (metrics)

    def configure(self, updated: set[str]) -> None:
        if self.source.cfg is not None:
            self._trusted = networks(self.source.settings.proxy_protocol_from)

    def trusts(self, host: str) -> bool:
        if not self._trusted:
            return False
        try:
            address = _ip(host)
        except ValueError:
            return False
        return any(address in net for net in self._trusted)

    async def client_connected(self, client: connection.Client) -> None:
        if not self._trusted or client.error or not client.peername or not self.trusts(client.peername[0]):
            return
        server = ctx.master.addons.get("proxyserver")
        handler = getattr(server, "connections", {}).get(client.id)
        transport = handler.transports.get(client) if handler is not None else None
        reader = getattr(transport, "reader", None)
        balancer = client.peername[0]
        try:
            if handler is None or not isinstance(reader, asyncio.StreamReader):
                raise HeaderError("not a TCP stream")
            async with asyncio.timeout(self.source.settings.header_timeout_seconds):
                address = await read_header(reader)
        except (HeaderError, TimeoutError) as err:
            self.refused += 1
            client.error = "no valid PROXY protocol header from a trusted balancer"
            log.warning("refused a connection from %s (listed in proxy.proxy_protocol_from): %s", balancer,
                        err if isinstance(err, HeaderError) else "no PROXY protocol header in time")
            return
        if address is not None:
            client.peername = address
            handler.log_prefix = f"{human.format_address(address)}: "
            # mitmproxy's block_global / block_private judged the balancer's address (it ran first):
            # judge the client's own now, as they would without a balancer in between.
            block = ctx.master.addons.get("block")
            if block is not None:
                block.client_connected(client)
