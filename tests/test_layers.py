"""The package's layers, as its folders show them: imports run one way and never in a circle.

From the top down: the commands (``pagesieve/*.py``, ``evaluation/``) and the proxy (``proxy_addons/``) →
persistence (``store/``) → the engine (``engine/``) → the filters (``filters/``) → page analysis
(``analysis/``) and named-entity work (``nlp/``) → the bottom layer (``core/``: DOM helpers,
measurement, errors, the setting declaration). A module imports its own layer or a lower one; one
filter never imports another (the registry, ``filters/__init__.py``, and the shared ``filters.base``
aside). Every import counts, inside functions too; only imports under ``if TYPE_CHECKING:`` are
left out (they never run).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "pagesieve"

#: Layer of each folder, the bottom first; the package's own top-level modules are the commands.
LAYERS = {"core": 0, "analysis": 1, "nlp": 1, "filters": 2, "engine": 3, "store": 4, "proxy_addons": 5,
          "evaluation": 5, "": 5}
LAYER_NAMES = {0: "core", 1: "analysis/nlp", 2: "filters", 3: "engine", 4: "store", 5: "commands and proxy"}


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = ("pagesieve", *path.relative_to(PACKAGE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _is_type_checking(test: ast.expr) -> bool:
    return isinstance(test, (ast.Name, ast.Attribute)) and ast.unparse(test).endswith("TYPE_CHECKING")


def imports_of(name: str, path: Path) -> set[str]:
    """The pagesieve modules ``name`` imports (resolved to modules: ``from pagesieve.core import dom``
    is ``pagesieve.core.dom``), type-only imports left out."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def add(module: str, names: list[str]) -> None:
        if not module.startswith("pagesieve"):
            return
        subs = [f"{module}.{n}" for n in names if f"{module}.{n}" in MODULES]
        found.update(subs or [module])

    def walk(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                for sub in child.orelse:
                    walk(sub)
                continue
            if isinstance(child, ast.Import):
                for alias in child.names:
                    add(alias.name, [])
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")[: len(package.split(".")) - child.level + 1]
                    module = ".".join(base + ([child.module] if child.module else []))
                else:
                    module = child.module or ""
                add(module, [a.name for a in child.names])
            walk(child)

    walk(ast.parse(path.read_text(), str(path)))
    found.discard(name)
    return found


GRAPH = {name: imports_of(name, path) for name, path in MODULES.items()}


def layer(name: str) -> int:
    parts = name.split(".")
    folder = parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in LAYERS) else ""
    return LAYERS[folder]


def test_every_module_has_a_layer():
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    assert folders <= set(LAYERS), f"a package without a layer: {sorted(folders - set(LAYERS))}; add it to LAYERS"


def test_imports_run_down_the_layers():
    wrong = [f"{a} ({LAYER_NAMES[layer(a)]}) imports {b} ({LAYER_NAMES[layer(b)]})"
             for a, deps in GRAPH.items() for b in sorted(deps) if layer(b) > layer(a)]
    assert not wrong, "imports against the layer direction:\n" + "\n".join(wrong)


def test_a_filter_never_imports_another():
    filters = {m for m in MODULES if m.startswith("pagesieve.filters.")}
    shared = {"pagesieve.filters.base"}

    def owner(m: str) -> str:
        return ".".join(m.split(".")[:3])  # pagesieve.filters.<filter>: a filter package's modules are one filter

    wrong = [f"{a} imports {b}" for a in filters for b in sorted(GRAPH[a])
             if b in filters and b not in shared and owner(a) != owner(b)]
    assert not wrong, "\n".join(wrong)


def _cycles() -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in GRAPH[v]:
            if w not in GRAPH:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    return out


def test_no_import_circle():
    # A package imports its own modules (``filters/__init__.py``, the registry); a module of the
    # package importing the package back would be a circle and is not exempt.
    assert _cycles() == []


@pytest.mark.parametrize("source, expected", [
    ("from pagesieve.core import dom\n", {"pagesieve.core.dom"}),
    ("import pagesieve.engine.chain\n", {"pagesieve.engine.chain"}),
    ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pagesieve.engine import chain\n", set()),
    ("def f():\n    from pagesieve.store.state import open_database\n", {"pagesieve.store.state"}),
    ("from .base import Filter\n", {"pagesieve.filters.base"}),
])
def test_the_reader_of_imports(tmp_path, source, expected):
    path = tmp_path / "x.py"
    path.write_text(source)
    assert imports_of("pagesieve.filters.x", path) == expected


def test_the_check_sees_a_wrong_import(monkeypatch):
    monkeypatch.setitem(GRAPH, "pagesieve.core.dom", {"pagesieve.filters.base"})
    with pytest.raises(AssertionError, match="core.dom .core. imports pagesieve.filters.base .filters."):
        test_imports_run_down_the_layers()
    monkeypatch.setitem(GRAPH, "pagesieve.filters.base", {"pagesieve.core.dom"})
    with pytest.raises(AssertionError):
        test_no_import_circle()


#: A module longer than this is several modules; a function longer than this is several steps.
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80


def test_no_module_or_function_grows_past_its_size():
    long_modules, long_functions = [], []
    for name, path in MODULES.items():
        text = path.read_text()
        if text.count("\n") > MAX_MODULE_LINES:
            long_modules.append(f"{path.relative_to(PACKAGE)}: {text.count(chr(10))} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long_functions.append(f"{name}.{node.name}: {lines} lines")
    assert long_modules == [], f"split these modules (over {MAX_MODULE_LINES} lines)"
    assert long_functions == [], f"split these functions (over {MAX_FUNCTION_LINES} lines)"
