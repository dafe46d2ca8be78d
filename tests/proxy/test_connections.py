"""Client connections that hold the proxy without using it are closed, through a real
``pagesieve run``: idle ones after ``proxy.idle_timeout_seconds``, and ones that dribble their
request headers a byte at a time after ``proxy.header_timeout_seconds`` (mitmproxy counts each
byte as activity and never times out a header read)."""

from __future__ import annotations

import socket
import time

import pytest

from tests.proxy.adversarial import NORMAL
from tests.proxy.conftest import Origin, Route, start_proxy

pytestmark = pytest.mark.proxy

IDLE, HEADERS = 2, 1.5  # the test proxy's proxy.idle_timeout_seconds and proxy.header_timeout_seconds


@pytest.fixture(scope="module")
def origin():
    server = Origin({"/normal.html": Route(headers={"Content-Type": "text/html"}, body=NORMAL)}, host="127.0.0.3")
    yield server
    server.close()


@pytest.fixture(scope="module")
def proxy(tmp_path_factory):
    p = start_proxy(tmp_path_factory.mktemp("connections"), idle_timeout_seconds=IDLE, header_timeout_seconds=HEADERS)
    yield p
    p.stop()


def connect(proxy) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", proxy.port), timeout=30)
    return s


def closed_by_peer(s: socket.socket, seconds: float) -> bool:
    """True when the proxy closes ``s`` within ``seconds`` (reading whatever it sends first)."""
    s.settimeout(0.2)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if s.recv(65536) == b"":
                return True
        except TimeoutError:
            continue
        except ConnectionResetError:
            return True
    return False


def test_connections_that_send_nothing_are_closed(proxy):
    conns = [connect(proxy) for _ in range(200)]
    try:
        time.sleep(HEADERS)
        assert all(closed_by_peer(s, 5) for s in conns)
    finally:
        for s in conns:
            s.close()


def test_a_connection_dribbling_its_headers_is_closed(proxy, origin):
    s = connect(proxy)
    request = f"GET {origin.url('/normal.html')} HTTP/1.1\r\nHost: {origin.host}\r\nX-Slow: ".encode() + b"a" * 100
    t0 = time.monotonic()
    closed = False
    try:
        for byte in request:  # one byte every 0.2 s: never idle for IDLE seconds
            s.sendall(bytes([byte]))
            if closed_by_peer(s, 0.2):
                closed = True
                break
            if time.monotonic() - t0 > 10:
                break
    except (BrokenPipeError, ConnectionResetError):
        closed = True
    finally:
        s.close()
    assert closed and time.monotonic() - t0 < HEADERS + 3


def test_an_idle_keep_alive_connection_is_closed_and_a_working_one_is_not(proxy, origin):
    s = connect(proxy)
    try:
        for _ in range(3):  # requests 1 s apart (under IDLE) on one connection: each answered
            s.sendall(f"GET {origin.url('/normal.html')} HTTP/1.1\r\nHost: {origin.host}\r\n\r\n".encode())
            s.settimeout(30)
            data = b""
            while b"</html>" not in data:
                chunk = s.recv(65536)
                assert chunk, "closed while in use"
                data += chunk
            assert data.startswith(b"HTTP/1.1 200")
            time.sleep(1)
        assert closed_by_peer(s, IDLE + 3)  # then idle: closed
    finally:
        s.close()
