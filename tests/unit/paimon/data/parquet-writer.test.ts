import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { LocalFileIO } from '../../../../src/paimon/fs/local-file-io.js';
import { KeyValueDataFileWriter, AppendDataFileWriter, FileSource } from '../../../../src/paimon/data/parquet-writer.js';
import { readKeyValues, readValueRows, readDataFile } from '../../../../src/paimon/data/parquet-reader.js';
import { Decimal, Timestamp, type KeyValue, type InternalRow } from '../../../../src/paimon/data/internal-row.js';
import { fromSimpleStats } from '../../../../src/paimon/spec/simple-stats.js';
import { closeDataEngine } from '../../../../src/paimon/data/duckdb-engine.js';
import { binaryFieldType } from '../../../../src/paimon/data/parquet-writer.js';
import { parseFieldType } from '../../../../src/paimon/data/field-type.js';

const dir = mkdtempSync(join(tmpdir(), 'pq-writer-test-'));
after(async () => {
  await closeDataEngine();
  rmSync(dir, { recursive: true, force: true });
});
const io = new LocalFileIO();

const pkSchema = {
  id: 3,
  fields: [
    { id: 0, name: 'dt', type: 'STRING NOT NULL' },
    { id: 1, name: 'id', type: 'BIGINT NOT NULL' },
    { id: 2, name: 'name', type: 'STRING' },
    { id: 3, name: 'amount', type: 'DECIMAL(10, 2)' },
    { id: 4, name: 'ts', type: 'TIMESTAMP(3)' },
    { id: 5, name: 'tags', type: { type: 'ARRAY', element: 'STRING' } },
    { id: 6, name: 'bin', type: 'BYTES' },
  ],
  partitionKeys: ['dt'],
  primaryKeys: ['dt', 'id'],
  options: {},
};

async function parquetSchema(path: string): Promise<Array<Record<string, unknown>>> {
  const inst = await DuckDBInstance.create(':memory:');
  const c = await inst.connect();
  const r = await c.runAndReadAll(`SELECT name, type, field_id, converted_type FROM parquet_schema('${path}')`);
  const rows = r.getRowObjects();
  const m = await c.runAndReadAll(`SELECT DISTINCT compression FROM parquet_metadata('${path}')`);
  const comp = m.getRowObjects().map((o) => o.compression);
  c.closeSync();
  inst.closeSync();
  return [...rows, { compression: comp }];
}

describe('KeyValueDataFileWriter', () => {
  test('writes the primary-key layout with Paimon field ids and zstd, and reads back the same records', async () => {
    const w = new KeyValueDataFileWriter({ fileIO: io, bucketDir: join(dir, 'pk/dt=a/bucket-0'), schema: pkSchema, level: 5, fileSource: FileSource.COMPACT });
    const kvs: KeyValue[] = [];
    for (let i = 0; i < 5000; i++) {
      const value: InternalRow = ['a', BigInt(i), i % 7 === 0 ? null : `name-${i}`, new Decimal(BigInt(i * 3 - 100), 10, 2), new Timestamp(1700000000000n + BigInt(i), 0), [`t${i}`, null], Buffer.from([i & 255])];
      kvs.push({ key: [BigInt(i)], sequenceNumber: BigInt(10 + i), valueKind: i === 4999 ? 3 : 0, value });
    }
    await w.write(kvs.slice(0, 100));
    await w.write(kvs.slice(100));
    const [meta, ...rest] = await w.close();
    assert.equal(rest.length, 0);
    assert.match(meta.fileName, /^data-[0-9a-f-]{36}-0\.parquet$/);
    assert.equal(meta.rowCount, 5000n);
    assert.equal(meta.level, 5);
    assert.equal(meta.fileSource, 1);
    assert.equal(meta.schemaId, 3n);
    assert.equal(meta.minSequenceNumber, 10n);
    assert.equal(meta.maxSequenceNumber, 5009n);
    assert.equal(meta.deleteRowCount, 1n);
    assert.deepEqual(meta.minKey.toValues([{ root: 'BIGINT' }]), [0n]);
    assert.deepEqual(meta.maxKey.toValues([{ root: 'BIGINT' }]), [4999n]);
    const path = join(dir, 'pk/dt=a/bucket-0', meta.fileName);
    assert.equal(meta.fileSize, BigInt((await io.getStatus(path))!.size));
    // key stats: all key columns
    assert.deepEqual(fromSimpleStats([{ root: 'BIGINT' }], meta.keyStats), [{ min: 0n, max: 4999n, nullCount: 0n }]);
    // value stats: dense, the ARRAY column is dropped (Parquet gives Java no stats for it)
    assert.deepEqual(meta.valueStatsCols, ['dt', 'id', 'name', 'amount', 'ts', 'bin']);
    const types = ['STRING', 'BIGINT', 'STRING', 'DECIMAL(10, 2)', 'TIMESTAMP(3)', 'BYTES'].map((t) => binaryFieldType(parseFieldType(t)));
    const vs = fromSimpleStats(types, meta.valueStats);
    assert.deepEqual(vs[0], { min: 'a', max: 'a', nullCount: 0n });
    assert.deepEqual(vs[1], { min: 0n, max: 4999n, nullCount: 0n });
    assert.equal(vs[2].nullCount, 715n);
    assert.equal(vs[2].min, 'name-1');
    assert.equal(vs[2].max, 'name-999');
    assert.equal((vs[3].min as Decimal).unscaled, -100n);
    assert.equal((vs[4].max as Timestamp).millisecond, 1700000004999n);
    assert.deepEqual(vs[5], { min: null, max: null, nullCount: 0n });

    const schema = await parquetSchema(path);
    const ids = Object.fromEntries(schema.filter((r) => r.name).map((r) => [r.name, r.field_id === null ? null : Number(r.field_id)]));
    assert.equal(ids._KEY_id, 1073741823 + 1);
    assert.equal(ids._SEQUENCE_NUMBER, 2147483646);
    assert.equal(ids._VALUE_KIND, 2147483645);
    assert.equal(ids.amount, 3);
    assert.equal(ids.tags, 5);
    assert.equal(ids.element, 536870911 + 5 * 1024 + 1);
    assert.deepEqual(schema.at(-1), { compression: ['ZSTD'] });
    const names = schema.filter((r) => r.name && r.name !== 'duckdb_schema').map((r) => r.name);
    assert.deepEqual(names.slice(0, 4), ['_KEY_id', '_SEQUENCE_NUMBER', '_VALUE_KIND', 'dt']);

    const back: KeyValue[] = [];
    for await (const b of readKeyValues({ fileIO: io, path, schema: pkSchema, batchSize: 1000 })) back.push(...b);
    assert.equal(back.length, 5000);
    assert.deepEqual(back[17], kvs[17]);
    assert.deepEqual(back[4999], kvs[4999]);
    assert.deepEqual(back.map((k) => k.key[0]), kvs.map((k) => k.key[0]));
  });

  test('rolls to a new file when the target file size is reached', async () => {
    const w = new KeyValueDataFileWriter({ fileIO: io, bucketDir: join(dir, 'roll/bucket-0'), schema: pkSchema, level: 1, fileSource: FileSource.COMPACT, targetFileSize: 20_000 });
    const kvs: KeyValue[] = [];
    for (let i = 0; i < 20000; i++) kvs.push({ key: [BigInt(i)], sequenceNumber: BigInt(i), valueKind: 0, value: ['x', BigInt(i), `v${i * 7919 % 10007}`, null, null, null, null] });
    await w.write(kvs);
    const metas = await w.close();
    assert.ok(metas.length > 1, `expected several files, got ${metas.length}`);
    assert.equal(metas.reduce((s, m) => s + m.rowCount, 0n), 20000n);
    for (let i = 1; i < metas.length; i++) {
      const prevMax = metas[i - 1].maxKey.toValues([{ root: 'BIGINT' }])[0] as bigint;
      const min = metas[i].minKey.toValues([{ root: 'BIGINT' }])[0] as bigint;
      assert.equal(min, prevMax + 1n);
      assert.equal(metas[i].minSequenceNumber, metas[i - 1].maxSequenceNumber + 1n);
    }
    assert.deepEqual(metas.map((m) => m.fileName.replace(/^data-[0-9a-f-]{36}-/, '')), metas.map((_, i) => `${i}.parquet`));
  });

  test('abort deletes the files already written', async () => {
    const bucketDir = join(dir, 'abort/bucket-0');
    const w = new KeyValueDataFileWriter({ fileIO: io, bucketDir, schema: pkSchema, level: 1, fileSource: FileSource.COMPACT, targetFileSize: 5_000 });
    const kvs: KeyValue[] = [];
    for (let i = 0; i < 5000; i++) kvs.push({ key: [BigInt(i)], sequenceNumber: BigInt(i), valueKind: 0, value: ['x', BigInt(i), `v${i}`, null, null, null, null] });
    await w.write(kvs);
    assert.ok(w.writtenFiles().length > 0);
    await w.abort();
    const left: string[] = [];
    for await (const f of io.list(bucketDir)) left.push(f.path);
    assert.deepEqual(left, []);
  });
});

describe('AppendDataFileWriter', () => {
  const schema = {
    id: 0,
    fields: [
      { id: 0, name: 'k', type: 'INT' },
      { id: 1, name: 's', type: 'STRING' },
      { id: 2, name: 'd', type: 'DATE' },
      { id: 3, name: 't', type: 'TIME(0)' },
      { id: 4, name: 'm', type: { type: 'MAP', key: 'STRING NOT NULL', value: 'INT' } },
      { id: 5, name: 'r', type: { type: 'ROW', fields: [{ id: 6, name: 'a', type: 'INT' }, { id: 7, name: 'b', type: 'DOUBLE' }] } },
    ],
    partitionKeys: [],
    primaryKeys: [],
    options: { 'metadata.stats-mode': 'full', 'fields.s.stats-mode': 'truncate(3)' },
  };

  test('counts sequence numbers from the start value and reads back every type', async () => {
    const w = new AppendDataFileWriter({ fileIO: io, bucketDir: join(dir, 'ap/bucket-0'), schema, level: 0, fileSource: FileSource.APPEND, startSequenceNumber: 42n });
    const rows: InternalRow[] = [
      [1, 'hello', 19000, 3_600_000, [['a', 1], ['b', null]], [1, 1.5]],
      [null, 'help', -5, 0, [], null],
      [3, null, null, null, null, [null, null]],
    ];
    await w.write(rows);
    assert.equal(w.nextSequenceNumber(), 45n);
    const [meta] = await w.close();
    assert.equal(meta.minSequenceNumber, 42n);
    assert.equal(meta.maxSequenceNumber, 44n);
    assert.equal(meta.keyStats.nullCounts.length, 0);
    assert.deepEqual(meta.valueStatsCols, ['k', 's', 'd', 't']);
    const vs = fromSimpleStats(['INT', 'STRING', 'DATE', 'TIME(0)'].map((t) => binaryFieldType(parseFieldType(t))), meta.valueStats);
    assert.deepEqual(vs, [
      { min: 1, max: 3, nullCount: 1n },
      { min: 'hel', max: 'hem', nullCount: 1n },
      { min: -5, max: 19000, nullCount: 1n },
      { min: 0, max: 3_600_000, nullCount: 1n },
    ]);
    const back: InternalRow[] = [];
    for await (const b of readValueRows({ fileIO: io, path: join(dir, 'ap/bucket-0', meta.fileName), schema })) back.push(...b);
    assert.deepEqual(back, rows);
  });

  test('refuses a type the Parquet writer cannot produce, naming the column', () => {
    const bad = { ...schema, fields: [{ id: 0, name: 'ts9', type: 'TIMESTAMP(9)' }] };
    assert.throws(
      () => new AppendDataFileWriter({ fileIO: io, bucketDir: join(dir, 'x'), schema: bad, level: 0, fileSource: 0, startSequenceNumber: 0n }),
      (e: Error & { code?: string }) => e.code === 'UNSUPPORTED_FORMAT' && /ts9/.test(e.message) && /INT96/.test(e.message),
    );
  });

  test('reading an ORC data file is refused with the format and the table named', async () => {
    const it = readDataFile({ fileIO: io, path: join(dir, 'data-x-0.orc'), schema, table: 'db.t' });
    await assert.rejects(it.next(), (e: Error & { code?: string }) => e.code === 'UNSUPPORTED_FORMAT' && /orc/.test(e.message) && /db\.t/.test(e.message));
  });
});

describe('deletion vectors', () => {
  test('rows at deleted positions are skipped, in file order', async () => {
    const schema = { id: 0, fields: [{ id: 0, name: 'k', type: 'INT NOT NULL' }, { id: 1, name: 'v', type: 'STRING' }], partitionKeys: [], primaryKeys: ['k'], options: {} };
    const w = new KeyValueDataFileWriter({ fileIO: io, bucketDir: join(dir, 'dv/bucket-0'), schema, level: 1, fileSource: 0 });
    const kvs: KeyValue[] = [];
    for (let i = 0; i < 5000; i++) kvs.push({ key: [i], sequenceNumber: BigInt(i), valueKind: 0, value: [i, `v${i}`] });
    await w.write(kvs);
    const [meta] = await w.close();
    const deleted = new Set([0, 2047, 2048, 4999]);
    const back: number[] = [];
    for await (const b of readKeyValues({ fileIO: io, path: join(dir, 'dv/bucket-0', meta.fileName), schema, deletionVector: { isDeleted: (p) => deleted.has(p) } })) {
      back.push(...b.map((kv) => kv.key[0] as number));
    }
    assert.equal(back.length, 4996);
    assert.deepEqual(back.slice(0, 2), [1, 2]);
    assert.ok(!back.includes(2047) && !back.includes(2048) && back.includes(2049));
  });
});
