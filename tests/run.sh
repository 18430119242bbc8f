#!/usr/bin/env bash
# The whole test suite: installs what the tests need (apt, Maven, pip; each step is skipped
# when already done), starts the real peers on free loopback ports, runs every test with
# node's test runner, and stops what it started. `npm test` runs this; so does .ci/run.
#
# Each peer has one script in tests/setup/<peer>.sh defining <peer>_install, <peer>_start and
# <peer>_stop. _start exports the variables the tests read (e.g. MARIADB_PORT); a test whose
# peer is not available fails rather than skips, unless the peer is marked optional there.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
export TEST_TMP="${TEST_TMP:-$ROOT/.tmp/test-run}"
rm -rf "$TEST_TMP"; mkdir -p "$TEST_TMP"

[ -d node_modules ] || npm ci --no-audit --no-fund

PEERS=()
for f in tests/setup/*.sh; do
  [ -e "$f" ] || continue
  # shellcheck source=/dev/null
  source "$f"
  PEERS+=("$(basename "$f" .sh | tr '-' '_')")
done

stop_all() {
  for p in "${PEERS[@]}"; do "${p}_stop" || true; done
}
trap stop_all EXIT

for p in "${PEERS[@]}"; do "${p}_install"; done
for p in "${PEERS[@]}"; do "${p}_start"; done

mapfile -t FILES < <(find tests -name '*.test.ts' -not -path '*/node_modules/*' | sort)
# One summary at the end (node's spec reporter prints "ℹ tests N / ℹ pass N / ℹ fail N").
node --import tsx --test --test-reporter=spec --test-timeout=600000 "${FILES[@]}"
