"""``pagesieve eval``: measure presets against pages with known main text.

A dataset is a directory in the format of ``../shared/data/extraction/*/``::

    pages/<id>.html     the page as fetched (bytes)
    truth.jsonl         one {"id", "url", "body"} per line; body = the article text only

Each preset runs with ``output.format = text``, ``output.text_title = false`` and, when the chain
has the accessibility step, ``accessibility.title_heading = false`` (the truth is the article body
without the page title, and the peer extractors return the body alone: the title pagesieve adds is
not extracted text); its output is compared with the truth as a bag
of lower-cased ``\\w+`` Unicode word tokens (a multiset: a word counted as often as it occurs):

* per page ``P = |out ∩ truth| / |out|``, ``R = |out ∩ truth| / |truth|``, ``F1`` their harmonic
  mean; then the mean of each over the pages. Pages whose truth has no token are not scored.
* **recall of main text** is the mean ``R`` (how much of the article survives).
* **non-article tokens removed** = ``1 − |out − truth| / |page − truth|`` per page (mean over the
  pages that have any non-article token), where ``page`` is the unfiltered page as text: the
  share of the clutter's words the preset took away.
* speed: pages per second over the time spent in ``Chain.process`` (parse, filters, render),
  median and 95th percentile milliseconds per page.
* errors: pages whose processing raised (scored as empty output, P = R = F1 = 0) and pages on
  which a filter failed and was rolled back (``filter_errors``; scored as they came out).

A progress bar goes to stderr only when stderr is a terminal.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterable

from pagesieve.errors import InputError

_WORD = re.compile(r"\w+", re.UNICODE)


def tokens(text: str) -> Counter:
    """The bag of lower-cased ``\\w+`` tokens of ``text``."""
    return Counter(m.group(0) for m in _WORD.finditer(text.lower()))


def prf(out: Counter, truth: Counter) -> tuple[float, float, float]:
    """Token precision, recall and F1 of ``out`` against ``truth`` (multiset overlap)."""
    common = sum((out & truth).values())
    n_out, n_truth = sum(out.values()), sum(truth.values())
    p = common / n_out if n_out else 0.0
    r = common / n_truth if n_truth else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f


def noise_removed(out: Counter, page: Counter, truth: Counter) -> float | None:
    """``1 − (output tokens not in truth) / (page tokens not in truth)``; None if the page has none."""
    page_noise = sum((page - truth).values())
    if not page_noise:
        return None
    return 1.0 - sum((out - truth).values()) / page_noise


@dataclass
class Sample:
    """One page of a dataset."""

    id: str
    path: Path
    url: str | None
    truth: str


def load_dataset(directory: str | Path, limit: int | None = None) -> list[Sample]:
    """The pages of a dataset directory, in ``truth.jsonl`` order (first ``limit`` only if given).

    Raises :class:`InputError` when the directory is not a dataset."""
    directory = Path(directory)
    truth = directory / "truth.jsonl"
    if not truth.is_file():
        raise InputError(f"{directory}: not a dataset (expected pages/<id>.html and truth.jsonl)")
    out = []
    for n, line in enumerate(truth.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            sample = Sample(id=str(row["id"]), path=directory / "pages" / f"{row['id']}.html",
                            url=row.get("url"), truth=row.get("body") or "")
        except (ValueError, KeyError, TypeError) as err:
            raise InputError(f"{truth}:{n}: expected a JSON object with id and body ({err})") from err
        if sample.path.is_file():
            out.append(sample)
        if limit is not None and len(out) >= limit:
            break
    return out


@dataclass
class PresetResult:
    """The scores of one preset on a dataset."""

    preset: str
    pages: int = 0
    scored: int = 0
    precision: float = 0.0
    recall: float = 0.0
    f1: float = 0.0
    noise_removed: float | None = None
    pages_per_s: float = 0.0
    median_ms: float = 0.0
    p95_ms: float = 0.0
    errors: int = 0
    filter_errors: int = 0
    per_page: list[dict] = field(default_factory=list)

    def row(self) -> dict:
        d = asdict(self)
        d.pop("per_page")
        return d


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


class _Progress:
    def __init__(self, label: str, total: int, enabled: bool) -> None:
        self.label, self.total, self.enabled = label, total, enabled and total > 0

    def step(self, done: int) -> None:
        if self.enabled:
            width = 30
            fill = int(width * done / self.total)
            sys.stderr.write(f"\r{self.label:<24} [{'#' * fill}{'.' * (width - fill)}] {done}/{self.total}")
            sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\r" + " " * 70 + "\r")
            sys.stderr.flush()


def page_text_tokens(samples: Iterable[Sample]) -> dict[str, Counter]:
    """Tokens of each unfiltered page rendered as text (for "non-article tokens removed")."""
    from pagesieve.chain import Chain
    from pagesieve.config import SafetySettings
    from pagesieve.output import OutputSettings

    chain = Chain([], OutputSettings(format="text"), SafetySettings(), preset="(unfiltered)")
    out = {}
    for s in samples:
        try:
            res = chain.process(s.path.read_bytes(), url=s.url)
            out[s.id] = tokens(res.body.decode(res.encoding, errors="replace"))
        except (InputError, OSError):
            out[s.id] = Counter()
    return out


def run_preset(cfg, preset: str, samples: list[Sample], page_tokens: dict[str, Counter] | None = None,
               progress: bool = False, overrides: list[tuple[str, object]] = ()) -> PresetResult:
    """Run ``preset`` (text output, plus ``overrides``) over ``samples`` and score it.
    Per-page errors are counted, never raised."""
    from pagesieve import config as C
    from pagesieve.api import Filterer

    # The truth is the page's main text without its title: the title pagesieve itself adds (the text
    # output's title line, the accessibility step's title-as-<h1> on pages without a heading) is not
    # extracted content and is left out, the same for every preset.
    added = [("output.text_title", False)]
    if "accessibility" in cfg.presets[preset].get("chain", ()):
        added.append(("accessibility.title_heading", False))
    spec = cfg.resolve(preset, C.overrides_to_tree([*overrides, ("output.format", "text"), *added]))
    filterer = Filterer.for_spec(spec)  # the public API's object, as the CLI uses it
    res = PresetResult(preset=preset, pages=len(samples))
    times: list[float] = []
    ps, rs, fs, noise = [], [], [], []
    bar = _Progress(preset, len(samples), progress)
    for i, s in enumerate(samples, 1):
        truth = tokens(s.truth)
        page: dict = {"id": s.id}
        t0 = time.perf_counter()
        try:
            result = filterer.process(s.path.read_bytes(), url=s.url)
            text = result.body.decode(result.encoding, errors="replace")
            if result.failed:
                res.filter_errors += 1
                page["failed"] = result.failed
        except Exception as err:  # noqa: BLE001 - one bad page never stops the run; counted
            text = ""
            res.errors += 1
            page["error"] = f"{type(err).__name__}: {err}"
        ms = (time.perf_counter() - t0) * 1000
        times.append(ms)
        page["ms"] = round(ms, 2)
        if truth:
            out = tokens(text)
            p, r, f = prf(out, truth)
            ps.append(p), rs.append(r), fs.append(f)
            page.update(p=round(p, 4), r=round(r, 4), f1=round(f, 4))
            if page_tokens is not None and s.id in page_tokens:
                nr = noise_removed(out, page_tokens[s.id], truth)
                if nr is not None:
                    noise.append(nr)
                    page["noise_removed"] = round(nr, 4)
        res.per_page.append(page)
        bar.step(i)
    bar.close()
    res.scored = len(fs)
    if fs:
        res.precision, res.recall, res.f1 = (statistics.fmean(x) for x in (ps, rs, fs))
    if noise:
        res.noise_removed = statistics.fmean(noise)
    total_s = sum(times) / 1000
    res.pages_per_s = len(times) / total_s if total_s else 0.0
    res.median_ms = statistics.median(times) if times else 0.0
    res.p95_ms = _percentile(times, 0.95)
    return res


def evaluate(dataset: str | Path, presets: list[str] | None = None, *, config_path: str | None = None,
             limit: int | None = None, progress: bool = False, samples: list[Sample] | None = None,
             overrides: list[tuple[str, object]] = ()) -> list[PresetResult]:
    """Score ``presets`` (default: every preset of the config) on a dataset."""
    from pagesieve import config as C

    cfg = C.load(config_path)
    names = list(presets or cfg.presets)
    for name in names:
        cfg.resolve(name, C.overrides_to_tree(overrides))  # bad preset or override: ConfigError naming the available ones, before any work
    if samples is None:
        samples = load_dataset(dataset, limit)
    page_tokens = page_text_tokens(samples)
    return [run_preset(cfg, name, samples, page_tokens, progress, overrides) for name in names]


def format_table(results: list[PresetResult]) -> str:
    """A plain-text table of the results, one row per preset."""
    head = (f"{'preset':<22} {'pages':>5} {'P':>6} {'R':>6} {'F1':>6} {'noise-rm':>8} "
            f"{'pages/s':>8} {'med ms':>7} {'p95 ms':>7} {'errors':>6}")
    lines = [head, "-" * len(head)]
    for r in results:
        noise = f"{r.noise_removed:.3f}" if r.noise_removed is not None else "-"
        errs = f"{r.errors}" + (f"+{r.filter_errors}f" if r.filter_errors else "")
        lines.append(f"{r.preset:<22} {r.scored:>5} {r.precision:>6.3f} {r.recall:>6.3f} {r.f1:>6.3f} "
                     f"{noise:>8} {r.pages_per_s:>8.1f} {r.median_ms:>7.1f} {r.p95_ms:>7.1f} {errs:>6}")
    lines.append("P, R, F1: mean per-page token scores (R = recall of main text); noise-rm: non-article "
                 "tokens removed; errors: pages that raised (+N f: pages where a filter failed and was undone)")
    return "\n".join(lines)


def cmd_eval(args) -> int:
    from pagesieve import config as C

    overrides = [C.parse_override(o) for o in args.overrides]
    results = evaluate(args.dataset, args.presets or None, config_path=args.config, limit=args.limit,
                       progress=sys.stderr.isatty(), overrides=overrides)
    print(format_table(results))
    if args.json:
        payload = {"dataset": str(args.dataset), "presets": {r.preset: {**r.row(), "per_page": r.per_page}
                                                             for r in results}}
        Path(args.json).write_text(json.dumps(payload, indent=1, ensure_ascii=False), encoding="utf-8")
    return 0


def _positive(value: str) -> int:
    try:
        n = int(value)
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value!r}") from err
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value!r}")
    return n


def add_parser(sub) -> None:
    """The ``eval`` sub-command (called by :mod:`pagesieve.cli`)."""
    p = sub.add_parser("eval", help="score presets against pages with known main text")
    p.add_argument("--config", metavar="FILE", help="configuration file (default: $PAGESIEVE_CONFIG or config.yaml)")
    p.add_argument("--preset", dest="presets", metavar="P", action="append", default=[],
                   help="preset to score (repeatable; default: every preset)")
    p.add_argument("--json", metavar="OUT", help="also write the results, with per-page scores, to this JSON file")
    p.add_argument("--set", dest="overrides", metavar="KEY=VALUE", action="append", default=[],
                   help="override one setting for every preset, e.g. filters.link_density.precise_la=30")
    p.add_argument("--limit", metavar="N", type=_positive, help="score only the first N pages")
    p.add_argument("dataset", metavar="DATASET_DIR", help="a directory with pages/<id>.html and truth.jsonl")
    p.set_defaults(func=cmd_eval)


__all__: list[str] = ["tokens", "prf", "noise_removed", "load_dataset", "evaluate", "run_preset",
                      "format_table", "add_parser", "PresetResult", "Sample"]
