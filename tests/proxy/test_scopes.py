"""Setting scopes through a real ``pagesieve run``: a user cannot make the proxy fetch, read, write
or import anything they chose.

Every declared setting that is not user-scope is posted through the real settings page (refused,
each with its message, nothing saved). Then a profile written before scopes existed (rows put in
the state database by hand) names a loopback URL, a list file, a cache directory and a model; pages
go through the proxy and the test proves none of them was touched — while the same values given
by the operator (``pagesieve filter --set``) do take effect, so each check could fail.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from html import unescape

import httpx
import lxml.html
import pytest

from pagesieve.core import settings as S
from pagesieve.engine import config as C
from tests.conftest import REPO
from tests.proxy.conftest import ARTICLE, SETTINGS, Origin, Route, browser_form, changed, post, start_proxy

pytestmark = pytest.mark.proxy

PAGE = f"""<!doctype html><html lang=en><head><title>Harbour news</title></head><body>
<div id=story><h1>Harbour wall to be rebuilt</h1>{ARTICLE}
<figure><img src=/wall.png alt="The wall"><figcaption>Brightwater council members at the harbour wall
in Brightwater.</figcaption></figure></div>
<div class=evil-marker id=marker>Kept unless a user-chosen list is read.</div>
</body></html>"""


def non_user_keys() -> list[tuple[str, dict]]:
    """Every declared setting that a user may not change, with its description."""
    from pagesieve.filters import FILTERS

    out = []
    sections = {**C._sections(), **C.global_sections()}
    for prefix, cls in [*sections.items(), *((f"filters.{n}", f.Settings) for n, f in FILTERS.items())]:
        for d in S.describe(cls):
            if d["scope"] != S.USER:
                out.append((f"{prefix}.{d['name']}", d))
    return out


def hostile_value(key: str, d: dict, url: str, path: str) -> str:
    """A form value for ``key`` that would reach out if it were applied."""
    if d["type"] is bool:
        return "" if d["default"] else "on"
    if isinstance(d["default"], (int, float)) and not isinstance(d["default"], bool):
        return str(d["meta"].get("max") or d["meta"].get("min") or 1)
    if isinstance(d["default"], list):
        return f"{url}, {path}"
    return url if "list" in key or "host" in key else path


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("scopes")
    routes = {"/page.html": Route(headers={"Content-Type": "text/html; charset=utf-8"}, body=PAGE.encode()),
              "/list.txt": Route(headers={"Content-Type": "text/plain"}, body=b"##.evil-marker\n")}
    origin = Origin(routes, host="127.0.0.3")
    evil = {
        "list_url": origin.url("/list.txt"),
        "list_file": str(tmp / "evil-list.txt"),
        "cache_dir": str(tmp / "evil-cache"),
        "model": "evil_scopes_model",
        "import_marker": tmp / "evil-imported",
    }
    (tmp / "evil-list.txt").write_text("##.evil-marker\n")
    proxy_dir = tmp / "p"
    proxy_dir.mkdir()
    # `python -m pagesieve run` has its working directory on sys.path: a module there is importable.
    (proxy_dir / f"{evil['model']}.py").write_text(
        f"open({str(evil['import_marker'])!r}, 'w').write('imported')\n")
    proxy = start_proxy(proxy_dir)
    yield tmp, origin, proxy, evil
    proxy.stop()
    origin.close()


def client(proxy) -> httpx.Client:
    return httpx.Client(proxy=proxy.url, trust_env=False, timeout=30, follow_redirects=False)


def test_the_page_offers_user_settings_only(setup):
    _, _, proxy, _ = setup
    with client(proxy) as c:
        names = {k for k, _ in browser_form(c.get(SETTINGS).text)}
    for key, _ in non_user_keys():
        assert key not in names
    assert "output.format" in names and "filters.link_lists.ratio" in names


def test_every_non_user_key_is_refused_by_the_settings_page(setup):
    _, origin, proxy, evil = setup
    keys = non_user_keys()
    assert {"filters.ads.lists", "filters.ads.cache_dir", "filters.image_captions.model", "state.path",
            "users.htpasswd", "proxy.confdir"} <= {k for k, _ in keys}
    with client(proxy) as c:
        fields = browser_form(c.get(SETTINGS).text)
        for key, d in keys:
            value = hostile_value(key, d, evil["list_url"], evil["cache_dir"])
            r = post(c, changed(fields, **{key.replace(".", "__"): value}))
            assert r.status_code == 400, key
            assert "Nothing was saved" in r.text
            assert f"{key}: {d['scope']}-scope setting, set by the proxy's operator in config.yaml" in unescape(r.text)
        # Nothing was stored: the page still shows the defaults, a page is filtered as before.
        assert browser_form(c.get(SETTINGS).text) == fields
    assert not any(p.startswith("/list.txt") for _, p, _ in origin.seen)


def test_an_old_profile_with_operator_keys_is_ignored(setup):
    tmp, origin, proxy, evil = setup
    stored = {
        "filters.ads.lists": [evil["list_url"], evil["list_file"]],
        "filters.ads.cache_dir": evil["cache_dir"],
        "filters.ads.refresh_hours": 0,
        "filters.image_captions.model": evil["model"],
        "output.format": "text",  # a user-scope key in the same profile still applies
    }
    with client(proxy) as c:
        c.get(SETTINGS)  # the profile store exists
    db = sqlite3.connect(str(tmp / "p" / "state.sqlite3"), timeout=30)
    with db:
        db.execute("INSERT INTO profiles (user, preset, updated_at) VALUES ('default', NULL, 0)")
        db.executemany("INSERT INTO profile_settings (user, key, value) VALUES ('default', ?, ?)",
                       [(k, json.dumps(v)) for k, v in stored.items()])
    db.close()
    with client(proxy) as c:
        for _ in range(3):
            r = c.get(origin.url("/page.html"))
            assert r.status_code == 200 and r.headers["x-pagesieve"].startswith("filtered")
            assert r.headers["content-type"].startswith("text/plain")  # the user key applied
            assert "Kept unless a user-chosen list is read" in r.text  # no user-chosen list was read
    assert not any(p.startswith("/list.txt") for _, p, _ in origin.seen)  # nor fetched
    assert not (tmp / "evil-cache").exists()  # nothing written where the user chose
    assert not evil["import_marker"].exists()  # nothing imported
    log = proxy.log_text()
    assert evil["model"] not in log and evil["list_url"] not in log
    ignored = [line for line in log.splitlines() if "profile of default: ignoring" in line]
    assert len(ignored) == 1, ignored  # logged once, though every request re-reads the profile
    for key in ("filters.ads.lists", "filters.ads.cache_dir", "filters.ads.refresh_hours",
                "filters.image_captions.model"):
        assert key in ignored[0]


def test_the_same_values_do_take_effect_for_the_operator(setup, tmp_path):
    """The control: from the operator's command line, the user-chosen list would have been read."""
    _, _, _, evil = setup
    page = tmp_path / "page.html"
    page.write_text(PAGE)
    r = subprocess.run([sys.executable, "-m", "pagesieve", "filter", "--set",
                        f"filters.ads.lists=[{evil['list_file']}]", "--set",
                        f"filters.ads.cache_dir={tmp_path / 'cache'}", str(page)],
                       capture_output=True, timeout=120, cwd=str(REPO))
    assert r.returncode == 0, r.stderr
    assert lxml.html.document_fromstring(r.stdout).get_element_by_id("marker", None) is None
    assert (tmp_path / "cache").exists()
