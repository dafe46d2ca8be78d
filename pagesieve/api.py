"""The public API: filter a page in one call, or build a filterer once and call it many times.

    import pagesieve

    pagesieve.filter_html("<html>...</html>")                      # -> str, the default preset
    pagesieve.filter_html(raw_bytes, url="https://example.org/a", preset="reader", output="text",
                          settings={"filters.link_lists.ratio": 0.5})

    reader = pagesieve.Filterer(preset="reader", output="text")    # build once (lists, models load)
    for page in pages:
        result = reader(page, url=...)                             # a Filtered: str(result), .text,
        print(result.text, result.removals)                        # .html, .removals, .filters, .ms

``settings`` is a mapping of dotted keys, the same ones ``pagesieve filter --set`` and ``config.yaml``
take (``link_lists.ratio`` is short for ``filters.link_lists.ratio``); ``config`` is a path to a
``config.yaml`` or a loaded :class:`~pagesieve.engine.config.Config` (default: ``$PAGESIEVE_CONFIG``, else
the one shipped with the package). Errors: :class:`~pagesieve.core.errors.ConfigError` for a bad preset
or setting (naming the key, the value and what is allowed), :class:`~pagesieve.core.errors.InputError`
for input that is not HTML. A filter that fails leaves the page as it was before that filter (its
status says ``error``); the page is never silently shortened.

The command line (``pagesieve filter``), ``pagesieve eval`` and the tests use the same object.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass, field
from typing import Any, Collection, Mapping

from pagesieve.core.lru import LRU
from pagesieve.engine import config as C
from pagesieve.engine.chain import Chain, ChainResult

__all__ = ["Filtered", "Filterer", "filter_html"]


@dataclass(frozen=True)
class Filtered:
    """One filtered page. ``str(result)`` is the page in the chosen output format."""

    output: str  # the page as text, in the chosen format
    format: str  # "html" or "text"
    body: bytes  # the page as encoded for sending (``encoding``)
    encoding: str
    media_type: str  # "text/html" or "text/plain"
    removals: list[dict[str, Any]] = field(default_factory=list)  # every removal: filter, node, why
    filters: list[dict[str, Any]] = field(default_factory=list)  # per filter: name, ms, removed, status
    ms: float = 0.0
    preset: str | None = None

    @property
    def html(self) -> str | None:
        """The filtered page as HTML (None when the output format is text)."""
        return self.output if self.format == "html" else None

    @property
    def text(self) -> str | None:
        """The filtered page as text for reading aloud (None when the output format is HTML)."""
        return self.output if self.format == "text" else None

    @property
    def failed(self) -> list[str]:
        """Filters that failed on this page (the page is as it was before each of them)."""
        return [f["filter"] for f in self.filters if f["status"] == "error"]

    def __str__(self) -> str:
        return self.output

    @classmethod
    def of(cls, result: ChainResult, fmt: str) -> Filtered:
        return cls(output=result.body.decode(result.encoding, errors="replace"), format=fmt, body=result.body,
                   encoding=result.encoding, media_type=result.media_type, removals=result.record,
                   filters=result.filters, ms=result.ms, preset=result.preset)


_DEFAULT_CONFIG: dict[str | None, C.Config] = {}
_LOCK = threading.Lock()


def _config(config: str | os.PathLike | C.Config | None) -> C.Config:
    if isinstance(config, C.Config):
        return config
    if config is not None:
        return C.load(config)
    key = os.environ.get("PAGESIEVE_CONFIG")
    with _LOCK:  # the default file is read once per process (and per $PAGESIEVE_CONFIG)
        if key not in _DEFAULT_CONFIG:
            _DEFAULT_CONFIG[key] = C.load()
        return _DEFAULT_CONFIG[key]


class Filterer:
    """A ready chain: built once (block lists and models load here), called once per page.

    ``Filterer(preset=None, *, output=None, settings=None, config=None)``; or
    ``Filterer.for_spec(spec)`` for an already resolved :class:`~pagesieve.engine.config.ChainSpec`.
    Thread-safe to call from several threads only if its filters are; the proxy uses one per
    worker process.
    """

    def __init__(self, preset: str | None = None, *, output: str | None = None,
                 settings: Mapping[str, Any] | None = None,
                 config: str | os.PathLike | C.Config | None = None) -> None:
        cfg = _config(config)
        items = list((settings or {}).items())
        if output is not None:
            items.append(("output.format", output))
        self.config: C.Config | None = cfg
        self.spec = cfg.resolve(preset, C.overrides_to_tree(items))
        self.chain: Chain = C.build_chain(self.spec)

    @classmethod
    def for_spec(cls, spec: C.ChainSpec) -> Filterer:
        self = cls.__new__(cls)
        self.config = None
        self.spec, self.chain = spec, C.build_chain(spec)
        return self

    @property
    def format(self) -> str:
        return self.spec.output.format

    def __call__(self, html: str | bytes, *, url: str | None = None, declared_encoding: str | None = None,
                 store: Any = None) -> Filtered:
        """Filter one page (``str``, or ``bytes`` in the encoding it declares or ``declared_encoding``)."""
        return Filtered.of(self.process(html, url=url, declared_encoding=declared_encoding, store=store),
                           self.format)

    def process(self, html: str | bytes, *, url: str | None = None, declared_encoding: str | None = None,
                store: Any = None, declared_html: bool = False, slot: bool = False,
                explain: bool | Collection[str] = True) -> ChainResult:
        """As calling it, but the chain's own :class:`~pagesieve.engine.chain.ChainResult` (bytes, for the proxy;
        ``declared_html``: the server said ``text/html``, so bytes that look binary are HTML all the same;
        ``slot``: with the place where the proxy may insert its own content; ``explain``: which entries
        its record gets, see :meth:`~pagesieve.engine.chain.Chain.process`)."""
        if isinstance(html, str):
            html, declared_encoding = html.encode("utf-8"), "utf-8"
        return self.chain.process(html, url=url, declared_encoding=declared_encoding, store=store,
                                  declared_html=declared_html, slot=slot, explain=explain)


#: Filterers kept by :func:`filter_html` (per preset, output and settings); bounded.
MAX_FILTERERS = 32
_FILTERERS: LRU[tuple, Filterer] = LRU(MAX_FILTERERS)


def filter_html(html: str | bytes, *, url: str | None = None, preset: str | None = None, output: str = "html",
                settings: Mapping[str, Any] | None = None) -> str:
    """The filtered page as a ``str`` (HTML, or text with ``output="text"``).

    The chain for a (preset, output, settings) is built on the first call and reused after; build a
    :class:`Filterer` yourself to choose the config file or to get the removals.
    """
    key = (os.environ.get("PAGESIEVE_CONFIG"), preset, output,
           json.dumps(dict(settings or {}), sort_keys=True, default=str))
    filterer = _FILTERERS.get(key)
    if filterer is None:
        filterer = Filterer(preset, output=output, settings=settings)
        _FILTERERS[key] = filterer
    return str(filterer(html, url=url))
