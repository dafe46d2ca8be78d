"""Metrics for monitoring, in Prometheus' text format at ``http://pagesieve.health/metrics``.

Kept with Prometheus' own client library (``prometheus_client``), one registry per proxy: what the
filtering addon decided on each page (``flow.metadata["pagesieve"]``, read after it ran) and, for each
filtered page, how long it waited for a worker and how long the worker filtered it (histograms); read
when the endpoint is asked: the worker pool's size, queue, replacements and the seconds its workers
spent on pages by outcome, the login checks under way and their results (lock-outs among them), whether
the state database is available, the open client connections, and the connections refused for a missing
PROXY protocol header. Served by :class:`~pagesieve.proxy_addons.health.Health`, without authentication
as its health line is (counts only: no user, host or address).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import prometheus_client
from mitmproxy import ctx, http
from prometheus_client import CollectorRegistry, Histogram
from prometheus_client import Counter as CounterMetric
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from pagesieve.proxy_addons import flowkeys

#: The Content-Type of Prometheus' text exposition format.
CONTENT_TYPE = prometheus_client.CONTENT_TYPE_LATEST
#: Bounds (seconds) of the filter-time histogram: a page takes tens of milliseconds, a heavy one seconds,
#: and the default time limit is 5 s.
FILTER_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
#: ... and of the queue-time one: no wait at all, up to the default queue limit (2 s) and a little past.
QUEUE_BUCKETS = (0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0)

# The "_created" timestamp series are noise for counters that live as long as the process.
prometheus_client.disable_created_metrics()


class Metrics:
    name = "pagesieve_metrics"

    def __init__(self, identity: Any = None, declutter: Any = None, balancers: Any = None) -> None:
        self.identity = identity
        self.declutter = declutter
        self.balancers = balancers
        self.registry = CollectorRegistry(auto_describe=True)
        self.pages = CounterMetric("pagesieve_pages", "HTML responses seen, by outcome and the reason one was not "
                                   "filtered.", ["outcome", "reason"], registry=self.registry)
        self.pages.labels("filtered", "")  # a series from the start, at 0
        self.filter_seconds = Histogram("pagesieve_filter_seconds", "Seconds a worker took to filter a page "
                                        "(filtered pages).", buckets=FILTER_BUCKETS, registry=self.registry)
        self.queue_seconds = Histogram("pagesieve_queue_seconds", "Seconds a page waited for a free worker "
                                       "(filtered pages; a page that waits past proxy.max_queue_ms is served "
                                       "unfiltered, reason=busy).", buckets=QUEUE_BUCKETS, registry=self.registry)
        self.registry.register(_Live(self))

    def response(self, flow: http.HTTPFlow) -> None:
        decision = flow.metadata.get(flowkeys.DECISION)
        if not decision:
            return
        if decision.get("filtered"):
            self.pages.labels("filtered", "").inc()
            self.filter_seconds.observe((decision.get("filter_ms") or 0) / 1000)
            self.queue_seconds.observe((decision.get("queued_ms") or 0) / 1000)
        elif decision.get("reason") != "own-page":
            self.pages.labels("unfiltered", str(decision.get("reason") or "")).inc()

    def render(self) -> str:
        """Every metric in Prometheus' text format."""
        return prometheus_client.generate_latest(self.registry).decode()


class _Live(Collector):
    """What is read from the proxy's parts when the endpoint is asked (their own counters and states)."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def collect(self) -> Iterator[Metric]:
        m = self.metrics
        pool = getattr(m.declutter, "pool", None)
        yield GaugeMetricFamily("pagesieve_workers", "Worker processes configured.", value=getattr(pool, "workers", 0))
        waiting, clients = getattr(pool, "waiting", (0, 0))
        yield GaugeMetricFamily("pagesieve_pages_waiting", "Pages waiting for a free worker.", value=waiting)
        yield GaugeMetricFamily("pagesieve_clients_waiting", "Clients (users or addresses) with pages waiting; "
                                "they share the workers by worker time.", value=clients)
        seconds = CounterMetricFamily("pagesieve_worker_seconds", "Seconds pages kept a worker, by outcome "
                                      "(filtered, or why not: timeout, error...).", labels=["outcome"])
        for outcome, value in sorted((getattr(pool, "worker_seconds", None) or {"filtered": 0.0}).items()):
            seconds.add_metric([outcome], value)
        yield seconds
        yield CounterMetricFamily("pagesieve_worker_replacements", "Workers replaced after they died or were "
                                  "killed past the time limit.", value=getattr(pool, "replaced", 0))
        identity = m.identity
        yield GaugeMetricFamily("pagesieve_login_checks_pending", "Password checks under way or queued.",
                                value=getattr(identity, "_pending", 0))
        logins = CounterMetricFamily("pagesieve_logins", "Login checks by result: ok, failed, refused-locked "
                                     "(a lock-out after failures), refused-busy (too many checks at once), "
                                     "directory-unavailable.", labels=["result"])
        for result, n in sorted((getattr(identity, "counts", None) or {"ok": 0}).items()):
            logins.add_metric([result], n)
        yield logins
        store = getattr(identity, "store", None)
        yield GaugeMetricFamily("pagesieve_state_available", "1 while the state database (users' settings, site "
                                "memory) answers, 0 during an outage (pages are then filtered with the last "
                                "settings read).",
                                value=1 if store is None or getattr(store, "available", True) else 0)
        server = ctx.master.addons.get("proxyserver") if hasattr(ctx, "master") else None
        yield GaugeMetricFamily("pagesieve_client_connections", "Open client connections.",
                                value=len(getattr(server, "connections", {}) or {}))
        yield CounterMetricFamily("pagesieve_proxy_protocol_refused", "Connections from a trusted load balancer "
                                  "refused for want of a valid PROXY protocol header.",
                                  value=getattr(m.balancers, "refused", 0))
