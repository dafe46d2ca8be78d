"""Property test of the chain's public entry point on mutated real pages (issue 12).

A bounded run here (``PAGESIEVE_FUZZ_CASES``, default 60 cases a preset); the long run is
``benchmarks/fuzz.py`` (README: "Fuzzing").
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings

from pagesieve import config as C
from pagesieve.chain import ChainResult
from tests.fuzz_pages import check, mutated_page, seed_pages

CASES = int(os.environ.get("PAGESIEVE_FUZZ_CASES", "60"))
PAGES = seed_pages()
CHAINS: dict[str, object] = {}


def chain(preset: str):
    if preset not in CHAINS:
        CHAINS[preset] = C.build_chain(C.load().resolve(preset))
    return CHAINS[preset]


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["declutter", "reader"])
def test_no_exception_no_hang_no_text_lost(preset):
    built = chain(preset)

    @settings(max_examples=CASES, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(mutated_page(PAGES))
    def run(data):
        problem = check(built, data)
        assert problem is None, problem

    run()


@pytest.mark.parametrize("html, expected", [
    (b"<html><body><script>x</script>\x01<p>" + b"word " * 60 + b"</p></body></html>", None),
    (b"<html><body>" + b"<div>" * 3000 + b"text " * 60, None),  # refused as unparsable: no problem
])
def test_check_accepts_sound_cases(html, expected):
    assert check(chain("declutter"), html) == expected


def test_check_finds_an_escape_and_lost_text():
    class Raises:
        def process(self, data, url=None):
            raise KeyError("boom")

    class Empties:
        def process(self, data, url=None):
            return ChainResult(body=b"<html><body><p> </p></body></html>", media_type="text/html",
                               encoding="utf-8", record=[], filters=[], ms=0.0)

    page = b"<html><body><p>" + b"word " * 60 + b"</p></body></html>"
    assert check(Raises(), page) == "escaped: KeyError: 'boom'"
    assert check(Empties(), page).startswith("text lost: 299 characters")
