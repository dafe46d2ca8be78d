"""The quality gate: no preset's mean token F1 (and, where pinned, recall of the main text) on the
shared corpus may fall below its floor.

Floors live in ``tests/quality_floors.json`` (one line per preset). ``declutter`` is pinned on
recall: it keeps the page, so nearly all of the article must survive (issue 2: at least 0.99). The whole corpus (181 pages)
runs: about 11 s for four presets on one core, faster than choosing and defending a subset.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pagesieve.evaluate import evaluate
from tests.conftest import CORPUS

FLOORS = json.loads((Path(__file__).parent / "quality_floors.json").read_text(encoding="utf-8"))["floors"]


@pytest.fixture(scope="module")
def results(corpus, cfg):
    missing = sorted(set(FLOORS) - set(cfg.presets))
    assert not missing, f"quality_floors.json names presets that config.yaml lacks: {missing}"
    return {r.preset: r for r in evaluate(CORPUS, list(FLOORS))}


@pytest.mark.slow
@pytest.mark.parametrize("preset", sorted(FLOORS))
def test_scores_not_below_floor(results, preset):
    r = results[preset]
    floor = FLOORS[preset]
    assert r.errors == 0, f"{preset}: {r.errors} pages raised"
    assert r.filter_errors == 0, f"{preset}: a filter failed (and was undone) on {r.filter_errors} pages"
    assert r.f1 >= floor["f1"], (f"{preset}: F1 {r.f1:.4f} fell below its floor {floor['f1']} "
                                 f"(P {r.precision:.3f}, R {r.recall:.3f})")
    if "recall" in floor:
        assert r.recall >= floor["recall"], f"{preset}: recall {r.recall:.4f} fell below {floor['recall']}"
