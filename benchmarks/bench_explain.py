"""What building the explanation record costs: each page through each preset's chain with the whole
record (``explain=True``, the CLI's ``--explain``, eval), only the removals (the proxy with the page
control on) and none (the proxy otherwise), interleaved page by page, best of ``--repeat`` CPU times
each (the entity cache cleared before every run).

    .venv/bin/python benchmarks/bench_explain.py [DATASET_DIR] [--preset P ...] [--limit N] [--repeat R]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from bench_chain import DEFAULT, _freeze

from pagesieve.engine import config as C
from pagesieve.evaluation.datasets import load_dataset
from pagesieve.nlp import entities
from pagesieve.proxy_addons.worker import REMOVAL_ACTIONS

MODES = {"all": True, "removals": REMOVAL_ACTIONS, "none": False}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dataset", nargs="?", default=str(DEFAULT))
    ap.add_argument("--preset", action="append")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    pages = [(s, s.path.read_bytes()) for s in load_dataset(args.dataset, args.limit)]
    cfg = C.load()
    for preset in args.preset or ["declutter", "reader"]:
        chain = C.build_chain(cfg.resolve(preset))
        chain.process(pages[0][1], url=pages[0][0].url)
        _freeze()
        best = {m: [] for m in MODES}
        for s, data in pages:
            times = {m: float("inf") for m in MODES}
            for _ in range(args.repeat):
                for mode, explain in MODES.items():
                    entities.CACHE.clear()
                    t0 = time.process_time()
                    chain.process(data, url=s.url, explain=explain)
                    times[mode] = min(times[mode], (time.process_time() - t0) * 1000)
            for m in MODES:
                best[m].append(times[m])
        total = {m: sum(v) for m, v in best.items()}
        print(f"== {preset}: {len(pages)} pages, CPU ms per page (best of {args.repeat})")
        for m, v in best.items():
            ratios = [a / b for a, b in zip(v, best["all"]) if b]
            print(f"   {m:<9} mean {total[m] / len(v):7.2f}  median {statistics.median(v):7.2f}  "
                  f"sum vs all {total[m] / total['all'] - 1:+6.1%}  per-page median vs all {statistics.median(ratios) - 1:+6.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
