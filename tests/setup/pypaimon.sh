# pypaimon reference peers (tests/interop/python): one virtualenv per pinned pypaimon version,
# 2.0.0 from tests/interop/python/requirements.txt and 2.1.0 from requirements-2.1.txt (each with
# its resolved dependencies). Sourced by tests/run.sh (set -euo pipefail).
#
# _install: creates tests/interop/.venv and .venv-2.1 (gitignored) and pip-installs the pins; each
#           skipped when its stamp matches its requirements file (fast).
# _start:   exports PYPAIMON_PYTHON / PYPAIMON21_PYTHON (the venvs' pythons) and PYPAIMON_SCRIPT
#           (paimon_peer.py, which runs under both).
# _stop:    nothing runs in the background.

PYPAIMON_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/../interop" && pwd)"

_pypaimon_venv() {
  local venv="$1" req="$2" want
  want=$(sha256sum "$req" | cut -c1-16)
  if [ "$(cat "$venv/.stamp" 2>/dev/null)" = "$want" ] && "$venv/bin/python" -c 'import pypaimon' 2>/dev/null; then
    return 0
  fi
  echo "pypaimon: installing $(grep -i '^pypaimon==' "$req") into $venv (PyPI)" >&2
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$req"
  echo "$want" > "$venv/.stamp"
}

pypaimon_install() {
  if ! python3 -m venv --help >/dev/null 2>&1 || ! python3 -c 'import ensurepip' 2>/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
  fi
  _pypaimon_venv "$PYPAIMON_DIR/.venv" "$PYPAIMON_DIR/python/requirements.txt"
  _pypaimon_venv "$PYPAIMON_DIR/.venv-2.1" "$PYPAIMON_DIR/python/requirements-2.1.txt"
}

pypaimon_start() {
  export PYPAIMON_PYTHON="$PYPAIMON_DIR/.venv/bin/python"
  export PYPAIMON21_PYTHON="$PYPAIMON_DIR/.venv-2.1/bin/python"
  export PYPAIMON_SCRIPT="$PYPAIMON_DIR/python/paimon_peer.py"
}

pypaimon_stop() { :; }
