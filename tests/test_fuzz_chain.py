"""Property test of the chain's public entry point on mutated real pages.

A bounded run here (``PAGESIEVE_FUZZ_CASES``, default 60 cases a preset); the long run is
``benchmarks/fuzz.py`` (README: "Fuzzing").
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings

from pagesieve.engine import config as C
from pagesieve.engine.chain import ChainResult
from tests.fuzz_pages import check, executable, mutated_page, parse_loss, seed_pages

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


@pytest.mark.parametrize("html, found", [
    (b"<p onclick=x()>a</p>", "a onclick attribute on <p>"),
    (b"<svg><style><img src=x onerror=a()></style></svg>", "a onerror attribute on <img>"),
    (b"<a href=' java\tscript:a()'>a</a>", "a script URL in href of <a>"),
    (b"<iframe srcdoc='<b>'></iframe>", "a srcdoc attribute on <iframe>"),
    (b"<p>a</p><script>x</script>", "a <script> element"),
    (b"<p>a <a href=/b>b</a></p><img src=c.png>", None),
])
def test_executable_content_is_found_as_a_browser_reads_it(html, found):
    assert executable(html, "utf-8") == found


def test_a_script_left_or_a_missing_policy_is_a_finding():
    class Leaves:
        filters = [type("Secures", (), {"secures": True})()]

        def __init__(self, policy, body):
            self.policy, self.body = policy, body

        def process(self, data, url=None):
            return ChainResult(body=self.body, media_type="text/html", encoding="utf-8", record=[], filters=[],
                               ms=0.0, content_security_policy=self.policy)

    page = b"<html><body><p>" + b"word " * 60 + b"</p></body></html>"
    assert check(Leaves(None, page), page) == "served without the policy that forbids scripts"
    scripted = page.replace(b"<p>", b"<p onclick=x()>")
    assert check(Leaves("script-src 'none'", scripted), page) == "executable content left: a onclick attribute on <p>"
    assert check(Leaves("script-src 'none'", page), page) is None


def test_text_a_browser_shows_but_the_parser_loses_is_a_finding(monkeypatch):
    import tests.fuzz_pages as F

    page = b"<html><body><p>First. </html>" + b"second " * 60 + b"</p></body></html>"
    assert parse_loss(page) is None  # read as a browser reads it
    real = F.parse

    def html4_only(data, **kw):  # the parser as it was: text after a stray </html> dropped
        return real(data.split(b"</html>")[0], **kw)

    monkeypatch.setattr(F, "parse", html4_only)
    assert parse_loss(page) == "text lost in parsing: 60 of 61 words a browser shows"


@pytest.mark.parametrize("html, words", [
    # inside SVG only its text elements and a foreignObject's HTML are drawn; a stray run of characters,
    # a <title> or <desc>, a <g>'s text are in the DOM but not on screen (Chromium's innerText)
    ("<p>a</p><svg>stray<text y=20>drawn <tspan>span</tspan></text><foreignObject><p>fo text</p>"
     "</foreignObject><desc>d</desc><g>gtext</g><a href=#><text>linked</text></a></svg>",
     ["a", "drawn", "span", "fo", "text", "linked"]),
    # inside MathML only its token elements; an <svg> inside a foreignObject is SVG again
    ("<math><mi>x</mi>bare</math><svg><foreignObject><svg>inner<text>t</text></svg></foreignObject></svg>",
     ["x", "t"]),
    ("<p>plain <b>words</b></p>", ["plain", "words"]),
])
def test_words_a_browser_shows_leave_out_text_it_does_not_draw(html, words):
    """A fuzzed page opened a comment in an <svg> that ran to a script's ``<!--//-->``, and the script's
    code after it stood in the SVG as text: counted as 33 words a browser shows, while Chromium shows
    none of them."""
    from tests.fuzz_pages import browser_words

    assert browser_words(f"<html><body>{html}</body></html>".encode(), "utf-8") == words
