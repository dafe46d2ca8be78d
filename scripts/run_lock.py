"""Write requirements-run.lock: the entries of requirements.lock that running pagesieve needs.

``make run`` installs what running needs and nothing more (no test tools); ``make test`` adds the
rest. The run lock is not resolved again: it is the test lock's own pins and hashes, kept to the
closure of pyproject.toml's runtime dependencies (each package's requirements read from its installed
metadata, every platform's marker kept; only the extras asked for are followed), so the two locks
can never disagree. Run after refreshing the locks (README: "Dependencies and the lock files"):

    .venv/bin/python scripts/run_lock.py            # writes requirements-run.lock
    .venv/bin/python scripts/run_lock.py --check    # exit 1 when the file is not what it would write
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "requirements.lock"
TARGET = ROOT / "requirements-run.lock"
_ENTRY = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==")
#: The platforms a lock is for (pyproject's requires-python: 3.12 and later): a requirement kept for
#: any of them is kept.
ENVIRONMENTS = [{"python_version": v, "python_full_version": f"{v}.0", "sys_platform": sp, "platform_system": ps,
                 "os_name": on, "platform_machine": m, "implementation_name": "cpython",
                 "platform_python_implementation": "CPython"}
                for v in ("3.12", "3.13", "3.14") for sp, ps, on in (("linux", "Linux", "posix"),
                                                                     ("win32", "Windows", "nt"),
                                                                     ("darwin", "Darwin", "posix"))
                for m in ("x86_64", "aarch64", "AMD64", "arm64")]
HEADER = ("# The entries of requirements.lock that running pagesieve needs (its runtime dependencies and\n"
          "# theirs, every platform's): written by scripts/run_lock.py, never by hand.\n")


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def entries(text: str) -> dict[str, str]:
    """name -> its entries' lines (the pin, its hashes, its "via" comments) of a uv lock file; a package
    pinned apart for some Pythons (``; python_full_version >= '3.15'``) has one entry per pin."""
    out: dict[str, list[list[str]]] = {}
    current: list[str] | None = None
    for line in text.splitlines(keepends=True):
        m = _ENTRY.match(line)
        if m:
            current = [line]
            out.setdefault(canonical(m.group(1)), []).append(current)
        elif current is not None and line.startswith((" ", "\t")):
            current.append(line)
        else:
            current = None
    return {name: "".join("".join(e) for e in pins) for name, pins in out.items()}


def closure(roots: list[str]) -> set[str]:
    """The names of ``roots`` and everything they require, transitively, on any platform of
    :data:`ENVIRONMENTS` (only the extras asked for followed)."""
    seen: set[str] = set()
    todo = [(Requirement(r), ()) for r in roots]
    while todo:
        req, _ = todo.pop()
        name = canonical(req.name)
        key = name + "[" + ",".join(sorted(req.extras)) + "]"
        if key in seen:
            continue
        seen.add(key)
        try:
            requires = metadata.requires(req.name) or []
        except metadata.PackageNotFoundError:
            continue
        for spec in requires:
            dep = Requirement(spec)
            if dep.marker is None or any(dep.marker.evaluate({**env, "extra": extra})
                                         for env in ENVIRONMENTS for extra in (req.extras or {""})):
                todo.append((dep, ()))
    return {k.split("[")[0] for k in seen}


def build() -> str:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = closure(project["dependencies"])
    lock = entries(SOURCE.read_text(encoding="utf-8"))
    missing = sorted(n for n in wanted if n not in lock and n != "pagesieve")
    if missing:
        raise SystemExit(f"run_lock: {', '.join(missing)} needed at run time but not in {SOURCE.name}")
    return HEADER + "".join(lock[n] for n in sorted(wanted) if n in lock)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only check that the file is up to date")
    args = ap.parse_args(argv)
    text = build()
    if args.check:
        if not TARGET.exists() or TARGET.read_text(encoding="utf-8") != text:
            print(f"{TARGET.name} is out of date: run scripts/run_lock.py", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    print(f"{TARGET.name}: {text.count('==')} pins")
    return 0


if __name__ == "__main__":
    sys.exit(main())
