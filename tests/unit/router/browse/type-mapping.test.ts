import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mysqlColumnType } from '../../../../src/router/browse/type-mapping.js';
import { parseAtomicTypeSqlString, parseDataTypeJson } from '../../../../src/paimon/spec/data-types.js';

/** Paimon type (its SQL form) -> Doris's column type, DDL type and information_schema DATA_TYPE (PaimonUtil.paimonPrimitiveTypeToDorisType). */
const CASES: [string, string, string, string][] = [
  ['BOOLEAN', 'boolean', 'boolean', 'boolean'],
  ['TINYINT', 'tinyint', 'tinyint', 'tinyint'],
  ['SMALLINT', 'smallint', 'smallint', 'smallint'],
  ['INT NOT NULL', 'int', 'int', 'int'],
  ['BIGINT', 'bigint', 'bigint', 'bigint'],
  ['FLOAT', 'float', 'float', 'float'],
  ['DOUBLE', 'double', 'double', 'double'],
  ['DECIMAL(38, 10)', 'decimal(38,10)', 'decimalv3(38,10)', 'decimal'],
  ['CHAR(5)', 'char(5)', 'char(5)', 'char'],
  ['CHAR(255)', 'char(255)', 'char(255)', 'char'],
  ['VARCHAR(20)', 'varchar(20)', 'varchar(20)', 'varchar'],
  ['VARCHAR(65533)', 'varchar(65533)', 'varchar(65533)', 'varchar'],
  ['VARCHAR(65534)', 'text', 'text', 'text'],
  ['STRING', 'text', 'text', 'text'],
  ['BINARY(4)', 'text', 'text', 'text'],
  ['BYTES', 'text', 'text', 'text'],
  ['DATE', 'date', 'datev2', 'date'],
  ['TIMESTAMP(0)', 'datetime', 'datetimev2(0)', 'datetime'],
  ['TIMESTAMP(3)', 'datetime(3)', 'datetimev2(3)', 'datetime'],
  ['TIMESTAMP(9)', 'datetime(6)', 'datetimev2(6)', 'datetime'],
  ['TIMESTAMP(6) WITH LOCAL TIME ZONE', 'datetime(6)', 'datetimev2(6)', 'datetime'],
  ['TIME(3)', 'unsupported', 'unsupported', 'unsupported'],
];

describe('Paimon types as Doris shows them to MySQL clients', () => {
  for (const [paimon, columnType, ddlType, dataType] of CASES) {
    test(`${paimon} -> ${columnType}`, () => {
      const m = mysqlColumnType(parseAtomicTypeSqlString(paimon));
      assert.deepEqual([m.columnType, m.ddlType, m.dataType], [columnType, ddlType, dataType]);
    });
  }

  test('nested types spell their element types', () => {
    const t = parseDataTypeJson({ type: 'ROW', fields: [{ id: 1, name: 'x', type: 'INT' }, { id: 2, name: 'y', type: { type: 'ARRAY', element: 'TIMESTAMP(3)' } }] });
    assert.equal(mysqlColumnType(t).columnType, 'struct<x:int,y:array<datetime(3)>>');
    assert.equal(mysqlColumnType(t).ddlType, 'struct<x:int,y:array<datetimev2(3)>>');
    assert.equal(mysqlColumnType(parseDataTypeJson({ type: 'MAP', key: 'STRING', value: 'BIGINT' })).columnType, 'map<text,bigint>');
  });

  test('information_schema lengths and precisions', () => {
    const v = mysqlColumnType(parseAtomicTypeSqlString('VARCHAR(20)'));
    assert.deepEqual([v.charMaxLength, v.charOctetLength, v.numericPrecision], [20, 80, null]);
    const d = mysqlColumnType(parseAtomicTypeSqlString('DECIMAL(18, 4)'));
    assert.deepEqual([d.numericPrecision, d.numericScale, d.charMaxLength], [18, 4, null]);
    assert.equal(mysqlColumnType(parseAtomicTypeSqlString('TIMESTAMP(6)')).datetimePrecision, 6);
  });
});
