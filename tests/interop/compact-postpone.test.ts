/**
 * Compaction of a postpone-bucket table (bucket = -2) against Flink's own `CALL sys.compact`
 * (paimon-flink-2.0 at Paimon 1.4.2 and 2.0.0): Paimon Java of the same version writes the table (partitioned, three
 * commits with overlapping keys and deletes, all into bucket-postpone); on two copies Flink's
 * procedure runs on one and ours on the other with the same `postpone.default-bucket-num`. Both
 * must end with the same real buckets (same totalBuckets), the same records per bucket (kind, key,
 * value, sequence number), the same levels and file counts, no live postpone file, a COMPACT
 * snapshot; Paimon Java must read the same rows from both (the rows the writes imply). Java then
 * writes again to both (updates, deletes, a new partition) and a second compaction by each must
 * agree again: the known partitions keep their bucket count, the new one takes the option; with
 * `num-sorted-run.compaction-trigger` = 1 both go on to compact the buckets' sorted runs alike.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compact } from '../../procedures/compaction/compact.js';
import { LocalFileIO } from '../../src/paimon/fs/local-file-io.js';
import { FileStoreCommit } from '../../src/paimon/table/file-store-commit.js';
import { SchemaManager } from '../../src/paimon/table/schema-manager.js';
import { schemaLike } from '../../src/paimon/compact/compact-table.js';
import { readKeyValues } from '../../src/paimon/data/parquet-reader.js';
import { binaryFieldTypeFromSql } from '../../src/paimon/spec/binary-row.js';
import { FLINK_PAIMON_VERSIONS, flink, type FlinkPaimonVersion } from './flink-peer.js';
import { flinkCatalog } from './engines-support.js';
import { java } from './peers.js';
import { callNamed, copyWarehouse, executorFor, firstRow, javaBatch, javaCheckPasses, tempDir } from './procedures-support.js';

const DB = 'interop';
const TABLE = 'pp';

type Write = { id: number; dt: string; v: string; n: number; _rowKind?: '-D' };

/** Commits as Java writes them: overlapping keys across commits, deletes of earlier keys. */
const ROUND1: Write[][] = [
  [...range(1, 30).map((id) => row(id, '2024-01-01', 'a')), ...range(1, 12).map((id) => row(id, '2024-01-02', 'a'))],
  [...range(10, 40).map((id) => row(id, '2024-01-01', 'b')), del(3, '2024-01-01'), del(4, '2024-01-02'), ...range(5, 9).map((id) => row(id, '2024-01-02', 'b'))],
  [...range(15, 20).map((id) => row(id, '2024-01-01', 'c')), del(35, '2024-01-01'), row(3, '2024-01-01', 'c'), del(6, '2024-01-02')],
];
const ROUND2: Write[][] = [
  [...range(1, 8).map((id) => row(id, '2024-01-01', 'd')), del(20, '2024-01-01'), ...range(1, 6).map((id) => row(id, '2024-01-03', 'd'))],
  [...range(30, 45).map((id) => row(id, '2024-01-01', 'e')), del(2, '2024-01-03'), row(7, '2024-01-02', 'e')],
];

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}
function row(id: number, dt: string, tag: string): Write {
  return { id, dt, v: `${tag}${id}`, n: id * 10 + tag.charCodeAt(0) };
}
function del(id: number, dt: string): Write {
  return { id, dt, v: 'x', n: 0, _rowKind: '-D' };
}

/** The rows the commits imply (deduplicate: last write per key, deletes remove). */
function expectedRows(commits: Write[][]): string[] {
  const m = new Map<string, Write>();
  for (const c of commits) for (const w of c) (w._rowKind === '-D' ? m.delete(`${w.dt}|${w.id}`) : m.set(`${w.dt}|${w.id}`, w));
  return [...m.values()].map((w) => JSON.stringify({ id: w.id, dt: w.dt, v: w.v, n: w.n })).sort();
}

const javaOf = (v: FlinkPaimonVersion) => java(v === '1.4.2' ? '1.4' : '2.0');

async function javaWrite(v: FlinkPaimonVersion, wh: string, commits: Write[][]): Promise<void> {
  const dir = tempDir('postpone-rows-');
  for (const [i, c] of commits.entries()) {
    const f = join(dir, `c${i}.jsonl`);
    writeFileSync(f, c.map((w) => JSON.stringify(w)).join('\n') + '\n');
    await javaOf(v).runMain('VariantTool', ['write', wh, DB, TABLE, f], { timeoutMs: 300_000 });
  }
}

async function javaRows(v: FlinkPaimonVersion, wh: string): Promise<string[]> {
  const r = await javaOf(v).runMain('VariantTool', ['read', wh, DB, TABLE], { timeoutMs: 300_000 });
  return r.stdout.split('\n').filter((l) => l.trim().startsWith('{')).sort();
}

interface Layout {
  /** `partition/bucket` -> totalBuckets, levels of the files, records (kind|id|v|n|seq) sorted. */
  buckets: Record<string, { totalBuckets: number; levels: number[]; records: string[] }>;
  postponeFiles: number;
  commitKind: string;
}

/** Every live file of the latest snapshot, read with our reader, grouped by bucket. */
async function layout(wh: string): Promise<Layout> {
  const io = new LocalFileIO();
  const tablePath = join(wh, `${DB}.db`, TABLE);
  const commit = new FileStoreCommit({ fileIO: io, tablePath, commitUser: 'layout', partitionFields: [{ name: 'dt', type: binaryFieldTypeFromSql('DATE') }], bucketMode: 'HASH_FIXED' });
  const snap = await commit.snapshotManager.latestSnapshot();
  assert.ok(snap, `${wh}: a snapshot`);
  const schemas = new SchemaManager(io, tablePath);
  const out: Layout = { buckets: {}, postponeFiles: 0, commitKind: snap.commitKind };
  for (const e of await commit.scan.readLiveEntries(snap)) {
    if (e.bucket === -2) {
      out.postponeFiles++;
      continue;
    }
    const dir = commit.pathFactory.bucketPath(e.partition, e.bucket);
    const k = dir.slice(tablePath.length + 1);
    const b = (out.buckets[k] ??= { totalBuckets: e.totalBuckets, levels: [], records: [] });
    assert.equal(b.totalBuckets, e.totalBuckets, `${k}: one totalBuckets`);
    b.levels.push(e.file.level);
    const schema = schemaLike(await schemas.schema(Number(e.file.schemaId)));
    for await (const batch of readKeyValues({ fileIO: io, path: `${dir}/${e.file.fileName}`, schema, table: TABLE })) {
      for (const kv of batch) b.records.push(`${kv.valueKind}|${String(kv.value[0])}|${String(kv.value[2])}|${String(kv.value[3])}|${kv.sequenceNumber}`);
    }
  }
  for (const b of Object.values(out.buckets)) {
    b.levels.sort();
    b.records.sort();
  }
  return out;
}

/** The layout without sequence numbers (what must agree even if numbering differed). */
function withoutSeq(l: Layout): Layout {
  return { ...l, buckets: Object.fromEntries(Object.entries(l.buckets).map(([k, b]) => [k, { ...b, records: b.records.map((r) => r.slice(0, r.lastIndexOf('|'))).sort() }])) };
}

for (const V of FLINK_PAIMON_VERSIONS) describe(`compact on a postpone-bucket table: ours vs Flink CALL sys.compact (Paimon ${V})`, () => {
  const peer = flink(V);
  let origin: string;
  let a: string;
  let b: string;
  before(async () => {
    origin = join(tempDir('postpone-origin-'), 'wh');
    const schema = join(tempDir('postpone-schema-'), 'pp.schema.json');
    writeFileSync(schema, JSON.stringify({
      fields: [{ name: 'id', type: 'INT NOT NULL' }, { name: 'dt', type: 'DATE NOT NULL' }, { name: 'v', type: 'STRING' }, { name: 'n', type: 'BIGINT' }],
      primaryKeys: ['dt', 'id'], partitionKeys: ['dt'], options: { bucket: '-2' },
    }));
    await javaBatch(V, [['create-table', origin, DB, TABLE, schema]]);
    await javaWrite(V, origin, ROUND1);
    const dir = tempDir('postpone-copies-');
    a = join(dir, 'flink');
    b = join(dir, 'ours');
    copyWarehouse(origin, a);
    copyWarehouse(origin, b);
  });
  after(() => peer.stop());

  const flinkCompact = async (wh: string, catalog: string, options: string): Promise<void> => {
    await flinkCatalog(peer, catalog, wh);
    await peer.sql(`CALL \`${catalog}\`.sys.compact(\`table\` => '${DB}.${TABLE}', \`options\` => '${options}')`, { timeoutMs: 600_000 });
  };
  const ourCompact = async (wh: string, options: string): Promise<Record<string, unknown>> =>
    firstRow(await callNamed(executorFor(wh, [compact]), 'compact', { table: `${DB}.${TABLE}`, options }));

  test('the written table holds only postpone files', async () => {
    const l = await layout(origin);
    assert.ok(l.postponeFiles >= ROUND1.length, `postpone files: ${l.postponeFiles}`);
    assert.deepEqual(l.buckets, {});
  });

  test('a first compaction moves the records to the same real buckets, levels and files as Flink', async () => {
    await flinkCompact(a, 'pf1', 'postpone.default-bucket-num=3');
    const res = await ourCompact(b, 'postpone.default-bucket-num=3');
    assert.ok(res, 'ours returns a row');
    const [fl, ol] = [await layout(a), await layout(b)];
    assert.equal(fl.postponeFiles, 0, 'Flink leaves no live postpone file');
    assert.equal(fl.commitKind, 'COMPACT');
    assert.deepEqual(withoutSeq(ol), withoutSeq(fl), 'the same buckets, totalBuckets, levels, file counts and records');
    assert.deepEqual(ol, fl, 'the same sequence numbers too');
    assert.deepEqual(Object.values(ol.buckets).map((x) => x.totalBuckets), Object.keys(ol.buckets).map(() => 3));
    assert.ok(Object.keys(ol.buckets).length > 2, `records spread over several buckets: ${Object.keys(ol.buckets).join(', ')}`);
    assert.ok(Object.values(ol.buckets).some((x) => x.records.some((r) => r.startsWith('3|'))), 'retract records stay at level 0, as Flink keeps them');
    const [fr, or] = [await javaRows(V, a), await javaRows(V, b)];
    assert.deepEqual(or, fr, 'Java reads the same rows from both');
    assert.deepEqual(or, expectedRows(ROUND1), 'the rows the writes imply');
  });

  test('after Java writes again, a second compaction matches Flink: known partitions keep their buckets, a new one takes the option', async () => {
    await javaWrite(V, a, ROUND2);
    await javaWrite(V, b, ROUND2);
    // With a trigger of one sorted run, Paimon goes on to compact every bucket that now holds two
    // runs (its first level-0 file and the new one) to the max level: on copies of Flink's table.
    const dir = tempDir('postpone-universal-');
    const [c, d] = [join(dir, 'flink'), join(dir, 'ours')];
    copyWarehouse(a, c);
    copyWarehouse(a, d);
    const trigger = 'postpone.default-bucket-num=2,num-sorted-run.compaction-trigger=1';
    await flinkCompact(c, 'pf2u', trigger);
    await ourCompact(d, trigger);
    const [fu, ou] = [await layout(c), await layout(d)];
    assert.deepEqual(ou, fu, 'universal compaction after the move: the same buckets, levels, files and records as Flink');
    // num-levels defaults to the trigger + 1: the max level is 1 here.
    assert.ok(Object.values(ou.buckets).some((x) => x.levels.join() === '1'), `some bucket compacted to the max level: ${JSON.stringify(Object.values(ou.buckets).map((x) => x.levels))}`);
    assert.ok(Object.values(ou.buckets).some((x) => x.levels.join() === '0'), 'a bucket with a single run stays at level 0');
    assert.deepEqual(await javaRows(V, d), await javaRows(V, c), 'Java reads the same rows from both');

    await flinkCompact(a, 'pf2', 'postpone.default-bucket-num=2');
    await ourCompact(b, 'postpone.default-bucket-num=2');
    const [fl, ol] = [await layout(a), await layout(b)];
    assert.equal(fl.postponeFiles, 0);
    assert.deepEqual(withoutSeq(ol), withoutSeq(fl), 'the same buckets, totalBuckets, levels, file counts and records');
    assert.deepEqual(ol, fl, 'the same sequence numbers too');
    const totals = Object.fromEntries(Object.entries(ol.buckets).map(([k, x]) => [k.split('/')[0], x.totalBuckets]));
    // Paimon's legacy partition names (the default): a DATE as its epoch day.
    assert.deepEqual(totals, { 'dt=19723': 3, 'dt=19724': 3, 'dt=19725': 2 });
    assert.ok(Object.values(ol.buckets).some((x) => x.levels.filter((l) => l === 0).length >= 2), 'a bucket holds both compactions\' level-0 files');
    const [fr, or] = [await javaRows(V, a), await javaRows(V, b)];
    assert.deepEqual(or, fr, 'Java reads the same rows from both');
    assert.deepEqual(or, expectedRows([...ROUND1, ...ROUND2]));
    assert.equal(await javaCheckPasses(V, b, TABLE), true, "Java's check passes on ours");
  });

  test('partitions and buckets arguments are refused as Flink refuses them, leaving the table unchanged', async () => {
    const ex = executorFor(b, [compact]);
    const before = JSON.stringify(await layout(b));
    const extras: Record<string, string>[] = [{ partitions: 'dt=2024-01-01' }, { where: "dt = '2024-01-01'" }];
    for (const extra of extras) {
      const o = await callNamed(ex, 'compact', { table: `${DB}.${TABLE}`, ...extra });
      assert.equal(o.ok, false, JSON.stringify(extra));
      if (!o.ok) assert.equal(o.error.code, 'NOT_SUPPORTED', o.error.message);
    }
    assert.equal(JSON.stringify(await layout(b)), before);
  });
});
