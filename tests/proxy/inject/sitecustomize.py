"""Fault injection for the proxy tests — on sys.path only in the proxy processes the tests start.

A page carrying ``<meta name="pagesieve-test" content="…">`` makes the worker misbehave, so the
tests can check fail-open end to end through a real ``pagesieve run`` process:

* ``raise``         the ``ignore`` filter raises (the chain's per-filter boundary undoes it, but for
                    its script removal, a step of its own);
* ``raise-secure``  that script removal raises (the page cannot be served filtered);
* ``raise-outside`` ``Chain.process`` raises outside every filter boundary (the worker reports an error);
* ``crash``         the worker process dies (``os._exit``);
* ``slow``          the ``ignore`` filter sleeps 30 s (the proxy's time limit fires);
* ``pause``         the ``ignore`` filter sleeps 0.3 s (a page that holds its worker a known time,
                    well within the limit, without using the CPU);
* ``costly``        the ``ignore`` filter sleeps 1.5 s (likewise, for a page that costs five pauses,
                    as a huge page or settings that make every page slow do).

And a slow state database: with ``PAGESIEVE_TEST_SLOW_STATE`` naming a file, each read of the SQLite
state database (a query, the change check) sleeps 3 s while that file exists.

Nothing here is imported by pagesieve itself.
"""

import os
import time


def _fault(root):
    for meta in root.iter("meta"):
        if meta.get("name") == "pagesieve-test":
            return meta.get("content")
    return None


def _install():
    try:
        from pagesieve.engine.chain import Chain
        from pagesieve.filters.ignore import IgnoreFilter
    except Exception:  # noqa: BLE001 - not a pagesieve process: nothing to inject
        return
    apply, secure, process = IgnoreFilter.apply, IgnoreFilter.secure, Chain.process

    def faulty_secure(self, page, ctx):
        if _fault(page.root) == "raise-secure":
            raise RuntimeError("injected fault in the script removal")
        return secure(self, page, ctx)

    def faulty_apply(self, page, ctx):
        fault = _fault(page.root)
        if fault == "raise":
            raise RuntimeError("injected fault in the ignore filter")
        if fault == "crash":
            os._exit(3)
        if fault == "slow":
            time.sleep(30)
        if fault == "pause":
            time.sleep(0.3)
        if fault == "costly":
            time.sleep(1.5)
        return apply(self, page, ctx)

    def faulty_process(self, data, **kw):
        if b'content="raise-outside"' in data:
            raise RuntimeError("injected fault outside the filters")
        return process(self, data, **kw)

    IgnoreFilter.apply = faulty_apply
    IgnoreFilter.secure = faulty_secure
    Chain.process = faulty_process


def _install_slow_state():
    marker = os.environ.get("PAGESIEVE_TEST_SLOW_STATE")
    if not marker:
        return
    try:
        from pagesieve.store.state import SQLiteDatabase
    except Exception:  # noqa: BLE001 - not a pagesieve process
        return
    query, change_token = SQLiteDatabase.query, SQLiteDatabase.change_token

    def slow(method):
        def wrapper(self, *args, **kw):
            if os.path.exists(marker):
                time.sleep(3)
            return method(self, *args, **kw)
        return wrapper

    SQLiteDatabase.query = slow(query)
    SQLiteDatabase.change_token = slow(change_token)


_install()
_install_slow_state()
