/**
 * The columnar rewrite of append compaction (DuckDB reads a group and writes the new files)
 * against the JS path of compactAppendBucket (readValueRows + AppendDataFileWriter), on
 * unaware-bucket append files written by our own writer: the same rows in the same order, the
 * same groups, and the same DataFileMeta (all fields but the file name, size and creation time)
 * with several groups, nulls, strings, decimals, doubles with NaN/-0.0, stats modes; rolling into
 * several files, where each file has the metadata our writer gives its rows and the sequence
 * numbers run on from the group's first file; groups that need the JS path are refused.
 */
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalFileIO } from '../../../../src/paimon/fs/local-file-io.js';
import { AppendDataFileWriter, FileSource } from '../../../../src/paimon/data/parquet-writer.js';
import { readValueRows } from '../../../../src/paimon/data/parquet-reader.js';
import { closeDataEngine } from '../../../../src/paimon/data/duckdb-engine.js';
import { parseDataField, type DataFieldSpec } from '../../../../src/paimon/data/field-type.js';
import { Decimal, Timestamp, type Datum } from '../../../../src/paimon/data/internal-row.js';
import type { DataFileMeta } from '../../../../src/paimon/spec/data-file-meta.js';
import type { BinaryRow } from '../../../../src/paimon/spec/binary-row.js';
import { compactAppendBucket } from '../../../../src/paimon/compact/append-compaction.js';
import { columnarAppendRefusal, rewriteAppendColumnar } from '../../../../src/paimon/compact/columnar-append.js';
import { setColumnarMerge } from '../../../../src/paimon/compact/columnar-output.js';

const root = mkdtempSync(join(process.env.TEST_TMP ?? tmpdir(), 'columnar-append-'));
const io = new LocalFileIO();
after(async () => {
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
  { id: 8, name: 'dt', type: 'DATE' },
];

type Schema = { id: number; fields: typeof baseFields; partitionKeys: string[]; primaryKeys: string[]; options: Record<string, string>; fieldSpecs: DataFieldSpec[] };

function schema(options: Record<string, string>, fields = baseFields): Schema {
  return { id: 1, fields, partitionKeys: [], primaryKeys: [], options: { bucket: '-1', ...options }, fieldSpecs: fields.map((f) => parseDataField(f)) };
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

function rowOf(id: number, r: () => number): Datum[] {
  const pick = r();
  const d = pick < 0.03 ? Number.NaN : pick < 0.06 ? -0 : pick < 0.09 ? 0 : pick < 0.15 ? null : (r() - 0.5) * 1e6;
  return [
    BigInt(id),
    r() < 0.1 ? null : `v-${Array.from('äx€😀z').slice(0, 1 + Math.floor(r() * 5)).join('')}-${Math.floor(r() * 1e6)}`,
    r() < 0.1 ? null : Math.floor((r() - 0.5) * 2 ** 31),
    d,
    r() < 0.1 ? null : new Decimal(BigInt(Math.floor((r() - 0.5) * 1e9)), 12, 2),
    r() < 0.1 ? null : new Timestamp(1_700_000_000_000n + BigInt(Math.floor(r() * 1e9)), 0),
    r() < 0.2 ? null : new Uint8Array([id & 255, (id >> 8) & 255]),
    r() < 0.1 ? null : r() < 0.5,
    r() < 0.1 ? null : 19_000 + Math.floor(r() * 1000),
  ];
}

/** `files` small append files (our writer), sequence numbers counted on across them; a file of every `allNullEvery`th is all nulls but id. */
async function writeFiles(dir: string, s: Schema, o: { files: number; rows: number; seed: number }): Promise<DataFileMeta[]> {
  const r = rng(o.seed);
  const out: DataFileMeta[] = [];
  let seq = 0n, id = 0;
  for (let f = 0; f < o.files; f++) {
    const rows: Datum[][] = [];
    const n = Math.max(1, Math.floor(o.rows * (0.5 + r())));
    for (let k = 0; k < n; k++) {
      const row = rowOf(id++, r);
      rows.push(f === 3 ? row.map((v, i) => (i === 0 ? v : null)) : row);
    }
    const w = new AppendDataFileWriter({ fileIO: io, bucketDir: dir, schema: s, level: 0, fileSource: FileSource.APPEND, startSequenceNumber: seq });
    await w.write(rows);
    const metas = await w.close();
    seq = w.nextSequenceNumber();
    out.push(...metas);
  }
  return out;
}

let caseNo = 0;

async function compact(dir: string, s: Schema, files: DataFileMeta[], columnarOn: boolean, targetFileSize: number) {
  setColumnarMerge(columnarOn);
  try {
    return await compactAppendBucket({
      fileIO: io, table: 't', bucketDir: dir, files, target: s, schemaOf: async () => s, options: s.options,
      targetFileSize, full: true, bucketed: false, dryRun: false, onWritten: () => undefined,
    });
  } finally {
    setColumnarMerge(true);
  }
}

async function rowsOf(dir: string, s: Schema, files: readonly DataFileMeta[]): Promise<Datum[][]> {
  const out: Datum[][] = [];
  for (const f of files) for await (const b of readValueRows({ fileIO: io, path: join(dir, f.fileName), schema: s })) out.push(...(b as Datum[][]));
  return out;
}

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

function sameRows(actual: readonly unknown[], expected: readonly unknown[]): void {
  assert.equal(actual.length, expected.length, 'row count');
  for (let i = 0; i < actual.length; i++) assert.deepStrictEqual(actual[i], expected[i], `row ${i}`);
}

/** Splits `after` into the groups of `before` by sequence ranges (each group's output starts at its first input's min). */
function groupStarts(before: readonly DataFileMeta[]): bigint[] {
  return before.map((f) => f.minSequenceNumber);
}

describe('columnar append rewrite equals the JS path', () => {
  test('several groups, one file each: same rows and the same DataFileMeta as AppendDataFileWriter', async () => {
    const dir = join(root, `case-${caseNo++}`);
    // A large open-file cost closes a bin every 5 files; 23 files give 4 groups (the last 3 stay).
    const s = schema({ 'source.split.open-file-cost': '400 kb', 'compaction.min.file-num': '5' });
    const files = await writeFiles(dir, s, { files: 23, rows: 300, seed: 11 });
    const js = await compact(dir, s, files, false, 1 << 20);
    const col = await compact(dir, s, files, true, 1 << 20);
    assert.equal(js.after.length, 4, 'four groups');
    assert.deepStrictEqual(col.before.map((f) => f.fileName), js.before.map((f) => f.fileName));
    assert.equal(col.rowsRead, js.rowsRead);
    assert.equal(col.rowsWritten, js.rowsWritten);
    assert.ok(col.after.every((f, i) => f.fileName !== js.after[i].fileName), 'two separate rewrites');
    assert.deepStrictEqual(col.after.map(comparable), js.after.map(comparable));
    sameRows(await rowsOf(dir, s, col.after), await rowsOf(dir, s, js.after));
    assert.ok(col.after.every((f) => f.fileSource === FileSource.COMPACT && f.level === 0));
  });

  test('stats modes (truncate(3), a full column, counts, none, keep-first-n), sparse stats, snappy', async () => {
    const dir = join(root, `case-${caseNo++}`);
    const s = schema({
      'source.split.open-file-cost': '1 kb',
      'metadata.stats-mode': 'truncate(3)', 'fields.s.stats-mode': 'full', 'fields.n.stats-mode': 'counts', 'fields.ok.stats-mode': 'none',
      'metadata.stats-keep-first-n-columns': '6', 'metadata.stats-dense-store': 'false', 'file.compression': 'snappy',
    });
    const files = await writeFiles(dir, s, { files: 6, rows: 400, seed: 5 });
    const js = await compact(dir, s, files, false, 1 << 20);
    const col = await compact(dir, s, files, true, 1 << 20);
    assert.equal(js.after.length, 1);
    assert.deepStrictEqual(col.after.map(comparable), js.after.map(comparable));
    sameRows(await rowsOf(dir, s, col.after), await rowsOf(dir, s, js.after));
  });

  test('rolls into several files near the target size; each has the metadata our writer gives its rows', async () => {
    const dir = join(root, `case-${caseNo++}`);
    const s = schema({ 'source.split.open-file-cost': '1 kb' });
    const files = await writeFiles(dir, s, { files: 30, rows: 250, seed: 23 });
    const target = 40_000;
    const js = await compact(dir, s, files, false, target);
    const col = await compact(dir, s, files, true, target);
    assert.deepStrictEqual(col.before.map((f) => f.fileName), js.before.map((f) => f.fileName));
    assert.ok(col.after.length > 3, `expected several files, got ${col.after.length}`);
    sameRows(await rowsOf(dir, s, col.after), await rowsOf(dir, s, js.after));
    // Sequence numbers: contiguous within a group, from its first file's minimum, as in the JS path.
    const starts = new Set(groupStarts(col.before));
    const firstOfGroup = col.after.filter((f, i) => i === 0 || f.minSequenceNumber !== col.after[i - 1].maxSequenceNumber + 1n);
    for (const f of firstOfGroup) assert.ok(starts.has(f.minSequenceNumber), `file starting at ${f.minSequenceNumber} starts a group`);
    const ranges = (ms: readonly DataFileMeta[]) => ms.map((f) => [f.minSequenceNumber, f.maxSequenceNumber, f.rowCount]).flat();
    const span = (ms: readonly DataFileMeta[]) => ms.reduce((n, f) => n + f.rowCount, 0n);
    assert.equal(span(col.after), span(js.after));
    assert.ok(col.after.every((f) => f.maxSequenceNumber - f.minSequenceNumber + 1n === f.rowCount), String(ranges(col.after)));
    // Rolling by bytes written: every file but a group's last reaches at least 80% of the target.
    for (const [i, f] of col.after.entries()) {
      const last = i === col.after.length - 1 || firstOfGroup.includes(col.after[i + 1]);
      if (!last) assert.ok(Number(f.fileSize) >= target * 0.8 && Number(f.fileSize) <= target * 1.25, `file ${i}: ${f.fileSize} bytes for a target of ${target}`);
    }
    for (const [i, f] of col.after.entries()) {
      const rows = await rowsOf(dir, s, [f]);
      const w = new AppendDataFileWriter({ fileIO: io, bucketDir: join(dir, `again-${i}`), schema: s, level: 0, fileSource: FileSource.COMPACT, startSequenceNumber: f.minSequenceNumber, targetFileSize: 1 << 30 });
      await w.write(rows);
      const [again, ...more] = await w.close();
      assert.equal(more.length, 0);
      assert.deepStrictEqual(comparable(f), comparable(again), `file ${i}`);
    }
  });

  test('an aborted rewrite fails with its reason and leaves no file', async () => {
    const dir = join(root, `case-${caseNo++}`);
    const s = schema({});
    const files = await writeFiles(dir, s, { files: 5, rows: 100, seed: 3 });
    const ac = new AbortController();
    ac.abort(new Error('cancelled by the test'));
    const out = join(dir, 'aborted');
    await assert.rejects(
      rewriteAppendColumnar({ fileIO: io, bucketDir: out, target: s, options: {}, files: files.map((f) => ({ ...f, externalPath: join(dir, f.fileName) })), deletionVectors: false, dryRun: false, targetFileSize: 1 << 20, signal: ac.signal }),
      /cancelled by the test/,
    );
    const left: string[] = [];
    for await (const f of io.list(out)) left.push(f.path);
    assert.deepEqual(left, []);
  });

  test('groups that need the JS path are refused', () => {
    const s = schema({});
    const f = { fileName: 'a.parquet', schemaId: 1n, deleteRowCount: 0n, externalPath: null, firstRowId: null } as unknown as DataFileMeta;
    const base = { bucketDir: '/x', target: s, options: {}, files: [f], deletionVectors: false, dryRun: false, targetFileSize: 1 << 20 };
    assert.equal(columnarAppendRefusal(base), null);
    assert.match(columnarAppendRefusal({ ...base, deletionVectors: true }) ?? '', /deletion vectors/);
    assert.match(columnarAppendRefusal({ ...base, options: { 'row-tracking.enabled': 'true' } }) ?? '', /row tracking/);
    assert.match(columnarAppendRefusal({ ...base, dryRun: true }) ?? '', /dry run/);
    assert.match(columnarAppendRefusal({ ...base, files: [{ ...f, schemaId: 0n }] }) ?? '', /schema 0/);
    assert.match(columnarAppendRefusal({ ...base, files: [{ ...f, fileName: 'a.orc' }] }) ?? '', /not Parquet/);
    assert.match(columnarAppendRefusal({ ...base, files: [{ ...f, externalPath: 's3://b/a.parquet' }] }) ?? '', /not local/);
    assert.match(columnarAppendRefusal({ ...base, files: [{ ...f, firstRowId: 0n }] }) ?? '', /row ids/);
    assert.match(columnarAppendRefusal({ ...base, options: { 'file.format': 'orc' } }) ?? '', /output format orc/);
    assert.match(columnarAppendRefusal({ ...base, target: schema({}, [...baseFields, { id: 9, name: 't', type: 'TIME' }]) }) ?? '', /column t type TIME/);
    setColumnarMerge(false);
    try {
      assert.match(columnarAppendRefusal(base) ?? '', /turned off/);
    } finally {
      setColumnarMerge(true);
    }
  });
});
