#!/usr/bin/env bash
# Regenerates gen/ from hive_metastore_subset.thrift with Debian's thrift-compiler 0.17.0
# (apt-get install thrift-compiler). The package is ESM, so the generated CommonJS files are
# renamed to .cjs and their relative requires follow; nothing else is edited by hand.
set -euo pipefail
cd "$(dirname "$0")"
rm -rf gen && mkdir gen
thrift --gen js:node -out gen hive_metastore_subset.thrift
for f in gen/*.js; do
  sed -i -E "s#require\('\./([A-Za-z_]+)'\)#require('./\1.cjs')#g" "$f"
  mv "$f" "${f%.js}.cjs"
done
