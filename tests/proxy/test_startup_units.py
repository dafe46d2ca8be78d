"""Start-up without blocking: the first worker pool starts in a thread while the event loop keeps
answering, and a page that arrives before the workers are warm waits for them ("no page
unfiltered for warm-up")."""

from __future__ import annotations

import asyncio
import threading
import time

from pagesieve.engine import config as C
from pagesieve.proxy_addons.filtering import Declutter
from pagesieve.proxy_addons.options import ConfigSource
from pagesieve.proxy_addons.worker import Job, Outcome

JOB = Job(spec_key="k", spec=None, body=b"<p>x</p>", url="http://example.org/", charset=None, host="example.org",
          timeout=5.0)


class SlowPool:
    """A pool whose creation blocks its thread (as a forkserver's preload does) and whose workers
    answer at once when warm."""

    workers = 1

    def __init__(self, seconds: float) -> None:
        time.sleep(seconds)
        self.thread = threading.current_thread()

    async def ready(self, limit: float) -> float:
        return 0.0

    def watch(self) -> None:
        pass

    def shutdown(self) -> None:
        self.shut = True

    async def run(self, job, timeout, max_queue, client="") -> Outcome:
        return Outcome(body=b"filtered")


def declutter(seconds: float) -> Declutter:
    d = Declutter(ConfigSource(C.load()))
    d.workers._new_pool = lambda: SlowPool(seconds)  # type: ignore[method-assign]
    return d


def test_start_up_does_not_block_the_loop_and_an_early_page_waits():
    d = declutter(0.5)

    async def scenario():
        ticks = 0

        async def tick():
            nonlocal ticks
            while True:
                await asyncio.sleep(0.02)
                ticks += 1

        ticker = asyncio.create_task(tick())
        running = asyncio.create_task(d.running())
        await asyncio.sleep(0.05)
        assert d.pool is None  # still starting
        outcome = await d.workers.run(JOB)  # arrives during start-up
        await running
        ticker.cancel()
        return outcome, ticks

    outcome, ticks = asyncio.run(scenario())
    assert outcome.reason is None and outcome.body == b"filtered"  # waited, then filtered
    # The loop kept running while the pool started (0.5 s in a thread): 25 ticks on an idle machine,
    # 8 seen under load; a blocked loop gets about 3 (before the start and once after it).
    assert ticks >= 5
    assert d.pool.thread is not threading.main_thread()


def test_a_proxy_stopped_during_start_up_shuts_its_pool():
    d = declutter(0.3)

    async def scenario():
        running = asyncio.create_task(d.running())
        await asyncio.sleep(0.05)
        d.done()
        await running

    asyncio.run(scenario())
    assert d.pool is None


def test_a_pool_that_cannot_start_raises_from_running():
    d = Declutter(ConfigSource(C.load()))

    def broken():
        raise OSError("no forkserver")

    d.workers._new_pool = broken  # type: ignore[method-assign]
    try:
        asyncio.run(d.running())
    except OSError as err:
        assert "no forkserver" in str(err)
    else:
        raise AssertionError("running() hid the failure")
