import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import avro from 'avsc';
import { VarintReader, varLongBytes, writeVarLong } from '../../../../src/paimon/spec/varint.js';

const AVSC_LONG = avro.Type.forSchema('long');
// Values whose zig-zag form stays below 2^53, where avsc's own (double-based) encoder is exact.
const SAMPLES = [0, 1, -1, 63, -64, 64, 2047, -2048, 2048, 1 << 20, -(2 ** 31), 2 ** 31 - 1, 2 ** 48 + 3, -(2 ** 49), 2 ** 51 + 5, -(2 ** 51) - 5];

describe('Avro zig-zag varints', () => {
  test('integers encode to the bytes avsc writes and decode back, ending after the value', () => {
    for (const v of SAMPLES) {
      const expected = AVSC_LONG.toBuffer(v);
      assert.equal(varLongBytes(v).toString('hex'), expected.toString('hex'), `encoding of ${v}`);
      const framed = Buffer.concat([Buffer.from([0xaa]), expected, Buffer.from([0x55])]);
      const r = new VarintReader(framed, 1);
      assert.equal(r.int(), v, `number of ${v}`);
      assert.equal(r.pos, 1 + expected.length);
      r.pos = 1;
      assert.equal(r.long(), BigInt(v), `bigint of ${v}`);
      assert.equal(r.pos, 1 + expected.length);
    }
  });

  test('the 64-bit extremes take ten bytes and read back exactly', () => {
    const min = -(1n << 63n);
    const max = (1n << 63n) - 1n;
    // zig-zag(min) = 2^64 - 1, zig-zag(max) = 2^64 - 2: nine bytes of 7 bits, then 0x01.
    assert.equal(varLongBytes(min).toString('hex'), 'ffffffffffffffffff01');
    assert.equal(varLongBytes(max).toString('hex'), 'feffffffffffffffff01');
    for (const v of [min, max, 1n << 53n, -(1n << 53n) - 7n]) {
      const buf = Buffer.alloc(12);
      const end = writeVarLong(buf, 1, v);
      const r = new VarintReader(buf, 1);
      assert.equal(r.long(), v);
      assert.equal(r.pos, end);
    }
  });

  test('a value cut off by the end of the buffer is reported as truncated', () => {
    const cut = varLongBytes(1n << 40n).subarray(0, 3);
    assert.throws(() => new VarintReader(cut).int(), /truncated Avro varint/);
    assert.throws(() => new VarintReader(cut).long(), /truncated Avro varint/);
    assert.throws(() => new VarintReader(Buffer.alloc(0)).int(), /truncated Avro varint/);
  });
});
