/**
 * Ours versus Flink's own `CALL sys.<procedure>` (PyFlink 2.0.2 + paimon-flink-2.0 1.4.2 in its
 * local mini-cluster, the peer of tests/interop/flink-peer.ts) for expire_snapshots,
 * remove_orphan_files and compact, each on two identical copies of one Java-written table, in one
 * run; prints the times, the ratios, the peak memory and the load average.
 *
 *   node --import tsx bench/flink-procedures.ts
 *
 * Env: BENCH_SNAPSHOTS (snapshots of the expiry/orphan table, default 500), BENCH_RETAIN (kept,
 * default 10), BENCH_PER_SNAPSHOT (data files per commit, default 10), BENCH_ORPHANS (old orphan
 * files planted, default 2000), BENCH_COMPACT_COMMITS / BENCH_COMPACT_ROWS (commits of rows each
 * into the primary-key table compact rewrites, default 20 x 5000).
 *
 * The expiry/orphan history is PaimonTool `synth-history` (Paimon's commit path, empty data files:
 * neither procedure reads data files), as in bench/procedures-maintenance.ts, at a smaller default
 * scale because Flink's CALL runs in a JVM of 384 MB heap here. The compact table is written by
 * Paimon Java with real rows. Times are wall times of the call as a user sees it: Flink's from
 * submitting the CALL to its answer in an already running peer (compact includes its job's
 * start), ours around executor.run() in this process. Memory: our process's peak RSS sampled
 * every 20 ms during our call; Flink's peer JVM's peak RSS (VmHWM, over the whole run) plus its
 * python process's.
 */
import { mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { builtinProcedures } from '../procedures/index.js';
import { flink } from '../tests/interop/flink-peer.js';
import { flinkCatalog } from '../tests/interop/engines-support.js';
import { callNamed, copyWarehouse, executorFor, liveDataFiles, paimon, tempDir } from '../tests/interop/procedures-support.js';
import { java } from '../tests/interop/peers.js';

const SNAPSHOTS = Number(process.env.BENCH_SNAPSHOTS ?? 500);
const RETAIN = Number(process.env.BENCH_RETAIN ?? 10);
const PER_SNAPSHOT = Number(process.env.BENCH_PER_SNAPSHOT ?? 10);
const ORPHANS = Number(process.env.BENCH_ORPHANS ?? 2000);
const COMPACT_COMMITS = Number(process.env.BENCH_COMPACT_COMMITS ?? 20);
const COMPACT_ROWS = Number(process.env.BENCH_COMPACT_ROWS ?? 5000);
const DAY = 86_400_000;

const load = (): string => loadavg().map((x) => x.toFixed(2)).join(' ');
const sec = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const mb = (kb: number | null | undefined): string => (kb == null ? '?' : `${Math.round(kb / 1024)} MB`);

/** Flink's timestamp literal: local wall time, as its procedures parse it. */
function localTimestamp(ms: number): string {
  const d = new Date(ms);
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** Our call, timed, with this process's peak RSS while it ran. */
async function ours(wh: string, proc: string, args: Record<string, string | number>): Promise<{ ms: number; rssKb: number }> {
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const t0 = performance.now();
  const o = await callNamed(executorFor(wh, builtinProcedures), proc, args);
  const ms = performance.now() - t0;
  clearInterval(sampler);
  if (!o.ok) throw new Error(`ours ${proc}: ${o.error.code}: ${o.error.message}`);
  return { ms, rssKb: Math.round(Math.max(peak, process.memoryUsage().rss) / 1024) };
}

const peer = flink('1.4.2');
let catalogs = 0;
async function flinkCall(wh: string, call: (catalog: string) => string): Promise<number> {
  const name = `b${catalogs++}`;
  await flinkCatalog(peer, name, wh);
  const t0 = performance.now();
  await peer.sql(call(name), { timeoutMs: 3_600_000 });
  return performance.now() - t0;
}

/** Two copies of `origin`: Flink's and ours. */
function copies(origin: string, what: string): [string, string] {
  const f = join(root, `${what}-flink`);
  const o = join(root, `${what}-ours`);
  copyWarehouse(origin, f);
  copyWarehouse(origin, o);
  return [f, o];
}

const root = tempDir('bench-flink-procedures-');
console.log(`load average at start: ${load()}`);
await peer.sql('SELECT 1');
console.log('Flink peer started');

// --- the expiry/orphan history -------------------------------------------------------------
const history = join(root, 'history');
await paimon('1.4.2', 'synth-history', history, 'interop', 't', String(SNAPSHOTS), String(PER_SNAPSHOT), 'touch');
console.log(`history: ${SNAPSHOTS} snapshots x ${PER_SNAPSHOT} data files`);

const results: { proc: string; flinkMs: number; oursMs: number; oursRssKb: number; same: boolean }[] = [];

{
  const [f, o] = copies(history, 'expire');
  const cutoff = Date.now() - 1000;
  console.log(`expire_snapshots (load ${load()})`);
  const flinkMs = await flinkCall(f, (c) => `CALL \`${c}\`.sys.expire_snapshots(\`table\` => 'interop.t', retain_max => ${RETAIN}, retain_min => 1, older_than => '${localTimestamp(cutoff)}')`);
  const us = await ours(o, 'expire_snapshots', { table: 'interop.t', retain_max: RETAIN, retain_min: 1, older_than: String(cutoff) });
  const same = readdirSync(join(f, 'interop.db/t/snapshot')).sort().join() === readdirSync(join(o, 'interop.db/t/snapshot')).sort().join();
  results.push({ proc: 'expire_snapshots', flinkMs, oursMs: us.ms, oursRssKb: us.rssKb, same });
}

{
  const [f, o] = copies(history, 'orphan');
  const old = (Date.now() - 3 * DAY) / 1000;
  for (const wh of [f, o]) {
    // In a bucket directory of a partition: Paimon looks for orphans only there.
    const dir = join(wh, 'interop.db/t/dt=2024-01-10/bucket-0');
    mkdirSync(dir, { recursive: true });
    for (let i = 0; i < ORPHANS; i++) {
      const p = join(dir, `data-orphan-${i}.parquet`);
      writeFileSync(p, '');
      utimesSync(p, old, old);
    }
  }
  const cutoff = Date.now() - DAY;
  console.log(`remove_orphan_files over ${ORPHANS} orphans (load ${load()})`);
  const flinkMs = await flinkCall(f, (c) => `CALL \`${c}\`.sys.remove_orphan_files(\`table\` => 'interop.t', older_than => '${localTimestamp(cutoff)}', mode => 'local')`);
  const us = await ours(o, 'remove_orphan_files', { table: 'interop.t', older_than: String(cutoff) });
  const left = (wh: string): number => readdirSync(join(wh, 'interop.db/t/dt=2024-01-10/bucket-0')).filter((x) => x.startsWith('data-orphan-')).length;
  results.push({ proc: 'remove_orphan_files', flinkMs, oursMs: us.ms, oursRssKb: us.rssKb, same: left(f) === 0 && left(o) === 0 });
}

{
  const origin = join(root, 'compact');
  const b = java('1.4');
  await b.createTable(origin, 'interop', 't', {
    fields: [{ name: 'id', type: 'INT NOT NULL' }, { name: 'v', type: 'STRING' }, { name: 'n', type: 'BIGINT' }],
    primaryKeys: ['id'],
    options: { bucket: '2' },
  });
  for (let c = 0; c < COMPACT_COMMITS; c++) {
    await b.write(origin, 'interop', 't', Array.from({ length: COMPACT_ROWS }, (_, i) => ({ id: (i * 7919 + c * 13) % (COMPACT_ROWS * 2), v: `v${c}-${i}`, n: c })));
  }
  console.log(`compact table: ${COMPACT_COMMITS} commits x ${COMPACT_ROWS} rows`);
  const [f, o] = copies(origin, 'compact');
  console.log(`compact (load ${load()})`);
  const flinkMs = await flinkCall(f, (c) => `CALL \`${c}\`.sys.compact(\`table\` => 'interop.t')`);
  const us = await ours(o, 'compact', { table: 'interop.t' });
  const files = async (wh: string): Promise<number> => (await liveDataFiles(wh, 'interop', 't')).length;
  results.push({ proc: 'compact', flinkMs, oursMs: us.ms, oursRssKb: us.rssKb, same: (await files(f)) === (await files(o)) });
}

const s = await peer.stats();
peer.stop();
console.log(`\nFlink peer peak RSS: JVM ${mb(s.vmHwmKb)} + python ${mb(s.pythonHwmKb)}; load average at end: ${load()}`);
for (const r of results) {
  console.log(
    `${r.proc.padEnd(20)} Flink CALL ${sec(r.flinkMs).padStart(9)}  ours ${sec(r.oursMs).padStart(9)}  ours/Flink ${(r.oursMs / r.flinkMs).toFixed(2)}  our peak RSS ${mb(r.oursRssKb)}  same outcome: ${r.same}`,
  );
}
if (results.some((r) => !r.same)) process.exitCode = 1;
