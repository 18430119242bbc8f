# shellcheck shell=bash
# Flink reference engine (PyFlink 2.0.2, a local mini-cluster inside one JVM) with Paimon's Flink
# connector paimon-flink-2.0 at 1.4.2 and 2.0.0 plus Hadoop's client jars 3.3.6 (paimon-hadoop-uber
# is not served by the registries here). Sourced by tests/run.sh (set -euo pipefail).
#
# _install: a virtualenv tests/interop/.venv-flink with the pins of
#           tests/interop/python/requirements-flink.txt (PyPI), and per Paimon version the jars in
#           tests/interop/java/lib-flink-<v>/ (Maven). Each step has a stamp and is skipped when the
#           stamp matches (a cached run costs well under a second); a failing step says which one.
# _start:   exports FLINK_PYTHON (the venv's python), FLINK_PEER_SCRIPT (flink_peer.py) and
#           FLINK_JARS_1_4 / FLINK_JARS_2_0 (the jar directories). The engine itself is started by
#           each test file's peer program (tests/interop/flink-peer.ts), once per file and version.
# _stop:    nothing runs in the background here.

FLINK_INTEROP_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/../interop" && pwd)"
# shellcheck source=tests/setup/lib/python-venv.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/python-venv.sh"
FLINK_PAIMON_VERSIONS="1.4.2 2.0.0"
FLINK_HADOOP_VERSION=3.3.6

flink_install() {
  _flink_install_venv || { echo "flink: installing PyFlink from tests/interop/python/requirements-flink.txt (PyPI) failed; see the pip output above" >&2; return 1; }
  local v
  for v in $FLINK_PAIMON_VERSIONS; do
    _flink_install_jars "$v" || { echo "flink: fetching paimon-flink-2.0:$v and hadoop-client-api/runtime:$FLINK_HADOOP_VERSION (Maven) failed; see the mvn output above" >&2; return 1; }
  done
}

_flink_install_venv() {
  python_venv flink "$FLINK_INTEROP_DIR/.venv-flink" "$FLINK_INTEROP_DIR/python/requirements-flink.txt" apache-flink pyflink.table '500 MB'
}

_flink_install_jars() {
  local v="$1" dir="$FLINK_INTEROP_DIR/java/lib-flink-$1" want a
  want="paimon-flink-2.0:$v hadoop-client-api:$FLINK_HADOOP_VERSION hadoop-client-runtime:$FLINK_HADOOP_VERSION"
  if [ "$(cat "$dir/.stamp" 2>/dev/null)" = "$want" ]; then
    return 0
  fi
  if ! command -v mvn >/dev/null 2>&1 || ! command -v java >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jdk-headless maven >/dev/null
  fi
  echo "flink: fetching the Flink connector jars for Paimon $v (Maven)" >&2
  rm -rf "$dir"; mkdir -p "$dir"
  # dependency:copy takes the jar alone: the connector and Hadoop's client jars are self-contained
  # (shaded) and the Flink distribution comes with PyFlink.
  for a in "org.apache.paimon:paimon-flink-2.0:$v" \
    "org.apache.hadoop:hadoop-client-api:$FLINK_HADOOP_VERSION" \
    "org.apache.hadoop:hadoop-client-runtime:$FLINK_HADOOP_VERSION"; do
    mvn -q -B dependency:copy -Dartifact="$a" -DoutputDirectory="$dir" -Dmdep.stripVersion=false -Dstyle.color=never >&2 || return 1
  done
  echo "$want" > "$dir/.stamp"
}

flink_start() {
  export FLINK_PYTHON="$FLINK_INTEROP_DIR/.venv-flink/bin/python"
  export FLINK_PEER_SCRIPT="$FLINK_INTEROP_DIR/python/flink_peer.py"
  export FLINK_JARS_1_4="$FLINK_INTEROP_DIR/java/lib-flink-1.4.2"
  export FLINK_JARS_2_0="$FLINK_INTEROP_DIR/java/lib-flink-2.0.0"
}

flink_stop() { :; }
