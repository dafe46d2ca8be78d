"""``config.yaml``: the chain of each preset, every filter's settings, and global sections.

Layout of the file (see the file itself for every key, generated from the declarations)::

    preset: declutter              # the preset used when none is asked for
    output: {...}                  # OutputSettings defaults
    safety: {...}                  # SafetySettings defaults
    filters:                       # every filter's settings defaults
      link_lists: {ratio: ...}
    presets:                       # named overrides layered over the defaults
      declutter:
        description: ...
        chain: [ignore, ads, ...]  # order matters
        filters: {article: {mode: mark}}
    <global sections>              # proxy, users, ... (not per preset)

Everything is validated when the file is loaded — every preset is resolved once — so a
bad file stops start-up with one line naming the key, the bad value and what is allowed.
A run resolves a preset plus overrides (``--set filters.link_lists.ratio=0.5``) into a
:class:`ChainSpec`; :func:`build_chain` turns a spec into a ready :class:`~pagesieve.engine.chain.Chain`,
sharing filter instances between specs with equal settings.
"""

from __future__ import annotations

import copy
import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

import yaml

from pagesieve.core import settings as S
from pagesieve.core.errors import ConfigError
from pagesieve.core.lru import LRU
from pagesieve.core.settings import setting
from pagesieve.engine.chain import Chain
from pagesieve.engine.globals import GLOBAL_SECTIONS
from pagesieve.engine.order import check_order
from pagesieve.engine.output import OutputSettings
from pagesieve.filters import FILTERS

#: The default configuration, shipped inside the package (in the repository, a link to ./config.yaml).
DEFAULT_CONFIG = Path(__file__).resolve().parent.parent / "config.yaml"
PRESET_KEYS = ("description", "chain", "output", "safety", "filters")


@dataclass(frozen=True)
class SafetySettings:
    """Guards that keep a filter from destroying the page."""

    max_article_loss: float = setting(
        0.9, "A filter that would remove more than this fraction of the detected article's text "
             "(of the body's text before an article is found) is undone on that page.",
        minimum=0.0, maximum=1.0, group="advanced", scope="preset")


def _sections() -> dict[str, type]:
    """Per-preset sections (besides ``filters``) and their settings classes."""
    return {"output": OutputSettings, "safety": SafetySettings}


def global_sections() -> dict[str, type]:
    """Sections that apply to the whole process, not per preset (the proxy's, users')."""
    return GLOBAL_SECTIONS


@dataclass(frozen=True)
class ChainSpec:
    """A fully resolved, validated chain: hashable, picklable, cheap to compare."""

    preset: str
    chain: tuple[str, ...]
    filters: tuple[tuple[str, Any], ...]  # (name, settings instance) in chain order
    output: OutputSettings
    safety: SafetySettings

    def settings_of(self, name: str) -> Any:
        return dict(self.filters)[name]

    @property
    def fail_safe_policy(self) -> str | None:
        """The Content-Security-Policy a page must carry when it leaves unfiltered although this chain
        would have filtered it (a failure, a time-out, a page too large or too busy a proxy), so that
        what the chain would have taken out cannot run (:meth:`Filter.fail_safe_policy`); None: none."""
        policies = [p for name, settings in self.filters if (p := FILTERS[name].fail_safe_policy(settings))]
        return "; ".join(policies) or None


def _merge(base: dict, over: Mapping) -> dict:
    out = dict(base)
    for k, v in over.items():
        if isinstance(v, Mapping) and isinstance(out.get(k), Mapping):
            out[k] = _merge(dict(out[k]), v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def parse_override(item: str) -> tuple[str, Any]:
    """``key=value`` → (key, value). A declared setting's value is read by the settings page's
    converter (:func:`pagesieve.core.settings.from_text`), anything else (``chain``, ``preset``) as a
    YAML scalar or list."""
    if "=" not in item:
        raise ConfigError(f"--set {item!r}: expected key=value, e.g. filters.link_lists.ratio=0.5")
    key, raw = item.split("=", 1)
    key = key.strip()
    found = settings_class(key)
    if found is not None:
        cls, name = found
        field, tp = next((f, tp) for f, tp in S.fields(cls) if f.name == name)
        full = f"filters.{key}" if key.split(".")[0] in FILTERS else key
        return key, S.from_text(full, raw, tp, field.metadata)
    try:
        value = yaml.safe_load(raw) if raw.strip() else ""
    except yaml.YAMLError:
        value = raw
    return key, value


def overrides_to_tree(overrides: Iterable[tuple[str, Any]] | Mapping[str, Any]) -> dict:
    """Dotted keys → nested mapping. ``link_lists.ratio`` is short for ``filters.link_lists.ratio``."""
    items = overrides.items() if isinstance(overrides, Mapping) else overrides
    tree: dict = {}
    for key, value in items:
        parts = key.split(".")
        if parts[0] in FILTERS:
            parts = ["filters"] + parts
        if parts[0] == "chain" and isinstance(value, str):
            value = [v.strip() for v in value.split(",") if v.strip()]
        node = tree
        for p in parts[:-1]:
            node = node.setdefault(p, {})
            if not isinstance(node, dict):
                raise ConfigError(f"{key}: conflicting overrides")
        node[parts[-1]] = value
    return tree


class Config:
    """A loaded, validated configuration."""

    def __init__(self, data: Mapping[str, Any], source: str = "<config>") -> None:
        if not isinstance(data, Mapping):
            raise ConfigError(f"{source}: expected a mapping at the top level")
        self.source = source
        self.data = dict(data)
        allowed = {"preset", "presets", "filters", *_sections(), *global_sections()}
        unknown = sorted(set(self.data) - allowed)
        if unknown:
            raise ConfigError(f"{unknown[0]}: unknown top-level key; allowed: {', '.join(sorted(allowed))}")
        filters = self.data.get("filters") or {}
        if not isinstance(filters, Mapping):
            raise ConfigError(f"filters = {filters!r}: expected a mapping of filter name to settings")
        for name in filters:
            if name not in FILTERS:
                raise ConfigError(f"filters.{name}: unknown filter; available: {', '.join(sorted(FILTERS))}")
        self.presets: dict[str, dict] = {}
        for name, body in (self.data.get("presets") or {}).items():
            if not isinstance(body, Mapping):
                raise ConfigError(f"presets.{name} = {body!r}: expected a mapping with a chain")
            bad = sorted(set(body) - set(PRESET_KEYS))
            if bad:
                raise ConfigError(f"presets.{name}.{bad[0]}: unknown key; allowed: {', '.join(PRESET_KEYS)}")
            if "chain" not in body:
                raise ConfigError(f"presets.{name}.chain: missing; every preset names its chain of filters")
            self.presets[name] = dict(body)
        if not self.presets:
            raise ConfigError(f"presets: none defined in {source}; at least one preset is needed")
        self.default_preset = self.data.get("preset", next(iter(self.presets)))
        self._check_preset_name(self.default_preset, "preset")
        self.globals = {name: S.build(cls, self.data.get(name), name) for name, cls in global_sections().items()}
        for name in self.presets:  # validate every preset now, never per request
            self.resolve(name)

    def _check_preset_name(self, name: Any, key: str) -> None:
        if name not in self.presets:
            raise ConfigError(f"{key} = {name!r}: unknown preset; available: {', '.join(sorted(self.presets))}")

    def preset_for(self, *choices: str | None) -> str:
        """The preset that applies: the first of ``choices`` that is set, most specific first (a site
        rule's, the user's, the proxy's ``--preset``), else the config's ``preset``. The one place
        that decides it; an unknown name raises :class:`ConfigError`."""
        preset = next((c for c in choices if c), self.default_preset)
        self._check_preset_name(preset, "preset")
        return preset

    def resolve(self, preset: str | None = None, overrides: Mapping | None = None, *,
                check: bool = True) -> ChainSpec:
        """The chain spec for ``preset`` (default: the configured one) with ``overrides`` (a nested
        mapping as from :func:`overrides_to_tree`, may include ``preset``) layered on top. The
        chain's order is checked (:func:`~pagesieve.engine.order.check_order`) unless ``check`` is false
        (a spec wanted only for its settings, never run)."""
        overrides = dict(overrides or {})
        preset = self.preset_for(overrides.pop("preset", None), preset)
        body = self.presets[preset]
        bad = sorted(set(overrides) - {"chain", "filters", *_sections()})
        if bad:
            raise ConfigError(f"{bad[0]}: not a filter or a per-run section; allowed: chain, "
                              + ", ".join(_sections()) + ", filters.<name> with <name> one of "
                              + ", ".join(sorted(FILTERS)))
        merged = {"chain": body["chain"]}
        for section in ("filters", *_sections()):
            merged[section] = _merge(_merge(self.data.get(section) or {}, body.get(section) or {}),
                                     overrides.get(section) or {})
        if "chain" in overrides:
            merged["chain"] = overrides["chain"]
        chain = merged["chain"]
        where = "chain" if "chain" in overrides else f"presets.{preset}.chain"
        if not isinstance(chain, (list, tuple)) or not all(isinstance(c, str) for c in chain):
            raise ConfigError(f"{where} = {chain!r}: expected a list of filter names")
        for name in chain:
            if name not in FILTERS:
                raise ConfigError(f"{where}: unknown filter {name!r}; available: {', '.join(sorted(FILTERS))}")
        if len(set(chain)) != len(chain):
            raise ConfigError(f"{where} = {list(chain)!r}: a filter may appear only once")
        if check:
            check_order([FILTERS[name] for name in chain], where)  # each filter has what it requires
        for name in merged["filters"]:
            if name not in FILTERS:
                raise ConfigError(f"filters.{name}: unknown filter; available: {', '.join(sorted(FILTERS))}")
        built = {name: S.build(FILTERS[name].Settings, merged["filters"].get(name), f"filters.{name}")
                 for name in FILTERS}
        return ChainSpec(
            preset=preset, chain=tuple(chain), filters=tuple((n, built[n]) for n in chain),
            output=S.build(OutputSettings, merged["output"], "output"),
            safety=S.build(SafetySettings, merged["safety"], "safety"))


def settings_class(key: str) -> tuple[type, str] | None:
    """The settings class declaring dotted ``key`` and the field's name, or None if ``key`` names no
    declared setting. ``link_lists.ratio`` is short for ``filters.link_lists.ratio``."""
    parts = key.split(".")
    if parts[0] in FILTERS:
        parts = ["filters"] + parts
    if len(parts) == 3 and parts[0] == "filters" and parts[1] in FILTERS:
        cls, name = FILTERS[parts[1]].Settings, parts[2]
    elif len(parts) == 2 and parts[0] in {**_sections(), **global_sections()}:
        cls, name = {**_sections(), **global_sections()}[parts[0]], parts[1]
    else:
        return None
    return (cls, name) if any(f.name == name for f in dataclasses.fields(cls)) else None


def scope_of(key: str) -> str | None:
    """The scope (:data:`pagesieve.core.settings.SCOPES`) of dotted setting ``key``; None if no such setting."""
    found = settings_class(key)
    return None if found is None else S.scope_of(*found)


def check_user_key(key: str) -> None:
    """Raise :class:`ConfigError` unless ``key`` is a setting a user may change for themselves."""
    scope = scope_of(key)
    if scope == S.USER:
        return
    if scope is None:
        raise ConfigError(f"{key}: not a setting a user may change; user settings are listed on the "
                          "settings page (filters.<name>.<setting>, output.<setting>)")
    raise ConfigError(f"{key}: {scope}-scope setting, set by the proxy's operator in config.yaml; "
                      "a user may change only user-scope settings")


def _read(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise ConfigError(f"cannot read config file {path}: {err.strerror or err}") from err
    try:
        return yaml.load(text, Loader=_LOADER) or {}
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise ConfigError(f"{path}: not valid YAML{where}: {getattr(err, 'problem', err)}") from err


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_DEFAULT_DATA: dict[tuple[str, int], dict] = {}


def default_data() -> dict:
    """The packaged ``config.yaml`` as data (read once per change of the file); a copy."""
    key = (str(DEFAULT_CONFIG), DEFAULT_CONFIG.stat().st_mtime_ns)
    if key not in _DEFAULT_DATA:
        _DEFAULT_DATA.clear()
        _DEFAULT_DATA[key] = _read(DEFAULT_CONFIG)
    return copy.deepcopy(_DEFAULT_DATA[key])


def is_default_file(path: str | os.PathLike) -> bool:
    try:
        return Path(path).resolve() == DEFAULT_CONFIG.resolve()
    except OSError:
        return False


def load(path: str | os.PathLike | None = None) -> Config:
    """Load and validate a config file (default: ``$PAGESIEVE_CONFIG`` or the packaged ``config.yaml``).

    A file of one's own holds only what it changes: it is layered over the packaged ``config.yaml``
    (mappings merge key by key, any other value — a list, a chain — replaces the default; a preset of
    the same name is changed only where the file says), so turning logins on is ``users: {auth: true}``.
    ``pagesieve config show`` prints the merged result, ``pagesieve config diff`` what differs."""
    path = Path(path or os.environ.get("PAGESIEVE_CONFIG") or DEFAULT_CONFIG)
    data = _read(path)
    if not isinstance(data, Mapping):
        raise ConfigError(f"{path}: expected a mapping at the top level")
    if not is_default_file(path):
        data = _merge(default_data(), data)
    return Config(data, source=str(path))


def _flatten(data: Any, prefix: str = "") -> dict[str, Any]:
    if not isinstance(data, Mapping) or (prefix and not data):
        return {prefix: data}
    out: dict[str, Any] = {}
    for key, value in data.items():
        out.update(_flatten(value, f"{prefix}.{key}" if prefix else str(key)))
    return out


def differences(cfg: Config) -> list[tuple[str, Any, Any]]:
    """(dotted key, packaged default or None, value) of every value of ``cfg`` that is not the packaged
    ``config.yaml``'s, in the configuration's order."""
    base = _flatten(default_data())
    return [(key, base.get(key), value) for key, value in _flatten(cfg.data).items()
            if key not in base or base[key] != value]


#: Filter instances kept for reuse (rule lists and models load once per process). Users' settings
#: pick instances, so the cache is bounded: the 8 shipped presets use about 40; a user's changed
#: threshold adds one instance of that filter.
MAX_FILTER_INSTANCES = 256
_INSTANCES: LRU[tuple[str, Any], Any] = LRU(MAX_FILTER_INSTANCES)


def build_chain(spec: ChainSpec):
    """A ready :class:`~pagesieve.engine.chain.Chain` for ``spec``; filter instances are shared
    between chains with equal settings (rule lists and models load once per process)."""
    filters = []
    for name, cfg in spec.filters:
        key = (name, cfg)
        inst = _INSTANCES.get(key)
        if inst is None:
            inst = FILTERS[name](cfg)
            _INSTANCES[key] = inst
        filters.append(inst)
    return Chain(filters, spec.output, spec.safety, preset=spec.preset)


def render_defaults() -> str:
    """The generated block of ``config.yaml``: every declared setting with its doc and default."""
    def block(cls: type, indent: str) -> list[str]:
        lines = []
        for d in S.describe(cls):
            lines.append(f"{indent}# {d['doc']} ({d['allowed']})")
            value = yaml.safe_dump(d["default"], default_flow_style=True, width=1000).strip()
            if value.endswith("\n..."):
                value = value[:-4].strip()
            value = value.removesuffix("...").strip()
            lines.append(f"{indent}{d['name']}: {value}")
        return lines

    out = []
    for name, cls in {**_sections(), **global_sections()}.items():
        out.append(f"{name}:")
        out.extend(block(cls, "  "))
        out.append("")
    out.append("filters:")
    for name, flt in FILTERS.items():
        out.append(f"  # {flt.summary}")
        body = block(flt.Settings, "    ")
        out.append(f"  {name}:" + ("" if body else " {}"))
        out.extend(body)
    return "\n".join(out) + "\n"


BEGIN_MARK = "# ---- BEGIN GENERATED DEFAULTS (pagesieve config regenerate; edit the declarations, not this block) ----"
END_MARK = "# ---- END GENERATED DEFAULTS ----"


def regenerate(path: str | os.PathLike = DEFAULT_CONFIG) -> bool:
    """Rewrite the generated block of ``path`` from the declarations; True if it changed."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    try:
        head, rest = text.split(BEGIN_MARK + "\n", 1)
        _, tail = rest.split(END_MARK, 1)
    except ValueError as err:
        raise ConfigError(f"{path}: the generated-defaults markers are missing") from err
    new = head + BEGIN_MARK + "\n" + render_defaults() + END_MARK + tail
    if new != text:
        path.write_text(new, encoding="utf-8")
    return new != text


def generated_block(path: str | os.PathLike = DEFAULT_CONFIG) -> str:
    """The generated block as it stands in ``path`` (for the drift test)."""
    text = Path(path).read_text(encoding="utf-8")
    return text.split(BEGIN_MARK + "\n", 1)[1].split(END_MARK, 1)[0]
