"""The proxy's worker pool: processes that filter pages, one page each at a time.

See :class:`WorkerPool`. What runs inside a worker is in :mod:`pagesieve.proxy_addons.worker`;
how workers start warm is in :mod:`pagesieve.proxy_addons.warm`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from asyncio import CancelledError
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from pagesieve.proxy_addons import warm
from pagesieve.proxy_addons.worker import Job, Outcome, filter_page, init_worker

log = logging.getLogger("pagesieve.proxy")

#: How long start-up waits for the workers to load their chains (block lists, models) before
#: serving anyway (pages then wait for a worker, within proxy.timeout_seconds).
WARM_UP_LIMIT_SECONDS = 120.0
#: How often the pool is checked for a worker that died while idle (seconds).
WATCH_SECONDS = 0.5


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
