"""The workers' slots shared by worker time (proxy_addons/fair.py): who is given a freed slot, what
counts as ahead of a page, an old burst forgiven, and pages that stop waiting.

Deterministic: the slots read a clock the test moves, and a page "runs" by moving it.
"""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from pagesieve.proxy_addons.fair import USAGE_HALF_LIFE_SECONDS, FairSlots


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def contend(slots: FairSlots, clock: Clock, costs: dict[str, float], seconds: float) -> Counter[str]:
    """Pages served to each client of ``costs`` in ``seconds`` of the clock, one slot, every client
    keeping two pages waiting (two connections), each page holding the slot for its client's cost."""
    served: Counter[str] = Counter()
    until = clock.now + seconds

    async def connection(client: str) -> None:
        while clock.now < until:
            turn = await slots.acquire(client)
            clock.now += costs[client]
            served[client] += 1
            slots.release(turn, costs[client])

    holder = await slots.acquire("holder")  # every connection finds the slot taken and queues
    tasks = [asyncio.create_task(connection(c)) for c in costs for _ in range(2)]
    await asyncio.sleep(0)
    slots.release(holder)
    while clock.now < until:
        await asyncio.sleep(0)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return served


def test_a_client_with_costly_pages_gets_fewer_turns_and_no_more_than_its_share_of_the_time():
    clock = Clock()
    served = asyncio.run(contend(FairSlots(1, clock), clock, {"heavy": 1.0, "light": 0.1}, 60))
    heavy_s, light_s = served["heavy"] * 1.0, served["light"] * 0.1
    # In turns by pages, heavy would have had as many pages as light: 10/11 of the time.
    assert served["light"] >= 5 * served["heavy"], served
    assert heavy_s / (heavy_s + light_s) < 0.6, served
    assert served["heavy"] >= 10, served  # shared, not starved


def test_an_old_burst_is_forgiven():
    async def go() -> tuple[Counter[str], Counter[str]]:
        clock = Clock()
        slots = FairSlots(1, clock)
        for _ in range(20):  # a burst of 20 s of work from one client alone
            turn = await slots.acquire("burst")
            clock.now += 1.0
            slots.release(turn, 1.0)
        right_after = await contend(slots, clock, {"burst": 0.1, "other": 0.1}, 4)
        clock.now += 10 * USAGE_HALF_LIFE_SECONDS  # idle for a while
        later = await contend(slots, clock, {"burst": 0.1, "other": 0.1}, 4)
        return right_after, later

    right_after, later = asyncio.run(go())
    assert right_after["burst"] <= 2 and right_after["other"] >= 38, right_after  # held back just after...
    assert abs(later["burst"] - later["other"]) <= 2, later  # ...not minutes later: equal pages, equal turns


def test_a_running_page_counts_before_it_ends():
    async def go() -> tuple[bool, bool]:
        clock = Clock()
        slots = FairSlots(2, clock)
        await slots.acquire("heavy")  # a costly page, still running
        light = await slots.acquire("light")
        clock.now = 2.0
        heavy_next = asyncio.create_task(slots.acquire("heavy"))  # heavy's next page waits first...
        await asyncio.sleep(0)
        light_next = asyncio.create_task(slots.acquire("light"))
        await asyncio.sleep(0)
        slots.release(light, 0.05)  # ...but light has used 0.05 s and heavy 2 s so far
        await asyncio.sleep(0)
        result = light_next.done(), heavy_next.done()
        heavy_next.cancel()
        await asyncio.gather(heavy_next, return_exceptions=True)
        return result

    assert asyncio.run(go()) == (True, False)


def test_with_equal_costs_a_burst_gets_one_turn_per_round():
    async def go() -> list[str]:
        slots = FairSlots(1, Clock())
        order: list[str] = []

        async def page(client: str) -> None:
            turn = await slots.acquire(client)
            order.append(client)
            slots.release(turn, 0.01)

        first = await slots.acquire("first")
        tasks = [asyncio.create_task(page(c)) for c in ["greedy"] * 6 + ["light-1", "light-2"]]
        await asyncio.sleep(0)  # every page is queued
        slots.release(first, 0.01)
        await asyncio.gather(*tasks)
        return order

    # First come first served would give "greedy" the first six slots.
    assert asyncio.run(go()) == ["greedy", "light-1", "light-2", "greedy", "greedy", "greedy", "greedy", "greedy"]


def test_what_is_ahead_of_a_new_page_is_the_worker_time_served_before_it():
    async def go() -> tuple[float, float, float, int]:
        clock = Clock()
        slots = FairSlots(1, clock)
        for client, cost in [("heavy", 1.0), ("light", 0.1)]:  # each client's cost per page, measured
            for _ in range(5):
                turn = await slots.acquire(client)
                clock.now += cost
                slots.release(turn, cost)
        await slots.acquire("x")
        tasks = [asyncio.create_task(slots.acquire(c)) for c in ["heavy"] * 4 + ["light"]]
        await asyncio.sleep(0)
        ahead = slots.ahead("heavy"), slots.ahead("light"), slots.ahead("newcomer"), slots.waiting
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        return ahead

    heavy, light, newcomer, waiting = asyncio.run(go())
    assert waiting == 5
    assert heavy == pytest.approx(4 * 1.0 + 0.1, rel=0.05)  # its own four costly pages, then light's
    assert light == pytest.approx(0.1, rel=0.05)  # its own page: heavy has used far more
    assert newcomer == 0  # used nothing: served first


def test_a_page_that_stops_waiting_leaves_its_queue_and_a_slot_given_to_it_goes_on():
    async def go() -> tuple[bool, int, int]:
        slots = FairSlots(1, Clock())
        a = await slots.acquire("a")
        gone = asyncio.create_task(slots.acquire("b"))
        stays = asyncio.create_task(slots.acquire("c"))
        await asyncio.sleep(0)
        gone.cancel()  # a time-out, before its turn
        await asyncio.gather(gone, return_exceptions=True)
        left = slots.waiting
        slots.release(a, 0.01)  # "c" is next: "b" left
        c = await asyncio.wait_for(stays, 1)
        # Given a slot and cancelled before it ran: the slot is handed on, not lost.
        late = asyncio.create_task(slots.acquire("d"))
        await asyncio.sleep(0)
        slots.release(c, 0.01)  # "d" is given the slot...
        late.cancel()  # ...and stops waiting before it could take it
        await asyncio.gather(late, return_exceptions=True)
        return slots.locked(), left, slots.waiting

    locked, left, waiting = asyncio.run(go())
    assert left == 1 and waiting == 0
    assert not locked  # the slot "d" did not take is free again


def test_clients_whose_time_has_faded_are_forgotten():
    async def go() -> tuple[int, float, float]:
        clock = Clock()
        slots = FairSlots(1, clock)
        for i in range(200):
            turn = await slots.acquire(f"address {i}")
            clock.now += 0.05
            slots.release(turn, 0.05)
            clock.now += 5  # one page every five seconds, each from another address
        kept = slots.known
        return kept, slots.used("address 199"), slots.used("address 0")

    kept, recent, old = asyncio.run(go())
    assert kept < 100  # not all 200
    assert recent == pytest.approx(0.05 * 0.5 ** (5 / USAGE_HALF_LIFE_SECONDS))
    assert old == 0
