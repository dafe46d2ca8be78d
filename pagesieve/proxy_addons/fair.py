"""Turns at the workers, shared by worker time: a client whose pages are costly cannot take the workers from others.

The worker pool has one slot per worker. Pages that find every slot taken wait here, in one queue
per client (the logged-in user, else the client's address). A freed slot goes to the oldest page of
the waiting client that has used the least worker time recently. Not to the page that came first: a
client with thirty pages waiting would hold the workers for thirty pages. And not to each client in
turn either: counting pages, a client whose every page keeps a worker busy for seconds (a huge page,
or settings that make each page costly) has as many turns as a client whose pages take milliseconds,
and so nearly all of the workers' time, while the light client waits behind one of its costly pages
every time. Counted in seconds, the two share the time, and the light client's page waits only for
the pages already running.

"Recently": the worker time a client used fades by half every :data:`USAGE_HALF_LIFE_SECONDS`, so a
burst a few minutes ago is forgiven; and the time its pages at the workers have taken so far counts
before they end, so one costly page already holds back that client's next. Clients that have used the
same time (at first, none) are served in the order they began to wait. The pool reports each page's
worker time when the page ends, whether it was filtered, failed or timed out
(:meth:`FairSlots.release`).

Whether a page is refused as busy is decided for its client too: :meth:`FairSlots.ahead` estimates
the worker time of the pages that would be served before a new page of that client — its own queue,
and from each other client the pages it would be given before that client's recent time caught up —
at each client's recent cost per page. So a client that floods the proxy, or whose pages are costly,
sees its own pages refused, while a light client's page, with little ahead of it, is still filtered.

Everything here runs on the proxy's event loop (the worker threads hand their reports to it).
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

#: How fast a client's used worker time is forgiven: it counts half after this many seconds, a
#: quarter after twice as many (seconds). Long enough to span a few of the costliest pages (the
#: default time limit is 10 s), so a client whose pages each take that long still weighs as heavy
#: between them; short enough that a burst a few minutes ago no longer holds a client back.
USAGE_HALF_LIFE_SECONDS = 30.0
#: A client with nothing waiting or running whose faded time is below this is forgotten (seconds):
#: what is kept stays bounded by the clients of the last few minutes.
FORGET_BELOW_SECONDS = 0.001
#: A page's cost before any page has been measured (seconds), for :meth:`FairSlots.ahead`.
FIRST_COST_SECONDS = 0.05
#: Weight of the newest page in a moving average of the cost per page (1: the last page alone).
COST_WEIGHT = 0.2
#: Records are looked over for forgetting once there are this many, then each time their number doubles.
PRUNE_FROM = 64


@dataclass(eq=False)
class Turn:
    """A slot given to a page of ``client`` at ``start`` (on the slots' clock): hand it back with
    :meth:`FairSlots.release` when the page's worker can take the next page."""

    client: str
    start: float


class _Client:
    """What is kept of one client: its faded worker time, its cost per page, its pages."""

    __slots__ = ("name", "used", "at", "cost", "pages", "running", "started", "queue", "since")

    def __init__(self, name: str, at: float, cost: float) -> None:
        self.name = name
        self.used = 0.0  # worker seconds of its ended pages, faded as of `at`
        self.at = at
        self.cost = cost  # its pages' worker seconds: their mean, then a moving average
        self.pages = 0  # pages measured
        self.running = 0  # its pages at the workers now...
        self.started = 0.0  # ...and the sum of their start times
        self.queue: deque[asyncio.Future[Turn]] = deque()  # its waiting pages, oldest first
        self.since = 0  # its place among clients that used the same time: when it began to wait

    def faded(self, now: float) -> float:
        return self.used * 0.5 ** ((now - self.at) / USAGE_HALF_LIFE_SECONDS)

    def usage(self, now: float) -> float:
        """Worker seconds used recently: ended pages (faded) and the running ones so far."""
        return self.faded(now) + self.running * now - self.started


class FairSlots:
    """``slots`` slots shared by clients by worker time (see the module doc). Runs on one event loop;
    ``clock`` (seconds, monotonic) is replaceable for tests."""

    def __init__(self, slots: int, clock: Callable[[], float] = time.monotonic) -> None:
        self._free = slots
        self._clock = clock
        self._clients: dict[str, _Client] = {}  # every client not yet forgotten
        self._waiting: dict[str, _Client] = {}  # those with pages waiting
        self._order = itertools.count()
        self._cost = FIRST_COST_SECONDS  # moving average of every client's pages: a new client's cost
        self._prune_at = PRUNE_FROM

    @property
    def waiting(self) -> int:
        """Pages waiting for a slot."""
        return sum(len(c.queue) for c in self._waiting.values())

    @property
    def clients(self) -> int:
        """Clients with pages waiting."""
        return len(self._waiting)

    @property
    def known(self) -> int:
        """Clients whose recent worker time is kept (the others are forgotten: they used none lately)."""
        return len(self._clients)

    def locked(self) -> bool:
        """True when a new page would have to wait."""
        return self._free == 0

    def used(self, client: str) -> float:
        """Worker seconds ``client`` used recently (0 for a client not seen or forgotten)."""
        record = self._clients.get(client)
        return record.usage(self._clock()) if record is not None else 0.0

    def ahead(self, client: str) -> float:
        """Worker seconds of the waiting pages that would be served before a new page of ``client``.

        Its own waiting pages come first, at its cost per page; by then its recent time has grown to
        ``reach``, and each other client is served before it as long as that client's time is no
        more than ``reach`` — at most all of its waiting pages. The pages running now are not counted
        (their end is unknown), nor the fading while the page waits: this is an estimate, for
        refusing at once a page that would clearly wait too long."""
        now = self._clock()
        record = self._clients.get(client)
        own = len(record.queue) if record is not None else 0
        ahead = own * (record.cost if record is not None else self._cost)
        reach = (record.usage(now) if record is not None else 0.0) + ahead
        for other in self._waiting.values():
            if other is record:
                continue
            used = other.usage(now)
            if used <= reach:
                cost = max(other.cost, FORGET_BELOW_SECONDS)
                ahead += min(len(other.queue), int((reach - used) / cost) + 1) * other.cost
        return ahead

    async def acquire(self, client: str) -> Turn:
        """Wait for a slot for a page of ``client`` (see the module doc). Cancelled (e.g. by a
        time-out), the page leaves its queue; a slot it was given meanwhile goes to the next."""
        now = self._clock()
        record = self._clients.get(client)
        if record is None:
            record = self._clients[client] = _Client(client, now, self._cost)
        if self._free > 0 and not self._waiting:
            self._free -= 1
            return self._start(record, now)
        turn: asyncio.Future[Turn] = asyncio.get_running_loop().create_future()
        if not record.queue:
            record.since = next(self._order)
            self._waiting[client] = record
        record.queue.append(turn)
        try:
            return await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self.release(turn.result())  # given a slot just as the wait ended: hand it on
            else:
                self._leave(record, turn)
            raise

    def release(self, turn: Turn, seconds: float | None = None) -> None:
        """``turn``'s slot is free again: its page used its worker ``seconds`` (None: it never
        reached one). The slot goes to the oldest page of the waiting client that used the least."""
        now = self._clock()
        record = self._clients[turn.client]  # kept while it has a page running
        record.running -= 1
        record.started -= turn.start
        if seconds is not None:
            record.used, record.at = record.faded(now) + seconds, now
            record.pages += 1
            record.cost += max(COST_WEIGHT, 1 / record.pages) * (seconds - record.cost)
            self._cost += COST_WEIGHT * (seconds - self._cost)
        self._give(now)
        if len(self._clients) >= self._prune_at:
            self._forget(now)

    def _start(self, record: _Client, now: float) -> Turn:
        record.running += 1
        record.started += now
        return Turn(record.name, now)

    def _give(self, now: float) -> None:
        while self._waiting:
            record = min(self._waiting.values(), key=lambda c: (c.usage(now), c.since))
            future = record.queue.popleft()
            if record.queue:
                record.since = next(self._order)  # among equals, its next page goes after the others'
            else:
                del self._waiting[record.name]
            if not future.done():
                future.set_result(self._start(record, now))
                return
        self._free += 1

    def _leave(self, record: _Client, turn: asyncio.Future[Turn]) -> None:
        if turn not in record.queue:
            return
        record.queue.remove(turn)
        if not record.queue:
            del self._waiting[record.name]

    def _forget(self, now: float) -> None:
        """Drop the clients with nothing waiting or running whose time has faded away."""
        for name in [n for n, c in self._clients.items()
                     if not c.queue and not c.running and c.faded(now) < FORGET_BELOW_SECONDS]:
            del self._clients[name]
        self._prune_at = max(PRUNE_FROM, 2 * len(self._clients))
