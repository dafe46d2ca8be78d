"""The settings app's pages behind the page control (:mod:`pagesieve.proxy_addons.control`):

* ``GET /removed/<id>`` — what was removed from one page the user loaded, by filter and reason (the
  removals of the page's ``--explain`` record, kept by :class:`~pagesieve.proxy_addons.control.RemovalLog`;
  only its own user sees a page's list);
* ``POST /always-as-sent`` — the control's "Always show this site as sent": a "do not filter" rule
  for the site in this user's profile, as the settings page's per-site rules store it. The form's
  token is bound to the user and the site; a form sent from another site is refused.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any, Callable
from urllib.parse import urlsplit

import flask

from pagesieve.core.errors import ConfigError, StateUnavailable
from pagesieve.proxy_addons.control import ALWAYS_PATH, REMOVED_PATH, PageControl, PageRemovals
from pagesieve.store.profiles import SiteRule, normalize_host

log = logging.getLogger("pagesieve.proxy")

VERBS = {"remove": "removed", "replace": "replaced", "error": "failed", "revert": "undone"}
STATUS_TEXT = {"error": "the filter failed on this page", "reverted": "it would have removed nearly all of the "
               "article's text", "skipped": "the filter was skipped"}


def removal_view(page: PageRemovals) -> dict[str, Any]:
    """The removals of one page grouped by filter, in chain order, as the template shows them."""
    groups = []
    for name, status, removed in page.filters:
        entries = [e for e in page.removals if e.get("filter") == name]
        if not entries:
            continue
        shown = [{"node": e.get("node"), "verb": VERBS.get(e.get("action", ""), e.get("action", "")),
                  "reason": e.get("reason", ""), "measured": _pairs(e.get("measured")),
                  "threshold": _pairs(e.get("threshold"))} for e in entries]
        changes = sum(1 for e in entries if e.get("action") in ("remove", "replace"))
        if status != "ok":
            summary = f"{changes} change{'' if changes == 1 else 's'} listed here, all put back."
        elif removed > changes:  # e.g. every script the ignore filter drops: counted, not noted one by one
            summary = (f"{changes} listed one by one; {removed - changes} more (markup this filter drops as a "
                       "kind, such as scripts or style sheets) are counted but not listed, here as in --explain.")
        else:
            summary = ""
        groups.append({"filter": name, "status": status, "status_text": STATUS_TEXT.get(status, status),
                       "kept": removed, "entries": shown, "summary": summary})
    total = sum(r for _, s, r in page.filters if s == "ok")
    return {"page": page, "groups": groups, "total": total,
            "listed": sum(1 for e in page.removals if e.get("action") in ("remove", "replace"))}


def _pairs(values: Any) -> str:
    if not values:
        return ""
    if isinstance(values, dict):
        return ", ".join(f"{k} = {v}" for k, v in values.items())
    return str(values)


def add_routes(app: flask.Flask, settings_page: Any, control: PageControl, current_user: Callable[[], str | None],
               message: Callable[..., Any]) -> None:
    """Mount the control's pages on the settings app (``message(status, title, text, link)`` draws a
    short page)."""

    def user_and_store() -> tuple[str | None, Any]:
        store = settings_page.identity.store
        if store is not None and not getattr(store, "available", True):
            raise StateUnavailable("the state database is unavailable")
        return current_user(), store

    @app.route(REMOVED_PATH + "<key>", methods=["GET", "HEAD"])
    def removed(key: str):
        user, _ = user_and_store()
        if user is None:
            return message(403, "Forbidden", "Not authenticated by the proxy.")
        page = control.removed.get(user, key)
        if page is None:
            return message(404, "This list is gone",
                           "The proxy keeps what it removed from your most recent pages only (or it was restarted, "
                           "or another instance served the page). Load the page again and follow its link.",
                           link=True)
        view = removal_view(page)
        return flask.render_template("removed.html", original=control.original_url(user, page.url),
                                     settings="/", **view)

    @app.route(ALWAYS_PATH, methods=["POST"])
    def always_as_sent():
        req = flask.request
        user, store = user_and_store()
        if user is None or store is None:
            return message(403, "Forbidden", "Not authenticated by the proxy.")
        if req.mimetype != "application/x-www-form-urlencoded":
            return message(415, "Unsupported form encoding")
        try:
            host = normalize_host(req.form.get("host", ""))
        except ValueError as err:
            return message(400, "Not a site", str(err), link=True)
        origin = req.headers.get("origin")
        if origin and origin != "null" and urlsplit(origin).hostname not in (host, settings_page.host):
            log.warning("page control: refused for %s: form for %s sent from %s", user, host, origin)
            return message(403, "Forbidden", f"A form for {host} sent from {origin}. Nothing was changed.", link=True)
        if not control.check(req.form.get("csrf"), "always", user, host):
            log.warning("page control: refused for %s: missing or wrong token for %s", user, host)
            return message(403, "Forbidden", "Missing or wrong token. Nothing was changed.", link=True)
        profile = store.get(user)
        sites = {**profile.sites, host: SiteRule(None, True)}
        try:
            store.save(dataclasses.replace(profile, sites=sites), settings_page.source.default_preset)
        except ConfigError as err:
            return message(400, "Not saved", str(err), link=True)
        log.info("page control: %s shows %s as sent from now on", user, host)
        back = req.form.get("back", "")
        parts = urlsplit(back)
        if parts.scheme in ("http", "https") and (parts.hostname or "").rstrip(".") == host:
            return flask.redirect(back, code=303)
        return flask.redirect("/?saved=1", code=303)
