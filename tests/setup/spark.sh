# shellcheck shell=bash
# Spark as a reader of our results: PySpark 3.5.9 in local mode with Paimon's Spark connector
# paimon-spark-3.5 at 0.9.0, the only paimon-spark build the registries here serve (Spark brings its
# own Hadoop client). Sourced by tests/run.sh (set -euo pipefail).
#
# _install: a virtualenv tests/interop/.venv-spark with the pins of
#           tests/interop/python/requirements-spark.txt (PyPI) and the connector jar in
#           tests/interop/java/lib-spark-0.9.0/ (Maven). Each step has a stamp and is skipped when
#           the stamp matches; a failing step says which one.
# _start:   exports SPARK_PYTHON (the venv's python), SPARK_PEER_SCRIPT (spark_peer.py) and
#           SPARK_JARS_0_9 (the jar directory). The SparkSession itself is started by each test
#           file's peer program (tests/interop/spark-peer.ts), once per file.
# _stop:    nothing runs in the background here.

SPARK_INTEROP_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/../interop" && pwd)"
# shellcheck source=tests/setup/lib/python-venv.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/python-venv.sh"
SPARK_PAIMON_VERSION=0.9.0

spark_install() {
  _spark_install_venv || { echo "spark: installing PySpark from tests/interop/python/requirements-spark.txt (PyPI) failed; see the pip output above" >&2; return 1; }
  _spark_install_jars || { echo "spark: fetching org.apache.paimon:paimon-spark-3.5:$SPARK_PAIMON_VERSION (Maven) failed; see the mvn output above" >&2; return 1; }
}

_spark_install_venv() {
  python_venv spark "$SPARK_INTEROP_DIR/.venv-spark" "$SPARK_INTEROP_DIR/python/requirements-spark.txt" pyspark pyspark.sql '320 MB'
}

_spark_install_jars() {
  local dir="$SPARK_INTEROP_DIR/java/lib-spark-$SPARK_PAIMON_VERSION" want
  want="paimon-spark-3.5:$SPARK_PAIMON_VERSION"
  if [ "$(cat "$dir/.stamp" 2>/dev/null)" = "$want" ]; then
    return 0
  fi
  if ! command -v mvn >/dev/null 2>&1 || ! command -v java >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jdk-headless maven >/dev/null
  fi
  echo "spark: fetching paimon-spark-3.5:$SPARK_PAIMON_VERSION (Maven)" >&2
  rm -rf "$dir"; mkdir -p "$dir"
  # The connector jar is a shaded bundle: it alone, next to PySpark's own jars, is the whole engine.
  mvn -q -B dependency:copy -Dartifact="org.apache.paimon:paimon-spark-3.5:$SPARK_PAIMON_VERSION" \
    -DoutputDirectory="$dir" -Dmdep.stripVersion=false -Dstyle.color=never >&2 || return 1
  echo "$want" > "$dir/.stamp"
}

spark_start() {
  export SPARK_PYTHON="$SPARK_INTEROP_DIR/.venv-spark/bin/python"
  export SPARK_PEER_SCRIPT="$SPARK_INTEROP_DIR/python/spark_peer.py"
  export SPARK_JARS_0_9="$SPARK_INTEROP_DIR/java/lib-spark-$SPARK_PAIMON_VERSION"
}

spark_stop() { :; }
