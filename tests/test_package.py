"""A wheel built from the repository, installed into a fresh virtualenv (not editable), runs
``pagesieve filter`` and ``pagesieve run`` with the configuration it ships."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import time
import zipfile
from pathlib import Path

import httpx
import pytest

from tests.conftest import REPO
from tests.proxy.conftest import AD_PAGE, Origin, Route, free_port

pytestmark = [pytest.mark.slow, pytest.mark.proxy]

#: Also what a build in place left (the compiled page table and its C file): the wheel's build makes them.
SKIP = shutil.ignore_patterns(".git", ".venv*", "node_modules", "build", "*.egg-info", "__pycache__",
                              ".pytest_cache", "benchmarks", "*.so", "_*.c")


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    shutil.copytree(REPO, src, ignore=SKIP, symlinks=True)
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp / "dist"), str(src)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    wheel = next((tmp / "dist").glob("pagesieve-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "pagesieve/config.yaml" in names and "pagesieve/api.py" in names
    for module in ("_pagetable", "_blocks", "_tagscan", "_attrs", "_paragraphs"):
        assert any(n.startswith(f"pagesieve/core/{module}") and n.endswith(".so") for n in names), names
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    py = venv / "bin" / "python"
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    # The dependencies come from this test's environment (a path, not its .pth files, so the
    # editable install of the repository is not seen); pagesieve itself only from the wheel.
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    r = subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "-q", str(wheel)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    home = tmp / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PAGESIEVE_CONFIG")}
    env.update(HOME=str(home), PYTHONUNBUFFERED="1")
    where = subprocess.run([str(py), "-c", "import pagesieve.engine.config as c; print(c.DEFAULT_CONFIG)"], cwd=str(home),
                           env=env, capture_output=True, text=True, timeout=120)
    assert where.returncode == 0, where.stderr
    assert where.stdout.strip().startswith(str(venv)), where.stdout  # the installed copy, not the repository
    compiled = subprocess.run([str(py), "-c", "import pagesieve.core.measure as m; print(m.COMPILED)"], cwd=str(home),
                              env=env, capture_output=True, text=True, timeout=120)
    assert compiled.stdout.strip() == "True", compiled.stderr  # the wheel's compiled page table is the one in use
    return venv, home, env


def test_installed_wheel_filters_a_page(installed):
    venv, home, env = installed
    page = home / "page.html"
    page.write_text(AD_PAGE)
    r = subprocess.run([str(venv / "bin" / "pagesieve"), "filter", "--output", "text", str(page)], cwd=str(home),
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "Harbour wall to be rebuilt" in r.stdout and "<p>" not in r.stdout


def test_installed_wheel_runs_the_proxy(installed):
    venv, home, env = installed
    origin = Origin({"/a.html": Route(headers={"Content-Type": "text/html; charset=utf-8"}, body=AD_PAGE.encode())},
                    host="127.0.0.3")
    port = free_port()
    log = home / "proxy.log"
    proc = subprocess.Popen([str(venv / "bin" / "pagesieve"), "run", "--listen-port", str(port), "--confdir",
                             str(home / "mitmproxy")], cwd=str(home), env=env, stdout=log.open("wb"),
                            stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while "worker processes ready" not in log.read_text(errors="replace"):
            assert proc.poll() is None, log.read_text(errors="replace")
            assert time.monotonic() < deadline, log.read_text(errors="replace")
            time.sleep(0.2)
        with httpx.Client(proxy=f"http://127.0.0.1:{port}", trust_env=False, timeout=60) as c:
            r = c.get(origin.url("/a.html"))
        assert r.status_code == 200 and r.headers["x-pagesieve"].startswith("filtered; preset=declutter")
        assert "Harbour wall to be rebuilt" in r.text and "id=\"menu\"" not in r.text
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
        origin.close()


def _names(requirements) -> set[str]:
    import re

    return {re.split(r"[\[<>=!~; ]", r.strip(), maxsplit=1)[0].lower().replace("_", "-") for r in requirements}


@pytest.mark.parametrize("lock, extras", [("requirements.lock", ["test"]),
                                          ("requirements-bench.lock", ["test", "bench"])])
def test_the_lock_files_pin_every_dependency_with_hashes(lock, extras):
    import re
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = _names(project["dependencies"]) | _names(r for e in extras for r in project["optional-dependencies"][e])
    text = (REPO / lock).read_text(encoding="utf-8")
    entries = re.findall(r"^([A-Za-z0-9_.\-]+)==(\S+?)(?: ;[^\\\n]*)? \\\n((?:    --hash=sha256:[0-9a-f]{64}(?: \\)?\n)+)",
                         text, re.M)
    pinned = {name.lower().replace("_", "-") for name, _, _ in entries}
    assert wanted <= pinned, f"{lock} lacks {sorted(wanted - pinned)}: refresh it (README: the lock files)"
    assert len(entries) == len(re.findall(r"^[A-Za-z0-9]", text, re.M)), "every pin carries its hashes"


def test_the_page_table_is_built_against_the_locked_lxml():
    """The compiled page table calls into the lxml it runs with through the headers of the one it was
    built with: the build requirement pins the version the locks install."""
    import re
    import tomllib

    requires = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["build-system"]["requires"]
    built = [r.split("==", 1)[1] for r in requires if r.startswith("lxml==")]
    for lock in ("requirements.lock", "requirements-bench.lock", "requirements-run.lock"):
        locked = re.findall(r"^lxml==(\S+) ", (REPO / lock).read_text(encoding="utf-8"), re.M)
        assert built == locked, f"pyproject.toml builds against lxml {built}, {lock} installs {locked}"


def test_the_run_lock_is_the_test_lock_kept_to_what_running_needs():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, str(REPO / "scripts" / "run_lock.py"), "--check"], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    run = (REPO / "requirements-run.lock").read_text(encoding="utf-8")
    for name in ("mitmproxy==", "spacy==", "lxml==", "zstandard==", "flask=="):
        assert f"\n{name}" in run
    for name in ("pytest==", "playwright==", "hypothesis==", "ruff==", "mypy=="):
        assert f"\n{name}" not in run
