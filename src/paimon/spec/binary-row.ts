/**
 * Paimon's `BinaryRow`: the fixed-width, little-endian row layout used for partitions, primary-key
 * bounds and min/max statistics inside manifests (paimon-common `BinaryRow`, `BinaryRowWriter`,
 * `AbstractBinaryWriter`, `BinarySection`), and its Avro `bytes` form with a 4-byte big-endian arity
 * prefix (`SerializationUtils.serializeBinaryRow`).
 *
 * Layout: [header byte + null bits: W bytes][8-byte slot per field][variable part, 8-byte words]
 * with W = ((arity + 63 + 8) / 64) * 8. Partitions and file identities are compared byte by byte in
 * Java (`BinaryRow.equals`), so the encoder must produce Java's canonical bytes, padding included.
 */
import { PaimonError } from '../errors.js';
import { parseAtomicTypeSqlString, type AtomicRoot, type DataTypeRoot } from './data-types.js';

/**
 * The roots a BinaryRow field can have in manifests (partitions, keys, stats): the atomic
 * `DataType` roots except VARIANT and BLOB, which this codec does not encode.
 */
export type BinaryFieldRoot = Exclude<AtomicRoot, 'VARIANT' | 'BLOB'>;

/** What the row codec needs to know about one field's type: a narrow view of a `DataType`. */
export interface BinaryFieldType {
  root: BinaryFieldRoot;
  /** DECIMAL precision, or TIMESTAMP/TIME precision. */
  precision?: number;
  /** DECIMAL scale. */
  scale?: number;
}

/** A DECIMAL value: the unscaled integer and its scale (value = unscaled * 10^-scale). */
export class Decimal {
  constructor(
    readonly unscaled: bigint,
    readonly precision: number,
    readonly scale: number,
  ) {}

  /** Parses a plain decimal string ("-12.340") at the given precision and scale (Java HALF_UP). */
  static fromString(text: string, precision: number, scale: number): Decimal {
    const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text.trim());
    if (!m || (m[2] === '' && (m[3] ?? '') === '')) {
      throw new PaimonError('INVALID_ARGUMENT', `not a decimal number: '${text}'`);
    }
    const neg = m[1] === '-';
    const intPart = m[2] || '0';
    let frac = m[3] ?? '';
    let roundUp = false;
    if (frac.length > scale) {
      roundUp = frac.charCodeAt(scale) >= 0x35; // '5'
      frac = frac.slice(0, scale);
    } else {
      frac = frac.padEnd(scale, '0');
    }
    let unscaled = BigInt(intPart + frac);
    if (roundUp) unscaled += 1n;
    if (neg) unscaled = -unscaled;
    const d = new Decimal(unscaled, precision, scale);
    if (d.digits() > precision) {
      throw new PaimonError('INVALID_ARGUMENT', `decimal ${text} does not fit DECIMAL(${precision}, ${scale})`);
    }
    return d;
  }

  private digits(): number {
    const abs = this.unscaled < 0n ? -this.unscaled : this.unscaled;
    return abs === 0n ? 1 : abs.toString().length;
  }

  /** Plain string as Java's `BigDecimal.toPlainString`. */
  toString(): string {
    const neg = this.unscaled < 0n;
    let s = (neg ? -this.unscaled : this.unscaled).toString();
    if (this.scale > 0) {
      s = s.padStart(this.scale + 1, '0');
      s = `${s.slice(0, s.length - this.scale)}.${s.slice(s.length - this.scale)}`;
    } else if (this.scale < 0) {
      s = s + '0'.repeat(-this.scale);
    }
    return neg ? `-${s}` : s;
  }

  compareTo(other: Decimal): number {
    // Compare a*10^-s1 with b*10^-s2 exactly by bringing both to the larger scale.
    const s = Math.max(this.scale, other.scale);
    const a = this.unscaled * 10n ** BigInt(s - this.scale);
    const b = other.unscaled * 10n ** BigInt(s - other.scale);
    return a < b ? -1 : a > b ? 1 : 0;
  }
}

/** A TIMESTAMP value as Paimon's `Timestamp`: epoch milliseconds plus nanoseconds within the millisecond. */
export class Timestamp {
  constructor(
    readonly millisecond: bigint,
    readonly nanoOfMillisecond: number = 0,
  ) {
    if (!Number.isInteger(nanoOfMillisecond) || nanoOfMillisecond < 0 || nanoOfMillisecond > 999_999) {
      throw new PaimonError('INVALID_ARGUMENT', `nanoOfMillisecond out of range: ${nanoOfMillisecond}`);
    }
  }

  static fromEpochMillis(ms: number | bigint, nanoOfMillisecond = 0): Timestamp {
    return new Timestamp(BigInt(ms), nanoOfMillisecond);
  }

  compareTo(other: Timestamp): number {
    if (this.millisecond !== other.millisecond) return this.millisecond < other.millisecond ? -1 : 1;
    return Math.sign(this.nanoOfMillisecond - other.nanoOfMillisecond);
  }

  /** ISO-like local date-time text (`2024-05-14T10:30:15.123456789`), the value taken as UTC wall clock. */
  toString(): string {
    const d = new Date(Number(this.millisecond));
    const base = d.toISOString().slice(0, 23); // yyyy-mm-ddThh:mm:ss.SSS
    return this.nanoOfMillisecond === 0 ? base : base + String(this.nanoOfMillisecond).padStart(6, '0');
  }
}

/** A field value in JS form. */
export type BinaryValue = null | boolean | number | bigint | string | Uint8Array | Decimal | Timestamp;

const HEADER_BITS = 8;
const TEXT_ENCODER = new TextEncoder();
const TEXT_DECODER = new TextDecoder('utf-8', { fatal: false });

/** Width in bytes of the header + null-bit area for a row of the given arity. */
export function nullBitsSizeInBytes(arity: number): number {
  return Math.floor((arity + 63 + HEADER_BITS) / 64) * 8;
}

function roundToWord(n: number): number {
  return (n + 7) & ~7;
}

/** DECIMAL(p) with p <= 18 is stored inline as the unscaled long (`Decimal.isCompact`). */
export function isCompactDecimal(precision: number): boolean {
  return precision <= 18;
}

/** TIMESTAMP(p) with p <= 3 is stored inline as epoch millis (`Timestamp.isCompact`). */
export function isCompactTimestamp(precision: number): boolean {
  return precision <= 3;
}

/**
 * The BinaryRow view of a type (a `DataType`, or any view of one that keeps its root, precision and
 * scale); null for the types a BinaryRow field cannot hold (VARIANT, BLOB and the nested types).
 */
export function binaryFieldTypeOf(t: { root: DataTypeRoot; precision?: number; scale?: number }): BinaryFieldType | null {
  switch (t.root) {
    case 'DECIMAL':
      return { root: 'DECIMAL', precision: t.precision, scale: t.scale };
    case 'TIME':
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return { root: t.root, precision: t.precision };
    case 'BOOLEAN':
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT':
    case 'FLOAT':
    case 'DOUBLE':
    case 'CHAR':
    case 'VARCHAR':
    case 'BINARY':
    case 'VARBINARY':
    case 'DATE':
      return { root: t.root };
    default:
      return null;
  }
}

/**
 * Parses the SQL type string Paimon writes in schemas (`INT NOT NULL`, `DECIMAL(38, 10)`,
 * `TIMESTAMP(6) WITH LOCAL TIME ZONE`, `STRING`, `BYTES`) into a BinaryFieldType.
 */
export function binaryFieldTypeFromSql(text: string): BinaryFieldType {
  let t: BinaryFieldType | null = null;
  try {
    t = binaryFieldTypeOf(parseAtomicTypeSqlString(text));
  } catch {
    // Not a type string at all: the same refusal as for a type without a BinaryRow form.
  }
  if (t === null) throw new PaimonError('UNSUPPORTED_FORMAT', `type ${text} cannot be stored in a BinaryRow by this library`);
  return t;
}

function corrupt(msg: string): PaimonError {
  return new PaimonError('CORRUPT_METADATA', `invalid BinaryRow: ${msg}`);
}

/**
 * An immutable BinaryRow: its arity and its row bytes (without the arity prefix). Equality is
 * byte equality, as in Java.
 */
export class BinaryRow {
  static readonly EMPTY_ROW: BinaryRow = new BinaryRow(0, Buffer.alloc(8));

  /** The memory holding the row (often a whole decoded manifest block) and the row's place in it. */
  private readonly seg: Buffer;
  private readonly off: number;
  readonly sizeInBytes: number;
  private view: Buffer | null = null;
  private hexKey: string | null = null;

  /**
   * A row over `segment[offset, offset + length)`. Rows decoded from manifests point into the
   * decoded block instead of owning a Buffer each: millions of small typed arrays cost more in
   * garbage collection than the decoding itself.
   */
  constructor(
    readonly arity: number,
    segment: Buffer,
    offset = 0,
    length = segment.length - offset,
  ) {
    if (length < nullBitsSizeInBytes(arity) + 8 * arity || offset < 0 || offset + length > segment.length) {
      throw corrupt(`${length} bytes is shorter than the fixed part of a row of arity ${arity}`);
    }
    this.seg = segment;
    this.off = offset;
    this.sizeInBytes = length;
  }

  /** The row bytes (a view, created on first use). */
  get bytes(): Buffer {
    this.view ??= this.off === 0 && this.sizeInBytes === this.seg.length ? this.seg : this.seg.subarray(this.off, this.off + this.sizeInBytes);
    return this.view;
  }

  /** The row kind byte (0 +I, 1 -U, 2 +U, 3 -D). */
  get rowKind(): number {
    return this.seg[this.off];
  }

  isNullAt(pos: number): boolean {
    this.checkPos(pos);
    const bit = pos + HEADER_BITS;
    return (this.seg[this.off + (bit >> 3)] & (1 << (bit & 7))) !== 0;
  }

  private checkPos(pos: number): void {
    if (!Number.isInteger(pos) || pos < 0 || pos >= this.arity) {
      throw new PaimonError('INVALID_ARGUMENT', `field ${pos} out of range for a row of arity ${this.arity}`);
    }
  }

  /** Absolute offset of the field's slot in the segment. */
  private fieldOffset(pos: number): number {
    return this.off + nullBitsSizeInBytes(this.arity) + 8 * pos;
  }

  getBoolean(pos: number): boolean {
    return this.seg[this.fieldOffset(pos)] !== 0;
  }
  getByte(pos: number): number {
    return this.seg.readInt8(this.fieldOffset(pos));
  }
  getShort(pos: number): number {
    return this.seg.readInt16LE(this.fieldOffset(pos));
  }
  getInt(pos: number): number {
    return this.seg.readInt32LE(this.fieldOffset(pos));
  }
  getLong(pos: number): bigint {
    return this.seg.readBigInt64LE(this.fieldOffset(pos));
  }
  getFloat(pos: number): number {
    return this.seg.readFloatLE(this.fieldOffset(pos));
  }
  getDouble(pos: number): number {
    return this.seg.readDoubleLE(this.fieldOffset(pos));
  }

  /** Raw bytes of a CHAR/VARCHAR/BINARY/VARBINARY field (inline when <= 7 bytes, else variable part). */
  getBinary(pos: number): Buffer {
    const off = this.fieldOffset(pos);
    const mark = this.seg[off + 7] & 0x80;
    if (mark !== 0) {
      const len = this.seg[off + 7] & 0x7f;
      if (len > 7) throw corrupt(`inline length ${len} at field ${pos}`);
      return Buffer.from(this.seg.subarray(off, off + len));
    }
    const len = this.seg.readUInt32LE(off);
    const sub = this.seg.readUInt32LE(off + 4);
    if (sub + len > this.sizeInBytes) throw corrupt(`variable part [${sub}, +${len}) of field ${pos} is outside the row`);
    return Buffer.from(this.seg.subarray(this.off + sub, this.off + sub + len));
  }

  getString(pos: number): string {
    return TEXT_DECODER.decode(this.getBinary(pos));
  }

  getDecimal(pos: number, precision: number, scale: number): Decimal {
    const off = this.fieldOffset(pos);
    if (isCompactDecimal(precision)) {
      return new Decimal(this.seg.readBigInt64LE(off), precision, scale);
    }
    const len = this.seg.readUInt32LE(off);
    const sub = this.seg.readUInt32LE(off + 4);
    if (len > 16 || sub + len > this.sizeInBytes) throw corrupt(`decimal bytes of field ${pos}`);
    return new Decimal(bigIntFromTwosComplementBE(this.seg.subarray(this.off + sub, this.off + sub + len)), precision, scale);
  }

  getTimestamp(pos: number, precision: number): Timestamp {
    const off = this.fieldOffset(pos);
    if (isCompactTimestamp(precision)) {
      return new Timestamp(this.seg.readBigInt64LE(off));
    }
    const nanos = this.seg.readUInt32LE(off);
    const sub = this.seg.readUInt32LE(off + 4);
    if (sub + 8 > this.sizeInBytes) throw corrupt(`timestamp millis of field ${pos} outside the row`);
    return new Timestamp(this.seg.readBigInt64LE(this.off + sub), nanos);
  }

  /** Reads field `pos` as the JS value for its type; null when the null bit is set. */
  get(pos: number, type: BinaryFieldType): BinaryValue {
    if (this.isNullAt(pos)) return null;
    switch (type.root) {
      case 'BOOLEAN':
        return this.getBoolean(pos);
      case 'TINYINT':
        return this.getByte(pos);
      case 'SMALLINT':
        return this.getShort(pos);
      case 'INT':
      case 'DATE':
      case 'TIME':
        return this.getInt(pos);
      case 'BIGINT':
        return this.getLong(pos);
      case 'FLOAT':
        return this.getFloat(pos);
      case 'DOUBLE':
        return this.getDouble(pos);
      case 'DECIMAL':
        return this.getDecimal(pos, type.precision ?? 10, type.scale ?? 0);
      case 'CHAR':
      case 'VARCHAR':
        return this.getString(pos);
      case 'BINARY':
      case 'VARBINARY':
        return new Uint8Array(this.getBinary(pos));
      case 'TIMESTAMP':
      case 'TIMESTAMP_LTZ':
        return this.getTimestamp(pos, type.precision ?? 6);
    }
  }

  /** All fields as JS values. */
  toValues(types: readonly BinaryFieldType[]): BinaryValue[] {
    if (types.length !== this.arity) {
      throw new PaimonError('INVALID_ARGUMENT', `row has arity ${this.arity} but ${types.length} types were given`);
    }
    return types.map((t, i) => this.get(i, t));
  }

  equals(other: BinaryRow): boolean {
    return (
      this.arity === other.arity &&
      this.sizeInBytes === other.sizeInBytes &&
      this.seg.compare(other.seg, other.off, other.off + other.sizeInBytes, this.off, this.off + this.sizeInBytes) === 0
    );
  }

  /** The Avro `bytes` form: int32 big-endian arity, then the row bytes (`serializeBinaryRow`). */
  serialize(): Buffer {
    const out = Buffer.allocUnsafe(4 + this.sizeInBytes);
    out.writeInt32BE(this.arity, 0);
    this.seg.copy(out, 4, this.off, this.off + this.sizeInBytes);
    return out;
  }

  /**
   * Java `BinaryRow.hashCode()`: MurmurHash3 (x86, 32-bit, seed 42) over the row's 4-byte
   * little-endian words (`MemorySegmentUtils.hashByWords`), finalised with the byte length.
   */
  hashCode(): number {
    const b = this.seg;
    const end = this.off + this.sizeInBytes;
    let h1 = 42;
    for (let i = this.off; i + 4 <= end; i += 4) {
      let k1 = b.readInt32LE(i);
      k1 = Math.imul(k1, 0xcc9e2d51);
      k1 = (k1 << 15) | (k1 >>> 17);
      k1 = Math.imul(k1, 0x1b873593);
      h1 ^= k1;
      h1 = (h1 << 13) | (h1 >>> 19);
      h1 = (Math.imul(h1, 5) + 0xe6546b64) | 0;
    }
    h1 ^= this.sizeInBytes;
    h1 ^= h1 >>> 16;
    h1 = Math.imul(h1, 0x85ebca6b);
    h1 ^= h1 >>> 13;
    h1 = Math.imul(h1, 0xc2b2ae35);
    h1 ^= h1 >>> 16;
    return h1 | 0;
  }

  /** JSON form for logs and test comparisons (`JSON.stringify` of entries). */
  toJSON(): { arity: number; hex: string } {
    return { arity: this.arity, hex: this.seg.toString('hex', this.off, this.off + this.sizeInBytes) };
  }

  /** Hex of the serialized form: a stable map key for partitions and identifiers. */
  key(): string {
    this.hexKey ??= `${this.arity}:${this.seg.toString('hex', this.off, this.off + this.sizeInBytes)}`;
    return this.hexKey;
  }
}

/**
 * The bucket of a row in a fixed-bucket table (`DefaultBucketFunction.bucket`):
 * `Math.abs(bucketKeyRow.hashCode() % numBuckets)`, with the bucket-key row built like a partition
 * row (the bucket-key fields, defaulting to the trimmed primary key).
 */
export function defaultBucket(bucketKey: BinaryRow, numBuckets: number): number {
  if (!Number.isInteger(numBuckets) || numBuckets <= 0) {
    throw new PaimonError('INVALID_ARGUMENT', `number of buckets must be positive, got ${numBuckets}`);
  }
  return Math.abs(bucketKey.hashCode() % numBuckets);
}

/** Inverse of `BinaryRow.serialize` (`SerializationUtils.deserializeBinaryRow`). */
export function deserializeBinaryRow(data: Uint8Array | { buf: Buffer; offset: number; length: number }): BinaryRow {
  let buf: Buffer;
  let start = 0;
  let length: number;
  if (data instanceof Uint8Array) {
    buf = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    length = buf.length;
  } else {
    buf = data.buf;
    start = data.offset;
    length = data.length;
  }
  if (length < 4) throw corrupt(`${length} bytes is too short for the arity prefix`);
  const arity = buf.readInt32BE(start);
  if (arity < 0 || arity > 1 << 20) throw corrupt(`arity ${arity}`);
  // Not a copy: rows decoded from a manifest share its decompressed block.
  return new BinaryRow(arity, buf, start + 4, length - 4);
}

/** Serializes a row to the Avro `bytes` form (arity prefix + row bytes). */
export function serializeBinaryRow(row: BinaryRow): Buffer {
  return row.serialize();
}

function bigIntFromTwosComplementBE(bytes: Uint8Array): bigint {
  if (bytes.length === 0) return 0n;
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  if (bytes[0] & 0x80) v -= 1n << BigInt(8 * bytes.length);
  return v;
}

/** Java `BigInteger.toByteArray`: minimal two's-complement big-endian bytes (at least one byte). */
export function bigIntToTwosComplementBE(value: bigint): Buffer {
  let len = 1;
  // Smallest len with -2^(8len-1) <= value < 2^(8len-1).
  while (value >= 1n << BigInt(8 * len - 1) || value < -(1n << BigInt(8 * len - 1))) len++;
  const out = Buffer.alloc(len);
  let v = value < 0n ? (1n << BigInt(8 * len)) + value : value;
  for (let i = len - 1; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

function typeError(pos: number, type: BinaryFieldType, value: unknown): PaimonError {
  const shown = typeof value === 'bigint' ? `${value}n` : typeof value === 'object' ? (value?.constructor?.name ?? 'object') : JSON.stringify(value);
  return new PaimonError('INVALID_ARGUMENT', `field ${pos}: value ${shown} does not fit type ${type.root}`);
}

function toIntIn(pos: number, type: BinaryFieldType, v: BinaryValue, min: number, max: number): number {
  const n = typeof v === 'bigint' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) throw typeError(pos, type, v);
  return n;
}

function toLong(pos: number, type: BinaryFieldType, v: BinaryValue): bigint {
  if (typeof v === 'bigint') {
    if (v < -(1n << 63n) || v >= 1n << 63n) throw typeError(pos, type, v);
    return v;
  }
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  throw typeError(pos, type, v);
}

/**
 * Builds BinaryRows the way `BinaryRowWriter` does: reset, write each field (or its null setter),
 * complete. Unused and padding bytes are zero.
 */
export class BinaryRowWriter {
  private buf: Buffer;
  private cursor: number;
  private readonly fixedSize: number;
  private readonly nullBitsSize: number;

  constructor(readonly arity: number, initialVariableSize = 64) {
    this.nullBitsSize = nullBitsSizeInBytes(arity);
    this.fixedSize = this.nullBitsSize + 8 * arity;
    this.buf = Buffer.alloc(this.fixedSize + initialVariableSize);
    this.cursor = this.fixedSize;
  }

  reset(): void {
    this.buf.fill(0, 0, this.cursor);
    this.cursor = this.fixedSize;
  }

  setRowKind(kind: number): void {
    this.buf[0] = kind;
  }

  private ensureCapacity(extra: number): void {
    const need = this.cursor + extra;
    if (need > this.buf.length) {
      const grown = Buffer.alloc(Math.max(need, this.buf.length * 2));
      this.buf.copy(grown, 0, 0, this.cursor);
      this.buf = grown;
    }
  }

  private slot(pos: number): number {
    if (!Number.isInteger(pos) || pos < 0 || pos >= this.arity) {
      throw new PaimonError('INVALID_ARGUMENT', `field ${pos} out of range for a row of arity ${this.arity}`);
    }
    return this.nullBitsSize + 8 * pos;
  }

  private setNullBit(pos: number): void {
    const bit = pos + HEADER_BITS;
    this.buf[bit >> 3] |= 1 << (bit & 7);
  }

  /** `setNullAt`: null bit plus a zeroed slot (for every type except non-compact DECIMAL/TIMESTAMP). */
  setNullAt(pos: number): void {
    const off = this.slot(pos);
    this.setNullBit(pos);
    this.buf.fill(0, off, off + 8);
  }

  private setOffsetAndSize(pos: number, offset: number, size: number): void {
    const off = this.slot(pos);
    this.buf.writeUInt32LE(size >>> 0, off);
    this.buf.writeUInt32LE(offset >>> 0, off + 4);
  }

  writeBoolean(pos: number, v: boolean): void {
    const off = this.slot(pos);
    this.buf.fill(0, off, off + 8);
    this.buf[off] = v ? 1 : 0;
  }
  writeByte(pos: number, v: number): void {
    const off = this.slot(pos);
    this.buf.fill(0, off, off + 8);
    this.buf.writeInt8(v, off);
  }
  writeShort(pos: number, v: number): void {
    const off = this.slot(pos);
    this.buf.fill(0, off, off + 8);
    this.buf.writeInt16LE(v, off);
  }
  writeInt(pos: number, v: number): void {
    const off = this.slot(pos);
    this.buf.fill(0, off, off + 8);
    this.buf.writeInt32LE(v, off);
  }
  writeLong(pos: number, v: bigint): void {
    this.buf.writeBigInt64LE(v, this.slot(pos));
  }
  writeFloat(pos: number, v: number): void {
    const off = this.slot(pos);
    this.buf.fill(0, off, off + 8);
    this.buf.writeFloatLE(Number.isNaN(v) ? NaN : v, off);
  }
  writeDouble(pos: number, v: number): void {
    this.buf.writeDoubleLE(Number.isNaN(v) ? NaN : v, this.slot(pos));
  }

  /** CHAR/VARCHAR/BINARY/VARBINARY bytes: inline when <= 7 bytes (byte 7 = 0x80 | len), else variable part. */
  writeBinary(pos: number, bytes: Uint8Array): void {
    const off = this.slot(pos);
    const len = bytes.length;
    if (len <= 7) {
      this.buf.fill(0, off, off + 8);
      for (let i = 0; i < len; i++) this.buf[off + i] = bytes[i];
      this.buf[off + 7] = 0x80 | len;
      return;
    }
    const rounded = roundToWord(len);
    this.ensureCapacity(rounded);
    this.buf.fill(0, this.cursor, this.cursor + rounded);
    this.buf.set(bytes, this.cursor);
    this.setOffsetAndSize(pos, this.cursor, len);
    this.cursor += rounded;
  }

  writeString(pos: number, s: string): void {
    this.writeBinary(pos, TEXT_ENCODER.encode(s));
  }

  /** DECIMAL: compact (p <= 18) as the unscaled long; otherwise 16 reserved bytes, also when null. */
  writeDecimal(pos: number, value: Decimal | null, precision: number): void {
    if (isCompactDecimal(precision)) {
      if (value === null) {
        this.setNullAt(pos);
        return;
      }
      this.writeLong(pos, value.unscaled);
      return;
    }
    this.ensureCapacity(16);
    this.buf.fill(0, this.cursor, this.cursor + 16);
    if (value === null) {
      this.setNullBit(pos);
      this.setOffsetAndSize(pos, this.cursor, 0);
    } else {
      const bytes = bigIntToTwosComplementBE(value.unscaled);
      if (bytes.length > 16) {
        throw new PaimonError('INVALID_ARGUMENT', `field ${pos}: decimal ${value} needs more than 16 bytes`);
      }
      bytes.copy(this.buf, this.cursor);
      this.setOffsetAndSize(pos, this.cursor, bytes.length);
    }
    this.cursor += 16;
  }

  /** TIMESTAMP: compact (p <= 3) as epoch millis; otherwise 8 reserved bytes of millis + nanos in the slot. */
  writeTimestamp(pos: number, value: Timestamp | null, precision: number): void {
    if (isCompactTimestamp(precision)) {
      if (value === null) {
        this.setNullAt(pos);
        return;
      }
      this.writeLong(pos, value.millisecond);
      return;
    }
    this.ensureCapacity(8);
    if (value === null) {
      this.setNullBit(pos);
      this.buf.fill(0, this.cursor, this.cursor + 8);
      this.setOffsetAndSize(pos, this.cursor, 0);
    } else {
      this.buf.writeBigInt64LE(value.millisecond, this.cursor);
      this.setOffsetAndSize(pos, this.cursor, value.nanoOfMillisecond);
    }
    this.cursor += 8;
  }

  /** Writes a JS value (or null) of the given type, using Java's null setter for that type. */
  write(pos: number, type: BinaryFieldType, v: BinaryValue): void {
    if (v === null || v === undefined) {
      if (type.root === 'DECIMAL') this.writeDecimal(pos, null, type.precision ?? 10);
      else if (type.root === 'TIMESTAMP' || type.root === 'TIMESTAMP_LTZ')
        this.writeTimestamp(pos, null, type.precision ?? 6);
      else this.setNullAt(pos);
      return;
    }
    switch (type.root) {
      case 'BOOLEAN':
        if (typeof v !== 'boolean') throw typeError(pos, type, v);
        return this.writeBoolean(pos, v);
      case 'TINYINT':
        return this.writeByte(pos, toIntIn(pos, type, v, -128, 127));
      case 'SMALLINT':
        return this.writeShort(pos, toIntIn(pos, type, v, -32768, 32767));
      case 'INT':
      case 'DATE':
      case 'TIME':
        return this.writeInt(pos, toIntIn(pos, type, v, -2147483648, 2147483647));
      case 'BIGINT':
        return this.writeLong(pos, toLong(pos, type, v));
      case 'FLOAT':
        if (typeof v !== 'number') throw typeError(pos, type, v);
        return this.writeFloat(pos, v);
      case 'DOUBLE':
        if (typeof v !== 'number') throw typeError(pos, type, v);
        return this.writeDouble(pos, v);
      case 'DECIMAL': {
        const p = type.precision ?? 10;
        const s = type.scale ?? 0;
        let d: Decimal;
        if (v instanceof Decimal) d = v;
        else if (typeof v === 'string') d = Decimal.fromString(v, p, s);
        else throw typeError(pos, type, v);
        if (d.scale !== s) throw new PaimonError('INVALID_ARGUMENT', `field ${pos}: decimal scale ${d.scale} differs from DECIMAL(${p}, ${s})`);
        return this.writeDecimal(pos, d, p);
      }
      case 'CHAR':
      case 'VARCHAR':
        if (typeof v !== 'string') throw typeError(pos, type, v);
        return this.writeString(pos, v);
      case 'BINARY':
      case 'VARBINARY':
        if (!(v instanceof Uint8Array)) throw typeError(pos, type, v);
        return this.writeBinary(pos, v);
      case 'TIMESTAMP':
      case 'TIMESTAMP_LTZ': {
        let ts: Timestamp;
        if (v instanceof Timestamp) ts = v;
        else if (typeof v === 'bigint' || typeof v === 'number') ts = Timestamp.fromEpochMillis(v);
        else throw typeError(pos, type, v);
        return this.writeTimestamp(pos, ts, type.precision ?? 6);
      }
    }
  }

  /** Finishes the row: a copy of the bytes written so far. The writer can be reset and reused. */
  complete(): BinaryRow {
    return new BinaryRow(this.arity, Buffer.from(this.buf.subarray(0, this.cursor)));
  }
}

/** Encodes values of the given types into a canonical BinaryRow (InternalRowSerializer.toBinaryRow). */
export function toBinaryRow(types: readonly BinaryFieldType[], values: readonly BinaryValue[]): BinaryRow {
  if (types.length !== values.length) {
    throw new PaimonError('INVALID_ARGUMENT', `${values.length} values given for ${types.length} fields`);
  }
  const w = new BinaryRowWriter(types.length);
  for (let i = 0; i < types.length; i++) w.write(i, types[i], values[i]);
  return w.complete();
}
