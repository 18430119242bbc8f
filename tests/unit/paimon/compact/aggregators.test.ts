/**
 * Field aggregators: one test per Paimon aggregate function (agg, retract where Paimon has it,
 * refusal where it has not), with expected values of Paimon's FieldAggregator behaviour, and the
 * whole set: every identifier Paimon registers is implemented or refused by name.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createFieldAggregator, PAIMON_AGGREGATORS, SUPPORTED_AGGREGATORS, UNSUPPORTED_AGGREGATORS, type FieldAggregator } from '../../../../src/paimon/compact/aggregators.js';
import { createMergeFunction } from '../../../../src/paimon/compact/merge-function.js';
import type { FieldType } from '../../../../src/paimon/data/field-type.js';
import { Decimal, RowKind, type Datum } from '../../../../src/paimon/data/internal-row.js';

const T = {
  INT: { root: 'INT', nullable: true } as FieldType,
  TINYINT: { root: 'TINYINT', nullable: true } as FieldType,
  SMALLINT: { root: 'SMALLINT', nullable: true } as FieldType,
  BIGINT: { root: 'BIGINT', nullable: true } as FieldType,
  FLOAT: { root: 'FLOAT', nullable: true } as FieldType,
  DOUBLE: { root: 'DOUBLE', nullable: true } as FieldType,
  BOOLEAN: { root: 'BOOLEAN', nullable: true } as FieldType,
  STRING: { root: 'VARCHAR', nullable: true, length: 2147483647 } as FieldType,
  DEC: { root: 'DECIMAL', nullable: true, precision: 10, scale: 2 } as FieldType,
};
const arrayOf = (element: FieldType): FieldType => ({ root: 'ARRAY', nullable: true, element });
const mapOf = (key: FieldType, value: FieldType): FieldType => ({ root: 'MAP', nullable: true, key, value });

function agg(name: string, type: FieldType, options: Record<string, string> = {}): FieldAggregator {
  return createFieldAggregator({ id: 1, name: 'f', type }, name, options);
}
/** Stream.reduce as Paimon's tests use it: the first value is the initial accumulator. */
const fold = (a: FieldAggregator, xs: Datum[]): Datum => xs.slice(1).reduce<Datum>((acc, x) => a.agg(acc, x), xs[0]);
/** Every value through agg, from a null accumulator (as a merge function feeds a field). */
const feed = (a: FieldAggregator, xs: Datum[]): Datum => xs.reduce<Datum>((acc, x) => a.agg(acc, x), null);
const dec = (s: string): Decimal => Decimal.fromString(s, 10, 2);

describe('the set of aggregate functions', () => {
  test('every Paimon identifier is either implemented or refused by name; there is no count', () => {
    assert.equal(PAIMON_AGGREGATORS.length, 22);
    assert.deepEqual([...SUPPORTED_AGGREGATORS, ...UNSUPPORTED_AGGREGATORS].sort(), [...PAIMON_AGGREGATORS].sort());
    for (const n of UNSUPPORTED_AGGREGATORS) {
      assert.throws(() => agg(n, { root: 'VARBINARY', nullable: true, length: 10 }), new RegExp(`'${n}'.*not supported by this compaction`));
    }
    assert.throws(() => agg('count', T.INT), /Use unsupported aggregation: count or spell aggregate function incorrectly/);
  });
  test('type checks of the factories', () => {
    assert.throws(() => agg('sum', T.STRING), /sum column must be 'NumericType'/);
    assert.throws(() => agg('bool_and', T.INT), /bool and column/);
    assert.throws(() => agg('listagg', { root: 'VARCHAR', nullable: true, length: 10 }), /STRING \(unbounded VARCHAR\)/);
    assert.throws(() => agg('collect', T.INT), /collect column must be 'Array'/);
    assert.throws(() => agg('merge_map', T.INT), /merge map column must be 'MAP'/);
    assert.throws(() => agg('sum', T.INT, { 'aggregation.remove-record-on-delete': 'true', 'fields.f.ignore-retract': 'true' }), /conflicting behavior/);
  });
});

describe('numeric aggregators', () => {
  test('sum: nulls skipped, retract subtracts (negates into a null accumulator), decimals exact', () => {
    const a = agg('sum', T.INT);
    assert.equal(fold(a, [1, null, 2, 3]), 6);
    assert.equal(a.retract(10, 3), 7);
    assert.equal(a.retract(null, 3), -3);
    assert.equal(a.retract(5, null), 5);
    const d = agg('sum', T.DEC);
    assert.deepEqual(fold(d, [dec('1.10'), dec('2.25')]), dec('3.35'));
    assert.deepEqual(d.retract(dec('3.35'), dec('0.35')), dec('3.00'));
    assert.equal(agg('sum', T.DOUBLE).agg(0.1, 0.2), 0.1 + 0.2);
    assert.equal(agg('sum', T.FLOAT).agg(Math.fround(0.1), Math.fround(0.2)), Math.fround(Math.fround(0.1) + Math.fround(0.2)));
    assert.equal(agg('sum', T.BIGINT).agg(2n ** 40n, 1n), 2n ** 40n + 1n);
  });
  test('sum/product integer overflow is an error (Paimon 2.0; 1.4 wrapped)', () => {
    assert.throws(() => agg('sum', T.INT).agg(2147483647, 1), /int overflow/);
    assert.throws(() => agg('sum', T.TINYINT).agg(127, 1), /byte overflow/);
    assert.throws(() => agg('sum', T.SMALLINT).retract(-32768, 1), /short overflow/);
    assert.throws(() => agg('sum', T.BIGINT).agg(2n ** 63n - 1n, 1n), /long overflow/);
    assert.throws(() => agg('sum', T.INT).retract(null, -2147483648), /int overflow/);
    assert.throws(() => agg('product', T.INT).agg(65536, 65536), /int overflow/);
    assert.throws(() => agg('product', T.INT).retract(-2147483648, -1), /int overflow/);
  });
  test('product: multiplies; retract divides (Java integer division); decimals rounded half-up', () => {
    const p = agg('product', T.INT);
    assert.equal(fold(p, [2, null, 3, 4]), 24);
    assert.equal(p.retract(24, 5), 4);
    assert.equal(p.retract(-7, 2), -3);
    assert.equal(p.retract(null, 2), null);
    assert.deepEqual(agg('product', T.DEC).agg(dec('1.25'), dec('1.25')), dec('1.56'));
    assert.deepEqual(agg('product', T.DEC).retract(dec('1.50'), dec('0.40')), dec('3.75'));
    assert.throws(() => agg('product', T.DEC).retract(dec('1.00'), dec('3.00')), /Non-terminating decimal/);
  });
  test('max / min: nulls skipped; no retraction unless ignore-retract', () => {
    assert.equal(fold(agg('max', T.INT), [3, null, 9, 1]), 9);
    assert.equal(fold(agg('min', T.STRING), ['b', null, 'a', 'c']), 'a');
    assert.throws(() => agg('max', T.INT).retract(3, 3), /'max' does not support retraction.*fields\.f\.ignore-retract/);
    assert.equal(agg('min', T.INT, { 'fields.f.ignore-retract': 'true' }).retract(3, 1), 3);
    assert.throws(() => agg('max', T.BOOLEAN), /Incomparable type/);
  });
});

describe('value aggregators', () => {
  test('last_value / last_non_null_value and their retraction', () => {
    assert.equal(fold(agg('last_value', T.INT), [1, 2, null]), null);
    assert.equal(agg('last_value', T.INT).retract(5, 7), null);
    assert.equal(fold(agg('last_non_null_value', T.INT), [1, 2, null]), 2);
    assert.equal(agg('last_non_null_value', T.INT).retract(5, 7), null);
    assert.equal(agg('last_non_null_value', T.INT).retract(5, null), 5);
  });
  test('first_value / first_non_null_value (and the legacy first_not_null_value) keep state until reset', () => {
    const f = agg('first_value', T.INT);
    assert.equal(feed(f, [null, 2, 3]), null);
    assert.equal(f.agg(null, 9), null, 'still the first value until reset');
    f.reset();
    assert.equal(feed(f, [4, 5]), 4);
    const n = agg('first_non_null_value', T.INT);
    assert.equal(feed(n, [null, 2, 3]), 2);
    assert.equal(feed(agg('first_not_null_value', T.INT), [null, 7, 8]), 7);
    assert.throws(() => n.retract(2, 2), /does not support retraction/);
  });
  test('bool_and / bool_or', () => {
    assert.equal(fold(agg('bool_and', T.BOOLEAN), [true, null, false, true]), false);
    assert.equal(fold(agg('bool_or', T.BOOLEAN), [false, null, true]), true);
    assert.equal(fold(agg('bool_or', T.BOOLEAN), [null, null]), null);
  });
  test('primary-key keeps the input, also on retract', () => {
    assert.equal(agg('primary-key', T.INT).agg(1, 2), 2);
    assert.equal(agg('primary-key', T.INT).retract(1, 2), 2);
  });
});

describe('listagg', () => {
  test('joins with the delimiter; blank values are skipped (2.0)', () => {
    assert.equal(fold(agg('listagg', T.STRING), ['user1', '', ' ', '\t', '\r\n', ' \u3000 ', 'user2', '\u2000']), 'user1,user2');
    assert.equal(fold(agg('listagg', T.STRING), ['', '']), '');
    assert.equal(agg('listagg', T.STRING, { 'fields.f.list-agg-delimiter': '-' }).agg('user1', 'user2'), 'user1-user2');
    assert.equal(agg('listagg', T.STRING).agg(' ', 'first line'), 'first line');
    assert.equal(agg('listagg', T.STRING).aggReversed('b', 'a'), 'a,b');
  });
  test('distinct: whole tokens, in first-seen order', () => {
    const d = agg('listagg', T.STRING, { 'fields.f.distinct': 'true' });
    assert.equal(fold(d, ['user1', 'user2', 'user1', 'user3']), 'user1,user2,user3');
    assert.equal(fold(d, ['user1', 'user2', 'user1,user3']), 'user1,user2,user3');
    assert.equal(fold(d, ['', 'user2', 'user1,user3']), 'user2,user1,user3');
    assert.equal(d.agg('abc,def,asd', 'ab,xy'), 'abc,def,asd,ab,xy');
    const sp = agg('listagg', T.STRING, { 'fields.f.distinct': 'true', 'fields.f.list-agg-delimiter': ' ' });
    assert.equal(fold(sp, ['k1=v1 k2=v2', ' k1=v1  k3=v3', ' ']), 'k1=v1 k2=v2 k3=v3');
    assert.throws(() => d.retract('a', 'a'), /'listagg' does not support retraction/);
  });
});

describe('collect and merge_map', () => {
  test('collect: concatenates; retract removes one occurrence per retracted element', () => {
    const c = agg('collect', arrayOf(T.INT));
    assert.deepEqual(fold(c, [[1, 2], null, [2, 3]]), [1, 2, 2, 3]);
    assert.equal(c.agg(null, null), null);
    assert.deepEqual(c.retract([1, 2, 2, 3], [2, 4]), [1, 2, 3]);
    assert.equal(c.retract(null, [1]), null);
    assert.deepEqual(c.retract([1], null), [1]);
    assert.deepEqual(c.aggReversed([1], [2]), [1, 2], 'collect keeps the accumulator first also for older inputs');
  });
  test("collect distinct: Java HashSet iteration order (hash bucket, then insertion)", () => {
    const c = agg('collect', arrayOf(T.INT), { 'fields.f.distinct': 'true' });
    assert.deepEqual(c.agg(null, [1, 1, 2]), [1, 2]);
    assert.deepEqual(c.agg([17, 1], [33, 16, 1]), [16, 17, 1, 33]);
    assert.deepEqual(c.agg([-5, 70000], [3]), [70000, 3, -5]);
    // 13 distinct values grow the table to 32 buckets
    assert.deepEqual(c.agg([31, 30, 29, 28, 27, 26, 25], [24, 23, 22, 21, 20, 0]), [0, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31]);
    const l = agg('collect', arrayOf(T.BIGINT), { 'fields.f.distinct': 'true' });
    assert.deepEqual(l.agg([2n ** 32n], [1n, 0n]), [2n ** 32n, 0n, 1n].sort((a, b) => Number(((a ^ (a >> 32n)) & 15n) - ((b ^ (b >> 32n)) & 15n))));
    assert.throws(() => agg('collect', arrayOf(T.STRING), { 'fields.f.distinct': 'true' }), /distinct.*VARCHAR elements is not supported/);
    const rows = agg('collect', arrayOf({ root: 'ROW', nullable: true, fields: [{ id: 0, name: 'a', type: T.INT }] }), { 'fields.f.distinct': 'true' });
    assert.deepEqual(rows.agg([[1], [2]], [[2], [3]]), [[1], [2], [3]]);
  });
  test('merge_map: input entries override; retract removes keys', () => {
    const m = agg('merge_map', mapOf(T.STRING, T.INT));
    assert.deepEqual(m.agg([['a', 1], ['b', 2]], [['b', 3], ['c', 4]]), [['a', 1], ['b', 3], ['c', 4]]);
    assert.deepEqual(m.agg(null, [['x', 1]]), [['x', 1]]);
    assert.deepEqual(m.retract([['a', 1], ['b', 2]], [['a', 9]]), [['b', 2]]);
    assert.equal(m.retract(null, [['a', 9]]), null);
  });
  test('large inputs: 20k-element distinct collect and merge_map', () => {
    const xs = Array.from({ length: 20000 }, (_, i) => i % 15000);
    const c = agg('collect', arrayOf(T.INT), { 'fields.f.distinct': 'true' });
    const out = c.agg(xs, xs) as number[];
    assert.equal(out.length, 15000);
    assert.deepEqual(out.slice(0, 3), [0, 1, 2], 'small non-negative ints iterate in value order');
    const m = agg('merge_map', mapOf(T.DOUBLE, T.INT));
    const big = Array.from({ length: 20000 }, (_, i): [Datum, Datum] => [i, i]);
    assert.equal((m.agg(big, big) as unknown[]).length, 20000);
    assert.deepEqual(m.agg([[0, 1]], [[-0, 2]]), [[0, 1], [-0, 2]], 'Double.equals tells 0.0 from -0.0');
  });
  test('merge_map_with_keytime: newer timestamp string wins; null row removes the key; null timestamp skipped', () => {
    const rowT: FieldType = { root: 'ROW', nullable: true, fields: [{ id: 0, name: 'v', type: T.INT }, { id: 1, name: 'ts', type: T.STRING }] };
    const m = agg('merge_map_with_keytime', mapOf(T.STRING, rowT));
    const acc: Datum = [['a', [1, '2024-01-02']], ['b', [2, '2024-01-01']]];
    assert.deepEqual(m.agg(acc, [['a', [9, '2024-01-01']], ['b', [8, '2024-01-03']], ['c', [7, null]], ['d', [6, '2024']]]), [['a', [1, '2024-01-02']], ['b', [8, '2024-01-03']], ['d', [6, '2024']]]);
    assert.deepEqual(m.agg(acc, [['a', null]]), [['b', [2, '2024-01-01']]]);
    assert.throws(() => m.retract(acc, acc), /does not support retraction/);
    assert.throws(() => agg('merge_map_with_keytime', mapOf(T.STRING, T.INT)), /must be ROW/);
  });
});

describe('aggregation merge function', () => {
  const fields = [
    { id: 0, name: 'id', type: { root: 'INT', nullable: false } as FieldType },
    { id: 1, name: 'seq', type: T.INT },
    { id: 2, name: 'total', type: T.BIGINT },
    { id: 3, name: 'hi', type: T.INT },
  ];
  test('sequence.field is last_value, primary keys keep the key, default last_non_null_value', () => {
    const mf = createMergeFunction(fields, ['id'], { 'merge-engine': 'aggregation', 'sequence.field': 'seq', 'fields.default-aggregate-function': 'sum', 'fields.hi.aggregate-function': 'max' }).createUnwrapped();
    mf.reset();
    mf.add({ key: [1], sequenceNumber: 0n, valueKind: RowKind.INSERT, value: [1, 5, 10n, 3] });
    mf.add({ key: [1], sequenceNumber: 1n, valueKind: RowKind.INSERT, value: [1, null, 5n, 7] });
    assert.deepEqual(mf.result()!.value, [1, null, 15n, 7]);
  });
  test('remove-record-on-delete: the DELETE replaces the row and a later record aggregates onto it', () => {
    const mf = createMergeFunction(fields, ['id'], { 'merge-engine': 'aggregation', 'aggregation.remove-record-on-delete': 'true', 'fields.total.aggregate-function': 'sum' }).createUnwrapped();
    mf.reset();
    mf.add({ key: [1], sequenceNumber: 0n, valueKind: RowKind.INSERT, value: [1, 1, 10n, 3] });
    mf.add({ key: [1], sequenceNumber: 1n, valueKind: RowKind.DELETE, value: [1, 2, 4n, null] });
    assert.equal(mf.result()!.valueKind, RowKind.DELETE);
    mf.add({ key: [1], sequenceNumber: 2n, valueKind: RowKind.INSERT, value: [1, null, 1n, 9] });
    assert.deepEqual(mf.result(), { key: [1], sequenceNumber: 2n, valueKind: RowKind.INSERT, value: [1, 2, 5n, 9] });
  });
  test('a retract through an aggregator without retraction fails with Paimon\'s message', () => {
    const mf = createMergeFunction(fields, ['id'], { 'merge-engine': 'aggregation', 'fields.hi.aggregate-function': 'max' }).create();
    mf.reset();
    mf.add({ key: [1], sequenceNumber: 0n, valueKind: RowKind.INSERT, value: [1, 1, 10n, 3] });
    assert.throws(() => mf.add({ key: [1], sequenceNumber: 1n, valueKind: RowKind.UPDATE_BEFORE, value: [1, 1, 10n, 3] }), /'max' does not support retraction/);
  });
});
