"""Workers that start warm: the sample page the forkserver sends through the chain
before it forks, and the worker's return of freed heap memory."""

from __future__ import annotations

import concurrent.futures as cf
import subprocess
import sys

import pytest

from pagesieve.engine import config as C
from pagesieve.proxy_addons import warm, worker
from tests.conftest import REPO

pytestmark = pytest.mark.slow  # starts worker processes and a forkserver


@pytest.mark.parametrize("preset", ["declutter", "reader"])
def test_the_sample_page_goes_through_every_filter_of_a_preset_without_a_failure(preset):
    chain = C.build_chain(C.load().resolve(preset, {}))
    seen = []
    process = chain.process

    def spy(*args, **kwargs):
        result = process(*args, **kwargs)
        seen.append(result)
        return result

    chain.process = spy
    assert warm.warm_up(chain) > 0
    (result,) = seen
    assert [f["filter"] for f in result.filters] == [f.name for f in chain.filters]
    assert all(f["status"] == "ok" for f in result.filters), result.filters
    body = result.body.decode(result.encoding)
    assert "Harbour bridge reopens after repairs" in body and "Tom Okafor" in body


def test_a_failing_sample_page_is_logged_and_does_not_stop_the_start(caplog):
    class Broken:
        def process(self, *args, **kwargs):
            raise RuntimeError("boom")

    assert warm.warm_up(Broken()) >= 0
    assert "warm-up page failed" in caplog.text


PROBE = """
import concurrent.futures as cf
from pagesieve.engine import config as C
from pagesieve.proxy_addons import warm


def probe():
    from pagesieve.proxy_addons import warm as w
    return w.PRELOADED

if __name__ == "__main__":
    ctx = warm.context(C.load().resolve("declutter", {}))
    if ctx.get_start_method() != "forkserver":
        print("no-forkserver")
    else:
        with cf.ProcessPoolExecutor(1, mp_context=ctx) as pool:
            print("preloaded" if pool.submit(probe).result(timeout=120) else "cold")
"""


def test_workers_forked_from_the_forkserver_were_warmed_there(tmp_path):
    # A fresh process: the forkserver is started once per process, by the first pool that asks.
    script = tmp_path / "probe.py"
    script.write_text(PROBE, encoding="utf-8")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300,
                         cwd=str(REPO)).stdout.split()
    if out == ["no-forkserver"]:
        pytest.skip("no forkserver on this platform")
    assert out == ["preloaded"]


def test_freed_memory_is_returned_after_a_large_page_only(monkeypatch):
    calls = []
    monkeypatch.setattr(worker, "_TRIM", lambda pad: calls.append(pad) or 1)
    for _ in range(50):
        worker._release_memory(worker.TRIM_AFTER_BYTES - 1)
    assert calls == []
    worker._release_memory(worker.TRIM_AFTER_BYTES)
    assert calls == [0]


def test_no_malloc_trim_means_no_trimming(monkeypatch):
    monkeypatch.setattr(worker, "_TRIM", False)
    worker._release_memory(worker.TRIM_AFTER_BYTES * 2)  # nothing to call: no error


def _niceness() -> int:
    import os

    return os.nice(0)


def test_workers_run_at_the_configured_lower_cpu_priority():
    import multiprocessing
    import os

    here = os.nice(0)
    ctx = multiprocessing.get_context("spawn")
    with cf.ProcessPoolExecutor(1, mp_context=ctx, initializer=worker.init_worker,
                                initargs=(None, None, None, 3)) as pool:
        assert pool.submit(_niceness).result(timeout=120) == min(19, here + 3)
    with cf.ProcessPoolExecutor(1, mp_context=ctx, initializer=worker.init_worker,
                                initargs=(None, None, None, 0)) as pool:
        assert pool.submit(_niceness).result(timeout=120) == here

