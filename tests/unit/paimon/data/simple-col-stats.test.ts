import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  ColumnStatsAccumulator,
  applyStatsMode,
  denseValueStats,
  truncateMax,
  truncateMin,
  truncateMaxBytes,
  truncateMinBytes,
  NONE_STATS,
} from '../../../../src/paimon/data/simple-col-stats.js';
import { parseFieldType } from '../../../../src/paimon/data/field-type.js';
import { compareUtf8, Decimal, Timestamp } from '../../../../src/paimon/data/internal-row.js';

const T = parseFieldType;

describe('string truncation (TruncateSimpleColStatsCollector)', () => {
  test('min keeps the first n code points, not UTF-16 units', () => {
    assert.equal(truncateMin('a😀b', 2), 'a😀');
    assert.equal(truncateMin('short', 16), 'short');
  });

  test('max increments the last kept code point, and is above every string with that prefix', () => {
    assert.equal(truncateMax('abcdef', 3), 'abd');
    assert.equal(truncateMax('abc', 3), 'abc');
    assert.equal(truncateMax('a\u{10FFFF}zz', 2), 'b');
    assert.equal(truncateMax('\u{10FFFF}\u{10FFFF}z', 2), null);
  });

  test('truncated bounds still enclose the value (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), fc.integer({ min: 1, max: 20 }), (s, n) => {
        const lo = truncateMin(s, n);
        const hi = truncateMax(s, n);
        assert.ok(compareUtf8(lo, s) <= 0);
        if (hi !== null) assert.ok(compareUtf8(hi, s) >= 0, `${JSON.stringify(hi)} < ${JSON.stringify(s)}`);
      }),
    );
  });

  test('bytes (Paimon 2.0): cut to n, max incremented at the last byte below 0xff', () => {
    assert.deepEqual([...truncateMinBytes(Uint8Array.of(1, 2, 3), 2)], [1, 2]);
    assert.deepEqual([...truncateMaxBytes(Uint8Array.of(1, 0xff, 3), 2)!], [2]);
    assert.equal(truncateMaxBytes(Uint8Array.of(0xff, 0xff, 3), 2), null);
  });

  test('a failed max drops both bounds but keeps the null count', () => {
    assert.deepEqual(applyStatsMode({ kind: 'truncate', length: 1 }, { min: '\u{10FFFF}a', max: '\u{10FFFF}b', nullCount: 3n }), {
      min: null,
      max: null,
      nullCount: 3n,
    });
  });
});

describe('column statistics as Java reads them from the Parquet footer', () => {
  test('numbers, decimals, timestamps and strings use Java compareTo order', () => {
    const s = new ColumnStatsAccumulator(T('STRING'));
    for (const v of ['b', 'é', 'a', null, 'z', '😀']) s.add(v);
    assert.deepEqual(s.result({ kind: 'full' }), { min: 'a', max: '😀', nullCount: 1n });

    const d = new ColumnStatsAccumulator(T('DECIMAL(10, 2)'));
    for (const v of [new Decimal(5n, 10, 2), new Decimal(-700n, 10, 2), null]) d.add(v);
    const ds = d.result({ kind: 'truncate', length: 16 });
    assert.equal((ds.min as Decimal).unscaled, -700n);
    assert.equal((ds.max as Decimal).unscaled, 5n);

    const ts = new ColumnStatsAccumulator(T('TIMESTAMP(6)'));
    ts.add(new Timestamp(10n, 5));
    ts.add(new Timestamp(10n, 2));
    assert.equal((ts.result({ kind: 'full' }).min as Timestamp).nanoOfMillisecond, 2);
  });

  test('binary columns report only null counts up to 1.4, bounds from 2.0', () => {
    const one = new ColumnStatsAccumulator(T('BYTES'));
    const two = new ColumnStatsAccumulator(T('BYTES'), true);
    for (const v of [Uint8Array.of(2), Uint8Array.of(1, 9), null]) {
      one.add(v);
      two.add(v);
    }
    assert.deepEqual(one.result({ kind: 'full' }), { min: null, max: null, nullCount: 1n });
    assert.deepEqual(two.result({ kind: 'full' }), { min: Uint8Array.of(1, 9), max: Uint8Array.of(2), nullCount: 1n });
  });

  test('nested columns have no statistics at all; TIMESTAMP(9) (INT96) only a null count', () => {
    const a = new ColumnStatsAccumulator(T({ type: 'ARRAY', element: 'INT' }));
    a.add([1]);
    a.add(null);
    assert.deepEqual(a.result({ kind: 'full' }), NONE_STATS);
    const t9 = new ColumnStatsAccumulator(T('TIMESTAMP(9)'));
    t9.add(new Timestamp(1n, 1));
    t9.add(null);
    assert.deepEqual(t9.result({ kind: 'full' }), { min: null, max: null, nullCount: 1n });
  });

  test('a NaN leaves a float column without bounds', () => {
    const f = new ColumnStatsAccumulator(T('DOUBLE'));
    for (const v of [1, Number.NaN, 2]) f.add(v);
    assert.deepEqual(f.result({ kind: 'full' }), { min: null, max: null, nullCount: 0n });
  });

  test('modes: none, counts, all-null columns', () => {
    const s = new ColumnStatsAccumulator(T('INT'));
    s.add(null);
    assert.deepEqual(s.result({ kind: 'truncate', length: 16 }), { min: null, max: null, nullCount: 1n });
    s.add(4);
    assert.deepEqual(s.result({ kind: 'counts' }), { min: null, max: null, nullCount: 1n });
    assert.deepEqual(s.result({ kind: 'none' }), NONE_STATS);
  });
});

describe('dense value stats (SimpleStatsConverter.toBinaryDenseMode)', () => {
  const stats = [
    { min: 1, max: 2, nullCount: 0n },
    NONE_STATS,
    { min: null, max: null, nullCount: 4n },
  ];
  test('columns without any statistics are dropped and the kept columns named', () => {
    assert.deepEqual(denseValueStats(['a', 'b', 'c'], stats, true), { valueStatsCols: ['a', 'c'], indexes: [0, 2], stats: [stats[0], stats[2]] });
  });
  test('nothing dropped: the column list is null', () => {
    assert.equal(denseValueStats(['a', 'c'], [stats[0], stats[2]], true).valueStatsCols, null);
  });
  test('dense store off keeps every column', () => {
    assert.deepEqual(denseValueStats(['a', 'b', 'c'], stats, false).valueStatsCols, null);
  });
  test('every column without stats: an empty list, not null', () => {
    assert.deepEqual(denseValueStats(['a'], [NONE_STATS], true).valueStatsCols, []);
  });
});

describe('string order (BinaryString.compareTo: unsigned UTF-8 bytes)', () => {
  test('agrees with comparing the UTF-8 encodings (property)', () => {
    const enc = new TextEncoder();
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 12 }), fc.string({ unit: 'grapheme', maxLength: 12 }), (a, b) => {
        const x = enc.encode(a), y = enc.encode(b);
        let expected = 0;
        for (let i = 0; i < Math.min(x.length, y.length) && expected === 0; i++) expected = x[i] - y[i];
        if (expected === 0) expected = x.length - y.length;
        assert.equal(Math.sign(compareUtf8(a, b)), Math.sign(expected));
      }),
    );
  });
});
