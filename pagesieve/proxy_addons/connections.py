"""Client connections that hold the proxy without using it are closed.

mitmproxy closes a connection after ``tcp_timeout`` seconds without traffic either way (600 by
default). This addon sets that option to ``proxy.idle_timeout_seconds`` (an operator's smaller
value is kept), and closes a client connection that has not sent the headers of its first
request ``proxy.header_timeout_seconds`` after connecting — one that sends a byte now and then
is never idle, and mitmproxy has no limit on reading request headers. The connection is closed
as mitmproxy closes an idle one (its handler's ``on_timeout``).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from mitmproxy import connection, ctx, http

from pagesieve.proxy_addons.options import ConfigSource

log = logging.getLogger("pagesieve.proxy")


class ConnectionLimits:
    name = "pagesieve_connections"

    def __init__(self, source: ConfigSource) -> None:
        self.source = source
        self._waiting: dict[Any, asyncio.TimerHandle] = {}  # client id -> its header deadline

    def configure(self, updated: set[str]) -> None:
        if self.source.cfg is None or "tcp_timeout" not in ctx.options:
            return
        idle = self.source.settings.idle_timeout_seconds
        if ctx.options.tcp_timeout > idle:
            ctx.options.update(tcp_timeout=idle)

    def client_connected(self, client: connection.Client) -> None:
        if self.source.cfg is None:
            return
        loop = asyncio.get_running_loop()
        self._waiting[client.id] = loop.call_later(self.source.settings.header_timeout_seconds,
                                                   self._too_slow, client.id)

    def requestheaders(self, flow: http.HTTPFlow) -> None:
        timer = self._waiting.pop(flow.client_conn.id, None)
        if timer is not None:
            timer.cancel()

    def client_disconnected(self, client: connection.Client) -> None:
        timer = self._waiting.pop(client.id, None)
        if timer is not None:
            timer.cancel()

    def _too_slow(self, client_id: Any) -> None:
        self._waiting.pop(client_id, None)
        server = ctx.master.addons.get("proxyserver")
        handler = getattr(server, "connections", {}).get(client_id)
        if handler is None:
            return
        log.info("closing a client connection from %s: no request headers within %g s",
                 handler.client.peername[0] if handler.client.peername else "?",
                 self.source.settings.header_timeout_seconds)
        asyncio.get_running_loop().create_task(handler.on_timeout())
