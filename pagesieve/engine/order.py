"""Checking a chain's order against what its filters declare they need (``requires``, ``uses``) and
leave for later filters (``assigns``), by the hand-off fields of the run state (:data:`~pagesieve.engine.state.HANDOFFS`)."""

from __future__ import annotations

from typing import Iterable

from pagesieve.core.errors import ConfigError
from pagesieve.engine.state import HANDOFFS
from pagesieve.filters.base import Filter


class ChainOrderError(ConfigError):
    """A chain in which a filter cannot have what it needs; ``filter`` and ``needs`` name them."""

    def __init__(self, message: str, filter: str, needs: str) -> None:
        super().__init__(message)
        self.filter, self.needs = filter, needs


def check_order(chain: Iterable[type[Filter] | Filter], where: str = "chain") -> None:
    """Raise :class:`ChainOrderError` unless every filter of ``chain`` (classes or instances, in order)
    has what it declares it needs: each field it ``requires`` assigned by a filter before it, and
    no filter after it assigning an accumulating field it requires or a field it ``uses``.
    ``where`` names the chain in the message (e.g. ``presets.reader.chain``)."""
    filters = list(chain)
    names = [f.name for f in filters]
    for i, flt in enumerate(filters):
        before, after = filters[:i], filters[i + 1:]
        for need in flt.requires:
            if not any(need in f.assigns for f in before):
                givers = [n for n in _assigners(need) if n != flt.name]
                raise ChainOrderError(
                    f"{where} = {names!r}: filter {flt.name} needs {need} ({HANDOFFS[need].what}), "
                    f"which no filter before it assigns; put {_one_of(givers)} before {flt.name}", flt.name, need)
        for need in (*flt.requires, *flt.uses):
            if need in flt.requires and not HANDOFFS[need].accumulates:
                continue
            late = [f.name for f in after if need in f.assigns]
            if late:
                raise ChainOrderError(
                    f"{where} = {names!r}: filter {flt.name} reads {need} ({HANDOFFS[need].what}), but "
                    f"{', '.join(late)} {'assigns' if len(late) == 1 else 'assign'} it after {flt.name}; "
                    f"put {flt.name} after {late[-1]}", flt.name, need)


def _one_of(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"one of {', '.join(names)}" if names else "a filter that assigns it"


def _assigners(field_name: str) -> list[str]:
    from pagesieve.filters import FILTERS  # the registry imports every filter module

    return [name for name, cls in FILTERS.items() if field_name in cls.assigns]


def check_declarations(cls: type[Filter]) -> None:
    """Raise ValueError if ``cls`` names a hand-off field that does not exist."""
    for attr in ("requires", "assigns", "uses"):
        for name in getattr(cls, attr):
            if name not in HANDOFFS:
                raise ValueError(f"filter {cls.name}: {attr} names {name!r}, not a hand-off field; "
                                 f"known: {', '.join(HANDOFFS)}")
