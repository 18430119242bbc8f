/**
 * expire_snapshots and remove_orphan_files: ours (in process, through the executor) versus
 * Paimon Java's ExpireSnapshotsImpl / LocalOrphanFilesClean, on copies of the same
 * Java-written table, measured in the same run. Prints times and ratios (ours / Java).
 *
 * Java's time is the wall time of the reference tool's command minus the wall time of the
 * same tool doing the same table load with nothing to do (`expire` with max_deletes 0), so JVM
 * start and class loading are not counted against Java.
 *
 *   node --import tsx bench/procedures-maintenance.ts
 * Env: BENCH_SNAPSHOTS (default 2000), BENCH_ORPHANS (default 10000), BENCH_EXTRA_FILES
 * (default 0: unreferenced-but-young files added to reach a larger listing), PROCS_JAVA_DIR.
 */
import { mkdirSync, utimesSync, writeFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { expireSnapshots } from '../procedures/expire-snapshots.js';
import { removeOrphanFiles } from '../procedures/remove-orphan-files.js';
import { callNamed, copyWarehouse, executorFor, firstRow, listTree, paimon, tempDir, writeSchema } from '../tests/interop/procedures-support.js';

const V = '1.4.2' as const;
const SNAPSHOTS = Number(process.env.BENCH_SNAPSHOTS ?? 2000);
const ORPHANS = Number(process.env.BENCH_ORPHANS ?? 10_000);
const EXTRA = Number(process.env.BENCH_EXTRA_FILES ?? 0);
const TABLE = 'interop.db/t';
const OLD = (Date.now() - 3 * 86_400_000) / 1000;

async function wall(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

function age(dir: string): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) age(p);
    utimesSync(p, OLD, OLD);
  }
}

const root = tempDir('bench-procs-');
const origin = join(root, 'origin');
console.log(`building a Paimon ${V} table with ${SNAPSHOTS} snapshots ...`);
const schema = writeSchema(root, {
  fields: [
    { name: 'id', type: 'INT NOT NULL' },
    { name: 'v', type: 'STRING' },
  ],
  primaryKeys: ['id'],
  options: { bucket: '4', 'write-only': 'true' },
});
await paimon(V, 'create-table', origin, 'interop', 't', schema);
const built = await wall(() => paimon(V, 'write-loop', origin, 'interop', 't', String(SNAPSHOTS), '0', '0'));
console.log(`  built in ${(built / 1000).toFixed(1)} s`);

// --- expire_snapshots: expire all but the newest 10 ---------------------------------------
const olderThan = String(Date.now());
const [ja, jb, ob] = ['java-base', 'java', 'ours'].map((n) => join(root, `expire-${n}`));
for (const d of [ja, jb, ob]) copyWarehouse(origin, d);
const javaBase = await wall(() => paimon(V, 'expire', ja, 'interop', 't', '10', '2147483647', olderThan, '0'));
const javaExpire = await wall(() => paimon(V, 'expire', jb, 'interop', 't', '10', '2147483647', olderThan, '2147483647'));
const ex = executorFor(ob, [expireSnapshots], { delete_concurrency: 16 });
let oursRow: Record<string, unknown> = {};
const oursExpire = await wall(async () => {
  oursRow = firstRow(
    await callNamed(ex, 'expire_snapshots', { table: 'interop.t', retain_min: 10, max_deletes: 2147483647, older_than: olderThan }),
  );
});
const same = JSON.stringify(listTree(join(ob, TABLE))) === JSON.stringify(listTree(join(jb, TABLE)));
const javaNet = Math.max(1, javaExpire - javaBase);
console.log(
  `expire_snapshots: ${String(oursRow.deleted_snapshots_count)} snapshots, ${String(oursRow.deleted_files)} files; ` +
    `ours ${oursExpire.toFixed(0)} ms, Java ${javaNet.toFixed(0)} ms (wall ${javaExpire.toFixed(0)} - load ${javaBase.toFixed(0)}); ` +
    `ratio ours/Java = ${(oursExpire / javaNet).toFixed(2)}; same files left: ${same}`,
);

// --- remove_orphan_files: plant orphans in the expired table's copies ----------------------
const [oa, ow] = ['java', 'ours'].map((n) => join(root, `orphan-${n}`));
copyWarehouse(jb, oa);
age(oa);
const bucket = join(oa, TABLE, 'bucket-0');
mkdirSync(bucket, { recursive: true });
for (let i = 0; i < ORPHANS; i++) {
  const p = join(bucket, `data-orphan-${i}.parquet`);
  writeFileSync(p, 'x');
  utimesSync(p, OLD, OLD);
}
for (let i = 0; i < EXTRA; i++) writeFileSync(join(bucket, `data-young-${i}.parquet`), 'x');
copyWarehouse(oa, ow);
const files = listTree(join(ow, TABLE)).length;
const cutoff = String(Date.now() - 86_400_000);
const javaOrphan = await wall(() => paimon(V, 'orphan-clean', oa, 'interop', 't', cutoff, 'false'));
const ex2 = executorFor(ow, [removeOrphanFiles], { delete_concurrency: 16 });
let orphanRow: Record<string, unknown> = {};
const oursOrphan = await wall(async () => {
  orphanRow = firstRow(await callNamed(ex2, 'remove_orphan_files', { table: 'interop.t' }));
});
const javaOrphanNet = Math.max(1, javaOrphan - javaBase);
console.log(
  `remove_orphan_files: ${files} files, ${String(orphanRow.deletedFileCount)} deleted; ours ${oursOrphan.toFixed(0)} ms, ` +
    `Java ${javaOrphanNet.toFixed(0)} ms (wall ${javaOrphan.toFixed(0)} - load ${javaBase.toFixed(0)}); ratio ours/Java = ${(oursOrphan / javaOrphanNet).toFixed(2)}; ` +
    `same files left: ${JSON.stringify(listTree(join(ow, TABLE))) === JSON.stringify(listTree(join(oa, TABLE)))}`,
);
