"""The package runs with what it declares.

* Every third-party module that ``pagesieve/`` imports belongs to a distribution that
  ``pyproject.toml`` declares itself — not one that arrives only because mitmproxy or spaCy depends
  on it today (mitmproxy 12.3 stopped bringing ``zstandard``; a fresh ``pip install`` then died at
  start). Optional parts are imported inside a function and declared in their extra.
* A wheel built from the repository, installed into a clean virtualenv beside exactly its runtime
  dependencies (no test or bench extras), serves a filtered page through ``pagesieve run`` and
  through ``mitmdump -s …/proxy_addons/script.py``. The dependencies are the distributions of this
  test's environment (installed from ``requirements.lock``, so the locked versions) reachable from
  the wheel's ``Requires-Dist``: the clean venv sees those files and nothing else. No network.
"""

from __future__ import annotations

import ast
import importlib.metadata as md
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
import zipfile
from pathlib import Path

import httpx
import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.conftest import REPO
from tests.proxy.conftest import AD_PAGE, Origin, Route, free_port, terminate

#: Imports of optional parts: module -> the extra that declares it. They must be imported inside a
#: function (the package starts without them) and say how to install them when missing.
OPTIONAL_IMPORTS = {"psycopg": "postgres", "psycopg_pool": "postgres"}
SKIP = shutil.ignore_patterns(".git", ".venv*", "node_modules", "build", "*.egg-info", "__pycache__",
                              ".pytest_cache", "benchmarks")


def _imports() -> dict[str, dict[str, bool]]:
    """Top-level names of the absolute imports of every module of pagesieve/: name -> {file: at
    module level}."""
    out: dict[str, dict[str, bool]] = {}
    for path in sorted((REPO / "pagesieve").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        in_function: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                in_function.update(id(n) for n in ast.walk(node) if n is not node)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top in sys.stdlib_module_names or top == "pagesieve":
                    continue
                seen = out.setdefault(top, {})
                rel = str(path.relative_to(REPO))
                seen[rel] = seen.get(rel, False) or id(node) not in in_function
    return out


def _declared(requirements: list[str]) -> set[str]:
    """Distributions these requirements name, plus those an extra of theirs adds (``psycopg[pool]``
    declares ``psycopg-pool``)."""
    out = set()
    for text in requirements:
        req = Requirement(text)
        out.add(canonicalize_name(req.name))
        for extra in req.extras:
            for sub in md.requires(req.name) or []:
                r = Requirement(sub)
                if r.marker is not None and r.marker.evaluate({"extra": extra}):
                    out.add(canonicalize_name(r.name))
    return out


def test_every_third_party_import_is_a_declared_dependency():
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    runtime = _declared(project["dependencies"])
    owners = md.packages_distributions()
    imports = _imports()
    assert {"lxml", "mitmproxy", "zstandard", "flask"} <= set(imports)  # the scan sees the package
    problems = []
    for module, files in sorted(imports.items()):
        dists = {canonicalize_name(d) for d in owners.get(module, [])}
        assert dists, f"{module} (imported by {sorted(files)}) is not installed here"
        extra = OPTIONAL_IMPORTS.get(module)
        if extra is None:
            if not dists & runtime:
                problems.append(f"{module} ({', '.join(sorted(dists))}) imported by {sorted(files)} "
                                f"is not a runtime dependency in pyproject.toml")
        else:
            if not dists & _declared(project["optional-dependencies"][extra]):
                problems.append(f"{module} is not declared in the extra {extra!r}")
            top = [f for f, at_top in files.items() if at_top]
            if top:
                problems.append(f"{module} is optional ({extra!r}) but imported at module level by {top}")
    assert not problems, "\n".join(problems)


def test_the_scan_finds_an_undeclared_import(tmp_path, monkeypatch):
    """The check above can fail: a module importing a distribution that is not declared is named."""
    fake = tmp_path / "pagesieve"
    fake.mkdir()
    (fake / "m.py").write_text("import zstandard\nimport yaml\n\ndef f():\n    import psycopg\n")
    monkeypatch.setattr(sys.modules[__name__], "REPO", tmp_path)
    found = _imports()
    assert found == {"zstandard": {"pagesieve/m.py": True}, "yaml": {"pagesieve/m.py": True},
                     "psycopg": {"pagesieve/m.py": False}}
    assert "zstandard" not in _declared(["PyYAML>=6", "brotli"])
    assert "psycopg-pool" in _declared(["psycopg[binary,pool]>=3.2"])


def _runtime_closure(requirements: list[str]) -> dict[str, md.Distribution]:
    """The installed distributions that these requirements need, transitively, without extras
    unless a requirement asks for one; markers evaluated for this interpreter."""
    out: dict[str, md.Distribution] = {}
    seen: set[tuple[str, str]] = set()
    todo = [(Requirement(r), "") for r in requirements]
    while todo:
        req, extra = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": extra}):
            continue
        dist = md.distribution(req.name)
        assert not req.specifier or dist.version in req.specifier, f"{req} but {dist.version} is installed"
        out[canonicalize_name(req.name)] = dist
        for want in {"", *req.extras} - {e for n, e in seen if n == canonicalize_name(req.name)}:
            seen.add((canonicalize_name(req.name), want))
            todo.extend((Requirement(sub), want) for sub in dist.requires or [])
    return out


def _site_of(venv: Path) -> Path:
    return Path(subprocess.run([str(venv / "bin" / "python"), "-c",
                                "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())


@pytest.fixture(scope="module")
def clean_install(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("clean")
    src = tmp / "src"  # a copy: building in place leaves build/ and *.egg-info in the repository
    shutil.copytree(REPO, src, ignore=SKIP, symlinks=True)
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp / "dist"), str(src)],
                       capture_output=True, text=True, timeout=600, cwd=str(tmp))
    assert r.returncode == 0, r.stderr[-3000:]
    wheel = next((tmp / "dist").glob("pagesieve-*.whl"))
    with zipfile.ZipFile(wheel) as z:
        meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        requires = [v for k, v in re.findall(r"^(Requires-Dist): (.+)$", z.read(meta).decode(), re.M)]
    closure = _runtime_closure(requires)
    assert not {"pytest", "playwright", "hypothesis", "mypy"} & set(closure)  # no test extras
    home = tmp / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PAGESIEVE_CONFIG")}
    env.update(HOME=str(home), PYTHONUNBUFFERED="1")
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    # Every file of every runtime dependency, linked one by one into a directory the venv reads
    # through a .pth: what no declared dependency installs is not there.
    deps = tmp / "deps"
    count = 0
    for dist in closure.values():
        base = Path(str(dist.locate_file("")))
        for f in dist.files or []:
            if str(f).startswith(".."):
                continue  # scripts and data outside site-packages
            src, dst = base / f, deps / f
            if src.is_file() and not dst.exists():
                dst.parent.mkdir(parents=True, exist_ok=True)
                dst.symlink_to(src)
                count += 1
    assert count > 1000
    (_site_of(venv) / "runtime-deps.pth").write_text(f"{deps}\n")
    r = subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--no-deps",
                        "--no-index", "-q", str(wheel)], env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    where = subprocess.run([str(venv / "bin" / "python"), "-c",
                            "import pagesieve, zstandard, flask; print(pagesieve.__file__)"],
                           cwd=str(home), env=env, capture_output=True, text=True, timeout=120)
    assert where.returncode == 0, where.stderr
    package = Path(where.stdout.strip()).parent
    assert package.is_relative_to(venv), package  # the installed copy, not the repository
    return venv, package, home, env, closure


@pytest.mark.slow
def test_the_clean_venv_lacks_what_is_not_a_runtime_dependency(clean_install):
    venv, _, home, env, closure = clean_install
    assert "pytest" not in closure
    r = subprocess.run([str(venv / "bin" / "python"), "-c", "import pytest"], cwd=str(home), env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and "No module named 'pytest'" in r.stderr


def _serve_one_page(command: list[str], home: Path, env: dict) -> None:
    origin = Origin({"/a.html": Route(headers={"Content-Type": "text/html; charset=utf-8"}, body=AD_PAGE.encode())},
                    host="127.0.0.3")
    port = free_port()
    log = home / f"proxy-{port}.log"
    proc = subprocess.Popen([c.replace("{port}", str(port)) for c in command], cwd=str(home), env=env,
                            stdout=log.open("wb"), stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 180
        while "worker processes ready" not in log.read_text(errors="replace"):
            assert proc.poll() is None, log.read_text(errors="replace")
            assert time.monotonic() < deadline, log.read_text(errors="replace")
            time.sleep(0.2)
        with httpx.Client(proxy=f"http://127.0.0.1:{port}", trust_env=False, timeout=60) as c:
            r = c.get(origin.url("/a.html"))
        assert r.status_code == 200 and r.headers["x-pagesieve"].startswith("filtered; preset=declutter"), \
            (r.headers, log.read_text(errors="replace"))
        assert "Harbour wall to be rebuilt" in r.text and 'id="menu"' not in r.text
        assert "Traceback" not in log.read_text(errors="replace")
    finally:
        terminate(proc, 30)
        origin.close()


@pytest.mark.slow
@pytest.mark.proxy
def test_pagesieve_run_from_a_clean_install(clean_install):
    venv, _, home, env, _ = clean_install
    _serve_one_page([str(venv / "bin" / "pagesieve"), "run", "--listen-port", "{port}", "--confdir",
                     str(home / "mitmproxy-run")], home, env)


@pytest.mark.slow
@pytest.mark.proxy
def test_mitmdump_script_from_a_clean_install(clean_install):
    venv, package, home, env, _ = clean_install
    # mitmproxy's own entry point from the venv's interpreter (its console scripts are not linked)
    _serve_one_page([str(venv / "bin" / "python"), "-c", "from mitmproxy.tools.main import mitmdump; mitmdump()",
                     "-s", str(package / "proxy_addons" / "script.py"), "-p", "{port}", "--set",
                     f"confdir={home / 'mitmproxy-dump'}"], home, env)
