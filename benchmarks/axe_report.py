"""axe-core violations of real pages before and after filtering, totalled per preset.

    npm ci --prefix tests/a11y                  # axe-core 4.10.3 (scripts/setup.sh does it)
    .venv/bin/python benchmarks/axe_report.py [--step N] [--presets declutter reader] [--per-page]

The pages: every N-th page of the shared corpus (truth.jsonl order; N = 15 gives 13 of 181 pages,
the set tests/a11y/test_axe.py gates on). Each page runs through axe in headless Chromium with
the wcag2a, wcag2aa and best-practice tags, offline and with the page's own scripts blocked (see
tests/a11y/axe_run.py). A violation is one rule failed on one page; "nodes" counts the elements
that fail it. "serious+" is the serious and critical impacts; "new serious+" counts rules that
fail serious+ after filtering but did not before (the test's gate: must be 0).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the axe harness lives in tests/a11y

from pagesieve import config as C  # noqa: E402
from pagesieve.document import parse  # noqa: E402
from tests.a11y.axe_run import GATED, PRESETS, STEP, Axe, gated, missing, sample_pages  # noqa: E402


def _totals(violations) -> tuple[int, int, int, int]:
    serious = [v for v in violations if v.impact in GATED]
    return len(serious), sum(v.nodes for v in serious), len(violations), sum(v.nodes for v in violations)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--step", type=int, default=STEP, help="every N-th corpus page (default %(default)s)")
    ap.add_argument("--presets", nargs="+", default=list(PRESETS))
    ap.add_argument("--per-page", action="store_true", help="also print each page's serious+ rules")
    args = ap.parse_args(argv)
    reason = missing()
    if reason:
        print(f"axe_report: cannot run: {reason}", file=sys.stderr)
        return 2
    pages = sample_pages(args.step)
    if not pages:
        print("axe_report: the shared corpus is missing (set PAGESIEVE_CORPUS)", file=sys.stderr)
        return 2
    cfg = C.load()
    chains = {name: C.build_chain(cfg.resolve(name)) for name in args.presets}
    totals = {name: [0, 0, 0, 0] for name in ["original", *args.presets]}
    new: dict[str, Counter] = {name: Counter() for name in args.presets}
    fixed: dict[str, Counter] = {name: Counter() for name in args.presets}
    with Axe() as axe:
        for pid, path, url in pages:
            data = path.read_bytes()
            before = axe.violations(data.decode(parse(data).encoding, errors="replace"))
            totals["original"] = [a + b for a, b in zip(totals["original"], _totals(before))]
            line = [f"{pid[:10]} original {sorted(gated(before))}"]
            for name, chain in chains.items():
                res = chain.process(data, url=url or None)
                after = axe.violations(res.body.decode(res.encoding, errors="replace"))
                totals[name] = [a + b for a, b in zip(totals[name], _totals(after))]
                new[name].update(gated(after) - gated(before))
                fixed[name].update(gated(before) - gated(after))
                line.append(f"{'':10} {name} {sorted(gated(after))}")
            if args.per_page:
                print("\n".join(line))
    print(f"axe-core on {len(pages)} corpus pages (every {args.step}th), tags wcag2a wcag2aa best-practice")
    print(f"{'':<10} {'serious+':>9} {'(nodes)':>8} {'all':>5} {'(nodes)':>8} {'new serious+':>13}")
    for name, (sr, sn, ar, an) in totals.items():
        extra = str(sum(new[name].values())) if name in new else ""
        print(f"{name:<10} {sr:>9} {sn:>8} {ar:>5} {an:>8} {extra:>13}")
    for name in args.presets:
        print(f"{name}: fixed {dict(fixed[name].most_common())}; new {dict(new[name].most_common())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
