"""Turns at the workers, client by client: one client's burst cannot turn filtering off for others.

The worker pool has one slot per worker. Pages that find every slot taken wait here in one queue
per client (the logged-in user, else the client's address), and a freed slot goes to the next
client in turn (round robin), not to the page that came first: a client with thirty pages waiting
gets one turn in each round, like a client with one. Whether a page is refused as busy is decided
for its client too: :meth:`FairSlots.ahead` counts the pages that would be served before it in
turns — its own client's queue, and from each other client at most as many as that — so a
client that floods the proxy sees its own pages refused while a light client's page, one turn
away, is still filtered.
"""

from __future__ import annotations

import asyncio
from collections import deque


class FairSlots:
    """``slots`` slots taken by clients in turns (see the module doc). Runs on one event loop."""

    def __init__(self, slots: int) -> None:
        self._free = slots
        self._queues: dict[str, deque[asyncio.Future[None]]] = {}  # client -> its waiting pages, oldest first
        self._turns: deque[str] = deque()  # clients with pages waiting, in the order of their next turn

    @property
    def waiting(self) -> int:
        """Pages waiting for a slot."""
        return sum(len(q) for q in self._queues.values())

    @property
    def clients(self) -> int:
        """Clients with pages waiting."""
        return len(self._queues)

    def locked(self) -> bool:
        """True when a new page would have to wait."""
        return self._free == 0

    def ahead(self, client: str) -> int:
        """Pages served before a new page of ``client`` would be, taking turns."""
        own = len(self._queues.get(client, ()))
        return own + sum(min(len(q), own + 1) for c, q in self._queues.items() if c != client)

    async def acquire(self, client: str) -> None:
        """Wait for a slot in ``client``'s turn. Cancelled (e.g. by a time-out), the page leaves its queue;
        a slot it was given meanwhile goes to the next in turn."""
        if self._free > 0 and not self._turns:
            self._free -= 1
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        queue = self._queues.get(client)
        if queue is None:
            queue = self._queues[client] = deque()
            self._turns.append(client)
        queue.append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self.release()  # given a slot just as the wait ended: hand it on
            else:
                self._leave(client, turn)
            raise

    def release(self) -> None:
        """A slot is free: give it to the oldest page of the client whose turn is next."""
        while self._turns:
            client = self._turns.popleft()
            queue = self._queues[client]
            turn = queue.popleft()
            if queue:
                self._turns.append(client)  # its next page waits for its next turn
            else:
                del self._queues[client]
            if not turn.done():
                turn.set_result(None)
                return
        self._free += 1

    def _leave(self, client: str, turn: asyncio.Future[None]) -> None:
        queue = self._queues.get(client)
        if queue is None or turn not in queue:
            return
        queue.remove(turn)
        if not queue:
            del self._queues[client]
            self._turns.remove(client)
