"""Counters for monitoring, in Prometheus' text format at ``http://pagesieve.health/metrics``.

Written by hand (the format is a few lines of text; no client library to install): what the
filtering addon decided on each page (``flow.metadata["pagesieve"]``, read after it ran), the
worker pool's size, queue, replacements and the seconds its workers spent on pages by outcome, the login checks under way and refused, the open client
connections, and the connections refused for a missing PROXY protocol header. Served by
:class:`~pagesieve.proxy_addons.health.Health`, without authentication as its health line is
(counts only: no user, host or address).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from mitmproxy import ctx, http

from pagesieve.proxy_addons import flowkeys


#: The Content-Type of Prometheus' text exposition format.
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class Metrics:
    name = "pagesieve_metrics"

    def __init__(self, identity: Any = None, declutter: Any = None, balancers: Any = None) -> None:
        self.identity = identity
        self.declutter = declutter
        self.balancers = balancers
        self.pages: Counter[tuple[str, str]] = Counter()  # (outcome, reason) -> pages
        self.filter_seconds = 0.0  # sum over filtered pages, to go with their count

    def response(self, flow: http.HTTPFlow) -> None:
        decision = flow.metadata.get(flowkeys.DECISION)
        if not decision:
            return
        if decision.get("filtered"):
            self.pages["filtered", ""] += 1
            self.filter_seconds += (decision.get("ms") or 0) / 1000
        elif decision.get("reason") != "own-page":
            self.pages["unfiltered", str(decision.get("reason") or "")] += 1

    def render(self) -> str:
        """The counters in Prometheus' text format."""
        out: list[str] = []

        def metric(name: str, kind: str, doc: str, samples: list[tuple[str, float]]) -> None:
            out.append(f"# HELP {name} {doc}")
            out.append(f"# TYPE {name} {kind}")
            out.extend(f"{name}{labels} {value:g}" for labels, value in samples)

        metric("pagesieve_pages_total", "counter", "HTML responses seen, by outcome and the reason one was not filtered.",
               [(f'{{outcome="{o}",reason="{r}"}}', n) for (o, r), n in sorted(self.pages.items())]
               or [('{outcome="filtered",reason=""}', 0)])
        metric("pagesieve_filter_seconds_total", "counter", "Seconds filtered pages took (with their count: the mean).",
               [("", self.filter_seconds)])
        pool = getattr(self.declutter, "pool", None)
        metric("pagesieve_workers", "gauge", "Worker processes configured.", [("", getattr(pool, "workers", 0))])
        waiting, clients = getattr(pool, "waiting", (0, 0))
        metric("pagesieve_pages_waiting", "gauge", "Pages waiting for a free worker.", [("", waiting)])
        metric("pagesieve_clients_waiting", "gauge",
               "Clients (users or addresses) with pages waiting; they share the workers by worker time.",
               [("", clients)])
        seconds = getattr(pool, "worker_seconds", {})
        metric("pagesieve_worker_seconds_total", "counter",
               "Seconds pages kept a worker, by outcome (filtered, or why not: timeout, error...).",
               [(f'{{outcome="{o}"}}', s) for o, s in sorted(seconds.items())] or [('{outcome="filtered"}', 0)])
        metric("pagesieve_worker_replacements_total", "counter",
               "Workers replaced after they died or were killed past the time limit.",
               [("", getattr(pool, "replaced", 0))])
        identity = self.identity
        metric("pagesieve_login_checks_pending", "gauge", "Password checks under way or queued.",
               [("", getattr(identity, "_pending", 0))])
        counts = getattr(identity, "counts", Counter())
        metric("pagesieve_logins_total", "counter", "Login checks, by result.",
               [(f'{{result="{k}"}}', n) for k, n in sorted(counts.items())] or [('{result="ok"}', 0)])
        server = ctx.master.addons.get("proxyserver") if hasattr(ctx, "master") else None
        metric("pagesieve_client_connections", "gauge", "Open client connections.",
               [("", len(getattr(server, "connections", {}) or {}))])
        metric("pagesieve_proxy_protocol_refused_total", "counter",
               "Connections from a trusted load balancer refused for want of a valid PROXY protocol header.",
               [("", getattr(self.balancers, "refused", 0))])
        return "\n".join(out) + "\n"
