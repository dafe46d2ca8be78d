"""The gap table: a preset against the best peer, per corpus and per page type, from two JSON reports.

    .venv/bin/pagesieve eval --preset declutter --preset reader --json eval.json ../shared/data/extraction
    .venv/bin/python benchmarks/bench_peers.py --json peers.json
    .venv/bin/python benchmarks/peer_gap.py eval.json peers.json [--preset reader] [--recall-preset declutter]

For every corpus of the eval report (and every ``meta.page_type`` of a corpus that has them): the peer
with the highest mean F1 there, its F1, the preset's F1 and the difference (``ok`` when the preset is
at least as good); then the recall of ``--recall-preset`` against the 0.99 floor. Both reports must
score the same pages (same corpora, same metric: ``pagesieve.evaluation.metrics.prf``); nothing is re-measured.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def _corpus(key: str) -> str:
    return Path(key).name


def rows(eval_report: dict, peers: dict, preset: str) -> list[tuple[str, str, str, float, float]]:
    """(corpus, page type or '', best peer, its F1, the preset's F1) for every corpus and type."""
    out = []
    for key, data in sorted(eval_report["datasets"].items(), key=lambda kv: _corpus(kv[0])):
        name = _corpus(key)
        mine = data["presets"].get(preset)
        theirs = peers.get(name)
        if mine is None or not theirs:
            continue
        best = max(theirs, key=lambda p: theirs[p]["f1"])
        out.append((name, "", best, theirs[best]["f1"], mine["f1"]))
        for t, v in sorted((mine.get("by_type") or {}).items()):
            f1 = v["f1"] if isinstance(v, dict) else v
            typed = {p: theirs[p]["by_type"][t] for p in theirs if t in theirs[p].get("by_type", {})}
            if typed:
                best_t = max(typed, key=typed.__getitem__)
                out.append((name, t, best_t, typed[best_t], f1))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("eval_json")
    ap.add_argument("peers_json")
    ap.add_argument("--preset", default="reader")
    ap.add_argument("--recall-preset", default="declutter")
    args = ap.parse_args(argv)
    try:
        report = json.loads(Path(args.eval_json).read_text(encoding="utf-8"))
        peers = json.loads(Path(args.peers_json).read_text(encoding="utf-8"))
        table = rows(report, peers, args.preset)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as err:
        print(f"peer_gap: cannot read the reports ({args.eval_json}, {args.peers_json}): "
              f"{type(err).__name__}: {err}", file=sys.stderr)
        return 2
    print(f"{'corpus':<16} {'page_type':<14} {'best peer':<20} {'F1':>6} {args.preset:>10} {'diff':>7}")
    behind = 0
    for corpus, kind, peer, theirs, mine in table:
        verdict = "ok" if mine >= theirs else "behind"
        behind += verdict == "behind"
        print(f"{corpus:<16} {kind or '(all)':<14} {peer:<20} {theirs:>6.3f} {mine:>10.3f} {mine - theirs:>+7.3f} {verdict}")
    print(f"\n{behind} row(s) behind the best peer")
    print(f"\n{'corpus':<16} {args.recall_preset + ' recall':>18}  (floor 0.99)")
    for key, data in sorted(report["datasets"].items(), key=lambda kv: _corpus(kv[0])):
        mine = data["presets"].get(args.recall_preset)
        if mine is not None:
            print(f"{_corpus(key):<16} {mine['recall']:>18.3f}  {'ok' if mine['recall'] >= 0.99 else 'under'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
