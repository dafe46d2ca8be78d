"""How much the filter chain costs over just parsing and serialising the page with lxml.

    make bench                                   # or:
    .venv/bin/python benchmarks/bench_chain.py [DATASET_DIR] [--preset P ...] [--limit N] [--repeat R]
    .venv/bin/python benchmarks/bench_chain.py --captions     # image_captions: added ms, pages with/without captions

The *floor* is what any lxml-based filter must pay at least: ``lxml.html.document_fromstring`` of
the page bytes plus ``lxml.html.tostring`` of the tree. For each preset every page goes through
``Chain.process`` (parse, filters, render, exactly what the proxy's workers run) and the benchmark
prints, over the corpus pages:

* total: median and p95 ms per page; median and p95 over the pages of each page's chain time
  divided by its own floor (the ratios the speed targets name); the ratio of the summed chain time
  to the summed floor;
* per filter: mean ms per page and its ratio to the mean floor, so the expensive step is plain;
* memory: peak Python allocation (tracemalloc) while processing a page, median over a sample of
  pages, and its ratio to the floor's peak on the same pages.

The floor is measured again right before each page's chain run (same machine load for both: the
ratios hold on a shared machine). The entity cache is cleared before every run (a page the proxy has
not seen). Each page is processed ``--repeat`` times (default 1) after one warm-up page per preset (block
lists and models load once per process, not per page; their load time is printed apart); after it, as in
the proxy's workers, ``gc.freeze()`` moves what the warm-up loaded out of the collector's way.
Numbers are for this machine and this corpus; the ratios are what carries to other machines.

``--clock cpu`` times everything (floor, chain, each filter) in this process's CPU time
(``time.process_time``) instead of wall time: on a machine shared with other work the wall time
of a page includes time spent waiting for a core, which the floor measured a moment earlier may
not; CPU time does not (it still moves with cache pressure).
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
import tracemalloc
from collections import defaultdict
from pathlib import Path

import lxml.html

from pagesieve.engine import config as C
from pagesieve.evaluation.datasets import load_dataset
from pagesieve.evaluation.metrics import percentile
from pagesieve.nlp import entities
from pagesieve.proxy_addons.worker import REMOVAL_ACTIONS

DEFAULT = Path(os.environ.get("PAGESIEVE_CORPUS") or
               Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "extraction" / "scrapinghub")
DEFAULT_PRESETS = ("declutter", "reader", "reader-paper")



def _freeze() -> None:
    """As the proxy's workers do after their warm-up (``proxy_addons/warm.py``): the block lists' and the
    model's objects go to the collector's permanent generation, so a page's garbage collections do not
    scan them again. Without it the bench charged each filter for scans the workers never pay (measured
    earlier: TextMeasure 1.79 -> 1.35 ms a page, ignore 3.78 -> 3.28 ms)."""
    gc.collect()
    gc.freeze()

def floor_once(data: bytes) -> None:
    lxml.html.tostring(lxml.html.document_fromstring(data), encoding="utf-8")


CLOCK = time.perf_counter  # --clock cpu: time.process_time
FILTER_MS = "ms"  # --clock cpu: "cpu_ms" (Chain.run's per-filter CPU time)
OVERRIDES: dict = {}  # --set
EXPLAIN: bool | frozenset[str] = True  # --explain: what the chain records (Chain.process's explain)


def timed(fn, data: bytes, repeat: int) -> float:
    """Best-of-``repeat`` time of ``fn(data)`` in ms (best: least disturbed by the machine)."""
    best = float("inf")
    for _ in range(repeat):
        t0 = CLOCK()
        fn(data)
        best = min(best, (CLOCK() - t0) * 1000)
    return best


def peak_kib(fn, data: bytes) -> float:
    tracemalloc.start()
    try:
        fn(data)
        return tracemalloc.get_traced_memory()[1] / 1024
    finally:
        tracemalloc.stop()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dataset", nargs="?", default=str(DEFAULT))
    ap.add_argument("--preset", action="append", help=f"preset to measure (repeatable; default {DEFAULT_PRESETS})")
    ap.add_argument("--limit", type=int, help="only the first N pages")
    ap.add_argument("--repeat", type=int, default=1, help="runs per page; the best is kept")
    ap.add_argument("--memory-pages", type=int, default=30, help="pages sampled for the memory ratio")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="wall time (default) or this process's CPU time (a shared, loaded machine)")
    ap.add_argument("--set", dest="overrides", metavar="KEY=VALUE", action="append", default=[],
                    help="override one setting for every preset (as pagesieve eval --set), e.g. "
                         "filters.image_captions.caption_first=false")
    ap.add_argument("--explain", choices=("all", "removals", "none"), default="all",
                    help="which entries of the explanation record the chain builds: all (default; --explain, eval), "
                         "the removals (the proxy with the page control on) or none (the proxy otherwise)")
    ap.add_argument("--captions", action="store_true",
                    help="only the image_captions row: its added ms per page, pages with captioned images vs without")
    args = ap.parse_args(argv)
    global CLOCK, FILTER_MS
    if args.clock == "cpu":
        CLOCK, FILTER_MS = time.process_time, "cpu_ms"
    global EXPLAIN, OVERRIDES
    OVERRIDES = C.overrides_to_tree([C.parse_override(o) for o in args.overrides])
    EXPLAIN = {"all": True, "removals": REMOVAL_ACTIONS, "none": False}[args.explain]
    if args.captions:
        return bench_captions(args)

    samples = load_dataset(args.dataset, args.limit)
    pages = [(s, s.path.read_bytes()) for s in samples]
    cfg = C.load()
    presets = args.preset or list(DEFAULT_PRESETS)
    print(f"{len(pages)} pages, {sum(len(d) for _, d in pages) / len(pages) / 1024:.0f} KiB mean; {args.clock} clock; "
          f"Python {sys.version.split()[0]}, lxml {'.'.join(map(str, lxml.etree.LXML_VERSION))}")

    floor = [timed(floor_once, d, args.repeat) for _, d in pages]
    print(f"\nfloor (lxml parse + serialize): median {statistics.median(floor):.2f} ms, "
          f"p95 {percentile(floor, 0.95):.2f} ms per page")
    mem_pages = pages[:: max(1, len(pages) // args.memory_pages)][: args.memory_pages]
    floor_mem = [peak_kib(floor_once, d) for _, d in mem_pages]

    for preset in presets:
        t0 = time.perf_counter()
        chain = C.build_chain(cfg.resolve(preset, OVERRIDES))
        chain.process(pages[0][1], url=pages[0][0].url)  # warm-up: lists, models, caches
        _freeze()
        load_ms = (time.perf_counter() - t0) * 1000
        totals: list[float] = []
        per_filter: dict[str, list[float]] = defaultdict(list)
        failed = 0
        floors: list[float] = []  # the floor again, page by page, right before the chain: same machine load
        judged: list[bool] = []  # image_captions judged captioned images on the page (NER ran)
        for s, data in pages:
            floors.append(timed(floor_once, data, args.repeat))
            best, best_filters = float("inf"), []
            for _ in range(args.repeat):
                entities.CACHE.clear()  # a page the proxy has not seen: no cached entities
                t1 = CLOCK()
                res = chain.process(data, url=s.url, explain=EXPLAIN)
                ms = (CLOCK() - t1) * 1000
                if ms < best:
                    best, best_filters = ms, res.filters
            judged.append(_judged_captions(res.record))
            failed += bool(res.failed)
            totals.append(best)
            for f in best_filters:
                per_filter[f["filter"]].append(f[FILTER_MS])
        mem = [peak_kib(lambda d, s=s, c=chain: c.process(d, url=s.url), d) for s, d in mem_pages]
        print(f"\n== {preset}  (chain built and warmed in {load_ms:.0f} ms; {failed} pages with a failed filter)")
        ratios = [t / f for t, f in zip(totals, floors)]
        print(f"   total    median {statistics.median(totals):7.2f} ms  p95 {percentile(totals, 0.95):7.2f} ms  "
              f"= {sum(totals) / sum(floors):5.2f}x the floor   {len(totals) / (sum(totals) / 1000):6.1f} pages/s")
        print(f"   per page median {statistics.median(ratios):6.2f}x  p95 {percentile(ratios, 0.95):6.2f}x the page's floor "
              f"(floor measured with each page: median {statistics.median(floors):.2f} ms)")
        for ner, label in ((True, "with NER"), (False, "without")):
            part = [r for r, j in zip(ratios, judged) if j == ner]
            if part and any(judged):
                print(f"     {label:<12} {len(part):4d} pages: median {statistics.median(part):6.2f}x  "
                      f"p95 {percentile(part, 0.95):6.2f}x  (pages where image_captions judged captioned images)")
        print(f"   memory   median peak {statistics.median(mem):8.0f} KiB = "
              f"{statistics.median(m / f for m, f in zip(mem, floor_mem)):5.2f}x the floor's")
        floor_mean = sum(floors) / len(floors)
        for name, values in per_filter.items():
            mean = statistics.fmean(values)
            print(f"   {name:<16} mean {mean:7.2f} ms  p95 {percentile(values, 0.95):7.2f} ms  "
                  f"= {mean / floor_mean:5.2f}x the floor")
    return 0


def _judged_captions(record) -> bool:
    """Whether image_captions judged captioned images on the page (so NER ran), from its record."""
    return any("caption" in e.get("measured", {}) or "captioned_images" in e.get("measured", {})
               for e in record if e["filter"] == "image_captions")


def bench_captions(args) -> int:
    """The ``image_captions`` filter's own ms per page in each preset that runs it, on pages where it
    judged captioned images (NER ran) and on pages where it did not. The entity cache is cleared
    before every page: the numbers are for a page the proxy has not seen before."""
    from pagesieve.nlp import entities

    samples = load_dataset(args.dataset, args.limit)
    pages = [(s, s.path.read_bytes()) for s in samples]
    cfg = C.load()
    for preset in args.preset or ["declutter", "reader"]:
        chain = C.build_chain(cfg.resolve(preset, OVERRIDES))
        if not any(f.name == "image_captions" for f in chain.filters):
            print(f"== {preset}: image_captions is not in its chain")
            continue
        chain.process(pages[0][1], url=pages[0][0].url)  # warm-up: lists, model
        _freeze()
        rows: dict[bool, list[float]] = {True: [], False: []}
        for s, data in pages:
            best, captioned = float("inf"), False
            for _ in range(args.repeat):
                entities.CACHE.clear()
                res = chain.process(data, url=s.url)
                ms = next(f[FILTER_MS] for f in res.filters if f["filter"] == "image_captions")
                if ms < best:
                    best = ms
                    captioned = _judged_captions(res.record)
            rows[captioned].append(best)
        print(f"== {preset}: image_captions added ms per page (entity cache cleared before each page)")
        for captioned, label in ((True, "with captioned images"), (False, "without")):
            v = rows[captioned]
            if v:
                print(f"   {label:<22} {len(v):4d} pages  mean {statistics.fmean(v):7.2f}  median "
                      f"{statistics.median(v):7.2f}  p95 {percentile(v, 0.95):7.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
