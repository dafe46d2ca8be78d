"""Running an ordered chain of filters over one page, one error boundary per filter.

For each filter the chain opens a :class:`~pagesieve.engine.context.FilterContext`: every change the filter makes goes
through it, so that the context can

* explain it (filter, node, measured values, threshold) in the page's record,
* remember the text links that disappear (for the ``removed_links`` filter),
* undo it: if the filter raises, or removes more than ``safety.max_article_loss`` of the
  detected article's text (of the body's text before an article is known), its changes are
  rolled back and the record says why. The page is then as it was before that filter.
"""

from __future__ import annotations

import logging
import secrets
import time
from dataclasses import dataclass
from typing import Any, Collection

from lxml import etree

from pagesieve.analysis import appshell
from pagesieve.core import dom
from pagesieve.core.errors import FilterError, NeedsScripts
from pagesieve.engine.context import FilterContext
from pagesieve.engine.document import Page, parse
from pagesieve.engine.order import check_order
from pagesieve.engine.state import RunState
from pagesieve.filters.base import Filter

log = logging.getLogger("pagesieve.engine.chain")


#: How many distinct (filter, error type, place) failures have their traceback logged per process
#: (each once: a new Chain per page must not log the same traceback for every page).
LOGGED_FAILURES_MAX = 256
_logged_failures: dict[tuple[str, str, str], None] = {}


def _log_failure(name: str, page: Page, err: Exception) -> None:
    """One line per failure; the traceback once per (filter, error type, raising line) per process."""
    tb = err.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    where = f"{tb.tb_frame.f_code.co_filename}:{tb.tb_lineno}" if tb is not None else "?"
    key = (name, type(err).__name__, where)
    first = key not in _logged_failures
    if first:
        if len(_logged_failures) >= LOGGED_FAILURES_MAX:
            _logged_failures.pop(next(iter(_logged_failures)))
        _logged_failures[key] = None
    log.error("filter %s failed on %s: %s: %s; page kept as before this filter",
              name, page.url or "<page>", type(err).__name__, err, exc_info=first)


def _undo(ctx: FilterContext, cause: Exception | None) -> None:
    """Roll a filter's changes back; if that itself fails the page is in an unknown state, so
    the whole page fails (FilterError: the proxy serves the original, the CLI says one line)."""
    try:
        ctx.rollback()
    except Exception as err:  # noqa: BLE001 - re-raised as the page's failure
        raise FilterError(f"filter {ctx.name} failed ({type(cause).__name__ if cause else 'too much removed'}) "
                          f"and its changes could not be undone: {type(err).__name__}: {err}") from err


@dataclass
class ChainResult:
    """The outcome of one page through the chain."""

    body: bytes
    media_type: str  # "text/html" or "text/plain"
    encoding: str
    record: list[dict[str, Any]]
    filters: list[dict[str, Any]]  # per filter: name, ms, removed, status
    ms: float
    preset: str | None = None
    #: The Content-Security-Policy to serve the page with (None: none asked for).
    content_security_policy: str | None = None
    #: Asked for (``process(slot=True)``) and HTML: the byte offset in ``body`` where a caller may
    #: insert content of its own (after the skip link that opens the body; see :func:`_mark_slot`).
    slot: int | None = None

    @property
    def failed(self) -> list[str]:
        return [f["filter"] for f in self.filters if f["status"] == "error"]

    @property
    def removed_by(self) -> list[str]:
        return [f["filter"] for f in self.filters if f["removed"] and f["status"] == "ok"]


class Chain:
    """An ordered list of ready filters plus output settings; built once, run per page.

    The order is checked (:func:`~pagesieve.engine.order.check_order`) unless ``check`` is false (a test running one
    filter alone on purpose)."""

    def __init__(self, filters: list[Filter], output, safety, preset: str | None = None,
                 check: bool = True) -> None:
        if check:
            check_order(filters, f"presets.{preset}.chain" if preset else "chain")
        self.filters = filters
        self.output = output
        self.safety = safety
        self.preset = preset
        #: A filter of the chain reads the removed text links (RunState.collect_links).
        self.collects_links = any("removed_links" in f.requires for f in filters)
        #: A filter takes a page's scripts away and asks that a page made by them be served as sent.
        self.spares_app_shells = any(getattr(f, "spares_app_shells", False) for f in filters)

    def run(self, page: Page, store: Any = None, explain: bool | Collection[str] = True,
            ) -> tuple[RunState, list[dict[str, Any]]]:
        """Run every filter over ``page`` in place; returns the run state and per-filter stats.
        ``explain``: which entries the state's record gets: True every one, False none, or the
        actions named (e.g. only the removals); the page comes out the same either way."""
        state = RunState(root=page.root, store=store, output_format=getattr(self.output, "format", "html"),
                         collect_links=self.collects_links, record_actions=_record_actions(explain))
        stats = []
        for flt in self.filters:
            t0, c0 = time.perf_counter(), time.process_time()
            secured = self._secure(flt, page, state) if getattr(flt, "secures", False) else 0
            ctx = FilterContext(flt.name, state, page, flt.assigns)
            status = "ok"
            try:
                flt.apply(page, ctx)
            except Exception as err:  # noqa: BLE001 - the error boundary of one filter
                status = "error"
                _log_failure(flt.name, page, err)
                _undo(ctx, err)
                ctx.note("error", reason=f"{type(err).__name__}: {err}; the page is kept as it was before this filter")
            else:
                if flt.destructive and ctx.lost_chars and ctx._guard_chars:
                    loss = ctx.lost_chars / ctx._guard_chars
                    if loss > self.safety.max_article_loss:
                        status = "reverted"
                        _undo(ctx, None)
                        ctx.note("revert", reason="would remove nearly all of the article text; its removals are undone",
                                 measured={"article_text_lost": round(loss, 3)},
                                 threshold={"max_article_loss": self.safety.max_article_loss})
            stats.append({"filter": flt.name, "ms": round((time.perf_counter() - t0) * 1000, 3),
                          "cpu_ms": round((time.process_time() - c0) * 1000, 3),
                          "removed": secured + (ctx.removed if status == "ok" else 0), "status": status})
        return state, stats

    @staticmethod
    def _secure(flt: Filter, page: Page, state: RunState) -> int:
        """Run ``flt``'s secure step (:meth:`Filter.secure`) in a context of its own, never undone;
        returns what it removed. If it fails, the page cannot be served filtered: FilterError."""
        ctx = FilterContext(flt.name, state, page, flt.assigns)
        try:
            flt.secure(page, ctx)
        except Exception as err:  # noqa: BLE001 - re-raised as the page's failure
            _log_failure(flt.name, page, err)
            raise FilterError(f"filter {flt.name} could not take out what would run script: "
                              f"{type(err).__name__}: {err}") from err
        return ctx.removed

    def process(self, data: bytes, *, url: str | None = None, declared_encoding: str | None = None,
                store: Any = None, declared_html: bool = False, slot: bool = False,
                explain: bool | Collection[str] = True) -> ChainResult:
        """Parse, filter and render one page. Raises InputError for input that is not HTML
        (``declared_html``: the server said it is; see :func:`pagesieve.engine.document.parse`), and its
        NeedsScripts for a page its scripts make when the chain would remove them.
        ``slot``: also find where a caller may insert content of its own into the HTML
        (:attr:`ChainResult.slot`). ``explain``: which entries :attr:`ChainResult.record` gets (as
        :meth:`run`); the proxy, which reads none but the removals, asks for those or none."""
        from pagesieve.engine.output import TEXT_ENCODING, render  # output depends on document only

        t0 = time.perf_counter()
        page = parse(data, url=url, declared_encoding=declared_encoding, declared_html=declared_html)
        if self.spares_app_shells:
            verdict = appshell.judge(page.root)
            if verdict.shell:
                raise NeedsScripts(f"the page's content is made by its scripts ({verdict}): not filtered, "
                                   "its scripts would be removed (filters.ignore.app_shells=false filters it anyway)")
        state, stats = self.run(page, store=store, explain=explain)
        mark = _mark_slot(page) if slot and getattr(self.output, "format", "html") == "html" else None
        try:
            body, media_type = render(page, state, self.output)
        except (ValueError, TypeError, RecursionError) as err:
            raise FilterError(f"the filtered page could not be written out: {type(err).__name__}: {err}") from err
        encoding = TEXT_ENCODING if media_type == "text/plain" else page.encoding
        offset = None
        if mark is not None and media_type == "text/html":
            body, offset = _take_mark(body, mark, encoding)
        return ChainResult(body=body, media_type=media_type, encoding=encoding, record=state.record,
                           filters=stats, ms=round((time.perf_counter() - t0) * 1000, 3), preset=self.preset,
                           content_security_policy=state.content_security_policy if media_type == "text/html" else None,
                           slot=offset)


def _record_actions(explain: bool | Collection[str]) -> frozenset[str] | None:
    """:attr:`~pagesieve.engine.state.RunState.record_actions` for ``explain`` (True: None, every entry; False: none)."""
    if explain is True:
        return None
    if explain is False:
        return frozenset()
    if isinstance(explain, str):
        raise TypeError(f"explain={explain!r}: expected True, False or a collection of actions")
    return frozenset(explain)


def _mark_slot(page: Page) -> str:
    """Put a comment no page can know (a random name) where a caller's content goes: in ``<body>``,
    after the in-page links that open it (the skip link), else at its start. Returns its text."""
    body = dom.body_of(page.root)
    at = 0
    for child in body:
        if not (isinstance(child.tag, str) and child.tag == "a" and (child.get("href") or "").startswith("#")):
            break
        at += 1
    mark = f"pagesieve-slot-{secrets.token_hex(8)}"
    comment = etree.Comment(mark)
    body.insert(at, comment)
    return mark


def _take_mark(body: bytes, mark: str, encoding: str) -> tuple[bytes, int | None]:
    """``body`` without the comment :func:`_mark_slot` put in, and the byte offset where it was
    (None, and ``body`` as it is, when it is not found exactly once in ``encoding``)."""
    try:
        needle = f"<!--{mark}-->".encode(encoding)
    except (LookupError, UnicodeError):
        return body, None
    at = body.find(needle)
    if at < 0 or body.find(needle, at + 1) >= 0:
        return body, None
    return body[:at] + body[at + len(needle):], at
