import textwrap

import pytest

from pagesieve import config as C
from pagesieve.errors import ConfigError
from pagesieve.filters import FILTERS
from tests.conftest import REPO


def write(tmp_path, text):
    p = tmp_path / "c.yaml"
    p.write_text(textwrap.dedent(text))
    return p


def test_repo_config_loads_and_has_the_two_presets(cfg):
    assert {"declutter", "reader"} <= set(cfg.presets)
    assert cfg.default_preset == "declutter"
    for name in cfg.presets:
        spec = cfg.resolve(name)
        assert spec.chain and spec.chain[0] == "ignore"


def test_generated_block_matches_declarations():
    """config.yaml's defaults are generated from the code; regenerate with `pagesieve config regenerate`."""
    assert C.generated_block() == C.render_defaults()


def test_every_filter_is_in_the_generated_defaults(cfg):
    assert set(cfg.data["filters"]) == set(FILTERS)


def test_override_layers_over_preset_over_default(cfg):
    spec = cfg.resolve("declutter", C.overrides_to_tree([("ignore.scripts", False), ("output.format", "text")]))
    assert spec.settings_of("ignore").scripts is False
    assert spec.output.format == "text"
    # the preset's own override stays
    assert spec.settings_of("ignore").non_link_images is False
    assert cfg.resolve("declutter").settings_of("ignore").scripts is True


def test_override_parsing():
    assert C.parse_override("filters.x.y=0.5") == ("filters.x.y", 0.5)
    assert C.parse_override("a=true") == ("a", True)
    assert C.parse_override("chain=[ignore]") == ("chain", ["ignore"])
    with pytest.raises(ConfigError, match="expected key=value"):
        C.parse_override("novalue")


@pytest.mark.parametrize("body, message", [
    ("presets: {p: {chain: [nosuch]}}", "presets.p.chain: unknown filter 'nosuch'; available: "),
    ("presets: {p: {chain: [ignore, ignore]}}", "a filter may appear only once"),
    ("presets: {p: {chain: [ignore], filters: {ignore: {scripts: 3}}}}",
     "filters.ignore.scripts = 3: expected true or false"),
    ("presets: {p: {chain: [ignore]}}\nfilters: {bogus: {}}", "filters.bogus: unknown filter"),
    ("presets: {p: {chain: [ignore]}}\npreset: q", "preset = 'q': unknown preset; available: p"),
    ("presets: {p: {filters: {}}}", "presets.p.chain: missing"),
    ("presets: {p: {chain: [ignore], colour: red}}", "presets.p.colour: unknown key"),
    ("presets: {p: {chain: [ignore]}}\nwhatever: 1", "whatever: unknown top-level key"),
    ("presets: {p: {chain: [ignore], output: {max_line_breaks: 0}}}",
     "output.max_line_breaks = 0: expected an integer from 1 to 10"),
    ("presets: {p: {chain: [ignore]", "not valid YAML at line"),
])
def test_bad_files_stop_with_a_message_naming_key_value_and_allowed(tmp_path, body, message):
    with pytest.raises(ConfigError) as err:
        C.load(write(tmp_path, body))
    assert message in str(err.value)


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="cannot read config file .*nope.yaml: No such file"):
        C.load(tmp_path / "nope.yaml")


def test_unknown_override_names_the_filters(cfg):
    with pytest.raises(ConfigError, match="link_listz: not a filter or a per-run section"):
        cfg.resolve("declutter", C.overrides_to_tree([("link_listz.ratio", 1)]))


def test_filter_instances_are_shared_between_equal_specs(cfg):
    a = C.build_chain(cfg.resolve("declutter"))
    b = C.build_chain(cfg.resolve("declutter"))
    assert [id(f) for f in a.filters] == [id(f) for f in b.filters]


def test_loading_the_config_imports_neither_mitmproxy_nor_bcrypt():
    """The engine reads every section (proxy, users and state included) below the proxy layer."""
    import subprocess
    import sys

    code = ("import sys, pagesieve.config as c; cfg = c.load(); assert set(cfg.globals) >= {'proxy', 'users', 'state'}; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('mitmproxy', 'bcrypt')))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=str(REPO))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


def test_which_preset_applies_is_decided_in_one_place():
    cfg = C.load()
    assert cfg.preset_for() == cfg.default_preset
    assert cfg.preset_for(None, "", "reader") == "reader"
    assert cfg.preset_for("topics", "reader") == "topics"  # most specific first
    with pytest.raises(ConfigError, match="preset = 'nope': unknown preset; available: "):
        cfg.preset_for("nope")
