"""Throughput of 1, 2 and 3 ``pagesieve run`` instances behind HAProxy, and the balancer's latency.

    .venv/bin/python benchmarks/bench_scale.py [--pages N] [--clients C] [--workers W]

The deployment of docs/DEPLOY.md on loopback (tests/scale/services.py): a throwaway PostgreSQL
cluster holding the state, three ``pagesieve run`` instances (declutter preset, ``proxy.workers``
= W each, one shared CA, ``proxy.proxy_protocol_from`` the balancer's address), and HAProxy
running ``deploy/haproxy.cfg`` (a PROXY protocol v2 header on each connection, from
:data:`tests.scale.services.BALANCER`) with the first 1, 2, then 3 instances as its servers. C concurrent clients (one new connection per request, so ``leastconn``
spreads them) fetch the corpus pages of ``../shared/data/extraction/scrapinghub`` from a local
origin; each level fetches every page twice.

1. **Scaling**: pages/s and p50/p95 latency for 1, 2, 3 instances, and the speed-up over one.
   On a 2-core machine the curve flattens at the core count: the instances' workers, the
   clients, the origin and HAProxy share the same cores (the printed worker and core counts say
   how to read the figure). On one machine per instance it is the per-instance figure times N.
2. **Balancer latency**: median and p95 of 300 sequential requests for the health endpoint
   (``http://pagesieve.health/``, no filtering, no upstream) and of a small corpus page, straight
   to one instance and through HAProxy with that one instance: the difference is what HAProxy adds
   (its PROXY protocol header and the instance's reading of it included).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.conftest import corpus_pages  # noqa: E402
from tests.proxy.conftest import Origin, Route  # noqa: E402
from tests.scale import services as S  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def load(proxy_url: str, urls: list[str], clients: int) -> tuple[float, list[float], int, int]:
    """Every URL fetched once by ``clients`` threads (new connection per request):
    (seconds, latencies ms, filtered count, failures)."""
    todo = list(urls)
    lock = threading.Lock()
    lat: list[float] = []
    counts = {"filtered": 0, "failed": 0}

    def worker() -> None:
        with httpx.Client(proxy=proxy_url, trust_env=False, timeout=120,
                          limits=httpx.Limits(max_keepalive_connections=0)) as c:
            while True:
                with lock:
                    if not todo:
                        return
                    url = todo.pop()
                t0 = time.perf_counter()
                try:
                    r = c.get(url)
                    ok, filtered = r.status_code == 200, r.headers.get("x-pagesieve", "").startswith("filtered")
                except httpx.HTTPError:
                    ok, filtered = False, False
                ms = (time.perf_counter() - t0) * 1000
                with lock:
                    lat.append(ms)
                    counts["filtered"] += filtered
                    counts["failed"] += not ok

    t0 = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - t0, lat, counts["filtered"], counts["failed"]


def sequential(proxy_url: str, url: str, n: int) -> list[float]:
    out = []
    with httpx.Client(proxy=proxy_url, trust_env=False, timeout=60) as c:  # keep-alive: the balancer's hop only
        c.get(url)
        for _ in range(n):
            t0 = time.perf_counter()
            r = c.get(url)
            out.append((time.perf_counter() - t0) * 1000)
            assert r.status_code == 200, r.status_code
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=40, help="corpus pages (0: all)")
    ap.add_argument("--clients", type=int, default=6, help="concurrent clients")
    ap.add_argument("--workers", type=int, default=1, help="proxy.workers of each instance")
    ap.add_argument("--instances", type=int, default=3)
    args = ap.parse_args(argv)
    why = S.missing_parts()
    if why:
        print(f"bench_scale: {why}", file=sys.stderr)
        return 2
    pages = corpus_pages()
    if not pages:
        print("bench_scale: corpus not found (set PAGESIEVE_CORPUS)", file=sys.stderr)
        return 2
    if args.pages:
        pages = pages[: args.pages]
    routes = {f"/p/{pid}.html": Route(headers={"Content-Type": "text/html; charset=utf-8"}, body=path.read_bytes())
              for pid, path, _ in pages}
    origin = Origin(routes, host="127.0.0.1")
    urls = [origin.url(p) for p in routes] * 2
    small = origin.url(min(routes, key=lambda p: len(routes[p].body)))
    print(f"{len(routes)} corpus pages ({sum(len(r.body) for r in routes.values()) / len(routes) / 1024:.0f} KiB "
          f"mean), each fetched twice per level; {args.clients} clients; {os.cpu_count()} cores; "
          f"{args.workers} worker process(es) per instance; state in PostgreSQL")
    pg = S.PostgresCluster()
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        confdir = tmp / "mitmproxy"
        S.make_ca(confdir)
        config = S.instance_config(tmp / "config.yaml", tmp, state_url=pg.create_database("bench"),
                                   workers=args.workers, timeout_seconds=60)
        instances = S.start_instances(args.instances, tmp, config, confdir)
        try:
            for p in instances:  # warm each instance up (workers, models)
                load(p.url, urls[:4], 2)
            print(f"\n{'instances':>9} {'workers':>7} {'pages/s':>8} {'speed-up':>8} {'p50 ms':>8} {'p95 ms':>8} "
                  f"{'filtered':>8} {'failed':>6}")
            base = None
            for n in range(1, args.instances + 1):
                bal = S.Haproxy([p.port for p in instances[:n]], tmp / f"haproxy{n}")
                try:
                    time.sleep(2.5)  # the health checks' rise (2 x 1 s)
                    secs, lat, filtered, failed = load(bal.url, urls, args.clients)
                finally:
                    bal.close()
                rate = len(lat) / secs
                base = base or rate
                print(f"{n:>9} {n * args.workers:>7} {rate:8.1f} {rate / base:7.2f}x {statistics.median(lat):8.0f} "
                      f"{percentile(lat, 0.95):8.0f} {filtered:>8} {failed:>6}")
            print("\nbalancer latency (300 sequential requests, keep-alive): straight to one instance vs "
                  "through HAProxy to it")
            bal = S.Haproxy([instances[0].port], tmp / "haproxy-latency")
            try:
                time.sleep(2.5)
                for what, url, n in (("health endpoint", "http://pagesieve.health/", 300),
                                     (f"small page ({len(routes[small.split(':' + str(origin.port))[1]].body) // 1024} KiB)",
                                      small, 100)):
                    direct = sequential(instances[0].url, url, n)
                    through = sequential(bal.url, url, n)
                    d50, t50 = statistics.median(direct), statistics.median(through)
                    print(f"   {what:<22} direct p50 {d50:6.2f} ms p95 {percentile(direct, 0.95):6.2f} ms | "
                          f"HAProxy p50 {t50:6.2f} ms p95 {percentile(through, 0.95):6.2f} ms | added p50 "
                          f"{t50 - d50:+.2f} ms")
            finally:
                bal.close()
        finally:
            for p in instances:
                p.stop()
            origin.close()
            pg.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
