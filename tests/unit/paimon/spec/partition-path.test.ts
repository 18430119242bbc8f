import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Decimal, Timestamp, binaryFieldTypeFromSql, toBinaryRow } from '../../../../src/paimon/spec/binary-row.js';
import {
  bucketDirName,
  escapePathName,
  javaFloatingToString,
  partitionPath,
  partitionSpec,
  partitionValueToString,
  relativeBucketPath,
  unescapePathName,
} from '../../../../src/paimon/spec/partition-path.js';

const T = binaryFieldTypeFromSql;

describe('partition paths (PartitionPathUtils, InternalRowPartitionComputer)', () => {
  test('escapes the reserved ASCII characters as %XX and leaves others, including non-ASCII', () => {
    assert.equal(escapePathName('a b/c=d%e'), 'a b%2Fc%3Dd%25e');
    assert.equal(escapePathName('x:"#\'*?\\{}[]^\u007f\u0001'), 'x%3A%22%23%27%2A%3F%5C%7B%7D%5B%5D%5E%7F%01');
    assert.equal(escapePathName('ü世界 <>|'), 'ü世界 <>|');
    assert.equal(unescapePathName('a b%2Fc%3Dd%25e'), 'a b/c=d%e');
    assert.throws(() => escapePathName(''), /must not be empty/);
  });

  test('null, empty and blank values use the default partition name', () => {
    const fields = [
      { name: 's', type: T('STRING') },
      { name: 'i', type: T('INT') },
      { name: 'b', type: T('STRING') },
    ];
    const row = toBinaryRow(fields.map((f) => f.type), [null, null, '  ']);
    assert.equal(partitionPath(partitionSpec(row, fields)), 's=__DEFAULT_PARTITION__/i=__DEFAULT_PARTITION__/b=__DEFAULT_PARTITION__/');
    assert.equal(partitionPath(partitionSpec(row, fields, { defaultName: 'NUL' })), 's=NUL/i=NUL/b=NUL/');
  });

  test('legacy names use toString of the internal value: a DATE is its day number', () => {
    const fields = [
      { name: 'dt', type: T('DATE') },
      { name: 'hr', type: T('INT') },
    ];
    const row = toBinaryRow([T('DATE'), T('INT')], [19723, 5]);
    assert.equal(relativeBucketPath(row, 3, fields), 'dt=19723/hr=5/bucket-3');
    assert.equal(relativeBucketPath(row, 3, fields, { legacyName: false }), 'dt=2024-01-01/hr=5/bucket-3');
    assert.equal(relativeBucketPath(row, -2, fields, { dataFilePathDirectory: 'data/' }), 'data/dt=19723/hr=5/bucket-postpone');
    assert.equal(bucketDirName(0), 'bucket-0');
  });

  test('value strings follow Java toString', () => {
    assert.equal(partitionValueToString(T('BOOLEAN'), true), 'true');
    assert.equal(partitionValueToString(T('BIGINT'), 9007199254740993n), '9007199254740993');
    assert.equal(partitionValueToString(T('DECIMAL(10, 2)'), Decimal.fromString('-0.5', 10, 2)), '-0.50');
    assert.equal(partitionValueToString(T('TIMESTAMP(3)'), new Timestamp(1704067200000n)), '2024-01-01T00:00');
    assert.equal(partitionValueToString(T('TIMESTAMP(6)'), new Timestamp(1704067201500n, 250000)), '2024-01-01T00:00:01.500250');
    assert.equal(partitionValueToString(T('TIMESTAMP(3)'), new Timestamp(-1n)), '1969-12-31T23:59:59.999');
  });

  test('Java Double.toString / Float.toString', () => {
    assert.equal(javaFloatingToString(1, false), '1.0');
    assert.equal(javaFloatingToString(0.1, false), '0.1');
    assert.equal(javaFloatingToString(-2.5, false), '-2.5');
    assert.equal(javaFloatingToString(1e7, false), '1.0E7');
    assert.equal(javaFloatingToString(123456789.5, false), '1.234567895E8');
    assert.equal(javaFloatingToString(0.001, false), '0.001');
    assert.equal(javaFloatingToString(0.0001, false), '1.0E-4');
    assert.equal(javaFloatingToString(Math.fround(1.1), true), '1.1');
    assert.equal(javaFloatingToString(Math.fround(3.4e38), true), '3.4E38');
    assert.equal(javaFloatingToString(-0, false), '-0.0');
    assert.equal(javaFloatingToString(NaN, true), 'NaN');
  });
});
