"""Does the chain's time grow with the page's size, and no faster? Generated pages of growing size.

    .venv/bin/python benchmarks/bench_size.py [--preset P ...] [--generator G ...] [--steps 4]

A hostile page need not be large to be slow: nested unclosed blocks made the reader's cleanup
cubic (49 KB took 10 s). Each *generator* below builds a page whose size grows along one axis —
attributes on one element, attributes spread over elements, elements side by side, nesting depth,
classes on one element, text nodes — at ``--steps`` sizes, each twice the one before; every preset filters each page (CPU
time, the best of two runs) and the script prints, per preset and generator, the times and the
*growth exponent*: the least-squares slope of log(time) over log(bytes). 1.0 is linear, n log n
reads about 1.1 over these sizes, 2.0 is quadratic. A preset should stay at or below about 1.2.

Times include parsing (lxml/libxml2) and serialising, as the proxy's workers pay them; the
``parse`` row is pagesieve's parse of the same pages alone (:func:`pagesieve.engine.document.parse`), for
comparison. libxml2 checks each attribute of an element against every earlier one (quadratic), so a
page with a tag of more than ``document.MAX_ATTRIBUTES`` attributes is refused before it is parsed:
``attributes`` (one element, 10,000 to 80,000 attributes, every size refused) measures that refusal,
a linear scan; ``spread`` puts growing numbers of attributes on images of one attribute fewer than
the limit each, the longest tags a page may have, so the parse of accepted pages is measured too.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable

from pagesieve.api import Filterer
from pagesieve.core.errors import InputError
from pagesieve.engine import config as C
from pagesieve.engine import document

TEXT = "Some words of text in a paragraph, with a comma here and a few more words after it. "


def attributes(n: int) -> str:
    """One element with ``n`` attributes."""
    return f"<div id=story><p>{TEXT * 4}</p><img " + " ".join(f"a{i}=x" for i in range(n)) + "></div>"


def spread(n: int) -> str:
    """``n`` attributes on images of ``document.MAX_ATTRIBUTES - 1`` each (the longest tags accepted)."""
    per = document.MAX_ATTRIBUTES - 1
    img = "<img " + " ".join(f"a{i}=x" for i in range(per)) + ">"
    return f"<div id=story><p>{TEXT * 4}</p>" + f"<p>{TEXT}{img}</p>" * (n // per) + "</div>"


def elements(n: int) -> str:
    """``n`` paragraphs side by side, each with a link and emphasis."""
    return "<div id=story>" + f"<p>{TEXT}<a href=/x>a link</a> and <b>bold</b>.</p>" * n + "</div>"


def depth(n: int) -> str:
    """``<div><p>`` opened ``n`` times, never closed: the parser nests each div in the last."""
    return f"<div><p>{TEXT}" * n


def classes(n: int) -> str:
    """One element with ``n`` classes (some named like boilerplate), among a few paragraphs."""
    names = " ".join(f"c{i}" if i % 7 else f"share-{i}" for i in range(n))
    return f"<div id=story><p>{TEXT * 4}</p><div class=\"{names}\"><p>{TEXT}</p></div><p>{TEXT * 4}</p></div>"


def text_nodes(n: int) -> str:
    """One paragraph of ``n`` text nodes between inline elements."""
    return "<div id=story><p>" + "".join(f"word {i} <b>b</b> " for i in range(n)) + "</p></div>"


GENERATORS: dict[str, tuple[Callable[[int], str], int]] = {
    # name: (generator, its smallest n); sizes double from there
    "attributes": (attributes, 10_000),  # to 80,000 (709 KB): refused, over document.MAX_ATTRIBUTES
    "spread": (spread, 8 * (document.MAX_ATTRIBUTES - 1)),  # 8 to 64 images
    "elements": (elements, 500),
    "depth": (depth, 200),  # to 1600 levels: past 2048 a page is refused as unparsable (document.py)
    "classes": (classes, 4000),
    "text_nodes": (text_nodes, 3000),
}


def page(body: str) -> bytes:
    return (f"<!doctype html><html lang=en><head><meta charset=utf-8><title>Growing page</title></head>"
            f"<body>{body}</body></html>").encode()


def exponent(sizes: list[int], times: list[float]) -> float:
    """Least-squares slope of log(time) over log(size)."""
    xs, ys = [math.log(s) for s in sizes], [math.log(max(t, 1e-6)) for t in times]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def cpu(run: Callable[[], object]) -> float:
    best = math.inf
    for _ in range(2):
        t0 = time.process_time()
        try:
            run()
        except InputError:  # refused (a tag with too many attributes): the refusal is what is timed
            pass
        best = min(best, time.process_time() - t0)
    return best


def main() -> None:
    cfg = C.load()
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--preset", action="append", choices=list(cfg.presets))
    ap.add_argument("--generator", action="append", choices=list(GENERATORS))
    ap.add_argument("--steps", type=int, default=4)
    args = ap.parse_args()
    presets = args.preset or list(cfg.presets)
    generators = args.generator or list(GENERATORS)
    pages = {g: [page(GENERATORS[g][0](GENERATORS[g][1] * 2 ** k)) for k in range(args.steps)] for g in generators}
    print(f"{'':<20} {'generator':<11} {'KB':>30}  exponent")
    for g in generators:
        sizes = [len(p) for p in pages[g]]
        times = [cpu(lambda p=p: document.parse(p)) for p in pages[g]]
        print(f"{'parse':<20} {g:<11} {' '.join(f'{s // 1000:>6}' for s in sizes):>30}  "
              f"{exponent(sizes, times):.2f}  ({' '.join(f'{t * 1000:.1f}' for t in times)} ms)", flush=True)
    worst = 0.0
    for preset in presets:
        filterer = Filterer.for_spec(cfg.resolve(preset, {}))
        filterer.process(page(elements(10)), url="http://example.org/")  # lists, models: loaded once
        for g in generators:
            sizes = [len(p) for p in pages[g]]
            times = [cpu(lambda p=p, f=filterer: f.process(p, url="http://example.org/")) for p in pages[g]]
            e = exponent(sizes, times)
            worst = max(worst, e)
            print(f"{preset:<20} {g:<11} {' '.join(f'{s // 1000:>6}' for s in sizes):>30}  {e:.2f}  "
                  f"({' '.join(f'{t * 1000:.1f}' for t in times)} ms)", flush=True)
    print(f"largest exponent: {worst:.2f}")


if __name__ == "__main__":
    main()
