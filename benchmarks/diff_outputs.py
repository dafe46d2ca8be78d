"""Filter corpus pages with every shipped preset and write the outputs, to compare two versions byte
for byte (a refactoring must not change what a page becomes).

    .venv/bin/python benchmarks/diff_outputs.py OUT_DIR [--per-corpus 20] [--preset P ...]
    diff -rq BEFORE_DIR AFTER_DIR        # or: benchmarks/diff_outputs.py --compare BEFORE AFTER

Run it once on the old code (e.g. ``PYTHONPATH=/tmp/old-checkout``) and once on the new; every page
of every corpus under ``../shared/data/extraction`` is taken in sorted order, ``--per-corpus`` of
each. ``topics`` gets cue phrases (``--set``-style) so that its keep mode removes something. Each
output is ``OUT_DIR/<preset>/<corpus>__<page id>.html`` (the filtered bytes, or ``ERROR: ...``), and
``OUT_DIR/<preset>/_removals.txt`` lists the number of removals per page.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORPORA = next((p / "shared" / "data" / "extraction" for p in (REPO.parent, REPO.parent.parent)
                if (p / "shared" / "data" / "extraction").is_dir()), REPO.parent / "shared" / "data" / "extraction")
#: Settings that make a preset do something on corpus pages (it would otherwise leave them unchanged).
EXTRA = {"topics": {"segments.cue_phrases": ["comments", "related", "share", "about", "contact"]}}


def pages(per_corpus: int) -> list[tuple[str, Path]]:
    out = []
    for corpus in sorted(p for p in CORPORA.iterdir() if (p / "pages").is_dir()):
        for path in sorted((corpus / "pages").glob("*.html"))[:per_corpus]:
            out.append((f"{corpus.name}__{path.stem}", path))
    return out


def write(out: Path, per_corpus: int, presets: list[str] | None) -> None:
    import pagesieve
    from pagesieve import config as C

    cfg = C.load()
    todo = pages(per_corpus)
    for preset in presets or list(cfg.presets):
        filterer = pagesieve.Filterer(preset, settings=EXTRA.get(preset), config=cfg)
        d = out / preset
        d.mkdir(parents=True, exist_ok=True)
        counts = []
        for name, path in todo:
            try:
                res = filterer(path.read_bytes(), url=None)
                body, n = res.body, sum(1 for r in res.removals if r.get("action") == "remove")
            except Exception as err:  # noqa: BLE001 - recorded as the page's output
                body, n = f"ERROR: {type(err).__name__}: {err}".encode(), -1
            (d / f"{name}.html").write_bytes(body)
            counts.append(f"{name} {n}")
        (d / "_removals.txt").write_text("\n".join(counts) + "\n")
        print(f"{preset}: {len(todo)} pages", file=sys.stderr)


def compare(a: Path, b: Path) -> int:
    differ = 0
    total = 0
    for fa in sorted(a.rglob("*")):
        if not fa.is_file():
            continue
        fb = b / fa.relative_to(a)
        total += 1
        if not fb.exists() or fb.read_bytes() != fa.read_bytes():
            differ += 1
            print(f"differs: {fa.relative_to(a)}")
    print(f"{total} files compared, {differ} differ")
    return 1 if differ else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", nargs="?", type=Path)
    ap.add_argument("--per-corpus", type=int, default=20)
    ap.add_argument("--preset", action="append")
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = ap.parse_args()
    if args.compare:
        return compare(*args.compare)
    if args.out is None:
        ap.error("OUT_DIR is needed (or --compare BEFORE AFTER)")
    write(args.out, args.per_corpus, args.preset)
    return 0


if __name__ == "__main__":
    sys.exit(main())
