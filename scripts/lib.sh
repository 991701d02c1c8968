# Helpers shared by scripts/quickstart.sh and scripts/test.sh (sourced, not run).
VENV="${RIDGELINE_VENV:-.venv}"
PY="$VENV/bin/python"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

apt_install() {
  # apt_install PKG... : install Debian packages that are missing
  local missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ -z "${_APT_UPDATED:-}" ]; then as_root apt-get update -qq; _APT_UPDATED=1; fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

ensure_venv() {
  if [ ! -x "$PY" ]; then
    python3 -m venv "$VENV" 2>/dev/null || { apt_install python3-venv && python3 -m venv "$VENV"; }
  fi
  "$PY" -m pip install -q --upgrade pip >/dev/null
}
