"""Throughput and latency through the proxy: pagesieve against plain ``mitmdump`` (no addon).

    .venv/bin/python benchmarks/bench_proxy.py [--pages N] [--levels 1,8,64]

Everything is real and on loopback: an origin server (``tests/proxy/conftest.Origin``, threads)
serving the corpus pages of ``../shared/data/extraction/scrapinghub``, a ``pagesieve run``
process (declutter preset, ``proxy.workers`` = 0, one worker per core) and a ``mitmdump`` process
with no addon, measured in the same run, one after the other, by the same asyncio httpx clients.

0. **Start-up**: seconds from launching ``pagesieve run`` until it says its workers are ready, and
   until the first page comes back filtered (measured from the same launch).
1. **Throughput and latency**: N concurrent clients (N = 1, 8, 64) fetch the corpus pages (each
   page once per level); pages/s, p50 and p99 latency, and pagesieve / mitmdump ratios; the
   latency pagesieve adds at one client (p50 difference).
2. **Head-of-line check**: while 4 clients fetch the largest HTML pages over and over, one client
   fetches a small image 200 times; p99 latency of the image through pagesieve (HTML being
   filtered in workers) against mitmdump under the same load. Aim: within 1.5x.

3. **Memory per worker** after the load: private (USS: Private_Clean + Private_Dirty) and shared
   (Shared_Clean + Shared_Dirty) memory of each worker process, from ``/proc/PID/smaps_rollup``,
   and the same for the proxy's main process.

Ratios carry to other machines; absolute numbers are this machine's (2 cores, shared by origin,
proxy, workers and clients: the proxy's workers compete with the clients for the same cores).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.conftest import corpus_pages  # noqa: E402
from tests.proxy.conftest import Origin, Route, free_port, start_proxy, write_config  # noqa: E402

TINY = b"\x89PNG\r\n\x1a\n" + bytes(300)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def children(pid: int) -> list[int]:
    """Every descendant process of ``pid`` (from /proc/*/stat)."""
    parent: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parent[int(stat.parent.name)] = int(fields[1])
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parent.items() if pp == p]
        out.extend(kids)
        todo.extend(kids)
    return sorted(out)


def memory_mib(pid: int) -> dict[str, float]:
    """Rss, Pss, private (USS) and shared MiB of ``pid`` from /proc/PID/smaps_rollup."""
    kb: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        key, _, rest = line.partition(":")
        kb[key.strip()] = int(rest.split()[0])
    return {"rss": kb["Rss"] / 1024, "pss": kb["Pss"] / 1024,
            "private": (kb["Private_Clean"] + kb["Private_Dirty"]) / 1024,
            "shared": (kb["Shared_Clean"] + kb["Shared_Dirty"]) / 1024}


def start_mitmdump(tmp: Path, ready_seconds: float = 30) -> tuple[subprocess.Popen, int]:
    """A plain mitmdump (no addon) on loopback, waited for until it answers."""
    port = free_port()
    exe = Path(sys.executable).with_name("mitmdump")
    proc = subprocess.Popen([str(exe), "--listen-host", "127.0.0.1", "-p", str(port), "--set",
                             f"confdir={tmp / 'mitmdump'}", "-q"], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + ready_seconds
    while time.monotonic() < deadline:
        try:
            with httpx.Client(proxy=f"http://127.0.0.1:{port}", trust_env=False, timeout=2) as c:
                c.get("http://mitm.it/")
            return proc, port
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError(f"mitmdump did not start in {ready_seconds:g} s")


async def fetch_all(proxy_url: str, urls: list[str], clients: int) -> tuple[float, list[float], int]:
    """(seconds, latencies in ms, filtered count) for ``urls`` fetched by ``clients`` concurrent clients."""
    queue: asyncio.Queue = asyncio.Queue()
    for u in urls:
        queue.put_nowait(u)
    latencies: list[float] = []
    filtered = 0

    async def worker():
        nonlocal filtered
        async with httpx.AsyncClient(proxy=proxy_url, trust_env=False, timeout=120) as c:
            while not queue.empty():
                u = queue.get_nowait()
                t0 = time.perf_counter()
                r = await c.get(u)
                latencies.append((time.perf_counter() - t0) * 1000)
                filtered += r.headers.get("x-pagesieve", "").startswith("filtered")

    t0 = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(clients)))
    return time.perf_counter() - t0, latencies, filtered


async def head_of_line(proxy_url: str, big: list[str], tiny: str, n: int = 200) -> list[float]:
    stop = asyncio.Event()

    async def load():
        async with httpx.AsyncClient(proxy=proxy_url, trust_env=False, timeout=120) as c:
            i = 0
            while not stop.is_set():
                await c.get(big[i % len(big)])
                i += 1

    loaders = [asyncio.create_task(load()) for _ in range(4)]
    await asyncio.sleep(1.0)  # the load is running
    latencies = []
    async with httpx.AsyncClient(proxy=proxy_url, trust_env=False, timeout=120) as c:
        for _ in range(n):
            t0 = time.perf_counter()
            await c.get(tiny)
            latencies.append((time.perf_counter() - t0) * 1000)
            await asyncio.sleep(0.01)
    stop.set()
    await asyncio.gather(*loaders)
    return latencies


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=0, help="corpus pages per level (0: all)")
    ap.add_argument("--levels", default="1,8,64", help="concurrent clients, comma-separated")
    ap.add_argument("--worker-niceness", type=int, default=None,
                    help="pagesieve's proxy.worker_niceness (default: config.yaml's)")
    args = ap.parse_args(argv)
    pages = corpus_pages()
    if args.pages:
        pages = pages[: args.pages]
    routes = {f"/p/{pid}.html": Route(headers={"Content-Type": "text/html; charset=utf-8"}, body=path.read_bytes())
              for pid, path, _ in pages}
    routes["/tiny.png"] = Route(headers={"Content-Type": "image/png"}, body=TINY)
    origin = Origin(routes, host="127.0.0.1")
    urls = [origin.url(p) for p in routes if p.startswith("/p/")]
    big = [origin.url(p) for p, _ in sorted(routes.items(), key=lambda kv: -len(kv[1].body))[:8]
           if p.startswith("/p/")]
    levels = [int(x) for x in args.levels.split(",")]
    print(f"{len(urls)} corpus pages ({sum(len(r.body) for r in routes.values()) / len(urls) / 1024:.0f} KiB mean), "
          f"{os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        extra = {} if args.worker_niceness is None else {"worker_niceness": args.worker_niceness}
        config = write_config(tmp / "config.yaml", tmp, workers=0, timeout_seconds=60, **extra)
        t0 = time.perf_counter()
        ps = start_proxy(tmp / "ps", config=config)
        ready_s = time.perf_counter() - t0
        with httpx.Client(proxy=ps.url, trust_env=False, timeout=120) as c:
            first = c.get(urls[0])
        first_s = time.perf_counter() - t0
        print(f"\nstart-up: workers ready {ready_s:.2f} s after launch; first page back "
              f"{first.headers.get('x-pagesieve', '?').split(';')[0]} at {first_s:.2f} s (aim: <= 3 s)")
        md, md_port = start_mitmdump(tmp)
        targets = {"pagesieve": ps.url, "mitmdump": f"http://127.0.0.1:{md_port}"}
        try:
            for url in targets.values():  # warm both up (workers, connections)
                asyncio.run(fetch_all(url, urls[:4], 2))
            print(f"\n{'clients':>7} {'proxy':<10} {'pages/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'filtered':>8}")
            rows = {}
            for n in levels:
                for name, url in targets.items():
                    secs, lat, filtered = asyncio.run(fetch_all(url, urls, n))
                    rows[(n, name)] = (len(lat) / secs, statistics.median(lat), percentile(lat, 0.99))
                    print(f"{n:>7} {name:<10} {len(lat) / secs:8.1f} {statistics.median(lat):8.1f} "
                          f"{percentile(lat, 0.99):8.1f} {filtered:>8}")
                a, b = rows[(n, "pagesieve")], rows[(n, "mitmdump")]
                print(f"{n:>7} {'ratio':<10} {a[0] / b[0]:8.2f}x{a[1] / b[1]:7.2f}x{a[2] / b[2]:7.2f}x"
                      f"   (pagesieve / mitmdump; added p50 {a[1] - b[1]:+.1f} ms)")
            print("\nhead-of-line: p99 of a small image while 4 clients fetch the 8 largest pages")
            hol = {}
            for name, url in targets.items():
                lat = head_of_line(url, big, origin.url("/tiny.png"))
                lat = asyncio.run(lat)
                hol[name] = percentile(lat, 0.99)
                print(f"   {name:<10} p50 {statistics.median(lat):7.1f} ms   p99 {hol[name]:7.1f} ms")
            ratio = hol["pagesieve"] / hol["mitmdump"]
            print(f"   ratio      p99 {ratio:.2f}x  (aim: within 1.5x) -> {'met' if ratio <= 1.5 else 'NOT met'}")
            print("\nmemory (MiB, /proc/PID/smaps_rollup; private = USS, aim <= 80 per worker)")
            for pid in [ps.proc.pid, *children(ps.proc.pid)]:
                try:
                    cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
                    label = ("proxy" if pid == ps.proc.pid else "helper" if b"resource_tracker" in cmd
                             else "forkserver" if children(pid) else "worker")
                    m = memory_mib(pid)
                except (OSError, KeyError, ValueError):
                    continue
                print(f"   {label:<7} {pid:>7}  rss {m['rss']:7.1f}  pss {m['pss']:7.1f}  "
                      f"private {m['private']:7.1f}  shared {m['shared']:7.1f}")
        finally:
            ps.stop()
            md.terminate()
            md.wait(10)
            origin.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
