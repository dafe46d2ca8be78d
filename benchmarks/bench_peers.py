"""Two well-known extractors on the same pages, with the same metric as ``pagesieve eval``.

    .venv/bin/pip install -e '.[bench]'      # trafilatura, readability-lxml: benchmark-only
    .venv/bin/python benchmarks/bench_peers.py [DATASET_DIR] [--limit N]

trafilatura with its defaults (``trafilatura.extract``); readability-lxml's ``Document.summary``
rendered to text by pagesieve's own text renderer (as ``pagesieve eval`` renders its presets).
Scores: mean per-page token P, R, F1 (``pagesieve.evaluate.prf``), pages/s over extraction time.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from pagesieve.evaluate import _percentile, load_dataset, prf, tokens

DEFAULT = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "extraction" / "scrapinghub"


def _trafilatura():
    import trafilatura

    return lambda html, url: trafilatura.extract(html, url=url) or ""


def _readability():
    import lxml.html
    from readability import Document

    from pagesieve.output import OutputSettings, to_text

    settings = OutputSettings(format="text")

    def run(html, url):
        summary = Document(html, url=url).summary(html_partial=True)
        return to_text(lxml.html.fromstring(summary), settings) if summary.strip() else ""
    return run


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dataset", nargs="?", default=str(DEFAULT))
    ap.add_argument("--limit", type=int)
    args = ap.parse_args(argv)
    samples = load_dataset(args.dataset, args.limit)
    print(f"{'extractor':<22} {'pages':>5} {'P':>6} {'R':>6} {'F1':>6} {'pages/s':>8} {'med ms':>7} "
          f"{'p95 ms':>7} {'errors':>6}")
    for name, make in (("trafilatura", _trafilatura), ("readability-lxml", _readability)):
        try:
            extract = make()
        except ImportError as err:
            print(f"{name:<22} not installed ({err.name}); pip install -e '.[bench]'")
            continue
        ps, rs, fs, times, errors = [], [], [], [], 0
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
        total = sum(times) / 1000
        print(f"{name:<22} {len(fs):>5} {statistics.fmean(ps):>6.3f} {statistics.fmean(rs):>6.3f} "
              f"{statistics.fmean(fs):>6.3f} {len(times) / total:>8.1f} {statistics.median(times):>7.1f} "
              f"{_percentile(times, 0.95):>7.1f} {errors:>6}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
