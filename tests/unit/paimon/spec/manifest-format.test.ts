import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isPaimonError } from '../../../../src/paimon/errors.js';
import { INDEX_MANIFEST_ENTRY_SCHEMA, MANIFEST_ENTRY_SCHEMA, MANIFEST_FILE_META_SCHEMA } from '../../../../src/paimon/spec/avro-schemas.js';
import { manifestFormatOf, metadataFileFormat, metadataRowType } from '../../../../src/paimon/spec/manifest-format.js';
import { encodeObjectsFile } from '../../../../src/paimon/spec/objects-file.js';
import { metadataFileOptions } from '../../../../src/paimon/table/manifest-file.js';
import type { DataFieldSpec } from '../../../../src/paimon/data/field-type.js';

describe('manifest.format', () => {
  test('avro by default; parquet in any case; ORC and unknown formats refused naming the option', () => {
    assert.equal(manifestFormatOf({}), 'avro');
    assert.equal(manifestFormatOf({ 'manifest.format': 'PARQUET' }), 'parquet');
    for (const f of ['orc', 'csv']) {
      assert.throws(
        () => manifestFormatOf({ 'manifest.format': f }, 'db.t'),
        (e) => isPaimonError(e, 'UNSUPPORTED_FORMAT') && e.message.includes("'manifest.format' = '" + f + "'") && e.message.includes('db.t'),
      );
    }
  });

  test('manifest.compression is the codec of both formats; avro.codec overrides it for Avro only', () => {
    const o = { 'manifest.compression': 'snappy', 'avro.codec': 'deflate' };
    assert.deepEqual(metadataFileOptions(o), { format: 'avro', compression: 'deflate', zstdLevel: 1, targetFileSize: undefined });
    assert.deepEqual(metadataFileOptions({ ...o, 'manifest.format': 'parquet' }), { format: 'parquet', compression: 'snappy', zstdLevel: 1, targetFileSize: undefined });
    assert.equal(metadataFileOptions({ 'manifest.format': 'parquet' }).compression, 'zstd');
  });
});

describe('metadata file format by magic bytes', () => {
  test('Avro container files and Parquet files are recognised', async () => {
    assert.equal(metadataFileFormat(await encodeObjectsFile(MANIFEST_FILE_META_SCHEMA, [], { codec: 'null' }), 'list'), 'avro');
    assert.equal(metadataFileFormat(Buffer.concat([Buffer.from('PAR1'), Buffer.alloc(8), Buffer.from('PAR1')]), 'list'), 'parquet');
  });

  test('a cut Parquet file and a file of no known format are CORRUPT_METADATA naming the file; ORC is UNSUPPORTED_FORMAT', () => {
    assert.throws(() => metadataFileFormat(Buffer.concat([Buffer.from('PAR1'), Buffer.alloc(20)]), 'manifest list m-0'), (e) => isPaimonError(e, 'CORRUPT_METADATA') && e.message.includes('m-0'));
    assert.throws(() => metadataFileFormat(Buffer.from('garbage garbage'), 'manifest m-1'), (e) => isPaimonError(e, 'CORRUPT_METADATA') && e.message.includes('m-1'));
    assert.throws(() => metadataFileFormat(Buffer.alloc(0), 'manifest m-2'), (e) => isPaimonError(e, 'CORRUPT_METADATA'));
    assert.throws(() => metadataFileFormat(Buffer.from('ORC\x0a\x0b'), 'manifest m-3'), (e) => isPaimonError(e, 'UNSUPPORTED_FORMAT') && e.message.includes('manifest.format'));
  });
});

/** name:id:type, nested rows in brackets: the shape Java's Parquet footers show (parquet_schema). */
function shape(fields: readonly DataFieldSpec[]): string[] {
  const t = (f: DataFieldSpec): string => {
    const ty = f.type;
    if (ty.root === 'ROW') return `${f.name}:${f.id}[${ty.fields.map(t).join(',')}]`;
    if (ty.root === 'ARRAY') return `${f.name}:${f.id}:ARRAY<${ty.element.root}${ty.element.nullable ? '' : ' NOT NULL'}>`;
    return `${f.name}:${f.id}:${ty.root}${ty.nullable ? '' : ' NOT NULL'}`;
  };
  return fields.map(t);
}

describe('Parquet row types of the metadata files (VersionedObjectSerializer.versionType + SCHEMA)', () => {
  test('manifest list: _VERSION -1, then ManifestFileMeta fields by position', () => {
    assert.deepEqual(shape(metadataRowType(MANIFEST_FILE_META_SCHEMA)), [
      '_VERSION:-1:INT NOT NULL',
      '_FILE_NAME:0:VARCHAR NOT NULL',
      '_FILE_SIZE:1:BIGINT NOT NULL',
      '_NUM_ADDED_FILES:2:BIGINT NOT NULL',
      '_NUM_DELETED_FILES:3:BIGINT NOT NULL',
      '_PARTITION_STATS:4[_MIN_VALUES:0:VARBINARY NOT NULL,_MAX_VALUES:1:VARBINARY NOT NULL,_NULL_COUNTS:2:ARRAY<BIGINT>]',
      '_SCHEMA_ID:5:BIGINT NOT NULL',
      '_MIN_BUCKET:6:INT',
      '_MAX_BUCKET:7:INT',
      '_MIN_LEVEL:8:INT',
      '_MAX_LEVEL:9:INT',
      '_MIN_ROW_ID:10:BIGINT',
      '_MAX_ROW_ID:11:BIGINT',
    ]);
  });

  test('manifest entry: _KIND and _FILE_SOURCE are TINYINT, _CREATION_TIME TIMESTAMP(3), _EXTRA_FILES of non-null strings', () => {
    const [version, kind, , , , file] = metadataRowType(MANIFEST_ENTRY_SCHEMA);
    assert.equal(version.id, -1);
    assert.deepEqual(kind.type, { root: 'TINYINT', nullable: false });
    assert.equal(file.type.root, 'ROW');
    const sub = file.type.root === 'ROW' ? file.type.fields : [];
    assert.equal(sub.length, 20);
    assert.deepEqual(sub.find((f) => f.name === '_CREATION_TIME'), { id: 12, name: '_CREATION_TIME', type: { root: 'TIMESTAMP', nullable: true, precision: 3 } });
    assert.deepEqual(sub.find((f) => f.name === '_FILE_SOURCE')?.type, { root: 'TINYINT', nullable: true });
    assert.equal(shape(sub)[11], '_EXTRA_FILES:11:ARRAY<VARCHAR NOT NULL>');
  });

  test('index manifest: deletion-vector ranges are an array of nullable rows', () => {
    const f = metadataRowType(INDEX_MANIFEST_ENTRY_SCHEMA).find((x) => x.name === '_DELETIONS_VECTORS_RANGES')!;
    assert.equal(f.id, 7);
    assert.ok(f.type.root === 'ARRAY' && f.type.nullable && f.type.element.root === 'ROW' && f.type.element.nullable);
  });
});
