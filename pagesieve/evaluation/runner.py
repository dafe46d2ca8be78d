"""The eval's runs: every preset over a dataset's pages, each page's output scored against its truth
(:func:`run_preset`), and the page-type detection against ``meta.page_type`` (:func:`evaluate_corpus`)."""

from __future__ import annotations

import statistics
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Sequence

from pagesieve.core import dom
from pagesieve.evaluation.datasets import PageInfo, Sample, load_dataset, page_infos
from pagesieve.evaluation.metrics import (
    headline_matches,
    noise_removed,
    percentile,
    prf,
    snippet_found,
    tokens,
    word_phrase,
)


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


def _first_heading(body) -> str | None:
    from pagesieve.filters.removed_links import SECTION_CLASS

    for el in body.iter(*dom.HEADINGS):
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


@dataclass
class _Scores:
    """What :func:`run_preset` gathers over the pages of one preset, summed up at the end (:meth:`into`)."""

    times: list[float] = field(default_factory=list)
    ps: list[float] = field(default_factory=list)
    rs: list[float] = field(default_factory=list)
    fs: list[float] = field(default_factory=list)
    noise: list[float] = field(default_factory=list)
    noise_nl: list[float] = field(default_factory=list)
    heads: list[bool] = field(default_factory=list)
    rs_nl: list[float] = field(default_factory=list)
    with_kept: int = 0
    with_all: int = 0
    without_removed: int = 0
    without_all: int = 0
    per_type: dict[str, list[tuple[float, float, float]]] = field(default_factory=dict)

    def into(self, res: PresetResult) -> None:
        """Set the means, shares and speed figures of ``res`` (its pages already listed)."""
        res.scored = len(self.fs)
        if self.fs:
            res.precision, res.recall, res.f1, res.recall_no_list = (
                statistics.fmean(x) for x in (self.ps, self.rs, self.fs, self.rs_nl))
        res.noise_removed, res.noise_removed_no_list = _mean(self.noise), _mean(self.noise_nl)
        res.noisier = sum(n < 0 for n in self.noise)
        res.with_kept = self.with_kept / self.with_all if self.with_all else None
        res.without_removed = self.without_removed / self.without_all if self.without_all else None
        res.headline, res.headline_pages = _mean([float(h) for h in self.heads]), len(self.heads)
        judged = [p["type"] == p["detected"] for p in res.per_page if "type" in p and "detected" in p]
        if judged:
            res.chain_pagetype_accuracy, res.chain_pagetype_pages = sum(judged) / len(judged), len(judged)
        res.by_type = {t: {"pages": len(v), "precision": statistics.fmean(x[0] for x in v),
                           "recall": statistics.fmean(x[1] for x in v), "f1": statistics.fmean(x[2] for x in v)}
                       for t, v in sorted(self.per_type.items())}
        times = self.times
        total_s = sum(times) / 1000
        res.pages_per_s = len(times) / total_s if total_s else 0.0
        res.median_ms = statistics.median(times) if times else 0.0
        res.p95_ms = percentile(times, 0.95)


def run_preset(cfg, preset: str, samples: list[Sample], page_tokens: dict | None = None,
               progress: bool = False, overrides: Sequence[tuple[str, object]] = ()) -> PresetResult:
    """Run ``preset`` (text output, plus ``overrides``) over ``samples`` and score it.
    Per-page errors are counted, never raised. ``page_tokens``: from :func:`page_infos` (a
    :class:`~collections.Counter` of the page's tokens in place of a :class:`PageInfo` is read as one)."""
    chain = _text_chain(cfg, preset, overrides)
    res = PresetResult(preset=preset, pages=len(samples))
    scores = _Scores()
    bar = _Progress(preset, len(samples), progress)
    for i, s in enumerate(samples, 1):
        info = page_tokens.get(s.id) if page_tokens is not None else None
        if isinstance(info, Counter):
            info = PageInfo(info)
        page: dict = {"id": s.id}
        if s.meta.get("page_type"):
            page["type"] = s.meta["page_type"]
        t0 = time.perf_counter()
        text, text_no_list, heading = _run_page(chain, s, res, page)
        ms = (time.perf_counter() - t0) * 1000
        scores.times.append(ms)
        page["ms"] = round(ms, 2)
        _score_page(s, info, page, scores, text, text_no_list, heading)
        res.per_page.append(page)
        bar.step(i)
    bar.close()
    scores.into(res)
    return res


def _text_chain(cfg, preset: str, overrides: Sequence[tuple[str, object]]):
    """The chain of ``preset`` with text output and ``overrides``, the title pagesieve adds left out."""
    from pagesieve.api import Filterer
    from pagesieve.engine import config as C

    # The truth is the page's main text without its title: the title pagesieve itself adds (the text
    # output's title line, the accessibility step's title-as-<h1> on pages without a heading, the
    # reader's headline put first) is not extracted content and is left out, the same for every preset.
    added = [("output.text_title", False)]
    if "accessibility" in cfg.presets[preset].get("chain", ()):
        added.append(("accessibility.title_heading", False))
    spec = cfg.resolve(preset, C.overrides_to_tree([*overrides, ("output.format", "text"), *added]))
    return Filterer.for_spec(spec).chain  # the public API's object, as the CLI uses it


def _run_page(chain, s: Sample, res: PresetResult, page: dict) -> tuple[str, str, str | None]:
    """Run ``chain`` over the page of ``s``: its text output, the same without the removed-links list,
    and its first heading. A page that raises counts in ``res.errors`` (empty output); ``page`` (its
    per-page entry) gets the detected page type, the failed filters or the error."""
    from pagesieve.analysis.headline import BYLINE_CLASS, HEADLINE_CLASS
    from pagesieve.engine.document import parse
    from pagesieve.engine.output import to_text
    from pagesieve.filters.removed_links import SECTION_CLASS

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
    return text, text_no_list, heading


def _score_page(s: Sample, info: PageInfo | None, page: dict, scores: _Scores, text: str, text_no_list: str,
                heading: str | None) -> None:
    """Score one page's output against its truth, its headline and its snippets, into ``scores`` and
    its per-page entry ``page``."""
    truth = tokens(s.truth)
    if truth:
        out = tokens(text)
        p, r, f = prf(out, truth)
        scores.ps.append(p)
        scores.rs.append(r)
        scores.fs.append(f)
        page.update(p=round(p, 4), r=round(r, 4), f1=round(f, 4))
        r_nl = r
        if text_no_list != text:  # the main text only the removed-links list gave back
            r_nl = prf(tokens(text_no_list), truth)[1]
            page["r_no_list"] = round(r_nl, 4)
        scores.rs_nl.append(r_nl)
        if "type" in page:
            scores.per_type.setdefault(page["type"], []).append((p, r, f))
        if info is not None:
            nr = noise_removed(out, info.tokens, truth)
            if nr is not None:
                scores.noise.append(nr)
                page["noise_removed"] = round(nr, 4)
                nr2 = noise_removed(tokens(text_no_list), info.tokens, truth)
                if nr2 is not None:  # never None when nr is not: same page and truth
                    scores.noise_nl.append(nr2)
                    page["noise_removed_no_list"] = round(nr2, 4)
    if info is not None and info.headline and s.meta.get("page_type", "article") == "article":
        ok = headline_matches(info.headline, heading)
        scores.heads.append(ok)
        page.update(headline=ok, first_heading=heading)
    said = word_phrase(text)
    kept = [snippet_found(x, said) for x in s.meta.get("with") or () if isinstance(x, str)]
    gone = [not snippet_found(x, said) for x in s.meta.get("without") or () if isinstance(x, str)]
    scores.with_kept, scores.with_all = scores.with_kept + sum(kept), scores.with_all + len(kept)
    scores.without_removed, scores.without_all = scores.without_removed + sum(gone), scores.without_all + len(gone)
    if kept or gone:
        page.update(with_kept=sum(kept), with_all=len(kept), without_removed=sum(gone), without_all=len(gone))


def check_presets(cfg, names: list[str], overrides) -> None:
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
    check_presets(cfg, names, overrides)
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
