/**
 * Parquet data files against the real Paimon Java (1.4.2 and 2.0.0, tests/interop/java):
 * - the rows we read from Java-written data files (primary-key and append tables, every
 *   data type the writer supports) equal the rows Paimon Java reads;
 * - for the same rows, our writer produces the DataFileMeta Java produced: first/last key,
 *   key stats, value stats (dense columns, truncate(16) strings), sequence range, row and
 *   delete counts; and the Parquet columns carry the same names, field ids and codec.
 */
import { test, describe, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { java, tempWarehouse, type Json, type JsonObj, type PaimonJavaVersion, type TableSpec, pypaimons } from './peers.js';
import { LocalFileIO } from '../../src/paimon/fs/local-file-io.js';
import { readKeyValues, readValueRows } from '../../src/paimon/data/parquet-reader.js';
import { AppendDataFileWriter, KeyValueDataFileWriter } from '../../src/paimon/data/parquet-writer.js';
import { closeDataEngine } from '../../src/paimon/data/duckdb-engine.js';
import { parseDataField, type FieldType, type DataFieldSpec } from '../../src/paimon/data/field-type.js';
import { Decimal, Timestamp, type Datum, type InternalRow, type KeyValue } from '../../src/paimon/data/internal-row.js';
import type { TableSchemaLike } from '../../src/paimon/data/data-file-layout.js';
import type { DataFileMeta } from '../../src/paimon/spec/data-file-meta.js';
import { FileStoreCommit } from '../../src/paimon/table/file-store-commit.js';
import { toDeleteEntry, type ManifestEntry } from '../../src/paimon/spec/manifest-entry.js';
import { binaryFieldType } from '../../src/paimon/data/parquet-writer.js';
import { compareRows } from '../../src/paimon/data/internal-row.js';

const VERSIONS: PaimonJavaVersion[] = ['1.4', '2.0'];
const statsCompat = (version: PaimonJavaVersion): '1' | '2' => (version === '1.4' ? '1' : '2');
const io = new LocalFileIO();
after(async () => {
  await closeDataEngine();
});

type JsonValue = Json | undefined;
type JsonObject = JsonObj;

// ------------------------------------------------------------------ canonical rendering

function numText(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return 'Infinity';
  if (n === -Infinity) return '-Infinity';
  return Object.is(n, -0) ? '-0' : String(n);
}

/** A peer's canonical row, normalised: every number becomes its text. */
function normJava(v: JsonValue): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return numText(v);
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return v.map(normJava);
  if (typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normJava(x)]));
  return v;
}

const pad = (n: number, w: number): string => String(n).padStart(w, '0');

function dateText(days: number): string {
  return new Date(days * 86_400_000).toISOString().slice(0, 10);
}

function timestampText(ts: Timestamp): string {
  const base = new Date(Number(ts.millisecond)).toISOString().slice(0, 19);
  const ms = Number(((ts.millisecond % 1000n) + 1000n) % 1000n);
  return `${base}.${pad(ms, 3)}${pad(ts.nanoOfMillisecond, 6)}`;
}

/** Our values in the canonical rendering of PaimonTool (see its header). */
function render(t: FieldType, v: Datum): unknown {
  if (v === null) return null;
  switch (t.root) {
    case 'BOOLEAN': return v;
    case 'TINYINT': case 'SMALLINT': case 'INT': case 'BIGINT': return String(v);
    case 'FLOAT': case 'DOUBLE': return numText(v as number);
    case 'DECIMAL': return (v as Decimal).toString();
    case 'CHAR': case 'VARCHAR': return v;
    case 'BINARY': case 'VARBINARY': return Buffer.from(v as Uint8Array).toString('hex');
    case 'DATE': return dateText(v as number);
    case 'TIME': {
      const ms = v as number;
      return `${pad(Math.floor(ms / 3_600_000), 2)}:${pad(Math.floor(ms / 60_000) % 60, 2)}:${pad(Math.floor(ms / 1000) % 60, 2)}.${pad(ms % 1000, 3)}`;
    }
    case 'TIMESTAMP': return timestampText(v as Timestamp);
    case 'TIMESTAMP_LTZ': return `${timestampText(v as Timestamp)}Z`;
    case 'ARRAY': return (v as Datum[]).map((x) => render(t.element, x));
    case 'MAP': return (v as Array<[Datum, Datum]>).map(([k, x]) => [render(t.key, k), render(t.value, x)]);
    case 'MULTISET': return (v as Array<[Datum, Datum]>).map(([k, x]) => [render(t.element, k), String(x)]);
    case 'ROW': return Object.fromEntries(t.fields.map((f, i) => [f.name, render(f.type, (v as Datum[])[i])]));
    default: throw new Error(`no rendering for ${t.root}`);
  }
}

function renderRow(fields: DataFieldSpec[], row: InternalRow): Record<string, unknown> {
  return Object.fromEntries(fields.map((f, i) => [f.name, render(f.type, row[i])]));
}

const sortRows = (rows: unknown[]): string[] => rows.map((r) => JSON.stringify(r)).sort();

// ------------------------------------------------------------------ the Java tables

const ALL_TYPES: TableSpec['fields'] = [
  { name: 'dt', type: 'STRING NOT NULL' },
  { name: 'id', type: 'BIGINT NOT NULL' },
  { name: 'b', type: 'BOOLEAN' },
  { name: 'ti', type: 'TINYINT' },
  { name: 'si', type: 'SMALLINT' },
  { name: 'i', type: 'INT' },
  { name: 'f', type: 'FLOAT' },
  { name: 'd', type: 'DOUBLE' },
  { name: 'dec1', type: 'DECIMAL(5, 2)' },
  { name: 'dec2', type: 'DECIMAL(18, 4)' },
  { name: 'dec3', type: 'DECIMAL(30, 3)' },
  { name: 's', type: 'STRING' },
  { name: 'c', type: 'CHAR(3)' },
  { name: 'vc', type: 'VARCHAR(40)' },
  { name: 'bin', type: 'BYTES' },
  { name: 'fb', type: 'BINARY(2)' },
  { name: 'dd', type: 'DATE' },
  { name: 'tm', type: 'TIME(3)' },
  { name: 'ts3', type: 'TIMESTAMP(3)' },
  { name: 'ts6', type: 'TIMESTAMP(6)' },
  { name: 'ltz3', type: 'TIMESTAMP(3) WITH LOCAL TIME ZONE' },
  { name: 'ltz6', type: 'TIMESTAMP(6) WITH LOCAL TIME ZONE' },
  { name: 'arr', type: { type: 'ARRAY', element: 'INT' } },
  { name: 'm', type: { type: 'MAP', key: 'STRING NOT NULL', value: 'BIGINT' } },
  { name: 'r', type: { type: 'ROW', fields: [{ id: 100, name: 'x', type: 'INT' }, { id: 101, name: 'y', type: 'STRING' }] } },
  { name: 'nested', type: { type: 'ARRAY', element: { type: 'ARRAY', element: 'STRING' } } },
];

function javaRow(dt: string, id: number, variant: number): Record<string, unknown> {
  if (variant % 5 === 4) {
    return Object.fromEntries(ALL_TYPES.map((f) => [f.name, f.name === 'dt' ? dt : f.name === 'id' ? id : null]));
  }
  const odd = variant % 2 === 1;
  return {
    dt, id,
    b: odd,
    ti: odd ? -5 - variant : 127 - variant,
    si: odd ? 300 + variant : -32768 + variant,
    i: odd ? 70000 * variant : -variant,
    f: odd ? 1.5 * variant : -0.25 * variant,
    d: odd ? -2.25e10 * variant : 1e300 / (variant + 1),
    dec1: odd ? `${100 + variant}.45` : `-0.0${variant % 10}`,
    dec2: odd ? `12345678901234.567${variant % 10}` : `-${variant}.0000`,
    dec3: odd ? `123456789012345678901234567.89${variant % 10}` : `-${variant}.500`,
    s: odd ? `héllo 世界 ${variant} and a rather long tail past sixteen chars` : `s${variant}`,
    c: odd ? 'abc' : 'x  ',
    vc: odd ? `\u{10FFFF}\u{10FFFF}${'z'.repeat(20)}${variant}` : `short${variant}`,
    bin: odd ? '00ff10' : '',
    fb: odd ? 'ab01' : '0000',
    dd: odd ? '2024-02-29' : '1969-12-31',
    tm: odd ? '12:34:56.789' : '00:00:00.000',
    ts3: odd ? '2024-01-02T03:04:05.678000000' : '1969-12-31T23:59:59.999000000',
    ts6: odd ? '2024-01-02T03:04:05.678901000' : '1900-01-01T00:00:00.000001000',
    ltz3: odd ? '2024-01-02T03:04:05.678000000Z' : '1970-01-01T00:00:00.000000000Z',
    ltz6: odd ? '2024-01-02T03:04:05.678901000Z' : '1969-12-31T23:59:59.999999000Z',
    arr: odd ? [1, null, variant] : [],
    m: odd ? [['k1', variant], ['k2', null]] : [],
    r: odd ? { x: variant, y: 'why' } : { x: null, y: null },
    nested: odd ? [['a', null], [], null] : null,
  };
}

interface JavaFile {
  path: string;
  level: number;
  meta: JsonObject;
}

/** Live data files of the latest snapshot, from PaimonTool's dump (ADDs minus DELETEs). */
function liveFiles(dump: JsonObject): JavaFile[] {
  const location = String(dump.location).replace(/^file:/, '');
  const partitionKeys = (dump.partitionKeys as string[]) ?? [];
  const live = new Map<string, JavaFile>();
  const manifests = dump.manifests as JsonObject;
  const entries: JsonObject[] = Object.values(manifests).flatMap((es) => es as JsonObject[]);
  for (const e of entries.filter((x) => x.kind === 'ADD')) {
    const file = e.file as JsonObject;
    const values = ((e.partition as JsonObject).values as JsonValue[]) ?? [];
    const part = partitionKeys.map((k, i) => `${k}=${values[i] === null ? '__DEFAULT_PARTITION__' : String(values[i])}`).join('/');
    const path = [location, part, `bucket-${String(e.bucket)}`, String(file.fileName)].filter((s) => s !== '').join('/');
    live.set(String(file.fileName), { path, level: Number(file.level), meta: file });
  }
  for (const e of entries.filter((x) => x.kind === 'DELETE')) live.delete(String((e.file as JsonObject).fileName));
  return [...live.values()];
}

function tableSchema(dump: JsonObject): TableSchemaLike {
  const s = (dump.schemas as JsonObject[]).at(-1)!;
  return {
    id: Number(s.id),
    fields: (s.fields as unknown as Array<{ id: number; name: string; type: unknown }>).map((f) => ({ id: Number(f.id), name: f.name, type: f.type })),
    partitionKeys: s.partitionKeys as string[],
    primaryKeys: s.primaryKeys as string[],
    options: s.options as Record<string, string>,
  };
}

async function parquetColumns(path: string): Promise<{ columns: string[]; codecs: string[] }> {
  const inst = await DuckDBInstance.create(':memory:');
  const c = await inst.connect();
  try {
    const s = await c.runAndReadAll(`SELECT name, field_id FROM parquet_schema('${path}')`);
    const columns = s.getRowObjects().slice(1).map((o) => `${String(o.name)}#${o.field_id === null ? '-' : String(o.field_id)}`);
    const m = await c.runAndReadAll(`SELECT DISTINCT compression FROM parquet_metadata('${path}') ORDER BY 1`);
    return { columns, codecs: m.getRowObjects().map((o) => String(o.compression)) };
  } finally {
    c.closeSync();
    inst.closeSync();
  }
}

const hex = (b: { serialize(): Buffer }): string => b.serialize().toString('hex');

function assertSameMeta(ours: DataFileMeta, java: JsonObject, label: string): void {
  const j = (k: string): JsonObject => java[k] as JsonObject;
  const statsHex = (s: JsonObject) => ({
    min: String((s.minValues as JsonObject).serializedHex),
    max: String((s.maxValues as JsonObject).serializedHex),
    nulls: (s.nullCounts as JsonValue[]).map((x) => (x === null ? null : String(x))),
  });
  const ourStats = (s: DataFileMeta['keyStats']) => ({
    min: hex(s.minValues),
    max: hex(s.maxValues),
    nulls: s.nullCounts.map((x) => (x === null ? null : String(x))),
  });
  assert.equal(String(ours.rowCount), String(java.rowCount), `${label}: rowCount`);
  assert.equal(hex(ours.minKey), String((j('minKey')).serializedHex), `${label}: minKey`);
  assert.equal(hex(ours.maxKey), String((j('maxKey')).serializedHex), `${label}: maxKey`);
  assert.deepEqual(ourStats(ours.keyStats), statsHex(j('keyStats')), `${label}: keyStats`);
  assert.deepEqual(ours.valueStatsCols, java.valueStatsCols ?? null, `${label}: valueStatsCols`);
  assert.deepEqual(ourStats(ours.valueStats), statsHex(j('valueStats')), `${label}: valueStats`);
  assert.equal(String(ours.minSequenceNumber), String(java.minSequenceNumber), `${label}: minSequenceNumber`);
  assert.equal(String(ours.maxSequenceNumber), String(java.maxSequenceNumber), `${label}: maxSequenceNumber`);
  assert.equal(String(ours.deleteRowCount), String(java.deleteRowCount), `${label}: deleteRowCount`);
  assert.equal(String(ours.schemaId), String(java.schemaId), `${label}: schemaId`);
  assert.equal(ours.level, Number(java.level), `${label}: level`);
  assert.equal(ours.fileSource, Number(java.fileSourceValue), `${label}: fileSource`);
}

for (const version of VERSIONS) {
  describe(`Parquet data files and Paimon Java ${version}`, () => {
    const tables: Record<string, { dump: JsonObject; javaRows: unknown[] }> = {};

    before(async () => {
      const wh = tempWarehouse(`data-parquet-${version}`);
      const specs: Record<string, TableSpec> = {
        pk: { fields: ALL_TYPES, primaryKeys: ['dt', 'id'], partitionKeys: ['dt'], options: { bucket: '2' } },
        append: { fields: ALL_TYPES, primaryKeys: [], partitionKeys: ['dt'], options: {} },
        // every column counted, none truncated but one, no dense store
        pkfull: {
          fields: ALL_TYPES.slice(0, 14), primaryKeys: ['id'], partitionKeys: [],
          options: { bucket: '1', 'metadata.stats-mode': 'full', 'metadata.stats-dense-store': 'false', 'fields.s.stats-mode': 'truncate(4)' },
        },
      };
      const peer = java(version);
      for (const [name, spec] of Object.entries(specs)) {
        await peer.createTable(wh, 'db', name, spec);
        const cols = spec.fields.map((f) => f.name);
        for (let commit = 0; commit < 2; commit++) {
          const rows: JsonObj[] = [];
          for (let k = 0; k < 12; k++) {
            const id = commit * 100 + k;
            const row = javaRow(k % 3 === 0 ? '2024-01-02' : '2024-01-01', id, id);
            rows.push(Object.fromEntries(cols.map((c) => [c, (row[c] ?? null) as Json])));
          }
          await peer.write(wh, 'db', name, rows);
        }
        const dump = (await peer.dump(wh, 'db', name)) as unknown as JsonObject;
        const javaRows = (await peer.read(wh, 'db', name)).map((r) => normJava(r));
        tables[name] = { dump, javaRows };
      }
    });

    for (const name of ['pk', 'append', 'pkfull']) {
      test(`rows we read from the ${name} table's Java-written files equal the rows Paimon Java reads`, async () => {
        const { dump, javaRows } = tables[name];
        const schema = tableSchema(dump);
        const fields = schema.fields.map((f) => parseDataField(f));
        const files = liveFiles(dump);
        assert.ok(files.length >= 2, `expected several data files, got ${files.length}`);
        const ours: unknown[] = [];
        for (const f of files) {
          for await (const batch of readValueRows({ fileIO: io, path: f.path, schema, batchSize: 5 })) ours.push(...batch.map((r) => renderRow(fields, r)));
        }
        assert.equal(ours.length, 24);
        assert.deepEqual(sortRows(ours), sortRows(javaRows));
      });

      test(`for the same rows, our ${name} files get Java's DataFileMeta, field ids and codec`, async () => {
        const { dump } = tables[name];
        const schema = tableSchema(dump);
        const isPk = schema.primaryKeys.length > 0;
        for (const f of liveFiles(dump)) {
          const outDir = tempWarehouse(`ours-${version}-${name}`);
          let metas: DataFileMeta[];
          if (isPk) {
            const kvs: KeyValue[] = [];
            for await (const b of readKeyValues({ fileIO: io, path: f.path, schema })) kvs.push(...b);
            const w = new KeyValueDataFileWriter({
              fileIO: io, bucketDir: outDir, schema, level: f.level, fileSource: Number(f.meta.fileSourceValue), statsCompat: statsCompat(version),
            });
            await w.write(kvs);
            metas = await w.close();
          } else {
            const rows: InternalRow[] = [];
            for await (const b of readValueRows({ fileIO: io, path: f.path, schema })) rows.push(...b);
            const w = new AppendDataFileWriter({
              fileIO: io, bucketDir: outDir, schema, level: f.level, fileSource: Number(f.meta.fileSourceValue),
              startSequenceNumber: BigInt(String(f.meta.minSequenceNumber)), statsCompat: statsCompat(version),
            });
            await w.write(rows);
            metas = await w.close();
          }
          assert.equal(metas.length, 1);
          assertSameMeta(metas[0], f.meta, `${name}/${String(f.meta.fileName)}`);
          const javaCols = await parquetColumns(f.path);
          const ourCols = await parquetColumns(join(outDir, metas[0].fileName));
          assert.deepEqual(ourCols, javaCols, `${name}: Parquet column names, field ids and codecs`);
        }
      });
    }
  });
}

// ------------------------------------------------------------------ our files, read by Paimon

/**
 * Rewrites every bucket of a table with our writer (PK: the deduplicated merge of its files at
 * the top level 5, retracts dropped; append: its files concatenated in sequence order) and
 * commits the replacement as one COMPACT snapshot through the library's commit path.
 */
async function rewriteTable(tablePath: string, schema: TableSchemaLike): Promise<DataFileMeta[]> {
  const fields = schema.fields.map((f) => parseDataField(f));
  const partitionFields = schema.partitionKeys.map((k) => ({ name: k, type: binaryFieldType(fields.find((f) => f.name === k)!.type) }));
  const isPk = schema.primaryKeys.length > 0;
  const keyNames = schema.primaryKeys.filter((k) => !schema.partitionKeys.includes(k));
  const keyTypes = keyNames.map((k) => fields.find((f) => f.name === k)!.type);
  const commit = new FileStoreCommit({
    fileIO: io,
    tablePath,
    commitUser: 'data-parquet-test',
    partitionFields,
    keyTypes: keyTypes.map(binaryFieldType),
    bucketMode: isPk ? 'HASH_FIXED' : 'BUCKET_UNAWARE',
    tableOptions: schema.options,
  });
  const base = await commit.snapshotManager.latestSnapshot();
  const live = await commit.scan.readLiveEntries(base);
  const groups = new Map<string, ManifestEntry[]>();
  for (const e of live) {
    const k = `${e.partition.key()}/${e.bucket}`;
    groups.set(k, [...(groups.get(k) ?? []), e]);
  }
  const delta: ManifestEntry[] = [];
  const written: DataFileMeta[] = [];
  for (const entries of groups.values()) {
    const { partition, bucket, totalBuckets } = entries[0];
    const bucketDir = commit.pathFactory.bucketPath(partition, bucket);
    let metas: DataFileMeta[];
    if (isPk) {
      const all: KeyValue[] = [];
      for (const e of entries) {
        for await (const b of readKeyValues({ fileIO: io, path: `${bucketDir}/${e.file.fileName}`, schema })) all.push(...b);
      }
      all.sort((a, b) => compareRows(keyTypes, a.key, b.key) || (a.sequenceNumber < b.sequenceNumber ? -1 : a.sequenceNumber > b.sequenceNumber ? 1 : 0));
      const merged: KeyValue[] = [];
      for (let i = 0; i < all.length; i++) {
        const last = i + 1 === all.length || compareRows(keyTypes, all[i].key, all[i + 1].key) !== 0;
        if (last && (all[i].valueKind === 0 || all[i].valueKind === 2)) merged.push(all[i]);
      }
      const w = new KeyValueDataFileWriter({ fileIO: io, bucketDir, schema, level: 5, fileSource: 1 });
      await w.write(merged);
      metas = await w.close();
    } else {
      const files = [...entries].sort((a, b) => (a.file.minSequenceNumber < b.file.minSequenceNumber ? -1 : 1));
      const w = new AppendDataFileWriter({ fileIO: io, bucketDir, schema, level: 0, fileSource: 1, startSequenceNumber: files[0].file.minSequenceNumber });
      for (const e of files) {
        for await (const b of readValueRows({ fileIO: io, path: `${bucketDir}/${e.file.fileName}`, schema })) await w.write(b);
      }
      metas = await w.close();
    }
    for (const e of entries) delta.push(toDeleteEntry(e));
    for (const m of metas) delta.push({ kind: 'ADD', partition, bucket, totalBuckets, file: m });
    written.push(...metas);
  }
  await commit.commit({ kind: 'COMPACT', deltaEntries: delta, commitIdentifier: 9223372036854775807n, baseSnapshotId: base?.id ?? null });
  return written;
}

describe('Parquet files we write and commit are read by Paimon Java 1.4, 2.0 and pypaimon', () => {
  const specs: Record<string, TableSpec> = {
    pk: { fields: ALL_TYPES, primaryKeys: ['dt', 'id'], partitionKeys: ['dt'], options: { bucket: '2' } },
    append: { fields: ALL_TYPES, primaryKeys: [], partitionKeys: ['dt'], options: {} },
  };
  for (const [name, spec] of Object.entries(specs)) {
    test(`a ${name} table rewritten by us reads the same rows in every peer`, async () => {
      const wh = tempWarehouse(`data-rewrite-${name}`);
      const peer = java('1.4');
      await peer.createTable(wh, 'db', name, spec);
      const cols = spec.fields.map((f) => f.name);
      for (let commit = 0; commit < 3; commit++) {
        const rows: JsonObj[] = [];
        for (let k = 0; k < 15; k++) {
          const id = (commit * 7 + k) % 20; // overlapping keys across commits
          const row: JsonObj = Object.fromEntries(cols.map((c) => [c, (javaRow(k % 2 === 0 ? '2024-01-02' : '2024-01-01', id, commit * 100 + k)[c] ?? null) as Json]));
          if (name === 'pk' && commit === 2 && k % 4 === 0) row._rowKind = '-D';
          rows.push(row);
        }
        await peer.write(wh, 'db', name, rows);
      }
      const before = await peer.read(wh, 'db', name);
      assert.ok(before.length > 10);
      const dump = (await peer.dump(wh, 'db', name)) as unknown as JsonObject;
      const schema = tableSchema(dump);
      const tablePath = String(dump.location).replace(/^file:/, '');

      const written = await rewriteTable(tablePath, schema);
      assert.ok(written.length >= 2);

      const sorted = (rows: JsonObj[]) => sortRows(rows.map((r) => normJava(r)));
      assert.deepEqual(sorted(await java('1.4').read(wh, 'db', name)), sorted(before), 'Paimon Java 1.4 reads the same rows');
      assert.deepEqual(sorted(await java('2.0').read(wh, 'db', name)), sorted(before), 'Paimon Java 2.0 reads the same rows');
      assert.deepEqual(sorted(await pypaimons.read(wh, 'db', name)), sorted(before), 'pypaimon reads the same rows');

      // Java sees exactly our files, with the level and source we gave them.
      const after = liveFiles((await peer.dump(wh, 'db', name)) as unknown as JsonObject);
      assert.deepEqual(after.map((f) => String(f.meta.fileName)).sort(), written.map((m) => m.fileName).sort());
      for (const f of after) {
        assert.equal(f.level, name === 'pk' ? 5 : 0);
        assert.equal(Number(f.meta.fileSourceValue), 1);
      }
    });
  }
});

describe('Avro data files written by Paimon Java are read like Java reads them', () => {
  for (const version of VERSIONS) {
    for (const [name, spec] of Object.entries({
      pk: { fields: ALL_TYPES, primaryKeys: ['dt', 'id'], partitionKeys: ['dt'], options: { bucket: '2', 'file.format': 'avro' } },
      append: { fields: ALL_TYPES, primaryKeys: [], partitionKeys: ['dt'], options: { 'file.format': 'avro', 'file.compression': 'snappy' } },
    } as Record<string, TableSpec>)) {
      test(`${name} table with file.format=avro, Paimon Java ${version}`, async () => {
        const wh = tempWarehouse(`data-avro-${version}-${name}`);
        const peer = java(version);
        await peer.createTable(wh, 'db', name, spec);
        const cols = spec.fields.map((f) => f.name);
        for (let commit = 0; commit < 2; commit++) {
          const rows: JsonObj[] = [];
          for (let k = 0; k < 10; k++) {
            const id = commit * 100 + k;
            const row = javaRow(k % 3 === 0 ? '2024-01-02' : '2024-01-01', id, id);
            rows.push(Object.fromEntries(cols.map((c) => [c, (row[c] ?? null) as Json])));
          }
          await peer.write(wh, 'db', name, rows);
        }
        const dump = (await peer.dump(wh, 'db', name)) as unknown as JsonObject;
        const javaRows = (await peer.read(wh, 'db', name)).map((r) => normJava(r));
        const schema = tableSchema(dump);
        const fields = schema.fields.map((f) => parseDataField(f));
        const files = liveFiles(dump);
        assert.ok(files.every((f) => f.path.endsWith('.avro')), 'Java wrote Avro data files');
        const ours: unknown[] = [];
        for (const f of files) {
          for await (const b of readValueRows({ fileIO: io, path: f.path, schema })) ours.push(...b.map((r) => renderRow(fields, r)));
        }
        assert.deepEqual(sortRows(ours), sortRows(javaRows));
      });
    }
  }
});
