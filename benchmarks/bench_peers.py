"""Well-known extractors on the same pages, with the same metric as ``pagesieve eval``.

    .venv/bin/pip install -e '.[bench]'      # trafilatura, readability-lxml, resiliparse: benchmark-only
    .venv/bin/python benchmarks/bench_peers.py [DATASET_DIR ...] [--limit N] [--json OUT]

A DATASET_DIR may hold several datasets (``../shared/data/extraction``: every corpus, the default).
trafilatura with its defaults (``trafilatura.extract``, comments included) and without comments;
readability-lxml's ``Document.summary`` rendered to text by pagesieve's own text renderer (as
``pagesieve eval`` renders its presets); resiliparse's ``extract_plain_text(main_content=True)``.
Scores: mean per-page token P, R, F1 (``pagesieve.evaluation.metrics.prf``), pages/s over extraction time,
and F1 per ``meta.page_type`` where the dataset has one.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from pagesieve.evaluation.datasets import datasets_in, load_dataset
from pagesieve.evaluation.metrics import percentile, prf, tokens

DEFAULT = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "extraction"


def _trafilatura():
    import trafilatura

    return lambda html, url: trafilatura.extract(html, url=url) or ""


def _trafilatura_no_comments():
    import trafilatura

    return lambda html, url: trafilatura.extract(html, url=url, include_comments=False) or ""


def _resiliparse():
    from resiliparse.extract.html2text import extract_plain_text

    return lambda html, url: extract_plain_text(html, main_content=True) or ""


def _readability():
    import lxml.html
    from readability import Document

    from pagesieve.engine.output import OutputSettings, to_text

    settings = OutputSettings(format="text")

    def run(html, url):
        summary = Document(html, url=url).summary(html_partial=True)
        return to_text(lxml.html.fromstring(summary), settings) if summary.strip() else ""
    return run


PEERS = (("trafilatura", _trafilatura), ("trafilatura-nocomm", _trafilatura_no_comments),
         ("readability-lxml", _readability), ("resiliparse", _resiliparse))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dataset", nargs="*", default=[str(DEFAULT)])
    ap.add_argument("--limit", type=int)
    ap.add_argument("--json", metavar="OUT", help="also write every score, per page, to this JSON file")
    args = ap.parse_args(argv)
    print(f"{'corpus':<16} {'extractor':<20} {'pages':>5} {'P':>6} {'R':>6} {'F1':>6} {'pages/s':>8} {'med ms':>7} "
          f"{'p95 ms':>7} {'errors':>6}")
    extractors = []
    for name, make in PEERS:
        try:
            extractors.append((name, make()))
        except ImportError as err:
            print(f"{name:<22} not installed ({err.name}); pip install -e '.[bench]'")
    payload: dict = {}
    by_type_lines = []
    for directory in (d for given in args.dataset for d in datasets_in(given)):
        samples = load_dataset(directory, args.limit)
        for name, extract in extractors:
            ps, rs, fs, times, errors, per_page = [], [], [], [], 0, []
            per_type: dict[str, list[float]] = {}
            for s in samples:
                html = s.path.read_bytes().decode("utf-8", errors="replace")
                t0 = time.perf_counter()
                try:
                    text = extract(html, s.url)
                except Exception:  # noqa: BLE001 - a peer's failure on a page is counted, as ours are
                    text, errors = "", errors + 1
                times.append((time.perf_counter() - t0) * 1000)
                truth = tokens(s.truth)
                if truth:
                    p, r, f = prf(tokens(text), truth)
                    ps.append(p), rs.append(r), fs.append(f)
                    per_page.append({"id": s.id, "p": round(p, 4), "r": round(r, 4), "f1": round(f, 4)})
                    if s.meta.get("page_type"):
                        per_type.setdefault(s.meta["page_type"], []).append(f)
            total = sum(times) / 1000
            print(f"{directory.name[:16]:<16} {name:<20} {len(fs):>5} {statistics.fmean(ps):>6.3f} "
                  f"{statistics.fmean(rs):>6.3f} {statistics.fmean(fs):>6.3f} {len(times) / total:>8.1f} "
                  f"{statistics.median(times):>7.1f} {percentile(times, 0.95):>7.1f} {errors:>6}")
            sys.stdout.flush()
            for t, v in sorted(per_type.items()):
                by_type_lines.append(f"{directory.name[:16]:<16} {name:<20} {t:<14} {len(v):>5} {statistics.fmean(v):>6.3f}")
            payload.setdefault(directory.name, {})[name] = {
                "precision": statistics.fmean(ps), "recall": statistics.fmean(rs), "f1": statistics.fmean(fs),
                "by_type": {t: statistics.fmean(v) for t, v in per_type.items()}, "per_page": per_page}
    if by_type_lines:
        print(f"\n{'corpus':<16} {'extractor':<20} {'page_type':<14} {'pages':>5} {'F1':>6}")
        print("\n".join(by_type_lines))
    if args.json:
        Path(args.json).write_text(json.dumps(payload, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
