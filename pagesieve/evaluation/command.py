"""``pagesieve eval``, the sub-command: parse its options, score the datasets, print the tables, write
the JSON report (see :mod:`pagesieve.evaluation`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pagesieve.evaluation.datasets import datasets_in
from pagesieve.evaluation.report import MOVED, compare_runs, format_comparison, format_corpora, load_report
from pagesieve.evaluation.runner import check_presets, evaluate_corpus


def cmd_eval(args) -> int:
    from pagesieve.engine import config as C

    overrides = [C.parse_override(o) for o in args.overrides]
    cfg = C.load(args.config)
    names = list(args.presets or cfg.presets)
    check_presets(cfg, names, overrides)
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
