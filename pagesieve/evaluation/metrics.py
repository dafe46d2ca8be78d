"""The eval's scores: a text as a bag of word tokens, precision / recall / F1 and the share of clutter
removed, the WCXB snippet check, the headline check, and the percentile of the speed figures."""

from __future__ import annotations

import statistics
from collections import Counter

from pagesieve.core import dom


def tokens(text: str) -> Counter:
    """The bag of lower-cased ``\\w+`` tokens of ``text``."""
    return Counter(m.group(0) for m in dom.WORD.finditer(text.lower()))


def prf(out: Counter, truth: Counter) -> tuple[float, float, float]:
    """Token precision, recall and F1 of ``out`` against ``truth`` (multiset overlap)."""
    common = sum((out & truth).values())
    n_out, n_truth = sum(out.values()), sum(truth.values())
    p = common / n_out if n_out else 0.0
    r = common / n_truth if n_truth else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f


def noise_removed(out: Counter, page: Counter, truth: Counter) -> float | None:
    """``1 − (output tokens not in truth) / (page tokens not in truth)``; None if the page has none."""
    page_noise = sum((page - truth).values())
    if not page_noise:
        return None
    return 1.0 - sum((out - truth).values()) / page_noise


def word_phrase(text: str) -> str:
    """``text`` as its lower-cased word tokens joined by single spaces, padded (for containment)."""
    return " " + " ".join(dom.WORD.findall(text.lower())) + " "


def snippet_found(snippet: str, phrase: str) -> bool:
    """True when the words of ``snippet``, in order, occur in ``phrase`` (a :func:`word_phrase`).
    A snippet without a word is never found."""
    words = word_phrase(snippet)
    return words.strip() != "" and words in phrase


def headline_matches(expected: str, heading: str | None) -> bool:
    """The headline check: the output's first heading says the page's headline (most words in common;
    a site name after the headline in ``og:title`` is allowed: ``filters.article.same_words``)."""
    from pagesieve.analysis.headline import same_words

    return heading is not None and bool(heading) and same_words(expected, heading)


def percentile(values: list[float], q: float) -> float:
    """The ``q``-th quantile of ``values`` (``q`` in hundredths, 0.01 to 0.99), interpolated linearly
    between the two nearest values; 0.0 for no value."""
    if not values:
        return 0.0
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[round(q * 100) - 1]
