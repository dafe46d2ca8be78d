"""The client's own address behind HAProxy: ``deploy/haproxy.cfg`` sends a PROXY protocol v2 header,
the proxy reads it from its trusted balancer only.

One ``pagesieve run`` with logins on and ``proxy.proxy_protocol_from`` set to the balancer's
address (:data:`tests.scale.services.BALANCER`), behind a real HAProxy running the shipped file.
Clients connect from different loopback addresses (bound as the source address), as different
machines would: through the balancer, and straight to the proxy.
"""

from __future__ import annotations

import base64
import http.client
import socket
import struct
import time

import pytest
import yaml

from tests.proxy.adversarial import NORMAL
from tests.proxy.conftest import Origin, Route, add_user, start_proxy, write_config
from tests.scale import services as S

pytestmark = [pytest.mark.proxy, pytest.mark.slow]

PASSWORD = "the-right-password-1"
HTML = {"Content-Type": "text/html; charset=utf-8"}
#: A v2 header saying the connection comes from 127.0.0.99:4242 (to 127.0.0.1:3128).
SPOOFED_V2 = (b"\r\n\r\n\x00\r\nQUIT\n" + bytes([0x21, 0x11]) + struct.pack("!H", 12)
              + socket.inet_aton("127.0.0.99") + socket.inet_aton("127.0.0.1") + struct.pack("!HH", 4242, 3128))
SPOOFED_V1 = b"PROXY TCP4 127.0.0.99 127.0.0.1 4242 3128\r\n"


@pytest.fixture(scope="module")
def origin():
    server = Origin({"/normal.html": Route(headers=HTML, body=NORMAL)}, host="127.0.0.3")
    yield server
    server.close()


@pytest.fixture(scope="module")
def balanced(tmp_path_factory):
    why = S.Haproxy.missing()
    if why:
        pytest.skip(why)
    tmp = tmp_path_factory.mktemp("proxy-protocol")
    config = write_config(tmp / "config.yaml", tmp, workers=1, proxy_protocol_from=[S.BALANCER])
    data = yaml.safe_load(config.read_text())
    data["users"]["auth"] = True
    config.write_text(yaml.safe_dump(data, sort_keys=False))
    for name in ("alice", "bob"):
        add_user(config, name, PASSWORD)
    proxy = start_proxy(tmp / "p", config=config)
    balancer = S.Haproxy([proxy.port], tmp / "haproxy")
    try:
        yield proxy, balancer
    finally:
        balancer.close()
        proxy.stop()


def get(port: int, url: str, user: str, password: str, source: str) -> tuple[int, str]:
    """(status, body) of a GET through the proxy listening on ``port``, from the loopback address ``source``."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60, source_address=(source, 0))
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    try:
        conn.request("GET", url, headers={"Proxy-Authorization": f"Basic {token}", "Connection": "close"})
        r = conn.getresponse()
        return r.status, r.read().decode("utf-8", "replace")
    finally:
        conn.close()


def raw(port: int, data: bytes, source: str) -> bytes:
    """What the proxy answers ``data`` sent from ``source`` (b"" when it closes without a word)."""
    with socket.create_connection(("127.0.0.1", port), timeout=30, source_address=(source, 0)) as sock:
        sock.sendall(data)
        got = b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return got
            got += chunk


def up(balancer) -> None:
    """Wait until the balancer's health checks (PROXY headers of their own) put the instance in."""
    S.wait_port(balancer.port)
    for _ in range(100):
        try:
            if get(balancer.port, "http://pagesieve.health/", "-", "-", "127.0.0.40")[0] == 200:
                return
        except (ConnectionError, http.client.HTTPException):
            pass
        time.sleep(0.1)
    raise AssertionError(f"the balancer never sent a request on:\n{balancer.log_text()}")


def test_guesses_from_one_client_behind_haproxy_lock_out_no_one_else(balanced, origin):
    proxy, balancer = balanced
    up(balancer)
    url = origin.url("/normal.html")
    # One client guesses (an unknown name, then a real user's) until it is locked out.
    answers = [get(balancer.port, url, "nobody-here", f"guess-{i}", "127.0.0.41")[0] for i in range(11)]
    answers += [get(balancer.port, url, "bob", f"guess-{i}", "127.0.0.41")[0] for i in range(11)]
    assert answers[-1] == 403, answers  # the guesser itself is stopped...
    assert get(balancer.port, url, "alice", PASSWORD, "127.0.0.41")[0] == 403  # ...even with a good password
    # Another client behind the same balancer: bob's first login (one bcrypt check) and alice's work.
    assert get(balancer.port, url, "bob", PASSWORD, "127.0.0.42")[0] == 200
    assert get(balancer.port, url, "alice", PASSWORD, "127.0.0.43")[0] == 200
    log = proxy.log_text()
    assert "proxy authentication failed for 'nobody-here' from 127.0.0.41" in log  # the client's own address
    assert f"failed for 'nobody-here' from {S.BALANCER}" not in log
    assert "refused a connection" not in log  # the health checks' headers (LOCAL) were accepted too


@pytest.mark.parametrize("header", [SPOOFED_V1, SPOOFED_V2], ids=["v1", "v2"])
def test_a_header_from_an_untrusted_address_is_not_honoured(balanced, origin, header):
    """A client straight to the proxy claims to be 127.0.0.99: mitmproxy reads the claim as the start of
    the request (a v1 line: 400 Bad Request; v2's binary bytes: the connection closed); it is used nowhere."""
    proxy, _ = balanced
    token = base64.b64encode(f"bob:wrong-{len(header)}".encode()).decode()
    request = (f"GET {origin.url('/normal.html')} HTTP/1.1\r\nHost: 127.0.0.3\r\n"
               f"Proxy-Authorization: Basic {token}\r\nConnection: close\r\n\r\n").encode()
    answer = raw(proxy.port, header + request, "127.0.0.44")
    assert answer.startswith(b"HTTP/1.1 400") if header == SPOOFED_V1 else answer == b"", answer[:200]
    assert "127.0.0.99" not in proxy.log_text()


def test_a_trusted_address_without_a_header_is_refused(balanced, origin):
    """From the balancer's address, a connection must start with a header: a balancer set up without
    send-proxy-v2 fails at once instead of giving every client its own address."""
    proxy, _ = balanced
    assert f"Client addresses: from the PROXY protocol header of connections from {S.BALANCER}" in proxy.log_text()
    request = f"GET {origin.url('/normal.html')} HTTP/1.1\r\nHost: 127.0.0.3\r\nConnection: close\r\n\r\n".encode()
    assert raw(proxy.port, request, S.BALANCER) == b""
    assert f"refused a connection from {S.BALANCER}" in proxy.log_text()
    metrics = get(proxy.port, "http://pagesieve.health/metrics", "-", "-", "127.0.0.1")[1]
    assert "pagesieve_proxy_protocol_refused_total 1.0" in metrics.splitlines(), metrics
    # The same bytes behind a header: answered (407: no credentials).
    answer = raw(proxy.port, SPOOFED_V1 + request, S.BALANCER)
    assert answer.startswith(b"HTTP/1.1 407"), answer[:200]
    # The client's address is the one mitmproxy's block_global (on by default) judges: a client on the
    # internet is cut off as it would be without a balancer.
    answer = raw(proxy.port, b"PROXY TCP4 8.8.8.8 127.0.0.1 4242 3128\r\n" + request, S.BALANCER)
    assert answer == b"", answer[:200]
    assert "Client connection from 8.8.8.8 killed by block_global" in proxy.log_text()
