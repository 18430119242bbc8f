#!/usr/bin/env bash
# The unit tier: plain data and the library's own code, no upstream FE and no JVM. The one peer it
# needs is moto (the S3 FileIO tests start their own moto_server from tests/setup/.venv-moto), so
# this installs it first when missing (PyPI, about a minute the first time), then runs every
# tests/unit/**/*.test.ts with node's test runner. `npm run test:unit` runs this.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
export ROOT
[ -d node_modules ] || npm ci --no-audit --no-fund
# shellcheck source=setup/moto.sh
source tests/setup/moto.sh
moto_install
mapfile -t FILES < <(find tests/unit -name '*.test.ts' | sort)
exec node --import tsx --test --test-reporter=spec "${FILES[@]}"
