"""What each of the reader's rules earns: its F1 per corpus with that one rule off, against all rules on.

    .venv/bin/python benchmarks/ablation.py ../shared/data/extraction [--jobs 2] [--json OUT] [--rule NAME ...]

A rule is one step of the reader's content choice (``main_content``): a widening rule that replaces the
choice in a case it recognises, a clean-up step inside the kept blocks, a setting that switches a part on,
or the chain's guard that undoes a filter which removed most of the page. Each is turned off alone (a
setting by its value, a step by leaving it out of the run), the reader's text output scored as
``pagesieve eval`` scores it (token F1 against each corpus's truth), and the table prints, per corpus,
the F1 with every rule on and the change with each rule off: a negative change is what the rule earns
there; a rule whose changes are all near zero or positive no longer earns its keep.

Every page of every corpus under the given folder is run once per rule; one rule takes about as long
as ``pagesieve eval --preset reader`` (three minutes on the six corpora of the project, one core).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pagesieve.engine import config as C  # noqa: E402
from pagesieve.evaluation.datasets import load_dataset, page_infos  # noqa: E402
from pagesieve.evaluation.runner import run_preset  # noqa: E402
from pagesieve.filters.main_content import cleanup, widening  # noqa: E402
from pagesieve.filters.main_content import filter as main_filter  # noqa: E402

PRESET = "reader"

#: Rules turned off by a setting: name -> (the setting, its value when off, what the rule does).
SETTINGS = {
    "cousins": ("filters.main_content.cousins", False, "keep blocks elsewhere that look like the chosen one"),
    "clean-up": ("filters.main_content.clean", False, "remove bylines, share bars, related lists inside the choice"),
    "captions": ("filters.main_content.captions", False, "remove captions, credits and galleries inside the choice"),
    "headline": ("filters.main_content.headline", False, "start with the page's headline and byline"),
    "class-names": ("filters.main_content.class_weight", 0, "score blocks by what their class and id names say"),
    "loss-guard": ("safety.max_article_loss", 1.0, "undo a filter that removed most of the page's text"),
}

#: Rules turned off by leaving a step out: name -> (module, attribute, its stand-in, what the rule does).
STEPS = {
    "first-pass-story": (main_filter, "comment_thread", lambda *a, **k: False,
                         "keep the first pass's short story when the second chose a comment"),
    "tab-panels": (cleanup, "reveal_tab_panels", lambda *a, **k: None, "show the hidden panels of kept tabs"),
    "copies": (cleanup, "drop_copies", lambda *a, **k: None, "drop a kept block that repeats one above it"),
}


def rules() -> dict[str, str]:
    """Every rule's name and what it does: the widening rules in their order, then the steps and settings."""
    out = {f"widen:{w.__name__}": _first_sentence(w.__doc__ or "") for w in widening.WIDENINGS}
    out |= {name: v[-1] for name, v in STEPS.items()}
    out |= {name: v[-1] for name, v in SETTINGS.items()}
    return out


def _first_sentence(doc: str) -> str:
    text = " ".join(doc.split())
    if text.startswith("*") and ":" in text:  # "*rule name*: what it does"
        text = text.split(":", 1)[1].strip()
    return text.split(". ")[0][:110]


@contextlib.contextmanager
def off(rule: str) -> Iterator[list[tuple[str, object]]]:
    """Within the block, ``rule`` is off; yields the setting overrides that turn it off (none for a step)."""
    if rule == "all-on":
        yield []
    elif rule in SETTINGS:
        key, value, _ = SETTINGS[rule]
        yield [(key, value)]
    elif rule in STEPS:
        module, attr, stand_in, _ = STEPS[rule]
        saved = getattr(module, attr)
        setattr(module, attr, stand_in)
        try:
            yield []
        finally:
            setattr(module, attr, saved)
    elif rule.startswith("widen:"):
        name = rule.split(":", 1)[1]
        saved = main_filter.WIDENINGS
        main_filter.WIDENINGS = tuple(w for w in saved if w.__name__ != name)
        if len(main_filter.WIDENINGS) == len(saved):
            raise SystemExit(f"no widening rule named {name!r}")
        try:
            yield []
        finally:
            main_filter.WIDENINGS = saved
    else:
        raise SystemExit(f"unknown rule {rule!r}; known: all-on, {', '.join(rules())}")


_CORPORA: dict[str, tuple[list, dict]] = {}


def _run(task: tuple[str, str]) -> tuple[str, str, float, float]:
    """One rule off over one corpus: (rule, corpus, mean F1, seconds)."""
    rule, corpus = task
    samples, infos = _CORPORA[corpus]
    t0 = time.perf_counter()
    with off(rule) as overrides:
        res = run_preset(C.load(), PRESET, samples, infos, overrides=overrides)
    return rule, corpus, float(res.f1 or 0.0), time.perf_counter() - t0


def corpora(folder: Path) -> list[Path]:
    """``folder`` itself when it is a corpus, else the corpora directly under it."""
    if (folder / "truth.jsonl").exists():
        return [folder]
    found = sorted(p for p in folder.iterdir() if (p / "truth.jsonl").exists()) if folder.is_dir() else []
    if not found:
        raise SystemExit(f"{folder}: not a corpus (pages/ and truth.jsonl) nor a folder of corpora")
    return found


def table(results: dict[tuple[str, str], float], names: list[str], order: list[str]) -> str:
    width = max(len(r) for r in order)
    lines = [f"{'rule off':<{width}}  " + "  ".join(f"{n[:13]:>13}" for n in names)]
    lines.append(f"{'(all on: F1)':<{width}}  " + "  ".join(f"{results[('all-on', n)]:>13.4f}" for n in names))
    for rule in order:
        if rule == "all-on":
            continue
        cells = [f"{results[(rule, n)] - results[('all-on', n)]:>+13.4f}" for n in names]
        lines.append(f"{rule:<{width}}  " + "  ".join(cells))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path, help="a corpus, or a folder of corpora")
    ap.add_argument("--rule", action="append", help="only these rules (repeatable); default: every rule")
    ap.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    ap.add_argument("--json", type=Path, help="also write the F1 of every rule and corpus here")
    ap.add_argument("--limit", type=int, help="only the first N pages of each corpus (a quick look)")
    args = ap.parse_args(argv)
    known = rules()
    order = ["all-on", *(args.rule or known)]
    for rule in order[1:]:
        with off(rule):  # an unknown rule stops here, before any work
            pass
    for path in corpora(args.folder):
        samples = load_dataset(path, args.limit)
        _CORPORA[path.name] = (samples, page_infos(samples))
    names = list(_CORPORA)
    tasks = [(rule, n) for rule in order for n in names]
    results: dict[tuple[str, str], float] = {}
    ctx = multiprocessing.get_context("fork")  # the children share the loaded pages
    with ctx.Pool(args.jobs) as pool:
        for rule, corpus, f1, secs in pool.imap_unordered(_run, tasks):
            results[(rule, corpus)] = f1
            print(f"  {rule} / {corpus}: F1 {f1:.4f} ({secs:.0f} s)", file=sys.stderr, flush=True)
    print(f"{PRESET}: mean token F1 per corpus with all rules on, and its change with each rule off alone\n")
    print(table(results, names, order))
    print()
    for rule in order[1:]:
        print(f"  {rule}: {known[rule]}")
    if args.json:
        args.json.write_text(json.dumps({"preset": PRESET, "rules": {r: known.get(r, "") for r in order},
                                         "f1": {f"{r}|{c}": v for (r, c), v in results.items()}}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
