# pypaimon reference peer (tests/interop/python): a virtualenv with the pinned packages of
# tests/interop/python/requirements.txt (pypaimon 2.0.0 and its resolved dependencies).
# Sourced by tests/run.sh (set -euo pipefail).
#
# _install: creates tests/interop/.venv (gitignored) and pip-installs the pins; skipped when the
#           stamp matches the requirements file (fast).
# _start:   exports PYPAIMON_PYTHON (the venv's python) and PYPAIMON_SCRIPT (paimon_peer.py).
# _stop:    nothing runs in the background.

PYPAIMON_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/../interop" && pwd)"

pypaimon_install() {
  local venv="$PYPAIMON_DIR/.venv" req="$PYPAIMON_DIR/python/requirements.txt" want
  want=$(sha256sum "$req" | cut -c1-16)
  if [ "$(cat "$venv/.stamp" 2>/dev/null)" = "$want" ] && "$venv/bin/python" -c 'import pypaimon' 2>/dev/null; then
    return 0
  fi
  if ! python3 -m venv --help >/dev/null 2>&1 || ! python3 -c 'import ensurepip' 2>/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
  fi
  echo "pypaimon: installing $(grep -i '^pypaimon==' "$req") into $venv (PyPI)" >&2
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$req"
  echo "$want" > "$venv/.stamp"
}

pypaimon_start() {
  export PYPAIMON_PYTHON="$PYPAIMON_DIR/.venv/bin/python"
  export PYPAIMON_SCRIPT="$PYPAIMON_DIR/python/paimon_peer.py"
}

pypaimon_stop() { :; }
