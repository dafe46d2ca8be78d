"""Did the filtered output change at all? Snapshot the chain's output on corpus pages, then diff.

    .venv/bin/python benchmarks/diff_outputs.py save DIR  [--per-corpus 30] [--preset P ...]
    .venv/bin/python benchmarks/diff_outputs.py diff DIR  [same options] [--explain removals|none] [--set K=V]

``save`` filters every ``k``-th page of each corpus in ``../shared/data/extraction`` (about
``--per-corpus`` pages from each: 150 pages for five corpora) with each preset and writes each
output's bytes to ``DIR/<preset>/<corpus>/<id>.html``; ``diff`` filters the same pages again and
lists those whose output differs from the snapshot (with the first differing characters), per
preset: a speed change that should not change any output is checked exactly.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path

from pagesieve.engine import config as C
from pagesieve.evaluation.datasets import load_dataset
from pagesieve.nlp import entities
from pagesieve.proxy_addons.worker import REMOVAL_ACTIONS

EXTRACTION = Path(os.environ.get("PAGESIEVE_EXTRACTION") or
                  Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "extraction")


def pages(per_corpus: int):
    for corpus in sorted(p for p in EXTRACTION.iterdir() if (p / "truth.jsonl").is_file()):
        samples = load_dataset(corpus)
        samples = samples[::max(1, math.ceil(len(samples) / per_corpus))]
        for s in samples:
            yield corpus.name, s


def _first_diff(a: bytes, b: bytes) -> str:
    i = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]), min(len(a), len(b)))
    return f"at byte {i}: {a[max(0, i - 40):i + 60]!r} / {b[max(0, i - 40):i + 60]!r}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=("save", "diff"))
    ap.add_argument("dir")
    ap.add_argument("--per-corpus", type=int, default=30)
    ap.add_argument("--preset", action="append")
    ap.add_argument("--verbose", "-v", action="store_true")
    ap.add_argument("--set", dest="overrides", metavar="KEY=VALUE", action="append", default=[],
                    help="override one setting for every preset (as pagesieve eval --set)")
    ap.add_argument("--explain", choices=("all", "removals", "none"), default="all",
                    help="which entries of the explanation record the chain builds (the output must not depend on it)")
    args = ap.parse_args(argv)
    cfg = C.load()
    explain = {"all": True, "removals": REMOVAL_ACTIONS, "none": False}[args.explain]
    overrides = C.overrides_to_tree([C.parse_override(o) for o in args.overrides])
    out = Path(args.dir)
    todo = list(pages(args.per_corpus))
    changed_total = 0
    for preset in args.preset or ["declutter", "reader"]:
        chain = C.build_chain(cfg.resolve(preset, overrides))
        changed = []
        for corpus, s in todo:
            entities.CACHE.clear()
            try:
                body = chain.process(s.path.read_bytes(), url=s.url, explain=explain).body
            except Exception as err:  # noqa: BLE001 - an input the chain refuses is an output too
                body = f"ERROR {type(err).__name__}: {err}".encode()
            path = out / preset / corpus / f"{s.id}.html"
            if args.mode == "save":
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(body)
            else:
                old = path.read_bytes() if path.is_file() else b""
                if old != body:
                    changed.append(f"{corpus}/{s.id}: {_first_diff(old, body)}")
        if args.mode == "diff":
            print(f"{preset}: {len(changed)} of {len(todo)} outputs differ")
            for line in changed[: None if args.verbose else 20]:
                print("   ", line)
            changed_total += len(changed)
        else:
            print(f"{preset}: {len(todo)} outputs saved under {out / preset}")
    return 1 if changed_total else 0


if __name__ == "__main__":
    sys.exit(main())
