"""Clients take turns at the workers (proxy_addons/fair.py): the order slots are given in, what counts
as ahead of a page, and pages that stop waiting."""

from __future__ import annotations

import asyncio

from pagesieve.proxy_addons.fair import FairSlots


async def _served_order(slots: FairSlots, pages: list[str]) -> list[str]:
    """The clients of ``pages`` (queued in this order behind a taken slot) in the order they get it."""
    order: list[str] = []

    async def page(client: str) -> None:
        await slots.acquire(client)
        order.append(client)
        slots.release()  # done at once: the next in turn gets the slot

    await slots.acquire("first")
    tasks = [asyncio.create_task(page(c)) for c in pages]
    await asyncio.sleep(0)  # every page is queued
    slots.release()
    await asyncio.gather(*tasks)
    return order


def test_a_burst_gets_one_turn_per_round():
    pages = ["greedy"] * 6 + ["light-1", "light-2"]
    order = asyncio.run(_served_order(FairSlots(1), pages))
    # First come first served would give "greedy" the first six slots.
    assert order == ["greedy", "light-1", "light-2", "greedy", "greedy", "greedy", "greedy", "greedy"]


def test_what_is_ahead_of_a_new_page_counts_turns():
    async def go() -> tuple[int, int, int, int]:
        slots = FairSlots(1)
        await slots.acquire("x")
        tasks = [asyncio.create_task(slots.acquire(c)) for c in ["greedy"] * 10 + ["light"]]
        await asyncio.sleep(0)
        counts = (slots.ahead("light"), slots.ahead("newcomer"), slots.ahead("greedy"), slots.waiting)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        return counts

    light, newcomer, greedy, waiting = asyncio.run(go())
    assert waiting == 11
    assert light == 1 + 2  # its own page, then one of greedy's and its own second: 3 before it
    assert newcomer == 1 + 1  # one turn of each client waiting
    assert greedy == 10 + 1  # all of its own, and light's one page


def test_a_page_that_stops_waiting_leaves_its_queue_and_a_slot_given_to_it_goes_on():
    async def go() -> tuple[bool, int, int]:
        slots = FairSlots(1)
        await slots.acquire("a")
        gone = asyncio.create_task(slots.acquire("b"))
        stays = asyncio.create_task(slots.acquire("c"))
        await asyncio.sleep(0)
        gone.cancel()  # a time-out, before its turn
        await asyncio.gather(gone, return_exceptions=True)
        left = slots.waiting
        slots.release()  # "c" is next: "b" left
        await asyncio.wait_for(stays, 1)
        # Given a slot and cancelled before it ran: the slot is handed on, not lost.
        late = asyncio.create_task(slots.acquire("d"))
        await asyncio.sleep(0)
        slots.release()  # "d" is given the slot...
        late.cancel()  # ...and stops waiting before it could take it
        await asyncio.gather(late, return_exceptions=True)
        return slots.locked(), left, slots.waiting

    locked, left, waiting = asyncio.run(go())
    assert left == 1 and waiting == 0
    assert not locked  # the slot "d" did not take is free again
