"""The filtering addon: every HTML page with status 200 goes through the chain, in a worker process.

Guard clauses first — our own page, not 200, HEAD, a range request, bypassed, not HTML, too large
→ the response passes through byte for byte (non-candidates are even streamed, never buffered)
and says why in ``X-Pagesieve: unfiltered; reason=...``. Otherwise the body is decoded (gzip,
deflate, br, zstd), handed to the worker pool with the user's chain spec, and the result is set
(re-encoded as the origin had it, Content-Length right, the charset declared in Content-Type and
in ``<meta charset>``): ``X-Pagesieve: filtered; preset=declutter; ms=12.3``.

Fail-open everywhere: a body that cannot be decoded, a chain past ``proxy.timeout_seconds``, a
filter error outside the chain's own boundaries, a worker that dies — the original response is
served, one log line says why, and a dead pool is replaced.

Per user: an earlier addon may set ``flow.metadata["pagesieve.profile"] = {"user", "preset",
"overrides", "bypass"}`` and ``flow.metadata["pagesieve.own_page"] = True`` for the proxy's own pages.
"""

from __future__ import annotations

import asyncio
import json
import logging
import multiprocessing
import os
import re
import threading
import time
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from mitmproxy import ctx, http
from mitmproxy.net.http.headers import parse_content_type

from pagesieve.document import looks_binary, web_label
from pagesieve.errors import ConfigError
from pagesieve.proxy_addons.options import ConfigSource
from pagesieve.proxy_addons.worker import Job, Outcome, filter_page, init_worker

log = logging.getLogger("pagesieve.proxy")

HEADER = "X-Pagesieve"
PROFILE_KEY = "pagesieve.profile"
OWN_PAGE_KEY = "pagesieve.own_page"
BYPASS_KEY = "pagesieve.bypass"

#: Types that are HTML. application/xhtml+xml is XML: an HTML serialisation would break it.
HTML_TYPES = frozenset({"text/html"})
#: Types a browser sniffs as possibly HTML (WHATWG MIME Sniffing §7.1, "supplied MIME type is
#: undefined or unknown/unknown, application/unknown or */*"); missing is "".
SNIFFED_TYPES = frozenset({"", "unknown/unknown", "application/unknown", "*/*"})
#: The HTML signatures of WHATWG MIME Sniffing §7.1 ("identifying a resource with an unknown
#: MIME type"): after optional whitespace and BOM, one of these tags followed by a space or '>'.
HTML_SIGNATURE = re.compile(
    rb"^(?:\xef\xbb\xbf)?[\t\n\x0c\r ]*(?:<!DOCTYPE HTML|<HTML|<HEAD|<SCRIPT|<IFRAME|<H1|<DIV|<FONT|<TABLE"
    rb"|<A|<STYLE|<TITLE|<B|<BODY|<BR|<P)[ >]|^(?:\xef\xbb\xbf)?[\t\n\x0c\r ]*<!--", re.IGNORECASE)
#: How long start-up waits for the workers to load their chains (block lists, models) before
#: serving anyway (pages then wait for a worker, within proxy.timeout_seconds).
WARM_UP_LIMIT_SECONDS = 120.0
#: Headers about the original bytes that become wrong once the body changed.
STALE_HEADERS = ("content-md5", "digest", "repr-digest", "content-digest")


def media_type(headers: http.Headers) -> tuple[str, str | None]:
    """(type/subtype lowercased, charset or None) of a Content-Type header ("" when missing)."""
    raw = headers.get("content-type", "")
    parsed = parse_content_type(raw) if raw else None
    if parsed is None:
        return ("", None) if not raw.strip() else (raw.split(";")[0].strip().lower(), None)
    charset = parsed[2].get("charset") or parsed[2].get("Charset")
    return f"{parsed[0]}/{parsed[1]}".strip(), (charset.strip("\"' ") or None) if charset else None


def sniff_html(body: bytes) -> bool:
    """True when ``body`` starts like HTML (the WHATWG unknown-type HTML signatures)."""
    return HTML_SIGNATURE.match(body[:1024]) is not None


def host_matches(host: str, entries: tuple[str, ...]) -> bool:
    host = host.lower().rstrip(".")
    return any(host == e or host.endswith("." + e) for e in (x.lower().strip(".") for x in entries) if e)


def strip_query_param(path: str, param: str) -> tuple[str, bool]:
    """``path`` without the ``name=value`` item ``param`` in its query (other bytes unchanged)."""
    base, sep, query = path.partition("?")
    if not sep or not param:
        return path, False
    query, hsep, fragment = query.partition("#")
    items = query.split("&")
    kept = [i for i in items if i != param]
    if len(kept) == len(items):
        return path, False
    rest = "&".join(kept)
    return base + ("?" + rest if rest else "") + (hsep + fragment if hsep else ""), True


def _freeze(value: Any) -> Any:
    return json.dumps(value, sort_keys=True, default=str)


class WorkerPool:
    """A process pool that warms its workers up and is replaced when one of them dies."""

    def __init__(self, workers: int, warm_spec: Any, state_path: str | None) -> None:
        self.workers = workers or os.cpu_count() or 1
        self._initargs = (warm_spec, state_path)
        self._lock = threading.Lock()
        self.generation = 0
        self.executor = self._start()

    def _start(self) -> ProcessPoolExecutor:
        # spawn, not fork: the proxy runs threads (fork would copy their locks mid-use).
        executor = ProcessPoolExecutor(max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"),
                                       initializer=init_worker, initargs=self._initargs)
        # Start every worker now; each warms its chain up (lists, models) before its first task.
        self.warm = [executor.submit(os.getpid) for _ in range(self.workers)]
        return executor

    async def ready(self, limit: float) -> float:
        """Wait (without blocking the event loop) until every worker is warm; seconds taken."""
        t0 = time.perf_counter()
        await asyncio.wait([asyncio.wrap_future(f) for f in self.warm], timeout=limit)
        return time.perf_counter() - t0

    def submit(self, job: Job):
        with self._lock:
            return self.generation, self.executor.submit(filter_page, job)

    def recover(self, generation: int) -> None:
        """Replace a broken pool (once, however many requests saw it break)."""
        with self._lock:
            if generation != self.generation:
                return
            old = self.executor
            self.executor = self._start()
            self.generation += 1
        old.shutdown(wait=False, cancel_futures=True)
        log.warning("worker pool replaced after a worker died (%d workers)", self.workers)

    def pids(self) -> list[int]:
        return list(getattr(self.executor, "_processes", None) or {})

    def shutdown(self) -> None:
        self.executor.shutdown(wait=True, cancel_futures=True)


class Declutter:
    """Runs the user's chain on HTML responses (see the module doc)."""

    name = "pagesieve_declutter"

    def __init__(self, source: ConfigSource, executor: Executor | None = None) -> None:
        self.source = source
        self._executor = executor  # tests: a thread pool instead of worker processes
        self.pool: WorkerPool | None = None
        self._pool_key: Any = None
        self._specs: dict[tuple, Any] = {}
        self._param = ""
        self._header = ""

    # -- lifecycle -----------------------------------------------------------------------
    def configure(self, updated: set[str]) -> None:
        s = self.source.settings
        self._param, self._header = s.bypass_param, s.bypass_header
        key = (id(self.source.cfg), s.workers, self.source.preset)
        if key != self._pool_key:
            self._specs.clear()
            self._pool_key = key
            if self.pool is not None:  # a new config while running: new workers for it
                old, self.pool = self.pool, self._new_pool()
                old.shutdown()

    async def running(self) -> None:
        if self.pool is None and self._executor is None:
            self.pool = self._new_pool()
            took = await self.pool.ready(WARM_UP_LIMIT_SECONDS)
            log.info("%d worker processes ready in %.1f s", self.pool.workers, took)

    def _new_pool(self) -> WorkerPool:
        cfg = self.source.cfg
        settings = cfg.globals.get("state")
        state_path = None
        if settings is not None and (settings.url or settings.path != ":memory:"):
            from pagesieve.state import location

            state_path = location(settings)  # a postgresql:// URL or the expanded SQLite path
        return WorkerPool(self.source.settings.workers, cfg.resolve(self.source.preset), state_path)

    def done(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()
            self.pool = None

    # -- hooks ---------------------------------------------------------------------------
    def request(self, flow: http.HTTPFlow) -> None:
        """Take the one-page bypass (query parameter or header) off the request before it leaves."""
        if self._param and "?" in flow.request.path:
            path, found = strip_query_param(flow.request.path, self._param)
            if found:
                flow.request.path = path
                flow.metadata[BYPASS_KEY] = "query parameter"
        if self._header and self._header in flow.request.headers:
            value = flow.request.headers.pop(self._header)
            if value.strip() != "0":
                flow.metadata[BYPASS_KEY] = "header"

    def responseheaders(self, flow: http.HTTPFlow) -> None:
        """Decide on headers alone when possible; such responses stream through unbuffered."""
        reason = self._skip_reason(flow)
        if reason is None:
            length = flow.response.headers.get("content-length", "")
            if length.isdigit() and int(length) > self.source.settings.max_body_bytes:
                reason = "too-large"
        if reason is not None:
            flow.response.stream = True
            self._unfiltered(flow, reason)

    async def response(self, flow: http.HTTPFlow) -> None:
        if HEADER in flow.response.headers:
            return  # decided on the headers
        reason = self._skip_reason(flow)
        if reason is not None:
            return self._unfiltered(flow, reason)
        resp = flow.response
        limit = self.source.settings.max_body_bytes
        if resp.raw_content is None:
            return self._unfiltered(flow, "streamed")
        if len(resp.raw_content) > limit:
            return self._unfiltered(flow, "too-large")
        try:
            body = resp.get_content(strict=True)
        except ValueError as err:
            return self._failed(flow, "error", f"cannot decode the body: {err}")
        if body is None or len(body) > limit:
            return self._unfiltered(flow, "too-large")
        kind, charset = media_type(resp.headers)
        if kind not in HTML_TYPES and not sniff_html(body):
            return self._unfiltered(flow, "not-html")
        if not body.strip() or looks_binary(body):
            return self._unfiltered(flow, "not-html")
        try:
            spec = self._spec(flow)
        except ConfigError as err:
            return self._failed(flow, "error", f"profile: {err}")
        await self._filter(flow, spec, body, charset)

    # -- work ----------------------------------------------------------------------------
    def _skip_reason(self, flow: http.HTTPFlow) -> str | None:
        req, resp = flow.request, flow.response
        if flow.metadata.get(OWN_PAGE_KEY) or req.pretty_host == getattr(ctx.options, "onboarding_host", "mitm.it"):
            return "own-page"
        if resp.status_code != 200 or flow.websocket is not None:
            return f"status-{resp.status_code}"
        if req.method.upper() == "HEAD":
            return "head"
        if "range" in req.headers:
            return "range"
        profile = flow.metadata.get(PROFILE_KEY) or {}
        if (profile.get("bypass") or flow.metadata.get(BYPASS_KEY)
                or host_matches(req.pretty_host, self.source.settings.bypass_hosts)):
            return "bypassed"
        kind, _ = media_type(resp.headers)
        if kind not in HTML_TYPES and kind not in SNIFFED_TYPES:
            return "not-html"
        return None

    def _spec(self, flow: http.HTTPFlow) -> Any:
        profile = flow.metadata.get(PROFILE_KEY) or {}
        preset = profile.get("preset") or self.source.preset
        overrides = profile.get("overrides") or {}
        key = (preset, _freeze(overrides))
        spec = self._specs.get(key)
        if spec is None:
            spec = self._specs[key] = self.source.cfg.resolve(preset, overrides)
        return spec

    async def _filter(self, flow: http.HTTPFlow, spec: Any, body: bytes, charset: str | None) -> None:
        s = self.source.settings
        job = Job(spec=spec, body=body, url=flow.request.pretty_url, charset=charset,
                  host=flow.request.pretty_host, timeout=s.timeout_seconds)
        t0 = time.perf_counter()
        generation = None
        try:
            if self.pool is not None:
                generation, future = self.pool.submit(job)
            elif self._executor is not None:
                future = self._executor.submit(filter_page, job)
            else:
                return self._failed(flow, "error", "the worker pool is not running")
            try:
                outcome: Outcome = await asyncio.wait_for(asyncio.wrap_future(future), s.timeout_seconds)
            except TimeoutError:
                future.cancel()
                return self._failed(flow, "timeout", f"filtering took longer than {s.timeout_seconds:g} s")
        except BrokenProcessPool:
            if self.pool is not None:
                self.pool.recover(generation)
            return self._failed(flow, "error", "a worker process died")
        except RuntimeError as err:  # the pool is shutting down
            return self._failed(flow, "error", str(err))
        if outcome.reason is not None:
            if outcome.reason == "not-html":
                return self._unfiltered(flow, "not-html")
            return self._failed(flow, outcome.reason, outcome.error or outcome.reason)
        ms = (time.perf_counter() - t0) * 1000
        resp = flow.response
        resp.set_content(outcome.body)  # re-encodes as Content-Encoding says; sets Content-Length
        resp.headers["content-type"] = f"{outcome.media_type}; charset={web_label(outcome.encoding)}"
        for name in STALE_HEADERS:
            resp.headers.pop(name, None)
        # A filter that raised was undone on this page (the others applied): the header says which.
        errors = [f.split(":")[0] for f in outcome.failed if f.endswith(":error")]
        resp.headers[HEADER] = (f"filtered; preset={spec.preset}; ms={ms:.1f}"
                                + (f"; failed={','.join(errors)}" if errors else ""))
        flow.metadata["pagesieve"] = {"filtered": True, "preset": spec.preset, "ms": round(ms, 1),
                                      "removed_by": dict(outcome.removed_by)}
        removed = ",".join(f"{n}:{c}" for n, c in outcome.removed_by) or "-"
        failed = f" failed={','.join(outcome.failed)}" if outcome.failed else ""
        log.info("filtered %s preset=%s in=%d out=%d ms=%.1f removed=%s%s", flow.request.pretty_host,
                 spec.preset, len(body), len(outcome.body), ms, removed, failed)

    def _unfiltered(self, flow: http.HTTPFlow, reason: str) -> None:
        flow.response.headers[HEADER] = f"unfiltered; reason={reason}"
        flow.metadata["pagesieve"] = {"filtered": False, "reason": reason}

    def _failed(self, flow: http.HTTPFlow, reason: str, why: str) -> None:
        """Fail open: serve the original response, one log line."""
        self._unfiltered(flow, reason)
        log.warning("unfiltered %s reason=%s: %s; original page served", flow.request.pretty_url, reason, why)
