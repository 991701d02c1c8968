#!/usr/bin/env bash
# Install every component ridgeline's tests use, then run the whole suite.
# Works on a fresh Debian machine with Python 3.11 (root for apt-get, or sudo).
# Each optional component has its own installer in scripts/setup.d/, sourced in order.
set -euo pipefail
cd "$(dirname "$0")/.."
export RIDGELINE_DATA="${RIDGELINE_DATA:-$(cd .. && pwd)/shared/data}"
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
ensure_venv
for f in scripts/setup.d/*.sh; do
  [ -e "$f" ] || continue
  echo "== setup: $f"
  # shellcheck disable=SC1090
  source "$f"
done
"$PY" -m pip install -q -e '.[test]'
echo "== lint"
"$PY" -m ruff check src tests tools $(ls benchmarks/*.py >/dev/null 2>&1 && echo benchmarks)
"$PY" -m mypy
"$(dirname "$PY")/lint-imports"
echo "== tests"
set +e
"$PY" -m pytest -q "$@"
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
  echo "pytest collected no tests: that is a failure" >&2
  exit 1
fi
exit "$rc"
