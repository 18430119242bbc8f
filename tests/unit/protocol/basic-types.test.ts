import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { BufferReader, ProtocolError } from '../../../protocol/buffer-reader.js';
import { BufferWriter } from '../../../protocol/buffer-writer.js';

// Vectors from MySQL's page_protocol_basic_dt_integers: 0xFA -> fa; 0xFB -> fc fb 00;
// 0x10000 -> fd 00 00 01; 2^24 -> fe 00 00 00 01 00 00 00 00.
const LENENC: [bigint, number[]][] = [
  [0n, [0x00]],
  [250n, [0xfa]],
  [251n, [0xfc, 0xfb, 0x00]],
  [0xffffn, [0xfc, 0xff, 0xff]],
  [0x10000n, [0xfd, 0x00, 0x00, 0x01]],
  [0xffffffn, [0xfd, 0xff, 0xff, 0xff]],
  [0x1000000n, [0xfe, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00]],
  [0xffffffffffffffffn, [0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]],
];

describe('length-encoded integers and strings', () => {
  for (const [v, bytes] of LENENC) {
    test(`${v} encodes as ${Buffer.from(bytes).toString('hex')} and decodes back`, () => {
      assert.deepEqual([...new BufferWriter().lenenc(v).finish()], bytes);
      assert.equal(new BufferReader(Buffer.from(bytes)).lenencBig(), v);
    });
  }

  test('0xFB is NULL, 0xFF is not a length', () => {
    assert.equal(new BufferReader(Buffer.from([0xfb])).lenenc(), null);
    assert.throws(() => new BufferReader(Buffer.from([0xff])).lenenc(), ProtocolError);
  });

  test('values above 2^53 need lenencBig', () => {
    assert.throws(() => new BufferReader(Buffer.from(LENENC[7][1])).lenenc(), /exceeds 2\^53/);
  });

  test('length-encoded strings carry their UTF-8 byte length', () => {
    const b = new BufferWriter().lenencString('héllo').finish();
    assert.deepEqual([...b.subarray(0, 1)], [6]);
    assert.equal(new BufferReader(b).lenencString(), 'héllo');
  });

  test('truncated input fails with a clear error instead of reading past the end', () => {
    assert.throws(() => new BufferReader(Buffer.from([0xfc, 0x01])).lenenc(), /packet too short/);
    assert.throws(() => new BufferReader(Buffer.from([0x05, 0x61])).lenencString(), /packet too short/);
    assert.throws(() => new BufferReader(Buffer.from('abc')).nulString(), /missing NUL/);
  });
});
