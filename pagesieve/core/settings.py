"""Declaring settings once, and validating values against the declarations.

Every group of settings (a filter's, the output's, the proxy's) is a frozen dataclass whose
fields are made with :func:`setting`: a default, a one-line doc, and optional bounds or
choices. The same declaration validates ``config.yaml``, presets, ``--set key=value``
overrides and the settings page, and generates the documented defaults in ``config.yaml``.
"""

from __future__ import annotations

import dataclasses
import math
import re
import types
import typing
from typing import Any, Literal, Mapping

import yaml

from pagesieve.core.errors import ConfigError

#: Who may set a setting (see :func:`setting`).
OPERATOR, PRESET, USER = "operator", "preset", "user"
SCOPES = (OPERATOR, PRESET, USER)
#: The groups a setting may be declared in: what a filter leaves out of every page, its finer
#: thresholds, the accessibility repairs, how the result is written, and the operator's sections.
GROUPS = ("ignore", "advanced", "accessibility", "output", "proxy", "users")


#: Size caps of list and string settings when a declaration gives none (see :func:`setting`), by
#: scope. What a person sets for themselves runs on every page they load, in workers every user
#: shares: 5,000 cue phrases (a 123 KB form) added 1.6 s of worker time to each of that user's pages.
#: (entries in a list, characters in one entry or in a string)
DEFAULT_CAPS = {OPERATOR: (10_000, 4096), PRESET: (1000, 1000), USER: (50, 200)}


#: The most text a list setting's field may hold before it is read at all (a pasted book is refused in
#: one line; a list of too many entries within this is read and refused by its count).
LIST_TEXT_CHARS = 200_000


def setting(default: Any, doc: str, *, minimum: float | None = None,
            maximum: float | None = None, choices: tuple | None = None, group: str | None = None,
            pattern: tuple[str, str] | None = None, scope: str = OPERATOR,
            max_items: int | None = None, max_chars: int | None = None) -> Any:
    """A settings field: default value, one-line doc, optional bounds/choices, and its scope.

    ``pattern`` is (regular expression a string value must match in full, what that allows in
    words): the one check of such a value, wherever it is set.

    ``max_items`` (a list's entries) and ``max_chars`` (the characters of a string, or of each
    entry of a list) cap a value's size; the scope's :data:`DEFAULT_CAPS` apply where not given.

    ``group`` is one of :data:`GROUPS` (checked here: a misspelt group would hide the setting
    from the settings page); a user-scope setting must have one.
    ``scope`` says who may set it:

    - ``"operator"`` (the default): only ``config.yaml`` and the operator's command line — sources,
      paths, models, caches, limits, anything that reaches the network, the disk or an import;
    - ``"preset"``: what shapes a preset's chain (a filter's mode); ``config.yaml`` and its presets;
    - ``"user"``: what a person may change for themselves (the settings page, their profile).

    The default is ``"operator"`` because forgetting to widen a setting costs a field missing
    from the settings page (seen at once, and pinned by a test), while forgetting to narrow one
    would let any proxy client steer the proxy's network, disk or imports.
    """
    if isinstance(default, list):
        default = tuple(default)
    if scope not in SCOPES:
        raise ValueError(f"scope = {scope!r}: expected one of {', '.join(SCOPES)}")  # a declaration bug
    if group is not None and group not in GROUPS or group is None and scope == USER:
        raise ValueError(f"group = {group!r}: expected one of {', '.join(GROUPS)}"
                         + (" (a user-scope setting needs one)" if scope == USER else ""))  # a declaration bug
    items, chars = DEFAULT_CAPS[scope]
    return dataclasses.field(default=default, metadata={
        "doc": doc, "min": minimum, "max": maximum, "choices": choices, "group": group, "scope": scope,
        "pattern": (re.compile(pattern[0]), pattern[1]) if pattern else None,
        "max_items": max_items or items, "max_chars": max_chars or chars,
        # caps a person could run into are said where the setting is documented and shown
        "show_caps": scope == USER or max_items is not None or max_chars is not None})


def fields(cls: type) -> list[tuple[dataclasses.Field, Any]]:
    """The dataclass fields of ``cls`` with their resolved type annotations."""
    hints = typing.get_type_hints(cls)
    return [(f, hints[f.name]) for f in dataclasses.fields(cls)]


def _allowed(tp: Any, meta: Mapping[str, Any]) -> str:
    lo, hi, choices = meta.get("min"), meta.get("max"), meta.get("choices")
    origin = typing.get_origin(tp)
    if origin is Literal:
        return "one of " + ", ".join(repr(c) for c in typing.get_args(tp))
    if choices:
        return "one of " + ", ".join(repr(c) for c in choices)
    if meta.get("pattern"):
        return meta["pattern"][1]
    if tp is bool:
        return "true or false"
    if tp in (int, float):
        kind = "an integer" if tp is int else "a number"
        if lo is not None and hi is not None:
            return f"{kind} from {lo} to {hi}"
        if lo is not None:
            return f"{kind} >= {lo}"
        if hi is not None:
            return f"{kind} <= {hi}"
        return kind
    if tp is str:
        return f"a string of at most {meta['max_chars']} characters" if meta.get("show_caps") else "a string"
    if origin is tuple:
        if meta.get("show_caps"):
            return f"a list of at most {meta['max_items']} strings of at most {meta['max_chars']} characters"
        return "a list of strings"
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in typing.get_args(tp) if a is not type(None)]
        return _allowed(inner[0], meta) + " or null"
    return str(tp)


def _convert(key: str, value: Any, tp: Any, meta: Mapping[str, Any]) -> Any:
    def bad() -> ConfigError:
        return ConfigError(f"{key} = {value!r}: expected {_allowed(tp, meta)}")

    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        if value is None:
            return None
        inner = [a for a in typing.get_args(tp) if a is not type(None)]
        return _convert(key, value, inner[0], meta)
    if origin is Literal:
        if value not in typing.get_args(tp):
            raise bad()
        return value
    if tp is bool:
        if not isinstance(value, bool):
            raise bad()
        return value
    if tp is int or tp is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise bad()
        if tp is int:
            if isinstance(value, float) and not value.is_integer():
                raise bad()
            value = int(value)
        else:
            value = float(value)
        lo, hi = meta.get("min"), meta.get("max")
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise bad()
        return value
    if tp is str:
        if not isinstance(value, str):
            raise bad()
        choices = meta.get("choices")
        if choices and value not in choices:
            raise bad()
        pattern = meta.get("pattern")
        if pattern and not pattern[0].fullmatch(value):
            raise bad()
        _check_chars(key, value, meta)
        return value
    if origin is tuple:
        if isinstance(value, str) or not isinstance(value, (list, tuple)):
            raise bad()
        if not all(isinstance(v, str) for v in value):
            raise bad()
        choices = meta.get("choices")
        if choices and any(v not in choices for v in value):
            raise bad()
        most = meta.get("max_items")
        if most is not None and len(value) > most:
            raise ConfigError(f"{key}: {len(value)} entries: at most {most} are allowed")
        for i, v in enumerate(value):
            _check_chars(f"{key} entry {i + 1}", v, meta)
        return tuple(value)
    raise ConfigError(f"{key}: unsupported setting type {tp!r}")  # a declaration bug


def _check_chars(key: str, value: str, meta: Mapping[str, Any]) -> None:
    """ConfigError when ``value`` is longer than the setting's ``max_chars`` (its start quoted)."""
    most = meta.get("max_chars")
    if most is not None and len(value) > most:
        raise ConfigError(f"{key} = {value[:40]!r}...: {len(value)} characters: at most {most} are allowed")


def build(cls: type, values: Mapping[str, Any] | None, prefix: str) -> Any:
    """An instance of settings class ``cls`` from ``values`` layered over its defaults.

    Raises :class:`ConfigError` naming ``prefix.key``, the value, and what is allowed.
    """
    values = dict(values or {})
    if not isinstance(values, dict):
        raise ConfigError(f"{prefix} = {values!r}: expected a mapping of settings")
    declared = fields(cls)
    names = {f.name for f, _ in declared}
    unknown = sorted(set(values) - names)
    if unknown:
        raise ConfigError(f"{prefix}.{unknown[0]}: unknown setting; allowed: {', '.join(sorted(names))}")
    kwargs = {}
    for f, tp in declared:
        if f.name in values:
            kwargs[f.name] = _convert(f"{prefix}.{f.name}", values[f.name], tp, f.metadata)
    return cls(**kwargs)


def as_dict(instance: Any) -> dict[str, Any]:
    """Plain (YAML/JSON-ready) values of a settings instance."""
    out = {}
    for f in dataclasses.fields(instance):
        v = getattr(instance, f.name)
        out[f.name] = list(v) if isinstance(v, tuple) else v
    return out


def describe(cls: type) -> list[dict[str, Any]]:
    """One entry per setting: name, default, doc, what is allowed, group (for docs and UIs)."""
    out = []
    for f, tp in fields(cls):
        d = f.default
        out.append({"name": f.name, "default": list(d) if isinstance(d, tuple) else d,
                    "doc": f.metadata.get("doc", ""), "allowed": _allowed(tp, f.metadata),
                    "group": f.metadata.get("group"), "scope": f.metadata.get("scope", OPERATOR),
                    "type": tp, "meta": f.metadata})
    return out


def scope_of(cls: type, name: str) -> str:
    """The scope of setting ``name`` of settings class ``cls`` (KeyError if not declared)."""
    for f in dataclasses.fields(cls):
        if f.name == name:
            return f.metadata.get("scope", OPERATOR)
    raise KeyError(name)


#: Words a person types for yes and no (a checkbox sends "on"; an absent one sends nothing).
_TRUE = frozenset({"on", "true", "yes", "1"})
_FALSE = frozenset({"", "off", "false", "no", "0"})


def from_text(key: str, raw: str | None, tp: Any, meta: Mapping[str, Any]) -> Any:
    """The value of setting ``key`` (type ``tp``, declaration ``meta``) from text a person typed:
    the one string-to-value converter of the settings page and of ``--set`` (as mitmproxy's
    ``parse_setval`` serves its command line and its UIs). ``None`` is a field that was not sent (an
    unticked checkbox). Numbers are read as decimals (``nan`` and ``inf`` are refused), lists are
    comma- or line-separated (or ``[...]`` as in YAML), an empty field of an optional setting (or
    ``null``) is null; the value is
    then checked as :func:`build` checks it. Raises :class:`ConfigError` naming the key, what was
    typed and what is allowed."""
    def bad(shown: Any) -> ConfigError:
        return ConfigError(f"{key} = {shown!r}: expected {_allowed(tp, meta)}")

    text = "" if raw is None else raw
    limit = meta.get("max_chars") or DEFAULT_CAPS[OPERATOR][1]
    origin = typing.get_origin(tp)
    if origin is tuple:
        # a list is read (cheap) and then refused by what is wrong with it: too many entries, one too long
        limit = max((limit + 1) * (meta.get("max_items") or DEFAULT_CAPS[OPERATOR][0]), LIST_TEXT_CHARS)
    if len(text) > max(limit, 100):  # before any parsing: a pasted book is refused in one line
        raise ConfigError(f"{key}: {len(text)} characters; at most {limit} are allowed")
    if origin in (typing.Union, types.UnionType):
        if text.strip().lower() in ("", "null", "none", "~"):
            return None
        inner = [a for a in typing.get_args(tp) if a is not type(None)][0]
        return _convert(key, from_text(key, raw, inner, meta), tp, meta)
    if tp is bool:
        word = text.strip().lower()
        if word not in _TRUE | _FALSE:
            raise bad(text)
        return word in _TRUE
    if tp is int or tp is float:
        word = text.strip()
        try:
            value: Any = float(word) if tp is float else int(word)
        except ValueError:
            try:
                value = float(word)  # "3.0" or "1e3" for an integer: _convert takes whole numbers
            except ValueError:
                raise bad(text) from None
        if not math.isfinite(value):
            raise bad(text)
        return _convert(key, value, tp, meta)
    if origin is tuple:
        if text.strip().startswith("["):  # a list written as on the command line: ["a b:2", "c"]
            try:
                value = yaml.safe_load(text)
            except yaml.YAMLError:
                raise bad(text) from None
            return _convert(key, value, tp, meta)
        return _convert(key, [v.strip() for v in re.split(r"[,\n]", text) if v.strip()], tp, meta)
    return _convert(key, text.strip(), tp, meta)
