# moto in server mode: the S3-compatible peer for the S3 FileIO tests (conditional PUT with
# If-None-Match: * is honoured from moto 5.0.15; 5.1.22 adds the rest of the conditional set).
# Sourced by tests/run.sh. Defines moto_install, moto_start, moto_stop.
#
# Exports for tests: S3_ENDPOINT (http://127.0.0.1:<port>), S3_ACCESS_KEY, S3_SECRET_KEY,
# S3_REGION, MOTO_PORT. moto accepts any credentials; these are dummies.

# shellcheck source=tests/setup/lib/python-venv.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/python-venv.sh"

MOTO_VERSION="${MOTO_VERSION:-5.2.5}"
MOTO_VENV="${MOTO_VENV:-$ROOT/tests/setup/.venv-moto}"
MOTO_PID_FILE="${TEST_TMP:-/tmp}/moto.pid"

moto_install() {
  if [ -x "$MOTO_VENV/bin/moto_server" ] && "$MOTO_VENV/bin/python" -c "import moto,sys; sys.exit(0 if moto.__version__=='$MOTO_VERSION' else 1)" 2>/dev/null; then
    return 0
  fi
  python_venv_tools
  rm -rf "$MOTO_VENV"
  python3 -m venv "$MOTO_VENV"
  "$MOTO_VENV/bin/pip" install --quiet --disable-pip-version-check "moto[server]==$MOTO_VERSION"
}

# A free loopback TCP port chosen by the kernel.
_moto_free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

moto_start() {
  local port log
  port=$(_moto_free_port)
  log="${TEST_TMP:-/tmp}/moto.log"
  "$MOTO_VENV/bin/moto_server" -H 127.0.0.1 -p "$port" >"$log" 2>&1 &
  echo $! >"$MOTO_PID_FILE"
  local i
  for i in $(seq 1 100); do
    if curl -sf -o /dev/null "http://127.0.0.1:$port/moto-api/" 2>/dev/null \
      || python3 -c "import socket,sys; s=socket.socket(); sys.exit(s.connect_ex(('127.0.0.1',$port)))" 2>/dev/null; then
      break
    fi
    if ! kill -0 "$(cat "$MOTO_PID_FILE")" 2>/dev/null; then
      echo "moto_server exited; log:" >&2; cat "$log" >&2; return 1
    fi
    sleep 0.1
  done
  export MOTO_PORT="$port"
  export S3_ENDPOINT="http://127.0.0.1:$port"
  export S3_ACCESS_KEY="moto-test-access"
  export S3_SECRET_KEY="moto-test-secret"
  export S3_REGION="us-east-1"
}

moto_stop() {
  if [ -f "$MOTO_PID_FILE" ]; then
    local pid
    pid=$(cat "$MOTO_PID_FILE")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$MOTO_PID_FILE"
  fi
}
