"""Shared fixtures: the ground-truth corpus and small helpers to run a chain on a page."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pagesieve.engine import config as C
from pagesieve.engine.document import parse

REPO = Path(__file__).resolve().parent.parent
#: The shared extraction corpora: ../shared/data/extraction beside the repository (or beside the
#: directory of worktrees that holds it).
EXTRACTION = next((p / "shared" / "data" / "extraction" for p in (REPO.parent, REPO.parent.parent)
                   if (p / "shared" / "data" / "extraction").is_dir()), REPO.parent / "shared" / "data" / "extraction")
CORPUS = Path(os.environ.get("PAGESIEVE_CORPUS", EXTRACTION / "scrapinghub"))


def corpus_pages() -> list[tuple[str, Path, str]]:
    """(id, html path, truth body) for every page of the shared corpus ([] if absent)."""
    truth = CORPUS / "truth.jsonl"
    if not truth.exists():
        return []
    out = []
    for line in truth.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        path = CORPUS / "pages" / f"{row['id']}.html"
        if path.exists():
            out.append((row["id"], path, row["body"]))
    return out


@pytest.fixture(scope="session")
def corpus():
    pages = corpus_pages()
    if not pages:
        pytest.skip(f"ground-truth corpus not found at {CORPUS} (set PAGESIEVE_CORPUS)")
    return pages


@pytest.fixture(scope="session")
def cfg():
    return C.load()


def run_filter(name: str, html: str | bytes, url: str | None = None, **settings):
    """Run one filter (alone) on ``html`` with ``settings`` over its defaults; (page, state, stats)."""
    return run_filters([(name, settings)], html, url=url)


def run_filters(filters: list[tuple[str, dict]], html: str | bytes, url: str | None = None, check: bool = True,
                output_format: str = "html"):
    """Run the chain ``[(name, settings over its defaults), ...]`` on ``html``; (page, state, stats).
    ``check=False``: skip the chain's order check (a filter run without what it requires, on purpose)."""
    from pagesieve.core import settings as S
    from pagesieve.engine.chain import Chain
    from pagesieve.engine.config import SafetySettings
    from pagesieve.engine.output import OutputSettings
    from pagesieve.filters import FILTERS

    built = [FILTERS[name](S.build(FILTERS[name].Settings, settings, f"filters.{name}")) for name, settings in filters]
    page = parse(html.encode() if isinstance(html, str) else html, url=url)
    chain = Chain(built, OutputSettings(format=output_format), SafetySettings(), check=check)
    state, stats = chain.run(page)
    return page, state, stats


#: Words that do not belong in text a user reads (help texts, labels): sources, internal names, jargon.
NOT_PLAIN = r"paper|issue|Readability|readability|WCAG|axe |pagesieve|WebAIM|ContentExtractor|DeSeA|Grefenstette|" \
            r"React|\bC_t\b|\bd_t\b|[αωε]|\bLTD\b|\bLAD\b|\bNTL\b|\bLA\b|IBDF|_get|innerText|et al|\b\d\.\d\.\d|§|Step \d"
