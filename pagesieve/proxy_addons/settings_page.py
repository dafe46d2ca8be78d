"""The settings page the proxy serves itself at ``http://<users.settings_host>/``.

Like the paper's "Extractor Settings" screens (dom-and-nlp-content-extraction-proxy.txt): the
user's *effective* settings, grouped as there — the preset and **output settings** (HTML or text,
append removed links to the bottom, limit line breaks), the **filters** in use (each on/off),
**ignore settings** (the ``ignore`` filter's switches), **advanced settings** (every filter's
thresholds, one fieldset per filter), **accessibility**, and **per-site rules** (another preset,
or no filtering, on a host and its subdomains).

Plain HTML: one form, ``<fieldset>``/``<legend>`` groups under headings, every control with a
``<label>``, the setting's documentation tied to it with ``aria-describedby``; errors are listed
first (links to the fields) and repeated at each field (``aria-invalid``). No JavaScript, no
external resources; ``Content-Security-Policy`` allows nothing else.

Security: the user is whoever the proxy authenticated (``flow.metadata["pagesieve.user"]`` from
:mod:`pagesieve.proxy_addons.identity`), never a form field or header: a request naming another
user (``?user=`` / a ``user`` field) is refused with 403. Saving needs the form's CSRF token (an
HMAC of the user name under a per-installation key, :meth:`ProfileStore.csrf_token`) and, when
the browser sends one, an ``Origin`` of the settings page itself. Values are validated with the
same rules as ``config.yaml`` (:meth:`ProfileStore.save`); a bad value is shown back with its
error and nothing is saved. The page is served only by the proxy (it is a ``request`` hook that
answers without contacting any server), so it is reachable only through the proxy.

A profile keeps only what differs from the defaults of the chosen preset: a field left at its
default is not stored, so a later change of ``config.yaml`` reaches this user.
"""

from __future__ import annotations

import logging
import types
import typing
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal, Mapping
from urllib.parse import urlsplit

import flask
from mitmproxy import http
from mitmproxy.addons import asgiapp
from werkzeug.exceptions import HTTPException

from pagesieve import settings as S
from pagesieve.config import check_user_key, scope_of
from pagesieve.errors import ConfigError, StateUnavailable
from pagesieve.filters import FILTERS
from pagesieve.profiles import Profile, ProfileError, SiteRule, chain_for, normalize_host, overrides_tree
from pagesieve.proxy_addons.control import PageControl
from pagesieve.proxy_addons.control_pages import add_routes as add_control_routes
from pagesieve.proxy_addons.identity import USER_KEY, Identity
from pagesieve.proxy_addons.options import ConfigSource

log = logging.getLogger("pagesieve.proxy")

OWN_PAGE_KEY = "pagesieve.own_page"
MAX_FORM_BYTES = 200_000
SECURITY_HEADERS = {
    "Content-Type": "text/html; charset=utf-8",
    "Cache-Control": "no-store",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; "
                               "frame-ancestors 'none'; base-uri 'none'",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",  # no-referrer would make browsers send "Origin: null" on the form post
    "X-Content-Type-Options": "nosniff",
}
#: The paper's screens, in its order, then pagesieve's own groups.
GROUPS = (("ignore", "Ignore settings", "What the ignore filter leaves out of every page."),
          ("advanced", "Advanced settings", "Each filter's thresholds."),
          ("accessibility", "Accessibility", "Repairs made for screen readers and keyboards."))
#: Up to this many fixed values are radio buttons (all visible at once); more are a select.
MAX_RADIO_CHOICES = 5
TEMPLATES = Path(__file__).resolve().parent / "templates"
#: The authenticated user of the request being answered (set by the addon from flow.metadata,
#: never from the request: asgiref runs the WSGI app in a copy of this context).
_USER: ContextVar[str | None] = ContextVar("pagesieve_settings_user", default=None)


def _field_id(key: str) -> str:
    return "f-" + key.replace(".", "-")


class Form:
    """The settings of one user as form fields: rendering, and parsing a submitted form."""

    def __init__(self, cfg: Any) -> None:
        self.cfg = cfg
        self.filters = FILTERS
        self.output = [i for i in S.describe(type(cfg.resolve().output)) if i["scope"] == S.USER]

    # -- values ----------------------------------------------------------------------------------
    def _all_filters(self, preset: str, tree: Mapping | None = None) -> Any:
        """A spec with every filter (for its settings) under ``preset`` and ``tree`` overrides."""
        tree = dict(tree or {})
        tree["chain"] = list(self.filters)
        return self.cfg.resolve(preset, tree, check=False)  # for the settings only: never run

    def values(self, profile: Any, default_preset: str | None) -> dict[str, Any]:
        """Dotted key → effective value for ``profile`` (what the page shows)."""
        preset = self.cfg.preset_for(profile.preset, default_preset)
        tree = overrides_tree(self.cfg, preset, profile)
        tree.pop("chain", None)  # the chain shown is chain_for(...) below
        spec = self._all_filters(preset, tree)
        out: dict[str, Any] = {"preset": profile.preset or "", "chain": chain_for(self.cfg, preset, profile.toggles)}
        for name, inst in spec.filters:
            for key, value in S.as_dict(inst).items():
                out[f"filters.{name}.{key}"] = value
        for key, value in S.as_dict(spec.output).items():
            out[f"output.{key}"] = value
        return out

    def defaults(self, preset: str) -> dict[str, Any]:
        spec = self._all_filters(preset)
        out = {f"filters.{n}.{k}": v for n, inst in spec.filters for k, v in S.as_dict(inst).items()}
        out.update({f"output.{k}": v for k, v in S.as_dict(spec.output).items()})
        return out

    # -- parsing ---------------------------------------------------------------------------------
    def parse(self, user: str, form: Mapping[str, list[str]], default_preset: str | None):
        """The profile the submitted ``form`` describes, and the raw values to show back.
        Raises ProfileError (key → message) for values that are not even of the right type."""
        def one(key: str) -> str | None:
            got = form.get(key)
            return got[-1] if got else None

        errors: dict[str, str] = {}
        fields = {key for key, _ in self._items()}
        for key in form:  # a setting the page does not offer (the operator's) is refused, not ignored
            if key not in fields and scope_of(key) is not None:
                try:
                    check_user_key(key)
                except ConfigError as err:
                    errors[key] = str(err)
        preset = (one("preset") or "").strip() or None
        base = self.cfg.preset_for(preset if preset in self.cfg.presets else None, default_preset)
        # The fields showed the settings of the preset the page was rendered with: what differs from
        # that preset's defaults is what the user set (when they also chose another preset, their
        # edits carry over to it; the values they left as shown follow the new preset).
        shown = (one("shown_preset") or "").strip()
        base = shown if shown in self.cfg.presets else base
        defaults = self.defaults(base)
        overrides: dict[str, Any] = {}
        for key, item in self._items():
            raw = one(key)
            tp = item["type"]
            try:
                value = self._convert(key, raw, tp, item)
            except ValueError as err:
                errors[key] = str(err)
                continue
            if value != defaults.get(key):
                overrides[key] = value
        base_chain = self.cfg.presets[base]["chain"]
        toggles = {}
        for name in self.filters:
            on = one(f"chain.{name}") is not None
            if on != (name in base_chain):
                toggles[name] = on
        sites: dict[str, SiteRule] = {}
        i = 0
        while one(f"site.{i}.host") is not None:
            if one(f"site.{i}.remove") is None:
                self._site(one, f"site.{i}", sites, errors, normalize_host, SiteRule)
            i += 1
        if (one("site.new.host") or "").strip():
            self._site(one, "site.new", sites, errors, normalize_host, SiteRule)
        if errors:
            raise ProfileError(errors)
        return Profile(user, preset, overrides, toggles, sites)

    def _site(self, one, prefix, sites, errors, normalize_host, SiteRule) -> None:
        try:
            host = normalize_host(one(f"{prefix}.host") or "")
        except ValueError as err:
            errors[f"{prefix}.host"] = f"host {err}"
            return
        rule_preset = (one(f"{prefix}.preset") or "").strip() or None
        bypass = one(f"{prefix}.bypass") is not None
        if rule_preset is None and not bypass:
            errors[f"{prefix}.host"] = f"{host}: choose a preset or 'do not filter' for this site"
            return
        sites[host] = SiteRule(rule_preset, bypass)

    @classmethod
    def _convert(cls, key: str, raw: str | None, tp: Any, item: Mapping) -> Any:
        if typing.get_origin(tp) in (typing.Union, types.UnionType):  # "X or null": empty means null
            if not (raw or "").strip():
                return None
            inner = [a for a in typing.get_args(tp) if a is not type(None)][0]
            return cls._convert(key, raw, inner, item)
        if tp is bool:
            return raw is not None
        raw = (raw or "").strip()
        if tp is int or tp is float:
            try:
                return int(raw) if tp is int else float(raw)
            except ValueError:
                raise ValueError(f"{key} = {raw!r}: expected {item['allowed']}") from None
        if typing.get_origin(tp) is tuple:
            return [v.strip() for v in raw.split(",") if v.strip()]
        return raw

    def _items(self):
        """The fields of the page: the user-scope settings (no others are shown or read)."""
        for name, cls in self.filters.items():
            for item in S.describe(cls.Settings):
                if item["group"] in dict((g, 1) for g, _, _ in GROUPS) and item["scope"] == S.USER:
                    yield f"filters.{name}.{item['name']}", item
        for item in self.output:
            yield f"output.{item['name']}", item

    # -- what the template shows --------------------------------------------------------------
    def field(self, key: str, item: Mapping, value: Any, errors: Mapping[str, str], label: str = "") -> dict:
        """One control as the template draws it; its kind fits the setting's: a checkbox for a
        switch, radio buttons for a few fixed values (a select for more), a number box with its
        bounds, a text box for text and lists (comma-separated)."""
        tp, meta = item["type"], item["meta"]
        inner = tp
        if typing.get_origin(tp) in (typing.Union, types.UnionType):
            inner = [a for a in typing.get_args(tp) if a is not type(None)][0]
        choices = typing.get_args(inner) if typing.get_origin(inner) is Literal else meta.get("choices")
        f = {"key": key, "id": _field_id(key), "label": label or item["name"].replace("_", " "),
             "doc": f"{item['doc']} ({item['allowed']}; default {item['default']})", "error": errors.get(key),
             "value": value, "options": (), "attrs": {}}
        if tp is bool:
            f["kind"] = "checkbox"
        elif choices and typing.get_origin(inner) is not tuple:
            f["kind"] = "radio" if len(choices) <= MAX_RADIO_CHOICES else "select"
            f["options"] = tuple(choices)
        elif inner in (int, float):
            f["kind"] = "number"
            f["attrs"] = {"step": "any" if inner is float else "1", "min": meta.get("min"), "max": meta.get("max")}
        else:
            f["kind"] = "text"
            if isinstance(value, (list, tuple)):
                f["value"] = ", ".join(value)
        if f["kind"] != "checkbox" and f["value"] is None:
            f["value"] = ""
        return f

    def view(self, user: str, token: str, values: Mapping[str, Any], sites: Mapping[str, Any],
             default_preset: str, errors: Mapping[str, str] | None = None, message: str = "") -> dict:
        """Everything the settings template needs, escaped by the template itself."""
        errors = errors or {}
        groups = []
        for group, title, doc in GROUPS:
            sets = []
            for name, cls in self.filters.items():
                items = [i for i in S.describe(cls.Settings) if i["group"] == group and i["scope"] == S.USER]
                if items:
                    sets.append({"name": name, "fields": [
                        self.field(f"filters.{name}.{i['name']}", i, values.get(f"filters.{name}.{i['name']}"),
                                   errors) for i in items]})
            groups.append({"title": title, "doc": doc, "fieldsets": sets})
        return {
            "user": user, "token": token, "errors": errors, "message": message,
            "shown_preset": values.get("preset") or default_preset, "default_preset": default_preset,
            "preset": values.get("preset") or "", "presets": self.cfg.presets,
            "output": [self.field(f"output.{i['name']}", i, values.get(f"output.{i['name']}"), errors)
                       for i in self.output],
            "chain": values.get("chain", ()),
            "filters": [(n, c.summary) for n, c in self.filters.items() if n != "removed_links"],
            "groups": groups, "sites": list(sites.items()), "field_id": _field_id,
        }


class SettingsPage(asgiapp.WSGIApp):
    """The settings app (Flask, templates in ``templates/``) mounted on ``users.settings_host``
    as mitmproxy mounts its onboarding app; the user comes from ``flow.metadata``."""

    name = "pagesieve_settings_page"

    def __init__(self, source: ConfigSource, identity: Identity, control: PageControl | None = None) -> None:
        self.source = source
        self.identity = identity
        self.control = control or PageControl(source, identity)
        self._form: Form | None = None
        self._form_cfg: Any = None
        self.app = create_app(self)
        super().__init__(self.app, "", None)

    def configure(self, updated: set[str]) -> None:
        self.host = self._host()

    def _host(self) -> str:
        return self.source.cfg.globals["users"].settings_host.lower() if self.source.cfg else ""

    def form(self) -> Form:
        if self._form is None or self._form_cfg is not self.source.cfg:
            self._form, self._form_cfg = Form(self.source.cfg), self.source.cfg
        return self._form

    def should_serve(self, flow: http.HTTPFlow) -> bool:
        return bool(flow.metadata.get(OWN_PAGE_KEY)) and flow.live and not flow.error and not flow.response

    def requestheaders(self, flow: http.HTTPFlow) -> None:
        if flow.request.pretty_host.lower() == self._host():
            flow.metadata[OWN_PAGE_KEY] = True

    async def request(self, flow: http.HTTPFlow) -> None:
        if not self.should_serve(flow):
            return  # not ours, or the proxy already answered (e.g. 407 authentication required)
        token = _USER.set(flow.metadata.get(USER_KEY))
        try:
            await super().request(flow)
        finally:
            _USER.reset(token)
        if flow.response is None:  # the app never answered (it logs why)
            flow.response = http.Response.make(500, b"settings page failed", SECURITY_HEADERS)

    # -- the pages -------------------------------------------------------------------------------
    def show(self, user, store, *, values=None, sites=None, errors=None, message="", status=200):
        form = self.form()
        profile = store.get(user)
        preset = self.source.cfg.preset_for(self.source.preset)
        if values is None:
            values = form.values(store.usable(profile, self.source.preset), self.source.preset)
            sites = profile.sites
        view = form.view(user, store.csrf_token(user), values, sites or {}, preset, errors, message)
        return flask.render_template("settings.html", **view), status

    def save(self, user, store, form_data) -> Any:
        form = self.form()
        try:
            profile = form.parse(user, form_data, self.source.preset)
            store.save(profile, self.source.preset)
        except ProfileError as err:
            return self.show(user, store, values=self.submitted(form_data), sites={},
                             errors=_field_errors(err.errors), status=400)
        except ConfigError as err:
            return self.show(user, store, values=self.submitted(form_data), sites={},
                             errors={"preset": str(err)}, status=400)
        log.info("settings page: %s saved %d setting(s), %d filter switch(es), %d site rule(s)", user,
                 len(profile.overrides), len(profile.toggles), len(profile.sites))
        return flask.redirect("/?saved=1", code=303)

    def submitted(self, form_data: Mapping[str, list[str]]) -> dict[str, Any]:
        """The submitted values (as typed) to show back with the errors."""
        values: dict[str, Any] = {"preset": (form_data.get("preset") or [""])[-1],
                                  "chain": [k[len("chain."):] for k in form_data if k.startswith("chain.")]}
        for key, item in self.form()._items():
            got = form_data.get(key)
            if item["type"] is bool:
                values[key] = got is not None
            else:
                values[key] = got[-1] if got else ""
        return values


def _message(status: int, title: str, text: str = "", link: bool = False):
    return flask.render_template("message.html", title=title, text=text, link=link), status


def _refuse(user: str, why: str):
    log.warning("settings page: refused for %s: %s", user, why)
    return _message(403, "Forbidden", f"{why}. Nothing was read or changed.", link=True)


def create_app(page: SettingsPage) -> flask.Flask:
    """The settings page as a WSGI app: one route, ``/`` (GET shows, POST saves)."""
    app = flask.Flask("pagesieve.settings_page", template_folder=str(TEMPLATES))
    app.config["MAX_CONTENT_LENGTH"] = MAX_FORM_BYTES

    @app.after_request
    def security_headers(resp: flask.Response) -> flask.Response:
        for name, value in SECURITY_HEADERS.items():
            if name != "Content-Type" or resp.mimetype == "text/html":
                resp.headers[name] = value
        return resp

    @app.errorhandler(HTTPException)
    def http_error(err: HTTPException):
        titles = {404: "Not found", 405: "Method not allowed", 413: "Form too large"}
        return _message(err.code or 500, titles.get(err.code or 500, err.name), link=err.code == 404)

    @app.errorhandler(StateUnavailable)
    def state_unavailable(err: StateUnavailable):  # PostgreSQL down: browsing goes on, settings wait
        text, status = _message(503, "Settings are unavailable for a moment",
                                "The database that keeps settings cannot be reached. Pages are still filtered "
                                "with your last known settings. Nothing was changed; try again in a minute.")
        return text, status, {"Retry-After": "30"}

    @app.errorhandler(Exception)
    def failed(err: Exception):  # never a traceback to the browser
        log.error("settings page failed", exc_info=err)
        return _message(500, "The settings page failed", "See the proxy's log.")

    @app.route("/", methods=["GET", "HEAD", "POST"])
    def index():
        req = flask.request
        user = _USER.get()
        store = page.identity.store
        if not getattr(store, "available", True):
            raise StateUnavailable("the state database is unavailable")
        if user is None or store is None:
            return _message(403, "Forbidden", "Not authenticated by the proxy.")
        if "user" in req.args and req.args["user"] != user:
            return _refuse(user, "asked for another user's settings")
        if req.method in ("GET", "HEAD"):
            return page.show(user, store, message="Settings saved." if "saved" in req.args else "")
        if req.mimetype != "application/x-www-form-urlencoded":
            return _message(415, "Unsupported form encoding")
        form: dict[str, list[str]] = req.form.to_dict(flat=False)
        if "user" in form and form["user"][-1] != user:
            return _refuse(user, "posted another user's name")
        origin = req.headers.get("origin")
        if origin and urlsplit(origin).hostname != page.host:
            return _refuse(user, f"cross-site form post from {origin}")
        tokens = form.get("csrf")
        if not store.check_csrf(user, tokens[-1] if tokens else None):
            return _refuse(user, "missing or wrong CSRF token")
        return page.save(user, store, form)

    add_control_routes(app, page, page.control, _USER.get, _message)
    return app


def _field_errors(errors: Mapping[str, str]) -> dict[str, str]:
    """Profile errors keyed as the form's fields: a site rule's error goes to the new-rule host field
    (other keys — ``preset``, ``chain.x``, dotted settings — already are field names)."""
    return {("site.new.host" if key.startswith("sites.") else key): message for key, message in errors.items()}
