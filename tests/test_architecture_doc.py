"""docs/ARCHITECTURE.md stays true: its map names every module, and the chains it quotes are config.yaml's."""

import re

from pagesieve.engine import config as C
from tests.conftest import REPO

DOC = (REPO / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
PACKAGE = REPO / "pagesieve"


def _map() -> str:
    start = DOC.index("```\nCommands and the public face")
    return DOC[start:DOC.index("```\n", start + 4)]


def _listed() -> set[str]:
    """The module paths of the map: a folder line (``filters/``) sets the folder, an indented
    ``name.py`` line (or ``name/`` for a package, then ``name/module.py``) is a module in it."""
    listed, folder = set(), ""
    for line in _map().splitlines():
        top = re.match(r"^(\w+)/\s", line)
        if top:
            folder = top.group(1) + "/"
            continue
        if line and not line.startswith(" "):
            folder = ""  # a heading line: the top-level modules follow
            continue
        entry = re.match(r"^\s+([\w/]+\.py)\s", line)
        if entry:
            listed.add(folder + entry.group(1))
    return listed


def test_the_map_names_every_module():
    modules = {str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")}
    listed = _listed()
    packages = {m for m in modules if m.endswith("/__init__.py") and m.count("/") == 1}
    assert sorted(modules - listed - packages) == [], "modules missing from docs/ARCHITECTURE.md's map"
    assert sorted(listed - modules) == [], "the map lists modules that do not exist"


def test_the_quoted_chains_are_the_presets():
    quoted = dict(re.findall(r"^- `([\w-]+)`: ([\w, ]+)$", DOC, re.M))
    cfg = C.load()
    actual = {name: ", ".join(cfg.resolve(name, {}).chain) for name in cfg.presets}
    assert quoted == actual
