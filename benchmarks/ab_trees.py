"""Two checkouts of pagesieve against each other, page by page in alternation: an A/B of code changes
that the machine's load cannot tilt.

    .venv/bin/python benchmarks/ab_trees.py BEFORE_TREE AFTER_TREE [DATASET_DIR ...] [--preset P ...]
        [--limit N] [--repeat 1]

Each tree gets a worker process of its own (this file run with ``--serve``, that tree first on the path,
so each imports its own ``pagesieve`` and compiled modules). The workers build and warm each preset's
chain, then this process hands them the same page in turn, in alternating order (before first on even
pages, after first on odd ones), and waits for each answer: only one of them works at a time, so both
see the same machine. A worker times the floor (lxml parse + serialize) and then ``Chain.process`` of
the page, on its CPU clock, best of ``--repeat``, with the entity cache cleared (a page the proxy has
not seen). Printed per dataset and preset: the per-page ratio to the page's floor (the mean of the two
workers' floors of that page; median, p95) and the summed chain time over the summed floor, for both trees.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

DEFAULT = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "extraction" / "scrapinghub"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def serve() -> int:
    """The worker: one JSON request a line on stdin, one JSON answer a line on stdout."""
    import lxml.html

    from pagesieve.engine import config as C
    from pagesieve.evaluation.datasets import load_dataset
    from pagesieve.nlp import entities

    cfg = C.load()
    chains: dict[str, object] = {}
    datasets: dict[str, list] = {}
    clock = time.process_time
    for line in sys.stdin:
        req = json.loads(line)
        key = req["dataset"]
        if key not in datasets:
            datasets[key] = [(s.url, s.path.read_bytes()) for s in load_dataset(key, req.get("limit"))]
        pages = datasets[key]
        if req["op"] == "count":
            answer: dict = {"pages": len(pages)}
        elif req["op"] == "warm":
            chain = chains[req["preset"]] = C.build_chain(cfg.resolve(req["preset"]))
            chain.process(pages[0][1], url=pages[0][0])
            gc.collect()
            gc.freeze()  # as the proxy's workers do after warm-up
            answer = {}
        else:
            url, data = pages[req["page"]]
            chain = chains[req["preset"]]
            floor = chain_s = float("inf")
            for _ in range(req["repeat"]):
                t0 = clock()
                lxml.html.tostring(lxml.html.document_fromstring(data), encoding="utf-8")
                floor = min(floor, clock() - t0)
                entities.CACHE.clear()
                t0 = clock()
                chain.process(data, url=url)
                chain_s = min(chain_s, clock() - t0)
            answer = {"floor": floor, "chain": chain_s}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    return 0


class Worker:
    def __init__(self, tree: str) -> None:
        env = dict(os.environ, PYTHONPATH=str(Path(tree).resolve()))
        self.proc = subprocess.Popen([sys.executable, __file__, "--serve"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env, cwd=tree)

    def ask(self, **req) -> dict:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit("a worker ended early (see its error above)")
        return json.loads(line)

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()


def main(argv: list[str] | None = None) -> int:
    if argv is None and sys.argv[1:] == ["--serve"]:
        return serve()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("dataset", nargs="*")
    ap.add_argument("--preset", action="append")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args(argv)
    workers = {"before": Worker(args.before), "after": Worker(args.after)}
    try:
        for dataset in args.dataset or [str(DEFAULT)]:
            n = workers["before"].ask(op="count", dataset=dataset, limit=args.limit)["pages"]
            print(f"{n} pages of {Path(dataset).name}; cpu clock, best of {args.repeat}; "
                  f"load average {os.getloadavg()[0]:.1f} at the start", flush=True)
            for preset in args.preset or ["declutter", "reader"]:
                for w in workers.values():
                    w.ask(op="warm", dataset=dataset, preset=preset, limit=args.limit)
                runs: dict[str, list[tuple[float, float]]] = {k: [] for k in workers}
                for i in range(n):
                    for name in (("before", "after") if i % 2 == 0 else ("after", "before")):
                        a = workers[name].ask(op="page", dataset=dataset, preset=preset, page=i,
                                              repeat=args.repeat, limit=args.limit)
                        runs[name].append((a["chain"], a["floor"]))
                # Each page's floor: the mean of the two workers' (the same code, timed twice), so that a
                # floor one worker happened to time slowly does not tilt one side.
                floors = [(b[1] + a[1]) / 2 for b, a in zip(runs["before"], runs["after"])]
                print(f"== {preset} (load average {os.getloadavg()[0]:.1f} at the end; floor median "
                      f"{statistics.median(floors) * 1000:.2f} ms)")
                for name, rows in runs.items():
                    ratios = [c / f for (c, _), f in zip(rows, floors)]
                    print(f"   {name:<7} per page median {statistics.median(ratios):6.2f}x  "
                          f"p95 {percentile(ratios, 0.95):6.2f}x  summed {sum(c for c, _ in rows) / sum(floors):6.2f}x"
                          f"  chain mean {statistics.fmean(c for c, _ in rows) * 1000:6.2f} ms", flush=True)
    finally:
        for w in workers.values():
            w.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
