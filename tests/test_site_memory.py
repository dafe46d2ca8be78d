"""site_memory: per-site records bounded by count and age, in SQLite and in memory."""

from __future__ import annotations

import pytest

from pagesieve.store.site_memory import MemorySite, SiteMemory


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def stores(tmp_path, clock):
    memory = SiteMemory(tmp_path / "state.sqlite3", clock=clock)
    return memory, {"sqlite": memory.site("www.Example.org"), "memory": MemorySite(clock=clock)}


@pytest.mark.parametrize("kind", ["sqlite", "memory"])
def test_pages_newest_first_and_excluding_self(tmp_path, kind):
    clock = Clock()
    memory, s = stores(tmp_path, clock)
    store = s[kind]
    for i in range(3):
        clock.now += 1
        store.remember(f"/p{i}", [{"w": float(i)}], max_pages=10)
    assert store.pages() == [[{"w": 2.0}], [{"w": 1.0}], [{"w": 0.0}]]
    assert store.pages(exclude="/p2") == [[{"w": 1.0}], [{"w": 0.0}]]
    store.remember("/p0", [{"x": 1.0}], max_pages=10)  # replaced, and now the newest
    assert store.pages()[0] == [{"x": 1.0}] and len(store) == 3
    memory.close()


@pytest.mark.parametrize("kind", ["sqlite", "memory"])
def test_bounded_by_count_and_age(tmp_path, kind):
    clock = Clock()
    memory, s = stores(tmp_path, clock)
    store = s[kind]
    for i in range(5):
        clock.now += 10
        store.remember(f"/p{i}", [{"n": float(i)}], max_pages=3, max_age_s=100)
    assert len(store) == 3 and [p[0]["n"] for p in store.pages()] == [4.0, 3.0, 2.0]
    clock.now += 85  # /p2 is now 105 s old, /p3 95 s
    assert [p[0]["n"] for p in store.pages(max_age_s=100)] == [4.0, 3.0]
    store.remember("/p5", [], max_pages=3, max_age_s=100)  # writing also forgets the old
    assert len(store) == 3
    memory.close()


def test_sites_are_separate_and_www_is_the_same_site(tmp_path):
    memory = SiteMemory(tmp_path / "s.sqlite3")
    memory.site("www.example.org").remember("/a", [{"a": 1.0}], max_pages=5)
    memory.site("other.org").remember("/b", [{"b": 1.0}], max_pages=5)
    assert memory.site("EXAMPLE.org").pages() == [[{"a": 1.0}]]
    assert memory.site("other.org").pages() == [[{"b": 1.0}]]
    memory.close()


def test_survives_reopening(tmp_path):
    path = tmp_path / "s.sqlite3"
    first = SiteMemory(path)
    first.site("a.org").remember("/x", [{"w": 1.0}], max_pages=5)
    first.close()
    second = SiteMemory(path)  # migration is not applied twice
    assert second.site("a.org").pages() == [[{"w": 1.0}]]
    second.close()
