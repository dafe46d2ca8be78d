"""pagesieve eval: the metric, the dataset reader, per-page errors, the command line."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from pagesieve import cli
from pagesieve.core.errors import InputError
from pagesieve.evaluation.datasets import Sample, load_dataset, page_infos
from pagesieve.evaluation.metrics import noise_removed, prf, tokens
from pagesieve.evaluation.runner import evaluate


def test_tokens_are_lowercased_unicode_words_as_a_multiset():
    assert tokens("Der Bär, der BÄR! 3-4") == Counter({"der": 2, "bär": 2, "3": 1, "4": 1})


@pytest.mark.parametrize("out, truth, expected", [
    ("a a b", "a b c", (2 / 3, 2 / 3, 2 / 3)),   # multiset: the second "a" is not in truth
    ("", "a", (0.0, 0.0, 0.0)),
    ("a b", "a b", (1.0, 1.0, 1.0)),
])
def test_prf(out, truth, expected):
    assert prf(tokens(out), tokens(truth)) == pytest.approx(expected)


def test_noise_removed():
    truth, page = tokens("story words"), tokens("menu menu story words footer")
    assert noise_removed(tokens("story words"), page, truth) == 1.0
    assert noise_removed(tokens("menu story words"), page, truth) == pytest.approx(1 - 1 / 3)
    assert noise_removed(tokens("x"), tokens("story words"), truth) is None


def test_the_page_baseline_reads_as_without_scripts(tmp_path):
    """The noise a page had is counted on the page as the proxy serves it once scripts are gone:
    <noscript> content included (a corpus page may hold its whole article there), scripts not."""
    path = tmp_path / "p.html"
    path.write_bytes(b"<html><body><noscript><p>story told here</p></noscript><script>var code</script>"
                     b"<p>menu</p></body></html>")
    info = page_infos([Sample("p", path, "https://example.org/p", "story told here", {})])["p"]
    assert info.tokens == tokens("story told here menu")


@pytest.fixture
def dataset(tmp_path):
    (tmp_path / "pages").mkdir()
    story = "The quick brown fox jumps over the lazy dog. " * 20
    rows = [("good", f"<html><body><nav><a href='/'>Home</a> <a href='/x'>News</a></nav><p>{story}</p></body></html>",
             story.strip()),
            ("binary", None, story),                      # not HTML: raises InputError, counted
            ("notruth", "<p>anything</p>", "")]            # empty truth: not scored
    with open(tmp_path / "truth.jsonl", "w", encoding="utf-8") as fh:
        for pid, html, body in rows:
            fh.write(json.dumps({"id": pid, "url": f"https://example.org/{pid}", "body": body}) + "\n")
            path = tmp_path / "pages" / f"{pid}.html"
            path.write_bytes(b"\x89PNG\r\n\x1a\n" if html is None else html.encode())
    return tmp_path


def test_evaluate_counts_errors_and_skips_empty_truth(dataset):
    (r,) = evaluate(dataset, ["declutter"])
    assert r.pages == 3 and r.scored == 2 and r.errors == 1
    good = next(p for p in r.per_page if p["id"] == "good")
    # the two-link menu went and is not listed back (the list would be longer than what was removed)
    assert good["r"] == 1.0 and good["p"] == 1.0 and good["noise_removed"] == 1.0
    assert r.f1 == pytest.approx((good["f1"] + 0.0) / 2, abs=1e-3)
    assert r.median_ms > 0 and r.pages_per_s > 0


def test_limit_and_not_a_dataset(dataset, tmp_path):
    assert [s.id for s in load_dataset(dataset, limit=1)] == ["good"]
    with pytest.raises(InputError, match="not a dataset"):
        load_dataset(tmp_path / "pages")


def test_cli_prints_table_and_writes_json(dataset, tmp_path, capsys):
    out = tmp_path / "r.json"
    assert cli.main(["eval", str(dataset), "--preset", "declutter", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "declutter" in text and "F1" in text and "pages/s" in text
    data = json.loads(out.read_text())
    assert data["presets"]["declutter"]["errors"] == 1
    assert len(data["presets"]["declutter"]["per_page"]) == 3


def test_cli_unknown_preset_is_one_line_error(dataset, capsys):
    assert cli.main(["eval", str(dataset), "--preset", "nope"]) == 2
    err = capsys.readouterr().err
    assert "unknown preset" in err and "available" in err and "Traceback" not in err


def test_truth_lines_split_on_newline_only(tmp_path):
    """U+2028/U+2029 (and \\x85) inside a JSON string are text, not line ends."""
    (tmp_path / "pages").mkdir()
    for pid in ("a", "b"):
        (tmp_path / "pages" / f"{pid}.html").write_text("<p>x</p>")
    raw = ('{"id": "a", "body": "one\u2028two\u2029three\x85four"}\r\n'
           '{"id": "b", "body": "six", "meta": {"page_type": "forum", "with": ["six"]}}\n')
    (tmp_path / "truth.jsonl").write_bytes(raw.encode("utf-8"))
    a, b = load_dataset(tmp_path)
    assert a.truth == "one\u2028two\u2029three\x85four" and a.meta == {}
    assert b.meta["page_type"] == "forum"


@pytest.mark.parametrize("snippet, text, found", [
    ("The quick, brown fox", "...the QUICK brown fox jumps", True),
    ("quick fox", "the quick brown fox", False),          # words in order, adjacent
    ("own fox", "the brown fox", False),                  # whole words only
    ("!!!", "anything", False),                           # a snippet without a word is never found
])
def test_snippet_found(snippet, text, found):
    from pagesieve.evaluation.metrics import snippet_found, word_phrase
    assert snippet_found(snippet, word_phrase(text)) is found


@pytest.mark.parametrize("expected, heading, ok", [
    ("Big storm hits the coast | Daily News", "Big storm hits the coast", True),
    ("Big storm hits the coast", "Big storm hits the coast", True),
    ("Big storm hits the coast", "Sign up for our newsletter", False),
    ("Big storm hits the coast", None, False),
])
def test_headline_matches(expected, heading, ok):
    from pagesieve.evaluation.metrics import headline_matches
    assert headline_matches(expected, heading) is ok


@pytest.fixture
def typed_dataset(tmp_path):
    tmp_path = tmp_path / "typed"
    (tmp_path / "pages").mkdir(parents=True)
    story = "The quick brown fox jumps over the lazy dog, again and again. " * 15
    html = (f"<html><head><title>Fox news | Site</title><meta property='og:title' content='Fox jumps again'>"
            f"</head><body><nav><a href='/'>Home</a> <a href='/x'>News</a> <a href='/y'>Menu</a></nav>"
            f"<article><h1>Fox jumps again</h1><p>{story}</p></article></body></html>")
    (tmp_path / "pages" / "f.html").write_text(html)
    row = {"id": "f", "url": "https://example.org/2024/01/fox.html", "body": story,
           "meta": {"page_type": "article", "with": ["quick brown fox jumps"], "without": ["Home News Menu"]}}
    (tmp_path / "truth.jsonl").write_text(json.dumps(row) + "\n")
    return tmp_path


def test_eval_reports_snippets_headline_types_and_detection(typed_dataset):
    from pagesieve.evaluation.report import format_corpora
    from pagesieve.evaluation.runner import evaluate_corpus
    c = evaluate_corpus(typed_dataset, ["reader"])
    (r,) = c.presets
    assert r.with_kept == 1.0 and r.without_removed == 1.0
    assert r.headline == 1.0 and r.headline_pages == 1
    assert set(r.by_type) == {"article"} and r.by_type["article"]["pages"] == 1
    assert c.pagetype_accuracy == 1.0 and c.pagetype_pages == 1
    # the kind the reader's chain acted on (main_content, after ignore), per page and as a share
    assert r.per_page[0]["detected"] == "article"
    assert r.chain_pagetype_accuracy == 1.0 and r.chain_pagetype_pages == 1
    table = format_corpora([c])
    assert "page_type" in table and "page-type detection" in table and "as reader's chain detects it" in table
    (d,) = evaluate_corpus(typed_dataset, ["declutter"]).presets  # no main_content: no detection to judge
    assert d.chain_pagetype_accuracy is None and "detected" not in d.per_page[0]


def test_cli_scores_every_corpus_in_a_directory(dataset, typed_dataset, tmp_path, capsys):
    parent = tmp_path / "all"  # dataset is tmp_path itself: the corpora are linked from elsewhere
    parent.mkdir()
    (parent / "one").symlink_to(dataset)
    (parent / "two").symlink_to(typed_dataset)
    assert cli.main(["eval", str(parent), "--preset", "reader"]) == 0
    rows = [line.split()[0] for line in capsys.readouterr().out.splitlines() if " reader " in line]
    assert rows[:2] == ["one", "two"]


def test_a_truth_stored_as_utf16_read_as_latin1_is_decoded(tmp_path, caplog):
    import json as _json

    from pagesieve.evaluation.datasets import load_dataset, repair_truth

    broken = "\ufeffThe abbot asked his pupil.".encode("utf-16-le").decode("latin-1")
    assert broken.startswith("ÿþ") and "\x00" in broken
    assert repair_truth(broken) == "The abbot asked his pupil."
    assert repair_truth("ÿþ plain text without NULs") is None and repair_truth("plain") is None
    (tmp_path / "pages").mkdir()
    (tmp_path / "pages" / "1.html").write_text("<p>The abbot asked his pupil.</p>", encoding="utf-8")
    (tmp_path / "truth.jsonl").write_text(_json.dumps({"id": "1", "body": broken}) + "\n", encoding="utf-8")
    (sample,) = load_dataset(tmp_path)
    assert sample.truth == "The abbot asked his pupil."
    assert sample.meta["truth_repaired"] and "decoded as UTF-16" in caplog.text


def test_eval_counts_pages_made_noisier_and_recall_without_the_list(typed_dataset):
    from pagesieve.evaluation.runner import evaluate_corpus
    (d,) = evaluate_corpus(typed_dataset, ["declutter"]).presets  # the menu goes, its one-word labels do not come back
    assert d.noisier == 0 and d.per_page[0]["noise_removed"] > 0
    assert d.recall_no_list == d.recall and "r_no_list" not in d.per_page[0]
    # every label read out again, under the list's summary: more noise than the page had
    every = [("filters.removed_links.min_words", 0), ("filters.removed_links.furniture_min_words", 0),
             ("filters.removed_links.only_if_shorter", "never")]
    (d,) = evaluate_corpus(typed_dataset, ["declutter"], overrides=every).presets
    assert d.noisier == 1 and d.per_page[0]["noise_removed"] < 0
    assert d.per_page[0]["r_no_list"] == d.per_page[0]["r"]  # the menu held no main text


def _run(*pages: tuple[str, float, float]) -> list[dict]:
    return [{"id": pid, "p": 1.0, "r": r, "f1": f} for pid, f, r in pages]


def test_compare_lists_pages_moved_by_more_than_the_bound_either_way():
    from pagesieve.evaluation.report import compare_runs
    before = {("wcxb", "reader"): _run(("up", 0.3, 0.9), ("down", 0.9, 0.9), ("recall", 0.8, 0.95),
                                       ("still", 0.5, 0.5), ("edge", 0.5, 0.5), ("gone", 0.1, 0.1))}
    after = {("wcxb", "reader"): _run(("up", 0.9, 0.9), ("down", 0.6, 0.9), ("recall", 0.75, 0.7),
                                      ("still", 0.6, 0.6), ("edge", 0.7, 0.3), ("new", 0.9, 0.9))
             + [{"id": "unscored"}],
             ("wcxb", "declutter"): _run(("up", 0.5, 1.0))}
    reader, declutter = compare_runs(before, after)
    # F1 up .6, F1 down .3, recall down .25; .1 is not a move, nor exactly .2 (not more than it)
    assert [m.id for m in reader.moved] == ["up", "down", "recall"]
    assert reader.moved[1].f1_before == 0.9 and reader.moved[1].f1_after == 0.6
    assert reader.pages == 5  # "gone" and "new" are scored in one report only
    assert reader.f1_before == pytest.approx((0.3 + 0.9 + 0.8 + 0.5 + 0.5) / 5)
    assert reader.f1_after == pytest.approx((0.9 + 0.6 + 0.75 + 0.6 + 0.7) / 5)
    assert not declutter.found and declutter.f1_before is None and not declutter.moved
    assert [m.id for m in compare_runs(before, after, moved=0.05)[0].moved] == ["up", "down", "edge", "still",
                                                                                 "recall"]


def test_report_runs_reads_both_report_shapes_and_refuses_others():
    from pagesieve.evaluation.report import report_runs
    pages = _run(("a", 0.5, 0.5))
    many = {"datasets": {"/x/corpus-one": {"presets": {"reader": {"f1": 0.5, "per_page": pages}}}}}
    assert report_runs(many) == {("corpus-one", "reader"): pages}
    one = {"dataset": "/y/corpus-two", "presets": {"reader": {"per_page": pages}}}
    assert report_runs(one) == {("corpus-two", "reader"): pages}
    with pytest.raises(InputError, match="not an eval report"):
        report_runs({"scrapinghub": {"trafilatura": {"per_page": pages}}})
    with pytest.raises(InputError, match="no per-page scores"):
        report_runs({"datasets": {"/x/c": {"presets": {"reader": {"f1": 0.5}}}}})


def test_cli_compare_prints_changes_and_moved_pages(dataset, tmp_path, capsys):
    first = tmp_path / "before.json"
    assert cli.main(["eval", str(dataset), "--preset", "declutter", "--json", str(first)]) == 0
    capsys.readouterr()
    assert cli.main(["eval", str(dataset), "--preset", "declutter", "--compare", str(first)]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith(dataset.name[:16]) and "+0.0000" in line)
    assert row.split()[-1] == "0" and "page(s) moved" not in out
    worse = json.loads(first.read_text())
    good = next(p for p in worse["datasets"][str(dataset)]["presets"]["declutter"]["per_page"] if p["id"] == "good")
    good["f1"], good["r"] = 0.5, 0.6  # as if the page had been scored lower before
    first.write_text(json.dumps(worse))
    assert cli.main(["eval", str(dataset), "--preset", "declutter", "--compare", str(first)]) == 0
    out = capsys.readouterr().out
    assert "declutter: 1 page(s) moved" in out
    assert any(line.split()[:2] == ["good", "F1"] and "0.500 -> 1.000" in line and "0.600 -> 1.000" in line
               for line in out.splitlines())


def test_cli_compare_with_a_bad_report_is_one_line_error_before_any_work(dataset, tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert cli.main(["eval", str(dataset), "--preset", "declutter", "--compare", str(bad)]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("pagesieve: error: ") and "not JSON" in captured.err
    assert captured.out == "" and "Traceback" not in captured.err
    assert cli.main(["eval", str(dataset), "--compare", str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:
        cli.main(["eval", str(dataset), "--compare", str(bad), "--moved", "2"])
    assert stop.value.code == 2 and "expected a number from 0 to 1" in capsys.readouterr().err
