"""``pagesieve eval``: measure presets against pages with known main text.

A dataset is a directory in the format of ``../shared/data/extraction/*/``::

    pages/<id>.html     the page as fetched (bytes)
    truth.jsonl         one {"id", "url", "body", ["meta"]} per line; body = the main text only;
                        lines end at "\n" only (U+2028 inside a JSON string is text)

``pagesieve eval DIR...`` scores every dataset given, or every dataset directly under a directory
(``../shared/data/extraction``), in one table.

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
* **no-lst**: the same without pagesieve's removed-links list (``filters.removed_links``).
* **+noise**: pages whose output holds more non-article tokens than the page (noise removed below 0;
  issue 15: declutter must never add noise). **R-lst**: recall without the removed-links list, the main
  text the filters left on the page itself (the rest only the list gives back).
* **with / w/out** (WCXB ``meta.with`` / ``meta.without``): the share of the snippets that must be kept
  whose words occur, in order, in the output; the share of those that must not be kept that do not.
* **head**: the headline check on article pages (``meta.page_type`` article, or no page type): the
  page's headline (``filters.article.page_headline``: schema.org/og:title, else the heading that says
  what the ``<title>`` says, else its first ``<h1>``)
  is the output's first heading. The headline and byline the reader put first (classes
  ``pagesieve-headline``, ``pagesieve-byline``) are then left out of the scored text, as the title is.
* **by page type**: P, R, F1 per ``meta.page_type``; **page-type detection**: the share of pages
  whose ``pagesieve.analysis.pagetype.detect`` kind, on the page as parsed, is their ``meta.page_type``; and,
  per preset whose chain detects it (``main_content``'s "page-type" note: on the page after
  ``ignore``, the kind the reader acts on), the same share for that detection.
* speed: pages per second over the time spent in parsing, the filters and rendering,
  median and 95th percentile milliseconds per page.
* errors: pages whose processing raised (scored as empty output, P = R = F1 = 0) and pages on
  which a filter failed and was rolled back (``filter_errors``; scored as they came out).

``--compare BEFORE.json`` (a report written earlier with ``--json``) prints, per corpus and preset, the
mean F1 and recall before and now over the pages scored in both, and lists the pages whose F1 or recall
moved by more than ``--moved`` (0.2) either way: a change that lifts a corpus's mean may still break
pages, and a fix for one page should be seen to move that page.

A progress bar goes to stderr only when stderr is a terminal.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import statistics
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from pagesieve.core.errors import InputError

log = logging.getLogger("pagesieve.evaluate")

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
    meta: dict = field(default_factory=dict)


def repair_truth(text: str) -> str | None:
    """The text of a truth stored as UTF-16 bytes read as Latin-1 (it starts with the byte-order
    mark "ÿþ" or "þÿ" and holds NUL characters: two dragnet-dev pages), decoded as UTF-16; None for
    any other text (left as it is)."""
    if not text.startswith(("\xff\xfe", "\xfe\xff")) or "\x00" not in text:
        return None
    try:
        return text.encode("latin-1").decode("utf-16")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return None


def load_dataset(directory: str | Path, limit: int | None = None) -> list[Sample]:
    """The pages of a dataset directory, in ``truth.jsonl`` order (first ``limit`` only if given).

    Raises :class:`InputError` when the directory is not a dataset."""
    directory = Path(directory)
    truth = directory / "truth.jsonl"
    if not truth.is_file():
        raise InputError(f"{directory}: not a dataset (expected pages/<id>.html and truth.jsonl)")
    out = []
    # Lines end at "\n" only: U+2028/U+2029 (and \r, \x85 ...) inside JSON strings are text, which
    # str.splitlines() would cut at.
    for n, line in enumerate(truth.read_bytes().decode("utf-8").split("\n"), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            sample = Sample(id=str(row["id"]), path=directory / "pages" / f"{row['id']}.html",
                            url=row.get("url"), truth=row.get("body") or "",
                            meta=dict(row["meta"]) if isinstance(row.get("meta"), dict) else {})
            repaired = repair_truth(sample.truth)
            if repaired is not None:
                sample.truth, sample.meta["truth_repaired"] = repaired, "utf-16 read as latin-1"
                log.warning("%s: the truth of page %s was UTF-16 stored as Latin-1 text; decoded as UTF-16",
                            truth, sample.id)
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
    noise_removed_no_list: float | None = None
    #: Pages whose output holds more non-content tokens than the page itself (noise removed below 0).
    noisier: int = 0
    #: Recall without the removed-links list: the main text the filters kept on the page itself.
    recall_no_list: float = 0.0
    with_kept: float | None = None
    without_removed: float | None = None
    headline: float | None = None
    headline_pages: int = 0
    pages_per_s: float = 0.0
    median_ms: float = 0.0
    p95_ms: float = 0.0
    errors: int = 0
    filter_errors: int = 0
    by_type: dict[str, dict] = field(default_factory=dict)
    #: The page type as this preset's chain detected it (main_content's "page-type" note) against
    #: ``meta.page_type``: share right, and pages with both (None: the chain detects none).
    chain_pagetype_accuracy: float | None = None
    chain_pagetype_pages: int = 0
    per_page: list[dict] = field(default_factory=list)

    def row(self) -> dict:
        d = asdict(self)
        d.pop("per_page")
        return d


@dataclass
class CorpusResult:
    """Every preset's scores on one dataset, plus the page-type detection's accuracy there."""

    name: str
    pages: int
    presets: list[PresetResult]
    pagetype_accuracy: float | None = None
    pagetype_pages: int = 0
    pagetype_by_type: dict[str, dict] = field(default_factory=dict)


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


def _phrase(text: str) -> str:
    """``text`` as its lower-cased word tokens joined by single spaces, padded (for containment)."""
    return " " + " ".join(_WORD.findall(text.lower())) + " "


def snippet_found(snippet: str, phrase: str) -> bool:
    """True when the words of ``snippet``, in order, occur in ``phrase`` (a :func:`_phrase`).
    A snippet without a word is never found."""
    words = _phrase(snippet)
    return words.strip() != "" and words in phrase


def headline_matches(expected: str, heading: str | None) -> bool:
    """The headline check: the output's first heading says the page's headline (most words in common;
    a site name after the headline in ``og:title`` is allowed: ``filters.article.same_words``)."""
    from pagesieve.analysis.headline import same_words

    return heading is not None and bool(heading) and same_words(expected, heading)


@dataclass
class PageInfo:
    """What the eval measures once per page, before any preset: its text tokens (unfiltered, as the page
    reads without scripts), its headline (from the page's metadata, else its first <h1>) and its detected
    page type."""

    tokens: Counter
    headline: str | None = None
    detected: str | None = None


def page_infos(samples: Iterable[Sample]) -> dict[str, PageInfo]:
    """One :class:`PageInfo` per sample id (pages that do not parse: empty tokens, no headline)."""
    from pagesieve.analysis.headline import page_headline
    from pagesieve.analysis.pagetype import detect
    from pagesieve.engine.document import parse
    from pagesieve.engine.output import OutputSettings, to_text

    text = OutputSettings(format="text", login_forms=True)  # the page as it reads, log-in boxes too
    out = {}
    for s in samples:
        try:
            page = parse(s.path.read_bytes(), url=s.url)
        except (InputError, OSError):
            out[s.id] = PageInfo(Counter())
            continue
        headline = page_headline(page.root)
        detected = detect(page.root, s.url).kind
        # The page as shown without scripts, <noscript> content included: what the proxy serves once
        # `ignore` has removed the scripts, and the page some corpora were annotated on (cleaneval's
        # final-714 holds its whole article in one <noscript>).
        for node in list(page.body.iter("noscript")):
            node.drop_tag()
        out[s.id] = PageInfo(tokens(to_text(page.body, text)), headline.text if headline else None, detected)
    return out


def page_text_tokens(samples: Iterable[Sample]) -> dict[str, Counter]:
    """Tokens of each unfiltered page rendered as text (for "non-article tokens removed")."""
    return {k: v.tokens for k, v in page_infos(samples).items()}


def _first_heading(body) -> str | None:
    from pagesieve.filters.removed_links import SECTION_CLASS

    for el in body.iter("h1", "h2", "h3", "h4", "h5", "h6"):
        if any(SECTION_CLASS in (a.get("class") or "") for a in el.iterancestors()):
            continue
        text = " ".join(el.text_content().split())
        if text:
            return text
    return None


def _drop(body, predicate) -> None:
    for el in [el for el in body.iter() if isinstance(el.tag, str) and predicate(el)]:
        if el.getparent() is not None:
            el.drop_tree()


def _mean(values: list[float]) -> float | None:
    return statistics.fmean(values) if values else None


def run_preset(cfg, preset: str, samples: list[Sample], page_tokens: dict | None = None,
               progress: bool = False, overrides: Sequence[tuple[str, object]] = ()) -> PresetResult:
    """Run ``preset`` (text output, plus ``overrides``) over ``samples`` and score it.
    Per-page errors are counted, never raised. ``page_tokens``: from :func:`page_infos` (or the
    older :func:`page_text_tokens`)."""
    from pagesieve.analysis.headline import BYLINE_CLASS, HEADLINE_CLASS
    from pagesieve.api import Filterer
    from pagesieve.engine import config as C
    from pagesieve.engine.document import parse
    from pagesieve.engine.output import to_text
    from pagesieve.filters.removed_links import SECTION_CLASS

    # The truth is the page's main text without its title: the title pagesieve itself adds (the text
    # output's title line, the accessibility step's title-as-<h1> on pages without a heading, the
    # reader's headline put first) is not extracted content and is left out, the same for every preset.
    added = [("output.text_title", False)]
    if "accessibility" in cfg.presets[preset].get("chain", ()):
        added.append(("accessibility.title_heading", False))
    spec = cfg.resolve(preset, C.overrides_to_tree([*overrides, ("output.format", "text"), *added]))
    chain = Filterer.for_spec(spec).chain  # the public API's object, as the CLI uses it
    res = PresetResult(preset=preset, pages=len(samples))
    times: list[float] = []
    ps, rs, fs, noise, noise_nl, heads, rs_nl = [], [], [], [], [], [], []
    with_kept = with_all = without_removed = without_all = 0
    per_type: dict[str, list[tuple[float, float, float]]] = {}
    bar = _Progress(preset, len(samples), progress)
    for i, s in enumerate(samples, 1):
        truth = tokens(s.truth)
        info = page_tokens.get(s.id) if page_tokens is not None else None
        if isinstance(info, Counter):
            info = PageInfo(info)
        page: dict = {"id": s.id}
        if s.meta.get("page_type"):
            page["type"] = s.meta["page_type"]
        t0 = time.perf_counter()
        heading = None
        text = text_no_list = ""
        try:
            doc = parse(s.path.read_bytes(), url=s.url)
            state, stats = chain.run(doc)
            detected = next((e["kind"] for e in state.record if e.get("action") == "page-type" and "kind" in e), None)
            if detected:
                page["detected"] = detected
            failed = [f["filter"] for f in stats if f["status"] == "error"]
            if failed:
                res.filter_errors += 1
                page["failed"] = failed
            body = doc.body
            heading = _first_heading(body)
            _drop(body, lambda el: bool({HEADLINE_CLASS, BYLINE_CLASS} & set((el.get("class") or "").split())))
            text = to_text(body, chain.output)
            _drop(body, lambda el: SECTION_CLASS in (el.get("class") or "").split())
            text_no_list = to_text(body, chain.output)
        except Exception as err:  # noqa: BLE001 - one bad page never stops the run; counted
            res.errors += 1
            page["error"] = f"{type(err).__name__}: {err}"
        ms = (time.perf_counter() - t0) * 1000
        times.append(ms)
        page["ms"] = round(ms, 2)
        if truth:
            out = tokens(text)
            p, r, f = prf(out, truth)
            ps.append(p)
            rs.append(r)
            fs.append(f)
            page.update(p=round(p, 4), r=round(r, 4), f1=round(f, 4))
            r_nl = r
            if text_no_list != text:  # the main text only the removed-links list gave back
                r_nl = prf(tokens(text_no_list), truth)[1]
                page["r_no_list"] = round(r_nl, 4)
            rs_nl.append(r_nl)
            if "type" in page:
                per_type.setdefault(page["type"], []).append((p, r, f))
            if info is not None:
                nr = noise_removed(out, info.tokens, truth)
                if nr is not None:
                    noise.append(nr)
                    page["noise_removed"] = round(nr, 4)
                    nr2 = noise_removed(tokens(text_no_list), info.tokens, truth)
                    if nr2 is not None:  # never None when nr is not: same page and truth
                        noise_nl.append(nr2)
                        page["noise_removed_no_list"] = round(nr2, 4)
        if info is not None and info.headline and s.meta.get("page_type", "article") == "article":
            ok = headline_matches(info.headline, heading)
            heads.append(ok)
            page.update(headline=ok, first_heading=heading)
        phrase = _phrase(text)
        kept = [snippet_found(x, phrase) for x in s.meta.get("with") or () if isinstance(x, str)]
        gone = [not snippet_found(x, phrase) for x in s.meta.get("without") or () if isinstance(x, str)]
        with_kept, with_all = with_kept + sum(kept), with_all + len(kept)
        without_removed, without_all = without_removed + sum(gone), without_all + len(gone)
        if kept or gone:
            page.update(with_kept=sum(kept), with_all=len(kept), without_removed=sum(gone), without_all=len(gone))
        res.per_page.append(page)
        bar.step(i)
    bar.close()
    res.scored = len(fs)
    if fs:
        res.precision, res.recall, res.f1, res.recall_no_list = (statistics.fmean(x) for x in (ps, rs, fs, rs_nl))
    res.noise_removed, res.noise_removed_no_list = _mean(noise), _mean(noise_nl)
    res.noisier = sum(n < 0 for n in noise)
    res.with_kept = with_kept / with_all if with_all else None
    res.without_removed = without_removed / without_all if without_all else None
    res.headline, res.headline_pages = _mean([float(h) for h in heads]), len(heads)
    judged = [p["type"] == p["detected"] for p in res.per_page if "type" in p and "detected" in p]
    if judged:
        res.chain_pagetype_accuracy, res.chain_pagetype_pages = sum(judged) / len(judged), len(judged)
    res.by_type = {t: {"pages": len(v), "precision": statistics.fmean(x[0] for x in v),
                       "recall": statistics.fmean(x[1] for x in v), "f1": statistics.fmean(x[2] for x in v)}
                   for t, v in sorted(per_type.items())}
    total_s = sum(times) / 1000
    res.pages_per_s = len(times) / total_s if total_s else 0.0
    res.median_ms = statistics.median(times) if times else 0.0
    res.p95_ms = _percentile(times, 0.95)
    return res


def _check(cfg, names: list[str], overrides) -> None:
    from pagesieve.engine import config as C

    for name in names:
        cfg.resolve(name, C.overrides_to_tree(overrides))  # bad preset or override: ConfigError naming the available ones, before any work


def evaluate(dataset: str | Path, presets: list[str] | None = None, *, config_path: str | None = None,
             limit: int | None = None, progress: bool = False, samples: list[Sample] | None = None,
             overrides: Sequence[tuple[str, object]] = ()) -> list[PresetResult]:
    """Score ``presets`` (default: every preset of the config) on a dataset."""
    return evaluate_corpus(dataset, presets, config_path=config_path, limit=limit, progress=progress,
                           samples=samples, overrides=overrides).presets


def evaluate_corpus(dataset: str | Path, presets: list[str] | None = None, *, config_path: str | None = None,
                    limit: int | None = None, progress: bool = False, samples: list[Sample] | None = None,
                    overrides: Sequence[tuple[str, object]] = (), cfg=None) -> CorpusResult:
    """Score ``presets`` on one dataset, and the page-type detection against ``meta.page_type``."""
    from pagesieve.engine import config as C

    cfg = cfg or C.load(config_path)
    names = list(presets or cfg.presets)
    _check(cfg, names, overrides)
    if samples is None:
        samples = load_dataset(dataset, limit)
    infos = page_infos(samples)
    result = CorpusResult(Path(dataset).name, len(samples),
                          [run_preset(cfg, name, samples, infos, progress, overrides) for name in names])
    typed = [(s.meta["page_type"], infos[s.id].detected) for s in samples if s.meta.get("page_type")]
    if typed:
        result.pagetype_pages = len(typed)
        result.pagetype_accuracy = sum(a == b for a, b in typed) / len(typed)
        for truth_type in sorted({a for a, _ in typed}):
            got = Counter(b for a, b in typed if a == truth_type)
            result.pagetype_by_type[truth_type] = {"pages": sum(got.values()),
                                                   "accuracy": got[truth_type] / sum(got.values()),
                                                   "detected": dict(got.most_common())}
    return result


def datasets_in(path: str | Path) -> list[Path]:
    """``path`` itself when it is a dataset, else the datasets directly under it (sorted)."""
    path = Path(path)
    if (path / "truth.jsonl").is_file():
        return [path]
    found = sorted(p for p in path.iterdir() if (p / "truth.jsonl").is_file()) if path.is_dir() else []
    if not found:
        raise InputError(f"{path}: not a dataset (expected pages/<id>.html and truth.jsonl) and holds none")
    return found


def _fmt(x: float | None, width: int = 6) -> str:
    return f"{x:>{width}.3f}" if x is not None else f"{'-':>{width}}"


def format_table(results: list[PresetResult], corpus: str | None = None) -> str:
    """A plain-text table of the results, one row per preset (see :func:`format_corpora`)."""
    return format_corpora([CorpusResult(corpus or "", 0, results)], breakdown=False)


def format_corpora(corpora: list[CorpusResult], breakdown: bool = True) -> str:
    """One table: a row per corpus and preset; then per page type, and the page-type accuracy."""
    head = (f"{'corpus':<16} {'preset':<20} {'pages':>5} {'P':>6} {'R':>6} {'F1':>6} {'noise':>6} {'no-lst':>6} "
            f"{'+noise':>6} {'R-lst':>6} {'with':>6} {'w/out':>6} {'head':>6} {'pages/s':>7} {'p95 ms':>7} {'errors':>6}")
    lines = [head, "-" * len(head)]
    for c in corpora:
        for r in c.presets:
            errs = f"{r.errors}" + (f"+{r.filter_errors}f" if r.filter_errors else "")
            lines.append(f"{c.name[:16]:<16} {r.preset[:20]:<20} {r.scored:>5} {r.precision:>6.3f} {r.recall:>6.3f} "
                         f"{r.f1:>6.3f} {_fmt(r.noise_removed)} {_fmt(r.noise_removed_no_list)} {r.noisier:>6} "
                         f"{r.recall_no_list:>6.3f} {_fmt(r.with_kept)} "
                         f"{_fmt(r.without_removed)} {_fmt(r.headline)} {r.pages_per_s:>7.1f} {r.p95_ms:>7.1f} "
                         f"{errs:>6}")
    lines.append("P, R, F1: mean per-page token scores (R = recall of main text); noise: non-article tokens removed "
                 "(no-lst: without the removed-links list); +noise: pages whose output holds more non-article tokens than the "
                 "page; R-lst: recall without the removed-links list; with / w/out: WCXB snippets kept / removed; head: "
                 "headline check on article pages; errors: pages that raised (+N f: a filter failed and was undone)")
    if breakdown and any(r.by_type for c in corpora for r in c.presets):
        lines += ["", f"{'corpus':<16} {'preset':<20} {'page_type':<14} {'pages':>5} {'P':>6} {'R':>6} {'F1':>6}"]
        for c in corpora:
            for r in c.presets:
                for t, v in r.by_type.items():
                    lines.append(f"{c.name[:16]:<16} {r.preset[:20]:<20} {t:<14} {v['pages']:>5} "
                                 f"{v['precision']:>6.3f} {v['recall']:>6.3f} {v['f1']:>6.3f}")
    for c in corpora:
        if breakdown and c.pagetype_accuracy is not None:
            lines.append("")
            lines.append(f"page-type detection on {c.name}: {c.pagetype_accuracy:.3f} of {c.pagetype_pages} pages")
            for t, v in c.pagetype_by_type.items():
                lines.append(f"  {t:<14} {v['accuracy']:.3f} of {v['pages']:>3}  detected as {v['detected']}")
            for r in c.presets:
                if r.chain_pagetype_accuracy is not None:
                    lines.append(f"  as {r.preset}'s chain detects it (after ignore; what main_content acts on): "
                                 f"{r.chain_pagetype_accuracy:.3f} of {r.chain_pagetype_pages} pages")
    return "\n".join(lines)


#: ``pagesieve eval --compare``: a page is listed when its F1 or recall moved by more than this, either way
#: (a page that changed its kept block, not one that gained or lost a line).
MOVED = 0.2


@dataclass
class Moved:
    """One page whose F1 or recall moved by more than the bound between two eval reports."""

    id: str
    f1_before: float
    f1_after: float
    r_before: float
    r_after: float
    type: str | None = None


@dataclass
class Comparison:
    """One corpus and preset of a report against an earlier one: the means over the pages scored in
    both, and the pages that moved. ``found`` False: the earlier report has no such corpus and preset."""

    corpus: str
    preset: str
    found: bool = False
    pages: int = 0
    f1_before: float | None = None
    f1_after: float | None = None
    r_before: float | None = None
    r_after: float | None = None
    moved: list[Moved] = field(default_factory=list)


def report_runs(report: Any, source: str = "report") -> dict[tuple[str, str], list[dict]]:
    """The per-page scores of an eval JSON report (``pagesieve eval --json``, one dataset or several),
    keyed by (corpus folder name, preset). :class:`InputError` when ``report`` is not one."""
    datasets = report.get("datasets") if isinstance(report, dict) else None
    if isinstance(report, dict) and not isinstance(datasets, dict) and isinstance(report.get("presets"), dict):
        datasets = {str(report.get("dataset") or ""): {"presets": report["presets"]}}  # the single-dataset shape
    if not isinstance(datasets, dict):
        raise InputError(f"{source}: not an eval report (pagesieve eval --json): no datasets or presets")
    out = {}
    for path, body in datasets.items():
        presets = body.get("presets") if isinstance(body, dict) else None
        if not isinstance(presets, dict):
            raise InputError(f"{source}: dataset {path!r} has no presets")
        for preset, result in presets.items():
            pages = result.get("per_page") if isinstance(result, dict) else None
            if not isinstance(pages, list):
                raise InputError(f"{source}: {path} / {preset} has no per-page scores (written by an older eval?)")
            out[(Path(path).name, str(preset))] = [p for p in pages if isinstance(p, dict) and "id" in p]
    return out


def load_report(path: str | Path) -> dict[tuple[str, str], list[dict]]:
    """:func:`report_runs` of the JSON file at ``path``; :class:`InputError` naming the file when it
    cannot be read or is not an eval report."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as err:
        raise InputError(f"cannot read {path}: {err.strerror or err}") from err
    except ValueError as err:
        raise InputError(f"{path}: not JSON ({err})") from err
    return report_runs(data, str(path))


def compare_runs(before: dict[tuple[str, str], list[dict]], after: dict[tuple[str, str], list[dict]],
                 moved: float = MOVED) -> list[Comparison]:
    """Per corpus and preset of ``after`` (:func:`report_runs` shapes): the mean F1 and recall over the
    pages scored in both reports, and the pages whose F1 or recall moved by more than ``moved`` either
    way, the largest F1 change first. A page scored in one report only is not compared."""
    out = []
    for (corpus, preset), pages in after.items():
        c = Comparison(corpus, preset)
        out.append(c)
        old = before.get((corpus, preset))
        if old is None:
            continue
        c.found = True
        old_by_id = {str(p["id"]): p for p in old if "f1" in p}
        both = [(old_by_id[str(p["id"])], p) for p in pages if "f1" in p and str(p["id"]) in old_by_id]
        c.pages = len(both)
        if both:
            c.f1_before = statistics.fmean(a["f1"] for a, _ in both)
            c.f1_after = statistics.fmean(b["f1"] for _, b in both)
            c.r_before = statistics.fmean(a["r"] for a, _ in both)
            c.r_after = statistics.fmean(b["r"] for _, b in both)
        c.moved = [Moved(str(b["id"]), a["f1"], b["f1"], a["r"], b["r"], b.get("type"))
                   for a, b in both if abs(b["f1"] - a["f1"]) > moved or abs(b["r"] - a["r"]) > moved]
        c.moved.sort(key=lambda m: (-abs(m.f1_after - m.f1_before), m.id))
    return out


def format_comparison(comparisons: list[Comparison], source: str, moved: float = MOVED) -> str:
    """The table of :func:`compare_runs`: a row per corpus and preset, then its moved pages."""
    def d(a: float | None, b: float | None) -> str:
        return f"{b - a:>+8.4f}" if a is not None and b is not None else f"{'-':>8}"

    head = (f"{'corpus':<16} {'preset':<20} {'pages':>5} {'F1 before':>9} {'after':>7} {'change':>8} "
            f"{'R before':>8} {'after':>7} {'change':>8} {'moved':>5}")
    lines = [f"against {source} (pages scored in both; moved: F1 or recall changed by more than {moved:g})",
             head, "-" * len(head)]
    for c in comparisons:
        if c.f1_before is None or c.f1_after is None or c.r_before is None or c.r_after is None:
            lines.append(f"{c.corpus[:16]:<16} {c.preset[:20]:<20} "
                         + ("no page scored in both" if c.found else f"not in {source}"))
            continue
        lines.append(f"{c.corpus[:16]:<16} {c.preset[:20]:<20} {c.pages:>5} {c.f1_before:>9.4f} {c.f1_after:>7.4f} "
                     f"{d(c.f1_before, c.f1_after)} {c.r_before:>8.4f} {c.r_after:>7.4f} {d(c.r_before, c.r_after)} "
                     f"{len(c.moved):>5}")
    for c in comparisons:
        if c.moved:
            lines += ["", f"{c.corpus} / {c.preset}: {len(c.moved)} page(s) moved"]
            for m in c.moved:
                kind = f"  ({m.type})" if m.type else ""
                lines.append(f"  {m.id[:40]:<40} F1 {m.f1_before:.3f} -> {m.f1_after:.3f}  "
                             f"R {m.r_before:.3f} -> {m.r_after:.3f}{kind}")
    return "\n".join(lines)


def cmd_eval(args) -> int:
    from pagesieve.engine import config as C

    overrides = [C.parse_override(o) for o in args.overrides]
    cfg = C.load(args.config)
    names = list(args.presets or cfg.presets)
    _check(cfg, names, overrides)
    dirs = [d for given in args.dataset for d in datasets_in(given)]
    before = load_report(args.compare) if args.compare else None  # a bad report fails before any work
    corpora = [evaluate_corpus(d, names, limit=args.limit, progress=sys.stderr.isatty(), overrides=overrides, cfg=cfg)
               for d in dirs]
    print(format_corpora(corpora))
    if before is not None:
        after = {(c.name, r.preset): r.per_page for c in corpora for r in c.presets}
        print()
        print(format_comparison(compare_runs(before, after, args.moved), args.compare, args.moved))
    if args.json:
        payload: dict[str, Any] = {"datasets": {str(d): {"pagetype_accuracy": c.pagetype_accuracy,
                                         "pagetype_by_type": c.pagetype_by_type,
                                         "presets": {r.preset: {**r.row(), "per_page": r.per_page}
                                                     for r in c.presets}}
                                for d, c in zip(dirs, corpora)}}
        if len(corpora) == 1:  # the single-dataset shape of earlier versions stays readable
            payload.update(dataset=str(dirs[0]), presets=payload["datasets"][str(dirs[0])]["presets"])
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


def _share(value: str) -> float:
    try:
        x = float(value)
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, got {value!r}") from err
    if not 0 <= x <= 1:
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, got {value!r}")
    return x


def add_parser(sub) -> None:
    """The ``eval`` sub-command (called by :mod:`pagesieve.cli`)."""
    p = sub.add_parser("eval", help="score presets against pages with known main text")
    p.add_argument("--preset", dest="presets", metavar="P", action="append", default=[],
                   help="preset to score (repeatable; default: every preset)")
    p.add_argument("--json", metavar="OUT", help="also write the results, with per-page scores, to this JSON file")
    p.add_argument("--set", dest="overrides", metavar="KEY=VALUE", action="append", default=[],
                   help="override one setting for every preset, e.g. filters.link_density.precise_la=30")
    p.add_argument("--limit", metavar="N", type=_positive, help="score only the first N pages of each dataset")
    p.add_argument("--compare", metavar="BEFORE.json",
                   help="an earlier report of --json: print the change of F1 and recall per corpus and preset "
                        "and list the pages that moved")
    p.add_argument("--moved", metavar="D", type=_share, default=MOVED,
                   help=f"with --compare: list a page when its F1 or recall moved by more than D (default {MOVED})")
    p.add_argument("dataset", metavar="DATASET_DIR", nargs="+",
                   help="a directory with pages/<id>.html and truth.jsonl, or a directory of such directories "
                        "(every corpus in one table)")
    p.set_defaults(func=cmd_eval)


__all__: list[str] = ["tokens", "prf", "noise_removed", "load_dataset", "evaluate", "evaluate_corpus", "run_preset",
                      "format_table", "format_corpora", "datasets_in", "snippet_found", "headline_matches",
                      "add_parser", "PresetResult", "CorpusResult", "Sample", "report_runs", "load_report",
                      "compare_runs", "format_comparison", "Comparison", "Moved", "MOVED"]
