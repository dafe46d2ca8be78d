"""Per-site memory of recently seen pages' blocks, for filters that learn across pages.

The ``template_blocks`` filter (ContentExtractor) needs "the other pages of this site": it
compares a page's blocks with the blocks of pages of the same site seen recently, then records
the page's own blocks. This module keeps those records, bounded per site by count and age:

* :class:`SiteMemory` — the records in the project's state database (SQLite or PostgreSQL, through
  :func:`pagesieve.store.state.open_database`); ``.site(host)`` gives one site's store. The proxy passes
  ``store=SiteMemory(location).site(host)`` per page, so with PostgreSQL what one instance learned
  of a site is used by every instance. While the database is unavailable a store has no pages and
  remembers nothing (the filter works as on a site's first page).
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
import logging
import time
from pathlib import Path
from typing import Any, Callable

from pagesieve.core.errors import StateUnavailable

#: Schema history of the ``site_blocks`` component (append only; see :mod:`pagesieve.store.state`).
log = logging.getLogger("pagesieve.store.site_memory")

REOPEN_SECONDS = 5.0
"""While the state database cannot be opened, how long to wait before trying again (seconds)."""

#: The same schema in both dialects (PostgreSQL's REAL is single precision: too coarse for a clock).
MIGRATIONS = [
    {"sqlite": "CREATE TABLE site_blocks (host TEXT NOT NULL, page TEXT NOT NULL, seen REAL NOT NULL, "
               "blocks TEXT NOT NULL, PRIMARY KEY (host, page));"
               "CREATE INDEX site_blocks_seen ON site_blocks (host, seen);",
     "postgresql": "CREATE TABLE site_blocks (host TEXT NOT NULL, page TEXT NOT NULL, seen DOUBLE PRECISION NOT NULL, "
                   "blocks TEXT NOT NULL, PRIMARY KEY (host, page));"
                   "CREATE INDEX site_blocks_seen ON site_blocks (host, seen);"},
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
        oldest = now - max_age_s if max_age_s is not None else -1e300
        rows = self._memory.query("SELECT page, blocks FROM site_blocks WHERE host = ? AND seen >= ? "
                                  "ORDER BY seen DESC", (self.host, oldest))
        return [json.loads(blocks) for page, blocks in rows if page != exclude]

    def remember(self, key: str, blocks: list, max_pages: int, max_age_s: float | None = None) -> None:
        now = self._memory.clock()
        oldest = now - max_age_s if max_age_s is not None else -1e300
        self._memory.write([
            ("DELETE FROM site_blocks WHERE host = ? AND page = ?", (self.host, key)),
            ("INSERT INTO site_blocks (host, page, seen, blocks) VALUES (?, ?, ?, ?) ON CONFLICT (host, page) "
             "DO UPDATE SET seen = excluded.seen, blocks = excluded.blocks",  # two instances, one page
             (self.host, key, now, json.dumps(blocks, separators=(",", ":")))),
            ("DELETE FROM site_blocks WHERE host = ? AND seen < ?", (self.host, oldest)),
            ("DELETE FROM site_blocks WHERE host = ? AND page NOT IN (SELECT page FROM site_blocks "
             "WHERE host = ? ORDER BY seen DESC LIMIT ?)", (self.host, self.host, max_pages)),
        ])

    def __len__(self) -> int:
        return self._memory.query("SELECT COUNT(*) FROM site_blocks WHERE host = ?", (self.host,))[0][0]


class SiteMemory:
    """Bounded per-site page records in the state database at ``where`` (an SQLite path or a
    ``postgresql://`` URL, see :func:`pagesieve.store.state.open_database`)."""

    def __init__(self, where: str | Path = ":memory:", clock: Callable[[], float] = time.time) -> None:
        self.path = where
        self.clock = clock
        self._db: Any = None
        self._retry_at = 0.0
        try:
            self._database()
        except StateUnavailable as err:  # PostgreSQL down at start: filter without memory, retry later
            log.warning("per-site memory: %s; filtering without it until it is back", err)

    def _database(self) -> Any:
        """The open database; opened (and migrated) on first use, retried while unavailable."""
        if self._db is None:
            from pagesieve.store import state

            if time.monotonic() < self._retry_at:
                raise StateUnavailable("the state database is unavailable")
            try:
                # No change watcher: these records are read fresh for every page.
                db = state.open_database(str(self.path), watch=False)
            except StateUnavailable:
                self._retry_at = time.monotonic() + REOPEN_SECONDS
                raise
            try:
                db.migrate("site_blocks", MIGRATIONS)
            except BaseException:
                db.close()
                self._retry_at = time.monotonic() + REOPEN_SECONDS
                raise
            self._db = db
        return self._db

    def site(self, host: str) -> SiteStore:
        """The store of one site (``host`` lower-cased; ``www.`` is the same site)."""
        host = (host or "").strip().lower().rstrip(".")
        if host.startswith("www."):
            host = host[4:]
        return SiteStore(self, host)

    def query(self, sql: str, params: tuple[Any, ...]) -> list[tuple]:
        """Rows of ``sql``; none while the database is unavailable."""
        try:
            return self._database().query(sql, params)
        except StateUnavailable:
            return []

    def write(self, statements: list[tuple[str, tuple[Any, ...]]]) -> None:
        """Run ``statements`` in one write transaction (all or none; nothing while unavailable)."""
        try:
            with self._database().transaction() as tx:
                for sql, params in statements:
                    tx.execute(sql, params)
        except StateUnavailable:
            pass

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
