#!/usr/bin/env bash
# Set up, then run the whole test suite (every tier). Extra arguments go to pytest:
#   bash scripts/test.sh -m unit           the fast tier: no model, no browser, no servers
#   bash scripts/test.sh -m "not e2e"      unit + integration
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
set +e
# No .pytest_cache: a test run leaves the checkout as it found it.
.venv/bin/python -m pytest -p no:cacheprovider "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: that is a failure here" >&2
  exit 1
fi
exit "$status"
