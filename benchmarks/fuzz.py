"""The long fuzz run of the chain: mutated real pages through built chains.

    .venv/bin/python benchmarks/fuzz.py --cases 1000000 --preset declutter --preset reader
    .venv/bin/python benchmarks/fuzz.py --minutes 30          # as many cases as fit
    .venv/bin/python benchmarks/fuzz.py --jobs 2 --minutes 120 # one process a core, seeds 1 and 2
    .venv/bin/python benchmarks/fuzz.py --jobs 2 --alternate --cases 1000000  # each case through one preset

The same mutations and properties as ``tests/test_fuzz_chain.py`` (``tests/fuzz_pages.py``):
no exception but a clear InputError escapes, no case hangs, a page with text never comes back
without it. Cases are drawn by hypothesis from a seed, so a run is repeatable; every finding is
written (its bytes, base64) to ``--findings`` with the problem, and the run prints its count,
rate and findings as it goes.

Hypothesis keeps what it learns about a run in memory, so a long run is drawn in chunks of
``--chunk`` cases, chunk ``k`` of job ``j`` from seed ``(seed + j) * 1_000_003 + k``: memory stays
flat over a million cases; a finding is reproduced from its bytes (a chunk's seed run on its own did
not draw the same pages when tried). ``--alternate`` sends each case
through one preset, in turn, instead of through all of them (twice the cases for the same CPU).
"""

from __future__ import annotations

import argparse
import base64
import json
import multiprocessing
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import seed as hypothesis_seed  # noqa: E402

from pagesieve.engine import config as C  # noqa: E402
from tests.fuzz_pages import check, mutated_page, seed_pages  # noqa: E402


def fuzz(presets: list[str], cases: int, minutes: float, seed: int, findings: str, tag: str = "",
         alternate: bool = False, chunk: int = 5000) -> tuple[int, int, dict[str, int]]:
    """Run up to ``cases`` cases (or ``minutes``) from ``seed``: (cases run, findings, chain runs per preset)."""
    chains = {p: C.build_chain(C.load().resolve(p)) for p in presets}
    names = list(chains)
    pages = seed_pages()
    stop_at = time.monotonic() + minutes * 60 if minutes else None
    count = {"cases": 0, "findings": 0, "seed": 0}
    runs = dict.fromkeys(names, 0)
    t0 = time.monotonic()
    out = Path(findings).open("a")

    class Done(Exception):
        pass

    def one(data: bytes) -> None:
        if stop_at is not None and time.monotonic() > stop_at:
            raise Done
        chosen = [names[count["cases"] % len(names)]] if alternate else names
        for name in chosen:
            runs[name] += 1
            problem = check(chains[name], data)
            if problem is not None:
                count["findings"] += 1
                out.write(json.dumps({"preset": name, "problem": problem, "seed": count["seed"],
                                      "page": base64.b64encode(data).decode()}) + "\n")
                out.flush()
                print(f"{tag}FINDING {name}: {problem}", flush=True)
        count["cases"] += 1
        if count["cases"] % 500 == 0:
            rate = count["cases"] / (time.monotonic() - t0)
            print(f"{tag}{count['cases']} cases, {count['findings']} findings, {rate:.1f} cases/s", flush=True)

    k = 0
    try:
        while count["cases"] < cases:
            chunk_seed = count["seed"] = seed * 1_000_003 + k
            target = count["cases"] + min(chunk, cases - count["cases"])
            before = count["cases"]

            @hypothesis_seed(chunk_seed)
            @settings(max_examples=target - before, deadline=None, database=None,
                      suppress_health_check=list(HealthCheck))
            @given(mutated_page(pages))
            def run(data: bytes) -> None:
                one(data)

            random.seed(chunk_seed)
            run()
            k += 1
            if count["cases"] == before:
                break  # hypothesis drew nothing more from this space
    except Done:
        pass
    out.close()
    return count["cases"], count["findings"], runs


def _job(args: tuple) -> tuple[int, int, dict[str, int]]:
    presets, cases, minutes, seed, findings, alternate, chunk = args
    return fuzz(presets, cases, minutes, seed, findings, tag=f"[seed {seed}] ", alternate=alternate, chunk=chunk)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=1_000_000, help="cases in all (stops early at --minutes)")
    ap.add_argument("--minutes", type=float, default=0, help="stop after this many minutes (0: no limit)")
    ap.add_argument("--preset", action="append", help="presets to run each case through (default declutter, reader)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1, help="processes, each from its own seed (seed, seed+1, ...)")
    ap.add_argument("--findings", default="fuzz-findings.jsonl")
    ap.add_argument("--alternate", action="store_true", help="each case through one preset, in turn")
    ap.add_argument("--chunk", type=int, default=5000, help="cases drawn per hypothesis run (memory stays flat)")
    args = ap.parse_args()
    if args.jobs < 1 or args.cases < 1 or args.chunk < 1 or args.minutes < 0:
        ap.error("--jobs, --cases and --chunk must be at least 1, --minutes at least 0")
    presets = args.preset or ["declutter", "reader"]
    t0 = time.monotonic()
    share = -(-args.cases // args.jobs)
    jobs = [(presets, share, args.minutes, args.seed + i, args.findings, args.alternate, args.chunk)
            for i in range(args.jobs)]
    if args.jobs == 1:
        results = [_job(jobs[0])]
    else:
        with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
            results = pool.map(_job, jobs)
    cases, findings = sum(r[0] for r in results), sum(r[1] for r in results)
    runs = {p: sum(r[2][p] for r in results) for p in presets}
    elapsed = time.monotonic() - t0
    how = "each through one preset, in turn" if args.alternate else f"each through all {len(presets)} presets"
    print(f"done: {cases} cases ({how}; chain runs: "
          + ", ".join(f"{p} {n}" for p, n in runs.items())
          + f") in {elapsed / 60:.1f} min with {args.jobs} job(s), {cases / max(elapsed, 1e-9):.1f} cases/s, "
          f"{findings} findings" + (f" (in {args.findings})" if findings else ""))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
