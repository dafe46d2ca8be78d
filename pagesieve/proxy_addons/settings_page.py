"""The settings page the proxy serves itself at ``http://<users.settings_host>/``.

What a person sees first is the handful of choices people make — how pages come (decluttered,
reader view, or as the site sent them), a web page or plain text, pictures, the list of removed
links, the reading look (text size, line spacing, width, colours) and the sites shown as sent —
each in plain words with the value in force and one line of explanation, and a Save button at the
top. Everything else is under "Advanced": one folded section (``<details>``) per filter, plus the
filters in use, the plain-text output and other presets per site, each control with the setting's
name for those who know it. What differs from the defaults is marked (in words, not by colour) and
counted in each section's heading; each section has its own Save and Reset, and one Reset returns
everything to the defaults. Every user-scope setting is on the page (a test lists the declarations
against it).

Plain HTML: one form, every control with a ``<label>`` and its explanation tied to it with
``aria-describedby``; refusals are listed first (links to the fields) and repeated at each field
(``aria-invalid``), and a folded section holding one is drawn open. No JavaScript, no external
resources; ``Content-Security-Policy`` allows nothing else.

Values go through one converter, :func:`pagesieve.core.settings.from_text` (numbers must be finite,
texts are length-limited as declared), and sites through :func:`pagesieve.store.profiles.normalize_host`
(a pasted address gives its host). When any field is refused, nothing is saved.

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
import re
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

from pagesieve.core import settings as S
from pagesieve.core.errors import ConfigError, StateUnavailable
from pagesieve.engine.config import check_user_key, scope_of
from pagesieve.filters import FILTERS
from pagesieve.proxy_addons import flowkeys
from pagesieve.proxy_addons.control import PageControl
from pagesieve.proxy_addons.control_pages import add_routes as add_control_routes
from pagesieve.proxy_addons.identity import Identity
from pagesieve.proxy_addons.options import ConfigSource
from pagesieve.store.profiles import (
    AS_SENT,
    MAX_SITE_RULES,
    Profile,
    ProfileError,
    SiteRule,
    chain_for,
    normalize_host,
    overrides_tree,
)

log = logging.getLogger("pagesieve.proxy")

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
#: Up to this many fixed values are radio buttons (all visible at once); more are a select.
MAX_RADIO_CHOICES = 5
TEMPLATES = Path(__file__).resolve().parent / "templates"
#: The authenticated user of the request being answered (set by the addon from flow.metadata,
#: never from the request: asgiref runs the WSGI app in a copy of this context).
_USER: ContextVar[str | None] = ContextVar("pagesieve_settings_user", default=None)

#: The presets offered first, in plain words (others are folded under "Other ways").
MAIN_PRESETS = {
    "declutter": ("Decluttered", "The page as its site made it, without ads, lists of links and clutter."),
    "reader": ("Reader view", "Only the article, its pictures and its title, in your reading look."),
}
AS_SENT_CHOICE = ("As sent", "Every page exactly as the site sends it: nothing removed.")
#: The first screen's settings: key -> (label, one line of explanation).
FIRST_SCREEN = {
    "output.format": ("Pages arrive as", "A web page, or plain text for reading aloud or saving."),
    "filters.ignore.non_link_images": ("Remove pictures", "Pictures in the page that are not links."),
    "filters.ignore.image_links": ("Remove pictures that are links", "Such as banners and buttons drawn as pictures."),
    "output.text_size": ("Text size (%)", "100 is your browser's usual size."),
    "output.line_height": ("Line spacing", "Space between lines, in text heights."),
    "output.width": ("Line width (characters)", "The widest a line of text gets."),
    "output.colors": ("Colours", "Auto follows your device's light or dark mode."),
}
#: Plain names of fixed values on the first screen.
VALUE_LABELS = {
    "output.format": {"html": "Web page", "text": "Plain text"},
    "output.colors": {"auto": "Auto", "light": "Light", "dark": "Dark", "sepia": "Sepia", "contrast": "High contrast"},
}
REMOVED_LINKS_CHOICE = ("List removed links at the end",
                        "The links the filters took out, collected at the bottom of the page.")
AS_SENT_SITES = ("Sites shown as sent", "One per line; pasting a page's address works too.")
#: The Advanced sections of the filters, in plain words: name -> (title, what it does).
FILTER_SECTIONS = {
    "ignore": ("Parts left out", "Kinds of content removed from every page: scripts, styles, forms, frames."),
    "ads": ("Ads and trackers", "Removes what loads from, or links to, ad and tracking servers, and what ad lists hide."),
    "link_lists": ("Lists of links", "Removes blocks that are mostly links: menus, link farms, related-story lists."),
    "article": ("Finding the article", "Finds the block that holds the article, to protect it or to keep only it."),
    "empty_tables": ("Empty tables", "Removes layout tables left with nothing in them."),
    "removed_links": ("Removed-links list", "How the list of removed links at the end of the page is made."),
    "link_blocks": ("Runs of links", "Removes runs of nearby links, even inside paragraphs."),
    "link_density": ("Reader by links", "Keeps the block with the fewest links for its text."),
    "main_content": ("Reader's article finder", "Keeps the best-scored block of text and cleans it."),
    "text_density": ("Reader by text density", "Keeps the part of the page where the text is densest."),
    "template_blocks": ("Repeated blocks", "Removes blocks that come back on the site's other pages."),
    "segments": ("Your topics", "Keeps or marks the blocks after phrases you choose."),
    "image_captions": ("Unrelated pictures", "Removes pictures whose captions are about something else than the article."),
    "accessibility": ("Accessibility repairs", "Repairs for screen readers and keyboards, and the page's colours."),
}
CHAIN_SECTION = ("Filters in use", "Switch filters on or off; the order stays the preset's.")
TEXT_SECTION = ("Plain-text output", "How pages read when they arrive as plain text.")
SITES_SECTION = ("Another preset on some sites", "Use another way of filtering on a site and its subdomains.")
RESET_ALL = "all"
#: The longest text the "sites shown as sent" box takes (every site rule a profile may hold, with room).
MAX_SITES_TEXT = 20_000


def _field_id(key: str) -> str:
    return "f-" + re.sub(r"[^A-Za-z0-9_-]", "-", key)


def _shown(value: Any) -> str:
    """A value as a person reads it (lists comma-separated, switches as on/off)."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if value is None:
        return "none"
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value)) or "none"
    return str(value)


class Form:
    """The settings of one user as form fields: rendering, and parsing a submitted form."""

    def __init__(self, cfg: Any, default_preset: str) -> None:
        self.cfg = cfg
        self.default_preset = default_preset  # the run's (ConfigSource.default_preset)
        self.filters = FILTERS
        self.output = [i for i in S.describe(type(cfg.resolve().output)) if i["scope"] == S.USER]
        self.items = dict(self._all_items())
        self.sections = self._sections()

    # -- what is on the page -----------------------------------------------------------------------
    def _all_items(self):
        for name, cls in self.filters.items():
            for item in S.describe(cls.Settings):
                if item["scope"] == S.USER:
                    yield f"filters.{name}.{item['name']}", item
        for item in self.output:
            yield f"output.{item['name']}", item

    def _items(self):
        """The fields of the page: every user-scope setting (no others are shown or read)."""
        return self.items.items()

    def _sections(self) -> list[tuple[str, str, str, list[str]]]:
        """The Advanced sections: (id, title, explanation, setting keys)."""
        out = [("chain", *CHAIN_SECTION, []),
               ("text", *TEXT_SECTION, [k for k in self.items if k.startswith("output.") and k not in FIRST_SCREEN])]
        for name in self.filters:
            keys = [k for k in self.items if k.startswith(f"filters.{name}.") and k not in FIRST_SCREEN]
            title, doc = FILTER_SECTIONS.get(name, (name.replace("_", " ").capitalize(), self.filters[name].summary))
            if keys:
                out.append((f"filter-{name}", title, doc, keys))
        out.append(("sites", *SITES_SECTION, []))
        return out

    # -- values ----------------------------------------------------------------------------------
    def _all_filters(self, preset: str, tree: Mapping | None = None) -> Any:
        """A spec with every filter (for its settings) under ``preset`` and ``tree`` overrides."""
        tree = dict(tree or {})
        tree["chain"] = list(self.filters)
        return self.cfg.resolve(preset, tree, check=False)  # for the settings only: never run

    def _filtering(self, preset: str | None) -> str:
        """The preset whose settings the page shows (``as sent`` shows the default's)."""
        return self.cfg.preset_for(None if preset == AS_SENT else preset, self.default_preset)

    def values(self, profile: Any) -> dict[str, Any]:
        """Dotted key → effective value for ``profile`` (what the page shows)."""
        preset = self._filtering(profile.preset)
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
    def parse(self, user: str, form: Mapping[str, list[str]]):
        """The profile the submitted ``form`` describes. A ``reset`` button's value (a section's id,
        or ``all``) puts that section back to the defaults. Raises ProfileError (field → message)
        when any field is refused: then nothing is saved."""
        def one(key: str) -> str | None:
            got = form.get(key)
            return got[-1] if got else None

        reset = (one("reset") or "").strip()
        if reset == RESET_ALL:
            return Profile(user)
        resetting = next((s for s in self.sections if s[0] == reset), None)
        reset_keys = set(resetting[3]) if resetting else set(FIRST_SCREEN) if reset == "choices" else set()
        errors: dict[str, str] = {}
        for key in form:  # a setting the page does not offer (the operator's) is refused, not ignored
            if key not in self.items and scope_of(key) is not None:
                try:
                    check_user_key(key)
                except ConfigError as err:
                    errors[key] = str(err)
        preset = None if reset == "choices" else (one("preset") or "").strip() or None
        if preset is not None and preset != AS_SENT and preset not in self.cfg.presets:
            errors["preset"] = f"{preset!r}: not one of the ways pages can come"
            preset = None
        if preset == self.default_preset:
            preset = None  # the proxy's default: follows it when the operator changes it
        base = self._filtering(preset)
        # The fields showed the settings of the preset the page was rendered with: what differs from
        # that preset's defaults is what the user set (when they also chose another preset, their
        # edits carry over to it; the values they left as shown follow the new preset).
        shown = (one("shown_preset") or "").strip()
        base = shown if shown in self.cfg.presets else base
        defaults = self.defaults(base)
        overrides: dict[str, Any] = {}
        for key, item in self.items.items():
            if key in reset_keys:
                continue
            try:
                value = S.from_text(key, one(key), item["type"], item["meta"])
            except ConfigError as err:
                errors[key] = str(err)
                continue
            if _plain(value) != _plain(defaults.get(key)):
                overrides[key] = value
        base_chain = self.cfg.presets[base]["chain"]
        toggles = {}
        for name in self.filters:
            if reset == "chain" and name != "removed_links" or reset == "choices" and name == "removed_links":
                continue
            on = one(f"chain.{name}") is not None
            if on != (name in base_chain):
                toggles[name] = on
        sites = self._sites(one, errors, reset == "sites")
        if errors:
            raise ProfileError(errors)
        return Profile(user, preset, overrides, toggles, sites)

    def _sites(self, one, errors: dict[str, str], reset_presets: bool) -> dict[str, SiteRule]:
        """The site rules: the hosts shown as sent (a list a person types or pastes), and the rows of
        other presets per site (kept unless removed or reset, plus the new one)."""
        as_sent: list[str] = []
        raw = one("sites.as_sent") or ""
        if len(raw) > MAX_SITES_TEXT:
            errors["sites.as_sent"] = f"{len(raw)} characters; at most {MAX_SITES_TEXT} are allowed"
        else:
            for entry in (e.strip() for e in re.split(r"[\s,]+", raw)):
                if not entry:
                    continue
                try:
                    host = normalize_host(entry)
                except ValueError as err:
                    errors["sites.as_sent"] = str(err)
                    break
                if host not in as_sent:
                    as_sent.append(host)
            if len(as_sent) > MAX_SITE_RULES:
                errors["sites.as_sent"] = f"{len(as_sent)} sites; at most {MAX_SITE_RULES} are allowed"
        presets: dict[str, str] = {}
        rows = []
        i = 0
        while one(f"site.{i}.host") is not None and i < MAX_SITE_RULES + 1:
            if one(f"site.{i}.remove") is None and not reset_presets:
                rows.append(f"site.{i}")
            i += 1
        if (one("site.new.host") or "").strip():
            rows.append("site.new")
        for prefix in rows:
            try:
                host = normalize_host(one(f"{prefix}.host") or "")
            except ValueError as err:
                errors[f"{prefix}.host"] = str(err)
                continue
            rule_preset = (one(f"{prefix}.preset") or "").strip()
            if rule_preset not in self.cfg.presets:
                errors[f"{prefix}.host"] = f"{host}: choose the preset to use on this site"
                continue
            presets[host] = rule_preset
        return {h: SiteRule(presets.get(h), h in as_sent) for h in [*as_sent, *[h for h in presets if h not in as_sent]]}

    # -- what the template shows --------------------------------------------------------------
    def field(self, key: str, value: Any, default: Any, errors: Mapping[str, str], first: bool = False) -> dict:
        """One control as the template draws it; its kind fits the setting's: a checkbox for a
        switch, radio buttons for a few fixed values (a select for more), a number box with its
        bounds, a text box for text and lists (comma-separated)."""
        item = self.items[key]
        tp, meta = item["type"], item["meta"]
        inner = tp
        if typing.get_origin(tp) in (typing.Union, types.UnionType):
            inner = [a for a in typing.get_args(tp) if a is not type(None)][0]
        choices = typing.get_args(inner) if typing.get_origin(inner) is Literal else meta.get("choices")
        names = VALUE_LABELS.get(key, {})
        label, doc = FIRST_SCREEN.get(key, (item["name"].replace("_", " ").capitalize(), item["doc"]))
        changed = _plain(value) != _plain(default) if not isinstance(value, str) or tp is str else value != _shown(default)
        f = {"key": key, "id": _field_id(key), "label": label, "name": item["name"], "first": first,
             "doc": doc, "allowed": item["allowed"], "default": names.get(default, _shown(default)) if isinstance(default, str) else _shown(default),
             "changed": changed,
             "error": errors.get(key), "value": value, "options": (), "attrs": {}}
        if tp is bool:
            f["kind"] = "checkbox"
        elif choices and typing.get_origin(inner) is not tuple:
            f["kind"] = "radio" if len(choices) <= MAX_RADIO_CHOICES else "select"
            f["options"] = tuple((c, names.get(c, c)) for c in choices)
        elif inner in (int, float):
            f["kind"] = "number"
            f["attrs"] = {"step": "any" if inner is float else "1", "min": meta.get("min"), "max": meta.get("max"),
                          "inputmode": "decimal" if inner is float else "numeric"}
        else:
            f["kind"] = "text"
            # The limit is told, not enforced by the browser: a maxlength would cut a pasted text
            # silently; the server refuses it in words instead.
            limit = meta["max_chars"]
            if typing.get_origin(inner) is tuple:
                f["allowed"] = (f"a comma-separated list of at most {meta['max_items']} entries of at most "
                                f"{limit} characters each")
            else:
                f["allowed"] = f"a text of at most {limit} characters"
            if isinstance(value, (list, tuple)):
                f["value"] = ", ".join(value)
        if f["kind"] != "checkbox" and f["value"] is None:
            f["value"] = ""
        return f

    def view(self, user: str, token: str, values: Mapping[str, Any], sites: Mapping[str, Any],
             errors: Mapping[str, str] | None = None, message: str = "") -> dict:
        """Everything the settings template needs, escaped by the template itself."""
        errors = errors or {}
        chosen = values.get("preset") or ""
        shown_preset = self._filtering(chosen if chosen in self.cfg.presets or chosen == AS_SENT else None)
        defaults = self.defaults(shown_preset)

        def field(key: str, first: bool = False) -> dict:
            return self.field(key, values.get(key), defaults.get(key), errors, first)

        base_chain = list(self.cfg.presets[shown_preset]["chain"])
        chain = list(values.get("chain", ()))
        in_force = chosen if chosen in self.cfg.presets or chosen == AS_SENT else self.default_preset
        presets = [(name, *MAIN_PRESETS[name]) for name in MAIN_PRESETS if name in self.cfg.presets]
        presets.append((AS_SENT, *AS_SENT_CHOICE))
        others = [(name, name, body.get("description", "")) for name, body in self.cfg.presets.items()
                  if name not in MAIN_PRESETS]
        first = {k: field(k, True) for k in FIRST_SCREEN}
        as_sent = [h for h, r in sites.items() if r.bypass]
        with_preset = [(h, r) for h, r in sites.items() if r.preset]
        sections = []
        total = 0
        for sid, title, doc, keys in self.sections:
            fields = [field(k) for k in keys]
            if sid == "chain":
                fields = [{"key": f"chain.{n}", "id": _field_id(f"chain.{n}"), "kind": "checkbox",
                           "label": FILTER_SECTIONS.get(n, (n,))[0], "name": n, "doc": c.summary if n not in
                           FILTER_SECTIONS else FILTER_SECTIONS[n][1], "value": n in chain,
                           "changed": (n in chain) != (n in base_chain), "default": _shown(n in base_chain),
                           "error": errors.get(f"chain.{n}"), "allowed": "", "attrs": {}, "options": (), "first": False}
                          for n, c in self.filters.items() if n != "removed_links"]
            changed = sum(1 for f in fields if f["changed"]) + (len(with_preset) if sid == "sites" else 0)
            total += changed
            bad = any(f["error"] for f in fields) or (sid == "sites" and any(
                k.startswith("site.") for k in errors))
            sections.append({"id": sid, "title": title, "doc": doc, "fields": fields, "changed": changed,
                             "open": bad})
        return {
            "user": user, "token": token, "errors": errors, "message": message,
            "shown_preset": shown_preset, "default_preset": self.default_preset,
            "preset": in_force, "preset_changed": bool(chosen), "presets": presets, "other_presets": others,
            "preset_names": list(self.cfg.presets), "first": first,
            "removed_links": {"key": "chain.removed_links", "id": _field_id("chain.removed_links"),
                              "label": REMOVED_LINKS_CHOICE[0], "doc": REMOVED_LINKS_CHOICE[1],
                              "value": "removed_links" in chain,
                              "changed": ("removed_links" in chain) != ("removed_links" in base_chain),
                              "default": _shown("removed_links" in base_chain), "error": errors.get("chain.removed_links")},
            "as_sent": {"key": "sites.as_sent", "id": _field_id("sites.as_sent"), "label": AS_SENT_SITES[0],
                        "doc": AS_SENT_SITES[1], "error": errors.get("sites.as_sent"),
                        "value": values.get("sites.as_sent", "\n".join(as_sent)),
                        "maxlength": MAX_SITES_TEXT},
            "sections": sections, "sites": with_preset, "field_id": _field_id,
            "changed_total": total + sum(1 for f in first.values() if f["changed"]) + int(bool(chosen))
            + int(bool(as_sent)),
        }


def _plain(value: Any) -> Any:
    """Lists and tuples compare alike (a profile holds lists, the declarations tuples)."""
    return list(value) if isinstance(value, tuple) else value


class SettingsPage(asgiapp.WSGIApp):
    """The settings app (Flask, templates in ``templates/``) mounted on ``users.settings_host``
    as mitmproxy mounts its onboarding app; the user comes from ``flow.metadata``."""

    name = "pagesieve_settings_page"

    def __init__(self, source: ConfigSource, identity: Identity, control: PageControl | None = None) -> None:
        self.source = source
        self.identity = identity
        self.control = control or PageControl(source, identity)
        self._form: Form | None = None
        self._form_key: Any = None
        self.app = create_app(self)
        super().__init__(self.app, "", None)

    def configure(self, updated: set[str]) -> None:
        self.host = self._host()

    def _host(self) -> str:
        return self.source.cfg.globals["users"].settings_host.lower() if self.source.cfg else ""

    def form(self) -> Form:
        key = (self.source.cfg, self.source.default_preset)
        if self._form is None or self._form_key != key:
            self._form, self._form_key = Form(*key), key
        return self._form

    def should_serve(self, flow: http.HTTPFlow) -> bool:
        return bool(flow.metadata.get(flowkeys.OWN_PAGE)) and flow.live and not flow.error and not flow.response

    def requestheaders(self, flow: http.HTTPFlow) -> None:
        if flow.request.pretty_host.lower() == self._host():
            flow.metadata[flowkeys.OWN_PAGE] = True

    async def request(self, flow: http.HTTPFlow) -> None:
        if not self.should_serve(flow):
            return  # not ours, or the proxy already answered (e.g. 407 authentication required)
        token = _USER.set(flow.metadata.get(flowkeys.USER))
        try:
            await super().request(flow)
        finally:
            _USER.reset(token)
        if flow.response is None:  # the app never answered (it logs why)
            flow.response = http.Response.make(500, b"settings page failed", SECURITY_HEADERS)

    # -- the pages -------------------------------------------------------------------------------
    def show(self, user, store, *, values=None, errors=None, message="", status=200):
        form = self.form()
        profile = store.get(user)
        if values is None:
            values = form.values(store.usable(profile, form.default_preset))
        view = form.view(user, store.csrf_token(user), values, profile.sites, errors, message)
        return flask.render_template("settings.html", **view), status

    def save(self, user, store, form_data) -> Any:
        form = self.form()
        try:
            profile = form.parse(user, form_data)
            store.save(profile, form.default_preset)
        except ProfileError as err:
            return self.show(user, store, values=self.submitted(form_data), errors=_field_errors(err.errors),
                             status=400)
        except ConfigError as err:
            return self.show(user, store, values=self.submitted(form_data), errors={"preset": str(err)}, status=400)
        reset = (form_data.get("reset") or [""])[-1]
        log.info("settings page: %s saved %d setting(s), %d filter switch(es), %d site rule(s)%s", user,
                 len(profile.overrides), len(profile.toggles), len(profile.sites),
                 f" (reset: {reset})" if reset else "")
        return flask.redirect("/?saved=reset" if reset == RESET_ALL else "/?saved=1", code=303)

    def submitted(self, form_data: Mapping[str, list[str]]) -> dict[str, Any]:
        """The submitted values (as typed) to show back with the errors."""
        def last(key: str) -> str:
            got = form_data.get(key)
            return got[-1] if got else ""

        values: dict[str, Any] = {"preset": last("preset"), "sites.as_sent": last("sites.as_sent"),
                                  "chain": [k[len("chain."):] for k in form_data if k.startswith("chain.")]}
        for key, item in self.form()._items():
            values[key] = key in form_data if item["type"] is bool else last(key)
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
            saved = req.args.get("saved")
            return page.show(user, store, message="" if saved is None else "Settings saved." if saved != "reset"
                             else "Everything is back to the defaults.")
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
    """Profile errors keyed as the form's fields: a site rule's error goes to the site lists' field
    (other keys — ``preset``, ``chain.x``, dotted settings — already are field names)."""
    return {("sites.as_sent" if key.startswith("sites") and key != "sites.as_sent" else key): message
            for key, message in errors.items()}
