"""Load test: many keep-alive clients through pagesieve and through plain mitmdump, in one run.

    nice -n 10 .venv/bin/python benchmarks/bench_load.py [--clients 200] [--seconds 60] [--greedy 40]

Real processes on loopback: an origin (``tests/proxy/conftest.Origin``) serving the corpus pages
(``../shared/data/extraction/scrapinghub``) and small images, a ``pagesieve run`` (declutter, one
worker per core, default limits) and a ``mitmdump`` with no addon. For each proxy, N asyncio
clients (one keep-alive connection each) fetch random pages and images for the given time.

Every answer is checked against what the origin sent: an image or an unfiltered page must be the
origin's bytes; a filtered page must be whole (Content-Length = bytes received, one ``</html>`` at
the end). Errors (exceptions, non-200) and corrupted or truncated bodies are counted; pages/s,
p50/p99 latency and the pagesieve/mitmdump throughput ratio are printed, with pagesieve's
X-Pagesieve reasons. During pagesieve's run a worker is killed (SIGKILL) while idle (before the
load) and one while busy (mid-run). Peak RSS (VmHWM from /proc) of the proxy and of every worker
seen is printed. Last, a gzip bomb (1.1 MB → 1.1 GB) is fetched through each proxy: seconds each.

Each client connects from a loopback address of its own (127.0.1.1, 127.0.1.2 ...), as a machine of
its own would: pagesieve shares its workers among clients by address. Printed per client: the share
of its pages answered ``reason=busy`` (min, mean and max over clients: one client's share far above
the mean would be an unfair proxy). ``--greedy K`` adds one more client that keeps K connections
going from one address beside the others, and prints its share apart from theirs. pagesieve's
``http://pagesieve.health/metrics`` is read before and after its run: the pages it counted by outcome
and reason are printed beside what the clients counted.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import random
import re
import signal
import ssl
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import httpcore
import httpx

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.bench_proxy import percentile, start_mitmdump  # noqa: E402
from tests.conftest import corpus_pages  # noqa: E402
from tests.proxy.adversarial import gzip_bomb  # noqa: E402
from tests.proxy.conftest import Origin, Route, children, peak_rss_mb, start_proxy  # noqa: E402

HTML = {"Content-Type": "text/html; charset=utf-8"}
TLS = ssl.create_default_context()


def build_routes(pages: int) -> dict[str, Route]:
    routes: dict[str, Route] = {}
    for pid, path, _ in corpus_pages()[:pages]:
        routes[f"/page/{pid}.html"] = Route(headers=HTML, body=path.read_bytes())
    rnd = random.Random(1)
    for i in range(20):
        routes[f"/img/{i}.png"] = Route(headers={"Content-Type": "image/png"},
                                        body=b"\x89PNG\r\n\x1a\n" + rnd.randbytes(rnd.randint(200, 8000)))
    routes["/bomb.html"] = Route(headers={**HTML, "Content-Encoding": "gzip"}, body=gzip_bomb())
    return routes


class RemoteOrigin:
    """The origin in its own process: its threads must not share a GIL with the clients (with
    both in one process, 200 connections starved the clients' event loop)."""

    def __init__(self, pages: int, host: str = "127.0.0.3") -> None:
        self.routes = build_routes(pages)  # the same bytes as the server's (seeded): for the checks
        parent, child = multiprocessing.Pipe()
        self.proc = multiprocessing.get_context("fork").Process(target=_serve, args=(pages, host, child), daemon=True)
        self.proc.start()
        self.host, self.port = host, parent.recv()

    def url(self, path: str) -> str:
        return f"http://{self.host}:{self.port}{path}"

    def close(self) -> None:
        self.proc.terminate()
        self.proc.join(10)


def _serve(pages: int, host: str, conn) -> None:
    origin = Origin(build_routes(pages), host=host)
    conn.send(origin.port)
    signal.sigwait({signal.SIGTERM})


def check(route: Route, r: httpx.Response, body: bytes) -> str | None:
    """None when the answer is right, else what is wrong."""
    if r.status_code != 200:
        return f"status {r.status_code}"
    verdict = r.headers.get("x-pagesieve", "")
    if verdict.startswith("filtered;"):
        length = r.headers.get("content-length")
        if length is not None and int(length) != len(body):
            return "truncated (Content-Length)"
        if not body.rstrip().lower().endswith(b"</html>") or body.lower().count(b"</html>") != 1:
            return "truncated or spliced (</html>)"
        return None
    return None if body == route.body else "not the origin's bytes"


def client_address(i: int) -> str:
    """The loopback address client ``i`` connects from (a machine of its own)."""
    return f"127.0.{1 + i // 250}.{1 + i % 250}"


GREEDY_ADDRESS = "127.0.9.1"


class FromAddress(httpcore.AsyncNetworkBackend):
    """httpcore's network backend, connecting from one local address: httpx passes no local address
    to a proxy connection, and a client machine of its own has an address of its own."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.inner = httpcore.AnyIOBackend()

    async def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        return await self.inner.connect_tcp(host, port, timeout=timeout, local_address=self.address,
                                            socket_options=socket_options)

    async def connect_unix_socket(self, path, timeout=None, socket_options=None):  # not used here
        return await self.inner.connect_unix_socket(path, timeout=timeout, socket_options=socket_options)

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


def transport_from(proxy: str, address: str) -> httpx.AsyncHTTPTransport:
    """One keep-alive connection through ``proxy``, from ``address``."""
    transport = httpx.AsyncHTTPTransport(verify=TLS)
    # httpx builds its proxy pool without a network backend of our choosing: put one in its place.
    transport._pool = httpcore.AsyncHTTPProxy(proxy_url=proxy, ssl_context=TLS, max_connections=1,
                                              max_keepalive_connections=1, network_backend=FromAddress(address))
    return transport


class Run:
    def __init__(self, name: str) -> None:
        self.name = name
        self.latencies: list[float] = []
        self.errors: Counter[str] = Counter()
        self.bad: Counter[str] = Counter()
        self.verdicts: Counter[str] = Counter()
        self.seconds = 0.0
        #: client address -> its corpus pages answered, and those answered reason=busy
        self.pages: Counter[str] = Counter()
        self.busy: Counter[str] = Counter()

    def busy_shares(self, addresses) -> list[float]:
        return [self.busy[a] / self.pages[a] for a in addresses if self.pages[a]]

    def summary(self) -> str:
        n = len(self.latencies)
        return (f"{self.name:10} {n:6d} answers {n / self.seconds:7.1f}/s  p50 {percentile(self.latencies, .5) * 1000:7.0f} ms"
                f"  p99 {percentile(self.latencies, .99) * 1000:7.0f} ms  errors {sum(self.errors.values())}"
                f"  corrupted/truncated {sum(self.bad.values())}")


async def client(proxy: str, origin: RemoteOrigin, urls: list[str], until: float, run: Run, seed: int,
                 address: str) -> None:
    rnd = random.Random(seed)
    # One TLS context for all clients: httpx builds one per client otherwise (the CA bundle
    # loaded 200 times took the clients' CPU for the first tens of seconds). Plain HTTP only here.
    async with httpx.AsyncClient(transport=transport_from(proxy, address), trust_env=False, timeout=60) as c:
        while time.monotonic() < until:
            path = rnd.choice(urls)
            t0 = time.monotonic()
            try:
                async with c.stream("GET", origin.url(path)) as r:
                    body = b"".join([chunk async for chunk in r.aiter_raw()])
            except httpx.HTTPError as err:
                run.errors[type(err).__name__] += 1
                continue
            run.latencies.append(time.monotonic() - t0)
            wrong = check(origin.routes[path], r, body)
            if wrong:
                (run.errors if wrong.startswith("status") else run.bad)[wrong] += 1
            verdict = r.headers.get("x-pagesieve")
            if verdict:
                run.verdicts["filtered" if verdict.startswith("filtered") else verdict.split("reason=")[-1]] += 1
            if path.startswith("/page/"):
                run.pages[address] += 1
                run.busy[address] += verdict == "unfiltered; reason=busy"


def cpu_ticks(pid: int) -> int:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except OSError:
        return 0


def workers_of(pid: int) -> list[int]:
    """The worker processes of the proxy ``pid``: the children of its forkserver (killing the
    forkserver itself would take every worker with it, and their replacements)."""
    out = []
    for c in children(pid):
        try:
            cmd = Path(f"/proc/{c}/cmdline").read_bytes()
        except OSError:  # gone meanwhile
            continue
        if b"forkserver" in cmd:
            out += children(c)
        elif b"resource_tracker" not in cmd:
            out.append(c)
    return out


async def killer(proxy_pid: int, at: float, log: list[str]) -> None:
    """At ``at`` (monotonic), SIGKILL the worker using the most CPU (a busy one)."""
    await asyncio.sleep(max(0.0, at - time.monotonic()))
    before = {p: cpu_ticks(p) for p in workers_of(proxy_pid)}
    await asyncio.sleep(0.3)
    busy = max(before, key=lambda p: cpu_ticks(p) - before[p])
    os.kill(busy, signal.SIGKILL)
    log.append(f"killed busy worker {busy} ({cpu_ticks(busy) - before[busy]} ticks in 0.3 s) at {time.strftime('%X')}")


async def sample_rss(pid: int, until: float, peaks: dict[int, float]) -> None:
    while time.monotonic() < until:
        for p in [pid, *workers_of(pid)]:
            peaks[p] = max(peaks.get(p, 0.0), peak_rss_mb(p))
        await asyncio.sleep(1)


async def load(name: str, proxy: str, origin: RemoteOrigin, urls: list[str], clients: int, seconds: float,
               proxy_pid: int | None = None, events: list[str] | None = None,
               peaks: dict[int, float] | None = None, greedy: int = 0) -> Run:
    run = Run(name)
    t0 = time.monotonic()
    until = t0 + seconds
    tasks = [client(proxy, origin, urls, until, run, i, client_address(i)) for i in range(clients)]
    tasks += [client(proxy, origin, urls, until, run, clients + i, GREEDY_ADDRESS) for i in range(greedy)]
    if proxy_pid is not None:
        tasks.append(killer(proxy_pid, t0 + seconds / 2, events))
        tasks.append(sample_rss(proxy_pid, until, peaks))
    await asyncio.gather(*tasks)
    run.seconds = time.monotonic() - t0
    return run


def bomb_seconds(proxy: str, url: str, n: int = 15) -> tuple[float, str]:
    times, verdict = [], ""
    with httpx.Client(proxy=proxy, trust_env=False, timeout=120) as c:
        for _ in range(n):
            t0 = time.monotonic()
            with c.stream("GET", url) as r:
                b"".join(r.iter_raw())
            times.append(time.monotonic() - t0)
            verdict = r.headers.get("x-pagesieve", "-")
    return statistics.median(times), verdict


def page_counts(proxy: str) -> Counter[str]:
    """pagesieve's own count of the pages it answered, by verdict as the clients name them
    ("filtered", or the reason), from its metrics endpoint."""
    with httpx.Client(proxy=proxy, trust_env=False, timeout=30) as c:
        text = c.get("http://pagesieve.health/metrics").text
    counts: Counter[str] = Counter()
    for outcome, reason, n in re.findall(r'^pagesieve_pages_total\{outcome="(\w+)",reason="([\w-]*)"\} (\S+)$', text,
                                         re.M):
        counts["filtered" if outcome == "filtered" else reason] += int(float(n))
    return counts


def print_shares(run: Run, clients: int, greedy: int) -> None:
    light = [client_address(i) for i in range(clients)]
    shares = run.busy_shares(light)
    if not shares:
        return
    mean = statistics.fmean(shares)
    worst = max(shares)
    print(f"busy share per client ({len(shares)} clients, each its own address; pages answered busy / its pages):"
          f" min {min(shares):.3f} avg {mean:.3f} max {worst:.3f}; max/avg {worst / mean if mean else 0:.2f}"
          f" (pages per client: min {min(run.pages[a] for a in light)}, max {max(run.pages[a] for a in light)})")
    if greedy:
        g = run.busy_shares([GREEDY_ADDRESS])
        print(f"greedy client ({greedy} connections from {GREEDY_ADDRESS}): busy share "
              f"{g[0] if g else 0:.3f} of {run.pages[GREEDY_ADDRESS]} pages; the {len(shares)} light clients "
              f"(one connection each): {sum(run.busy[a] for a in light)} busy of {sum(run.pages[a] for a in light)} "
              "pages")


def print_metrics(before: Counter[str], after: Counter[str], run: Run) -> None:
    counted = after.copy()
    counted.subtract(before)
    counted = +counted
    print(f"metrics endpoint before the run: {dict(before.most_common())}")
    print(f"metrics endpoint after the run:  {dict(after.most_common())}")
    print(f"  pagesieve counted (after - before): {dict(counted.most_common())}")
    print(f"  the clients counted:                {dict(run.verdicts.most_common())}")
    differ = {k: counted[k] - run.verdicts[k] for k in set(counted) | set(run.verdicts) if counted[k] != run.verdicts[k]}
    print("  they agree" if not differ else
          f"  they differ by {differ} (answers pagesieve gave that a client saw as an error: "
          f"{sum(run.errors.values())})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clients", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--pages", type=int, default=60, help="corpus pages in the mix (with 20 small images)")
    ap.add_argument("--max-queue-ms", type=int, default=None,
                    help="pagesieve's proxy.max_queue_ms (default: config.yaml's)")
    ap.add_argument("--bomb-only", action="store_true", help="only the gzip bomb through each proxy (no load)")
    ap.add_argument("--greedy", type=int, default=0, metavar="K",
                    help="one more client with K connections at once from one address, beside the others")
    ap.add_argument("--no-mitmdump", action="store_true", help="pagesieve only (no run through plain mitmdump)")
    ap.add_argument("--no-bomb", action="store_true", help="no gzip bomb at the end")
    args = ap.parse_args(argv)
    origin = RemoteOrigin(args.pages)
    routes = origin.routes
    urls = [p for p in routes if p != "/bomb.html"]
    print(f"mix: {sum(p.startswith('/page/') for p in urls)} corpus pages, {sum(p.startswith('/img/') for p in urls)} "
          f"images; {args.clients} clients{f' + one of {args.greedy} connections' if args.greedy else ''} x "
          f"{args.seconds:g} s per proxy; {os.cpu_count()} cores")
    tmp = Path(tempfile.mkdtemp(prefix="pagesieve-load-"))
    limits = {} if args.max_queue_ms is None else {"max_queue_ms": args.max_queue_ms}
    ps = start_proxy(tmp / "pagesieve", workers=0, max_body_bytes=8_000_000, timeout_seconds=10.0, **limits)
    md = None
    events: list[str] = []
    peaks: dict[int, float] = {}
    try:
        md, md_port = start_mitmdump(tmp, ready_seconds=180)  # a generous deadline: a loaded machine
        # An idle worker killed before the load: the pool must replace it and go on filtering.
        idle = workers_of(ps.proc.pid)[0]
        os.kill(idle, signal.SIGKILL)
        events.append(f"killed idle worker {idle} at {time.strftime('%X')}")
        runs = []
        before = page_counts(ps.url)
        if not args.bomb_only:
            runs.append(asyncio.run(load("pagesieve", ps.url, origin, urls, args.clients, args.seconds, ps.proc.pid,
                                         events, peaks, greedy=args.greedy)))
        after = page_counts(ps.url)
        if not args.bomb_only and not args.no_mitmdump:
            runs.append(asyncio.run(load("mitmdump", f"http://127.0.0.1:{md_port}", origin, urls, args.clients,
                                         args.seconds, greedy=args.greedy)))
        bomb = {} if args.no_bomb else {
            name: bomb_seconds(url, origin.url("/bomb.html"))
            for name, url in (("pagesieve", ps.url), ("mitmdump", f"http://127.0.0.1:{md_port}"))}
        peaks[ps.proc.pid] = max(peaks.get(ps.proc.pid, 0.0), peak_rss_mb(ps.proc.pid))
        replaced = ps.log_text().count("replacement worker")
    finally:
        ps.stop()
        if md is not None:
            md.terminate()
            md.wait(10)
        origin.close()
    for line in events:
        print(line)
    for run in runs:
        print(run.summary())
        for what, n in (run.errors + run.bad).most_common():
            print(f"    {n:6d} {what}")
    if runs:
        print("pagesieve answers:", dict(runs[0].verdicts.most_common()), f"pool replaced {replaced} times")
        print_shares(runs[0], args.clients, args.greedy)
        print_metrics(before, after, runs[0])
    if len(runs) > 1:
        ratio = (len(runs[0].latencies) / runs[0].seconds) / max(1e-9, len(runs[1].latencies) / runs[1].seconds)
        print(f"throughput pagesieve/mitmdump: {ratio:.2f}")
    print(f"peak RSS: proxy {peaks.pop(ps.proc.pid):.0f} MB; workers (MB): "
          + ", ".join(f"{v:.0f}" for v in sorted(peaks.values(), reverse=True)))
    for name, (secs, verdict) in bomb.items():
        print(f"gzip bomb (1.1 MB -> 1.1 GB) through {name}: {secs:.3f} s median of 15  [{verdict}]")
    if bomb:
        print(f"gzip bomb ratio pagesieve/mitmdump: {bomb['pagesieve'][0] / bomb['mitmdump'][0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
