"""pagesieve eval: the metric, the dataset reader, per-page errors, the command line."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from pagesieve import cli
from pagesieve.errors import InputError
from pagesieve.evaluate import evaluate, load_dataset, noise_removed, prf, tokens


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
    assert good["r"] == 1.0 and 0.8 < good["p"] < 1.0  # nav words and the page title are not in truth
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
