/**
 * compact_database over many small tables: ours (through the procedure executor, one table at a
 * time within procedures.compact_memory_budget_mb) versus Paimon Java's compaction of the same
 * tables one after another in one fresh JVM (tests/interop/java/RepairTool.java `compact-tables`:
 * PaimonTool's full compaction per table, the work Flink's compact_database does per table in
 * divided mode), on identical copies of one Java-written warehouse, in the same run. Prints both
 * times, the tables per second and the ratio, and checks that Java reads the same rows from both.
 *
 *   node --import tsx bench/compact-database.ts
 *
 * Env: BENCH_TABLES (default 50 primary-key tables, bucket 1), BENCH_COMMITS (default 6: commits of
 * BENCH_ROWS rows each, so 6 level-0 files per table), BENCH_ROWS (default 200), BENCH_VERSION
 * ('1.4' | '2.0', default '2.0').
 *
 * Java's time is measured inside its JVM around the compactions (class loading included, JVM
 * start excluded); ours around executor.run() (catalog listing and table loads included), the
 * first call in this process.
 */
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { compactionProcedures } from '../procedures/compaction/index.js';
import { callNamed, copyWarehouse, executorFor, tempDir } from '../tests/interop/procedures-support.js';
import { java, PaimonJava, parseJson, type PaimonJavaVersion } from '../tests/interop/peers.js';
import { canonRows } from '../tests/interop/compact-support.js';
import { closeDataEngine } from '../src/paimon/data/duckdb-engine.js';

const TABLES = Number(process.env.BENCH_TABLES ?? 50);
const COMMITS = Number(process.env.BENCH_COMMITS ?? 6);
const ROWS = Number(process.env.BENCH_ROWS ?? 200);
const VERSION = (process.env.BENCH_VERSION ?? '2.0') as PaimonJavaVersion;
const DB = 'bench';

const builder = java(VERSION);
const timed = new PaimonJava(VERSION, { quickStart: false });
const names = Array.from({ length: TABLES }, (_, i) => `t${String(i).padStart(3, '0')}`);

const root = tempDir('bench-compact-database-');
const origin = join(root, 'origin');
console.log(`warehouse: ${TABLES} tables x ${COMMITS} commits x ${ROWS} rows (Paimon ${timed.fullVersion})`);
let t0 = performance.now();
for (const [i, t] of names.entries()) {
  await builder.createTable(origin, DB, t, {
    fields: [{ name: 'id', type: 'INT NOT NULL' }, { name: 'v', type: 'STRING' }],
    primaryKeys: ['id'],
    partitionKeys: [],
    options: { bucket: '1', 'write-only': 'true' },
  });
  for (let c = 0; c < COMMITS; c++) await builder.write(origin, DB, t, Array.from({ length: ROWS }, (_, k) => ({ id: (c * ROWS + k * 7 + i) % (ROWS * 3), v: `${t}-${c}-${k}` })));
}
console.log(`built in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

const a = join(root, 'java');
const b = join(root, 'ours');
copyWarehouse(origin, a);
copyWarehouse(origin, b);

const javaRun = await timed.runMain('RepairTool', ['compact-tables', a, DB, names.join(',')], { timeoutMs: 3_600_000 });
if (javaRun.code !== 0) throw new Error(`RepairTool compact-tables failed: ${javaRun.stderr}`);
const javaMillis = Number((parseJson(javaRun.stdout.trim().split('\n').pop()!) as { millis: number }).millis);

t0 = performance.now();
const o = await callNamed(executorFor(b, compactionProcedures), 'compact_database', { including_databases: DB });
const oursMillis = performance.now() - t0;
if (!o.ok) throw new Error(`compact_database: ${o.error.code}: ${o.error.message}`);
const compacted = o.result.rows.filter((r) => r.outcome === 'compacted').length;

let same = true;
for (const t of names) {
  if (JSON.stringify(canonRows(await builder.read(a, DB, t))) !== JSON.stringify(canonRows(await builder.read(b, DB, t)))) {
    same = false;
    console.log(`rows differ in ${DB}.${t}`);
  }
}
const rate = (ms: number): string => ((TABLES * 1000) / ms).toFixed(1);
console.log(`Java compaction of ${TABLES} tables: ${javaMillis} ms (${rate(javaMillis)} tables/s)`);
console.log(`ours compact_database: ${compacted} of ${TABLES} compacted in ${oursMillis.toFixed(0)} ms (${rate(oursMillis)} tables/s)`);
console.log(`ratio ours/Java: ${(oursMillis / javaMillis).toFixed(2)}; Java reads the same rows: ${same}`);
await closeDataEngine();
if (!same || compacted !== TABLES) process.exitCode = 1;
