import textwrap

import pytest

from pagesieve.core.errors import ConfigError
from pagesieve.engine import config as C
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



def test_set_reads_a_declared_setting_as_the_settings_page_does():
    assert C.parse_override("link_lists.ratio=0.5") == ("link_lists.ratio", 0.5)
    assert C.parse_override("filters.text_density.threshold=null") == ("filters.text_density.threshold", None)
    assert C.parse_override('segments.cue_phrases=["research interests:2", teaching]') == (
        "segments.cue_phrases", ("research interests:2", "teaching"))
    assert C.parse_override("segments.cue_phrases=teaching, research") == (
        "segments.cue_phrases", ("teaching", "research"))
    assert C.parse_override("output.image_alt_in_text=yes") == ("output.image_alt_in_text", True)
    for item, message in (("link_lists.ratio=nan", "filters.link_lists.ratio = 'nan': expected a number from 0 to 100"),
                          ("output.max_line_breaks=inf", "output.max_line_breaks = 'inf': expected an integer from 1 to 10")):
        with pytest.raises(ConfigError) as err:
            C.parse_override(item)
        assert str(err.value) == message


@pytest.mark.parametrize("body, message", [
    ("presets: {p: {chain: [nosuch]}}", "presets.p.chain: unknown filter 'nosuch'; available: "),
    ("presets: {p: {chain: [ignore, ignore]}}", "a filter may appear only once"),
    ("presets: {p: {chain: [ignore], filters: {ignore: {scripts: 3}}}}",
     "filters.ignore.scripts = 3: expected true or false"),
    ("presets: {p: {chain: [ignore]}}\nfilters: {bogus: {}}", "filters.bogus: unknown filter"),
    ("presets: {p: {chain: [ignore]}}\npreset: q", "preset = 'q': unknown preset; available: declutter, p, reader"),
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

    code = ("import sys, pagesieve.engine.config as c; cfg = c.load(); assert set(cfg.globals) >= {'proxy', 'users', 'state'}; "
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


# -- chain-order contracts (filters' requires / assigns / uses) ------------------------------------

def test_every_shipped_preset_passes_the_order_check(cfg):
    from pagesieve.engine.order import check_order

    assert len(cfg.presets) >= 8
    for name, body in cfg.presets.items():
        check_order([FILTERS[n] for n in body["chain"]], f"presets.{name}.chain")  # raises if not
        C.build_chain(cfg.resolve(name))  # and the Chain built from it checks again


@pytest.mark.parametrize("chain, message", [
    ("[image_captions, article]", "presets.p.chain = ['image_captions', 'article']: filter image_captions needs "
     "article (the main-content subtree), which no filter before it assigns; put one of article, link_density, "
     "main_content, text_density before image_captions"),
    ("[ignore, removed_links, ads, link_lists]", "filter removed_links reads removed_links (the text links removed "
     "from the page), but ads, link_lists assign it after removed_links; put removed_links after link_lists"),
    ("[removed_links]", "filter removed_links needs removed_links"),
    ("[ignore, article, removed_links, accessibility, link_lists]", "removed_links reads removed_links"),
    ("[ignore, link_lists, accessibility, removed_links]", "filter accessibility reads removed_links_nav"),
    ("[ignore, article, image_captions, main_content]", "filter image_captions reads removed_captions"),
])
def test_a_preset_in_a_useless_order_is_refused_naming_the_filter_and_its_need(tmp_path, chain, message):
    with pytest.raises(ConfigError) as err:
        C.load(write(tmp_path, f"presets: {{p: {{chain: {chain}}}}}"))
    assert message in str(err.value)


def test_a_chain_override_in_a_useless_order_is_refused(cfg):
    with pytest.raises(ConfigError, match=r"^chain = \['image_captions'\]: filter image_captions needs article"):
        cfg.resolve("reader", C.overrides_to_tree([("chain", ["image_captions"])]))
    assert cfg.resolve("reader", C.overrides_to_tree([("chain", ["main_content", "image_captions"])]))


def test_config_check_refuses_a_bad_order(tmp_path):
    import subprocess
    import sys

    path = write(tmp_path, "presets: {p: {chain: [removed_links, ignore]}}")
    r = subprocess.run([sys.executable, "-m", "pagesieve", "config", "check", "--config", str(path)],
                       capture_output=True, timeout=120)
    err = r.stderr.decode()
    assert r.returncode == 2, (r.stdout, err)
    assert err.startswith("pagesieve: error: presets.p.chain = ['removed_links', 'ignore']: filter removed_links "
                          "needs removed_links"), err


def test_declarations_name_real_handoff_fields():
    from dataclasses import fields

    from pagesieve.engine.order import check_declarations
    from pagesieve.engine.state import HANDOFFS, RunState

    assert set(HANDOFFS) <= {f.name for f in fields(RunState)}
    for cls in FILTERS.values():
        check_declarations(cls)
    with pytest.raises(ValueError, match="not a hand-off field"):
        check_declarations(type("Bad", (FILTERS["ads"],), {"requires": ("marks",)}))


def test_a_file_holds_only_what_it_changes_over_the_packaged_config(tmp_path):
    packaged = C.load()
    cfg = C.load(write(tmp_path, """
        users: {auth: true}
        proxy: {bypass_hosts: [bank.example]}
        presets:
          reader: {description: Mine}
          mine: {chain: [ignore, accessibility]}
    """))
    assert cfg.globals["users"].auth is True and cfg.globals["proxy"].bypass_hosts == ("bank.example",)
    assert cfg.globals["users"].settings_host == packaged.globals["users"].settings_host  # the rest: packaged
    assert list(cfg.presets) == [*packaged.presets, "mine"]
    assert cfg.presets["reader"]["chain"] == packaged.presets["reader"]["chain"]  # changed only where it says
    assert cfg.presets["reader"]["description"] == "Mine"
    assert cfg.resolve("declutter") == packaged.resolve("declutter")
    assert [(k, v) for k, _, v in C.differences(cfg)] == [
        ("proxy.bypass_hosts", ["bank.example"]), ("users.auth", True), ("presets.reader.description", "Mine"),
        ("presets.mine.chain", ["ignore", "accessibility"])]


def test_a_full_copy_of_the_packaged_config_differs_in_nothing(tmp_path):
    copy = tmp_path / "copy.yaml"
    copy.write_text(C.DEFAULT_CONFIG.read_text(encoding="utf-8"), encoding="utf-8")
    assert C.differences(C.load(copy)) == [] and C.differences(C.load()) == []


@pytest.mark.parametrize("url, ok", [
    ("", True), ("postgresql://pagesieve@db.internal:5432/pagesieve", True), ("postgres://u:pw@h/db", True),
    ("state.sqlite3", False),  # once silently a SQLite file named after the typo
    ("postgresql:/u@h/db", False), ("mysql://u@h/db", False), ("sqlite:///x.db", False),
])
def test_state_url_must_be_a_postgresql_url(tmp_path, url, ok):
    path = write(tmp_path, f"state: {{url: '{url}'}}")
    if ok:
        assert C.load(path).globals["state"].url == url
    else:
        with pytest.raises(ConfigError) as err:
            C.load(path)
        assert str(err.value).startswith(f"state.url = {url!r}: expected empty, or a URL postgresql://")
