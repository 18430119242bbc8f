#!/usr/bin/env bash
# The whole test suite: installs what the tests need (apt, Maven, pip; each step is skipped
# when already done), starts the real peers on free loopback ports, runs the tests with node's
# test runner, and stops what it started. `npm test` runs this; so does .ci/run.
#
#   bash tests/run.sh                      every tests/**/*.test.ts (what CI runs)
#   bash tests/run.sh tests/unit           only the files under the given directories/files
#   npm test -- tests/interop/data-matrix.test.ts
#
# Each peer has one script in tests/setup/<peer>.sh defining <peer>_install, <peer>_start and
# <peer>_stop. _start exports the variables the tests read (e.g. MARIADB_PORT); a test whose
# peer is not available fails rather than skips, unless the peer is marked optional there.
#
# Output: node's spec reporter on stdout, ending with its summary (ℹ tests N / ℹ pass N /
# ℹ fail N ...; on failure node repeats the failing tests after it). Nothing is printed after
# that: peers are stopped with their output in $TEST_TMP/peers-stop.log. Per-file wall times,
# slowest first, go to $TEST_TMP/file-durations.txt. The exit status is the test runner's.
#
# Tunables (environment): TEST_TMP (scratch, wiped at start; default .tmp/test-run),
# TEST_CONCURRENCY (test files run at once; default 2), TEST_TIMEOUT_MS (per test AND per
# file, node applies it to both; default 1800000 = 30 min).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
export TEST_TMP="${TEST_TMP:-$ROOT/.tmp/test-run}"
rm -rf "$TEST_TMP"; mkdir -p "$TEST_TMP"

# Test files: every *.test.ts under the arguments (default: tests/).
SELECT=("$@")
[ ${#SELECT[@]} -gt 0 ] || SELECT=(tests)
for s in "${SELECT[@]}"; do
  [ -e "$s" ] || { echo "tests/run.sh: no such file or directory: $s" >&2; exit 2; }
done
mapfile -t FILES < <(find "${SELECT[@]}" -name '*.test.ts' -not -path '*/node_modules/*' | sort -u)
[ ${#FILES[@]} -gt 0 ] || { echo "tests/run.sh: no *.test.ts under: ${SELECT[*]}" >&2; exit 2; }

[ -d node_modules ] || npm ci --no-audit --no-fund

PEERS=()
for f in tests/setup/*.sh; do
  [ -e "$f" ] || continue
  # shellcheck source=/dev/null
  source "$f"
  PEERS+=("$(basename "$f" .sh | tr '-' '_')")
done

STOPPED=0
stop_all() {
  [ "$STOPPED" = 0 ] || return 0
  STOPPED=1
  local p
  for p in "${PEERS[@]}"; do
    echo "== ${p}_stop"
    "${p}_stop" || echo "${p}_stop failed with status $?"
  done >>"$TEST_TMP/peers-stop.log" 2>&1
}
trap stop_all EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Seconds per step, printed before the tests so the summary stays last.
TIMES=()
# Installs run one run at a time on this checkout (two runs would build the same venvs and jars).
mkdir -p "$ROOT/.tmp"
exec 9>"$ROOT/.tmp/peers-install.lock"
flock 9
for p in "${PEERS[@]}"; do t=$SECONDS; "${p}_install"; TIMES+=("${p}_install $((SECONDS - t))s"); done
exec 9>&-
for p in "${PEERS[@]}"; do t=$SECONDS; "${p}_start"; TIMES+=("${p}_start $((SECONDS - t))s"); done
echo "tests/run.sh: ${TIMES[*]}"
echo "tests/run.sh: ${#FILES[@]} test files, concurrency ${TEST_CONCURRENCY:-2}, timeout ${TEST_TIMEOUT_MS:-1800000} ms"

# Two reporters: spec on stdout (ends with node's summary), per-file wall times into a file.
set +e
node --import tsx --test \
  --test-concurrency="${TEST_CONCURRENCY:-2}" \
  --test-timeout="${TEST_TIMEOUT_MS:-1800000}" \
  --test-reporter=spec --test-reporter-destination=stdout \
  --test-reporter=./tests/reporters/file-durations.mjs \
  --test-reporter-destination="$TEST_TMP/file-durations.txt" \
  "${FILES[@]}"
rc=$?
set -e
stop_all
exit "$rc"
