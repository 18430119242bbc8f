import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  BinaryRow,
  BinaryRowWriter,
  Decimal,
  Timestamp,
  binaryFieldTypeFromSql,
  bigIntToTwosComplementBE,
  deserializeBinaryRow,
  nullBitsSizeInBytes,
  toBinaryRow,
  type BinaryFieldType,
} from '../../../../src/paimon/spec/binary-row.js';

const hex = (b: Buffer): string => b.toString('hex');
const STRING: BinaryFieldType = { root: 'VARCHAR' };
const INT: BinaryFieldType = { root: 'INT' };

// Expected bytes below follow Java's BinaryRowWriter layout (paimon-format.md §6.4, checked against
// AbstractBinaryWriter in release-1.4.2); golden bytes from a Java run are checked in tests/interop.
describe('BinaryRow layout', () => {
  test('null-bit area width follows ((arity + 63 + 8) / 64) * 8', () => {
    assert.equal(nullBitsSizeInBytes(0), 8);
    assert.equal(nullBitsSizeInBytes(56), 8);
    assert.equal(nullBitsSizeInBytes(57), 16);
    assert.equal(nullBitsSizeInBytes(120), 16);
    assert.equal(nullBitsSizeInBytes(121), 24);
  });

  test('the empty row serializes to 12 bytes', () => {
    assert.equal(hex(BinaryRow.EMPTY_ROW.serialize()), '00000000' + '00'.repeat(8));
    assert.equal(hex(toBinaryRow([], []).serialize()), '00000000' + '00'.repeat(8));
  });

  test('partition (dt STRING = "20240514", hr INT = 5) puts the 8-byte string in the variable part', () => {
    const row = toBinaryRow([STRING, INT], ['20240514', 5]);
    assert.equal(
      hex(row.serialize()),
      '00000002' + '0000000000000000' + '0800000018000000' + '0500000000000000' + Buffer.from('20240514').toString('hex'),
    );
    assert.deepEqual(row.toValues([STRING, INT]), ['20240514', 5]);
  });

  test('a string of at most 7 bytes is inline with 0x80|len in byte 7', () => {
    const row = toBinaryRow([STRING, INT], ['ab', 5]);
    assert.equal(hex(row.bytes), '0000000000000000' + '6162000000000082' + '0500000000000000');
    assert.equal(row.getString(0), 'ab');
  });

  test('a null int sets bit 1 of byte 1 (field 1) and zeroes the slot', () => {
    const row = toBinaryRow([STRING, INT], ['ab', null]);
    assert.equal(hex(row.bytes), '0002000000000000' + '6162000000000082' + '0000000000000000');
    assert.equal(row.isNullAt(1), true);
    assert.equal(row.get(1, INT), null);
  });

  test('a 9-byte string is padded with zeros to 16 bytes', () => {
    const row = toBinaryRow([STRING], ['123456789']);
    assert.equal(hex(row.bytes), '0000000000000000' + '0900000010000000' + Buffer.from('123456789').toString('hex') + '00'.repeat(7));
  });

  test('fixed-width types are little-endian in their slot', () => {
    const types = ['BOOLEAN', 'TINYINT', 'SMALLINT', 'INT', 'BIGINT', 'FLOAT', 'DOUBLE', 'DATE', 'TIME(3)'].map(binaryFieldTypeFromSql);
    const row = toBinaryRow(types, [true, -2, 513, -1, 1n << 40n, 1.5, -2.25, 19857, 3_600_000]);
    const slots = hex(row.bytes).slice(16).match(/.{16}/g);
    assert.deepEqual(slots, [
      '0100000000000000',
      'fe00000000000000',
      '0102000000000000',
      'ffffffff00000000',
      '0000000000010000',
      '0000c03f00000000',
      '00000000000002c0',
      '914d000000000000',
      '80ee360000000000',
    ]);
    assert.deepEqual(row.toValues(types), [true, -2, 513, -1, 1n << 40n, 1.5, -2.25, 19857, 3_600_000]);
  });

  test('compact decimal (precision <= 18) stores the unscaled long', () => {
    const t = binaryFieldTypeFromSql('DECIMAL(10, 2)');
    const row = toBinaryRow([t], [Decimal.fromString('-12.34', 10, 2)]);
    assert.equal(hex(row.bytes).slice(16), '2efbffffffffffff');
    assert.equal((row.get(0, t) as Decimal).toString(), '-12.34');
  });

  test('non-compact decimal reserves 16 bytes with big-endian two\'s complement bytes, also when null', () => {
    const t = binaryFieldTypeFromSql('DECIMAL(38, 4)');
    const row = toBinaryRow([t, t], [Decimal.fromString('-1.0000', 38, 4), null]);
    // -10000 = 0xD8F0 (2 bytes); slot0 = offset 24, len 2; slot1 = offset 40, len 0 with null bit.
    assert.equal(
      hex(row.bytes),
      '0002000000000000' + '0200000018000000' + '0000000028000000' + 'd8f0' + '00'.repeat(14) + '00'.repeat(16),
    );
    assert.equal((row.get(0, t) as Decimal).toString(), '-1.0000');
    assert.equal(row.get(1, t), null);
  });

  test('timestamp precision <= 3 is epoch millis inline; higher precision uses 8 variable bytes and nanos in the slot', () => {
    const t3 = binaryFieldTypeFromSql('TIMESTAMP(3)');
    const t9 = binaryFieldTypeFromSql('TIMESTAMP(9)');
    const ltz = binaryFieldTypeFromSql('TIMESTAMP(6) WITH LOCAL TIME ZONE');
    const row = toBinaryRow([t3, t9, ltz, t9], [new Timestamp(1000n), new Timestamp(1000n, 123456), new Timestamp(-1n, 999), null]);
    assert.equal(
      hex(row.bytes),
      '0008000000000000' +
        'e803000000000000' +
        '40e2010028000000' +
        'e703000030000000' +
        '0000000038000000' +
        'e803000000000000' +
        'ffffffffffffffff' +
        '0000000000000000',
    );
    assert.deepEqual(row.get(1, t9), new Timestamp(1000n, 123456));
    assert.deepEqual(row.get(2, ltz), new Timestamp(-1n, 999));
    assert.equal(row.get(3, t9), null);
  });

  test('binary values use the same inline/variable rule as strings', () => {
    const t = binaryFieldTypeFromSql('BYTES');
    const row = toBinaryRow([t, t], [new Uint8Array([1, 2, 3]), new Uint8Array(10).fill(0xab)]);
    assert.equal(hex(row.bytes), '0000000000000000' + '0102030000000083' + '0a00000018000000' + 'ab'.repeat(10) + '00'.repeat(6));
  });

  test('BigInteger.toByteArray equivalence', () => {
    assert.equal(hex(bigIntToTwosComplementBE(0n)), '00');
    assert.equal(hex(bigIntToTwosComplementBE(127n)), '7f');
    assert.equal(hex(bigIntToTwosComplementBE(128n)), '0080');
    assert.equal(hex(bigIntToTwosComplementBE(-128n)), '80');
    assert.equal(hex(bigIntToTwosComplementBE(-129n)), 'ff7f');
  });

  test('writer reuse after reset produces identical canonical bytes', () => {
    const w = new BinaryRowWriter(2);
    w.writeString(0, 'a long string value');
    w.writeInt(1, 7);
    const a = w.complete();
    w.reset();
    w.writeString(0, 'x');
    w.setNullAt(1);
    const b = w.complete();
    assert.equal(hex(b.bytes), hex(toBinaryRow([STRING, INT], ['x', null]).bytes));
    assert.equal(a.getString(0), 'a long string value');
  });

  test('rejects rows shorter than their fixed part and values that do not fit', () => {
    assert.throws(() => deserializeBinaryRow(Buffer.from('0000000200', 'hex')), /CORRUPT|shorter/);
    assert.throws(() => toBinaryRow([{ root: 'TINYINT' }], [300]), /does not fit/);
    assert.throws(() => toBinaryRow([INT], ['x']), /does not fit/);
  });

  test('round trip for random values of every type (property)', () => {
    const types = [
      'BOOLEAN', 'TINYINT', 'SMALLINT', 'INT', 'BIGINT', 'DOUBLE', 'STRING', 'BYTES', 'DATE',
      'DECIMAL(38, 3)', 'DECIMAL(18, 3)', 'TIMESTAMP(3)', 'TIMESTAMP(9)',
    ].map(binaryFieldTypeFromSql);
    fc.assert(
      fc.property(
        fc.option(fc.boolean()), fc.option(fc.integer({ min: -128, max: 127 })), fc.option(fc.integer({ min: -32768, max: 32767 })),
        fc.option(fc.integer()), fc.option(fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n })), fc.option(fc.double({ noNaN: true })),
        fc.option(fc.string({ unit: 'binary' })), fc.option(fc.uint8Array({ maxLength: 20 })), fc.option(fc.integer({ min: -100000, max: 100000 })),
        fc.option(fc.bigInt({ min: -(10n ** 37n), max: 10n ** 37n })), fc.option(fc.bigInt({ min: -(10n ** 17n), max: 10n ** 17n })),
        fc.option(fc.bigInt({ min: -(1n << 50n), max: 1n << 50n })), fc.option(fc.integer({ min: 0, max: 999999 })),
        (...vals) => {
          const values = [
            vals[0], vals[1], vals[2], vals[3], vals[4], vals[5], vals[6], vals[7], vals[8],
            vals[9] === null ? null : new Decimal(vals[9], 38, 3),
            vals[10] === null ? null : new Decimal(vals[10], 18, 3),
            vals[11] === null ? null : new Timestamp(vals[11]),
            vals[12] === null ? null : new Timestamp(123n, vals[12]),
          ];
          const row = deserializeBinaryRow(toBinaryRow(types, values).serialize());
          const back = row.toValues(types);
          assert.deepEqual(back, values.map((v) => (v instanceof Uint8Array ? new Uint8Array(v) : v)));
          assert.equal(row.bytes.length % 8, 0);
        },
      ),
      { numRuns: 300 },
    );
  });
});
