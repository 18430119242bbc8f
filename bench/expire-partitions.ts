/**
 * expire_partitions over many partitions: ours (through the procedure executor) versus Paimon
 * Java's own PartitionExpire (tests/interop/java/PartitionTool.java, what ExpirePartitionsProcedure
 * runs), on identical copies of one Java-written table, in the same run; prints the times and the
 * ratio, and checks that both leave the same live files.
 *
 *   node --import tsx bench/expire-partitions.ts
 *
 * Env: BENCH_PARTITIONS (default 2000: one 'yyyy-MM-dd' partition per day from 2015-01-01),
 * BENCH_COMMITS (Java commits writing one row into every partition, default 2, so 2 files per
 * partition), BENCH_VERSION ('1.4' | '2.0', default '2.0').
 *
 * Java's time is measured inside its JVM around newPartitionExpire + expire (a fresh JVM, so it
 * includes Paimon's class loading, not the JVM start); ours around executor.run() (table load
 * included), first call in this process.
 */
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { partitionProcedures } from '../procedures/partitions/index.js';
import { callNamed, copyWarehouse, executorFor, liveDataFiles, tempDir } from '../tests/interop/procedures-support.js';
import { java, PaimonJava, parseJson, type PaimonJavaVersion } from '../tests/interop/peers.js';

const PARTITIONS = Number(process.env.BENCH_PARTITIONS ?? 2000);
const COMMITS = Number(process.env.BENCH_COMMITS ?? 2);
const VERSION = (process.env.BENCH_VERSION ?? '2.0') as PaimonJavaVersion;
const DB = 'db';
const TBL = 't';

const builder = java(VERSION);
const timed = new PaimonJava(VERSION, { quickStart: false });

function day(i: number): string {
  return new Date(Date.UTC(2015, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
}

const root = tempDir('bench-expire-partitions-');
const origin = join(root, 'origin');
console.log(`table: ${PARTITIONS} partitions x ${COMMITS} files (Paimon ${timed.fullVersion})`);
let t0 = performance.now();
await builder.createTable(origin, DB, TBL, {
  fields: [{ name: 'dt', type: 'STRING' }, { name: 'id', type: 'INT' }, { name: 'v', type: 'STRING' }],
  partitionKeys: ['dt'],
  options: { bucket: '-1' },
});
for (let c = 0; c < COMMITS; c++) await builder.write(origin, DB, TBL, Array.from({ length: PARTITIONS }, (_, i) => ({ dt: day(i), id: c * PARTITIONS + i, v: `v${c}` })));
console.log(`built in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

const a = join(root, 'java');
const b = join(root, 'ours');
copyWarehouse(origin, a);
copyWarehouse(origin, b);

const javaRun = await timed.runMain('PartitionTool', ['expire-partitions', a, DB, TBL, '1 d', '-', '-', '-', String(PARTITIONS), '-'], { timeoutMs: 3_600_000 });
const javaOut = parseJson(javaRun.stdout.trim()) as unknown as { expired: string[]; millis: number };

t0 = performance.now();
const o = await callNamed(executorFor(b, partitionProcedures), 'expire_partitions', { table: `${DB}.${TBL}`, expiration_time: '1 d', max_expires: PARTITIONS });
const oursMillis = performance.now() - t0;
if (!o.ok) throw new Error(`expire_partitions: ${o.error.code}: ${o.error.message}`);

const same = JSON.stringify(await liveDataFiles(a, DB, TBL)) === JSON.stringify(await liveDataFiles(b, DB, TBL));
const sameRows = JSON.stringify(javaOut.expired) === JSON.stringify(o.result.rows.map((r) => r.expired_partitions));
console.log(`Java PartitionExpire: ${javaOut.expired.length} partitions in ${javaOut.millis} ms`);
console.log(`ours expire_partitions: ${o.result.rows.length} partitions in ${oursMillis.toFixed(0)} ms`);
console.log(`ratio ours/Java: ${(oursMillis / javaOut.millis).toFixed(2)}; same result rows: ${sameRows}; same live files: ${same}`);
if (!same || !sameRows) process.exitCode = 1;
