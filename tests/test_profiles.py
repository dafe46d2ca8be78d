"""Profiles (overrides only, validated, versioned schema) and the `pagesieve users` command."""

from __future__ import annotations

import subprocess
import sys

import pytest
import yaml

from pagesieve.engine import config as C
from pagesieve.proxy_addons.settings_page import Form
from pagesieve.store import state
from pagesieve.store.profiles import MIGRATIONS, Profile, ProfileError, ProfileStore, SiteRule
from tests.conftest import REPO


def load_cfg(tmp_path, **filters):
    data = yaml.safe_load((REPO / "config.yaml").read_text(encoding="utf-8"))
    data["state"]["path"] = str(tmp_path / "state.sqlite3")
    data["users"]["htpasswd"] = str(tmp_path / "htpasswd")
    for key, value in filters.items():
        name, field = key.split("__")
        data["filters"][name][field] = value
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return C.load(path), path


def test_profile_stores_only_overrides_and_follows_changed_defaults(tmp_path):
    cfg, _ = load_cfg(tmp_path)
    form = Form(cfg, cfg.preset_for(None))
    values = form.values(Profile("ann"))  # the form as shown; posted unchanged it stores nothing
    posted: dict[str, list[str]] = {"shown_preset": ["declutter"]}
    for key, item in form._items():
        v = values[key]
        if item["type"] is bool:
            if v:
                posted[key] = ["on"]
        else:
            posted[key] = [", ".join(v) if isinstance(v, (list, tuple)) else "" if v is None else str(v)]
    for name in values["chain"]:
        posted[f"chain.{name}"] = ["on"]
    profile = form.parse("ann", posted)
    assert profile.overrides == {} and profile.toggles == {} and profile.preset is None
    posted["filters.link_lists.ratio"] = ["0.5"]
    profile = form.parse("ann", posted)
    assert profile.overrides == {"filters.link_lists.ratio": 0.5}
    store = ProfileStore(cfg)
    store.save(profile)
    store.close()
    # The operator changes another default: it reaches ann, whose own change stays.
    cfg2, _ = load_cfg(tmp_path, empty_tables__min_chars=77)
    store = ProfileStore(cfg2)
    eff = store.effective("ann", "news.example")
    spec = cfg2.resolve(None, eff["overrides"])
    assert spec.settings_of("link_lists").ratio == 0.5 and spec.settings_of("empty_tables").min_chars == 77
    store.close()


def test_bad_values_are_refused_with_every_key(tmp_path):
    cfg, _ = load_cfg(tmp_path)
    store = ProfileStore(cfg)
    bad = Profile("ann", preset="nope", overrides={"filters.link_lists.ratio": -1, "output.format": "pdf"},
                  toggles={"no_such_filter": True}, sites={"example.org": SiteRule(preset="nope2")})
    with pytest.raises(ProfileError) as err:
        store.save(bad)
    assert set(err.value.errors) == {"preset", "filters.link_lists.ratio", "output.format", "chain.no_such_filter",
                                     "sites.example.org"}
    assert store.get("ann") == Profile("ann")  # nothing saved
    store.close()


def test_site_rules_longest_match_and_bypass(tmp_path):
    cfg, _ = load_cfg(tmp_path)
    store = ProfileStore(cfg)
    store.save(Profile("ann", sites={"example.org": SiteRule(bypass=True),
                                     "news.example.org": SiteRule(preset="reader")}))
    assert store.effective("ann", "www.example.org")["bypass"] is True
    assert store.effective("ann", "a.news.example.org")["preset"] == "reader"
    assert store.effective("ann", "example.com")["bypass"] is False
    assert store.effective("bob", "www.example.org")["bypass"] is False  # ann's rules are ann's
    store.close()


def test_schema_is_versioned_and_a_newer_database_is_refused(tmp_path):
    cfg, _ = load_cfg(tmp_path)
    ProfileStore(cfg).close()
    conn = state.connect(cfg.globals["state"].path)
    assert state.version(conn, "profiles") == len(MIGRATIONS)
    conn.execute("UPDATE schema_version SET version = ? WHERE component = 'profiles'", (len(MIGRATIONS) + 1,))
    conn.close()
    with pytest.raises(C.ConfigError, match="newer than this pagesieve knows"):
        ProfileStore(cfg)


def users_cli(config, *args, stdin=""):
    return subprocess.run([sys.executable, "-m", "pagesieve", "users", "--config", str(config), *args],
                          input=stdin, capture_output=True, text=True, timeout=60)


@pytest.mark.slow
def test_users_command(tmp_path):
    cfg, path = load_cfg(tmp_path)
    assert users_cli(path, "add", "ann", "--password-stdin", stdin="short\n").returncode != 0
    r = users_cli(path, "add", "ann", "--password-stdin", stdin="long enough pw\n")
    assert r.returncode == 0, r.stderr
    r = users_cli(path, "add", "ann", "--password-stdin", stdin="another pw 123\n")
    assert r.returncode != 0 and "already exists" in r.stderr and "Traceback" not in r.stderr
    assert users_cli(path, "add", "bad name!", "--password-stdin", stdin="long enough pw\n").returncode != 0
    assert users_cli(path, "add", "bo", "--password-stdin", stdin="long enough pw\n").returncode == 0
    assert users_cli(path, "list").stdout.split() == ["ann", "bo"]
    store = ProfileStore(cfg)
    store.save(Profile("ann", preset="reader"))
    store.close()
    r = users_cli(path, "remove", "ann")
    assert r.returncode == 0 and "saved settings" in r.stdout
    assert users_cli(path, "list").stdout.split() == ["bo"]
    store = ProfileStore(cfg)
    assert store.get("ann") == Profile("ann")
    store.close()
    assert users_cli(path, "remove", "ann").returncode != 0


@pytest.mark.parametrize("key, value, scope", [
    ("filters.ads.lists", ["http://127.0.0.1:9/list.txt"], "operator"),
    ("filters.ads.cache_dir", "/tmp/elsewhere", "operator"),
    ("filters.image_captions.model", "some_module", "operator"),
    ("ads.refresh_hours", 0.0, "operator"),  # the short form is checked too
    ("filters.article.mode", "keep", "preset"),
    ("safety.max_article_loss", 1.0, "preset"),
])
def test_only_user_scope_keys_are_stored(tmp_path, key, value, scope):
    cfg, _ = load_cfg(tmp_path)
    store = ProfileStore(cfg)
    with pytest.raises(ProfileError) as err:
        store.save(Profile("ann", overrides={key: value}))
    assert err.value.errors == {key: f"{key}: {scope}-scope setting, set by the proxy's operator in config.yaml; "
                                     "a user may change only user-scope settings"}
    assert store.get("ann") == Profile("ann")
    store.close()


@pytest.mark.parametrize("key", ["chain", "preset", "proxy.listen_port", "state.path", "filters.nope.x"])
def test_keys_that_are_no_user_setting_are_refused(tmp_path, key):
    cfg, _ = load_cfg(tmp_path)
    with pytest.raises(ProfileError) as err:
        ProfileStore(cfg).save(Profile("ann", overrides={key: ["ignore"]}))
    assert key in err.value.errors


def test_an_old_profile_keeps_its_user_keys_and_loses_the_others_logged_once(tmp_path, caplog):
    import json

    cfg, _ = load_cfg(tmp_path)
    store = ProfileStore(cfg)
    store.save(Profile("ann", overrides={"output.format": "text"}))
    with store.db.transaction() as tx:  # as an older version, before scopes, could have stored it
        tx.execute("INSERT INTO profile_settings (user, key, value) VALUES ('ann', ?, ?)",
                   ("filters.ads.lists", json.dumps(["/etc/passwd"])))
    store._cache.clear()
    caplog.set_level("WARNING", logger="pagesieve.store.profiles")
    for _ in range(3):
        eff = store.effective("ann", "news.example")
        store._usable.clear()  # as after a commit by another process
    assert eff["overrides"] == {"output": {"format": "text"}}
    assert cfg.resolve(None, eff["overrides"]).settings_of("ads").lists == cfg.resolve().settings_of("ads").lists
    ignored = [r.getMessage() for r in caplog.records if "ignoring" in r.getMessage()]
    assert len(ignored) == 1 and "filters.ads.lists: operator-scope setting" in ignored[0]
    store.close()


def test_the_settings_page_refuses_a_posted_operator_key(tmp_path):
    cfg, _ = load_cfg(tmp_path)
    form = Form(cfg, cfg.preset_for(None))
    assert all(item["scope"] == "user" for _, item in form._items())
    with pytest.raises(ProfileError) as err:
        form.parse("ann", {"shown_preset": ["declutter"], "filters.ads.lists": ["http://127.0.0.1:9/x"]})
    assert "filters.ads.lists: operator-scope setting" in err.value.errors["filters.ads.lists"]


def test_a_toggle_that_leaves_a_filter_without_what_it_needs_is_refused(tmp_path):
    cfg, _ = load_cfg(tmp_path)
    store = ProfileStore(cfg)
    with pytest.raises(ProfileError) as err:  # declutter without article: image_captions would judge nothing
        store.save(Profile("ann", preset="declutter", toggles={"article": False}))
    assert "filter image_captions needs article" in err.value.errors["chain.image_captions"]
    assert store.get("ann") == Profile("ann")
    store.close()


def test_a_switched_on_filter_goes_where_the_chain_order_holds(tmp_path):
    from pagesieve.store.profiles import chain_for

    cfg, _ = load_cfg(tmp_path)
    # By the registry's order removed_links would follow ads, before image_captions (which removes
    # figures and their links): it goes after image_captions instead.
    assert chain_for(cfg, "reader", {"removed_links": True}) == [
        "ignore", "main_content", "ads", "image_captions", "removed_links", "accessibility"]
    store = ProfileStore(cfg)
    store.save(Profile("ann", preset="reader", toggles={"removed_links": True}))
    store.close()


@pytest.mark.parametrize("pasted, host", [
    ("example.org", "example.org"),
    ("  Example.ORG.  ", "example.org"),
    ("https://www.example.org/news", "www.example.org"),
    ("http://www.example.org:8080/a?b=c#d", "www.example.org"),
    ("www.example.org/news/today.html", "www.example.org"),
    ("example.org:8443", "example.org"),
    ("//cdn.example.org/x.js", "cdn.example.org"),
    ("https://user:pw@example.org/", "example.org"),
    ("*.example.org", "example.org"),
    ("bücher.de", "xn--bcher-kva.de"),
    ("https://BÜCHER.de/katalog", "xn--bcher-kva.de"),
    ("127.0.0.3", "127.0.0.3"),
])
def test_a_site_is_read_from_whatever_a_person_pastes(pasted, host):
    from pagesieve.store.profiles import normalize_host

    assert normalize_host(pasted) == host


@pytest.mark.parametrize("pasted, message", [
    ("", "no site given: type a name such as example.org"),
    ("not a host", "'not a host': not a valid host name (type a site such as example.org, or paste its address)"),
    ("https://", "'https://': not a valid host name (type a site such as example.org, or paste its address)"),
    ("exa_mple.org", "'exa_mple.org': not a valid host name (type a site such as example.org, or paste its address)"),
    ("x" * 100_000, "'" + "x" * 57 + "...': 100000 characters, too long for a site's address"),
])
def test_a_site_that_is_not_one_is_refused_in_one_line(pasted, message):
    from pagesieve.store.profiles import normalize_host

    with pytest.raises(ValueError) as err:
        normalize_host(pasted)
    assert str(err.value) == message and "\n" not in str(err.value)


def test_as_sent_bypasses_every_site_but_those_with_a_preset(tmp_path):
    from pagesieve.store.profiles import AS_SENT

    cfg, _ = load_cfg(tmp_path)
    store = ProfileStore(cfg)
    store.save(Profile("ann", preset=AS_SENT, overrides={"output.format": "text"},
                       sites={"news.example": SiteRule("reader")}))
    assert store.effective("ann", "shop.example")["bypass"] is True
    eff = store.effective("ann", "www.news.example")
    assert eff["bypass"] is False and eff["preset"] == "reader" and eff["overrides"]["output"] == {"format": "text"}
    store.close()


def test_the_settings_page_shows_every_user_setting_in_plain_words(tmp_path):
    """Rendered without a proxy (the proxy tests post to it): every declared user setting has a
    control, and no label or help text on the page cites a paper, an issue or an internal name."""
    import re

    import flask
    import lxml.html

    from pagesieve.core import settings as S
    from pagesieve.engine.output import OutputSettings
    from pagesieve.filters import FILTERS
    from pagesieve.proxy_addons.settings_page import TEMPLATES
    from tests.conftest import NOT_PLAIN

    cfg, _ = load_cfg(tmp_path)
    form = Form(cfg, cfg.preset_for(None))
    app = flask.Flask("test", template_folder=str(TEMPLATES))
    with app.app_context():
        view = form.view("ann", "token", form.values(Profile("ann")), {})
        html = flask.render_template("settings.html", **view)
    doc = lxml.html.document_fromstring(html)
    names = {el.name for el in doc.forms[0].inputs if el.name}
    declared = {f"output.{d['name']}" for d in S.describe(OutputSettings) if d["scope"] == S.USER}
    for name, f in FILTERS.items():
        declared |= {f"filters.{name}.{d['name']}" for d in S.describe(f.Settings) if d["scope"] == S.USER}
    assert declared - names == set()
    text = " ".join(doc.find("body").text_content().split()).replace("pagesieve settings for", "")
    for name in sorted(cfg.presets, key=len, reverse=True):  # presets are shown by name, as settings are
        text = text.replace(name, "")
    assert re.findall(NOT_PLAIN, text) == []
    assert len(doc.xpath("//details")) >= len(FILTERS)  # one folded section per filter, at least
