"""What a filter is: a stable ``name``, a frozen ``Settings`` dataclass, one ``apply`` method.

A filter transforms a parsed :class:`~pagesieve.engine.document.Page` in place and changes the tree
only through its :class:`~pagesieve.engine.context.FilterContext` (``ctx.remove``, ``ctx.replace``,
``ctx.set_attr``, ``ctx.insert``), which explains every removal and can undo the filter's
work if it fails or removes nearly all of the article. Filters know nothing of HTTP, users
or the proxy. Expensive preparation (rule lists, models) happens once, in ``__init__``.

What a filter needs from the filters before it and what it leaves for those after it is declared,
as names of the run state's hand-off fields (:data:`pagesieve.engine.state.HANDOFFS`, e.g. ``article``,
``removed_links``), in ``requires`` / ``assigns`` / ``uses`` (as spaCy components declare
``requires=`` / ``assigns=``). A chain is checked against them when it is built
(:func:`pagesieve.engine.order.check_order`): a filter placed where what it needs cannot be there is
refused with a message naming the filter and what it needs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from pagesieve.engine.context import FilterContext
    from pagesieve.engine.document import Page


@dataclass(frozen=True)
class NoSettings:
    """A filter without settings."""


class Filter:
    """Base class of every filter."""

    #: Stable name used in ``config.yaml`` (``filters.<name>``) and in explanations.
    name: ClassVar[str] = ""
    #: The frozen settings dataclass (every field made with ``settings.setting``).
    Settings: ClassVar[type] = NoSettings
    #: One line for ``--help``, docs and the settings page.
    summary: ClassVar[str] = ""
    #: Whether the chain's article-loss guard applies (False for filters that only add or mark).
    destructive: ClassVar[bool] = True
    #: Hand-off fields an earlier filter must assign (the filter is useless without them).
    requires: ClassVar[tuple[str, ...]] = ()
    #: Hand-off fields this filter may assign (for ``removed_links``: it may remove a text link).
    assigns: ClassVar[tuple[str, ...]] = ()
    #: Hand-off fields read when present (no filter that assigns them may come after this one).
    uses: ClassVar[tuple[str, ...]] = ()

    #: Whether this filter, as set, takes away the scripts a page made of them needs: the chain then
    #: serves such a page as it was sent (:mod:`pagesieve.analysis.appshell`, :class:`pagesieve.core.errors.NeedsScripts`).
    spares_app_shells: bool = False

    def __init__(self, settings) -> None:
        self.settings = settings

    def apply(self, page: "Page", ctx: "FilterContext") -> None:
        """Transform ``page`` in place, through ``ctx``."""
        raise NotImplementedError

    @property
    def secures(self) -> bool:
        """Whether this filter, as set, has a :meth:`secure` step."""
        return False

    def secure(self, page: "Page", ctx: "FilterContext") -> None:
        """A step the page must not be served filtered without (removing what would run script).

        The chain runs it before :meth:`apply`, in a context of its own: the article-loss guard
        never undoes it (it takes nothing a reader sees), and a later failure of :meth:`apply`
        keeps it. If it raises, the page is not served as filtered at all (the proxy then serves
        the original under :meth:`fail_safe_policy`)."""

    @classmethod
    def fail_safe_policy(cls, settings) -> str | None:
        """The Content-Security-Policy a page must carry when it is served without this filter's
        :meth:`secure` step having run (a failure, a time-out, a page too large to filter), so
        that what the step would have taken cannot run either; None: nothing to enforce."""
        return None

    def close(self) -> None:
        """Release resources (files, models). Optional."""
