"""The filtering addon: every HTML page with status 200 goes through the chain, in a worker process.

Guard clauses first — our own page, not 200, HEAD, a range request, bypassed, not HTML, too large
→ the response passes through byte for byte (non-candidates are even streamed, never buffered)
and says why in ``X-Pagesieve: unfiltered; reason=...``. Otherwise the body is decoded (gzip,
deflate, br, zstd), handed to the worker pool with the user's chain spec, and the result is set
(re-encoded as the origin had it, Content-Length right, the charset declared in Content-Type and
in ``<meta charset>``): ``X-Pagesieve: filtered; preset=declutter; ms=12.3``.

Fail-open everywhere: a body that cannot be decoded, a chain past ``proxy.timeout_seconds``, a
filter error outside the chain's own boundaries, a worker that dies — the original response is
served, one log line says why, and a dead pool is replaced.

Per user: ``flow.metadata["pagesieve.profile"] = {"user", "preset", "overrides", "bypass"}``, built
by the identity addon when a response may be HTML (never for a style sheet or an image), or set by
an earlier addon; ``flow.metadata["pagesieve.own_page"] = True`` for the proxy's own pages.

What the headers say is read once (:func:`~pagesieve.proxy_addons.http_rules.content_type`), the
skip rules run once, and the body is judged once (:func:`~pagesieve.proxy_addons.http_rules.candidate`):
the worker filters what it is sent without sniffing it again.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from concurrent.futures import Executor
from typing import Any

from mitmproxy import ctx, http
from mitmproxy.net import encoding
from mitmproxy.utils.human import parse_size

from pagesieve.core.errors import ConfigError, StateUnavailable
from pagesieve.engine.document import web_label
from pagesieve.proxy_addons import flowkeys
from pagesieve.proxy_addons.bodies import INLINE_DECODE_BYTES, decode_capped
from pagesieve.proxy_addons.control import OWN_PAGE_HEADERS, PageControl, take_bypass_param
from pagesieve.proxy_addons.http_rules import (
    FRAME_DESTINATIONS,
    STALE_HEADERS,
    Candidate,
    ContentType,
    candidate,
    content_type,
    host_matches,
    private_caching,
)
from pagesieve.proxy_addons.options import ConfigSource
from pagesieve.proxy_addons.pool import Busy, WorkerPool, Workers
from pagesieve.proxy_addons.worker import Job, Outcome

log = logging.getLogger("pagesieve.proxy")

HEADER = "X-Pagesieve"
BYPASS_KEY = "pagesieve.bypass"
#: This addon's decision on a flow ({"filtered": bool, "reason"...}): kept here, never read back
#: from a response header (an origin could send one).
#: Why a page leaves unfiltered on purpose: the person or the operator asked for it as sent, it is
#: the proxy's own, a frame that survived its page's filter, or a page its scripts make. Every other reason is a page the chain would have filtered and could not (an
#: error, a time-out, too large, too busy, unparsable, an error status): such an HTML response carries
#: the chain's fail-safe policy (ChainSpec.fail_safe_policy), so no script the chain would have taken
#: out runs because it could not.
AS_SENT_REASONS = frozenset({"own-page", "bypassed", "frame", "needs-scripts"})
#: Where this addon notes the policy it added before the body was seen (taken back if the page is filtered).
POLICY_KEY = "pagesieve.fail_safe_policy"
#: The policy when the person's chain cannot be resolved: the strictest any preset asks for.
STRICT_POLICY = "script-src 'none'; object-src 'none'"


class Declutter:
    """Runs the user's chain on HTML responses (see the module doc)."""

    name = "pagesieve_declutter"

    def __init__(self, source: ConfigSource, executor: Executor | None = None,
                 control: PageControl | None = None, identity: Any = None) -> None:
        self.source = source
        self.control = control or PageControl(source)  # the page control and the bypass tokens (control.py)
        self.identity = identity  # builds a user's profile when a response needs it (identity.py)
        self.workers = Workers(source, executor)  # the chain specs and the worker pool (pool.py)
        #: A candidate's Content-Type, read in responseheaders and used by response (the same flow).
        self._types: weakref.WeakKeyDictionary[http.HTTPFlow, ContentType] = weakref.WeakKeyDictionary()
        self._param = ""
        self._header = ""

    # -- lifecycle -----------------------------------------------------------------------
    def configure(self, updated: set[str]) -> None:
        s = self.source.settings
        self._param, self._header = s.bypass_param, s.bypass_header
        # Past max_body_bytes a body is passed through, never buffered: mitmproxy switches a flow
        # to streaming once its buffered body (or its Content-Length) passes stream_large_bodies.
        # An operator's smaller value is kept.
        if "stream_large_bodies" in ctx.options:  # declared by mitmproxy's proxyserver addon
            current = parse_size(ctx.options.stream_large_bodies)
            if current is None or current > s.max_body_bytes:
                ctx.options.update(stream_large_bodies=str(s.max_body_bytes))
        self.workers.configure()

    async def running(self) -> None:
        await self.workers.running()

    def done(self) -> None:
        self.workers.done()

    @property
    def pool(self) -> WorkerPool | None:
        """The worker processes (None while they start, or with a test's executor)."""
        return self.workers.pool

    # -- hooks ---------------------------------------------------------------------------
    def request(self, flow: http.HTTPFlow) -> None:
        """Take the one-page bypass (query parameter or header) off the request before it leaves. The
        parameter counts only with a valid token (``?pagesieve=off-<token>``, see the control module);
        a navigation without one gets the proxy's own "Show this page as sent?" page."""
        if self._param and "?" in flow.request.path:
            path, token = take_bypass_param(flow.request.path, self._param)
            if token is not None:
                flow.request.path = path
                self._bypass_asked(flow, token)
        referer = flow.request.headers.get("referer", "")
        if self._param and self._param in referer:
            # The page shown as sent still has its token in the address bar; the browser names that
            # address to whatever the page loads: the token stays with the person.
            cleaned, token = take_bypass_param(referer, self._param)
            if token is not None:
                flow.request.headers["referer"] = cleaned
        if self._header and self._header in flow.request.headers:
            value = flow.request.headers.pop(self._header)
            if value.strip() != "0":
                flow.metadata[BYPASS_KEY] = "header"

    def _bypass_asked(self, flow: http.HTTPFlow, token: str) -> None:
        """The bypass parameter came with ``token`` ("" when bare): honour it when the token is this
        user's for this URL; else ask the person (a navigation), or filter as usual (anything else)."""
        if flow.response is not None:
            return  # the proxy answered already (e.g. 407: authentication required)
        user = flow.metadata.get(flowkeys.USER) or "default"
        url = flow.request.pretty_url
        navigation = (flow.request.method.upper() in ("GET", "HEAD")
                      and flow.request.headers.get("sec-fetch-mode", "navigate") == "navigate")
        try:
            if token and self.control.check(token, "bypass", user, url):
                flow.metadata[BYPASS_KEY] = "query parameter"
                return
            if not navigation:
                return
            page = self.control.confirm_page(user, url)
        except StateUnavailable:
            return  # no token can be checked or made now: the page is filtered
        flow.metadata[flowkeys.OWN_PAGE] = True
        flow.response = http.Response.make(200, page.encode("utf-8"), OWN_PAGE_HEADERS)
        log.info("bypass of %s asked without a valid token: the person is asked first", flow.request.pretty_host)

    async def responseheaders(self, flow: http.HTTPFlow) -> None:
        """Decide on headers alone when possible; such responses stream through unbuffered."""
        resp = _response(flow)
        # Only this addon says whether a page was filtered: a site cannot send that itself.
        resp.headers.pop(HEADER, None)
        ctype = content_type(resp.headers)
        reason = await self._skip_reason(flow, ctype)
        if reason is None:
            length = resp.headers.get("content-length", "")
            if length.isdigit() and int(length) > self.source.settings.max_body_bytes:
                reason = "too-large"
        if reason is not None:
            resp.stream = True
            return self._unfiltered(flow, reason, ctype)
        self._types[flow] = ctype
        if "content-length" not in resp.headers:
            # Length unknown (chunked or until close): mitmproxy streams it on, headers first, if it
            # passes stream_large_bodies; those headers then say so (with the fail-safe policy). A body
            # that ends in time is buffered and the response hook sets the real answer.
            self._unfiltered(flow, "too-large", ctype, final=False)

    async def response(self, flow: http.HTTPFlow) -> None:
        if flowkeys.DECISION in flow.metadata:
            return  # decided on the headers
        resp = _response(flow)
        ctype = self._types.pop(flow, None)
        if resp.stream or resp.raw_content is None:
            # Switched to streaming by mitmproxy (body past stream_large_bodies): already sent.
            return self._unfiltered(flow, "too-large", ctype or content_type(resp.headers))
        if ctype is None:  # no responseheaders hook: a response an addon made
            ctype = content_type(resp.headers)
            reason = await self._skip_reason(flow, ctype)
            if reason is not None:
                return self._unfiltered(flow, reason, ctype)
        body = await self._decoded(flow, ctype)
        if body is None:
            return
        page = candidate(body, ctype)
        if page is None:
            return self._unfiltered(flow, "not-html", ctype)
        try:
            spec_key, spec = self._spec(flow)
        except ConfigError as err:
            return self._failed(flow, "error", f"profile: {err}", ctype)
        await self._filter(flow, spec_key, spec, page)

    # -- work ----------------------------------------------------------------------------
    async def _skip_reason(self, flow: http.HTTPFlow, ctype: ContentType) -> str | None:
        """Why the response passes through as it is, from its request and headers; None: read its body.
        The user's profile is built here, and only for a response that may be HTML: its site rule
        decides the bypass, its chain the filtering or the fail-safe policy."""
        req, resp = flow.request, _response(flow)
        if flow.metadata.get(flowkeys.OWN_PAGE) or req.pretty_host == getattr(ctx.options, "onboarding_host", "mitm.it"):
            return "own-page"
        if ctype.maybe_html and self.identity is not None:
            await self.identity.load_profile(flow)
        if resp.status_code != 200 or flow.websocket is not None:
            return f"status-{resp.status_code}"
        if req.method.upper() == "HEAD":
            return "head"
        if "range" in req.headers:
            return "range"
        profile = flow.metadata.get(flowkeys.PROFILE) or {}
        if (profile.get("bypass") or flow.metadata.get(BYPASS_KEY)
                or host_matches(req.pretty_host, self.source.settings.bypass_hosts)):
            return "bypassed"
        if not ctype.maybe_html:
            return "not-html"
        if req.headers.get("sec-fetch-dest", "").strip().lower() in FRAME_DESTINATIONS:
            return "frame"  # content that survived the parent page's filter (a player, a map): as sent
        return None

    async def _decoded(self, flow: http.HTTPFlow, ctype: ContentType) -> bytes | None:
        """The body without its Content-Encoding, or None when it leaves unfiltered (said here)."""
        resp = _response(flow)
        limit = self.source.settings.max_body_bytes
        raw = resp.raw_content or b""
        if len(raw) > limit:
            self._unfiltered(flow, "too-large", ctype)
            return None
        coding = resp.headers.get("content-encoding", "")
        body: bytes | None
        try:
            if not coding.strip():
                body = raw
            elif len(raw) <= INLINE_DECODE_BYTES:
                body = decode_capped(raw, coding, limit)
            else:  # a large body is inflated in a thread, never on the event loop
                body = await asyncio.to_thread(decode_capped, raw, coding, limit)
        except ValueError as err:
            self._failed(flow, "error", f"cannot decode the body: {err}", ctype)
            return None
        if body is None:
            self._unfiltered(flow, "too-large", ctype)
        return body

    def _spec(self, flow: http.HTTPFlow) -> tuple[str, Any]:
        profile = flow.metadata.get(flowkeys.PROFILE) or {}
        preset = profile.get("preset") or self.source.default_preset
        return self.workers.spec(preset, profile.get("overrides") or {})

    async def _filter(self, flow: http.HTTPFlow, spec_key: str, spec: Any, page: Candidate) -> None:
        s = self.source.settings
        job = Job(spec_key=spec_key, spec=None, body=page.body, url=flow.request.pretty_url,
                  charset=page.content_type.charset, host=flow.request.pretty_host, timeout=s.timeout_seconds,
                  explain=self.control.enabled)
        t0 = time.perf_counter()
        try:
            outcome = await self.workers.run(job, self._client(flow))
        except Busy:
            self._unfiltered(flow, "busy", page.content_type)
            log.info("unfiltered %s reason=busy: no worker free for %s within %d ms", flow.request.pretty_url,
                     self._client(flow), s.max_queue_ms)
            return
        except RuntimeError as err:  # the pool is shutting down
            return self._failed(flow, "error", str(err), page.content_type)
        if outcome.reason is not None:
            if outcome.reason in ("not-html", "needs-scripts"):  # served as sent on purpose: no warning
                return self._unfiltered(flow, outcome.reason, page.content_type)
            return self._failed(flow, outcome.reason, outcome.error or outcome.reason, page.content_type)
        ms = (time.perf_counter() - t0) * 1000
        await self._serve_filtered(flow, spec_key, spec.preset, outcome)
        flow.metadata[flowkeys.DECISION] = {"filtered": True, "preset": spec.preset, "ms": round(ms, 1),
                                            "filter_ms": outcome.ms, "queued_ms": outcome.queued_ms,
                                            "removed_by": dict(outcome.removed_by)}
        # A filter that raised, or that would have removed nearly all of the article, was undone on
        # this page (the others applied): the header says which.
        errors = [f.name for f in outcome.failed if f.status == "error"]
        reverted = [f.name for f in outcome.failed if f.status == "reverted"]
        _response(flow).headers[HEADER] = (f"filtered; preset={spec.preset}; ms={ms:.1f}"
                                           + (f"; failed={','.join(errors)}" if errors else "")
                                           + (f"; reverted={','.join(reverted)}" if reverted else ""))
        removed = ",".join(f"{n}:{c}" for n, c in outcome.removed_by) or "-"
        failed = f" failed={','.join(f'{f.name}:{f.status}' for f in outcome.failed)}" if outcome.failed else ""
        log.info("filtered %s preset=%s in=%d out=%d ms=%.1f removed=%s%s", flow.request.pretty_host,
                 spec.preset, len(page.body), len(outcome.body), ms, removed, failed)

    async def _serve_filtered(self, flow: http.HTTPFlow, spec_key: str, preset: str, outcome: Outcome) -> None:
        """Put the filtered body in the response, with the headers that are true of it."""
        resp = _response(flow)
        filtered = self._with_control(flow, preset, outcome)
        coding = resp.headers.get("content-encoding", "")
        if coding.strip() and len(filtered) > INLINE_DECODE_BYTES:
            # Re-encode a large body in a thread, as the origin had it (set_content would do it here).
            try:
                encoded = await asyncio.to_thread(encoding.encode, filtered, coding)
            except ValueError:
                resp.set_content(filtered)
            else:
                resp.raw_content = encoded
                if "transfer-encoding" not in resp.headers:
                    resp.headers["content-length"] = str(len(encoded))
        else:
            resp.set_content(filtered)  # re-encodes as Content-Encoding says; sets Content-Length
        resp.headers["content-type"] = f"{outcome.media_type}; charset={web_label(outcome.encoding)}"
        for name in STALE_HEADERS:
            resp.headers.pop(name, None)
        private_caching(resp.headers, spec_key, auth=self._auth())
        _take_back_policy(flow, resp)
        if outcome.content_security_policy:  # e.g. scripts were removed: nothing missed may run
            resp.headers.add("content-security-policy", outcome.content_security_policy)

    def _with_control(self, flow: http.HTTPFlow, preset: str, outcome: Outcome) -> bytes:
        """The filtered body with the page control (control module doc): its markup where the chain
        left room for it in HTML, one line at the end of text; the body as it is when it is off."""
        control = self.control
        if not control.enabled:
            return outcome.body
        user = flow.metadata.get(flowkeys.USER) or "default"
        url = flow.request.pretty_url
        try:
            if outcome.media_type != "text/html":
                line = control.text_line(user, url).encode(outcome.encoding, errors="replace")
                return outcome.body.rstrip(b"\r\n") + b"\n\n" + line + b"\n"
            if outcome.slot is None:
                return outcome.body
            key = control.keep(user, url, preset, outcome.filters, outcome.removals)
            markup = control.html(user, url, flow.request.pretty_host, sum(n for _, n in outcome.removed_by), key)
        except StateUnavailable:  # no token can be made now: the page goes without the control
            return outcome.body
        return (outcome.body[:outcome.slot] + markup.encode(outcome.encoding, errors="xmlcharrefreplace")
                + outcome.body[outcome.slot:])

    def _client(self, flow: http.HTTPFlow) -> str:
        """Who a page is for, as the workers' fair share counts clients: the logged-in user, else the
        client's address (behind a load balancer, the one its PROXY protocol header gave)."""
        user = flow.metadata.get(flowkeys.USER)
        if user and self._auth():
            return f"user {user}"
        peer = flow.client_conn.peername
        return f"address {peer[0]}" if peer else "address ?"

    def _auth(self) -> bool:
        users = self.source.cfg.globals.get("users") if self.source.cfg is not None else None
        return bool(getattr(users, "auth", False))

    def _unfiltered(self, flow: http.HTTPFlow, reason: str, ctype: ContentType, *, final: bool = True) -> None:
        """Say the page leaves unfiltered and why; an HTML page the chain would have filtered gets its
        fail-safe policy (:data:`AS_SENT_REASONS`). ``final=False``: said before the body is seen (the
        response hook may still filter it)."""
        resp = _response(flow)
        resp.headers[HEADER] = f"unfiltered; reason={reason}"
        if final:
            flow.metadata[flowkeys.DECISION] = {"filtered": False, "reason": reason}
        if reason in AS_SENT_REASONS or POLICY_KEY in flow.metadata or not ctype.maybe_html:
            return
        policy = self._fail_safe_policy(flow)
        if policy:
            resp.headers.add("content-security-policy", policy)
            flow.metadata[POLICY_KEY] = policy

    def _fail_safe_policy(self, flow: http.HTTPFlow) -> str | None:
        """The person's chain's fail-safe policy (the strictest when their chain cannot be resolved)."""
        try:
            return self._spec(flow)[1].fail_safe_policy
        except ConfigError:
            return STRICT_POLICY

    def _failed(self, flow: http.HTTPFlow, reason: str, why: str, ctype: ContentType) -> None:
        """Fail open: serve the original response, one log line."""
        self._unfiltered(flow, reason, ctype)
        log.warning("unfiltered %s reason=%s: %s; original page served", flow.request.pretty_url, reason, why)


def _take_back_policy(flow: http.HTTPFlow, resp: http.Response) -> None:
    """Remove the fail-safe policy added before the body was seen (the page was filtered after all)."""
    added = flow.metadata.pop(POLICY_KEY, None)
    if added is None:
        return
    values = resp.headers.get_all("content-security-policy")
    if added in values:
        values.remove(added)
        resp.headers.set_all("content-security-policy", values)


def _response(flow: http.HTTPFlow) -> http.Response:
    """The flow's response (set in every hook this addon reads it in)."""
    resp = flow.response
    assert resp is not None, "a response hook without a response"
    return resp
