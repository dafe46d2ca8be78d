"""``image_captions`` with the captions' names found in the article text by string match (the
default, ``caption_first``) against NER over the article (``caption_first: false``): do the two
decide the same for every captioned image, and what does each cost?

    .venv/bin/python benchmarks/bench_captions.py [CORPUS_DIR ...] [--preset P ...] [--limit N] [--json OUT]

Every page of each corpus (default: every corpus of ``../shared/data/extraction``) goes through each
preset's chain (default ``declutter`` and ``reader``) twice, once each way, with the entity cache
cleared before each run (a page the proxy has not seen). The filters before ``image_captions`` are
the same both times, so its candidates (the captioned images of the article, in document order) are
the same; per corpus the table gives the candidates, the share decided alike (kept or removed), the
pages where the text match could not decide and NER ran over the article after all, and the
filter's CPU time per page that judged captioned images (median, p95) each way. ``--json`` writes
every changed decision (page, image, caption, both explanations) for a look.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from collections import defaultdict
from pathlib import Path

from pagesieve.engine import config as C
from pagesieve.evaluation.datasets import load_dataset
from pagesieve.evaluation.metrics import percentile
from pagesieve.filters import image_captions as ic
from pagesieve.nlp import entities

EXTRACTION = Path(os.environ.get("PAGESIEVE_EXTRACTION") or
                  Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "extraction")


def _capture():
    """Wrap ``ImageCaptionsFilter._judge`` so that each call's candidates and removed images are kept."""
    seen: list[tuple[list, set]] = []
    real = ic.ImageCaptionsFilter._judge

    def judge(self, article, candidates, ctx):
        out = real(self, article, candidates, ctx)
        seen.append((candidates, {id(img) for img, *_ in out}))
        return out

    ic.ImageCaptionsFilter._judge = judge  # type: ignore[method-assign]
    return seen


def _entry(record: list[dict], caption: str) -> dict | None:
    """The image_captions entry of ``record`` about the image with ``caption``."""
    return next((e for e in record if e["filter"] == "image_captions"
                 and e.get("measured", {}).get("caption") == caption[:120]), None)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpora", nargs="*")
    ap.add_argument("--preset", action="append")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--json", help="write the changed decisions here")
    args = ap.parse_args(argv)
    corpora = [Path(c) for c in args.corpora] or sorted(p for p in EXTRACTION.iterdir() if (p / "truth.jsonl").is_file())
    cfg = C.load()
    seen = _capture()
    changed_all = []
    print(f"{'corpus':<14} {'preset':<10} {'images':>6} {'same':>7} {'pages':>5} {'NER':>4}  "
          f"{'old ms median/p95':>18}  {'new ms median/p95':>18}")
    for corpus in corpora:
        samples = load_dataset(corpus, args.limit)
        for preset in args.preset or ["declutter", "reader"]:
            chains = {way: C.build_chain(cfg.resolve(preset, {"filters": {"image_captions": {"caption_first": way}}}))
                      for way in (False, True)}
            images = same = pages = fell_back = 0
            ms: dict[bool, list[float]] = defaultdict(list)
            for s in samples:
                data = s.path.read_bytes()
                runs = {}
                for way, chain in chains.items():
                    entities.CACHE.clear()
                    seen.clear()
                    try:
                        res = chain.process(data, url=s.url)
                    except Exception:  # noqa: BLE001 - a page the chain refuses: no images judged
                        break
                    cpu = next((f["cpu_ms"] for f in res.filters if f["filter"] == "image_captions"), 0.0)
                    runs[way] = (list(seen), cpu, res.record)
                if len(runs) < 2 or not runs[False][0]:
                    continue
                if not runs[False][0][0][0]:
                    continue
                pages += 1
                fell_back += any(e.get("measured", {}).get("article_entities_by", "").startswith("NER")
                                 for e in runs[True][2] if e["filter"] == "image_captions")
                for way in (False, True):
                    ms[way].append(runs[way][1])
                old_cands, old_removed = runs[False][0][0]
                new_cands, new_removed = runs[True][0][0]
                for a, b in zip(old_cands, new_cands):
                    images += 1
                    was, now = id(a.img) in old_removed, id(b.img) in new_removed
                    if was == now:
                        same += 1
                        continue
                    changed_all.append({"corpus": corpus.name, "preset": preset, "page": s.id, "url": s.url,
                                        "src": a.img.get("src"), "caption": a.caption[:300],
                                        "old": "remove" if was else "keep", "new": "remove" if now else "keep",
                                        "old_entry": _entry(runs[False][2], a.caption), "new_entry": _entry(runs[True][2], a.caption)})
            def stat(v):
                return f"{statistics.median(v):7.2f} /{percentile(v, 0.95):7.2f}" if v else "      -"
            print(f"{corpus.name:<14} {preset:<10} {images:6d} {same / images if images else 1:7.1%} {pages:5d} "
                  f"{fell_back:4d}  {stat(ms[False]):>18}  {stat(ms[True]):>18}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(changed_all, indent=1, default=str))
        print(f"{len(changed_all)} changed decisions written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
