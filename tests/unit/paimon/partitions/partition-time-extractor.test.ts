/**
 * PartitionTimeExtractor against the answers Paimon 2.0.0's own PartitionTimeExtractor gave for the
 * same inputs (Java 17; 1.4.2's class is the same): 'SKIP' is a DateTimeParseException (the
 * partition is skipped), 'NULL' a NullPointerException (skipped too), 'ERR' an exception that
 * fails Paimon's whole expiry.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatLocalDateTime, PartitionTimeExtractor } from '../../../../src/paimon/partitions/partition-time-extractor.js';
import { isPaimonError } from '../../../../src/paimon/errors.js';

type Case = [pattern: string | null, formatter: string | null, values: (string | null)[], expected: string, keys?: string[]];

const K1 = ['dt'];
const K2 = ['dt', 'hour'];

// Expected values are Java's LocalDateTime printed as 'yyyy-MM-dd HH:mm:ss[.SSS]'.
const CASES: Case[] = [
  [null, null, ['2024-01-01'], '2024-01-01 00:00:00'],
  [null, null, ['2024-1-5'], '2024-01-05 00:00:00'],
  [null, null, ['2024-01-01 10:00:00'], '2024-01-01 10:00:00'],
  [null, null, ['2024-01-01 10:00'], 'SKIP'],
  [null, null, ['2024-13-01'], '2025-01-01 00:00:00'],
  [null, null, ['2024-02-30'], '2024-03-01 00:00:00'],
  [null, null, ['20240101'], 'SKIP'],
  [null, null, ['2024-01-01T10:00:00'], 'SKIP'],
  [null, null, ['2024-01-01 10:00:00.5'], '2024-01-01 10:00:00.500'],
  [null, null, ['2024-01-01 25:61:00'], '2024-01-02 02:01:00'],
  [null, null, ['-2024-01-01'], '-2024-01-01 00:00:00'],
  [null, null, ['19723'], 'SKIP'],
  [null, null, ['2024-00-00'], '2023-11-30 00:00:00'],
  [null, 'yyyyMMdd', ['20240101'], '2024-01-01 00:00:00'],
  [null, 'yyyyMMdd', ['2024-01-01'], 'SKIP'],
  [null, 'yyyyMMdd', ['2024010'], 'SKIP'],
  [null, 'yyyyMMdd', ['202401011'], 'SKIP'],
  [null, 'yyyyMMdd', ['20240230'], '2024-02-29 00:00:00'],
  [null, 'yyyyMMdd', ['20241301'], 'SKIP'],
  [null, 'yyyy-MM-dd HH', ['2024-01-01 05'], '2024-01-01 05:00:00'],
  [null, 'yyyy-MM-dd', ['2024-02-30'], '2024-02-29 00:00:00'],
  [null, 'yyyy-MM-dd', ['2024-13-01'], 'SKIP'],
  [null, 'yyyy-MM-dd', ['2024-1-01'], 'SKIP'],
  [null, 'yyyyMMddHH', ['2024010113'], '2024-01-01 13:00:00'],
  [null, 'yyyy-MM-dd HH:mm:ss', ['2024-01-01 24:00:00'], '2024-01-02 00:00:00'],
  [null, 'yyyy-MM-dd HH:mm:ss', ['2024-01-01 24:00:01'], 'SKIP'],
  [null, 'yyyyMMddHHmmssSSS', ['20240101101112123'], '2024-01-01 10:11:12.123'],
  [null, 'yy-MM-dd', ['24-03-04'], '2024-03-04 00:00:00'],
  [null, 'yyyy/MM/dd', ['2024/03/04'], '2024-03-04 00:00:00'],
  [null, "'d'yyyyMMdd", ['d20240304'], '2024-03-04 00:00:00'],
  [null, 'yyyy-MM-dd[ HH:mm]', ['2024-03-04 10:30'], '2024-03-04 10:30:00'],
  [null, 'yyyy-MM-dd[ HH:mm]', ['2024-03-04'], '2024-03-04 00:00:00'],
  [null, 'uuuu-M-d', ['2024-3-4'], '2024-03-04 00:00:00'],
  [null, 'yyyy-MM-dd HH:mm', ['2024-03-04 10:30'], '2024-03-04 10:30:00'],
  [null, 'yyyy-MM-dd mm', ['2024-03-04 30'], '2024-03-04 00:00:00'],
  ['$dt $hour:00:00', null, ['2024-01-01', '13'], '2024-01-01 13:00:00', K2],
  ['$dt $hour:00:00', 'yyyy-MM-dd HH:mm:ss', ['2024-01-01', '13'], '2024-01-01 13:00:00', K2],
  ['$dt $hour:00:00', null, ['2024-01-01', null], 'NULL', K2],
  ['$dt', null, ['2024-01-01', null], 'NULL', K2],
  [null, null, ['2024-01-01', null], '2024-01-01 00:00:00', K2],
  [null, null, [null, '01'], 'NULL', K2],
  ['$dt $hour:00:00', null, ['2024-01-01', '1$x'], 'ERR', K2],
  ['$dt $hour:00:00', null, ['2024-01-01', '1$0'], 'SKIP', K2],
  ['$dt $hour:00:00', null, ['2024-01-01', '1\\2'], '2024-01-01 12:00:00', K2],
  ['$dt', null, ['2024-01-01', '1$x'], '2024-01-01 00:00:00', K2],
  ['$dthour', null, ['2024-01-01', 'x'], 'SKIP', ['dt', 'dthour']],
  [null, 'yyyy-MM-dd{', ['2024-01-01'], 'ERR'],
  [null, 'yyyy-MM-ddd', ['2024-01-001'], 'ERR'],
];

for (const [pattern, formatter, values, expected, keys] of CASES) {
  test(`pattern ${pattern ?? '-'}, formatter ${formatter ?? '-'}, values ${JSON.stringify(values)} -> ${expected}`, () => {
    let got: string;
    try {
      const r = new PartitionTimeExtractor(pattern, formatter).extract(keys ?? K1, values);
      got = 'time' in r ? formatLocalDateTime(r.time) : r.skipped === 'null-value' ? 'NULL' : 'SKIP';
    } catch (e) {
      if (!isPaimonError(e, 'INVALID_ARGUMENT')) throw e;
      got = 'ERR';
    }
    assert.equal(got, expected);
  });
}

test('month names are refused as not supported (Java would parse them)', () => {
  assert.throws(() => new PartitionTimeExtractor(null, 'yyyy-MMM-dd'), (e: unknown) => isPaimonError(e, 'UNSUPPORTED_FORMAT'));
});
