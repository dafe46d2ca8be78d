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

import html
import logging
import types
import typing
from typing import Any, Mapping
from urllib.parse import parse_qsl, urlsplit

from mitmproxy import http

from pagesieve import settings as S
from pagesieve.errors import ConfigError, StateUnavailable
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
STYLE = ("body{font:16px/1.5 system-ui,sans-serif;max-width:52rem;margin:1rem auto;padding:0 1rem}"
         "fieldset{margin:1rem 0;border:1px solid #888}legend{font-weight:bold}"
         ".field{margin:.5rem 0}.doc{display:block;font-size:.9em;color:#444}"
         ".error{color:#a00;font-weight:bold}.summary{border:2px solid #a00;padding:.5rem 1rem}"
         ".saved{border:2px solid #070;padding:.5rem 1rem}"
         "button{font-size:1.1em;padding:.4rem 1.2rem}:focus{outline:3px solid #06c;outline-offset:2px}")


def _esc(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def _field_id(key: str) -> str:
    return "f-" + key.replace(".", "-")


class Form:
    """The settings of one user as form fields: rendering, and parsing a submitted form."""

    def __init__(self, cfg: Any) -> None:
        from pagesieve.filters import FILTERS

        self.cfg = cfg
        self.filters = FILTERS
        self.output = S.describe(type(cfg.resolve().output))

    # -- values ----------------------------------------------------------------------------------
    def _all_filters(self, preset: str, tree: Mapping | None = None) -> Any:
        """A spec with every filter (for its settings) under ``preset`` and ``tree`` overrides."""
        tree = dict(tree or {})
        tree["chain"] = list(self.filters)
        return self.cfg.resolve(preset, tree)

    def values(self, profile: Any, default_preset: str | None) -> dict[str, Any]:
        """Dotted key → effective value for ``profile`` (what the page shows)."""
        from pagesieve.profiles import chain_for, overrides_tree

        preset = profile.preset or default_preset or self.cfg.default_preset
        tree = overrides_tree(self.cfg, preset, profile)
        chain = tree.pop("chain", None) or list(self.cfg.presets[preset]["chain"])
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
        from pagesieve.profiles import Profile, ProfileError, SiteRule, normalize_host

        def one(key: str) -> str | None:
            got = form.get(key)
            return got[-1] if got else None

        errors: dict[str, str] = {}
        preset = (one("preset") or "").strip() or None
        base = preset if preset in self.cfg.presets else (default_preset or self.cfg.default_preset)
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
        for name, cls in self.filters.items():
            for item in S.describe(cls.Settings):
                if item["group"] in dict((g, 1) for g, _, _ in GROUPS):
                    yield f"filters.{name}.{item['name']}", item
        for item in self.output:
            yield f"output.{item['name']}", item

    # -- rendering -------------------------------------------------------------------------------
    def render(self, user: str, token: str, values: Mapping[str, Any], sites: Mapping[str, Any],
               default_preset: str, errors: Mapping[str, str] | None = None, message: str = "",
               host: str = "") -> str:
        errors = errors or {}
        parts = [f"<!doctype html><html lang=en><head><meta charset=utf-8>"
                 f"<meta name=viewport content='width=device-width, initial-scale=1'>"
                 f"<title>pagesieve settings for {_esc(user)}</title><style>{STYLE}</style></head><body>"
                 f"<main id=main><h1>pagesieve settings for {_esc(user)}</h1>"
                 "<p>Saved settings apply from the next page you load. Values left at their default follow "
                 "the proxy's configuration when it changes.</p>"]
        if errors:
            items = "".join(f"<li><a href='#{_field_id(k)}'>{_esc(m)}</a></li>" for k, m in errors.items())
            parts.append(f"<div class=summary role=alert aria-labelledby=err-h><h2 id=err-h>Nothing was saved: "
                         f"{len(errors)} value{'s' if len(errors) > 1 else ''} to correct</h2><ul>{items}</ul></div>")
        elif message:
            parts.append(f"<div class=saved role=status><p>{_esc(message)}</p></div>")
        shown = values.get("preset") or default_preset
        parts.append(f"<form method=post action='/' accept-charset=utf-8>"
                     f"<input type=hidden name=csrf value='{_esc(token)}'>"
                     f"<input type=hidden name=shown_preset value='{_esc(shown)}'>")
        parts.append(self._general(values, default_preset, errors))
        parts.append(self._chain(values))
        for group, title, doc in GROUPS:
            parts.append(self._group(group, title, doc, values, errors))
        parts.append(self._sites(sites, errors))
        parts.append("<p><button type=submit>Save settings</button></p></form></main></body></html>")
        return "".join(parts)

    def _control(self, key: str, item: Mapping, value: Any, errors: Mapping[str, str], label: str = "") -> str:
        fid, tp, meta = _field_id(key), item["type"], item["meta"]
        label = _esc(label or item["name"].replace("_", " "))
        doc_id = fid + "-doc"
        err = errors.get(key)
        described = doc_id + (f" {fid}-err" if err else "")
        invalid = " aria-invalid=true" if err else ""
        doc = f"<span class=doc id={doc_id}>{_esc(item['doc'])} ({_esc(item['allowed'])}; default " \
              f"{_esc(item['default'])})</span>"
        err_html = f"<span class=error id={fid}-err>{_esc(err)}</span>" if err else ""
        if tp is bool:
            checked = " checked" if value else ""
            return (f"<div class=field><input type=checkbox id={fid} name='{key}' value=on{checked} "
                    f"aria-describedby='{described}'{invalid}> <label for={fid}>{label}</label>{doc}{err_html}</div>")
        if meta.get("choices") and tp is str:
            opts = "".join(f"<option{' selected' if c == value else ''}>{_esc(c)}</option>" for c in meta["choices"])
            return (f"<div class=field><label for={fid}>{label}</label> <select id={fid} name='{key}' "
                    f"aria-describedby='{described}'{invalid}>{opts}</select>{doc}{err_html}</div>")
        if isinstance(value, (list, tuple)):
            shown, kind = ", ".join(value), "text"
        elif typing.get_origin(tp) is tuple:
            shown, kind = value or "", "text"
        else:
            shown = value
            inner = [a for a in typing.get_args(tp) if a is not type(None)] if typing.get_origin(tp) in (
                typing.Union, types.UnionType) else [tp]
            kind = "number" if inner[0] in (int, float) else "text"
        extra = ""
        if kind == "number":
            extra = " step=any" if tp is float else " step=1"
            if meta.get("min") is not None:
                extra += f" min={meta['min']}"
            if meta.get("max") is not None:
                extra += f" max={meta['max']}"
        return (f"<div class=field><label for={fid}>{label}</label> <input type={kind} id={fid} name='{key}' "
                f"value='{_esc(shown)}'{extra} aria-describedby='{described}'{invalid}>{doc}{err_html}</div>")

    def _general(self, values, default_preset, errors) -> str:
        current = values.get("preset") or ""
        opts = [f"<option value=''{' selected' if not current else ''}>The proxy's default ({_esc(default_preset)})"
                "</option>"]
        for name, body in self.cfg.presets.items():
            opts.append(f"<option value='{_esc(name)}'{' selected' if name == current else ''}>{_esc(name)}: "
                        f"{_esc(body.get('description', ''))}</option>")
        err = errors.get("preset")
        out = ["<h2>Preset and output</h2><fieldset><legend>Preset</legend>"
               f"<div class=field><label for=f-preset>Preset</label> <select id=f-preset name=preset"
               f"{' aria-invalid=true' if err else ''}>{''.join(opts)}</select>"
               f"{f'<span class=error>{_esc(err)}</span>' if err else ''}</div></fieldset>"
               "<fieldset><legend>Output settings</legend>"]
        for item in self.output:
            key = f"output.{item['name']}"
            out.append(self._control(key, item, values.get(key), errors))
        on = "removed_links" in values.get("chain", ())
        out.append(f"<div class=field><input type=checkbox id=f-append-links name='chain.removed_links' value=on"
                   f"{' checked' if on else ''}> <label for=f-append-links>Append removed links to the bottom "
                   "of the page</label></div></fieldset>")
        return "".join(out)

    def _chain(self, values) -> str:
        chain = values.get("chain", ())
        out = ["<h2>Filters</h2><fieldset><legend>Filters in use (the preset's order is kept)</legend>"]
        for name, cls in self.filters.items():
            if name == "removed_links":
                continue  # under output settings, as in the paper
            fid = _field_id(f"chain.{name}")
            out.append(f"<div class=field><input type=checkbox id={fid} name='chain.{name}' value=on"
                       f"{' checked' if name in chain else ''} aria-describedby={fid}-doc> <label for={fid}>{name}"
                       f"</label><span class=doc id={fid}-doc>{_esc(cls.summary)}</span></div>")
        out.append("</fieldset>")
        return "".join(out)

    def _group(self, group, title, doc, values, errors) -> str:
        out = [f"<h2>{_esc(title)}</h2><p>{_esc(doc)}</p>"]
        for name, cls in self.filters.items():
            items = [i for i in S.describe(cls.Settings) if i["group"] == group]
            if not items:
                continue
            out.append(f"<fieldset><legend>{_esc(name)}</legend>")
            for item in items:
                key = f"filters.{name}.{item['name']}"
                out.append(self._control(key, item, values.get(key), errors))
            out.append("</fieldset>")
        return "".join(out)

    def _sites(self, sites, errors) -> str:
        def preset_select(fid, name, current):
            opts = [f"<option value=''{' selected' if not current else ''}>(no other preset)</option>"]
            opts += [f"<option{' selected' if p == current else ''}>{_esc(p)}</option>" for p in self.cfg.presets]
            return f"<select id={fid} name='{name}'>{''.join(opts)}</select>"

        out = ["<h2>Per-site rules</h2><p>On a site and its subdomains: use another preset, or do not filter.</p>"]
        for i, (host, rule) in enumerate(sites.items()):
            p = f"site.{i}"
            out.append(f"<fieldset><legend>{_esc(host)}</legend><input type=hidden name='{p}.host' "
                       f"value='{_esc(host)}'><div class=field><label for={_field_id(p + '.preset')}>Preset on "
                       f"{_esc(host)}</label> {preset_select(_field_id(p + '.preset'), p + '.preset', rule.preset)}"
                       f"</div><div class=field><input type=checkbox id={_field_id(p + '.bypass')} "
                       f"name='{p}.bypass' value=on{' checked' if rule.bypass else ''}> <label "
                       f"for={_field_id(p + '.bypass')}>Do not filter {_esc(host)}</label></div>"
                       f"<div class=field><input type=checkbox id={_field_id(p + '.remove')} name='{p}.remove' "
                       f"value=on> <label for={_field_id(p + '.remove')}>Remove this rule</label></div></fieldset>")
        err = errors.get("site.new.host")
        out.append("<fieldset><legend>Add a rule</legend><div class=field><label for=f-site-new-host>Host (e.g. "
                   "example.org)</label> <input type=text id=f-site-new-host name='site.new.host'"
                   f"{' aria-invalid=true aria-describedby=f-site-new-host-err' if err else ''}>"
                   f"{f'<span class=error id=f-site-new-host-err>{_esc(err)}</span>' if err else ''}</div>"
                   f"<div class=field><label for=f-site-new-preset>Preset on that host</label> "
                   f"{preset_select('f-site-new-preset', 'site.new.preset', None)}</div>"
                   "<div class=field><input type=checkbox id=f-site-new-bypass name='site.new.bypass' value=on> "
                   "<label for=f-site-new-bypass>Do not filter that host</label></div></fieldset>")
        return "".join(out)


class SettingsPage:
    """Answers requests to ``users.settings_host`` itself (the settings app)."""

    name = "pagesieve_settings_page"

    def __init__(self, source: ConfigSource, identity: Identity) -> None:
        self.source = source
        self.identity = identity
        self._form: Form | None = None
        self._form_cfg: Any = None

    def _host(self) -> str:
        return self.source.cfg.globals["users"].settings_host.lower() if self.source.cfg else ""

    def form(self) -> Form:
        if self._form is None or self._form_cfg is not self.source.cfg:
            self._form, self._form_cfg = Form(self.source.cfg), self.source.cfg
        return self._form

    def requestheaders(self, flow: http.HTTPFlow) -> None:
        if flow.request.pretty_host.lower() == self._host():
            flow.metadata[OWN_PAGE_KEY] = True

    def request(self, flow: http.HTTPFlow) -> None:
        if not flow.metadata.get(OWN_PAGE_KEY) or flow.response is not None:
            return  # not ours, or the proxy already answered (e.g. 407 authentication required)
        try:
            if not getattr(self.identity.store, "available", True):
                raise StateUnavailable("the state database is unavailable")
            flow.response = self._answer(flow)
        except StateUnavailable:  # PostgreSQL down: browsing goes on, settings wait (logged once by state)
            flow.response = self._page(
                503, "<h1>Settings are unavailable for a moment</h1><p>The database that keeps settings cannot "
                     "be reached. Pages are still filtered with your last known settings. Nothing was changed; "
                     "try again in a minute.</p>", title="pagesieve settings: unavailable")
            flow.response.headers["Retry-After"] = "30"
        except Exception:  # noqa: BLE001 - never a traceback to the browser
            log.exception("settings page failed")
            flow.response = self._page(500, "<h1>The settings page failed</h1><p>See the proxy's log.</p>")

    # -- the app ---------------------------------------------------------------------------------
    def _page(self, status: int, body: str, title: str = "pagesieve settings") -> http.Response:
        if not body.startswith("<!doctype"):
            body = (f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{_esc(title)}</title></head>"
                    f"<body><main>{body}</main></body></html>")
        return http.Response.make(status, body.encode("utf-8"), SECURITY_HEADERS)

    def _answer(self, flow: http.HTTPFlow) -> http.Response:
        req = flow.request
        user = flow.metadata.get(USER_KEY)
        store = self.identity.store
        if user is None or store is None:
            return self._page(403, "<h1>Forbidden</h1><p>Not authenticated by the proxy.</p>")
        path = urlsplit(req.path).path
        if path != "/":
            return self._page(404, "<h1>Not found</h1><p><a href='/'>The settings page</a></p>")
        query = dict(parse_qsl(urlsplit(req.path).query))
        if "user" in query and query["user"] != user:
            return self._refuse(user, "asked for another user's settings")
        if req.method == "GET" or req.method == "HEAD":
            saved = "saved" in query
            return self._show(user, store, message="Settings saved." if saved else "")
        if req.method != "POST":
            return self._page(405, "<h1>Method not allowed</h1>")
        if len(req.raw_content or b"") > MAX_FORM_BYTES:
            return self._page(413, "<h1>Form too large</h1>")
        ctype = req.headers.get("content-type", "").split(";")[0].strip().lower()
        if ctype != "application/x-www-form-urlencoded":
            return self._page(415, "<h1>Unsupported form encoding</h1>")
        form: dict[str, list[str]] = {}
        for k, v in parse_qsl(req.get_text(strict=False) or "", keep_blank_values=True):
            form.setdefault(k, []).append(v)
        if "user" in form and form["user"][-1] != user:
            return self._refuse(user, "posted another user's name")
        origin = req.headers.get("origin")
        if origin and urlsplit(origin).hostname != self._host():
            return self._refuse(user, f"cross-site form post from {origin}")
        if not store.check_csrf(user, (form.get("csrf") or [None])[-1]):
            return self._refuse(user, "missing or wrong CSRF token")
        return self._save(user, store, form)

    def _refuse(self, user: str, why: str) -> http.Response:
        log.warning("settings page: refused for %s: %s", user, why)
        return self._page(403, f"<h1>Forbidden</h1><p>{_esc(why)}. Nothing was read or changed.</p>"
                               "<p><a href='/'>Your settings</a></p>")

    def _show(self, user, store, *, values=None, sites=None, errors=None, message="", status=200):
        form = self.form()
        profile = store.get(user)
        preset = self.source.preset or self.source.cfg.default_preset
        if values is None:
            values = form.values(store.usable(profile, self.source.preset), self.source.preset)
            sites = profile.sites
        body = form.render(user, store.csrf_token(user), values, sites or {}, preset, errors, message)
        return self._page(status, body)

    def _save(self, user, store, form_data) -> http.Response:
        from pagesieve.profiles import ProfileError

        form = self.form()
        try:
            profile = form.parse(user, form_data, self.source.preset)
            store.save(profile, self.source.preset)
        except ProfileError as err:
            shown = self._submitted(form_data)
            return self._show(user, store, values=shown, sites={}, errors=_field_errors(err.errors), status=400)
        except ConfigError as err:
            return self._show(user, store, values=self._submitted(form_data), sites={},
                              errors={"preset": str(err)}, status=400)
        log.info("settings page: %s saved %d setting(s), %d filter switch(es), %d site rule(s)", user,
                 len(profile.overrides), len(profile.toggles), len(profile.sites))
        resp = http.Response.make(303, b"", {**SECURITY_HEADERS, "Location": "/?saved=1"})
        return resp

    def _submitted(self, form_data: Mapping[str, list[str]]) -> dict[str, Any]:
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


def _field_errors(errors: Mapping[str, str]) -> dict[str, str]:
    """Profile errors keyed as the form's fields: a site rule's error goes to the new-rule host field
    (other keys — ``preset``, ``chain.x``, dotted settings — already are field names)."""
    return {("site.new.host" if key.startswith("sites.") else key): message for key, message in errors.items()}
