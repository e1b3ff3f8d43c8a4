#!/usr/bin/env bash
# Set up everything the product and its tests need: a venv with the pinned dependencies and the
# project itself (editable, so `memengine` is on .venv/bin), and Debian's chromium for the browser
# test. Safe to run again: when the dependency files have not changed since the last successful run,
# pip is not called at all.
#
# Steps are functions so that more can be added (e.g. a PostgreSQL server for server mode): write
# `setup_xyz() { ...; }` below and call it at the bottom. Each must be idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
VENV=.venv
STAMP=$VENV/.memengine-setup  # hash of the dependency files the venv was last built from

setup_venv() {
  if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
  fi
}

setup_python_packages() {
  local want
  want=$("$VENV/bin/python" -c 'import hashlib, sys; print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest())' \
    < <(cat requirements.txt requirements-dev.txt requirements.lock pyproject.toml))
  if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ] && [ -x "$VENV/bin/memengine" ]; then
    return 0
  fi
  # torch==2.13.0 comes first in requirements.txt: pip then takes the local CPU build instead of CUDA.
  # requirements.lock pins everything else they pull in (regenerate it as its header says).
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    -r requirements.txt -r requirements-dev.txt -c requirements.lock
  # The project itself, editable and without dependencies (they are all installed above, pinned).
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps -e .
  echo "$want" > "$STAMP"
}

setup_browser() {
  if [ "${MEMENGINE_SKIP_BROWSER:-0}" = "1" ] || command -v chromium >/dev/null 2>&1; then
    return 0
  fi
  if [ "$(id -u)" = "0" ]; then
    echo "installing Debian's chromium for the browser test..." >&2
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "note: chromium is not installed (sudo apt-get install chromium); the browser test will be skipped" >&2
  fi
}

setup_postgres() {
  # Server-mode tests (tests/servers.py) start a throw-away PostgreSQL cluster with initdb/pg_ctl.
  if [ "${MEMENGINE_SKIP_POSTGRES:-0}" != "1" ] && ! command -v initdb >/dev/null 2>&1 \
      && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
    if [ "$(id -u)" = "0" ]; then
      echo "installing Debian's postgresql for the server-mode tests..." >&2
      apt-get update -qq >/dev/null
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    else
      echo "note: PostgreSQL is not installed (sudo apt-get install postgresql); the server-mode tests will be" \
           "skipped, or fail where MEMENGINE_REQUIRE_SERVERS=1 or CI=true" >&2
    fi
  fi
}

setup_venv
setup_python_packages
setup_browser
setup_postgres
