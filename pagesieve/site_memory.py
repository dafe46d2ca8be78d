"""Per-site memory of recently seen pages' blocks, for filters that learn across pages.

The ``template_blocks`` filter (ContentExtractor) needs "the other pages of this site": it
compares a page's blocks with the blocks of pages of the same site seen recently, then records
the page's own blocks. This module keeps those records, bounded per site by count and age:

* :class:`SiteMemory` — the records in SQLite (the project's state database, through
  :func:`pagesieve.state.connect` / :func:`pagesieve.state.migrate`); ``.site(host)`` gives one
  site's store. The proxy passes ``store=SiteMemory(path).site(host)`` per page.
* :class:`MemorySite` — the same store in memory (``pagesieve filter --sibling PAGE``, tests).

A site store has two methods, which is all a filter may rely on:

``pages(exclude, max_age_s)``
    the block lists of the site's pages seen within ``max_age_s`` seconds, newest first, except
    the page whose key is ``exclude`` (a page is not its own template);
``remember(key, blocks, max_pages, max_age_s)``
    record (or replace) one page's blocks, then drop the site's pages older than ``max_age_s``
    and all but the newest ``max_pages``.

Blocks are JSON-ready lists (a filter's own format); the store does not look inside them.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any, Callable

#: Schema history of the ``site_blocks`` component (append only; see :mod:`pagesieve.state`).
MIGRATIONS = [
    "CREATE TABLE site_blocks (host TEXT NOT NULL, page TEXT NOT NULL, seen REAL NOT NULL, "
    "blocks TEXT NOT NULL, PRIMARY KEY (host, page));"
    "CREATE INDEX site_blocks_seen ON site_blocks (host, seen);",
]


class MemorySite:
    """One site's page records, in memory."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._pages: dict[str, tuple[float, list]] = {}
        self._clock = clock

    def pages(self, exclude: str | None = None, max_age_s: float | None = None) -> list[list]:
        now = self._clock()
        rows = sorted(((seen, key, blocks) for key, (seen, blocks) in self._pages.items()
                       if key != exclude and (max_age_s is None or now - seen <= max_age_s)),
                      key=lambda r: r[0], reverse=True)
        return [blocks for _, _, blocks in rows]

    def remember(self, key: str, blocks: list, max_pages: int, max_age_s: float | None = None) -> None:
        now = self._clock()
        self._pages[key] = (now, blocks)
        keep = sorted(((seen, k) for k, (seen, _) in self._pages.items()
                       if max_age_s is None or now - seen <= max_age_s), reverse=True)[:max_pages]
        kept = {k for _, k in keep}
        self._pages = {k: v for k, v in self._pages.items() if k in kept}

    def __len__(self) -> int:
        return len(self._pages)


class SiteStore:
    """One site's page records in the state database (made by :meth:`SiteMemory.site`)."""

    def __init__(self, memory: "SiteMemory", host: str) -> None:
        self._memory = memory
        self.host = host

    def pages(self, exclude: str | None = None, max_age_s: float | None = None) -> list[list]:
        now = self._memory.clock()
        oldest = now - max_age_s if max_age_s is not None else float("-inf")
        rows = self._memory.query("SELECT page, blocks FROM site_blocks WHERE host = ? AND seen >= ? "
                                  "ORDER BY seen DESC", (self.host, oldest))
        return [json.loads(blocks) for page, blocks in rows if page != exclude]

    def remember(self, key: str, blocks: list, max_pages: int, max_age_s: float | None = None) -> None:
        now = self._memory.clock()
        oldest = now - max_age_s if max_age_s is not None else float("-inf")
        self._memory.write([
            ("INSERT OR REPLACE INTO site_blocks (host, page, seen, blocks) VALUES (?, ?, ?, ?)",
             (self.host, key, now, json.dumps(blocks, separators=(",", ":")))),
            ("DELETE FROM site_blocks WHERE host = ? AND seen < ?", (self.host, oldest)),
            ("DELETE FROM site_blocks WHERE host = ? AND page NOT IN (SELECT page FROM site_blocks "
             "WHERE host = ? ORDER BY seen DESC LIMIT ?)", (self.host, self.host, max_pages)),
        ])

    def __len__(self) -> int:
        return self._memory.query("SELECT COUNT(*) FROM site_blocks WHERE host = ?", (self.host,))[0][0]


class SiteMemory:
    """Bounded per-site page records in the SQLite state database at ``path``."""

    def __init__(self, path: str | Path = ":memory:", clock: Callable[[], float] = time.time) -> None:
        from pagesieve import state

        self.path = path
        self.clock = clock
        self._lock = threading.Lock()
        self._conn = state.connect(path)
        state.migrate(self._conn, "site_blocks", MIGRATIONS)

    def site(self, host: str) -> SiteStore:
        """The store of one site (``host`` lower-cased; ``www.`` is the same site)."""
        host = (host or "").strip().lower().rstrip(".")
        if host.startswith("www."):
            host = host[4:]
        return SiteStore(self, host)

    def query(self, sql: str, params: tuple[Any, ...]) -> list[tuple]:
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    def write(self, statements: list[tuple[str, tuple[Any, ...]]]) -> None:
        """Run ``statements`` in one write transaction (all or none)."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                for sql, params in statements:
                    self._conn.execute(sql, params)
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            self._conn.close()
