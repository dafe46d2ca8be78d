"""benchmarks/peer_gap.py: the best peer per corpus and page type, against a preset."""

from __future__ import annotations

from benchmarks.peer_gap import rows

EVAL = {"datasets": {"/data/wcxb-dev": {"presets": {"reader": {"f1": 0.80, "recall": 0.9, "by_type": {
    "forum": {"f1": 0.70}, "product": {"f1": 0.60}}}}},
    "/data/other": {"presets": {"reader": {"f1": 0.95, "recall": 0.99}}}}}
PEERS = {"wcxb-dev": {"a": {"f1": 0.82, "by_type": {"forum": 0.65, "product": 0.50}},
                      "b": {"f1": 0.79, "by_type": {"forum": 0.75, "product": 0.40}}},
         "other": {"a": {"f1": 0.96, "by_type": {}}}}


def test_the_best_peer_is_taken_per_corpus_and_per_page_type():
    assert rows(EVAL, PEERS, "reader") == [
        ("other", "", "a", 0.96, 0.95),
        ("wcxb-dev", "", "a", 0.82, 0.80),
        ("wcxb-dev", "forum", "b", 0.75, 0.70),
        ("wcxb-dev", "product", "a", 0.50, 0.60),
    ]


def test_a_corpus_without_peers_or_without_the_preset_is_left_out():
    assert rows(EVAL, {}, "reader") == []
    assert rows(EVAL, PEERS, "declutter") == []
