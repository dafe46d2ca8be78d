"""Worker processes that start warm and share what is read-only.

The proxy's workers are forked from a *forkserver* (multiprocessing's ``forkserver`` start
method) that imported pagesieve and built the chain of the proxy's default preset once, before any
worker exists: the block-list engine and the spaCy model are loaded in that one process. Each
worker is a fork of it, so it starts in milliseconds with its filters ready, and the loaded lists
and model weights stay in memory pages that every worker shares copy-on-write (``gc.freeze()``
keeps the collector from writing to — and so copying — the preloaded objects). Before freezing, it
sends one sample page (:data:`WARMUP_PAGE`, an article with navigation, ads, a captioned image and
a layout table) through that chain, so what filters and models build lazily on their first page
(NER buffers, compiled selectors, the list engine's caches) is built once there and shared too,
and a worker's first page costs what its hundredth does.

Not a plain fork of the proxy: the proxy runs threads (mitmproxy, asyncio's executors) and a fork
would copy their locks mid-use. The forkserver is a fresh, single-threaded process started with
exec; it inherits the proxy's environment, which carries the warm spec (:data:`ENV`: the proxy's
pid and a base64 pickle of the :class:`~pagesieve.engine.config.ChainSpec`) to :func:`_preload`, run when multiprocessing
imports this module there. Without the forkserver start method (not POSIX) workers are spawned
and warm themselves up, as before.
"""

from __future__ import annotations

import base64
import gc
import logging
import multiprocessing
import os
import pickle
import signal
import time
from importlib import resources
from typing import Any

log = logging.getLogger("pagesieve.proxy.warm")

#: Environment variable carrying the warm spec from the proxy to its forkserver.
ENV = "PAGESIEVE_WARM_SPEC"

#: True in the forkserver (and so in every worker forked from it) once the preload has warmed a chain.
PRELOADED = False

#: The sample page every chain filters once before it serves (see the module doc).
WARMUP_PAGE = "warmup.html"


def warm_up(chain: Any) -> float:
    """Send :data:`WARMUP_PAGE` through ``chain`` (a :class:`~pagesieve.engine.chain.Chain`); seconds taken.
    A failure is logged and otherwise ignored: the chain is still usable, only colder."""
    t0 = time.perf_counter()
    try:
        page = resources.files(__package__).joinpath(WARMUP_PAGE).read_bytes()
        chain.process(page, url="http://warmup.invalid/", declared_encoding="utf-8")
    except Exception:  # noqa: BLE001 - warming is an optimisation, never a reason not to start
        log.exception("warm-up page failed; workers start colder")
    return time.perf_counter() - t0


def context(warm_spec: Any):
    """The multiprocessing context for the worker pool: a forkserver preloaded with ``warm_spec``'s
    chain (the first pool of the process decides it: the forkserver is started once), or spawn."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    if warm_spec is not None:
        # The proxy's pid first: only its own forkserver (a child) preloads, not any other process
        # that inherits this environment.
        os.environ[ENV] = f"{os.getpid()}:" + base64.b64encode(pickle.dumps(warm_spec)).decode("ascii")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload([__name__])
    return ctx


def start(warm_spec: Any) -> None:
    """Start the forkserver now (it preloads while the proxy finishes starting); idempotent.
    Call it from the proxy's main thread: the forkserver dies with the thread that started it."""
    if context(warm_spec).get_start_method() == "forkserver":
        from multiprocessing import forkserver

        forkserver.ensure_running()


#: prctl option: the signal the kernel sends this process when its parent dies (linux/prctl.h).
PR_SET_PDEATHSIG = 1


def die_with_parent() -> bool:
    """Ask the kernel to SIGKILL this process when its parent dies (Linux ``prctl``), so nothing
    of the proxy lives on after a ``kill -9``; False where that cannot be asked (not Linux).
    The parent is the *thread* that forked this process: call it in a process started from a
    thread that lives as long as its parent does. Checks, after asking, that the parent is not
    already gone (then this process exits at once)."""
    import ctypes
    import ctypes.util

    parent = os.getppid()
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            return False
    except (OSError, AttributeError):
        return False
    if parent == 1 or os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)
    return True


def _preload() -> None:
    """In the forkserver: build the warm chain, then freeze what exists for the workers to share."""
    global PRELOADED
    owner, _, data = os.environ.pop(ENV, "").partition(":")
    if not data or owner != str(os.getppid()):
        return
    # Die with the proxy (a kill -9 of it too); the workers die with this process in turn.
    die_with_parent()
    t0 = time.perf_counter()
    try:
        from pagesieve.engine import config as C

        chain = C.build_chain(pickle.loads(base64.b64decode(data)))
    except Exception:  # noqa: BLE001 - a failed preload only means workers warm up themselves
        log.exception("worker preload failed; each worker builds its chain when it starts")
        return
    warm_s = warm_up(chain)
    PRELOADED = True
    gc.collect()
    gc.freeze()
    log.info("worker preload: chain built and warmed in %.1f s (sample page %.2f s), shared by every worker",
             time.perf_counter() - t0, warm_s)


if multiprocessing.parent_process() is None and ENV in os.environ:
    _preload()
