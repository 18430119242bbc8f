import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  currentHighestFieldId,
  dataTypeToJson,
  parseAtomicTypeSqlString,
  parseDataFieldsAssigningIds,
  parseDataTypeJson,
  typeToSqlString,
} from '../../../../src/paimon/spec/data-types.js';
import { parseJson, toJsonCompact } from '../../../../src/paimon/spec/json.js';
import { isPaimonError } from '../../../../src/paimon/errors.js';

// Input -> the canonical string Java's asSQLString() prints for the parsed type. Inputs are the
// cases of Paimon's DataTypeJsonParserTest; outputs follow the *Type.FORMAT constants and defaults
// (CHAR/VARCHAR/BINARY length 1, DECIMAL(10, 0), TIME(0), TIMESTAMP(6)).
const ATOMIC: Array<[string, string]> = [
  ['CHAR', 'CHAR(1)'],
  ['CHAR NOT NULL', 'CHAR(1) NOT NULL'],
  ['char not null', 'CHAR(1) NOT NULL'],
  ['CHAR NULL', 'CHAR(1)'],
  ['CHAR(33)', 'CHAR(33)'],
  ['VARCHAR', 'VARCHAR(1)'],
  ['VARCHAR(33)', 'VARCHAR(33)'],
  ['STRING', 'STRING'],
  ['VARCHAR(2147483647)', 'STRING'],
  ['BOOLEAN', 'BOOLEAN'],
  ['BINARY', 'BINARY(1)'],
  ['BINARY(33)', 'BINARY(33)'],
  ['VARBINARY', 'VARBINARY(1)'],
  ['VARBINARY(33)', 'VARBINARY(33)'],
  ['BYTES', 'BYTES'],
  ['DECIMAL', 'DECIMAL(10, 0)'],
  ['DEC', 'DECIMAL(10, 0)'],
  ['NUMERIC', 'DECIMAL(10, 0)'],
  ['DECIMAL(10)', 'DECIMAL(10, 0)'],
  ['NUMERIC(10, 3)', 'DECIMAL(10, 3)'],
  ['DECIMAL(38,10) NOT NULL', 'DECIMAL(38, 10) NOT NULL'],
  ['TINYINT', 'TINYINT'],
  ['SMALLINT', 'SMALLINT'],
  ['INTEGER', 'INT'],
  ['INT', 'INT'],
  ['BIGINT NOT NULL', 'BIGINT NOT NULL'],
  ['FLOAT', 'FLOAT'],
  ['DOUBLE', 'DOUBLE'],
  ['DOUBLE PRECISION', 'DOUBLE'],
  ['DATE', 'DATE'],
  ['TIME', 'TIME(0)'],
  ['TIME(3)', 'TIME(3)'],
  ['TIME WITHOUT TIME ZONE', 'TIME(0)'],
  ['TIME(3) WITHOUT TIME ZONE', 'TIME(3)'],
  ['TIMESTAMP', 'TIMESTAMP(6)'],
  ['TIMESTAMP(3)', 'TIMESTAMP(3)'],
  ['TIMESTAMP WITHOUT TIME ZONE', 'TIMESTAMP(6)'],
  ['TIMESTAMP(3) WITHOUT TIME ZONE', 'TIMESTAMP(3)'],
  ['TIMESTAMP WITH LOCAL TIME ZONE', 'TIMESTAMP(6) WITH LOCAL TIME ZONE'],
  ['TIMESTAMP_LTZ', 'TIMESTAMP(6) WITH LOCAL TIME ZONE'],
  ['TIMESTAMP(3) WITH LOCAL TIME ZONE', 'TIMESTAMP(3) WITH LOCAL TIME ZONE'],
  ['TIMESTAMP_LTZ(3)', 'TIMESTAMP(3) WITH LOCAL TIME ZONE'],
  ['TIMESTAMP(9) NOT NULL', 'TIMESTAMP(9) NOT NULL'],
  ['VARIANT', 'VARIANT'],
  ['BLOB', 'BLOB'],
  ['VECTOR<FLOAT, 3>', 'VECTOR<FLOAT, 3>'],
  ['VECTOR<INT, 5> NOT NULL', 'VECTOR<INT, 5> NOT NULL'],
  ['INT ARRAY', 'ARRAY<INT>'],
  ['INT NOT NULL MULTISET NOT NULL', 'MULTISET<INT NOT NULL> NOT NULL'],
];

describe('atomic type strings (DataTypeJsonParser.parseAtomicTypeSQLString)', () => {
  for (const [input, canonical] of ATOMIC) {
    test(`${JSON.stringify(input)} -> ${canonical}`, () => {
      const t = parseAtomicTypeSqlString(input);
      assert.equal(typeToSqlString(t), canonical);
      // The canonical form of an atomic type parses back to the same type. (Java's atomic parser
      // knows only the suffix notation `INT ARRAY`, not `ARRAY<INT>`, so collections are excluded.)
      if (t.root !== 'ARRAY' && t.root !== 'MULTISET') assert.deepEqual(parseAtomicTypeSqlString(canonical), t);
      else assert.throws(() => parseAtomicTypeSqlString(canonical), /Unsupported type/);
    });
  }

  test('bad strings and out-of-range parameters are INVALID_ARGUMENT', () => {
    for (const bad of ['', 'INT INT', 'FOO', 'DECIMAL(39, 0)', 'DECIMAL(5, 6)', 'TIMESTAMP(10)', 'CHAR(0)', 'VARCHAR(', 'MAP<INT, INT>']) {
      assert.throws(() => parseAtomicTypeSqlString(bad), (e) => isPaimonError(e, 'INVALID_ARGUMENT'), bad);
    }
  });
});

// Nested types in the JSON form of the same Paimon test (compact JSON as the test writes it).
const NESTED = [
  '{"type":"VECTOR","element":"BOOLEAN NOT NULL","length":7}',
  '{"type":"VECTOR NOT NULL","element":"TINYINT NOT NULL","length":11}',
  '{"type":"ARRAY","element":"TIMESTAMP(3) WITH LOCAL TIME ZONE"}',
  '{"type":"ARRAY NOT NULL","element":"INT"}',
  '{"type":"MULTISET","element":"INT NOT NULL"}',
  '{"type":"MAP","key":"BIGINT","value":"BOOLEAN"}',
  '{"type":"MAP NOT NULL","key":"STRING NOT NULL","value":{"type":"ARRAY","element":"DECIMAL(5, 2)"}}',
  '{"type":"ROW","fields":[{"id":0,"name":"f0","type":"INT NOT NULL"},{"id":1,"name":"f1","type":"BOOLEAN"}]}',
  '{"type":"ROW","fields":[]}',
  '{"type":"ROW","fields":[{"id":0,"name":"f0","type":"INT NOT NULL","description":"This is a comment."},{"id":1,"name":"f1","type":"BOOLEAN","description":"This as well."}]}',
  '{"type":"ROW NOT NULL","fields":[{"id":5,"name":"r","type":{"type":"ROW","fields":[{"id":6,"name":"x","type":"INT","defaultValue":"7"}]}}]}',
];

describe('nested types in JSON form (serializeJson / parseDataType)', () => {
  for (const text of NESTED) {
    test(`round trip ${text}`, () => {
      const t = parseDataTypeJson(parseJson(text));
      assert.equal(toJsonCompact(dataTypeToJson(t)), text);
    });
  }

  test('ROW SQL string escapes names and comments like DataField.asSQLString', () => {
    const t = parseDataTypeJson(parseJson('{"type":"ROW","fields":[{"id":0,"name":"a`b","type":"INT","description":"it\'s"}]}'));
    assert.equal(typeToSqlString(t), "ROW<`a``b` INT COMMENT 'it''s'>");
  });

  test('malformed nested types are CORRUPT_METADATA', () => {
    for (const bad of ['{"type":"ARRAY"}', '{"type":"STRUCT","fields":[]}', '{"type":"ROW","fields":[{"name":"x","type":"INT"}]}', '17']) {
      assert.throws(() => parseDataTypeJson(parseJson(bad)), (e) => isPaimonError(e, 'CORRUPT_METADATA'), bad);
    }
  });
});

describe('field ids', () => {
  test('highestFieldId counts nested ROW fields and skips system ids', () => {
    const fields = parseDataFieldsAssigningIds(parseJson('[{"id":0,"name":"a","type":"INT"}]'));
    assert.equal(currentHighestFieldId(fields), 0);
    const nested = parseDataTypeJson(parseJson(NESTED[10]));
    assert.ok(nested.root === 'ROW');
    assert.equal(currentHighestFieldId(nested.fields), 6);
    assert.equal(currentHighestFieldId([{ id: 2147483646, name: '_SEQUENCE_NUMBER', type: { root: 'BIGINT', nullable: false } }]), -1);
  });

  test('fields without ids get 0.. depth-first; mixing given and missing ids is refused', () => {
    const fields = parseDataFieldsAssigningIds(
      parseJson('[{"name":"a","type":"INT"},{"name":"r","type":{"type":"ROW","fields":[{"name":"x","type":"INT"}]}},{"name":"b","type":"INT"}]'),
    );
    assert.deepEqual(fields.map((f) => f.id), [0, 1, 3]);
    const r = fields[1].type;
    assert.ok(r.root === 'ROW' && r.fields[0].id === 2);
    assert.throws(
      () => parseDataFieldsAssigningIds(parseJson('[{"name":"a","type":"INT"},{"id":5,"name":"b","type":"INT"}]')),
      (e) => isPaimonError(e, 'CORRUPT_METADATA') && /Partial field id/.test(e.message),
    );
  });
});
