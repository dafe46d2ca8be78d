"""A cheap health endpoint for load balancers: ``GET http://pagesieve.health/`` through the proxy.

HAProxy (``docs/DEPLOY.md``, ``deploy/haproxy.cfg``) asks each ``pagesieve run`` instance every
second whether it is alive, with a proxy request to :data:`HEALTH_HOST`. This addon answers it on
the request's headers — no upstream connection, no filtering (``pagesieve.own_page``), no log
line, no proxy authentication (the answer says nothing about anyone) — with ``200`` and one line::

    ok; state=available; workers=2

``GET http://pagesieve.health/metrics`` answers metrics in Prometheus' text format
(:mod:`pagesieve.proxy_addons.metrics`).

``state=unavailable`` while the state database is down still answers 200: pages are served with
the last known settings then, so the instance must stay in the balancer.
"""

from __future__ import annotations

from typing import Any

from mitmproxy import http

from pagesieve.proxy_addons import flowkeys

HEALTH_HOST = "pagesieve.health"
"""The host name of the health endpoint (requested through the proxy: ``GET http://pagesieve.health/``)."""



class Health:
    name = "pagesieve_health"

    def __init__(self, identity: Any = None, declutter: Any = None, metrics: Any = None) -> None:
        self.identity = identity
        self.declutter = declutter
        self.metrics = metrics

    def requestheaders(self, flow: http.HTTPFlow) -> None:
        if flow.request.pretty_host.lower() != HEALTH_HOST:
            return
        flow.metadata[flowkeys.OWN_PAGE] = True
        if self.metrics is not None and flow.request.path.split("?")[0] == "/metrics":
            from pagesieve.proxy_addons.metrics import CONTENT_TYPE

            flow.response = http.Response.make(200, self.metrics.render().encode(),
                                               {"Content-Type": CONTENT_TYPE, "Cache-Control": "no-store"})
            return
        store = getattr(self.identity, "store", None)
        state = "available" if store is None or getattr(store, "available", True) else "unavailable"
        pool = getattr(self.declutter, "pool", None)
        workers = pool.workers if pool is not None else 0
        # Replaces a 407 from proxyauth too: a balancer checks liveness without credentials.
        flow.response = http.Response.make(200, f"ok; state={state}; workers={workers}\n".encode(),
                                           {"Content-Type": "text/plain; charset=utf-8",
                                            "Cache-Control": "no-store"})
