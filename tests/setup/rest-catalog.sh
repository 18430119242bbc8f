# Paimon REST catalog peer (tests/interop/rest): Paimon's own RESTCatalogServer, from the
# paimon-core tests jar of 1.4.2 and 2.0.0 (Maven Central), behind RestServerLauncher.java.
# Sourced by tests/run.sh (set -euo pipefail) after paimon-java.sh, whose lib-<v> class paths
# (the Paimon bundle, Hadoop) the server runs on.
#
# _install: per version, `mvn dependency:copy-dependencies` of tests/interop/rest/<v>/pom.xml
#           (mockwebserver 4.12.0 with okhttp, okio, kotlin-stdlib, junit) and `dependency:copy` of
#           org.apache.paimon:paimon-core:<v>:jar:tests into tests/interop/rest/lib-<v>/ (gitignored:
#           tests/interop/rest/.gitignore), then javac RestServerLauncher into lib-classes-<v>/.
#           Skipped when the stamps match.
# _start:   exports REST_CATALOG_CP_1_4 / REST_CATALOG_CP_2_0 (class paths with a literal '*').
#           No server is started here: each test file starts its own on a free loopback port over
#           its own warehouse directory (tests/interop/rest/rest-server.ts), because the server
#           keeps the catalog's state (tables, their uuids, the latest snapshot it committed) in
#           memory, tied to one data directory; a file that changes tables must not see another's.
# _stop:    nothing runs in the background here (each test file stops its own server).

REST_CATALOG_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/../interop/rest" && pwd)"
REST_CATALOG_VERSIONS="1.4.2 2.0.0"

rest_catalog_install() {
  local v lib classes want paimon_lib
  for v in $REST_CATALOG_VERSIONS; do
    lib="$REST_CATALOG_DIR/lib-$v"
    classes="$REST_CATALOG_DIR/lib-classes-$v"
    paimon_lib="$REST_CATALOG_DIR/../java/lib-$v"
    want=$(cat "$REST_CATALOG_DIR/$v/pom.xml" | sha256sum | cut -c1-16)
    if [ "$(cat "$lib/.stamp" 2>/dev/null)" != "$want" ]; then
      echo "rest-catalog: resolving the Paimon $v REST test server class path (Maven Central)" >&2
      rm -rf "$lib"
      mvn -q -B -f "$REST_CATALOG_DIR/$v/pom.xml" dependency:copy-dependencies -DoutputDirectory="$lib" -Dstyle.color=never >&2
      # The tests jar's pom names paimon-parent, which is missing from Central for 2.0.0: copy just the jar.
      mvn -q -B -f "$REST_CATALOG_DIR/$v/pom.xml" dependency:copy \
        -Dartifact="org.apache.paimon:paimon-core:$v:jar:tests" -DoutputDirectory="$lib" -Dstyle.color=never >&2
      echo "$want" > "$lib/.stamp"
    fi
    want=$(cat "$REST_CATALOG_DIR/RestServerLauncher.java" "$lib/.stamp" "$paimon_lib/.stamp" 2>/dev/null | sha256sum | cut -c1-16)
    if [ "$(cat "$classes/.stamp" 2>/dev/null)" != "$want" ]; then
      local fresh="$classes.new.$$"
      rm -rf "$fresh"; mkdir -p "$fresh"
      javac -nowarn -encoding UTF-8 -cp "$paimon_lib/*:$lib/*" -d "$fresh" "$REST_CATALOG_DIR/RestServerLauncher.java" 2>&1 | grep -v '^Note:' >&2 || true
      [ -f "$fresh/RestServerLauncher.class" ] || { rm -rf "$fresh"; echo "rest-catalog: compiling RestServerLauncher.java against Paimon $v failed" >&2; return 1; }
      echo "$want" > "$fresh/.stamp"
      rm -rf "$classes.old.$$"
      [ -d "$classes" ] && mv "$classes" "$classes.old.$$"
      mv "$fresh" "$classes"
      rm -rf "$classes.old.$$"
    fi
  done
}

rest_catalog_start() {
  export REST_CATALOG_CP_1_4="$REST_CATALOG_DIR/lib-classes-1.4.2:$REST_CATALOG_DIR/../java/lib-1.4.2/*:$REST_CATALOG_DIR/lib-1.4.2/*"
  export REST_CATALOG_CP_2_0="$REST_CATALOG_DIR/lib-classes-2.0.0:$REST_CATALOG_DIR/../java/lib-2.0.0/*:$REST_CATALOG_DIR/lib-2.0.0/*"
}

rest_catalog_stop() { :; }
