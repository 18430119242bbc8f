/**
 * The columnar rewrite (DuckDB merges and writes a compaction step) against the JS path that
 * compact-table.ts takes otherwise (mergeSection + KeyValueDataFileWriter), on files written by
 * our own writer: the same records in the same order and the same DataFileMeta (all fields but
 * the file name, size and creation time), for deduplicate and first-row, with retracts, with and
 * without ignore-delete and dropDelete, several runs with overlapping keys and sequence numbers
 * equal across runs, two sections in one step, stats modes, NaN, -0.0 and nulls. With a small
 * target file size, every file it rolls to lands near that size and has the metadata our writer
 * gives the same rows; an
 * aborted call leaves no file; compactTable commits the same table with the path as without it.
 */
import { test, describe, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalFileIO } from '../../../../src/paimon/fs/local-file-io.js';
import { KeyValueDataFileWriter, FileSource } from '../../../../src/paimon/data/parquet-writer.js';
import { readKeyValues } from '../../../../src/paimon/data/parquet-reader.js';
import { closeDataEngine, openDataEngine, type PrivateDataEngine } from '../../../../src/paimon/data/duckdb-engine.js';
import { parseDataField, type DataFieldSpec } from '../../../../src/paimon/data/field-type.js';
import { Decimal, Timestamp, type KeyValue, type Datum, type RowKindByte } from '../../../../src/paimon/data/internal-row.js';
import type { DataFileMeta } from '../../../../src/paimon/spec/data-file-meta.js';
import { BinaryRow } from '../../../../src/paimon/spec/binary-row.js';
import { createMergeFunction, ignoreDeleteOption, type MergeEngineName } from '../../../../src/paimon/compact/merge-function.js';
import { mergeSection, planSectionMerge } from '../../../../src/paimon/compact/spill-merge.js';
import { readRun, type RunSource } from '../../../../src/paimon/compact/sorted-run-merge.js';
import { columnarRefusal, rewriteColumnar, setColumnarMerge } from '../../../../src/paimon/compact/columnar-merge.js';
import { compactTable } from '../../../../src/paimon/compact/compact-table.js';
import { ensureDemoTable } from '../../../../src/paimon/table/demo-table.js';
import { FileStoreTable } from '../../../../src/paimon/table/file-store-table.js';

const root = mkdtempSync(join(process.env.TEST_TMP ?? tmpdir(), 'columnar-merge-'));
const io = new LocalFileIO();
let engine: PrivateDataEngine;
before(async () => {
  engine = await openDataEngine({ memoryLimitBytes: 128 << 20 });
});
after(async () => {
  await engine.close();
  await closeDataEngine();
  rmSync(root, { recursive: true, force: true });
});

const baseFields = [
  { id: 0, name: 'id', type: 'BIGINT NOT NULL' },
  { id: 1, name: 's', type: 'STRING' },
  { id: 2, name: 'n', type: 'INT' },
  { id: 3, name: 'd', type: 'DOUBLE' },
  { id: 4, name: 'amount', type: 'DECIMAL(12, 2)' },
  { id: 5, name: 'ts', type: 'TIMESTAMP(3)' },
  { id: 6, name: 'b', type: 'BYTES' },
  { id: 7, name: 'ok', type: 'BOOLEAN' },
  { id: 8, name: 'k2', type: 'STRING NOT NULL' },
];

type Schema = { id: number; fields: typeof baseFields; partitionKeys: string[]; primaryKeys: string[]; options: Record<string, string>; fieldSpecs: DataFieldSpec[] };

function schema(primaryKeys: string[], options: Record<string, string>): Schema {
  return { id: 2, fields: baseFields, partitionKeys: [], primaryKeys, options, fieldSpecs: baseFields.map((f) => parseDataField(f)) };
}

/** A deterministic pseudo-random generator (xorshift32). */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    return x / 2 ** 32;
  };
}

function valueOf(id: number, r: () => number, tag: number): Datum[] {
  const pick = r();
  const d = pick < 0.03 ? Number.NaN : pick < 0.06 ? -0 : pick < 0.09 ? 0 : pick < 0.15 ? null : (r() - 0.5) * 1e6;
  return [
    BigInt(id),
    r() < 0.1 ? null : `v${tag}-${Array.from('äx€😀z').slice(0, 1 + Math.floor(r() * 5)).join('')}-${Math.floor(r() * 1e6)}`,
    r() < 0.1 ? null : Math.floor((r() - 0.5) * 2 ** 31),
    d,
    r() < 0.1 ? null : new Decimal(BigInt(Math.floor((r() - 0.5) * 1e9)), 12, 2),
    r() < 0.1 ? null : new Timestamp(1_700_000_000_000n + BigInt(Math.floor(r() * 1e9)), 0),
    r() < 0.2 ? null : new Uint8Array([id & 255, tag & 255]),
    r() < 0.1 ? null : r() < 0.5,
    `k${id % 3}`,
  ];
}

interface Case {
  dir: string;
  schema: Schema;
  sections: DataFileMeta[][][];
}

/**
 * Writes `runs` sorted runs (one level-0 file each, our writer) over keys in [lo, hi): each run a
 * random subset, sequence numbers drawn from a small range so that equal (key, sequence number)
 * pairs occur across runs; retracts (UPDATE_BEFORE, DELETE) at `retractRate`.
 */
async function writeRuns(dir: string, s: Schema, o: { runs: number; lo: number; hi: number; retractRate: number; seed: number }): Promise<DataFileMeta[][]> {
  const r = rng(o.seed);
  const runs: DataFileMeta[][] = [];
  const keyIdx = s.primaryKeys.map((k) => s.fieldSpecs.findIndex((f) => f.name === k));
  for (let run = 0; run < o.runs; run++) {
    const kvs: KeyValue[] = [];
    for (let id = o.lo; id < o.hi; id++) {
      if (r() < 0.45) continue;
      const value = valueOf(id, r, run);
      const kind = (r() < o.retractRate ? (r() < 0.5 ? 1 : 3) : r() < 0.2 ? 2 : 0) as RowKindByte;
      kvs.push({ key: keyIdx.map((i) => value[i]), sequenceNumber: BigInt(Math.floor(r() * 6)), valueKind: kind, value });
    }
    kvs.sort((a, b) => cmpKey(a.key, b.key));
    const w = new KeyValueDataFileWriter({ fileIO: io, bucketDir: dir, schema: s, level: 0, fileSource: FileSource.APPEND });
    await w.write(kvs);
    runs.push(await w.close());
  }
  return runs;
}

function cmpKey(a: readonly Datum[], b: readonly Datum[]): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i], y = b[i];
    if (typeof x === 'bigint' && typeof y === 'bigint') { if (x !== y) return x < y ? -1 : 1; continue; }
    const sx = String(x), sy = String(y);
    if (sx !== sy) return Buffer.compare(Buffer.from(sx), Buffer.from(sy));
  }
  return 0;
}

/** The JS path of compact-table.ts runOne for one step. */
async function jsRewrite(c: Case, engineName: MergeEngineName, dropDelete: boolean, level: number, targetFileSize: number): Promise<DataFileMeta[]> {
  const s = c.schema;
  const keyIndexes = s.primaryKeys.map((k) => s.fieldSpecs.findIndex((f) => f.name === k));
  const mf = createMergeFunction(s.fieldSpecs, s.primaryKeys, s.options);
  assert.equal(mf.engine, engineName);
  const src: RunSource = { fileIO: io, bucketDir: c.dir, schemaOf: async () => s, target: s, keyIndexes, table: 't', engine };
  const outDir = join(c.dir, 'js');
  const writer = new KeyValueDataFileWriter({ fileIO: io, bucketDir: outDir, schema: s, level, fileSource: 1, options: s.options, targetFileSize, engine });
  for (const section of c.sections) {
    const plan = planSectionMerge(section, 256 << 20, 128 << 20);
    const merged = mergeSection({
      runs: section, readFiles: (run, batch) => readRun(src, run, batch), order: { keyTypes: keyIndexes.map((i) => s.fieldSpecs[i].type), sequenceFields: [] },
      mergeFunction: mf.create(), dropDelete, plan, spillDir: join(c.dir, 'spill'), fields: s.fieldSpecs, keyIndexes, stats: { read: 0n }, spillMergeFunction: mf.create(),
    });
    for await (const out of merged) await writer.write(out);
  }
  return writer.close();
}

async function columnar(c: Case, engineName: MergeEngineName, dropDelete: boolean, level: number, targetFileSize: number) {
  const res = await rewriteColumnar({
    fileIO: io, bucketDir: join(c.dir, 'col'), target: c.schema, options: c.schema.options, sections: c.sections.map((s) => s.map((run) => run.map((f) => ({ ...f, externalPath: join(c.dir, f.fileName) })))),
    mergeEngine: engineName, ignoreDelete: ignoreDeleteOption(c.schema.options), sequenceFields: 0, deletionVectors: false, dryRun: false, dropDelete, level, targetFileSize, engine,
  });
  assert.ok(res !== null, 'the step qualifies');
  return res;
}

async function rowsOf(dir: string, s: Schema, files: readonly DataFileMeta[]): Promise<Array<Omit<KeyValue, 'value'> & { value: Datum[] }>> {
  const out: Array<Omit<KeyValue, 'value'> & { value: Datum[] }> = [];
  for (const f of files) {
    for await (const b of readKeyValues({ fileIO: io, path: join(dir, f.fileName), schema: s })) {
      for (const kv of b) out.push({ key: kv.key, sequenceNumber: kv.sequenceNumber, valueKind: kv.valueKind, value: kv.value as Datum[] });
    }
  }
  return out;
}

/** DataFileMeta without file name, size and creation time; rows as their bytes. */
function comparable(m: DataFileMeta): Record<string, unknown> {
  const row = (r: BinaryRow): string => r.key();
  const { fileName: _n, fileSize: _s, creationTime: _c, ...rest } = m;
  return {
    ...rest,
    minKey: row(m.minKey), maxKey: row(m.maxKey),
    keyStats: { ...m.keyStats, minValues: row(m.keyStats.minValues), maxValues: row(m.keyStats.maxValues) },
    valueStats: { ...m.valueStats, minValues: row(m.valueStats.minValues), maxValues: row(m.valueStats.maxValues) },
  };
}

/** Row by row, so that a failure names the first row that differs. */
function sameRows(actual: readonly unknown[], expected: readonly unknown[]): void {
  assert.equal(actual.length, expected.length, 'row count');
  for (let i = 0; i < actual.length; i++) assert.deepStrictEqual(actual[i], expected[i], `row ${i}`);
}

let caseNo = 0;
async function makeCase(primaryKeys: string[], options: Record<string, string>, o: { runs: number; retractRate: number; twoSections?: boolean }): Promise<Case> {
  const dir = join(root, `case-${caseNo++}`);
  const s = schema(primaryKeys, options);
  if (o.twoSections) {
    const a = await writeRuns(dir, s, { runs: o.runs, lo: 0, hi: 1500, retractRate: o.retractRate, seed: 7 + caseNo });
    const b = await writeRuns(dir, s, { runs: o.runs, lo: 1500, hi: 3000, retractRate: o.retractRate, seed: 99 + caseNo });
    return { dir, schema: s, sections: [a, b] };
  }
  return { dir, schema: s, sections: [await writeRuns(dir, s, { runs: o.runs, lo: 0, hi: 3000, retractRate: o.retractRate, seed: 3 + caseNo })] };
}

async function assertSame(c: Case, engineName: MergeEngineName, dropDelete: boolean): Promise<void> {
  const level = dropDelete ? 5 : 3;
  const js = await jsRewrite(c, engineName, dropDelete, level, 128 << 20);
  const col = await columnar(c, engineName, dropDelete, level, 128 << 20);
  assert.ok(js.length > 0);
  const jsRows = await rowsOf(join(c.dir, 'js'), c.schema, js);
  const colRows = await rowsOf(join(c.dir, 'col'), c.schema, col.files);
  assert.equal(colRows.length, jsRows.length);
  sameRows(colRows, jsRows);
  assert.equal(col.rowsWritten, BigInt(jsRows.length));
  assert.equal(col.rowsRead, c.sections.flat(2).reduce((n, f) => n + f.rowCount, 0n));
  assert.deepStrictEqual(col.files.map(comparable), js.map(comparable));
  if (!dropDelete) assert.ok(jsRows.some((r) => r.valueKind === 1 || r.valueKind === 3), 'retracts are kept without dropDelete');
  else assert.ok(jsRows.every((r) => r.valueKind !== 1 && r.valueKind !== 3));
}

describe('columnar rewrite equals the JS merge and writer', () => {
  for (const dropDelete of [false, true]) {
    test(`deduplicate, retracts, 5 overlapping runs, dropDelete ${dropDelete}`, async () => {
      await assertSame(await makeCase(['id'], {}, { runs: 5, retractRate: 0.15 }), 'deduplicate', dropDelete);
    });
    test(`deduplicate with ignore-delete, composite key, two sections, dropDelete ${dropDelete}`, async () => {
      await assertSame(await makeCase(['id', 'k2'], { 'ignore-delete': 'true' }, { runs: 4, retractRate: 0.35, twoSections: true }), 'deduplicate', dropDelete);
    });
    test(`first-row with ignore-delete, retracts, dropDelete ${dropDelete}`, async () => {
      await assertSame(await makeCase(['id'], { 'merge-engine': 'first-row', 'first-row.ignore-delete': 'true' }, { runs: 5, retractRate: 0.3 }), 'first-row', dropDelete);
    });
  }

  test('first-row without retracts; stats modes (truncate(3), a full column, counts, keep-first-n) and sparse value stats', async () => {
    const options = { 'merge-engine': 'first-row', 'metadata.stats-mode': 'truncate(3)', 'fields.s.stats-mode': 'full', 'fields.n.stats-mode': 'counts', 'metadata.stats-keep-first-n-columns': '5', 'metadata.stats-dense-store': 'false' };
    const c = await makeCase(['id'], options, { runs: 3, retractRate: 0 });
    const level = 5;
    const js = await jsRewrite(c, 'first-row', true, level, 128 << 20);
    const col = await columnar(c, 'first-row', true, level, 128 << 20);
    sameRows(await rowsOf(join(c.dir, 'col'), c.schema, col.files), await rowsOf(join(c.dir, 'js'), c.schema, js));
    assert.deepStrictEqual(col.files.map(comparable), js.map(comparable));
  });

  test('dense stats drop the columns without statistics (stats-mode none for some)', async () => {
    const c = await makeCase(['id'], { 'fields.b.stats-mode': 'none', 'fields.ok.stats-mode': 'none', 'file.compression': 'snappy' }, { runs: 3, retractRate: 0.1 });
    await assertSame(c, 'deduplicate', false);
  });

  test('rolls at the target file size; each file has the metadata our writer gives its rows', async () => {
    const c = await makeCase(['id'], {}, { runs: 4, retractRate: 0.1 });
    const js = await jsRewrite(c, 'deduplicate', false, 4, 128 << 20);
    const col = await columnar(c, 'deduplicate', false, 4, 20_000);
    assert.ok(col.files.length > 2, `expected several files, got ${col.files.length}`);
    // Rolling follows the bytes written: every file but the last lands near the target.
    for (const f of col.files.slice(0, -1)) assert.ok(Number(f.fileSize) >= 20_000 * 0.8 && Number(f.fileSize) <= 20_000 * 1.25, `${f.fileName}: ${f.fileSize} bytes for a target of 20000`);
    const jsRows = await rowsOf(join(c.dir, 'js'), c.schema, js);
    sameRows(await rowsOf(join(c.dir, 'col'), c.schema, col.files), jsRows);
    for (const [i, f] of col.files.entries()) {
      const rows = await rowsOf(join(c.dir, 'col'), c.schema, [f]);
      const w = new KeyValueDataFileWriter({ fileIO: io, bucketDir: join(c.dir, `again-${i}`), schema: c.schema, level: 4, fileSource: 1, engine });
      await w.write(rows);
      const [again, ...more] = await w.close();
      assert.equal(more.length, 0);
      assert.deepStrictEqual(comparable(f), comparable(again));
      assert.match(f.fileName, new RegExp(`-${i}\\.parquet$`));
    }
  });

  test('an aborted compaction fails with its reason and leaves no file', async () => {
    const c = await makeCase(['id'], {}, { runs: 2, retractRate: 0.1 });
    const ac = new AbortController();
    ac.abort(new Error('cancelled by the test'));
    await assert.rejects(
      rewriteColumnar({
        fileIO: io, bucketDir: join(c.dir, 'aborted'), target: c.schema, options: {}, sections: c.sections.map((s) => s.map((run) => run.map((f) => ({ ...f, externalPath: join(c.dir, f.fileName) })))),
        mergeEngine: 'deduplicate', ignoreDelete: false, sequenceFields: 0, deletionVectors: false, dryRun: false, dropDelete: true, level: 5, targetFileSize: 1 << 20, engine, signal: ac.signal,
      }),
      /cancelled by the test/,
    );
    const left: string[] = [];
    for await (const f of io.list(join(c.dir, 'aborted'))) left.push(f.path);
    assert.deepEqual(left, []);
  });

  test('steps that need the JS merge are refused', () => {
    const s = schema(['id'], {});
    const base = { bucketDir: '/x', target: s, options: {}, sections: [[[{ fileName: 'a.parquet', schemaId: 2n, deleteRowCount: 0n, externalPath: null } as unknown as DataFileMeta]]], mergeEngine: 'deduplicate' as MergeEngineName, ignoreDelete: false, sequenceFields: 0, deletionVectors: false, dryRun: false, dropDelete: true, level: 5, targetFileSize: 1 << 20 };
    assert.equal(columnarRefusal(base), null);
    assert.match(columnarRefusal({ ...base, mergeEngine: 'partial-update' }) ?? '', /partial-update/);
    assert.match(columnarRefusal({ ...base, sequenceFields: 1 }) ?? '', /sequence.field/);
    assert.match(columnarRefusal({ ...base, deletionVectors: true }) ?? '', /deletion vectors/);
    assert.match(columnarRefusal({ ...base, dryRun: true }) ?? '', /dry run/);
    assert.match(columnarRefusal({ ...base, options: { 'data-file.thin-mode': 'true' } }) ?? '', /thin mode/);
    const f = base.sections[0][0][0];
    assert.match(columnarRefusal({ ...base, sections: [[[{ ...f, schemaId: 1n }]]] }) ?? '', /schema 1/);
    assert.match(columnarRefusal({ ...base, sections: [[[{ ...f, fileName: 'a.orc' }]]] }) ?? '', /not Parquet/);
    assert.match(columnarRefusal({ ...base, sections: [[[{ ...f, externalPath: 's3://b/a.parquet' }]]] }) ?? '', /not local/);
    assert.match(columnarRefusal({ ...base, mergeEngine: 'first-row', sections: [[[{ ...f, deleteRowCount: 1n }]]] }) ?? '', /retracts/);
    assert.equal(columnarRefusal({ ...base, mergeEngine: 'first-row', ignoreDelete: true, sections: [[[{ ...f, deleteRowCount: 1n }]]] }), null);
    assert.match(columnarRefusal({ ...base, target: schema(['d'], {}) }) ?? '', /column d/);
  });
});

describe('compactTable takes the columnar path', () => {
  /** The live files of the latest snapshot by partition and bucket, with their records. */
  async function compacted(columnarOn: boolean): Promise<unknown[]> {
    const wh = join(root, `demo-${columnarOn ? 'columnar' : 'js'}`);
    await ensureDemoTable(wh, io);
    const location = join(wh, 'demo.db', 'orders');
    setColumnarMerge(columnarOn);
    let r;
    try {
      r = await compactTable({ fileIO: io, tablePath: location, table: 'demo.orders', strategy: 'full', memoryBudgetBytes: 256 << 20, concurrency: 2 });
    } finally {
      setColumnarMerge(true);
    }
    assert.ok(r.committedSnapshotId !== null && r.rowsWritten > 0n);
    const t = await FileStoreTable.open(io, location, { database: 'demo', table: 'orders' });
    const latest = (await t.snapshotManager().latestSnapshot())!;
    const entries = await t.newScan().readLiveEntries(latest);
    const s = schemaOfDemo(t.schema);
    const out: unknown[] = [];
    for (const e of entries.sort((a, b) => a.partition.key().localeCompare(b.partition.key()) || a.bucket - b.bucket)) {
      const dir = join(location, `dt=${String(e.partition.toValues([{ root: 'VARCHAR' }])[0])}`, `bucket-${e.bucket}`);
      out.push({ partition: e.partition.key(), bucket: e.bucket, meta: comparable(e.file), rows: await rowsOf(dir, s, [e.file]) });
    }
    return [{ rowsRead: r.rowsRead, rowsWritten: r.rowsWritten, filesBefore: r.filesBefore, filesAfter: r.filesAfter }, ...out];
  }

  test('a full compaction of the demo table (written by this library) commits the same files and records with it as without it', async () => {
    const on = await compacted(true);
    const off = await compacted(false);
    assert.ok(on.length > 2);
    assert.deepStrictEqual(on, off);
  });
});

function schemaOfDemo(s: { id: number; fields: unknown[]; partitionKeys: string[]; primaryKeys: string[]; options: Record<string, string> }): Schema {
  const fields = s.fields as typeof baseFields;
  return { ...s, fields, fieldSpecs: fields.map((f) => parseDataField(f)) };
}
