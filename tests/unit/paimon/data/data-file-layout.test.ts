import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  dataFileLayout,
  statsModes,
  trimmedPrimaryKeys,
  newDataFileName,
  formatFromFileName,
  formatFromMagic,
  fileCompressionForLevel,
  fileFormatForLevel,
  targetFileSize,
  arrayElementFieldId,
  mapKeyFieldId,
} from '../../../../src/paimon/data/data-file-layout.js';
import { parseMemorySize } from '../../../../src/paimon/spec/core-options.js';
import { fieldIdsOption } from '../../../../src/paimon/data/duckdb-engine.js';
import { parseFieldType, typeToString } from '../../../../src/paimon/data/field-type.js';

const schema = {
  id: 7,
  fields: [
    { id: 0, name: 'dt', type: 'STRING NOT NULL' },
    { id: 3, name: 'id', type: 'BIGINT NOT NULL' },
    { id: 4, name: 'v', type: 'STRING' },
    { id: 5, name: 'hr', type: 'INT NOT NULL' },
  ],
  partitionKeys: ['dt'],
  primaryKeys: ['dt', 'hr', 'id'],
  options: {},
};

describe('data file layout', () => {
  test('a primary-key file holds _KEY_ columns of the trimmed key (PK order), then sequence and kind, then the table', () => {
    const l = dataFileLayout(schema);
    assert.deepEqual(trimmedPrimaryKeys(schema), ['hr', 'id']);
    assert.deepEqual(
      l.physicalFields.map((f) => `${f.name}#${f.id}`),
      ['_KEY_hr#1073741828', '_KEY_id#1073741826', '_SEQUENCE_NUMBER#2147483646', '_VALUE_KIND#2147483645', 'dt#0', 'id#3', 'v#4', 'hr#5'],
    );
    assert.deepEqual(l.keyValueIndexes, [3, 1]);
    assert.equal(l.schemaId, 7n);
  });

  test('thin mode leaves the _KEY_ columns out', () => {
    const l = dataFileLayout({ ...schema, options: { 'data-file.thin-mode': 'true' } });
    assert.deepEqual(l.physicalFields.map((f) => f.name), ['_SEQUENCE_NUMBER', '_VALUE_KIND', 'dt', 'id', 'v', 'hr']);
  });

  test('an append file holds exactly the table columns, partition columns included', () => {
    const l = dataFileLayout({ ...schema, primaryKeys: [] });
    assert.deepEqual(l.physicalFields.map((f) => f.name), ['dt', 'id', 'v', 'hr']);
  });

  test('a primary key made only of partition columns is refused', () => {
    assert.throws(() => dataFileLayout({ ...schema, primaryKeys: ['dt'] }), /no column outside the partition keys/);
  });

  test('nested field ids follow SpecialFields (list element, map key/value by depth)', () => {
    assert.equal(arrayElementFieldId(21, 1), 536892416);
    assert.equal(mapKeyFieldId(22, 1), 536848382);
    const ids = fieldIdsOption([
      { id: 21, name: 'arr', type: parseFieldType({ type: 'ARRAY', element: { type: 'ARRAY', element: 'INT' } }) },
      { id: 23, name: 'r', type: parseFieldType({ type: 'ROW', fields: [{ id: 24, name: 'x', type: 'INT' }] }) },
    ]);
    assert.equal(ids, "{'arr': {__duckdb_field_id: 21, element: {__duckdb_field_id: 536892416, element: 536892417}}, 'r': {__duckdb_field_id: 23, 'x': 24}}");
  });
});

describe('options', () => {
  test('stats modes: per field first, system and key columns truncate(128), keep-first-n counts table columns only', () => {
    const names = dataFileLayout(schema).physicalFields.map((f) => f.name);
    const modes = statsModes({ 'metadata.stats-keep-first-n-columns': '2', 'fields.hr.stats-mode': 'full' }, names, 0);
    assert.deepEqual(modes.map((m) => (m.kind === 'truncate' ? `truncate(${m.length})` : m.kind)), [
      'truncate(128)', 'truncate(128)', 'truncate(128)', 'truncate(128)', 'truncate(16)', 'truncate(16)', 'none', 'full',
    ]);
    const perLevel = statsModes({ 'metadata.stats-mode': 'counts', 'metadata.stats-mode.per.level': '0:none' }, ['a'], 0);
    assert.deepEqual(perLevel, [{ kind: 'none' }]);
    assert.throws(() => statsModes({ 'metadata.stats-mode': 'truncate(x)' }, ['a'], 0), /stats mode/);
  });

  test('format and compression per level, parquet.compression override', () => {
    assert.equal(fileFormatForLevel({}, 3), 'parquet');
    assert.equal(fileFormatForLevel({ 'file.format.per.level': '0:avro' }, 0), 'avro');
    assert.equal(fileCompressionForLevel({}, 0), 'zstd');
    assert.equal(fileCompressionForLevel({ 'file.compression.per.level': '5:lz4' }, 5), 'lz4');
    assert.equal(fileCompressionForLevel({ 'parquet.compression': 'SNAPPY' }, 0), 'snappy');
  });

  test('target file size defaults and memory sizes', () => {
    assert.equal(targetFileSize({}, true), 128 * 1024 * 1024);
    assert.equal(targetFileSize({}, false), 256 * 1024 * 1024);
    assert.equal(parseMemorySize('64 mb'), 64 * 1024 * 1024);
    assert.throws(() => parseMemorySize('12 parsecs'));
  });

  test('file names as DataFilePathFactory makes them, format by extension or magic', () => {
    assert.equal(newDataFileName({}, 'parquet', { uuid: 'u', count: 3 }), 'data-u-3.parquet');
    assert.equal(newDataFileName({}, 'parquet', { uuid: 'u', changelog: true }), 'changelog-u-0.parquet');
    assert.equal(newDataFileName({ 'file.suffix.include.compression': 'true' }, 'parquet', { uuid: 'u', compression: 'zstd' }), 'data-u-0.zstd.parquet');
    assert.equal(formatFromFileName('data-u-0.orc'), 'orc');
    assert.equal(formatFromFileName('data-u-0.zstd.parquet'), 'parquet');
    assert.equal(formatFromMagic(Buffer.from('PAR1xxxx')), 'parquet');
    assert.equal(formatFromMagic(Buffer.from('Obj\x01')), 'avro');
  });
});

describe('type strings', () => {
  test('the JSON forms parse, including nested and NOT NULL', () => {
    for (const t of ['INT NOT NULL', 'DECIMAL(38, 10)', 'TIMESTAMP(3) WITH LOCAL TIME ZONE', 'VARCHAR(20)', 'TIME(3)', 'BINARY(2)']) {
      assert.equal(typeToString(parseFieldType(t)), t);
    }
    assert.equal(typeToString(parseFieldType({ type: 'MAP NOT NULL', key: 'STRING NOT NULL', value: 'BIGINT' })), 'MAP<VARCHAR(2147483647) NOT NULL, BIGINT> NOT NULL');
    assert.throws(() => parseFieldType('GEOMETRY'), /unrecognised Paimon data type/);
  });
});
