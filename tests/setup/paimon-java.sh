# Paimon Java reference peer (tests/interop/java): class paths for Paimon 1.4.2 and 2.0.0 from Maven
# Central, and PaimonTool compiled once against each. Sourced by tests/run.sh (set -euo pipefail).
#
# _install: `mvn dependency:copy-dependencies` per version into tests/interop/java/lib-<v>/ (gitignored),
#           then javac PaimonTool.java into lib-classes-<v>/. Skipped when the stamps match (fast).
# _start:   exports PAIMON_JAVA_CP_1_4, PAIMON_JAVA_CP_2_0 (class paths, with a literal '*' that java
#           expands itself), JAVA_OPENS (the --add-opens list Paimon's own build uses on Java 17) and
#           PAIMON_JAVA_BIN; unsets HADOOP_HOME/HADOOP_CONF_DIR so Paimon does not pick up a host config.
# _stop:    nothing runs in the background; each tool call is a short-lived child process.

PAIMON_JAVA_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/../interop/java" && pwd)"
PAIMON_JAVA_VERSIONS="1.4.2 2.0.0"
PAIMON_JAVA_OPENS="--add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.invoke=ALL-UNNAMED --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/java.net=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED --add-opens=java.base/jdk.internal.ref=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED -Djdk.reflect.useDirectMethodHandle=false"

_paimon_java_hash() { cat "$@" | sha256sum | cut -c1-16; }

paimon_java_install() {
  if ! command -v javac >/dev/null 2>&1 || ! command -v mvn >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jdk-headless maven >/dev/null
  fi
  local v lib classes stamp want
  for v in $PAIMON_JAVA_VERSIONS; do
    lib="$PAIMON_JAVA_DIR/lib-$v"
    classes="$PAIMON_JAVA_DIR/lib-classes-$v"
    want=$(_paimon_java_hash "$PAIMON_JAVA_DIR/paimon-$v/pom.xml")
    if [ "$(cat "$lib/.stamp" 2>/dev/null)" != "$want" ]; then
      echo "paimon-java: resolving the Paimon $v class path (Maven Central)" >&2
      rm -rf "$lib"
      mvn -q -B -f "$PAIMON_JAVA_DIR/paimon-$v/pom.xml" dependency:copy-dependencies -DoutputDirectory="$lib" -Dstyle.color=never >&2
      if [ "$v" = "2.0.0" ]; then
        # Paimon 2.0.0 has no paimon-bundle on Central; its self-contained engine bundle stands in
        # (see paimon-2.0.0/pom.xml). Its pom names a parent that is missing, so copy just the jar.
        mvn -q -B -f "$PAIMON_JAVA_DIR/paimon-$v/pom.xml" dependency:copy \
          -Dartifact=org.apache.paimon:paimon-flink-2.0:2.0.0 -DoutputDirectory="$lib" -Dstyle.color=never >&2
      fi
      echo "$want" > "$lib/.stamp"
    fi
    # Every *.java beside PaimonTool.java is one peer program (its own main class). PaimonTool must
    # compile; each other program is compiled on its own, so one that fails (a warning) cannot take
    # the others down. The classes are built aside and swapped in, so a test running meanwhile keeps
    # a complete class directory.
    want=$(_paimon_java_hash "$PAIMON_JAVA_DIR"/*.java "$lib/.stamp")
    if [ "$(cat "$classes/.stamp" 2>/dev/null)" != "$want" ]; then
      local fresh="$classes.new.$$" src
      rm -rf "$fresh"; mkdir -p "$fresh"
      javac -nowarn -encoding UTF-8 -cp "$lib/*" -d "$fresh" "$PAIMON_JAVA_DIR/PaimonTool.java" 2>&1 | grep -v '^Note:' >&2 || true
      [ -f "$fresh/PaimonTool.class" ] || { rm -rf "$fresh"; echo "paimon-java: compiling PaimonTool.java against Paimon $v failed" >&2; return 1; }
      for src in "$PAIMON_JAVA_DIR"/*.java; do
        [ "$(basename "$src")" = PaimonTool.java ] && continue
        javac -nowarn -encoding UTF-8 -cp "$fresh:$lib/*" -d "$fresh" "$src" 2>&1 | grep -v '^Note:' >&2 || true
        [ -f "$fresh/$(basename "$src" .java).class" ] || echo "paimon-java: WARNING: $(basename "$src") does not compile against Paimon $v (skipped)" >&2
      done
      echo "$want" > "$fresh/.stamp"
      rm -rf "$classes.old.$$"
      [ -d "$classes" ] && mv "$classes" "$classes.old.$$"
      mv "$fresh" "$classes"
      rm -rf "$classes.old.$$"
    fi
  done
}

paimon_java_start() {
  export PAIMON_JAVA_CP_1_4="$PAIMON_JAVA_DIR/lib-classes-1.4.2:$PAIMON_JAVA_DIR/lib-1.4.2/*"
  export PAIMON_JAVA_CP_2_0="$PAIMON_JAVA_DIR/lib-classes-2.0.0:$PAIMON_JAVA_DIR/lib-2.0.0/*"
  export JAVA_OPENS="$PAIMON_JAVA_OPENS"
  PAIMON_JAVA_BIN="$(command -v java)"
  export PAIMON_JAVA_BIN
  unset HADOOP_HOME HADOOP_CONF_DIR
}

paimon_java_stop() { :; }
