#!/usr/bin/env bash
# Set up, then start the cockpit on the embedded store under ./data (MEMENGINE_DATA_DIR to change).
set -euo pipefail
cd "$(dirname "$0")/.."
MEMENGINE_SKIP_BROWSER=1 bash scripts/setup.sh
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
exec .venv/bin/python -m streamlit run app.py "$@"
