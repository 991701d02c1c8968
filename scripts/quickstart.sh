#!/usr/bin/env bash
# Install ridgeline (base dependencies only) into .venv and run the main job on the embedded
# defaults: predict a sample CUDA kernel shipped in the package on three GPUs. Offline, no GPU,
# no API key.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
ensure_venv
"$PY" -m pip install -q -e .
"$VENV/bin/ridgeline" predict --sample saxpy --gpu rtx3080 --gpu a100 --gpu mi300x
echo
echo "Next: $VENV/bin/ridgeline --help   (or: source $VENV/bin/activate)"
