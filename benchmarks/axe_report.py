"""axe-core violations of real pages before and after filtering, per corpus and per page type.

    npm ci --prefix tests/a11y                  # axe-core 4.10.3 (scripts/setup.sh does it)
    nice -n 10 .venv/bin/python benchmarks/axe_report.py [--step N] [--presets declutter reader ...]
                                                         [--per-page] [--spoken]

The pages: every N-th page (truth.jsonl order, first page first) of every corpus folder under
../shared/data/extraction/ (PAGESIEVE_CORPUS names one folder instead); --step 1 is every page
(881 pages: the full benchmark; hours on a shared 2-core machine, so run it niced). Each page
runs through axe in headless Chromium with the wcag2a, wcag2aa and best-practice tags, offline
and with the page's own scripts blocked (see tests/a11y/axe_run.py).

Counted per preset: "serious+" is the number of (page, rule) pairs failing with a serious or
critical impact, before and after filtering, and their ratio; "new" counts the (page, rule)
pairs that fail serious+ after filtering but did not before (tests/a11y/test_axe.py's gate:
must be 0); "fixed" the pairs that failed before and no longer do. The tables come per corpus
and per page type (wcxb-dev's meta.page_type; the other corpora are articles, cleaneval-dev
"mixed"). With --spoken, the reading-order check of tests/a11y/spoken.py runs on the same pages
(declutter and reader) and its pass rate is printed.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the axe harness lives in tests/a11y

from pagesieve.engine import config as C  # noqa: E402
from pagesieve.engine.document import parse  # noqa: E402
from tests.a11y.axe_run import PRESETS, STEP, Axe, gated, missing, sample  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--step", type=int, default=STEP, help="every N-th page of each corpus (default %(default)s)")
    ap.add_argument("--presets", nargs="+", default=None,
                    help=f"presets to measure (default: {' '.join(PRESETS)}; 'all' = every preset in config.yaml)")
    ap.add_argument("--per-page", action="store_true", help="also print each page's serious+ rules")
    ap.add_argument("--spoken", action="store_true", help="also check the spoken order (declutter, reader)")
    args = ap.parse_args(argv)
    reason = missing()
    if reason:
        print(f"axe_report: cannot run: {reason}", file=sys.stderr)
        return 2
    pages = sample(args.step)
    if not pages:
        print("axe_report: the shared corpora are missing (set PAGESIEVE_CORPUS)", file=sys.stderr)
        return 2
    cfg = C.load()
    presets = list(PRESETS) if not args.presets else (list(cfg.presets) if args.presets == ["all"] else args.presets)
    chains = {name: C.build_chain(cfg.resolve(name)) for name in presets}
    # (group, preset) -> [serious+ pairs before, after]; group is ("corpus", name) or ("type", name)
    counts: dict[tuple, list[int]] = defaultdict(lambda: [0, 0])
    pages_in: Counter = Counter()
    new: dict[tuple, Counter] = defaultdict(Counter)
    fixed: dict[tuple, Counter] = defaultdict(Counter)
    where_new: list[str] = []
    spoken_results: list = []
    with Axe() as axe:
        for page in pages:
            data = page.path.read_bytes()
            before = gated(axe.violations(data.decode(parse(data).encoding, errors="replace")))
            groups = [("corpus", page.corpus), ("type", page.page_type), ("all", "all")]
            for g in groups:
                pages_in[g] += 1
            line = [f"{page.corpus:<14} {page.id[:10]} {page.page_type:<13} original {sorted(before)}"]
            for name, chain in chains.items():
                res = chain.process(data, url=page.url or None)
                after = gated(axe.violations(res.body.decode(res.encoding, errors="replace")))
                for g in groups:
                    counts[g, name][0] += len(before)
                    counts[g, name][1] += len(after)
                    new[g, name].update(after - before)
                    fixed[g, name].update(before - after)
                if after - before:
                    where_new.append(f"{name}: {page.corpus}/{page.id[:10]} {sorted(after - before)} {page.url}")
                if res.failed:
                    where_new.append(f"{name}: {page.corpus}/{page.id[:10]} filters failed {res.failed}")
                line.append(f"{'':40} {name} {sorted(after)}")
            if args.spoken:
                from tests.a11y.spoken import check_page

                for name in ("declutter", "reader"):
                    if name in cfg.presets:
                        spoken_results.append((page, name, check_page(axe, cfg, name, page)))
            if args.per_page:
                print("\n".join(line), flush=True)
    print(f"axe-core 4.10.3 on {pages_in['all', 'all']} pages (every {args.step}th of each corpus), "
          "tags wcag2a wcag2aa best-practice; serious+ = (page, rule) pairs with a serious or critical impact")
    for kind in ("corpus", "type", "all"):
        print(f"\nper {kind}:" if kind != "all" else "\nall pages:")
        print(f"  {'':<14} {'pages':>5} {'before':>7}  " + "  ".join(f"{n:>22}" for n in presets))
        for g in sorted({g for (g, _n) in counts if g[0] == kind}):
            cells = []
            for name in presets:
                b, a = counts[g, name]
                pct = f"{100 * a / b:.0f}%" if b else "-"
                cells.append(f"{a:>4} ({pct:>4}) new {sum(new[g, name].values()):>2}")
            print(f"  {g[1]:<14} {pages_in[g]:>5} {counts[g, presets[0]][0]:>7}  " + "  ".join(f"{c:>22}" for c in cells))
    for name in presets:
        g = ("all", "all")
        print(f"\n{name}: fixed {dict(fixed[g, name].most_common())}\n{name}: new {dict(new[g, name].most_common())}")
    if where_new:
        print("\nnew serious+ rules / failures:\n  " + "\n  ".join(where_new))
    if spoken_results:
        from tests.a11y.spoken import summary

        print("\n" + summary(spoken_results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
