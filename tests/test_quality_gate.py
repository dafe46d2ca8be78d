"""The quality gate: no preset's mean token F1 (and, where pinned, recall of the main text) on any
shared corpus may fall below its floor.

Floors live in ``tests/quality_floors.json``: per corpus of ``../shared/data/extraction``, per
preset, ``f1`` and (where pinned) ``recall``. ``declutter`` is pinned on recall: it keeps the page,
so nearly all of the main text must survive. The scrapinghub corpus runs whole for every preset it
pins; the other corpora run on a deterministic sample (every k-th page of ``truth.jsonl`` so that
about ``sample`` pages are scored), which keeps ``make test`` within a few minutes: the floors of
sampled corpora are measured on the same sample.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from pagesieve.evaluation.datasets import load_dataset
from pagesieve.evaluation.runner import evaluate_corpus
from tests.conftest import CORPUS, EXTRACTION

SPEC = json.loads((Path(__file__).parent / "quality_floors.json").read_text(encoding="utf-8"))
FLOORS: dict[str, dict[str, dict]] = SPEC["floors"]
SAMPLE: dict[str, int] = SPEC.get("sample", {})
CASES = [(corpus, preset) for corpus in sorted(FLOORS) for preset in sorted(FLOORS[corpus])]


def corpus_dir(name: str) -> Path:
    return CORPUS if name == "scrapinghub" else EXTRACTION / name


def sample_of(name: str):
    """The pages of corpus ``name`` the gate scores: all, or every k-th for about SAMPLE[name]."""
    samples = load_dataset(corpus_dir(name))
    want = SAMPLE.get(name)
    if want and len(samples) > want:
        samples = samples[::math.ceil(len(samples) / want)]
    return samples


@pytest.fixture(scope="module")
def results(cfg):
    cache: dict[str, dict] = {}

    def get(name: str) -> dict:
        if name not in cache:
            if not (corpus_dir(name) / "truth.jsonl").is_file():
                pytest.skip(f"corpus {name} not found at {corpus_dir(name)}")
            missing = sorted(set(FLOORS[name]) - set(cfg.presets))
            assert not missing, f"quality_floors.json names presets that config.yaml lacks: {missing}"
            c = evaluate_corpus(corpus_dir(name), sorted(FLOORS[name]), samples=sample_of(name), cfg=cfg)
            cache[name] = {r.preset: r for r in c.presets}
        return cache[name]
    return get


def test_floors_cover_every_corpus_and_both_main_presets():
    corpora = {p.name for p in EXTRACTION.iterdir() if (p / "truth.jsonl").is_file()} if EXTRACTION.is_dir() else set()
    assert corpora <= set(FLOORS), f"corpora without floors: {sorted(corpora - set(FLOORS))}"
    for name, presets in FLOORS.items():
        assert {"reader", "declutter"} <= set(presets), name
        assert "recall" in presets["declutter"], f"{name}: declutter must be pinned on recall"


@pytest.mark.slow
@pytest.mark.parametrize("corpus, preset", CASES)
def test_scores_not_below_floor(results, corpus, preset):
    r = results(corpus)[preset]
    floor = FLOORS[corpus][preset]
    assert r.errors == 0, f"{corpus}/{preset}: {r.errors} pages raised"
    assert r.filter_errors == 0, f"{corpus}/{preset}: a filter failed (and was undone) on {r.filter_errors} pages"
    assert r.f1 >= floor["f1"], (f"{corpus}/{preset}: F1 {r.f1:.4f} fell below its floor {floor['f1']} "
                                 f"(P {r.precision:.3f}, R {r.recall:.3f})")
    if "recall" in floor:
        assert r.recall >= floor["recall"], f"{corpus}/{preset}: recall {r.recall:.4f} fell below {floor['recall']}"
    if "noisier" in floor:  # pages whose output holds more non-content words than the page
        noisier = [p["id"] for p in r.per_page if p.get("noise_removed", 0) < 0]
        assert len(noisier) <= floor["noisier"], f"{corpus}/{preset}: output noisier than the page on {noisier}"
