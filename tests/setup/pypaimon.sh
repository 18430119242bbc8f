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
# shellcheck source=tests/setup/lib/python-venv.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/python-venv.sh"

pypaimon_install() {
  python_venv pypaimon "$PYPAIMON_DIR/.venv" "$PYPAIMON_DIR/python/requirements.txt" pypaimon pypaimon
  python_venv pypaimon "$PYPAIMON_DIR/.venv-2.1" "$PYPAIMON_DIR/python/requirements-2.1.txt" pypaimon pypaimon
}

pypaimon_start() {
  export PYPAIMON_PYTHON="$PYPAIMON_DIR/.venv/bin/python"
  export PYPAIMON21_PYTHON="$PYPAIMON_DIR/.venv-2.1/bin/python"
  export PYPAIMON_SCRIPT="$PYPAIMON_DIR/python/paimon_peer.py"
}

pypaimon_stop() { :; }
