"""The eval's tables: one row per corpus and preset (then per page type, and the page-type
detection), and a report against an earlier one (``--compare``): the change of F1 and recall, and the
pages that moved."""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pagesieve.core.errors import InputError
from pagesieve.evaluation.runner import CorpusResult


def _fmt(x: float | None, width: int = 6) -> str:
    return f"{x:>{width}.3f}" if x is not None else f"{'-':>{width}}"


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
