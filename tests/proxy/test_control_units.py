"""The page control's parts without a proxy process: the bypass parameter, the removal log, the
control on HTML and text output, and the operator's switch (the addons in process, ``taddons``)."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml
from mitmproxy.test import taddons, tflow

from pagesieve.engine import config as C
from pagesieve.proxy_addons import default_addons
from pagesieve.proxy_addons.control import PageControl, PageRemovals, RemovalLog, take_bypass_param, with_param
from pagesieve.proxy_addons.control_pages import removal_view
from tests.proxy.conftest import AD_PAGE, write_config


@pytest.mark.parametrize("path, param, expected", [
    ("/p?pagesieve=off", "pagesieve=off", ("/p", "")),
    ("/p?a=1&pagesieve=off-abc&b=2", "pagesieve=off", ("/p?a=1&b=2", "abc")),
    ("/p?pagesieve=off-&x", "pagesieve=off", ("/p?x", "")),
    ("/p?pagesieve=offx", "pagesieve=off", ("/p?pagesieve=offx", None)),  # another value: not ours
    ("/p?x=pagesieve=off", "pagesieve=off", ("/p?x=pagesieve=off", None)),
    ("/p?pagesieve=off-1&pagesieve=off-2", "pagesieve=off", ("/p", "2")),  # every one goes; the last counts
    ("/p", "pagesieve=off", ("/p", None)),
    ("/p?pagesieve=off", "", ("/p?pagesieve=off", None)),
])
def test_take_bypass_param(path, param, expected):
    assert take_bypass_param(path, param) == expected


@pytest.mark.parametrize("url", ["http://a.example/p", "http://a.example/p?x=1", "http://a.example/p?x=1&y="])
def test_the_show_original_url_comes_back_as_it_was(url):
    """The token covers the URL without it: taking the parameter off gives that URL back."""
    with_token = with_param(url, "pagesieve=off-abc")
    path = with_token.split("a.example", 1)[1]
    assert take_bypass_param(path, "pagesieve=off") == (url.split("a.example", 1)[1], "abc")


def test_the_removal_log_keeps_each_users_recent_pages_and_only_for_them():
    log = RemovalLog(per_user=2, users=2)
    page = PageRemovals("alice", "http://a.example/", "declutter", (), (), 0.0)
    keys = [log.add(page) for _ in range(3)]
    assert log.get("alice", keys[0]) is None and log.get("alice", keys[2]) is page  # the oldest went
    assert log.get("bob", keys[2]) is None  # another user's key is no key
    log.add(PageRemovals("bob", "u", "p", (), (), 0.0))
    log.add(PageRemovals("carol", "u", "p", (), (), 0.0))
    assert log.get("alice", keys[2]) is None  # at most 2 users: the least recent went


def test_removal_view_counts_what_stands_and_says_what_was_undone():
    page = PageRemovals("alice", "u", "declutter",
                        (("ignore", "ok", 5), ("ads", "error", 0), ("link_lists", "ok", 1)),
                        ({"filter": "ignore", "action": "remove", "reason": "kinds of tags"},
                         {"filter": "ads", "action": "remove", "node": "div#x", "reason": "ad"},
                         {"filter": "ads", "action": "error", "reason": "ValueError: boom"},
                         {"filter": "link_lists", "action": "remove", "node": "nav", "reason": "link list",
                          "measured": {"links": 6}, "threshold": {"ratio": 0.35}}), 0.0)
    view = removal_view(page)
    assert view["total"] == 6 and view["listed"] == 3
    ignore, ads, lists = view["groups"]
    assert "4 more" in ignore["summary"] and ads["status"] == "error" and "put back" in ads["summary"]
    assert lists["entries"][0]["measured"] == "links = 6" and lists["entries"][0]["threshold"] == "ratio = 0.35"


@pytest.fixture(scope="module")
def executor():
    with ThreadPoolExecutor(2) as ex:
        yield ex


def load(tmp: Path, **proxy) -> C.Config:
    tmp.mkdir(exist_ok=True)
    path = write_config(tmp / "config.yaml", tmp, timeout_seconds=120, **proxy)
    return C.load(path)


def run(flow, executor, cfg):
    async def go():
        addons = default_addons(cfg, executor=executor)
        with taddons.context(*addons) as tctx:
            try:
                for addon in addons:
                    tctx.configure(addon)
                for addon in addons:
                    await tctx.cycle(addon, flow)
            finally:
                await tctx.master.done()
        return flow
    return asyncio.run(go())


def page_flow(profile: dict | None = None):
    body = AD_PAGE.encode()
    f = tflow.tflow(resp=tflow.tresp(content=body))
    f.request.host, f.request.path = "news.example", "/story"
    f.response.headers["content-type"] = "text/html; charset=utf-8"
    f.response.headers["content-length"] = str(len(body))
    if profile is not None:
        f.metadata["pagesieve.profile"] = {"user": "default", "preset": None, "bypass": False, **profile}
    return f


def test_text_output_ends_with_one_line_that_says_how_to_see_the_original(executor, tmp_path):
    f = run(page_flow({"overrides": {"output": {"format": "text"}}}), executor, load(tmp_path))
    assert f.response.headers["content-type"].startswith("text/plain")
    last = f.response.text.rstrip("\n").splitlines()[-1]
    assert last.startswith("Filtered by pagesieve. As sent: http://news.example:22/story?pagesieve=off-")
    assert last.endswith("  Settings: http://pagesieve.core.settings/")
    assert "<nav" not in f.response.text


def test_the_operator_can_turn_the_control_off(executor, tmp_path):
    on = run(page_flow(), executor, load(tmp_path / "on"))
    off = run(page_flow(), executor, load(tmp_path / "off", page_control=False))
    assert b'id="pagesieve-control"' in on.response.content
    assert b"pagesieve-control" not in off.response.content and off.response.headers["x-pagesieve"].startswith("filtered;")
    text = run(page_flow({"overrides": {"output": {"format": "text"}}}), executor, load(tmp_path / "off2", page_control=False))
    assert "Filtered by pagesieve" not in text.response.text


def test_the_control_names_the_settings_host_of_the_config(tmp_path):
    path = write_config(tmp_path / "config.yaml", tmp_path)
    data = yaml.safe_load(path.read_text())
    data["users"]["settings_host"] = "settings.proxy.internal"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    from pagesieve.proxy_addons.options import ConfigSource

    control = PageControl(ConfigSource(C.load(path)))
    html = control.html("default", "http://a.example/x", "a.example", 3, "KEY")
    assert 'href="http://settings.proxy.internal/removed/KEY">What was removed (3)</a>' in html
    assert 'action="http://settings.proxy.internal/always-as-sent"' in html
    assert control.check(control.token("bypass", "default", "http://a.example/x"), "bypass", "default",
                         "http://a.example/x")
    assert not control.check(control.token("bypass", "other", "http://a.example/x"), "bypass", "default",
                             "http://a.example/x")
