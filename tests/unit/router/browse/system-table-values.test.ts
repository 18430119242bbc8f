import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { javaHashMapOrder, javaStringHash } from '../../../../src/router/browse/java-hash-order.js';
import { javaDurationString } from '../../../../src/router/browse/system-tables.js';
import { localDateTimeText } from '../../../../src/router/browse/datetime-text.js';

describe('values rendered as Paimon Java renders them', () => {
  test('String.hashCode in 32-bit arithmetic', () => {
    assert.equal(javaStringHash(''), 0);
    assert.equal(javaStringHash('a'), 97);
    assert.equal(javaStringHash('hello'), 99162322);
    // overflows as Java's int does: this string's hash is famously Integer.MIN_VALUE
    assert.equal(javaStringHash('polygenelubricants'), -2147483648);
  });

  test('HashMap iteration: by bucket of the spread hash, then insertion; the table doubles past 3/4 full', () => {
    // 'z' (122) is bucket 10 and 'a' (97) bucket 1 of 16.
    assert.deepEqual(javaHashMapOrder(['z', 'a']), ['a', 'z']);
    // 'a' and 'q' (113) share bucket 1 of 16: insertion order within it.
    assert.deepEqual(javaHashMapOrder(['q', 'b', 'a']), ['q', 'a', 'b']);
    // 13 keys make the table 32 wide: 'q' moves to bucket 17, after 'b' (98, bucket 2).
    const keys = ['q', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l'];
    assert.deepEqual(javaHashMapOrder(keys), ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'q']);
  });

  test('java.time.Duration.toString of tag retention times', () => {
    assert.equal(javaDurationString({ seconds: 0n, nanos: 0 }), 'PT0S');
    assert.equal(javaDurationString({ seconds: 86400n, nanos: 0 }), 'PT24H');
    assert.equal(javaDurationString({ seconds: 90n, nanos: 0 }), 'PT1M30S');
    assert.equal(javaDurationString({ seconds: 3600n, nanos: 500_000_000 }), 'PT1H0.5S');
    assert.equal(javaDurationString({ seconds: 0n, nanos: 1000 }), 'PT0.000001S');
  });

  test('TIMESTAMP(3) as a DATETIME(3) text value, sub-millisecond digits cut', () => {
    assert.equal(localDateTimeText({ year: 2024, month: 1, day: 2, hour: 3, minute: 4, second: 5, nano: 6_999_999 }), '2024-01-02 03:04:05.006');
  });
});
