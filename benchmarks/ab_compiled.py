"""The compiled walks against their Python fallbacks, in one process: an A/B that the machine's load
cannot tilt.

    .venv/bin/python benchmarks/ab_compiled.py [DATASET_DIR] [--preset P ...] [--limit N] [--repeat 1]

Each preset's chain is built once and warmed; then for every page the floor (lxml parse + serialize)
is timed, and the chain runs with the compiled attribute walks and paragraph sums
(``pagesieve.core._attrs``, ``_paragraphs``) and with the filters' own Python walks (the code they
replace, kept for builds without the extension), in alternating order, each on the process's CPU clock,
best of ``--repeat``. Printed per preset: the per-page ratio to the page's floor (median, p95) and the
summed chain time over the summed floor, for both. The compiled page table (``_pagetable``,
``_blocks``) stays on in both: only what the switched modules do differs.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from pathlib import Path

import lxml.html

from pagesieve.engine import config as C
from pagesieve.evaluation.datasets import load_dataset
from pagesieve.filters import article, ignore
from pagesieve.filters.accessibility import aria
from pagesieve.filters.ads import index
from pagesieve.nlp import entities

DEFAULT = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "extraction" / "scrapinghub"
#: (module, name) of every switch between a compiled walk and its Python fallback.
SWITCHES = ((index, "ATTRS"), (ignore, "ATTRS"), (aria, "ATTRS"), (article, "PARAGRAPHS"))


def switch(compiled: bool, saved: dict) -> None:
    for module, name in SWITCHES:
        setattr(module, name, saved[(module, name)] if compiled else None)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dataset", nargs="?", default=str(DEFAULT))
    ap.add_argument("--preset", action="append")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args(argv)
    saved = {(m, n): getattr(m, n) for m, n in SWITCHES}
    if any(v is None for v in saved.values()):
        raise SystemExit("the compiled modules are not built (setup.py build_ext --inplace)")
    pages = [(s, s.path.read_bytes()) for s in load_dataset(args.dataset, args.limit)]
    clock = time.process_time

    def best(fn) -> float:
        out = float("inf")
        for _ in range(args.repeat):
            t0 = clock()
            fn()
            out = min(out, clock() - t0)
        return out

    cfg = C.load()
    print(f"{len(pages)} pages of {Path(args.dataset).name}; cpu clock, best of {args.repeat}")
    for preset in args.preset or ["declutter", "reader"]:
        chain = C.build_chain(cfg.resolve(preset))
        chain.process(pages[0][1], url=pages[0][0].url)
        gc.collect()
        gc.freeze()  # as the proxy's workers do after warm-up
        times: dict[bool, list[float]] = {True: [], False: []}
        floors: list[float] = []
        for i, (s, data) in enumerate(pages):
            floors.append(best(lambda d=data: lxml.html.tostring(lxml.html.document_fromstring(d), encoding="utf-8")))
            for compiled in ((True, False) if i % 2 else (False, True)):
                switch(compiled, saved)

                def run(d=data, u=s.url, c=chain) -> None:
                    entities.CACHE.clear()  # a page the proxy has not seen
                    c.process(d, url=u)
                times[compiled].append(best(run))
        switch(True, saved)
        print(f"\n== {preset}: floor median {statistics.median(floors) * 1000:.2f} ms")
        for compiled, label in ((False, "python walks"), (True, "compiled")):
            ratios = [t / f for t, f in zip(times[compiled], floors)]
            print(f"   {label:<13} per page median {statistics.median(ratios):6.2f}x  p95 {percentile(ratios, 0.95):6.2f}x"
                  f"  summed {sum(times[compiled]) / sum(floors):6.2f}x  mean {statistics.fmean(times[compiled]) * 1000:6.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
