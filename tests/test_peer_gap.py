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


def test_a_missing_or_malformed_report_is_one_line_on_stderr_and_exit_2(tmp_path, capsys):
    from benchmarks.peer_gap import main

    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    assert main([str(tmp_path / "none.json"), str(bad)]) == 2
    assert main([str(bad), str(bad)]) == 2
    (tmp_path / "e.json").write_text('{"nodatasets": 1}', encoding="utf-8")
    assert main([str(tmp_path / "e.json"), str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(line.startswith("peer_gap: cannot read the reports") for line in err)
