import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBBlobValue, DuckDBInstance, DuckDBStructValue } from '@duckdb/node-api';
import { LocalFileIO } from '../../../../src/paimon/fs/local-file-io.js';
import { AppendDataFileWriter, FileSource } from '../../../../src/paimon/data/parquet-writer.js';
import { closeDataEngine, duckWriteType, fieldIdsOption } from '../../../../src/paimon/data/duckdb-engine.js';
import { parseDataField, parseFieldType } from '../../../../src/paimon/data/field-type.js';
import { arrayElementFieldId, mapKeyFieldId, mapValueFieldId } from '../../../../src/paimon/data/data-file-layout.js';
import { variantFromDuck } from '../../../../src/paimon/data/variant-parquet.js';
import { fromSimpleStats } from '../../../../src/paimon/spec/simple-stats.js';
import { binaryFieldType } from '../../../../src/paimon/data/parquet-writer.js';
import type { InternalRow } from '../../../../src/paimon/data/internal-row.js';

const dir = mkdtempSync(join(tmpdir(), 'variant-parquet-test-'));
after(async () => {
  await closeDataEngine();
  rmSync(dir, { recursive: true, force: true });
});

const FIELDS = [
  { id: 0, name: 'id', type: 'INT NOT NULL' },
  { id: 1, name: 'j', type: 'VARIANT' },
  { id: 2, name: 'r', type: { type: 'ROW', fields: [{ id: 3, name: 'k', type: 'INT' }, { id: 4, name: 'j', type: 'VARIANT' }] } },
  { id: 5, name: 'arr', type: { type: 'ARRAY', element: 'VARIANT' } },
  { id: 6, name: 'm', type: { type: 'MAP', key: 'STRING NOT NULL', value: 'VARIANT' } },
];

/** The encoded parts of small variants (Paimon's encoding: 0x0C int8, primitive header; an empty dictionary). */
const META = Uint8Array.from([0x01, 0x00, 0x00]);
const v = (...value: number[]): [Uint8Array, Uint8Array] => [Uint8Array.from(value), META];

describe('VARIANT in Parquet', () => {
  test('maps to the value/metadata struct, nested too, with the ids of ParquetSchemaConverter', () => {
    assert.equal(duckWriteType(parseFieldType('VARIANT'), 'x'), 'STRUCT("value" BLOB, "metadata" BLOB)');
    const specs = FIELDS.map((f) => parseDataField(f));
    assert.equal(
      duckWriteType(specs[2].type, 'x'),
      'STRUCT("k" INTEGER, "j" STRUCT("value" BLOB, "metadata" BLOB))',
    );
    assert.equal(duckWriteType(specs[3].type, 'x'), 'STRUCT("value" BLOB, "metadata" BLOB)[]');
    assert.equal(duckWriteType(specs[4].type, 'x'), 'MAP(VARCHAR, STRUCT("value" BLOB, "metadata" BLOB))');
    assert.match(fieldIdsOption(specs), /'j': \{__duckdb_field_id: 1\}/);
  });

  test('a written file has the group layout Paimon writes (names, ids, binary parts) and no stats for the column', async () => {
    const schema = { id: 0, fields: FIELDS, partitionKeys: [], primaryKeys: [], options: { 'metadata.stats-mode': 'full' } };
    const w = new AppendDataFileWriter({ fileIO: new LocalFileIO(), bucketDir: join(dir, 'ap/bucket-0'), schema, level: 0, fileSource: FileSource.COMPACT, startSequenceNumber: 0n });
    const rows: InternalRow[] = [
      [1, v(0x0c, 1), [7, v(0x0c, 2)], [v(0x0c, 3), null], [['a', v(0x0c, 4)]]],
      [2, null, null, null, null],
    ];
    await w.write(rows);
    const [meta] = await w.close();
    const inst = await DuckDBInstance.create(':memory:');
    const c = await inst.connect();
    const path = join(dir, 'ap/bucket-0', meta.fileName);
    const r = await c.runAndReadAll(`SELECT name, type, field_id FROM parquet_schema('${path}')`);
    const layout = r.getRowObjects().map((o) => `${String(o.name)}:${String(o.type)}:${String(o.field_id)}`);
    c.closeSync();
    inst.closeSync();
    assert.deepEqual(layout, [
      'duckdb_schema:null:null',
      'id:INT32:0',
      'j:null:1', 'value:BYTE_ARRAY:null', 'metadata:BYTE_ARRAY:null',
      'r:null:2', 'k:INT32:3', 'j:null:4', 'value:BYTE_ARRAY:null', 'metadata:BYTE_ARRAY:null',
      'arr:null:5', 'list:null:null', `element:null:${arrayElementFieldId(5, 1)}`, 'value:BYTE_ARRAY:null', 'metadata:BYTE_ARRAY:null',
      'm:null:6', 'key_value:null:null', `key:BYTE_ARRAY:${mapKeyFieldId(6, 1)}`, `value:null:${mapValueFieldId(6, 1)}`, 'value:BYTE_ARRAY:null', 'metadata:BYTE_ARRAY:null',
    ]);
    // Dense stats keep only the columns with statistics: the id (VARIANT and nested ones have none).
    assert.deepEqual(meta.valueStatsCols, ['id']);
    assert.deepEqual(fromSimpleStats([binaryFieldType(parseFieldType('INT'))], meta.valueStats), [{ min: 1, max: 2, nullCount: 0n }]);
  });

  test('reading a shredded variant (typed_value) is refused, naming the engine to use', () => {
    const part = (b: number[]) => new DuckDBBlobValue(Uint8Array.from(b));
    assert.deepEqual(variantFromDuck(new DuckDBStructValue({ value: part([0x0c, 1]), metadata: part([1, 0, 0]) })), [Uint8Array.from([0x0c, 1]), Uint8Array.from([1, 0, 0])]);
    assert.throws(
      () => variantFromDuck(new DuckDBStructValue({ metadata: part([1, 0, 0]), value: null, typed_value: 5 })),
      (e: Error & { code?: string }) => e.code === 'UNSUPPORTED_FORMAT' && /shredded/.test(e.message) && /CALL sys\.compact/.test(e.message),
    );
  });
});
