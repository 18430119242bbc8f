#!/usr/bin/env bash
# Forwarding cost of the proxy, measured in one run against the same MariaDB three ways:
#   direct            sysbench -> MariaDB
#   haproxy           sysbench -> HAProxy (Debian, TCP mode: a layer-4 relay, the floor of any proxy) -> MariaDB
#   proxy             sysbench -> paimon-procedure-proxy (relay mode) -> MariaDB
#   floor             sysbench -> a relay that copies bytes both ways and parses nothing -> MariaDB:
#                     BENCH_FLOOR=node (default) bench/node-relay-floor.mjs, the floor of a relay on
#                     Node's socket API; BENCH_FLOOR=native bench/native-relay-floor/ (compiled here with
#                     gcc against Node's headers), the floor once no JavaScript runs per read or write;
#                     BENCH_FLOOR=0 leaves it out
# Workloads: sysbench oltp_point_select and oltp_read_only, at 1, 16 and 64 threads.
# Prints throughput ratios (proxy/direct, proxy/haproxy, node floor/haproxy), the p95 latency the
# proxy adds, and the CPU time per forwarded query of the proxy, HAProxy and the node floor (from
# /proc/<pid>/stat, workers included). Not part of `npm test`.
#
# Usage: bench/sysbench.sh [seconds-per-run (default 10)]
#   BENCH_THREADS="1 16 64" BENCH_WORKLOADS="oltp_point_select oltp_read_only" BENCH_PS_MODE=disable
#   BENCH_REPEAT=3 (rounds per configuration; medians are printed)
#   BENCH_HAPROXY_THREADS (HAProxy's nbthread; default: the number of CPUs, HAProxy's own default)
#   BENCH_PROXY_WORKERS (the proxy's listen.workers; default: as many as HAProxy's threads; its
#     CPU is summed over the worker processes). With fewer processes than HAProxy has threads,
#     the proxy gets a smaller share of a loaded machine and the comparison is not like for like.
#   BENCH_STRACE=1: count the system calls of the relays (strace -c -f on HAProxy and on every proxy
#     worker) during each of their runs, into $OUT/strace-<label>-<workload>-<threads>.txt; this slows
#     them down a lot, so throughput and CPU figures of such a run mean nothing, only calls per query.
#   BENCH_PERF=1: likewise, `perf record -g` of HAProxy and of the proxy workers during their runs, into
#     $OUT/perf-<label>-<workload>-<threads>.data (add BENCH_NODE_ARGS=--perf-basic-prof for JS names).
#   BENCH_NATIVE_RELAY: the proxy's upstream.native_relay, on (default) or off (the JavaScript relay).
#   BENCH_NODE_ARGS: extra node options for the proxy, inherited by its workers (e.g.
#     "--cpu-prof --cpu-prof-dir=DIR": each process writes its profile when the script stops it).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SECONDS_PER_RUN="${1:-10}"
THREADS="${BENCH_THREADS:-1 16 64}"
WORKLOADS="${BENCH_WORKLOADS:-oltp_point_select oltp_read_only}"
PS_MODE="${BENCH_PS_MODE:-disable}"
REPEAT="${BENCH_REPEAT:-3}"
OUT="$ROOT/.tmp/bench"
rm -rf "$OUT"; mkdir -p "$OUT"
export MARIADB_ROOT_DIR="$OUT/mariadb"

[ -d node_modules ] || npm ci --no-audit --no-fund
# shellcheck source=../tests/setup/mariadb.sh
source tests/setup/mariadb.sh
if ! command -v sysbench >/dev/null 2>&1 || ! command -v haproxy >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sysbench haproxy >/dev/null
fi
mariadb_install

HAPROXY_PID=""
PROXY_PID=""
FLOOR_PID=""
cleanup() {
  [ -n "$FLOOR_PID" ] && kill "$FLOOR_PID" 2>/dev/null || true
  [ -n "$PROXY_PID" ] && kill "$PROXY_PID" 2>/dev/null && wait "$PROXY_PID" 2>/dev/null || true
  [ -n "$HAPROXY_PID" ] && kill "$HAPROXY_PID" 2>/dev/null || true
  mariadb_stop || true
}
trap cleanup EXIT

mariadb_start >/dev/null
DB_PORT=$MARIADB_PORT
SB_COMMON=(--db-driver=mysql --mysql-host=127.0.0.1 --mysql-user="$MARIADB_USER" --mysql-password="$MARIADB_PASSWORD"
  --mysql-db=sbtest --tables=4 --table-size=10000)
sysbench oltp_read_only "${SB_COMMON[@]}" --mysql-port="$DB_PORT" prepare >"$OUT/prepare.log" 2>&1

# HAProxy, TCP mode, same loopback. It runs one thread per CPU by default (nbthread, stated
# here); the proxy gets as many worker processes unless BENCH_PROXY_WORKERS says otherwise.
HA_THREADS="${BENCH_HAPROXY_THREADS:-$(nproc)}"
PROXY_WORKERS="${BENCH_PROXY_WORKERS:-$HA_THREADS}"
HA_PORT=$(_mariadb_free_port)
cat >"$OUT/haproxy.cfg" <<EOF
global
  maxconn 4000
  nbthread $HA_THREADS
defaults
  mode tcp
  timeout connect 5s
  timeout client 1h
  timeout server 1h
frontend fe
  bind 127.0.0.1:$HA_PORT
  default_backend be
backend be
  server db 127.0.0.1:$DB_PORT
EOF
haproxy -f "$OUT/haproxy.cfg" -db >"$OUT/haproxy.log" 2>&1 &
HAPROXY_PID=$!

# The proxy, relay mode, as users run it: plain statements through the native relay thread
# (BENCH_NATIVE_RELAY=on, the default; `off` relays every byte in JavaScript, as before it).
NATIVE_RELAY="${BENCH_NATIVE_RELAY:-on}"
[ "$NATIVE_RELAY" = on ] && node native/build.mjs >/dev/null
PX_PORT=$(_mariadb_free_port)
# shellcheck disable=SC2086 # BENCH_NODE_ARGS is a list of options
PPP_LOG_LEVEL=warn PPP_NATIVE_RELAY="$NATIVE_RELAY" node ${BENCH_NODE_ARGS:-} --import tsx src/cli.ts serve --host 127.0.0.1 --port "$PX_PORT" --upstream "127.0.0.1:$DB_PORT" --workers "$PROXY_WORKERS" \
  --warehouse "$OUT/warehouse" >"$OUT/proxy.log" 2>&1 &
PROXY_PID=$!
FLOOR=${BENCH_FLOOR:-node}
[ "$FLOOR" = 1 ] && FLOOR=node
FL_PORT=$(_mariadb_free_port)
case "$FLOOR" in
  node)
    node bench/node-relay-floor.mjs "$FL_PORT" "$DB_PORT" "$PROXY_WORKERS" >"$OUT/floor.log" 2>&1 &
    FLOOR_PID=$! ;;
  native)
    gcc -O2 -Wall -shared -fPIC -I"$(dirname "$(command -v node)")/../include/node" \
      bench/native-relay-floor/relay.c -o "$OUT/native-relay.node" -lpthread
    node bench/native-relay-floor/floor.mjs "$OUT/native-relay.node" "$FL_PORT" "$DB_PORT" "$PROXY_WORKERS" >"$OUT/floor.log" 2>&1 &
    FLOOR_PID=$! ;;
  0) ;;
  *) echo "BENCH_FLOOR: node, native or 0, not '$FLOOR'" >&2; exit 2 ;;
esac
for _ in $(seq 300); do
  mariadb --no-defaults -h127.0.0.1 -P"$PX_PORT" -u"$MARIADB_USER" -p"$MARIADB_PASSWORD" -e 'SELECT 1' >/dev/null 2>&1 && break
  sleep 0.2
done
for _ in $(seq 50); do
  mariadb --no-defaults -h127.0.0.1 -P"$HA_PORT" -u"$MARIADB_USER" -p"$MARIADB_PASSWORD" -e 'SELECT 1' >/dev/null 2>&1 && break
  sleep 0.2
done

if [ "$FLOOR" != 0 ]; then
  for _ in $(seq 50); do
    mariadb --no-defaults -h127.0.0.1 -P"$FL_PORT" -u"$MARIADB_USER" -p"$MARIADB_PASSWORD" -e 'SELECT 1' >/dev/null 2>&1 && break
    sleep 0.2
  done
fi

CLK_TCK=$(getconf CLK_TCK)
# utime + stime of a process and its direct children (the workers when listen.workers > 1)
cpu_ticks() {
  local p t=0
  for p in "$1" $(cat "/proc/$1/task/"*/children 2>/dev/null); do
    [ -r "/proc/$p/stat" ] && t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat")))
  done
  echo "$t"
}

# strace_start <label> <workload> <threads> <pid>: with BENCH_STRACE, counts the system calls of
# <pid>'s threads and worker processes until strace_stop
STRACE_PID=""
strace_start() {
  [ -n "${BENCH_STRACE:-}" ] || return 0
  local p args=()
  for p in "$4" $(cat "/proc/$4/task/"*/children 2>/dev/null); do args+=(-p "$p"); done
  strace -f -c -o "$OUT/strace-$1-$2-$3.txt" "${args[@]}" 2>/dev/null &
  STRACE_PID=$!
  sleep 1
}
PERF_PID=""
perf_start() {
  [ -n "${BENCH_PERF:-}" ] || return 0
  local pids
  pids=$(cat "/proc/$4/task/"*/children 2>/dev/null | xargs | tr ' ' ',')
  perf record -F 999 -g -p "${pids:-$4}" -o "$OUT/perf-$1-$2-$3.data" >"$OUT/perf-$1-$2-$3.log" 2>&1 &
  PERF_PID=$!
  sleep 1
}
tracers_stop() {
  local p
  for p in $STRACE_PID $PERF_PID; do
    kill -INT "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  STRACE_PID=""; PERF_PID=""
}

# run_one <workload> <threads> <port> <label> -> writes "$OUT/<label>-<workload>-<threads>.log"
run_one() {
  case "$4" in haproxy*) strace_start "$4" "$1" "$2" "$HAPROXY_PID"; perf_start "$4" "$1" "$2" "$HAPROXY_PID" ;; proxy*) strace_start "$4" "$1" "$2" "$PROXY_PID"; perf_start "$4" "$1" "$2" "$PROXY_PID" ;; esac
  sysbench "$1" "${SB_COMMON[@]}" --mysql-port="$3" --threads="$2" --time="$SECONDS_PER_RUN" \
    --db-ps-mode="$PS_MODE" --percentile=95 --rand-type=uniform run >"$OUT/$4-$1-$2.log" 2>&1 || echo "run $4 $1 $2 failed: see $OUT/$4-$1-$2.log" >&2
  tracers_stop
}
qps_of() { sed -n 's/.*queries: *[0-9]* *(\([0-9.]*\) per sec.*/\1/p' "$1" | head -1; }
queries_of() { sed -n 's/.*queries: *\([0-9]*\) .*/\1/p' "$1" | head -1; }
p95_of() { sed -n 's/.*95th percentile: *\([0-9.]*\).*/\1/p' "$1" | head -1; }
# median <metric-fn> <target> <workload> <threads>: median of the metric over the rounds
median() {
  local r
  for r in $(seq "$REPEAT"); do "$1" "$OUT/$2-r$r-$3-$4.log"; done | sort -g | awk '{v[NR]=$1} END {print (NR ? v[int((NR+1)/2)] : 0)}'
}

echo "machine: $(nproc) CPU(s), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)"
echo "versions: $(mariadbd --version | awk '{print $3}') | sysbench $(sysbench --version | awk '{print $2}') | $(haproxy -v | head -1 | awk '{print "haproxy", $3}') | node $(node --version)"
echo "floor: $FLOOR, proxy native relay: $NATIVE_RELAY"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "each run ${SECONDS_PER_RUN}s x $REPEAT rounds (medians), proxy workers $PROXY_WORKERS, HAProxy threads $HA_THREADS, --db-ps-mode=$PS_MODE, 4 tables x 10000 rows; sysbench, MariaDB and the relay share this machine"
printf '\n%-18s %4s | %10s %10s %10s %10s | %8s %8s %8s | %8s %8s %8s | %9s | %10s %10s %10s\n' \
  workload thr direct_qps haproxy_qps proxy_qps floor_qps px/dir px/ha fl/ha p95_dir p95_ha p95_px added_p95 px_cpu_us/q ha_cpu_us/q fl_cpu_us/q
for w in $WORKLOADS; do
  for t in $THREADS; do
    run_one "$w" "$t" "$DB_PORT" direct
    # REPEAT rounds in rotating order (direct/haproxy/proxy, haproxy/proxy/direct, ...) so that
    # drifting background load does not favour one target; the medians are reported.
    ticks=0; hticks=0; fticks=0; q=0; hq=0; fq=0
    targets=3; [ "$FLOOR" != 0 ] && targets=4
    for r in $(seq "$REPEAT"); do
      for k in $(seq 0 $((targets - 1))); do
        case $(((k + r) % targets)) in
          0) run_one "$w" "$t" "$DB_PORT" "direct-r$r" ;;
          1) hb=$(cpu_ticks "$HAPROXY_PID"); run_one "$w" "$t" "$HA_PORT" "haproxy-r$r"; ha=$(cpu_ticks "$HAPROXY_PID")
             hticks=$((hticks + ha - hb)); hq=$((hq + $(queries_of "$OUT/haproxy-r$r-$w-$t.log"))) ;;
          2) pb=$(cpu_ticks "$PROXY_PID"); run_one "$w" "$t" "$PX_PORT" "proxy-r$r"; pa=$(cpu_ticks "$PROXY_PID")
             ticks=$((ticks + pa - pb)); q=$((q + $(queries_of "$OUT/proxy-r$r-$w-$t.log"))) ;;
          3) fb=$(cpu_ticks "$FLOOR_PID"); run_one "$w" "$t" "$FL_PORT" "floor-r$r"; fa=$(cpu_ticks "$FLOOR_PID")
             fticks=$((fticks + fa - fb)); fq=$((fq + $(queries_of "$OUT/floor-r$r-$w-$t.log"))) ;;
        esac
      done
    done
    d=$(median qps_of direct "$w" "$t"); h=$(median qps_of haproxy "$w" "$t"); p=$(median qps_of proxy "$w" "$t")
    pd=$(median p95_of direct "$w" "$t"); ph=$(median p95_of haproxy "$w" "$t"); pp=$(median p95_of proxy "$w" "$t")
    f=0; [ "$FLOOR" != 0 ] && f=$(median qps_of floor "$w" "$t")
    awk -v w="$w" -v t="$t" -v d="$d" -v h="$h" -v p="$p" -v f="$f" -v pd="$pd" -v ph="$ph" -v pp="$pp" \
      -v ticks="$ticks" -v hticks="$hticks" -v fticks="$fticks" -v hz="$CLK_TCK" -v q="$q" -v hq="$hq" -v fq="$fq" 'BEGIN {
        printf "%-18s %4d | %10.0f %10.0f %10.0f %10.0f | %8.3f %8.3f %8.3f | %8.2f %8.2f %8.2f | %+8.2fms | %10.1f %10.1f %10.1f\n",
          w, t, d, h, p, f, (d > 0 ? p / d : 0), (h > 0 ? p / h : 0), (h > 0 ? f / h : 0), pd, ph, pp, pp - pd,
          (q > 0 ? ticks / hz * 1e6 / q : 0), (hq > 0 ? hticks / hz * 1e6 / hq : 0), (fq > 0 ? fticks / hz * 1e6 / fq : 0) }'
  done
done
echo
echo "logs: $OUT"
