"""Where the chain's time goes: cProfile over corpus pages, per preset, as top-N tables.

    .venv/bin/python benchmarks/profile_chain.py [DATASET_DIR] [--preset P ...] [--limit 60] [--top 20]
        [--sort tottime|cumtime] [--out FILE]

Each preset's chain is built and warmed on the first page (lists and models load outside the
profile), then ``Chain.process`` (parse, filters, render) runs once per page under cProfile with the
entity cache cleared before each page (a page the proxy has not seen). Printed per preset: pages,
total profiled seconds, the floor's share (lxml parse + serialize of the same pages, profiled the
same way: the profiler's overhead is in both), and the top-N functions by own time with their
call counts and share of the preset's total. The profiler's clock is the process's CPU time
(``time.process_time``), so time other processes take on a shared machine is not counted; call
counts and shares are what to compare between runs, seconds still move with cache pressure.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from pathlib import Path

import lxml.html

from pagesieve.engine import config as C
from pagesieve.evaluation.datasets import load_dataset
from pagesieve.nlp import entities

DEFAULT = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "extraction" / "scrapinghub"


def _floor(pages) -> float:
    prof = cProfile.Profile(time.process_time)
    prof.enable()
    for _, data in pages:
        lxml.html.tostring(lxml.html.document_fromstring(data), encoding="utf-8")
    prof.disable()
    return pstats.Stats(prof).total_tt


def _short(func: tuple) -> str:
    filename, line, name = func
    if filename == "~":
        return name
    parts = Path(filename).parts
    if "pagesieve" in parts:
        filename = "/".join(parts[parts.index("pagesieve"):])
    elif "site-packages" in parts:
        filename = "/".join(parts[parts.index("site-packages") + 1:])
    else:
        filename = Path(filename).name
    return f"{filename}:{line}({name})"


def table(stats: pstats.Stats, top: int, sort: str) -> str:
    total = stats.total_tt or 1e-9
    rows = []
    for func, (_cc, nc, tt, ct, _) in stats.stats.items():
        rows.append((tt if sort == "tottime" else ct, nc, tt, ct, func))
    rows.sort(key=lambda r: r[0], reverse=True)
    out = io.StringIO()
    out.write("| # | function | calls | own s | own % | cum s | cum % |\n|---|---|---:|---:|---:|---:|---:|\n")
    for i, (_, nc, tt, ct, func) in enumerate(rows[:top], 1):
        out.write(f"| {i} | `{_short(func)}` | {nc} | {tt:.3f} | {100 * tt / total:.1f} | {ct:.3f} | "
                  f"{100 * ct / total:.1f} |\n")
    return out.getvalue()


def per_filter(stats: pstats.Stats) -> str:
    """Cumulative time of each filter's ``apply``, of parsing and of rendering, as shares of the total."""
    total = stats.total_tt or 1e-9
    rows = []
    for (filename, _line, name), (_cc, nc, _tt, ct, _) in stats.stats.items():
        parts = Path(filename).parts
        if "pagesieve" not in parts:
            continue
        rel = "/".join(parts[parts.index("pagesieve"):])
        if (rel.startswith("pagesieve/filters/") and name == "apply") or (rel, name) in (
                ("pagesieve/engine/document.py", "parse"), ("pagesieve/engine/output.py", "render")):
            rows.append((ct, rel.rsplit("/", 1)[-1].removesuffix(".py") + "." + name, nc))
    rows.sort(reverse=True)
    return "| step | calls | cum s | cum % |\n|---|---:|---:|---:|\n" + "".join(
        f"| {name} | {nc} | {ct:.3f} | {100 * ct / total:.1f} |\n" for ct, name, nc in rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dataset", nargs="?", default=str(DEFAULT))
    ap.add_argument("--preset", action="append")
    ap.add_argument("--limit", type=int, default=60)
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--sort", choices=("tottime", "cumtime"), default="tottime")
    ap.add_argument("--out", help="also append the tables (markdown) to this file")
    ap.add_argument("--dump", help="also save each preset's raw profile as DUMP.<preset>.prof (pstats)")
    args = ap.parse_args(argv)
    samples = load_dataset(args.dataset, args.limit)
    pages = [(s, s.path.read_bytes()) for s in samples]
    cfg = C.load()
    text = io.StringIO()
    floor = _floor(pages)
    for preset in args.preset or ["declutter", "reader"]:
        chain = C.build_chain(cfg.resolve(preset))
        chain.process(pages[0][1], url=pages[0][0].url)
        prof = cProfile.Profile(time.process_time)
        for s, data in pages:
            entities.CACHE.clear()
            prof.enable()
            chain.process(data, url=s.url)
            prof.disable()
        stats = pstats.Stats(prof)
        if args.dump:
            stats.dump_stats(f"{args.dump}.{preset}.prof")
        calls = sum(nc for (_, nc, _, _, _) in stats.stats.values())
        text.write(f"\n### {preset}: {len(pages)} pages, {stats.total_tt:.2f} s profiled "
                   f"({1000 * stats.total_tt / len(pages):.1f} ms/page), {calls} function calls, "
                   f"= {stats.total_tt / floor:.1f}x the profiled floor ({floor:.2f} s)\n\n")
        text.write(table(stats, args.top, args.sort))
        text.write("\n" + per_filter(stats))
    print(text.getvalue())
    if args.out:
        with open(args.out, "a", encoding="utf-8") as fh:
            fh.write(text.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
