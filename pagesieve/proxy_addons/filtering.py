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
import hashlib
import json
import logging
import os
import re
import threading
import time
from asyncio import CancelledError
from collections import OrderedDict
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import replace
from typing import Any

from mitmproxy import ctx, http
from mitmproxy.net import encoding
from mitmproxy.net.http.headers import parse_content_type
from mitmproxy.utils.human import parse_size

from pagesieve.document import looks_binary, web_label
from pagesieve.errors import ConfigError
from pagesieve.proxy_addons.bodies import INLINE_DECODE_BYTES, decode_capped
from pagesieve.proxy_addons import warm
from pagesieve.proxy_addons.options import ConfigSource
from pagesieve.proxy_addons.worker import SPEC_CACHE_SIZE, Job, Outcome, filter_page, init_worker

log = logging.getLogger("pagesieve.proxy")

HEADER = "X-Pagesieve"
#: Resolved chain specs kept per (preset, a user's overrides); beyond this the least recently used goes.
PROFILE_KEY = "pagesieve.profile"
OWN_PAGE_KEY = "pagesieve.own_page"
BYPASS_KEY = "pagesieve.bypass"
#: This addon's decision on a flow ({"filtered": bool, "reason"...}): kept here, never read back
#: from a response header (an origin could send one).
DECISION_KEY = "pagesieve"

#: Types that are HTML. application/xhtml+xml is XML: an HTML serialisation would break it.
HTML_TYPES = frozenset({"text/html"})
#: Types a browser sniffs as possibly HTML (WHATWG MIME Sniffing §7.1, "supplied MIME type is
#: undefined or unknown/unknown, application/unknown or */*"); missing is "".
SNIFFED_TYPES = frozenset({"", "unknown/unknown", "application/unknown", "*/*"})
#: Sec-Fetch-Dest of a document loaded inside another page: the frame survived that page's filter.
FRAME_DESTINATIONS = frozenset({"iframe", "frame"})
#: The HTML signatures of WHATWG MIME Sniffing §7.1 ("identifying a resource with an unknown
#: MIME type"): after optional whitespace and BOM, one of these tags followed by a space or '>'.
HTML_SIGNATURE = re.compile(
    rb"^(?:\xef\xbb\xbf)?[\t\n\x0c\r ]*(?:<!DOCTYPE HTML|<HTML|<HEAD|<SCRIPT|<IFRAME|<H1|<DIV|<FONT|<TABLE"
    rb"|<A|<STYLE|<TITLE|<B|<BODY|<BR|<P)[ >]|^(?:\xef\xbb\xbf)?[\t\n\x0c\r ]*<!--", re.IGNORECASE)
#: How long start-up waits for the workers to load their chains (block lists, models) before
#: serving anyway (pages then wait for a worker, within proxy.timeout_seconds).
WARM_UP_LIMIT_SECONDS = 120.0
#: How often the pool is checked for a worker that died while idle (seconds).
WATCH_SECONDS = 0.5
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


class Busy(Exception):
    """The page would wait longer than ``proxy.max_queue_ms`` for a worker."""


class WorkerPool:
    """Worker processes that warm up, take at most one page each at a time, and are replaced
    when one of them dies (busy or idle).

    Pages wait for a free worker here, in the proxy (an :class:`asyncio.Semaphore` of one slot
    per worker), never inside the executor: so a page's time limit counts its filtering only,
    and a page that would wait longer than ``max_queue`` is refused at once (:class:`Busy`).
    A slot is given back when the worker has finished, not when the proxy stops waiting for it.
    """

    def __init__(self, workers: int, warm_spec: Any, state_path: str | None, warm_key: str | None = None,
                 niceness: int = 0) -> None:
        self.workers = workers or os.cpu_count() or 1
        self._initargs = (warm_spec, state_path, warm_key, niceness)
        self._lock = threading.Lock()
        self.generation = 0
        self.executor = self._start()
        self._slots: asyncio.Semaphore | None = None
        self._waiting = 0
        self._avg_s = 0.05  # moving average of a page's time in a worker (seconds)
        self._watch: asyncio.Task | None = None

    def _start(self) -> ProcessPoolExecutor:
        # Forked from a warm forkserver (proxy_addons.warm), not from the proxy: the proxy runs threads.
        executor = ProcessPoolExecutor(max_workers=self.workers, mp_context=warm.context(self._initargs[0]),
                                       initializer=init_worker, initargs=self._initargs)
        # Start every worker now; each warms its chain up (lists, models) before its first task.
        self.warm = [executor.submit(os.getpid) for _ in range(self.workers)]
        return executor

    async def ready(self, limit: float) -> float:
        """Wait (without blocking the event loop) until every worker is warm; seconds taken."""
        t0 = time.perf_counter()
        waiting = [asyncio.wrap_future(f) for f in self.warm]
        for w in waiting:
            w.add_done_callback(_retrieve)  # a worker that died warming up: the watcher replaces it
        await asyncio.wait(waiting, timeout=limit)
        return time.perf_counter() - t0

    def is_warm(self) -> bool:
        return all(f.done() for f in self.warm)

    def watch(self) -> None:
        """Start replacing a pool whose worker died while idle (checked every WATCH_SECONDS)."""
        if self._watch is None:
            self._watch = asyncio.get_running_loop().create_task(self._watch_loop())

    async def _watch_loop(self) -> None:
        while True:
            await asyncio.sleep(WATCH_SECONDS)
            if self.broken():
                self.recover(self.generation)

    def broken(self) -> bool:
        """True when a worker of the current pool died (the executor then refuses every task)."""
        # ProcessPoolExecutor notices a dead worker through its process sentinels and marks
        # itself broken (`_broken`, no public accessor); a worker that exited shows as not alive.
        ex = self.executor
        return bool(getattr(ex, "_broken", False)) or any(
            not p.is_alive() for p in list((getattr(ex, "_processes", None) or {}).values()))

    def _submit(self, job: Job) -> tuple[int, Future]:
        with self._lock:
            return self.generation, self.executor.submit(filter_page, job)

    def submit(self, job: Job) -> tuple[int, Future]:
        """Submit ``job``; a pool found broken is replaced and the job submitted to the new one."""
        try:
            return self._submit(job)
        except (BrokenProcessPool, RuntimeError):
            self.recover(self.generation)
            return self._submit(job)

    async def run(self, job: Job, timeout: float, max_queue: float) -> Outcome:
        """``job``'s outcome; Busy when no worker frees up within ``max_queue`` seconds;
        Outcome(reason="timeout") when its filtering takes longer than ``timeout``."""
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.workers)
        # Refuse at once when the queue ahead (at the recent pace) is already longer than allowed.
        if self._slots.locked() and self._waiting * self._avg_s / self.workers > max_queue:
            raise Busy
        self._waiting += 1
        try:
            await asyncio.wait_for(self._slots.acquire(), max_queue)
        except TimeoutError:
            raise Busy from None
        finally:
            self._waiting -= 1
        loop = asyncio.get_running_loop()
        try:
            # A pool being replaced warms up first; that wait is queueing too, not filtering.
            if not self.is_warm():
                await self.ready(max_queue)
                if not self.is_warm():
                    raise Busy
            generation, future = self.submit(job)
        except BaseException:
            self._slots.release()
            raise
        started = time.perf_counter()
        slots = self._slots

        def finished(f: Future) -> None:
            self._avg_s = 0.8 * self._avg_s + 0.2 * (time.perf_counter() - started)
            loop.call_soon_threadsafe(slots.release)

        future.add_done_callback(finished)
        wrapped = asyncio.wrap_future(future)
        done, _ = await asyncio.wait([wrapped], timeout=timeout)
        if not done:
            # The worker interrupts itself shortly after (SIGALRM); its slot comes back then.
            wrapped.add_done_callback(_retrieve)
            return Outcome(reason="timeout", error=f"filtering took longer than {timeout:g} s")
        try:
            return wrapped.result()
        except BrokenProcessPool:
            self.recover(generation)
            return Outcome(reason="error", error="a worker process died")
        except CancelledError:
            return Outcome(reason="error", error="the worker pool was replaced")

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
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._announcing = loop.create_task(self._announce(self.generation))

    async def _announce(self, generation: int) -> None:
        took = await self.ready(WARM_UP_LIMIT_SECONDS)
        if generation == self.generation:
            log.info("replaced worker pool ready in %.1f s", took)

    def pids(self) -> list[int]:
        return list(getattr(self.executor, "_processes", None) or {})

    def shutdown(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
        self.executor.shutdown(wait=True, cancel_futures=True)


def _retrieve(f: asyncio.Future) -> None:
    """Mark a result nobody waits for any more as seen (no "exception never retrieved" noise)."""
    if not f.cancelled():
        f.exception()


class Declutter:
    """Runs the user's chain on HTML responses (see the module doc)."""

    name = "pagesieve_declutter"

    def __init__(self, source: ConfigSource, executor: Executor | None = None) -> None:
        self.source = source
        self._executor = executor  # tests: a thread pool instead of worker processes
        self.pool: WorkerPool | None = None
        self._pool_key: Any = None
        self._specs: OrderedDict[tuple, tuple[str, Any]] = OrderedDict()
        self._param = ""
        self._header = ""
        self._starting: asyncio.Task | None = None  # the first pool starting (see _start_pool)
        self._closed = False

    # -- lifecycle -----------------------------------------------------------------------
    def configure(self, updated: set[str]) -> None:
        s = self.source.settings
        self._param, self._header = s.bypass_param, s.bypass_header
        # Past max_body_bytes a body is passed through, never buffered: mitmproxy switches a flow
        # to streaming once its buffered body (or its Content-Length) passes stream_large_bodies.
        # An operator's smaller value is kept.
        if "stream_large_bodies" in ctx.options:  # declared by mitmproxy's proxyserver addon
            current = parse_size(ctx.options.stream_large_bodies)
            if current is None or current > s.max_body_bytes:
                ctx.options.update(stream_large_bodies=str(s.max_body_bytes))
        key = (id(self.source.cfg), s.workers, self.source.preset)
        if key != self._pool_key:
            self._specs.clear()
            self._pool_key = key
            if self.pool is None and self._executor is None:  # start-up: preload while mitmproxy starts
                warm.start(self.source.cfg.resolve(self.source.preset))
            if self.pool is not None:  # a new config while running: new workers for it
                old, self.pool = self.pool, self._new_pool()
                old.shutdown()
                self.pool.watch()

    async def running(self) -> None:
        if self.pool is None and self._executor is None and self._starting is None:
            self._starting = asyncio.get_running_loop().create_task(self._start_pool())
            await asyncio.wait([self._starting])
            self._starting.result()  # a pool that could not start: raised here, as before (mitmproxy logs it)

    async def _start_pool(self) -> None:
        """Start the worker pool without blocking the event loop: starting a worker waits for the
        forkserver's preload (lists, model) to finish, so that runs in a thread; meanwhile the
        proxy answers (health checks, its settings page), and a page waits for the workers
        (:meth:`_run`) instead of going out unfiltered."""
        t0 = time.perf_counter()
        pool = await asyncio.to_thread(self._new_pool_unless_closed)
        if pool is None:
            return
        await pool.ready(WARM_UP_LIMIT_SECONDS)
        if self._closed:  # the proxy stopped while the workers warmed up
            pool.shutdown()
            return
        self.pool = pool
        pool.watch()
        log.info("%d worker processes ready in %.1f s", pool.workers, time.perf_counter() - t0)

    def _new_pool_unless_closed(self) -> WorkerPool | None:
        pool = self._new_pool()
        if self._closed:
            pool.shutdown()
            return None
        return pool

    def _new_pool(self) -> WorkerPool:
        cfg = self.source.cfg
        settings = cfg.globals.get("state")
        state_path = None
        if settings is not None and (settings.url or settings.path != ":memory:"):
            from pagesieve.state import location

            state_path = location(settings)  # a postgresql:// URL or the expanded SQLite path
        key, spec = self._spec_for(self.source.preset or cfg.default_preset, {})
        s = self.source.settings
        return WorkerPool(s.workers, spec, state_path, key, niceness=s.worker_niceness)

    def done(self) -> None:
        self._closed = True
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
        resp = _response(flow)
        # Only this addon says whether a page was filtered: a site cannot send that itself.
        resp.headers.pop(HEADER, None)
        reason = self._skip_reason(flow)
        if reason is None:
            length = resp.headers.get("content-length", "")
            if length.isdigit() and int(length) > self.source.settings.max_body_bytes:
                reason = "too-large"
        if reason is not None:
            resp.stream = True
            return self._unfiltered(flow, reason)
        if "content-length" not in resp.headers:
            # Length unknown (chunked or until close): mitmproxy streams it on, headers first, if it
            # passes stream_large_bodies; those headers then say so. A body that ends in time is
            # buffered and the response hook sets the real answer.
            resp.headers[HEADER] = "unfiltered; reason=too-large"

    async def response(self, flow: http.HTTPFlow) -> None:
        if DECISION_KEY in flow.metadata:
            return  # decided on the headers
        resp = _response(flow)
        if resp.stream or resp.raw_content is None:
            # Switched to streaming by mitmproxy (body past stream_large_bodies): already sent.
            return self._unfiltered(flow, "too-large")
        reason = self._skip_reason(flow)
        if reason is not None:
            return self._unfiltered(flow, reason)
        limit = self.source.settings.max_body_bytes
        raw = resp.raw_content
        if len(raw) > limit:
            return self._unfiltered(flow, "too-large")
        coding = resp.headers.get("content-encoding", "")
        body: bytes | None
        try:
            if not coding.strip():
                body = raw
            elif len(raw) <= INLINE_DECODE_BYTES:
                body = decode_capped(raw, coding, limit)
            else:  # a large body is inflated in a thread, never on the event loop
                body = await asyncio.to_thread(decode_capped, raw, coding, limit)
        except ValueError as err:
            return self._failed(flow, "error", f"cannot decode the body: {err}")
        if body is None:
            return self._unfiltered(flow, "too-large")
        kind, charset = media_type(resp.headers)
        if kind not in HTML_TYPES and not sniff_html(body):
            return self._unfiltered(flow, "not-html")
        if not body.strip() or looks_binary(body):
            return self._unfiltered(flow, "not-html")
        try:
            spec_key, spec = self._spec(flow)
        except ConfigError as err:
            return self._failed(flow, "error", f"profile: {err}")
        await self._filter(flow, spec_key, spec, body, charset)

    # -- work ----------------------------------------------------------------------------
    def _skip_reason(self, flow: http.HTTPFlow) -> str | None:
        req, resp = flow.request, _response(flow)
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
        if req.headers.get("sec-fetch-dest", "").strip().lower() in FRAME_DESTINATIONS:
            return "frame"  # content that survived the parent page's filter (a player, a map): as sent
        return None

    def _spec(self, flow: http.HTTPFlow) -> tuple[str, Any]:
        profile = flow.metadata.get(PROFILE_KEY) or {}
        preset = profile.get("preset") or self.source.preset or self.source.cfg.default_preset
        return self._spec_for(preset, profile.get("overrides") or {})

    def _spec_for(self, preset: str, overrides: dict) -> tuple[str, Any]:
        """(key, spec) of a preset with a user's overrides, resolved once (bounded LRU)."""
        frozen = (preset, _freeze(overrides))
        hit = self._specs.get(frozen)
        if hit is not None:
            self._specs.move_to_end(frozen)
            return hit
        spec = self.source.cfg.resolve(preset, overrides)
        key = hashlib.sha256(f"{id(self.source.cfg)}|{frozen[0]}|{frozen[1]}".encode()).hexdigest()[:24]
        self._specs[frozen] = (key, spec)
        while len(self._specs) > SPEC_CACHE_SIZE:
            self._specs.popitem(last=False)
        return key, spec

    async def _run(self, job: Job) -> Outcome:
        s = self.source.settings
        if self.pool is None and self._starting is not None and not self._starting.done():
            await asyncio.wait([self._starting], timeout=WARM_UP_LIMIT_SECONDS)  # start-up: wait, not unfiltered
        if self.pool is not None:
            outcome = await self.pool.run(job, s.timeout_seconds, s.max_queue_ms / 1000)
            if outcome.reason == "need-spec":  # this worker has not seen the spec yet
                outcome = await self.pool.run(replace(job, spec=self._spec_by_key(job.spec_key)),
                                              s.timeout_seconds, s.max_queue_ms / 1000)
            return outcome
        if self._executor is None:
            return Outcome(reason="error", error="the worker pool is not running")
        future = self._executor.submit(filter_page, replace(job, spec=self._spec_by_key(job.spec_key)))
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), s.timeout_seconds)
        except TimeoutError:
            return Outcome(reason="timeout", error=f"filtering took longer than {s.timeout_seconds:g} s")

    def _spec_by_key(self, key: str) -> Any:
        for k, spec in self._specs.values():
            if k == key:
                return spec
        raise KeyError(key)  # not reached: a key is sent only while its spec is cached

    async def _filter(self, flow: http.HTTPFlow, spec_key: str, spec: Any, body: bytes,
                      charset: str | None) -> None:
        s = self.source.settings
        job = Job(spec_key=spec_key, spec=None, body=body, url=flow.request.pretty_url, charset=charset,
                  host=flow.request.pretty_host, timeout=s.timeout_seconds)
        t0 = time.perf_counter()
        try:
            outcome = await self._run(job)
        except Busy:
            self._unfiltered(flow, "busy")
            log.info("unfiltered %s reason=busy: no worker free within %d ms", flow.request.pretty_url,
                     s.max_queue_ms)
            return
        except RuntimeError as err:  # the pool is shutting down
            return self._failed(flow, "error", str(err))
        if outcome.reason is not None:
            if outcome.reason in ("not-html", "needs-scripts"):  # served as sent on purpose: no warning
                return self._unfiltered(flow, outcome.reason)
            return self._failed(flow, outcome.reason, outcome.error or outcome.reason)
        ms = (time.perf_counter() - t0) * 1000
        resp = _response(flow)
        coding = resp.headers.get("content-encoding", "")
        if coding.strip() and len(outcome.body) > INLINE_DECODE_BYTES:
            # Re-encode a large body in a thread, as the origin had it (set_content would do it here).
            try:
                encoded = await asyncio.to_thread(encoding.encode, outcome.body, coding)
            except ValueError:
                resp.set_content(outcome.body)
            else:
                resp.raw_content = encoded
                if "transfer-encoding" not in resp.headers:
                    resp.headers["content-length"] = str(len(encoded))
        else:
            resp.set_content(outcome.body)  # re-encodes as Content-Encoding says; sets Content-Length
        resp.headers["content-type"] = f"{outcome.media_type}; charset={web_label(outcome.encoding)}"
        for name in STALE_HEADERS:
            resp.headers.pop(name, None)
        private_caching(resp.headers, spec_key, auth=self._auth())
        if outcome.content_security_policy:  # e.g. scripts were removed: nothing missed may run
            resp.headers.add("content-security-policy", outcome.content_security_policy)
        # A filter that raised was undone on this page (the others applied): the header says which.
        errors = [f.name for f in outcome.failed if f.status == "error"]
        resp.headers[HEADER] = (f"filtered; preset={spec.preset}; ms={ms:.1f}"
                                + (f"; failed={','.join(errors)}" if errors else ""))
        flow.metadata[DECISION_KEY] = {"filtered": True, "preset": spec.preset, "ms": round(ms, 1),
                                       "removed_by": dict(outcome.removed_by)}
        removed = ",".join(f"{n}:{c}" for n, c in outcome.removed_by) or "-"
        failed = f" failed={','.join(f'{f.name}:{f.status}' for f in outcome.failed)}" if outcome.failed else ""
        log.info("filtered %s preset=%s in=%d out=%d ms=%.1f removed=%s%s", flow.request.pretty_host,
                 spec.preset, len(body), len(outcome.body), ms, removed, failed)

    def _auth(self) -> bool:
        users = self.source.cfg.globals.get("users") if self.source.cfg is not None else None
        return bool(getattr(users, "auth", False))

    def _unfiltered(self, flow: http.HTTPFlow, reason: str) -> None:
        _response(flow).headers[HEADER] = f"unfiltered; reason={reason}"
        flow.metadata[DECISION_KEY] = {"filtered": False, "reason": reason}

    def _failed(self, flow: http.HTTPFlow, reason: str, why: str) -> None:
        """Fail open: serve the original response, one log line."""
        self._unfiltered(flow, reason)
        log.warning("unfiltered %s reason=%s: %s; original page served", flow.request.pretty_url, reason, why)


def private_caching(headers: http.Headers, spec_key: str, *, auth: bool) -> None:
    """Make a filtered response's caching headers true of the filtered bytes (RFC 9110/9111).

    The origin's validators describe its bytes, not ours: a range request or an ``If-Range``
    with them would splice the original into the filtered page. So: no ``Accept-Ranges``; the
    ``ETag`` becomes weak (never usable for ranges) and names the settings that produced it; no
    ``Last-Modified`` (a date validator can serve ranges too). The output depends on the user's
    settings: shared caches must not keep it (``public`` → ``private``, no ``s-maxage``), and
    with authentication on it varies with the user (``Vary: Proxy-Authorization``).
    """
    headers.pop("accept-ranges", None)
    headers.pop("last-modified", None)
    etag = headers.get("etag")
    if etag:
        tag = hashlib.sha256(f"{etag}|{spec_key}".encode()).hexdigest()[:20]
        headers["etag"] = f'W/"ps-{tag}"'
    cc = headers.get("cache-control")
    if cc is not None or auth:
        items = [d.strip() for d in (cc or "").split(",") if d.strip()]
        kept = [d for d in items if d.split("=")[0].strip().lower() not in ("public", "s-maxage", "private")]
        no_store = any(d.lower() == "no-store" for d in kept)
        if not no_store and (auth or len(kept) != len(items)):
            kept.insert(0, "private")
        if kept:
            headers["cache-control"] = ", ".join(kept)
        else:
            headers.pop("cache-control", None)
    if auth:
        vary = [v.strip() for v in headers.get("vary", "").split(",") if v.strip()]
        if "*" not in vary and "proxy-authorization" not in (v.lower() for v in vary):
            headers["vary"] = ", ".join([*vary, "Proxy-Authorization"])


def _response(flow: http.HTTPFlow) -> http.Response:
    """The flow's response (set in every hook this addon reads it in)."""
    resp = flow.response
    assert resp is not None, "a response hook without a response"
    return resp
