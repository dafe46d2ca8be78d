"""The proxy's worker pool: processes that filter pages, one page each at a time.

Each worker is a process (forked from the warm forkserver, :mod:`pagesieve.proxy_addons.warm`)
with its own pipe to the proxy, served by one thread of the proxy that sends it a page, waits
for the answer within the page's time limit, and replaces the process when it dies or has to be
killed. One worker's end never touches the others: a page that keeps its worker past
``proxy.timeout_seconds`` (+ :data:`KILL_GRACE_SECONDS`) in C code that the worker's own alarm
cannot interrupt has that process killed and a warm one started in its place, while the other
workers finish their pages. (A :class:`concurrent.futures.ProcessPoolExecutor` breaks as a
whole when one of its processes dies, and has no way to kill one.)

Pages wait for a free worker here, in the proxy (one slot per worker, shared by clients by the
worker time they used recently: :class:`~pagesieve.proxy_addons.fair.FairSlots`), never behind a
busy one: so a page's time limit counts its filtering only, and a page that would wait longer than
``max_queue`` is refused (:class:`Busy`) — at once when the worker time of the pages that would be
served before it, spread over the workers, already makes that wait, so a client whose own burst or
costly pages fill the queue is refused, not the others. A slot is given back when its worker can
take the next page (after a replacement has warmed up), not when the proxy stops waiting for it; the
page's client is charged that time, from its worker taking it until then: a page that got its worker
killed also pays for the start of the next one. The same seconds are counted by outcome for the
metrics (:attr:`WorkerPool.worker_seconds`).

What runs inside a worker is in :mod:`pagesieve.proxy_addons.worker` (:func:`~pagesieve.proxy_addons.worker.serve`).
:class:`Workers` is the filtering addon's side: the chain specs it sends by key, the pool started
without blocking the event loop and replaced when the configuration changes.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import queue
import threading
import time
from collections import defaultdict
from concurrent.futures import Executor, Future
from dataclasses import replace
from typing import Any

from pagesieve.core.lru import LRU
from pagesieve.proxy_addons import warm
from pagesieve.proxy_addons.fair import FairSlots, Turn
from pagesieve.proxy_addons.worker import (
    SELF_INTERRUPT_GRACE_SECONDS,
    SPEC_CACHE_SIZE,
    Job,
    Outcome,
    filter_page,
    serve,
)

log = logging.getLogger("pagesieve.proxy")

#: How long start-up waits for the workers to load their chains (block lists, models) before
#: serving anyway (pages then wait for a worker, within proxy.timeout_seconds).
WARM_UP_LIMIT_SECONDS = 120.0
#: How often an idle worker is checked for having died (seconds).
WATCH_SECONDS = 0.5
#: How long past a page's time limit its worker may stay busy before it is killed (seconds). The
#: worker interrupts a chain in Python itself SELF_INTERRUPT_GRACE_SECONDS after the limit and
#: answers; one still silent a second later is stuck in C code (an 80,000-attribute element kept
#: lxml busy for 75 s) and is killed.
KILL_GRACE_SECONDS = SELF_INTERRUPT_GRACE_SECONDS + 1.0
#: After a worker failed to start, how long its thread waits before it tries again (seconds).
RESTART_PAUSE_SECONDS = 1.0


class Busy(Exception):
    """The page would wait longer than ``proxy.max_queue_ms`` for a worker."""


class WorkerDied(Exception):
    """A worker process could not be started."""


class _Worker:
    """One worker process and its pipe (the proxy's end)."""

    def __init__(self, process: Any, conn: Any) -> None:
        self.process, self.conn = process, conn

    def alive(self) -> bool:
        return self.process.is_alive()

    def stop(self, kill: bool = False) -> None:
        """End the process: close the pipe (an idle worker then leaves its loop), or kill it."""
        try:
            self.conn.close()
        except OSError:
            pass
        if kill:
            self.process.kill()
        self.process.join(2)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(2)


class WorkerPool:
    """``workers`` worker processes, each served by its own thread (see the module doc)."""

    def __init__(self, workers: int, warm_spec: Any, state_path: str | None, warm_key: str | None = None,
                 niceness: int = 0) -> None:
        self.workers = workers or os.cpu_count() or 1
        self._initargs = (warm_spec, state_path, warm_key, niceness)
        self._ctx = warm.context(warm_spec)
        self._jobs: queue.SimpleQueue[tuple[Job, float, Future, Turn] | None] = queue.SimpleQueue()
        self._closed = threading.Event()
        self._current: list[_Worker | None] = [None] * self.workers
        self._warm = [threading.Event() for _ in range(self.workers)]
        self._slots: FairSlots | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        #: Worker seconds used by pages, by outcome ("filtered", or why not: "timeout", "error"...).
        self.worker_seconds: defaultdict[str, float] = defaultdict(float)
        self.replaced = 0  # workers replaced since the start (died, or killed past the time limit)
        self._threads = [threading.Thread(target=self._serve, args=(i,), name=f"pagesieve-worker-{i}", daemon=True)
                         for i in range(self.workers)]
        for t in self._threads:
            t.start()

    # -- the proxy's side ----------------------------------------------------------------
    async def ready(self, limit: float) -> float:
        """Wait (without blocking the event loop) until every worker is warm; seconds taken."""
        t0 = time.perf_counter()
        deadline = t0 + limit
        while not self.is_warm() and time.perf_counter() < deadline and not self._closed.is_set():
            await asyncio.sleep(0.05)
        return time.perf_counter() - t0

    def is_warm(self) -> bool:
        return all(e.is_set() for e in self._warm)

    def watch(self) -> None:
        """Kept for the callers: each worker's thread watches its process itself."""

    @property
    def waiting(self) -> tuple[int, int]:
        """(pages waiting for a worker, clients they are from)."""
        return (self._slots.waiting, self._slots.clients) if self._slots is not None else (0, 0)

    async def run(self, job: Job, timeout: float, max_queue: float, client: str = "") -> Outcome:
        """``job``'s outcome; Busy when no worker frees up for it within ``max_queue`` seconds;
        Outcome(reason="timeout") when its filtering takes longer than ``timeout``. ``client`` (a
        user or an address) is who the page is for: clients share the workers by worker time."""
        if self._slots is None:
            self._slots = FairSlots(self.workers)
            self._loop = asyncio.get_running_loop()
        slots = self._slots
        # Refuse at once when the pages served before this one, shared among the workers, already take
        # longer than allowed (an estimate: the pages running now are not counted).
        if slots.locked() and slots.ahead(client) / self.workers > max_queue:
            raise Busy
        t0 = time.perf_counter()
        try:
            turn = await asyncio.wait_for(slots.acquire(client), max_queue)
        except TimeoutError:
            raise Busy from None
        queued_ms = (time.perf_counter() - t0) * 1000
        if self._closed.is_set():
            slots.release(turn)
            raise RuntimeError("the worker pool is shut down")
        # The slot goes back when a worker's thread is ready for the next page (_free), not here.
        future: Future = Future()
        self._jobs.put((job, timeout, future, turn))
        wrapped = asyncio.wrap_future(future)
        done, _ = await asyncio.wait([wrapped], timeout=timeout)
        if not done:
            # The worker interrupts itself shortly after (SIGALRM), or its thread kills it.
            wrapped.add_done_callback(_retrieve)
            return Outcome(reason="timeout", error=f"filtering took longer than {timeout:g} s", queued_ms=queued_ms)
        return replace(wrapped.result(), queued_ms=queued_ms)

    def _free(self, turn: Turn, seconds: float | None, outcome: str) -> None:
        """A worker can take the next page: give ``turn``'s slot back, with the worker ``seconds``
        its page used (None: it never reached a worker), on the event loop's thread."""
        loop = self._loop
        if loop is None:
            return
        try:
            loop.call_soon_threadsafe(self._freed, turn, seconds, outcome)
        except RuntimeError:  # the loop is closed: the proxy is stopping
            pass

    def _freed(self, turn: Turn, seconds: float | None, outcome: str) -> None:
        if seconds is not None:
            self.worker_seconds[outcome] += seconds
        if self._slots is not None:
            self._slots.release(turn, seconds)

    def pids(self) -> list[int]:
        return [w.process.pid for w in self._current if w is not None and w.process.pid is not None]

    def shutdown(self, wait: float = 0.0) -> None:
        """Stop taking pages; each worker's thread ends its process after the page it has (if any).
        Waits up to ``wait`` seconds for that; pages still queued get an error outcome."""
        self._closed.set()
        while True:  # pages no thread took yet: the proxy serves them unfiltered
            try:
                item = self._jobs.get_nowait()
            except queue.Empty:
                break
            if item is not None and item[2].set_running_or_notify_cancel():
                item[2].set_result(Outcome(reason="error", error="the worker pool was shut down"))
        for _ in self._threads:
            self._jobs.put(None)
        deadline = time.monotonic() + wait
        for t in self._threads:
            t.join(max(0.0, deadline - time.monotonic()))

    # -- a worker's thread ---------------------------------------------------------------
    def _serve(self, i: int) -> None:
        """Keep worker ``i`` running and send it pages, one at a time, until shutdown."""
        worker: _Worker | None = None
        started_once = False
        try:
            while not self._closed.is_set():
                if worker is None or not worker.alive():
                    if worker is not None:
                        log.warning("worker %s died; starting another", worker.process.pid)
                        worker.stop()
                        self._warm[i].clear()
                    worker = self._start_worker(i, replacing=started_once)
                    if worker is None:
                        continue
                    started_once = True
                try:
                    item = self._jobs.get(timeout=WATCH_SECONDS)
                except queue.Empty:
                    continue
                if item is None:
                    break
                job, timeout, future, turn = item
                if not future.set_running_or_notify_cancel():
                    self._free(turn, None, "")
                    continue
                t0 = time.perf_counter()
                outcome, healthy = self._roundtrip(worker, job, timeout)
                future.set_result(outcome)
                if not healthy:
                    worker.stop(kill=True)
                    self._warm[i].clear()
                    worker = None if self._closed.is_set() else self._start_worker(i, replacing=True)
                self._free(turn, time.perf_counter() - t0, outcome.reason or "filtered")
        finally:
            if worker is not None:
                worker.stop()

    def _roundtrip(self, worker: _Worker, job: Job, timeout: float) -> tuple[Outcome, bool]:
        """(``job``'s outcome, whether the worker can take another page)."""
        pid = worker.process.pid
        try:
            worker.conn.send(job)
            if worker.conn.poll(timeout + KILL_GRACE_SECONDS):
                return worker.conn.recv(), True
        except (EOFError, OSError):
            return Outcome(reason="error", error="a worker process died"), False
        log.warning("worker %s still busy %.1f s past the %g s time limit (in code its alarm cannot "
                    "interrupt): killed, another one starts", pid, KILL_GRACE_SECONDS, timeout)
        return Outcome(reason="timeout", error=f"filtering took longer than {timeout:g} s; worker killed"), False

    def _start_worker(self, i: int, replacing: bool) -> _Worker | None:
        """Start worker ``i`` and wait until it is warm; None (after a pause) when it could not start."""
        t0 = time.perf_counter()
        parent, child = self._ctx.Pipe()
        process = self._ctx.Process(target=serve, args=(child, self._initargs), name=f"pagesieve-worker-{i}",
                                    daemon=True)
        try:
            process.start()
        except Exception as err:  # noqa: BLE001 - e.g. the forkserver could not be reached: try again
            log.warning("worker %d could not start: %s", i, err)
            parent.close()
            child.close()
            time.sleep(RESTART_PAUSE_SECONDS)
            return None
        finally:
            child.close()
        worker = _Worker(process, parent)
        why = "no answer"
        try:
            if parent.poll(WARM_UP_LIMIT_SECONDS):
                kind, detail = parent.recv()
                if kind == "ready":
                    self._current[i] = worker
                    self._warm[i].set()
                    if replacing:
                        self.replaced += 1
                        log.info("replacement worker %s ready in %.1f s", process.pid, time.perf_counter() - t0)
                    return worker
                why = detail
        except (EOFError, OSError):
            why = f"it exited with {process.exitcode}"
        log.warning("worker %d could not start: %s", i, why)
        worker.stop(kill=True)
        time.sleep(RESTART_PAUSE_SECONDS)
        return None


class Workers:
    """The filtering addon's workers: a preset with a user's overrides resolved once into a chain
    spec (bounded LRU) and sent by key; the :class:`WorkerPool` started in a thread and replaced
    with the configuration; a page run with the full spec again when its worker lacks it.
    ``executor``: a thread pool instead of worker processes (tests)."""

    def __init__(self, source: Any, executor: Executor | None = None) -> None:
        self.source = source  # pagesieve.proxy_addons.options.ConfigSource
        self._executor = executor
        self.pool: WorkerPool | None = None
        self._pool_key: Any = None
        #: Resolved chain specs by key (a preset with a user's overrides); beyond this the least recently used goes.
        self._specs: LRU[str, Any] = LRU(SPEC_CACHE_SIZE)
        self._starting: asyncio.Task | None = None  # the first pool starting (see _start_pool)
        self._closed = False

    def configure(self) -> None:
        s = self.source.settings
        key = (id(self.source.cfg), s.workers, self.source.default_preset)
        if key != self._pool_key:
            self._specs.clear()
            self._pool_key = key
            if self.pool is None and self._executor is None:  # start-up: preload while mitmproxy starts
                warm.start(self.source.cfg.resolve(self.source.default_preset))
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
        (:meth:`run`) instead of going out unfiltered."""
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
            from pagesieve.store.state import location

            state_path = location(settings)  # a postgresql:// URL or the expanded SQLite path
        key, spec = self.spec(self.source.default_preset, {})
        s = self.source.settings
        return WorkerPool(s.workers, spec, state_path, key, niceness=s.worker_niceness)

    def done(self) -> None:
        self._closed = True
        if self.pool is not None:
            self.pool.shutdown()
            self.pool = None

    def spec(self, preset: str, overrides: dict) -> tuple[str, Any]:
        """(key, spec) of a preset with a user's overrides, resolved once (bounded LRU)."""
        frozen = json.dumps(overrides, sort_keys=True, default=str)
        key = hashlib.sha256(f"{id(self.source.cfg)}|{preset}|{frozen}".encode()).hexdigest()[:24]
        spec = self._specs.get(key)
        if spec is None:
            spec = self._specs[key] = self.source.cfg.resolve(preset, overrides)
        return key, spec

    def _spec_by_key(self, key: str) -> Any:
        spec = self._specs.get(key)
        if spec is None:
            raise KeyError(key)  # not reached: a key is sent only while its spec is cached
        return spec

    async def run(self, job: Job, client: str = "") -> Outcome:
        """``job``'s outcome for ``client`` (a user or an address: clients share the workers by worker time);
        Busy when no worker frees up in time; RuntimeError once shut down."""
        s = self.source.settings
        if self.pool is None and self._starting is not None and not self._starting.done():
            await asyncio.wait([self._starting], timeout=WARM_UP_LIMIT_SECONDS)  # start-up: wait, not unfiltered
        if self.pool is not None:
            outcome = await self.pool.run(job, s.timeout_seconds, s.max_queue_ms / 1000, client)
            if outcome.reason == "need-spec":  # this worker has not seen the spec yet
                outcome = await self.pool.run(replace(job, spec=self._spec_by_key(job.spec_key)),
                                              s.timeout_seconds, s.max_queue_ms / 1000, client)
            return outcome
        if self._executor is None:
            return Outcome(reason="error", error="the worker pool is not running")
        future = self._executor.submit(filter_page, replace(job, spec=self._spec_by_key(job.spec_key)))
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), s.timeout_seconds)
        except TimeoutError:
            return Outcome(reason="timeout", error=f"filtering took longer than {s.timeout_seconds:g} s")


def _retrieve(f: asyncio.Future) -> None:
    """Mark a result nobody waits for any more as seen (no "exception never retrieved" noise)."""
    if not f.cancelled():
        f.exception()
