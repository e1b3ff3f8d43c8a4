#!/usr/bin/env bash
# Set up everything the product and its tests need: a venv from requirements.txt, and Debian's
# chromium for the browser test. Safe to run again; it only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
# torch==2.13.0 comes first in requirements.txt: pip then takes the local CPU build instead of CUDA.
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt

if [ "${MEMENGINE_SKIP_BROWSER:-0}" != "1" ] && ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ]; then
    echo "installing Debian's chromium for the browser test..." >&2
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "note: chromium is not installed (sudo apt-get install chromium); the browser test will be skipped" >&2
  fi
fi

# Server-mode tests (tests/servers.py) start a throw-away PostgreSQL 15 cluster with initdb/pg_ctl.
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
