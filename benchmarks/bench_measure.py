"""What the page's text measurement costs, compiled and in Python, over the lxml floor.

    .venv/bin/python benchmarks/bench_measure.py [DATASET_DIR ...] [--limit N] [--repeat R] [--clock cpu]

For every page: the floor (``lxml.html.document_fromstring`` + ``tostring``, as ``bench_chain.py``
measures it), then the pure-Python measurement (:class:`pagesieve.core.measure.PyTextMeasure`) and
the compiled page table (:mod:`pagesieve.core._pagetable`) of the parsed page, as the chain takes it
(holding every element's proxy) and its walk alone (``hold=False``), each the best of ``--repeat`` runs. Printed: the median and p95 over the pages of each one's time divided by the
page's floor, the summed times' ratio to the summed floor, and how many times faster the compiled
one is. Both tables are compared on every page (they must be equal).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

import lxml.html

from pagesieve.core.measure import PyTextMeasure
from pagesieve.evaluation.datasets import load_dataset
from pagesieve.evaluation.metrics import percentile

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_chain import DEFAULT, floor_once  # noqa: E402

try:
    from pagesieve.core._pagetable import PageTable
except ImportError:
    sys.exit("the compiled page table is not built: python setup.py build_ext --inplace")


def best(fn, arg, repeat: int, clock) -> float:
    """Best-of-``repeat`` time of ``fn(arg)`` in ms."""
    out = float("inf")
    for _ in range(repeat):
        t0 = clock()
        fn(arg)
        out = min(out, (clock() - t0) * 1000)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dataset", nargs="*", default=[str(DEFAULT)])
    ap.add_argument("--limit", type=int, help="only the first N pages of each dataset")
    ap.add_argument("--repeat", type=int, default=3, help="runs per page; the best is kept")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    args = ap.parse_args(argv)
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    gc.freeze()
    for dataset in args.dataset:
        rows = []
        unequal = 0
        for sample in load_dataset(dataset, args.limit):
            data = sample.path.read_bytes()
            floor = best(floor_once, data, args.repeat, clock)
            root = lxml.html.document_fromstring(data)
            py = best(PyTextMeasure, root, args.repeat, clock)
            compiled = best(PageTable, root, args.repeat, clock)
            walk = best(lambda r: PageTable(r, hold=False), root, args.repeat, clock)
            a, b = PyTextMeasure(root), PageTable(root)
            unequal += not (b.chars == a.chars and b.links == a.links)
            rows.append((floor, py, compiled, walk, sum(1 for _ in root.iter())))
        floors, pys, comps, walks, nodes = zip(*rows)
        print(f"{Path(dataset).name}: {len(rows)} pages, {statistics.median(nodes):.0f} nodes median; {args.clock} clock, "
              f"best of {args.repeat}; floor median {statistics.median(floors):.2f} ms; tables unequal on {unequal} pages")
        for name, times in (("python", pys), ("compiled", comps), ("walk only", walks)):
            ratios = [t / f for t, f in zip(times, floors)]
            print(f"  {name:9} median {statistics.median(times):.3f} ms; x floor: median {statistics.median(ratios):.3f}, "
                  f"p95 {percentile(ratios, 0.95):.3f}, summed {sum(times) / sum(floors):.3f}")
        speed = [p / c for p, c in zip(pys, comps) if c > 0]
        print(f"  compiled is {sum(pys) / sum(comps):.1f}x faster summed, {statistics.median(speed):.1f}x per-page median; "
              f"its walk alone {sum(pys) / sum(walks):.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
