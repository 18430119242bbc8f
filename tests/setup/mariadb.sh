# shellcheck shell=bash
# MariaDB (Debian's mariadb-server) as the stand-in for the Doris FE, plus MySQL Connector/J
# for the JDBC client test. Sourced by tests/run.sh (set -euo pipefail), which calls
# mariadb_install, mariadb_start and mariadb_stop.
#
# mariadb_start runs a private instance (never the packaged service) on a free loopback port,
# with the general log on, and exports:
#   MARIADB_PORT MARIADB_SOCKET MARIADB_GENERAL_LOG MARIADB_USER MARIADB_PASSWORD MARIADB_DIR
#   MARIADB_TLS_CERT (the server's self-signed certificate: TLS is offered, not required)
#   CONNECTOR_J_JAR (8.4.0), CONNECTOR_J9_JAR (9.x), MARIADB_CONNECTOR_J_JAR (MariaDB Connector/J 3.x)
#   MARIADB_EXTRA_ARGS (optional, read by mariadb_start): more mariadbd options, e.g. a plugin to load

MARIADB_ROOT_DIR="${MARIADB_ROOT_DIR:-$(pwd)/.tmp/mariadb}"
CONNECTOR_J_VERSION=8.4.0
CONNECTOR_J9_VERSION=9.7.0
MARIADB_CONNECTOR_J_VERSION=3.5.11
CONNECTOR_J_DIR="$(pwd)/tests/integration/jdbc/lib"

_mariadb_free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

mariadb_install() {
  if ! command -v mariadbd >/dev/null 2>&1 || ! command -v mariadb >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mariadb-server mariadb-client >/dev/null
  fi
  if ! command -v java >/dev/null 2>&1 || ! command -v mvn >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jdk-headless maven >/dev/null
  fi
  _mariadb_fetch_jar com.mysql mysql-connector-j "$CONNECTOR_J_VERSION"
  _mariadb_fetch_jar com.mysql mysql-connector-j "$CONNECTOR_J9_VERSION"
  _mariadb_fetch_jar org.mariadb.jdbc mariadb-java-client "$MARIADB_CONNECTOR_J_VERSION"
}

# One client jar from Maven Central into tests/integration/jdbc/lib, unless it is there already.
_mariadb_fetch_jar() {
  local group="$1" artifact="$2" version="$3"
  if [ ! -f "$CONNECTOR_J_DIR/$artifact-$version.jar" ]; then
    mkdir -p "$CONNECTOR_J_DIR"
    mvn -q -B dependency:copy -Dartifact="$group:$artifact:$version" \
      -DoutputDirectory="$CONNECTOR_J_DIR" -Dmdep.stripVersion=false >/dev/null
  fi
}

mariadb_start() {
  local d="$MARIADB_ROOT_DIR" u port i
  u=$(id -un)
  mariadb_stop # an instance left over from an interrupted run
  rm -rf "$d"; mkdir -p "$d"
  port=$(_mariadb_free_port)
  # A self-signed certificate so the proxy's TLS toward the FE can be tested (TLS stays optional).
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$d/server-key.pem" -out "$d/server-cert.pem" -days 2 \
    -subj '/CN=localhost' -addext 'subjectAltName=DNS:localhost,IP:127.0.0.1' >/dev/null 2>&1
  mariadb-install-db --no-defaults --user="$u" --datadir="$d/data" \
    --auth-root-authentication-method=normal --skip-test-db >"$d/install.log" 2>&1
  # --no-defaults must come first, or /etc/mysql/my.cnf applies.
  mariadbd --no-defaults --user="$u" --datadir="$d/data" --socket="$d/mysqld.sock" \
    --port="$port" --bind-address=127.0.0.1 --pid-file="$d/mysqld.pid" --log-error="$d/error.log" \
    --general-log=1 --general-log-file="$d/general.log" --skip-name-resolve \
    --max-connections=3000 --max-allowed-packet=64M --local-infile=1 \
    --innodb-buffer-pool-size=256M --innodb-flush-log-at-trx-commit=2 \
    --ssl-cert="$d/server-cert.pem" --ssl-key="$d/server-key.pem" \
    ${MARIADB_EXTRA_ARGS:-} \
    >"$d/stdout.log" 2>&1 &
  for i in $(seq 120); do
    if mariadb-admin --no-defaults -uroot -S "$d/mysqld.sock" ping >/dev/null 2>&1; then break; fi
    sleep 0.5
  done
  mariadb-admin --no-defaults -uroot -S "$d/mysqld.sock" ping >/dev/null
  mariadb --no-defaults -uroot -S "$d/mysqld.sock" <<'SQL'
CREATE USER 'app'@'127.0.0.1' IDENTIFIED BY 'app-pass';
GRANT ALL ON *.* TO 'app'@'127.0.0.1' WITH GRANT OPTION;
CREATE USER 'other'@'127.0.0.1' IDENTIFIED BY 'other-pass';
GRANT ALL ON *.* TO 'other'@'127.0.0.1';
CREATE DATABASE IF NOT EXISTS proxytest;
CREATE DATABASE IF NOT EXISTS sbtest;
FLUSH PRIVILEGES;
SQL
  export MARIADB_DIR="$d"
  export MARIADB_PORT="$port"
  export MARIADB_SOCKET="$d/mysqld.sock"
  export MARIADB_GENERAL_LOG="$d/general.log"
  export MARIADB_TLS_CERT="$d/server-cert.pem"
  export MARIADB_USER=app
  export MARIADB_PASSWORD=app-pass
  export CONNECTOR_J_JAR="$CONNECTOR_J_DIR/mysql-connector-j-$CONNECTOR_J_VERSION.jar"
  export CONNECTOR_J9_JAR="$CONNECTOR_J_DIR/mysql-connector-j-$CONNECTOR_J9_VERSION.jar"
  export MARIADB_CONNECTOR_J_JAR="$CONNECTOR_J_DIR/mariadb-java-client-$MARIADB_CONNECTOR_J_VERSION.jar"
  echo "mariadb: listening on 127.0.0.1:$port (data $d)"
}

mariadb_stop() {
  local d="$MARIADB_ROOT_DIR" pid i
  [ -f "$d/mysqld.pid" ] || return 0
  pid=$(cat "$d/mysqld.pid")
  mariadb-admin --no-defaults -uroot -S "$d/mysqld.sock" shutdown >/dev/null 2>&1 || kill "$pid" 2>/dev/null || true
  for i in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$d/mysqld.pid"
}
