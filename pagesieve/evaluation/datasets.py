"""The eval's datasets: reading one (its pages and their truth) or the datasets under a directory,
and what is measured once per page before any preset runs (:class:`PageInfo`)."""

from __future__ import annotations

import json
import logging
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from pagesieve.core.errors import InputError
from pagesieve.evaluation.metrics import tokens

#: Named as when the eval was one module: the name is part of the warnings ``pagesieve eval`` prints.
log = logging.getLogger("pagesieve.evaluate")


@dataclass
class Sample:
    """One page of a dataset."""

    id: str
    path: Path
    url: str | None
    truth: str
    meta: dict = field(default_factory=dict)


def repair_truth(text: str) -> str | None:
    """The text of a truth stored as UTF-16 bytes read as Latin-1 (it starts with the byte-order
    mark "ÿþ" or "þÿ" and holds NUL characters: two dragnet-dev pages), decoded as UTF-16; None for
    any other text (left as it is)."""
    if not text.startswith(("\xff\xfe", "\xfe\xff")) or "\x00" not in text:
        return None
    try:
        return text.encode("latin-1").decode("utf-16")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return None


def load_dataset(directory: str | Path, limit: int | None = None) -> list[Sample]:
    """The pages of a dataset directory, in ``truth.jsonl`` order (first ``limit`` only if given).

    Raises :class:`InputError` when the directory is not a dataset."""
    directory = Path(directory)
    truth = directory / "truth.jsonl"
    if not truth.is_file():
        raise InputError(f"{directory}: not a dataset (expected pages/<id>.html and truth.jsonl)")
    out = []
    # Lines end at "\n" only: U+2028/U+2029 (and \r, \x85 ...) inside JSON strings are text, which
    # str.splitlines() would cut at.
    for n, line in enumerate(truth.read_bytes().decode("utf-8").split("\n"), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            sample = Sample(id=str(row["id"]), path=directory / "pages" / f"{row['id']}.html",
                            url=row.get("url"), truth=row.get("body") or "",
                            meta=dict(row["meta"]) if isinstance(row.get("meta"), dict) else {})
            repaired = repair_truth(sample.truth)
            if repaired is not None:
                sample.truth, sample.meta["truth_repaired"] = repaired, "utf-16 read as latin-1"
                log.warning("%s: the truth of page %s was UTF-16 stored as Latin-1 text; decoded as UTF-16",
                            truth, sample.id)
        except (ValueError, KeyError, TypeError) as err:
            raise InputError(f"{truth}:{n}: expected a JSON object with id and body ({err})") from err
        if sample.path.is_file():
            out.append(sample)
        if limit is not None and len(out) >= limit:
            break
    return out


def datasets_in(path: str | Path) -> list[Path]:
    """``path`` itself when it is a dataset, else the datasets directly under it (sorted)."""
    path = Path(path)
    if (path / "truth.jsonl").is_file():
        return [path]
    found = sorted(p for p in path.iterdir() if (p / "truth.jsonl").is_file()) if path.is_dir() else []
    if not found:
        raise InputError(f"{path}: not a dataset (expected pages/<id>.html and truth.jsonl) and holds none")
    return found


@dataclass
class PageInfo:
    """What the eval measures once per page, before any preset: its text tokens (unfiltered, as the page
    reads without scripts), its headline (from the page's metadata, else its first <h1>) and its detected
    page type."""

    tokens: Counter
    headline: str | None = None
    detected: str | None = None


def page_infos(samples: Iterable[Sample]) -> dict[str, PageInfo]:
    """One :class:`PageInfo` per sample id (pages that do not parse: empty tokens, no headline)."""
    from pagesieve.analysis.headline import page_headline
    from pagesieve.analysis.pagetype import detect
    from pagesieve.engine.document import parse
    from pagesieve.engine.output import OutputSettings, to_text

    text = OutputSettings(format="text", login_forms=True)  # the page as it reads, log-in boxes too
    out = {}
    for s in samples:
        try:
            page = parse(s.path.read_bytes(), url=s.url)
        except (InputError, OSError):
            out[s.id] = PageInfo(Counter())
            continue
        headline = page_headline(page.root)
        detected = detect(page.root, s.url).kind
        # The page as shown without scripts, <noscript> content included: what the proxy serves once
        # `ignore` has removed the scripts, and the page some corpora were annotated on (cleaneval's
        # final-714 holds its whole article in one <noscript>).
        for node in list(page.body.iter("noscript")):
            node.drop_tag()
        out[s.id] = PageInfo(tokens(to_text(page.body, text)), headline.text if headline else None, detected)
    return out
