"""``pagesieve eval``: measure presets against pages with known main text.

The parts: :mod:`~pagesieve.evaluation.metrics` (tokens, precision, recall, F1, the snippet and headline
checks), :mod:`~pagesieve.evaluation.datasets` (reading a dataset and its truth, what is measured once per
page), :mod:`~pagesieve.evaluation.runner` (running presets over a dataset and scoring them),
:mod:`~pagesieve.evaluation.report` (the tables, and one report against an earlier one) and
:mod:`~pagesieve.evaluation.command` (the ``eval`` sub-command).

A dataset is a directory in the format of ``../shared/data/extraction/*/``::

    pages/<id>.html     the page as fetched (bytes)
    truth.jsonl         one {"id", "url", "body", ["meta"]} per line; body = the main text only;
                        lines end at "\n" only (U+2028 inside a JSON string is text)

``pagesieve eval DIR...`` scores every dataset given, or every dataset directly under a directory
(``../shared/data/extraction``), in one table.

Each preset runs with ``output.format = text``, ``output.text_title = false`` and, when the chain
has the accessibility step, ``accessibility.title_heading = false`` (the truth is the article body
without the page title, and the peer extractors return the body alone: the title pagesieve adds is
not extracted text); its output is compared with the truth as a bag
of lower-cased ``\\w+`` Unicode word tokens (a multiset: a word counted as often as it occurs):

* per page ``P = |out ∩ truth| / |out|``, ``R = |out ∩ truth| / |truth|``, ``F1`` their harmonic
  mean; then the mean of each over the pages. Pages whose truth has no token are not scored.
* **recall of main text** is the mean ``R`` (how much of the article survives).
* **non-article tokens removed** = ``1 − |out − truth| / |page − truth|`` per page (mean over the
  pages that have any non-article token), where ``page`` is the unfiltered page as text: the
  share of the clutter's words the preset took away.
* **no-lst**: the same without pagesieve's removed-links list (``filters.removed_links``).
* **+noise**: pages whose output holds more non-article tokens than the page (noise removed below 0:
  declutter must never add noise). **R-lst**: recall without the removed-links list, the main
  text the filters left on the page itself (the rest only the list gives back).
* **with / w/out** (WCXB ``meta.with`` / ``meta.without``): the share of the snippets that must be kept
  whose words occur, in order, in the output; the share of those that must not be kept that do not.
* **head**: the headline check on article pages (``meta.page_type`` article, or no page type): the
  page's headline (``filters.article.page_headline``: schema.org/og:title, else the heading that says
  what the ``<title>`` says, else its first ``<h1>``)
  is the output's first heading. The headline and byline the reader put first (classes
  ``pagesieve-headline``, ``pagesieve-byline``) are then left out of the scored text, as the title is.
* **by page type**: P, R, F1 per ``meta.page_type``; **page-type detection**: the share of pages
  whose ``pagesieve.analysis.pagetype.detect`` kind, on the page as parsed, is their ``meta.page_type``; and,
  per preset whose chain detects it (``main_content``'s "page-type" note: on the page after
  ``ignore``, the kind the reader acts on), the same share for that detection.
* speed: pages per second over the time spent in parsing, the filters and rendering,
  median and 95th percentile milliseconds per page.
* errors: pages whose processing raised (scored as empty output, P = R = F1 = 0) and pages on
  which a filter failed and was rolled back (``filter_errors``; scored as they came out).

``--compare BEFORE.json`` (a report written earlier with ``--json``) prints, per corpus and preset, the
mean F1 and recall before and now over the pages scored in both, and lists the pages whose F1 or recall
moved by more than ``--moved`` (0.2) either way: a change that lifts a corpus's mean may still break
pages, and a fix for one page should be seen to move that page.

A progress bar goes to stderr only when stderr is a terminal.
"""
