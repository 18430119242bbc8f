# Single-node HDFS peer (tests/interop/hdfs): Hadoop's MiniDFSCluster (one NameNode, one DataNode,
# WebHDFS on) from Maven Central's hadoop-client-minicluster 3.3.6, behind HdfsLauncher.java.
# Sourced by tests/run.sh (set -euo pipefail).
#
# _install: `mvn dependency:copy-dependencies` of tests/interop/hdfs/pom.xml into
#           tests/interop/hdfs/lib/ (gitignored), then javac HdfsLauncher into lib-classes/
#           (built aside and swapped in). Skipped when the stamps match.
# _start:   starts the cluster on loopback with kernel-chosen ports, data under $TEST_TMP/hdfs,
#           waits until the launcher writes its ports, and exports HDFS_URI (hdfs://127.0.0.1:<rpc>),
#           HDFS_HTTP_ADDRESS (127.0.0.1:<http>, the WebHDFS address), HDFS_USER (the superuser).
#           Listings page every 100 entries (dfs.ls.limit), so tests reach paging with few files.
#           Paimon Java reaches hdfs:// with its own class path (hadoop-client-api carries the
#           HDFS client), so no jar is added to it.
# _stop:    stops the cluster by the pid _start recorded. The launcher also exits by itself once
#           the shell that started it ($$, the test run) is gone.

HDFS_PEER_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/../interop/hdfs" && pwd)"

hdfs_install() {
  if ! command -v javac >/dev/null 2>&1 || ! command -v mvn >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jdk-headless maven >/dev/null
  fi
  local lib="$HDFS_PEER_DIR/lib" classes="$HDFS_PEER_DIR/lib-classes" want
  want=$(sha256sum <"$HDFS_PEER_DIR/pom.xml" | cut -c1-16)
  if [ "$(cat "$lib/.stamp" 2>/dev/null)" != "$want" ]; then
    echo "hdfs: resolving the MiniDFSCluster class path (Maven Central)" >&2
    rm -rf "$lib"
    mvn -q -B -f "$HDFS_PEER_DIR/pom.xml" dependency:copy-dependencies -DoutputDirectory="$lib" -Dstyle.color=never >&2
    echo "$want" >"$lib/.stamp"
  fi
  want=$(cat "$HDFS_PEER_DIR/HdfsLauncher.java" "$lib/.stamp" | sha256sum | cut -c1-16)
  if [ "$(cat "$classes/.stamp" 2>/dev/null)" != "$want" ]; then
    local fresh="$classes.new.$$"
    rm -rf "$fresh"; mkdir -p "$fresh"
    javac -nowarn -encoding UTF-8 -cp "$lib/*" -d "$fresh" "$HDFS_PEER_DIR/HdfsLauncher.java" 2>&1 | grep -v '^Note:' >&2 || true
    [ -f "$fresh/HdfsLauncher.class" ] || { rm -rf "$fresh"; echo "hdfs: compiling HdfsLauncher.java failed" >&2; return 1; }
    echo "$want" >"$fresh/.stamp"
    rm -rf "$classes.old.$$"
    [ -d "$classes" ] && mv "$classes" "$classes.old.$$"
    mv "$fresh" "$classes"
    rm -rf "$classes.old.$$"
  fi
}

hdfs_start() {
  local dir="${TEST_TMP:-/tmp}/hdfs"
  rm -rf "$dir"; mkdir -p "$dir"
  # Jersey (WebHDFS) needs java.lang opened for JAXB on Java 17.
  java -Xmx512m --add-opens=java.base/java.lang=ALL-UNNAMED \
    -cp "$HDFS_PEER_DIR/lib-classes:$HDFS_PEER_DIR/lib/*" \
    HdfsLauncher "$dir/data" "$dir/ready.json" "$$" >"$dir/hdfs.log" 2>&1 &
  echo $! >"$dir/pid"
  local i
  for i in $(seq 1 900); do
    [ -f "$dir/ready.json" ] && break
    if ! kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
      echo "hdfs: the MiniDFSCluster exited; log tail:" >&2; tail -40 "$dir/hdfs.log" >&2; return 1
    fi
    sleep 0.1
  done
  [ -f "$dir/ready.json" ] || { echo "hdfs: not ready after 90 s; log: $dir/hdfs.log" >&2; return 1; }
  local rpc http user
  rpc=$(sed -E 's/.*"rpcPort":([0-9]+).*/\1/' "$dir/ready.json")
  http=$(sed -E 's/.*"httpPort":([0-9]+).*/\1/' "$dir/ready.json")
  user=$(sed -E 's/.*"user":"([^"]*)".*/\1/' "$dir/ready.json")
  export HDFS_URI="hdfs://127.0.0.1:$rpc"
  export HDFS_HTTP_ADDRESS="127.0.0.1:$http"
  export HDFS_USER="$user"
}

hdfs_stop() {
  local pidfile="${TEST_TMP:-/tmp}/hdfs/pid"
  [ -f "$pidfile" ] || return 0
  local pid
  pid=$(cat "$pidfile")
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$pidfile"
}
