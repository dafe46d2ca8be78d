"""What runs in the proxy's worker processes: one page through the chain, bounded in time.

The proxy's event loop never runs a filter. It sends a :class:`Job` (the key of a
:class:`~pagesieve.engine.config.ChainSpec`, the decoded body it decided is HTML, the URL, the declared charset, the site)
over a pipe to a worker process of its :class:`~pagesieve.proxy_addons.pool.WorkerPool`;
:func:`serve` runs there: :func:`init_worker` warms the process up (builds the default preset's
chain, so rule lists and models load before the first page) and :func:`filter_page` answers each
job with an :class:`Outcome`.

A worker keeps the specs (and their built chains) it was sent, by key, in a bounded LRU
(:data:`SPEC_CACHE_SIZE`): a job carries only the key, and a worker that does not hold it
answers ``reason="need-spec"`` — the proxy then sends that job again with the full spec.

A chain that runs past its time limit is interrupted inside the worker (``SIGALRM``), so a
pathological page does not keep a worker busy after the proxy has given up on it. The alarm
only interrupts Python code: a page that keeps the worker in C code (lxml) past the limit is
ended by the pool, which kills that process and starts another.

A worker dies with the proxy: it leaves its loop when the proxy's end of the pipe closes, and it
asks the kernel to kill it when its parent (the forkserver, or the proxy where workers are
spawned) dies (:func:`pagesieve.proxy_addons.warm.die_with_parent`); the forkserver asks the same of the proxy.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import sqlite3
import threading
import time

from dataclasses import dataclass
from typing import Any

from pagesieve.core.lru import LRU
from pagesieve.proxy_addons import warm

log = logging.getLogger("pagesieve.proxy.worker")

#: Extra time the worker grants itself past the proxy's timeout before it interrupts the chain
#: (the proxy stops waiting first; the worker then frees itself).
SELF_INTERRUPT_GRACE_SECONDS = 0.5


#: Chain specs (with their built chains) a worker keeps, least recently used dropped first. A
#: spec is one (preset, a user's overrides) pair; 64 covers a household's users and their sites.
SPEC_CACHE_SIZE = 64


@dataclass(frozen=True)
class Job:
    spec_key: str  # identifies ``spec``; a worker that holds it needs no spec
    spec: Any  # pagesieve.engine.config.ChainSpec, or None: the worker should hold spec_key already
    body: bytes
    url: str | None
    charset: str | None
    host: str | None
    timeout: float
    #: Also answer where the proxy may insert its own content and what was removed (the page control).
    #: Without it the chain records no explanation at all (nothing reads it).
    explain: bool = False


@dataclass(frozen=True)
class FilterStatus:
    """What one filter of the chain did to the page."""

    name: str
    status: str  # "ok" | "error" | "skipped" | ... as the chain reports it
    removed: int = 0


@dataclass(frozen=True)
class Outcome:
    """A filtered page (``reason`` None) or why it was not filtered (``reason`` + ``error``)."""

    body: bytes = b""
    media_type: str = "text/html"
    encoding: str = "utf-8"
    ms: float = 0.0
    filters: tuple[FilterStatus, ...] = ()
    reason: str | None = None  # "not-html" | "unparsable" | "needs-scripts" | "timeout" | "error" | "need-spec"
    error: str | None = None
    #: The Content-Security-Policy the chain asks the page to be served with (None: none).
    content_security_policy: str | None = None
    #: With ``Job.explain``: the byte offset in ``body`` where the proxy may insert its own content
    #: (None: nowhere, e.g. text output), and the removals of the page's record (:func:`removals_of`).
    slot: int | None = None
    removals: tuple[dict[str, Any], ...] = ()
    #: Milliseconds the page waited for a free worker (set by the proxy's worker pool, for its metrics).
    queued_ms: float = 0.0

    @property
    def removed_by(self) -> tuple[tuple[str, int], ...]:
        return tuple((f.name, f.removed) for f in self.filters if f.removed and f.status == "ok")

    @property
    def failed(self) -> tuple[FilterStatus, ...]:
        return tuple(f for f in self.filters if f.status != "ok")


class _Interrupted(BaseException):
    """Raised by the alarm in a worker whose chain ran too long (BaseException: filters' own
    ``except Exception`` boundaries must not swallow it)."""


_SITES: Any = None  # pagesieve.store.site_memory.SiteMemory in this worker, if built and configured
_ALARM = False  # True in a worker process set up by init_worker (its SIGALRM handler installed)
_CHAINS: LRU[str, Any] = LRU(SPEC_CACHE_SIZE)  # spec key -> its Filterer


def _chain(key: str, spec: Any) -> Any:
    """The public API's :class:`~pagesieve.api.Filterer` for ``key`` (built from ``spec`` and
    remembered), or None when neither is known: workers filter with the same object as the CLI."""
    from pagesieve.api import Filterer

    chain = _CHAINS.get(key)
    if chain is not None:
        return chain
    if spec is None:
        return None
    chain = _CHAINS[key] = Filterer.for_spec(spec)
    return chain


def init_worker(warm_spec: Any = None, state_path: str | None = None, warm_key: str | None = None,
                niceness: int = 0) -> None:
    """Process initializer: ignore Ctrl-C (the proxy shuts the pool down), lower its CPU priority
    by ``niceness`` (``proxy.worker_niceness``: under load the proxy's relaying of every response
    comes first, filtering second), warm up the chain, open the per-site memory when
    pagesieve.store.site_memory exists and a state path is configured."""
    global _SITES, _ALARM
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if niceness:
        try:
            os.nice(niceness)
        except OSError as err:  # not allowed here: filter at the proxy's priority
            log.warning("worker %d keeps the proxy's CPU priority: %s", os.getpid(), err)
    signal.signal(signal.SIGALRM, _on_alarm)
    _ALARM = True
    if warm_spec is not None:
        filterer = _chain(warm_key or "warm", warm_spec)
        if not warm.PRELOADED:  # spawned, not forked from a warmed forkserver: warm this process
            warm.warm_up(filterer.chain)
    if state_path:
        try:
            from pagesieve.store.site_memory import SiteMemory
        except ModuleNotFoundError as err:
            if err.name != "pagesieve.store.site_memory":
                raise
        else:
            _SITES = _open_sites(SiteMemory, state_path)


#: Attempts to open the per-site memory at worker start (workers start together and the
#: first opening of a SQLite file in WAL mode can find it locked).
SITE_MEMORY_ATTEMPTS = 3


def _open_sites(factory: Any, path: str) -> Any:
    """The per-site memory, or None (one log line) when it cannot be opened: pages are then
    filtered without it, as offline."""
    from pagesieve.core.errors import PagesieveError

    for attempt in range(SITE_MEMORY_ATTEMPTS):
        try:
            return factory(path)
        except (PagesieveError, sqlite3.Error) as err:
            if attempt == SITE_MEMORY_ATTEMPTS - 1:
                log.warning("per-site memory unavailable in worker %d: %s; filtering without it", os.getpid(), err)
                return None
            time.sleep(0.2 * (attempt + 1))
    return None


#: A page at least this large has its freed heap memory given back to the system when it is done.
TRIM_AFTER_BYTES = 1024 * 1024
_TRIM: Any = None  # libc's malloc_trim, False where there is none (not glibc), None until looked up


def _release_memory(page_bytes: int) -> None:
    """After a large page (:data:`TRIM_AFTER_BYTES`), give the heap's free pages back to the system
    (glibc's ``malloc_trim``): its tree is freed when it is done, but glibc keeps the freed blocks,
    so one huge page would leave the worker that much larger for good. Not after every page: on the
    scrapinghub pages through the proxy at 8 clients, trimming every 512 KiB of pages lowered private
    memory per worker from 76-78 to 61-64 MB but cost 11% of throughput (the next pages fault the
    memory back in); the warm-up page already keeps it under 80 MB."""
    global _TRIM
    if page_bytes < TRIM_AFTER_BYTES:
        return
    if _TRIM is None:
        import ctypes
        import ctypes.util

        try:
            _TRIM = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
        except (OSError, AttributeError):
            _TRIM = False
    if _TRIM:
        _TRIM(0)


def serve(conn: Any, initargs: tuple) -> None:
    """A worker process's main loop: warm up, say ``("ready", pid)`` (or ``("failed", why)``),
    then answer each :class:`Job` received on ``conn`` with its :class:`Outcome`, until the proxy
    closes its end."""
    warm.die_with_parent()
    try:
        init_worker(*initargs)
    except BaseException as err:
        conn.send(("failed", f"{type(err).__name__}: {err}"))
        raise
    conn.send(("ready", os.getpid()))
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):  # the proxy closed its end (or died): nothing more to do
            return
        conn.send(filter_page(job))


def _on_alarm(signum, frame) -> None:
    raise _Interrupted()


def filter_page(job: Job) -> Outcome:
    """Run ``job`` through its chain; never raises for a page (the reason is in the outcome)."""
    from pagesieve.core.errors import InputError

    alarm = _ALARM and threading.current_thread() is threading.main_thread()
    if alarm:
        signal.setitimer(signal.ITIMER_REAL, job.timeout + SELF_INTERRUPT_GRACE_SECONDS)
    t0 = time.perf_counter()
    try:
        chain = _chain(job.spec_key, job.spec)
        if chain is None:
            return Outcome(reason="need-spec")
        store = _SITES.site(job.host) if _SITES is not None and job.host else None
        # The proxy sends only bodies it decided are HTML (http_rules.candidate): the chain does not
        # sniff them again.
        result = chain.process(job.body, url=job.url, declared_encoding=job.charset, store=store,
                               declared_html=True, slot=job.explain,
                               explain=REMOVAL_ACTIONS if job.explain else False)
    except _Interrupted:
        return Outcome(reason="timeout", error=f"chain interrupted after {time.perf_counter() - t0:.1f} s")
    except InputError as err:
        return Outcome(reason=err.reason, error=str(err))
    except Exception as err:  # noqa: BLE001 - fail open: the proxy serves the original page
        log.exception("filtering %s failed", job.url)
        return Outcome(reason="error", error=f"{type(err).__name__}: {err}")
    finally:
        if alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
        _release_memory(len(job.body))
    filters = tuple(FilterStatus(f["filter"], f["status"], f["removed"] or 0) for f in result.filters)
    return Outcome(body=result.body, media_type=result.media_type, encoding=result.encoding, ms=result.ms,
                   filters=filters, content_security_policy=result.content_security_policy, slot=result.slot,
                   removals=removals_of(result.record) if job.explain else ())


#: The entries of a page's record that say what left the page, or that a filter's changes were undone.
REMOVAL_ACTIONS = frozenset({"remove", "replace", "error", "revert"})
#: Fields of such an entry a person reads (the rest, e.g. the node's path, is for ``--explain``'s readers).
REMOVAL_FIELDS = ("filter", "action", "node", "reason", "measured", "threshold")


def removals_of(record: list[dict[str, Any]]) -> tuple[dict[str, Any], ...]:
    """The removals (and undoings) of a page's record, as ``pagesieve filter --explain`` lists them:
    what the proxy keeps for "What was removed" (a few KB a page: median 2.5 KB, at most 10 KB
    pickled over 60 scrapinghub pages with declutter)."""
    kept = [{k: e[k] for k in REMOVAL_FIELDS if k in e} for e in record if e.get("action") in REMOVAL_ACTIONS]
    return tuple(json.loads(json.dumps(kept, default=str)))  # as --explain writes them (and picklable)
