# Hive Metastore peer (tests/interop/catalog-hms.test.ts): the standalone metastore server 4.0.0
# (not 4.0.1+: Paimon's Hive 2.3.10 client calls get_table, removed there) over embedded Derby,
# and the class path Paimon Java's HiveCatalog needs on the client side. Everything comes from
# Maven Central. Sourced by tests/run.sh (set -euo pipefail) after paimon-java.sh.
#
# _install: into tests/interop/java/lib-hms-4.0.0/ (gitignored): the server's bin tarball
#           (org.apache.hive:hive-standalone-metastore-server:4.0.0:tar.gz:bin, whose lib/ has no
#           Hadoop) unpacked, Hadoop 3.3.6 jars beside it (hadoop-common, hadoop-hdfs-client,
#           hadoop-mapreduce-client-core, and hadoop-hdfs alone for SnapshotException), and into
#           tests/interop/java/lib-hive-client-2.3.10/ the Hive 2.3.10 metastore client minus
#           hadoop/hbase/zookeeper/log4j (Paimon 1.4.2's paimon-bundle carries HiveCatalog but not
#           Hive). The poms are written here, so nothing else has to be versioned for this peer.
#           Skipped when the stamps match.
# _start:   exports HMS_SERVER_CP (server class path), HMS_HOME (for the schema tool's scripts) and
#           HIVE_CLIENT_CP (to append to PAIMON_JAVA_CP_1_4). No server is started here: a test
#           file starts its own (tests/interop/catalog-hms.test.ts) with hive_metastore_launch,
#           on a free loopback port over its own Derby directory, because Derby embedded allows
#           one JVM per database and a file that changes tables must not see another's.
# _stop:    nothing runs in the background here (each test file stops the server it started).
#
# hive_metastore_launch DIR PORT [OWNER_PID]: schema tool (creates the lock tables that Paimon's
# lock.enabled commits need; DataNucleus' autoCreateAll does not), then the server in the
# background; writes DIR/hms.pid and returns once 127.0.0.1:PORT accepts (at most 120 s). With
# OWNER_PID, a watchdog stops the server once that process is gone, so a test process killed
# before its after-hook runs leaves no metastore behind.
# hive_metastore_kill DIR: stops the server whose pid is in DIR/hms.pid.

HMS_JAVA_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/../interop/java" && pwd)"
HMS_VERSION=4.0.0
HMS_HADOOP_VERSION=3.3.6
HMS_HIVE_CLIENT_VERSION=2.3.10
HMS_LIB="$HMS_JAVA_DIR/lib-hms-$HMS_VERSION"
HMS_CLIENT_LIB="$HMS_JAVA_DIR/lib-hive-client-$HMS_HIVE_CLIENT_VERSION"

_hms_server_pom() {
  cat <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.test</groupId><artifactId>hms-server-hadoop</artifactId><version>$HMS_VERSION</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.hadoop</groupId><artifactId>hadoop-common</artifactId><version>$HMS_HADOOP_VERSION</version>
      <exclusions><exclusion><groupId>org.slf4j</groupId><artifactId>slf4j-reload4j</artifactId></exclusion>
        <exclusion><groupId>ch.qos.reload4j</groupId><artifactId>reload4j</artifactId></exclusion>
        <exclusion><groupId>log4j</groupId><artifactId>log4j</artifactId></exclusion></exclusions></dependency>
    <dependency><groupId>org.apache.hadoop</groupId><artifactId>hadoop-hdfs-client</artifactId><version>$HMS_HADOOP_VERSION</version></dependency>
    <dependency><groupId>org.apache.hadoop</groupId><artifactId>hadoop-mapreduce-client-core</artifactId><version>$HMS_HADOOP_VERSION</version>
      <exclusions><exclusion><groupId>org.slf4j</groupId><artifactId>slf4j-reload4j</artifactId></exclusion>
        <exclusion><groupId>ch.qos.reload4j</groupId><artifactId>reload4j</artifactId></exclusion>
        <exclusion><groupId>log4j</groupId><artifactId>log4j</artifactId></exclusion></exclusions></dependency>
  </dependencies>
</project>
EOF
}

_hms_client_pom() {
  cat <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.test</groupId><artifactId>hive-client</artifactId><version>$HMS_HIVE_CLIENT_VERSION</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.hive</groupId><artifactId>hive-metastore</artifactId><version>$HMS_HIVE_CLIENT_VERSION</version>
      <exclusions>
        <exclusion><groupId>org.apache.hadoop</groupId><artifactId>*</artifactId></exclusion>
        <exclusion><groupId>org.apache.hbase</groupId><artifactId>*</artifactId></exclusion>
        <exclusion><groupId>org.apache.zookeeper</groupId><artifactId>*</artifactId></exclusion>
        <exclusion><groupId>log4j</groupId><artifactId>*</artifactId></exclusion>
        <exclusion><groupId>org.apache.logging.log4j</groupId><artifactId>*</artifactId></exclusion>
        <exclusion><groupId>org.slf4j</groupId><artifactId>*</artifactId></exclusion>
      </exclusions>
    </dependency>
  </dependencies>
</project>
EOF
}

_hms_hash() { { declare -f _hms_server_pom _hms_client_pom; echo "$HMS_VERSION $HMS_HADOOP_VERSION $HMS_HIVE_CLIENT_VERSION"; } | sha256sum | cut -c1-16; }

hive_metastore_install() {
  local want fresh
  want=$(_hms_hash)
  if [ "$(cat "$HMS_LIB/.stamp" 2>/dev/null)" != "$want" ]; then
    echo "hive-metastore: resolving the Hive Metastore $HMS_VERSION server and Hadoop $HMS_HADOOP_VERSION (Maven Central)" >&2
    # Built aside and swapped in, so a test running meanwhile keeps a complete directory.
    fresh="$HMS_LIB.new.$$"
    rm -rf "$fresh"; mkdir -p "$fresh/hadoop-lib"
    _hms_server_pom > "$fresh/pom.xml"
    mvn -q -B -f "$fresh/pom.xml" dependency:copy-dependencies -DoutputDirectory="$fresh/hadoop-lib" -Dstyle.color=never >&2
    # hadoop-hdfs (the server jar) only for SnapshotException, without its own dependency tree.
    mvn -q -B -f "$fresh/pom.xml" dependency:copy -Dartifact="org.apache.hadoop:hadoop-hdfs:$HMS_HADOOP_VERSION" \
      -DoutputDirectory="$fresh/hadoop-lib" -Dstyle.color=never >&2
    mvn -q -B -f "$fresh/pom.xml" dependency:copy \
      -Dartifact="org.apache.hive:hive-standalone-metastore-server:$HMS_VERSION:tar.gz:bin" -DoutputDirectory="$fresh" -Dstyle.color=never >&2
    tar -xzf "$fresh/hive-standalone-metastore-server-$HMS_VERSION-bin.tar.gz" -C "$fresh"
    rm -f "$fresh/hive-standalone-metastore-server-$HMS_VERSION-bin.tar.gz"
    [ -d "$fresh/apache-hive-metastore-$HMS_VERSION-bin/lib" ] || { rm -rf "$fresh"; echo "hive-metastore: the $HMS_VERSION tarball has no lib/" >&2; return 1; }
    echo "$want" > "$fresh/.stamp"
    rm -rf "$HMS_LIB.old.$$"
    [ -d "$HMS_LIB" ] && mv "$HMS_LIB" "$HMS_LIB.old.$$"
    mv "$fresh" "$HMS_LIB"
    rm -rf "$HMS_LIB.old.$$"
  fi
  if [ "$(cat "$HMS_CLIENT_LIB/.stamp" 2>/dev/null)" != "$want" ]; then
    echo "hive-metastore: resolving the Hive $HMS_HIVE_CLIENT_VERSION metastore client for Paimon's HiveCatalog (Maven Central)" >&2
    fresh="$HMS_CLIENT_LIB.new.$$"
    rm -rf "$fresh"; mkdir -p "$fresh"
    _hms_client_pom > "$fresh/pom.xml"
    mvn -q -B -f "$fresh/pom.xml" dependency:copy-dependencies -DoutputDirectory="$fresh" -Dstyle.color=never >&2
    rm -f "$fresh/pom.xml"
    echo "$want" > "$fresh/.stamp"
    rm -rf "$HMS_CLIENT_LIB.old.$$"
    [ -d "$HMS_CLIENT_LIB" ] && mv "$HMS_CLIENT_LIB" "$HMS_CLIENT_LIB.old.$$"
    mv "$fresh" "$HMS_CLIENT_LIB"
    rm -rf "$HMS_CLIENT_LIB.old.$$"
  fi
}

hive_metastore_start() {
  export HMS_HOME="$HMS_LIB/apache-hive-metastore-$HMS_VERSION-bin"
  # Hive's lib/ first: its guava and jackson are the ones the server was built with.
  export HMS_SERVER_CP="$HMS_HOME/lib/*:$HMS_LIB/hadoop-lib/*"
  export HIVE_CLIENT_CP="$HMS_CLIENT_LIB/*"
  export HMS_SETUP_SCRIPT="${BASH_SOURCE[0]}"
}

hive_metastore_stop() { :; }

_hms_site() {
  local dir=$1 port=$2
  cat <<EOF
<configuration>
  <property><name>javax.jdo.option.ConnectionURL</name><value>jdbc:derby:;databaseName=$dir/metastore_db;create=true</value></property>
  <property><name>javax.jdo.option.ConnectionDriverName</name><value>org.apache.derby.jdbc.EmbeddedDriver</value></property>
  <property><name>metastore.thrift.port</name><value>$port</value></property>
  <property><name>metastore.thrift.bind.host</name><value>127.0.0.1</value></property>
  <property><name>metastore.warehouse.dir</name><value>file://$dir/hive-warehouse</value></property>
  <property><name>metastore.create.as.acid</name><value>false</value></property>
  <property><name>hive.strict.managed.tables</name><value>false</value></property>
  <property><name>hive.create.as.insert.only</name><value>false</value></property>
  <property><name>metastore.metadata.transformer.class</name><value> </value></property>
  <property><name>metastore.async.log.enabled</name><value>false</value></property>
  <property><name>metastore.task.threads.always</name><value>org.apache.hadoop.hive.metastore.events.EventCleanerTask</value></property>
  <property><name>metastore.event.db.notification.api.auth</name><value>false</value></property>
</configuration>
EOF
}

hive_metastore_launch() {
  local dir=${1:-} port=${2:-} owner=${3:-} i
  if [[ "$dir" != /* || ! "$port" =~ ^[0-9]+$ || ! "$owner" =~ ^[0-9]*$ ]]; then
    echo "hive_metastore_launch: usage: hive_metastore_launch ABSOLUTE_DIR PORT [OWNER_PID]" >&2
    return 2
  fi
  [ -n "${HMS_HOME:-}" ] || hive_metastore_start
  mkdir -p "$dir/conf"
  _hms_site "$dir" "$port" > "$dir/conf/metastore-site.xml"
  local cp="$dir/conf:$HMS_SERVER_CP"
  local jvm="-Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Dderby.system.home=$dir"
  if [ ! -d "$dir/metastore_db" ]; then
    # shellcheck disable=SC2086
    (cd "$dir" && METASTORE_HOME="$HMS_HOME" java ${JAVA_OPENS:-} $jvm -cp "$cp" \
      org.apache.hadoop.hive.metastore.tools.schematool.MetastoreSchemaTool -dbType derby -initSchema) \
      >"$dir/schematool.log" 2>&1 || { echo "hive-metastore: schema tool failed (see $dir/schematool.log)" >&2; return 1; }
  fi
  # shellcheck disable=SC2086
  (cd "$dir" && exec java ${JAVA_OPENS:-} $jvm -cp "$cp" org.apache.hadoop.hive.metastore.HiveMetaStore -p "$port") \
    >"$dir/hms.log" 2>&1 &
  echo $! > "$dir/hms.pid"
  if [ -n "$owner" ]; then
    local hms_pid=$!
    # Detached from the caller's output, so the caller's bash returns at once.
    (while kill -0 "$owner" 2>/dev/null && kill -0 "$hms_pid" 2>/dev/null; do sleep 2; done; kill "$hms_pid" 2>/dev/null) \
      </dev/null >/dev/null 2>&1 &
  fi
  for i in $(seq 1 240); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
    kill -0 "$(cat "$dir/hms.pid")" 2>/dev/null || { echo "hive-metastore: server exited (see $dir/hms.log)" >&2; return 1; }
    sleep 0.5
  done
  echo "hive-metastore: no answer on 127.0.0.1:$port after 120 s (see $dir/hms.log)" >&2
  return 1
}

hive_metastore_kill() {
  local pid
  pid=$(cat "$1/hms.pid" 2>/dev/null) || return 0
  kill "$pid" 2>/dev/null || true
}
