/**
 * Spark 3.5 with paimon-spark-3.5 0.9.0 (the only Spark connector the registries here serve) reads
 * what our procedures leave, as a user on an old Spark would.
 *
 * What 0.9 reads of the shared Java 1.4.2 histories (kindsWarehouse, with branch b1 on the
 * ENGINE_TABLES: enginesWarehouse): every table kind there (append, primary key with deduplicate on
 * legacy partition names, partial-update, aggregation, first-row, input changelog, deletion vectors)
 * with its tags (VERSION AS OF '<tag>'), branches (`t$branch_<b>`) and system tables, as Paimon Java
 * reads them. It cannot read k_pk, whose partition.legacy-name=false (an option 0.9 does not know)
 * puts files under dt=2022-01-08 where 0.9 looks under dt=<days since 1970>: the first test pins that
 * refusal and its error, and that of a postpone-bucket table (bucket -2). In its place stands s_pk, a partitioned primary-key table CREATED AND
 * WRITTEN BY SPARK 0.9 (tag2 and branch b1 added by Paimon Java as for the other kinds).
 *
 * Then every built-in procedure runs through our executor on a copy of that warehouse, and Spark
 * reads the latest snapshot, every tag and branch of every table it changed, and $snapshots, $tags
 * and $files: the rows must equal Paimon Java 1.4.2's reads, the system tables what is on disk.
 * What each procedure must do is asserted in engines-flink.test.ts; this file is about the reader.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtinProcedures } from '../../procedures/index.js';
import type { CallOutcome } from '../../procedures/framework/executor.js';
import { spark, SPARK_PAIMON_VERSION } from './spark-peer.js';
import {
  enginesWarehouse,
  javaBatchAll,
  javaRowTexts,
  javaTarget,
  onDisk,
  orphanPath,
  rowText,
  tableFingerprint,
  targetLabel,
  targetsOf,
  type Target,
} from './engines-support.js';
import { callNamed, copyWarehouse, executorFor, javaBatch, KIND_TABLES, liveDataFiles, ourCopy, plant, tempDir, writeSchema } from './procedures-support.js';

const V = '1.4.2' as const;
const peer = spark();

/** The shared kinds 0.9 reads, plus the Spark-written partitioned primary-key table. */
const SPARK_TABLES = ['k_agg', 'k_append', 'k_dv', 's_pk'] as const;
type SparkTable = (typeof SPARK_TABLES)[number];

type Args = Record<string, string | number | bigint | boolean | null>;

/** Commit time (ms) of snapshot `id` of main, from its file. */
function snapshotMillis(wh: string, table: string, id: number): number {
  return (JSON.parse(readFileSync(join(wh, 'interop.db', table, 'snapshot', `snapshot-${id}`), 'utf8')) as { timeMillis: number }).timeMillis;
}

/** Each built-in procedure with arguments that make it act on the histories here (as in engines-flink.test.ts). */
const CASES: { proc: string; args: (t: string, wh: string) => Args; prepare?: (wh: string) => void }[] = [
  { proc: 'expire_snapshots', args: (t) => ({ table: `interop.${t}`, retain_min: 1, retain_max: 3, older_than: String(Date.now()) }) },
  { proc: 'rollback_to', args: (t) => ({ table: `interop.${t}`, snapshot_id: 6 }) },
  { proc: 'rollback', args: (t) => ({ table: `interop.${t}`, version: '6' }) },
  { proc: 'rollback_to_timestamp', args: (t, wh) => ({ table: `interop.${t}`, timestamp: snapshotMillis(wh, t, 6) }) },
  { proc: 'rollback_to_as_latest', args: (t) => ({ table: `interop.${t}`, snapshot_id: 6 }) },
  {
    proc: 'remove_orphan_files',
    prepare: (wh) => {
      for (const t of SPARK_TABLES) plant(wh, orphanPath(wh, t));
    },
    args: (t) => ({ table: `interop.${t}` }),
  },
  { proc: 'compact', args: (t) => ({ table: `interop.${t}` }) },
  { proc: 'create_tag', args: (t) => ({ table: `interop.${t}`, tag: 'tf', snapshot_id: 5 }) },
  { proc: 'create_tag_from_timestamp', args: (t, wh) => ({ table: `interop.${t}`, tag: 'tts', timestamp: snapshotMillis(wh, t, 6) }) },
  { proc: 'delete_tag', args: (t) => ({ table: `interop.${t}`, tag: 'tag2' }) },
  { proc: 'rename_tag', args: (t) => ({ table: `interop.${t}`, tag: 'tag2', target_tag: 'tag2r' }) },
  { proc: 'replace_tag', args: (t) => ({ table: `interop.${t}`, tag: 'tag2', snapshot_id: 5 }) },
  { proc: 'expire_tags', args: (t) => ({ table: `interop.${t}` }) },
  { proc: 'trigger_tag_automatic_creation', args: (t) => ({ table: `interop.${t}` }) },
  { proc: 'create_branch', args: (t) => ({ table: `interop.${t}`, branch: 'b2', tag: 'tag2' }) },
  { proc: 'delete_branch', args: (t) => ({ table: `interop.${t}`, branch: 'b1' }) },
  { proc: 'rename_branch', args: (t) => ({ table: `interop.${t}`, from_branch: 'b1', to_branch: 'b3' }) },
  { proc: 'fast_forward', args: (t) => ({ table: `interop.${t}`, branch: 'b1', force: true }) },
  { proc: 'merge_branch', args: (t) => ({ table: `interop.${t}`, source_branch: 'b1' }) },
  { proc: 'rollback_to_watermark', args: (t) => ({ table: `interop.${t}`, watermark: 4102444800000 }) },
  { proc: 'compact_database', args: (t) => ({ including_databases: 'interop', including_tables: `interop.${t}` }) },
  { proc: 'reset_consumer', args: (t) => ({ table: `interop.${t}`, consumer_id: 'c1', next_snapshot_id: 5 }) },
  { proc: 'clear_consumers', args: (t) => ({ table: `interop.${t}` }) },
  { proc: 'expire_changelogs', args: (t) => ({ table: `interop.${t}` }) },
  { proc: 'expire_partitions', args: (t) => ({ table: `interop.${t}`, expiration_time: '1 d', timestamp_formatter: 'yyyy-MM-dd' }) },
  { proc: 'remove_unexisting_files', args: (t) => ({ table: `interop.${t}` }) },
  { proc: 'compact_manifest', args: (t) => ({ table: `interop.${t}` }) },
  { proc: 'mark_partition_done', args: (t) => ({ table: `interop.${t}`, partitions: 'dt=2022-01-08' }) },
  { proc: 'purge_files', args: (t) => ({ table: `interop.${t}`, dry_run: false }) },
  { proc: 'repair_earliest_snapshot', args: (t) => ({ table: `interop.${t}`, snapshot_id: 1 }) },
];

const quote = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/** Registers Paimon catalog `name` on `wh` in the SparkSession (before its first use). */
async function sparkCatalog(name: string, wh: string): Promise<void> {
  await peer.sql(`SET spark.sql.catalog.${name}=org.apache.paimon.spark.SparkCatalog`);
  await peer.sql(`SET spark.sql.catalog.${name}.warehouse=file:${wh}`);
}

function sparkFrom(catalog: string, table: string, target: Target): string {
  const base = `\`${catalog}\`.\`interop\``;
  if (target.kind === 'branch') return `${base}.\`${table}$branch_${target.name}\``;
  if (target.kind === 'tag') return `${base}.\`${table}\` VERSION AS OF ${quote(target.name)}`;
  return `${base}.\`${table}\``;
}

/** Sources per Spark query: each query costs a planning round per source, so few wide ones are quicker. */
const SOURCES_PER_QUERY = 40;

/** Rows of UNION ALL queries over `parts` (each selecting a key column k first): k -> rows. */
async function sparkUnion(parts: readonly string[]): Promise<Map<string, Record<string, unknown>[]>> {
  const out = new Map<string, Record<string, unknown>[]>();
  for (let i = 0; i < parts.length; i += SOURCES_PER_QUERY) {
    for (const row of (await peer.sql(parts.slice(i, i + SOURCES_PER_QUERY).join('\nUNION ALL\n'), { timeoutMs: 600_000 })).rows) {
      const list = out.get(String(row.k)) ?? [];
      list.push(row);
      out.set(String(row.k), list);
    }
  }
  return out;
}

/** The shared Java history of the kinds 0.9 reads, plus s_pk written by Spark 0.9 itself. */
async function sparkWarehouse(): Promise<string> {
  const wh = join(tempDir('engines-spark-origin-'), 'wh');
  copyWarehouse(await enginesWarehouse(V), wh);
  await sparkCatalog('origin', wh);
  await peer.sql(
    "CREATE TABLE origin.interop.s_pk (id INT, dt DATE, v STRING, n BIGINT) PARTITIONED BY (dt) TBLPROPERTIES ('primary-key'='dt,id', 'bucket'='2')",
  );
  for (let i = 1; i <= 10; i++) {
    // Every commit rewrites one key of the commit before, so the snapshots read differently.
    await peer.sql(`INSERT INTO origin.interop.s_pk VALUES (${i}, DATE '2022-01-0${1 + (i % 8)}', 'v${i}', ${i}), (${i - 1}, DATE '2022-01-0${1 + ((i - 1) % 8)}', 'u${i}', ${10 * i})`);
  }
  // A postpone-bucket table (bucket -2, Paimon 1.1+), which 0.9 cannot plan.
  const postpone = writeSchema(join(wh, '..'), { ...KIND_TABLES[0]!.schema, primaryKeys: ['id'], options: { bucket: '-2' } });
  await javaBatch(V, [
    ['create-table', wh, 'interop', 'k_postpone', postpone],
    ['write-loop', wh, 'interop', 'k_postpone', '2', '0', '0'],
    ['create-tag', wh, 'interop', 's_pk', 'tag2', '2'],
    ['create-branch', wh, 'interop', 's_pk', 'b1', 'tag2'],
    ['write-loop', wh, 'interop', 's_pk$branch_b1', '1', '0', '50'],
  ]);
  return wh;
}

interface CaseRun {
  proc: string;
  wh: string;
  catalog: string;
  outcomes: Map<SparkTable, CallOutcome>;
  changed: Set<SparkTable>;
}

describe(`Spark 3.5 (paimon-spark-3.5 ${SPARK_PAIMON_VERSION}) reads our procedures' results`, () => {
  const runs: CaseRun[] = [];
  let origin = '';
  const started = Date.now();
  const phase = (what: string): void => console.log(`engines-spark: ${what} at ${Math.round((Date.now() - started) / 1000)} s`);

  before(async () => {
    origin = await sparkWarehouse();
    phase('the Spark-written table and the shared warehouse are ready');
    const known = new Set(builtinProcedures.map((p) => p.name));
    for (const [i, c] of CASES.entries()) {
      if (!known.has(c.proc)) continue;
      const wh = ourCopy(origin, `engines-spark-${c.proc}`);
      c.prepare?.(wh);
      const outcomes = new Map<SparkTable, CallOutcome>();
      const changed = new Set<SparkTable>();
      for (const t of SPARK_TABLES) {
        const print = tableFingerprint(wh, t);
        outcomes.set(t, await callNamed(executorFor(wh, builtinProcedures), c.proc, c.args(t, wh)));
        if (tableFingerprint(wh, t) !== print) changed.add(t);
      }
      runs.push({ proc: c.proc, wh, catalog: `c${i}`, outcomes, changed });
    }
    phase(`our ${runs.length} procedures ran`);
  });

  after(async () => {
    const s = await peer.stats().catch(() => null);
    console.log(`engines-spark: Spark JVM peak RSS ${s?.vmHwmKb ?? '?'} kB; ${Date.now() - started} ms`);
    peer.stop();
  });

  test('every built-in procedure has a case here', () => {
    const missing = builtinProcedures.map((p) => p.name).filter((n) => !CASES.some((c) => c.proc === n));
    assert.deepEqual(missing, [], 'add a case for each new procedure');
  });

  test('Spark 0.9 reads s_pk (its own) and every shared Java 1.4.2 kind as Java does, except k_pk (partition.legacy-name=false) and a postpone-bucket table', async () => {
    const targets = [...KIND_TABLES.map((k) => k.name), 's_pk', 'k_postpone'].flatMap((t) => targetsOf(origin, t).map((target) => ({ t, target })));
    const java = await javaBatchAll(
      V,
      targets.map(({ t, target }) => ['read', origin, 'interop', t, ...javaTarget(target)]),
    );
    for (const [i, { t, target }] of targets.entries()) {
      const where = `${t} ${targetLabel(target)}`;
      const got = await peer.trySql(`SELECT id, dt, v, n FROM ${sparkFrom('origin', t, target)}`);
      assert.ok(java[i]?.ok, `${where}: Paimon Java reads it: ${java[i]?.error ?? ''}`);
      if (t === 'k_pk') {
        // 0.9 names partition directories by the DATE's day number (its only naming); the files are
        // under the date's text, so the first data file it opens is missing.
        assert.equal(got.ok, false, `${where}: Spark 0.9 reads a partition.legacy-name=false table`);
        if (!got.ok) assert.match(got.error, /java\.io\.FileNotFoundException: File '[^']*\/k_pk\/dt=\d+\/bucket-\d+\/data-[^']*\.parquet' not found/, where);
        continue;
      }
      if (t === 'k_postpone') {
        assert.equal(got.ok, false, `${where}: Spark 0.9 reads a postpone-bucket table`);
        if (!got.ok) assert.match(got.error, /The number of buckets needs to be greater than 0/, where);
        continue;
      }
      assert.ok(got.ok, `${where}: ${got.ok ? '' : got.error}`);
      if (got.ok) assert.deepEqual(got.rows.map(rowText).sort(), javaRowTexts(java[i]!.stdout), `${where}: Spark reads what Java reads`);
    }
  });

  test('every procedure: Spark reads the latest snapshot, tags, branches and system tables of what it changed as Java and the disk say', async () => {
    const reads: { r: CaseRun; t: SparkTable; target: Target }[] = [];
    for (const r of runs) for (const t of r.changed) for (const target of targetsOf(r.wh, t)) reads.push({ r, t, target });
    const java = await javaBatchAll(V, reads.map(({ r, t, target }) => ['read', r.wh, 'interop', t, ...javaTarget(target)]));
    phase(`Paimon Java read ${reads.length} targets`);
    for (const r of runs) {
      for (const t of SPARK_TABLES) {
        const o = r.outcomes.get(t)!;
        if (!o.ok) assert.notEqual(o.error.code, 'INTERNAL_ERROR', `${r.proc} on ${t}: ${o.error.message}`);
      }
      if (r.changed.size > 0) await sparkCatalog(r.catalog, r.wh);
    }
    const got = await sparkUnion(reads.map(({ r, t, target }, i) => `SELECT '${i}' AS k, id, dt, v, n FROM ${sparkFrom(r.catalog, t, target)}`));
    for (const [i, { r, t, target }] of reads.entries()) {
      const where = `${r.proc} on ${t}, ${targetLabel(target)}`;
      assert.ok(java[i]?.ok, `${where}: Paimon Java cannot read it: ${java[i]?.error ?? ''}`);
      assert.deepEqual((got.get(String(i)) ?? []).map(rowText).sort(), javaRowTexts(java[i]!.stdout), `${where}: Spark reads what Paimon Java reads`);
    }
    phase(`Spark read ${reads.length} targets`);
    const tables = runs.flatMap((r) => [...r.changed].map((t) => ({ r, t })));
    const sys = (r: CaseRun, t: string, s: string): string => `\`${r.catalog}\`.\`interop\`.\`${t}$${s}\``;
    // 0.9's $files plans with the table's own batch scan, which on a deletion-vector table skips
    // level 0 (unreadable there until compacted); a predicate on `level` replaces that filter.
    const meta = await sparkUnion(
      tables.flatMap(({ r, t }, i) => [
        `SELECT '${i}' AS k, 's' AS w, CAST(snapshot_id AS STRING) AS x FROM ${sys(r, t, 'snapshots')}`,
        `SELECT '${i}' AS k, 't' AS w, tag_name AS x FROM ${sys(r, t, 'tags')}`,
        `SELECT '${i}' AS k, 'b' AS w, branch_name AS x FROM ${sys(r, t, 'branches')}`,
        `SELECT '${i}' AS k, 'f' AS w, file_path AS x FROM ${sys(r, t, 'files')}`,
        `SELECT '${i}' AS k, CONCAT('l', CAST(level AS STRING)) AS w, file_path AS x FROM ${sys(r, t, 'files')} WHERE level >= 0`,
      ]),
    );
    for (const [i, { r, t }] of tables.entries()) {
      const where = `${r.proc} on ${t}`;
      const rows = meta.get(String(i)) ?? [];
      const of = (w: (x: string) => boolean): string[] =>
        rows
          .filter((x) => w(String(x.w)))
          .map((x) => String(x.x).slice(String(x.x).lastIndexOf('/') + 1))
          .sort();
      const disk = onDisk(r.wh, t);
      assert.deepEqual(of((w) => w === 's').map(Number).sort((a, b) => a - b), disk.snapshots, `${where}: $snapshots`);
      assert.deepEqual(of((w) => w === 't'), disk.tags, `${where}: $tags`);
      assert.deepEqual(of((w) => w === 'b'), disk.branches, `${where}: $branches`);
      assert.deepEqual(of((w) => w.startsWith('l')), await liveDataFiles(r.wh, 'interop', t), `${where}: $files (level >= 0) = the live data files`);
      const visible = of((w) => w.startsWith('l') && (t !== 'k_dv' || w !== 'l0'));
      assert.deepEqual(of((w) => w === 'f'), visible, `${where}: $files = the live files (above level 0 on a deletion-vector table)`);
    }
    phase('Spark read the system tables');
  });
});
