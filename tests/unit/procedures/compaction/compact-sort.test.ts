/**
 * Sort compaction, with plain data: the sort keys' properties (hand-computed z-order bytes, the
 * Hilbert curve's locality, the order key agreeing with Paimon's record comparator semantics)
 * and the validation of the compact procedure's sort arguments (codes through the real executor,
 * on bare schema files). tests/interop/compact-sort.test.ts checks against Paimon Java.
 */
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { executorFor, callNamed } from '../../../interop/procedures-support.js';
import { compact } from '../../../../procedures/compaction/compact.js';
import type { CallOutcome } from '../../../../procedures/framework/executor.js';
import { parseDataField, type DataFieldSpec } from '../../../../src/paimon/data/field-type.js';
import { Decimal, Timestamp, compareUtf8, type Datum, type InternalRow } from '../../../../src/paimon/data/internal-row.js';
import { zorderEncoder, hilbertEncoder, orderEncoder, compareKeys, interleaveBits, hilbertIndexBytes } from '../../../../src/paimon/compact/sort-key.js';

const fields = (...ts: Array<[string, string]>): DataFieldSpec[] => ts.map(([name, type], id) => parseDataField({ id, name, type }));
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe('zorder keys', () => {
  test('two INT columns: sign-flipped 64-bit values, bits interleaved most significant first', () => {
    const z = zorderEncoder(fields(['a', 'INT'], ['b', 'INT']), ['a', 'b']);
    // a = 1 -> 80 00 .. 01, b = 0 -> 80 00 .. 00: first byte 1,1,0,0.. = c0; last byte a3 b3 .. a0 b0 = 02.
    assert.equal(hex(z.key([1, 0])), 'c0' + '00'.repeat(14) + '02');
    // NULL is all zeros (sorts before every value, as in Paimon).
    assert.equal(hex(z.key([null, null])), '00'.repeat(16));
    assert.ok(compareKeys(z.key([null, 5]), z.key([-2147483648, 5])) < 0);
  });
  test('strings contribute zorder.var-length-contribution bytes, truncated or zero-filled', () => {
    const f = fields(['s', 'STRING'], ['i', 'INT']);
    assert.equal(zorderEncoder(f, ['s', 'i'], 3).key(['abcdef', 0]).length, 11);
    assert.equal(zorderEncoder(f, ['s', 'i'], 12).key(['ab', 0]).length, 20);
    // Beyond the contribution, strings are equal: "abcX" and "abcY" give the same key with 3 bytes.
    const z3 = zorderEncoder(f, ['s', 'i'], 3);
    assert.equal(hex(z3.key(['abcX', 7])), hex(z3.key(['abcY', 7])));
  });
  test('interleaving skips exhausted columns (a short column among long ones)', () => {
    const out = interleaveBits([Uint8Array.of(0xff), Uint8Array.of(0x00, 0xff)], 3);
    // byte 0: a7 b7 a6 b6 .. = 10101010; byte 1: a3 b3 .. = 10101010; byte 2: b's second byte alone.
    assert.equal(hex(out), 'aaaaff');
  });
  test('z-order key is monotonic in each column when the others are fixed', () => {
    const z = zorderEncoder(fields(['a', 'BIGINT'], ['b', 'DOUBLE']), ['a', 'b']);
    fc.assert(fc.property(fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }), fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }), fc.double({ noNaN: true }), (x, y, d) => {
      const [lo, hi] = x <= y ? [x, y] : [y, x];
      return compareKeys(z.key([lo, d]), z.key([hi, d])) <= 0;
    }));
  });
});

describe('hilbert keys', () => {
  test('63 bytes; the first 4^k indexes fill the 2^k square at the origin, consecutive cells adjacent', () => {
    const h = hilbertEncoder(fields(['x', 'BIGINT'], ['y', 'BIGINT']), ['x', 'y']);
    const cells: Array<{ idx: bigint; x: number; y: number }> = [];
    for (let x = 0; x < 8; x++) {
      for (let y = 0; y < 8; y++) {
        const k = h.key([BigInt(x), BigInt(y)]);
        assert.equal(k.length, 63);
        cells.push({ idx: BigInt(`0x${hex(k)}`), x, y });
      }
    }
    cells.sort((a, b) => (a.idx < b.idx ? -1 : 1));
    assert.deepEqual(cells.map((c) => c.idx), Array.from({ length: 64 }, (_, i) => BigInt(i)));
    for (let i = 1; i < cells.length; i++) {
      assert.equal(Math.abs(cells[i].x - cells[i - 1].x) + Math.abs(cells[i].y - cells[i - 1].y), 1, `cells ${i - 1} and ${i}`);
    }
  });
  test('NULL and true map to Long.MAX_VALUE; only the low 63 bits of a coordinate count', () => {
    const h = hilbertEncoder(fields(['a', 'BIGINT'], ['b', 'BOOLEAN']), ['a', 'b']);
    assert.equal(hex(h.key([null, true])), hex(h.key([(1n << 63n) - 1n, null])));
    assert.equal(hex(hilbertIndexBytes([-1n, 5n])), hex(hilbertIndexBytes([(1n << 63n) - 1n, 5n])));
  });
});

/** Paimon's record comparator semantics, written directly (the oracle for the order key). */
function referenceCompare(types: string[], a: Datum[], b: Datum[]): number {
  for (let i = 0; i < types.length; i++) {
    const x = a[i], y = b[i];
    if (x === null && y === null) continue;
    if (x === null) return -1;
    if (y === null) return 1;
    let c = 0;
    switch (types[i]) {
      case 'DOUBLE': {
        // Double.compare: -0.0 < 0.0, NaN above everything, NaN == NaN.
        const p = x as number, q = y as number;
        if (Number.isNaN(p) || Number.isNaN(q)) c = Number.isNaN(p) ? (Number.isNaN(q) ? 0 : 1) : -1;
        else if (p !== q) c = p < q ? -1 : 1;
        else c = Object.is(p, -0) && Object.is(q, 0) ? -1 : Object.is(p, 0) && Object.is(q, -0) ? 1 : 0;
        break;
      }
      case 'STRING': c = compareUtf8(x as string, y as string); break;
      case 'BIGINT': c = (x as bigint) < (y as bigint) ? -1 : (x as bigint) > (y as bigint) ? 1 : 0; break;
      case 'DECIMAL(20, 3)': c = (x as Decimal).unscaled < (y as Decimal).unscaled ? -1 : (x as Decimal).unscaled > (y as Decimal).unscaled ? 1 : 0; break;
      case 'TIMESTAMP(6)': c = (x as Timestamp).compareTo(y as Timestamp); break;
      case 'BOOLEAN': c = x === y ? 0 : x ? 1 : -1; break;
      default: c = (x as number) - (y as number);
    }
    if (c !== 0) return Math.sign(c);
  }
  return 0;
}

describe('order keys', () => {
  const types = ['INT', 'DOUBLE', 'STRING', 'BIGINT', 'DECIMAL(20, 3)', 'TIMESTAMP(6)', 'BOOLEAN'];
  const f = fields(...types.map((t, i) => [`c${i}`, t] as [string, string]));
  const enc = orderEncoder(f, f.map((x) => x.name));
  const value = fc.tuple(
    fc.option(fc.integer(), { nil: null }),
    fc.option(fc.oneof(fc.double(), fc.constantFrom(0, -0, Number.NaN, Infinity)), { nil: null }),
    fc.option(fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom('', 'a', 'a\u0000', 'a\u0000b', 'ab')), { nil: null }),
    fc.option(fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }), { nil: null }),
    fc.option(fc.bigInt({ min: -(10n ** 20n) + 1n, max: 10n ** 20n - 1n }).map((u) => new Decimal(u, 20, 3)), { nil: null }),
    fc.option(fc.tuple(fc.bigInt({ min: -(1n << 50n), max: 1n << 50n }), fc.integer({ min: 0, max: 999_999 })).map(([ms, ns]) => new Timestamp(ms, ns)), { nil: null }),
    fc.option(fc.boolean(), { nil: null }),
  );
  test('memcmp of the keys agrees with the comparator (ascending, NULLS FIRST, Double.compare, UTF-8 bytes)', () => {
    fc.assert(
      fc.property(value, value, fc.integer({ min: 0, max: 6 }), (a, b, shared) => {
        // Share a prefix of columns so later columns decide often.
        const bb = [...a.slice(0, shared), ...b.slice(shared)] as Datum[];
        const want = referenceCompare(types, a as Datum[], bb);
        const got = Math.sign(compareKeys(enc.key(a as InternalRow), enc.key(bb)));
        return got === want;
      }),
      { numRuns: 5000 },
    );
  });
});

// ------------------------------------------------------------------------------------------------
// procedure validation (codes)
// ------------------------------------------------------------------------------------------------

const wh = mkdtempSync(join(tmpdir(), 'compact-sort-'));
after(() => rmSync(wh, { recursive: true, force: true }));

function table(name: string, options: Record<string, string>, opts: { pk?: boolean; extra?: Array<{ name: string; type: unknown }> } = {}): void {
  const dir = join(wh, 'db.db', name, 'schema');
  mkdirSync(dir, { recursive: true });
  const base = [{ id: 0, name: 'dt', type: 'STRING NOT NULL' }, { id: 1, name: 'id', type: 'INT NOT NULL' }, { id: 2, name: 'v', type: 'STRING' }];
  const extra = (opts.extra ?? []).map((f, i) => ({ id: 3 + i, ...f }));
  writeFileSync(join(dir, 'schema-0'), JSON.stringify({
    version: 3, id: 0, fields: [...base, ...extra], highestFieldId: 2 + extra.length, partitionKeys: ['dt'],
    primaryKeys: opts.pk ? ['dt', 'id'] : [], options, timeMillis: 0,
  }));
}
table('pk', { bucket: '2' }, { pk: true });
table('pk_dynamic', { bucket: '-1' }, { pk: true });
table('fixed', { bucket: '2', 'bucket-key': 'id' });
table('app', { bucket: '-1' }, { extra: [{ name: 'arr', type: { type: 'ARRAY', element: 'INT' } }] });
table('clustered', { bucket: '-1', 'clustering.incremental': 'true', 'clustering.columns': 'id' });

const ex = executorFor(wh, [compact]);
const err = (o: CallOutcome): string => (o.ok ? 'OK' : `${o.error.code}: ${o.error.message}`);
const call = (args: Record<string, string | boolean>): Promise<CallOutcome> => callNamed(ex, 'compact', args);

describe('compact sort arguments', () => {
  test('a bad order_strategy is INVALID_ARGUMENT (Paimon: cannot match type)', async () => {
    assert.match(err(await call({ table: 'db.app', order_strategy: 'zorderr', order_by: 'id' })), /^INVALID_ARGUMENT: cannot match type: 'zorderr' for ordering.*Did you mean zorder \(1 edit away\)/);
  });
  test('order_by on a primary-key or fixed-bucket table is UNSUPPORTED_TABLE (Spark refuses both)', async () => {
    assert.match(err(await call({ table: 'db.pk', order_strategy: 'zorder', order_by: 'v' })), /^UNSUPPORTED_TABLE: compact with order_strategy => 'zorder' only supports unaware-bucket append-only tables/);
    assert.match(err(await call({ table: 'db.pk_dynamic', order_strategy: 'order', order_by: 'v' })), /^UNSUPPORTED_TABLE: .*primary-key/);
    assert.match(err(await call({ table: 'db.fixed', order_strategy: 'hilbert', order_by: 'id,v' })), /^UNSUPPORTED_TABLE: .*fixed-bucket append table \(bucket = 2\)/);
  });
  test('an unknown column is COLUMN_NOT_FOUND, listing the columns', async () => {
    const o = await call({ table: 'db.app', order_strategy: 'zorder', order_by: 'id,nope' });
    assert.match(err(o), /^COLUMN_NOT_FOUND: Can't find order_by column 'nope' in table columns\. Possible columns are \[dt,id,v,arr\]/);
    assert.equal(o.ok ? 0 : o.error.errno, 1054);
  });
  test('partition columns, hilbert with one column, nested types, empty order_by, buckets: INVALID_ARGUMENT', async () => {
    assert.match(err(await call({ table: 'db.app', order_strategy: 'zorder', order_by: 'dt,id' })), /^INVALID_ARGUMENT: order_by should not contain partition cols/);
    assert.match(err(await call({ table: 'db.app', order_strategy: 'hilbert', order_by: 'id' })), /^INVALID_ARGUMENT: Hilbert sort needs at least two columns\./);
    assert.match(err(await call({ table: 'db.app', order_strategy: 'zorder', order_by: 'id,arr' })), /^INVALID_ARGUMENT: order_by column arr has type ARRAY<INT>/);
    assert.match(err(await call({ table: 'db.app', order_strategy: 'order', order_by: ' , ' })), /^INVALID_ARGUMENT: order column could not be empty/);
    assert.match(err(await call({ table: 'db.app', order_strategy: 'order', order_by: 'id', buckets: '0' })), /^INVALID_ARGUMENT: Specifying buckets is not supported for sort compact \(order_strategy => 'order'\)\./);
  });
  test('incremental clustering tables are refused as Spark refuses them', async () => {
    assert.match(err(await call({ table: 'db.clustered', order_strategy: 'zorder', order_by: 'id,v' })), /^UNSUPPORTED_TABLE: The table has enabled incremental clustering, do not support sort compact\./);
  });
  test('a valid sort compaction of a table without snapshots: result true, nothing committed', async () => {
    const o = await call({ table: 'db.app', order_strategy: 'zorder', order_by: 'id,v' });
    assert.ok(o.ok, err(o));
    assert.equal(o.result.rows[0].result, true);
    assert.equal(o.result.rows[0].snapshot_id, null);
    assert.match(String(o.result.rows[0].message), /no snapshot/);
  });
});
