from dataclasses import dataclass
from typing import Literal

import pytest

from pagesieve.core import settings as S
from pagesieve.core.errors import ConfigError
from tests.conftest import NOT_PLAIN


@dataclass(frozen=True)
class Demo:
    ratio: float = S.setting(0.5, "a ratio", minimum=0, maximum=1)
    count: int = S.setting(3, "a count", minimum=1)
    on: bool = S.setting(True, "a switch")
    mode: Literal["a", "b"] = S.setting("a", "a mode")
    tags: tuple[str, ...] = S.setting(("div",), "some tags")
    name: str | None = S.setting(None, "optional")


def test_defaults_and_overrides():
    d = S.build(Demo, {"ratio": 1, "tags": ["p", "td"], "name": "x"}, "demo")
    assert d == Demo(ratio=1.0, tags=("p", "td"), name="x")
    assert isinstance(d.ratio, float)
    assert S.build(Demo, None, "demo") == Demo()


@pytest.mark.parametrize("values, message", [
    ({"ratio": 1.01}, "demo.ratio = 1.01: expected a number from 0 to 1"),
    ({"ratio": -0.01}, "demo.ratio = -0.01: expected a number from 0 to 1"),
    ({"ratio": "abc"}, "demo.ratio = 'abc': expected a number from 0 to 1"),
    ({"count": 0}, "demo.count = 0: expected an integer >= 1"),
    ({"count": 2.5}, "demo.count = 2.5: expected an integer >= 1"),
    ({"count": True}, "demo.count = True: expected an integer >= 1"),
    ({"on": "yes"}, "demo.on = 'yes': expected true or false"),
    ({"mode": "c"}, "demo.mode = 'c': expected one of 'a', 'b'"),
    ({"tags": "div"}, "demo.tags = 'div': expected a list of strings"),
    ({"tags": [1]}, "demo.tags = [1]: expected a list of strings"),
    ({"nope": 1}, "demo.nope: unknown setting; allowed: count, mode, name, on, ratio, tags"),
])
def test_errors_name_key_value_and_allowed(values, message):
    with pytest.raises(ConfigError) as err:
        S.build(Demo, values, "demo")
    assert str(err.value) == message


def test_bounds_are_inclusive():
    assert S.build(Demo, {"ratio": 0}, "d").ratio == 0.0
    assert S.build(Demo, {"ratio": 1}, "d").ratio == 1.0
    assert S.build(Demo, {"count": 1}, "d").count == 1


def test_every_declared_setting_has_a_doc():
    from pagesieve.engine.config import _sections, global_sections
    from pagesieve.filters import FILTERS

    classes = [f.Settings for f in FILTERS.values()] + list(_sections().values()) + list(global_sections().values())
    for cls in classes:
        for d in S.describe(cls):
            assert d["doc"].strip(), f"{cls.__name__}.{d['name']} has no doc"


def test_every_setting_declares_a_known_scope_and_resources_are_the_operators():
    from pagesieve.engine import config as C
    from pagesieve.filters import FILTERS

    sections = {**C._sections(), **C.global_sections()}
    scopes = {}
    for prefix, cls in [*sections.items(), *((f"filters.{n}", f.Settings) for n, f in FILTERS.items())]:
        for d in S.describe(cls):
            assert d["scope"] in S.SCOPES
            scopes[f"{prefix}.{d['name']}"] = d["scope"]
    # What reaches the network, the disk or an import, and the process-wide sections: operator.
    for key in ("filters.ads.lists", "filters.ads.cache_dir", "filters.ads.refresh_hours",
                "filters.image_captions.model", "filters.template_blocks.max_pages"):
        assert scopes[key] == S.OPERATOR, key
    assert all(v == S.OPERATOR for k, v in scopes.items() if k.split(".")[0] in C.global_sections())
    assert scopes["output.format"] == S.USER and scopes["filters.article.mode"] == S.PRESET
    assert C.scope_of("link_lists.ratio") == S.USER and C.scope_of("filters.nope.x") is None


def test_an_undeclared_scope_is_operator_and_a_bad_one_is_a_declaration_bug():
    import dataclasses

    @dataclasses.dataclass(frozen=True)
    class X:
        a: int = S.setting(1, "a")

    assert S.scope_of(X, "a") == S.OPERATOR
    with pytest.raises(ValueError, match="scope = 'admin'"):
        S.setting(1, "b", scope="admin")


def test_lru_bounds_and_keeps_the_recently_used():
    from pagesieve.core.lru import LRU

    cache = LRU(2)
    cache["a"], cache["b"] = 1, 2
    assert cache.get("a") == 1  # "a" is now the most recent
    cache["c"] = 3
    assert "b" not in cache and cache.get("a") == 1 and cache.get("c") == 3 and len(cache) == 2
    with pytest.raises(ValueError):
        LRU(0)


def test_filter_instances_are_bounded(monkeypatch):
    from pagesieve.core.lru import LRU
    from pagesieve.engine import config as C

    monkeypatch.setattr(C, "_INSTANCES", LRU(3))
    cfg = C.load()
    for i in range(10):
        C.build_chain(cfg.resolve("reader-linkblocks", C.overrides_to_tree({"link_blocks.min_links": 2 + i})))
    assert len(C._INSTANCES) == 3


@pytest.mark.parametrize("kwargs, message", [
    ({"group": "outptu"}, "group = 'outptu': expected one of ignore, advanced, accessibility, output, proxy, users"),
    ({"scope": "user"}, "group = None: expected one of ignore, advanced, accessibility, output, proxy, users "
                        "(a user-scope setting needs one)"),
])
def test_a_group_is_checked_when_the_setting_is_declared(kwargs, message):
    with pytest.raises(ValueError) as err:
        S.setting(1, "a number", **kwargs)
    assert str(err.value) == message
    assert S.setting(1, "a number", group="output", scope="user").metadata["group"] == "output"


def _from_text(name: str, raw: str | None):
    field, tp = next((f, tp) for f, tp in S.fields(Demo) if f.name == name)
    return S.from_text(f"demo.{name}", raw, tp, field.metadata)


@pytest.mark.parametrize("name, raw, value", [
    ("ratio", " 0.25 ", 0.25),
    ("ratio", "1", 1.0),
    ("count", "3", 3),
    ("count", "3.0", 3),
    ("count", "1e1", 10),
    ("on", "on", True),
    ("on", None, False),
    ("on", "false", False),
    ("mode", "b", "b"),
    ("tags", "p, td\nli,,", ("p", "td", "li")),
    ("tags", "", ()),
    ("name", "  ", None),
    ("name", " x ", "x"),
])
def test_from_text_reads_what_a_form_sends(name, raw, value):
    assert _from_text(name, raw) == value


@pytest.mark.parametrize("name, raw, message", [
    ("ratio", "nan", "demo.ratio = 'nan': expected a number from 0 to 1"),
    ("ratio", "inf", "demo.ratio = 'inf': expected a number from 0 to 1"),
    ("ratio", "-Infinity", "demo.ratio = '-Infinity': expected a number from 0 to 1"),
    ("ratio", "", "demo.ratio = '': expected a number from 0 to 1"),
    ("ratio", "0,5", "demo.ratio = '0,5': expected a number from 0 to 1"),
    ("count", "nan", "demo.count = 'nan': expected an integer >= 1"),
    ("count", "2.5", "demo.count = 2.5: expected an integer >= 1"),
    ("on", "maybe", "demo.on = 'maybe': expected true or false"),
    ("mode", "c", "demo.mode = 'c': expected one of 'a', 'b'"),
    ("name", "x" * 100_000, "demo.name: 100000 characters; at most 4096 are allowed"),
    ("name", "x" * 4097, "demo.name: 4097 characters; at most 4096 are allowed"),
])
def test_from_text_refuses_with_one_line(name, raw, message):
    with pytest.raises(ConfigError) as err:
        _from_text(name, raw)
    assert str(err.value) == message


def test_non_finite_numbers_are_refused_from_any_source():
    for bad in (float("nan"), float("inf"), float("-inf")):
        with pytest.raises(ConfigError, match="expected a number from 0 to 1"):
            S.build(Demo, {"ratio": bad}, "demo")


@dataclass(frozen=True)
class Short:
    label: str = S.setting("x", "a label", max_chars=10)
    words: tuple[str, ...] = S.setting((), "some words", max_chars=5, max_items=3)


@pytest.mark.parametrize("values, message", [
    ({"label": "x" * 11}, "short.label = 'xxxxxxxxxxx'...: 11 characters: at most 10 are allowed"),
    ({"words": ["a", "b", "c", "d"]}, "short.words: 4 entries: at most 3 are allowed"),
    ({"words": ["abcdef"]}, "short.words entry 1 = 'abcdef'...: 6 characters: at most 5 are allowed"),
])
def test_declared_lengths_bound_text(values, message):
    with pytest.raises(ConfigError) as err:
        S.build(Short, values, "short")
    assert str(err.value) == message
    assert S.build(Short, {"label": "x" * 10, "words": ["abcde"] * 3}, "short").label == "x" * 10


#: What a help text of a user setting must not hold: citations, issue numbers, internal names.
def test_help_texts_of_user_settings_are_plain_words():
    import re

    from pagesieve.engine.output import OutputSettings
    from pagesieve.filters import FILTERS

    found = []
    for prefix, cls in [*((f"filters.{n}", f.Settings) for n, f in FILTERS.items()), ("output", OutputSettings)]:
        for d in S.describe(cls):
            if d["scope"] == S.USER and re.search(NOT_PLAIN, d["doc"]):
                found.append(f"{prefix}.{d['name']}: {d['doc']}")
    assert found == []
    assert re.search(NOT_PLAIN, "the paper's value")  # the pattern does catch them


@dataclass(frozen=True)
class Capped:
    cues: tuple[str, ...] = S.setting((), "cue phrases", scope=S.USER, group="advanced", max_items=3, max_chars=5)
    label: str = S.setting("x", "a label", scope=S.USER, group="output")
    hosts: tuple[str, ...] = S.setting((), "operator hosts")


@pytest.mark.parametrize("values, message", [
    ({"cues": ["a", "b", "c"]}, None),
    ({"cues": ["a", "b", "c", "d"]}, "capped.cues: 4 entries: at most 3 are allowed"),
    ({"cues": ["abcde"]}, None),
    ({"cues": ["abcdef"]}, "capped.cues entry 1 = 'abcdef'...: 6 characters: at most 5 are allowed"),
    ({"label": "y" * S.DEFAULT_CAPS[S.USER][1]}, None),
    ({"label": "y" * (S.DEFAULT_CAPS[S.USER][1] + 1)}, "201 characters: at most 200 are allowed"),
    ({"hosts": ["h"] * S.DEFAULT_CAPS[S.OPERATOR][0]}, None),
    ({"hosts": ["h"] * (S.DEFAULT_CAPS[S.OPERATOR][0] + 1)}, "capped.hosts: 10001 entries: at most 10000"),
])
def test_list_and_string_sizes_are_capped(values, message):
    if message is None:
        S.build(Capped, values, "capped")
    else:
        with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(".", r"\.").replace("'", "'")):
            S.build(Capped, values, "capped")


def test_caps_a_user_can_meet_are_said_in_the_allowed_text():
    allowed = {d["name"]: d["allowed"] for d in S.describe(Capped)}
    assert allowed == {"cues": "a list of at most 3 strings of at most 5 characters",
                       "label": "a string of at most 200 characters", "hosts": "a list of strings"}
