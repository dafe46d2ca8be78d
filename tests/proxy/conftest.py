"""Real processes on loopback: an origin web server and a ``pagesieve run`` proxy in front of it.

* :class:`Origin` — a threaded HTTP(S) server (in this test process) with fixed routes: corpus
  pages, compressed bodies, non-UTF-8 pages, images, a huge page, pages that make a filter fail
  (see ``inject/sitecustomize.py``), redirects, 204/304.
* :func:`start_proxy` — ``python -m pagesieve run`` as a subprocess with a test config (a copy of
  ``config.yaml`` with small limits and its own state and confdir), waited for until it listens.
"""

from __future__ import annotations

import datetime
import gzip
import http.server
import ipaddress
import os
import socket
import ssl
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

import brotli
import httpx
import lxml.html
import pytest
import yaml
import zstandard
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.conftest import REPO, corpus_pages

INJECT = Path(__file__).parent / "inject"
MAX_BODY = 3_000_000  # the test proxy's proxy.max_body_bytes
TIMEOUT = 3.0  # the test proxy's proxy.timeout_seconds
READY_SECONDS = 180  # a deadline for the workers' warm-up (lists, models) on a loaded machine

ARTICLE = ("<p>The council of Brightwater voted on Tuesday to rebuild the old harbour wall after the winter "
           "storms. Engineers said the work would take two summers and cost less than a new breakwater.</p>") * 6
AD_PAGE = f"""<!doctype html><html lang=en><head><title>Harbour news</title></head><body>
<nav id=menu><ul><li><a href=/a>Home</a><li><a href=/b>World</a><li><a href=/c>Sport</a><li><a href=/d>Weather</a>
<li><a href=/e>Money</a><li><a href=/f>Culture</a></ul></nav>
<div id=story><h1>Harbour wall to be rebuilt</h1>{ARTICLE}</div>
<script id=tracker src="https://www.googletagservices.com/tag/js/gpt.js"></script>
<iframe id=adframe src="https://ad.doubleclick.net/ddm/adi/N123/x;sz=300x250"></iframe>
<div class=ad_banner id=hidden-ad>Sponsored: buy things</div>
<table id=spacer><tr><td>&nbsp;</td></tr></table>
</body></html>"""


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def html_page(title: str, text: str, extra_head: str = "") -> bytes:
    return (f"<!doctype html><html><head><meta charset=utf-8><title>{title}</title>{extra_head}</head>"
            f"<body><script>var x = 1;</script><div id=story><h1>{title}</h1><p>{text}</p>{ARTICLE}</div>"
            f"</body></html>").encode()


@dataclass
class Route:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    #: When set, the body is sent chunked (no Content-Length): these chunks, until the iterator
    #: ends or the client goes away (an endless stream when the iterator is).
    chunks: Callable[[], Iterator[bytes]] | None = None


def build_routes() -> dict[str, Route]:
    routes: dict[str, Route] = {}
    pages = corpus_pages()
    for pid, path, _ in pages[:12]:
        routes[f"/corpus/{pid}.html"] = Route(headers={"Content-Type": "text/html; charset=utf-8"},
                                              body=path.read_bytes())
    page = html_page("Compressed", "A page sent compressed.")
    for name, data in (("gzip", gzip.compress(page)), ("br", brotli.compress(page)),
                       ("zstd", zstandard.ZstdCompressor().compress(page)), ("deflate", zlib.compress(page))):
        routes[f"/enc/{name}.html"] = Route(headers={"Content-Type": "text/html", "Content-Encoding": name},
                                            body=data)
    routes["/enc/broken-gzip.html"] = Route(headers={"Content-Type": "text/html", "Content-Encoding": "gzip"},
                                            body=b"\x1f\x8b\x08\x00 this is not gzip")
    latin = html_page("Caf\u00e9 cr\u00e8me", "Na\u00efve fa\u00e7ade, 20 \u20ac.").decode()
    routes["/charset/cp1252-header.html"] = Route(
        headers={"Content-Type": "text/html; charset=windows-1252"},
        body=latin.replace("<meta charset=utf-8>", "").encode("cp1252"))
    sjis = html_page("\u65e5\u672c\u8a9e\u306e\u30da\u30fc\u30b8", "\u6771\u4eac\u306e\u5929\u6c17\u3002").decode()
    routes["/charset/sjis-meta.html"] = Route(headers={"Content-Type": "text/html"},
                                              body=sjis.replace("charset=utf-8", "charset=shift_jis").encode("shift_jis"))
    routes["/charset/bom.html"] = Route(headers={"Content-Type": "text/html; charset=iso-8859-1"},
                                        body=b"\xef\xbb\xbf" + html_page("BOM \u00fcber", "\u00dcbermut."))
    for codec, bom in (("utf-16-be", b"\xfe\xff"), ("utf-16-le", b"\xff\xfe")):  # the mark says the order
        routes[f"/charset/{codec}.html"] = Route(headers={"Content-Type": "text/html"},
                                                 body=bom + html_page("Sixteen bits", "\u00dcber zw\u00f6lf Stra\u00dfen.").decode().encode(codec))
    routes["/ads.html"] = Route(headers={"Content-Type": "text/html; charset=utf-8"}, body=AD_PAGE.encode())
    routes["/notype.html"] = Route(headers={}, body=html_page("No type", "Sent without Content-Type."))
    routes["/xhtml.xhtml"] = Route(headers={"Content-Type": "application/xhtml+xml"},
                                   body=b'<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml">'
                                        b"<body><script>x()</script><p>x</p></body></html>")
    routes["/image.png"] = Route(headers={"Content-Type": "image/png"},
                                 body=b"\x89PNG\r\n\x1a\n" + os.urandom(20000))
    routes["/style.css"] = Route(headers={"Content-Type": "text/css"}, body=b"body{color:red}" * 100)
    routes["/app.js"] = Route(headers={"Content-Type": "application/javascript"}, body=b"<script>alert(1)</script>")
    routes["/data.json"] = Route(headers={"Content-Type": "application/json"}, body=b'{"html": "<p>x</p>"}')
    routes["/download.bin"] = Route(headers={"Content-Type": "application/octet-stream"}, body=os.urandom(50000))
    routes["/error.html"] = Route(status=500, headers={"Content-Type": "text/html"},
                                  body=html_page("Server error", "Something broke."))
    routes["/redirect"] = Route(status=302, headers={"Location": "/ads.html", "Content-Type": "text/html"},
                                body=b"<html><body><script>x()</script><a href=/ads.html>moved</a></body></html>")
    routes["/nocontent"] = Route(status=204)
    routes["/huge.html"] = Route(headers={"Content-Type": "text/html"},
                                 body=html_page("Huge", "<p>filler</p>" * (MAX_BODY // 12)))
    for fault in ("raise", "raise-secure", "raise-outside", "crash", "slow"):
        routes[f"/fault/{fault}.html"] = Route(
            headers={"Content-Type": "text/html; charset=utf-8"},
            body=html_page(f"Fault {fault}", "This page makes a filter fail.",
                           f'<meta name="pagesieve-test" content="{fault}">'))
    return routes


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    routes: dict[str, Route] = {}
    seen: list[tuple[str, str, dict]] = []

    def log_message(self, *args) -> None:  # quiet
        pass

    def _send(self, head_only: bool) -> None:
        self.seen.append((self.command, self.path, dict(self.headers)))
        route = self.routes.get(self.path.split("?")[0])
        if route is None:
            route = Route(status=404, headers={"Content-Type": "text/plain"}, body=b"not found")
        self.send_response(route.status)
        for k, v in route.headers.items():
            self.send_header(k, v)
        if route.chunks is not None:
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            try:
                for chunk in route.chunks():
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.wfile.write(b"0\r\n\r\n")
            except OSError:  # the client (the proxy) went away
                self.close_connection = True
            return
        if route.status not in (204, 304):
            self.send_header("Content-Length", str(len(route.body)))
        self.end_headers()
        if not head_only and route.status not in (204, 304):
            self.wfile.write(route.body)

    def do_GET(self) -> None:
        self._send(False)

    def do_HEAD(self) -> None:
        self._send(True)


class _Server(http.server.ThreadingHTTPServer):
    request_queue_size = 1024  # socketserver's 5 drops connections under concurrent clients


class Origin:
    """A threaded origin server on a loopback address (HTTPS when given a certificate)."""

    def __init__(self, routes: dict[str, Route], host: str = "127.0.0.1", cert: tuple[str, str] | None = None):
        handler = type("Handler", (_Handler,), {"routes": routes, "seen": []})
        self.handler = handler
        self.server = _Server((host, 0), handler)
        self.server.daemon_threads = True
        if cert:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(*cert)
            self.server.socket = ctx.wrap_socket(self.server.socket, server_side=True)
        self.host, self.port = self.server.server_address[:2]
        self.scheme = "https" if cert else "http"
        self.routes = routes
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def url(self, path: str, host: str | None = None) -> str:
        return f"{self.scheme}://{host or self.host}:{self.port}{path}"

    @property
    def seen(self) -> list:
        return self.handler.seen

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Proxy:
    def __init__(self, proc: subprocess.Popen, port: int, confdir: Path, log: Path, config: Path):
        self.proc, self.port, self.confdir, self.log, self.config = proc, port, confdir, log, config

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def processes(self) -> list[int]:
        """The proxy's process and its worker processes (children, from /proc)."""
        return [self.proc.pid, *children(self.proc.pid)]

    def workers(self) -> list[int]:
        """Pids of the worker processes: the forkserver's children (not the forkserver itself, nor
        multiprocessing's resource tracker); the proxy's own children where workers are spawned."""
        out = []
        for p in children(self.proc.pid):
            cmd = _cmdline(p)
            if b"forkserver" in cmd:
                out += children(p)
            elif b"resource_tracker" not in cmd:
                out.append(p)
        return out

    def descendants(self) -> list[int]:
        """Pids of every process below the proxy (forkserver, workers, resource tracker)."""
        out, todo = [], [self.proc.pid]
        while todo:
            kids = children(todo.pop())
            out += kids
            todo += kids
        return out

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def stop(self) -> None:
        terminate(self.proc, 15)


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def children(pid: int) -> list[int]:
    """Pids of the live children of ``pid`` (from /proc/*/stat)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(entry.name))
    return out


def peak_rss_mb(pid: int) -> float:
    """Peak resident memory of ``pid`` so far (VmHWM), in MB; 0 when it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def write_config(path: Path, state_dir: Path, **proxy) -> Path:
    data = yaml.safe_load((REPO / "config.yaml").read_text(encoding="utf-8"))
    data["proxy"].update({"workers": 2, "max_body_bytes": MAX_BODY, "timeout_seconds": TIMEOUT, **proxy})
    data["state"]["path"] = str(state_dir / "state.sqlite3")
    if "users" in data:
        data["users"]["htpasswd"] = str(state_dir / "htpasswd")
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


#: The settings page, through the proxy; two users with their passwords.
SETTINGS = "http://pagesieve.core.settings/"
USERS = {"alice": "alice-secret-1", "bob": "bob-secret-22"}


def browser_form(page_html: str) -> list[tuple[str, str]]:
    """What a browser submits for the page's form as it is: inputs, text areas, checked boxes, selected options."""
    form = lxml.html.document_fromstring(page_html).forms[0]
    out = []
    for el in form.inputs:
        if el.name is None:
            continue
        if el.tag == "select":
            chosen = [o for o in el.iter("option") if o.get("selected") is not None]
            opt = chosen[0] if chosen else next(el.iter("option"))
            out.append((el.name, opt.get("value", opt.text_content())))
        elif el.get("type") in ("checkbox", "radio"):
            if el.checked:
                out.append((el.name, el.get("value") or "on"))
        elif el.tag == "textarea":
            out.append((el.name, el.value or ""))
        else:
            out.append((el.name, el.get("value") or ""))
    return out


def post(client: httpx.Client, fields: list[tuple[str, str]], headers: dict | None = None) -> httpx.Response:
    """Post ``fields`` as a browser posts a form (urlencoded, in order, repeated names kept)."""
    return client.post(SETTINGS, content=urlencode(fields).encode(),
                       headers={"Content-Type": "application/x-www-form-urlencoded", **(headers or {})})


def changed(fields: list[tuple[str, str]], *, drop: tuple[str, ...] = (), **values: str) -> list[tuple[str, str]]:
    out = [(k, v) for k, v in fields if k not in drop and k.replace(".", "__") not in values]
    return out + [(k.replace("__", "."), v) for k, v in values.items()]


def client_for(proxy, user: str | None) -> httpx.Client:
    url = proxy.url if user is None else proxy.url.replace("http://", f"http://{user}:{USERS[user]}@")
    return httpx.Client(proxy=url, trust_env=False, timeout=30, follow_redirects=False)


def add_user(config: Path, name: str, password: str) -> None:
    """``pagesieve users add NAME`` with ``config``, the password on standard input."""
    r = subprocess.run([sys.executable, "-m", "pagesieve", "users", "--config", str(config), "add", name,
                        "--password-stdin"], input=password + "\n", capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def auth_config(tmp: Path, users: dict[str, str]) -> Path:
    """A test config (:func:`write_config`) with logins on and ``users`` (name -> password) added."""
    config = write_config(tmp / "config.yaml", tmp)
    data = yaml.safe_load(config.read_text())
    data["users"]["auth"] = True
    config.write_text(yaml.safe_dump(data, sort_keys=False))
    for name, password in users.items():
        add_user(config, name, password)
    return config


def pagesieve_run(port: int, confdir: Path, config: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "pagesieve", "run", "--config", str(config), "--listen-port", str(port),
            "--confdir", str(confdir), *args]


def terminate(proc: subprocess.Popen, seconds: float = 10) -> None:
    """Stop a server process the tests started: SIGTERM, then SIGKILL after ``seconds``."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(seconds)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def start_proxy(tmp: Path, *args: str, config: Path | None = None, command=pagesieve_run,
                **proxy_settings) -> Proxy:
    """``command(port, confdir, config, *args)`` (default: ``pagesieve run``) on a free loopback port
    with the fault injector; waits until its workers are ready. A port found free can be taken before
    the proxy binds it (by another test's server on another loopback address, when the proxy first binds
    every interface, as a bare ``mitmdump`` does): then the proxy is started again on another port."""
    tmp.mkdir(parents=True, exist_ok=True)
    config = config or write_config(tmp / "config.yaml", tmp, **proxy_settings)
    for _ in range(PORT_ATTEMPTS - 1):
        try:
            return _start_proxy(tmp, args, config, command)
        except PortTaken:
            pass
    return _start_proxy(tmp, args, config, command)  # the last attempt's PortTaken fails the test


#: Ports tried before a proxy that cannot bind its port fails the test.
PORT_ATTEMPTS = 3


class PortTaken(RuntimeError):
    """The proxy exited because its port was taken between finding it free and binding it."""


def _start_proxy(tmp: Path, args: tuple[str, ...], config: Path, command) -> Proxy:
    port = free_port()
    confdir = tmp / "mitmproxy"
    log = tmp / "proxy.log"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(INJECT), str(REPO)]), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(command(port, confdir, config, *args),
                            stdout=log.open("wb"), stderr=subprocess.STDOUT, env=env, cwd=str(tmp))
    proxy = Proxy(proc, port, confdir, log, config)
    deadline = time.monotonic() + READY_SECONDS
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            text = proxy.log_text()
            error = PortTaken if "address already in use" in text else RuntimeError
            raise error(f"the proxy exited with {proc.returncode}:\n{text}")
        if "worker processes ready" in proxy.log_text():
            return proxy
        time.sleep(0.1)
    proxy.stop()
    raise RuntimeError(f"the proxy did not get ready in {READY_SECONDS} s:\n{proxy.log_text()}")


@pytest.fixture(scope="session")
def routes():
    return build_routes()


@pytest.fixture(scope="session")
def origin(routes):
    server = Origin(routes)
    yield server
    server.close()


@pytest.fixture(scope="session")
def proxy(tmp_path_factory):
    p = start_proxy(tmp_path_factory.mktemp("proxy"), bypass_hosts=["127.0.0.2"])
    yield p
    p.stop()


def self_signed(directory) -> tuple[str, str]:
    """A self-signed certificate for localhost and 127.0.0.1 and its key, written under ``directory``: (cert, key)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                        x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = directory / "origin.pem", directory / "origin.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return str(cert_path), str(key_path)
