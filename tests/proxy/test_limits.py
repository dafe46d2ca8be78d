"""Size caps on what a user may set, through a real ``pagesieve run``: a user's settings run on
every page they load, in worker processes every user shares, so their size is capped where every
setting is checked (pagesieve/core/settings.py), for the settings page as for config files."""

from __future__ import annotations

import pytest
import yaml

from tests.proxy.conftest import (
    SETTINGS,
    USERS,
    add_user,
    browser_form,
    changed,
    client_for,
    post,
    start_proxy,
    write_config,
)

pytestmark = pytest.mark.proxy


@pytest.fixture(scope="module")
def proxy(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("limits")
    config = write_config(tmp / "config.yaml", tmp)
    data = yaml.safe_load(config.read_text())
    data["users"]["auth"] = True
    config.write_text(yaml.safe_dump(data, sort_keys=False))
    add_user(config, "alice", USERS["alice"])
    p = start_proxy(tmp / "p", config=config)
    yield p
    p.stop()


def cues(n: int) -> str:
    return ", ".join(f"harbour topic {i}:{1 + i % 5}" for i in range(n))


def test_five_thousand_cue_phrases_are_refused_fifty_are_saved(proxy):
    with client_for(proxy, "alice") as a:
        fields = browser_form(a.get(SETTINGS).text)
        r = post(a, changed(fields, filters__segments__cue_phrases=cues(5000)))  # 123 KB: accepted before
        assert r.status_code == 400 and "Nothing was saved" in r.text
        assert "filters.segments.cue_phrases: 5000 entries: at most 50 are allowed" in r.text
        long = "x" * 101
        r = post(a, changed(fields, filters__segments__cue_phrases=long))
        assert r.status_code == 400 and "101 characters: at most 100 are allowed" in r.text
        r = post(a, changed(fields, filters__segments__cue_phrases=cues(50)))
        assert r.status_code == 303
        assert "harbour topic 49:5" in a.get(SETTINGS).text
