/**
 * Avro's variable-length zig-zag `int` and `long` (Avro specification, "Binary Encoding"; Java's
 * `BinaryDecoder.readLong` and `BinaryEncoder.writeLong`): the one codec of them in the library,
 * used by the manifest decoder (manifest-entry.ts), the avsc `long` type (avro-schemas.ts), container
 * headers and blocks (objects-file.ts) and Avro data files (data/avro-data-reader.ts).
 *
 * The reader is a cursor class that the manifest decoder extends: its hot loop (~20 varints per
 * entry) then calls these methods directly, with no extra call level between it and the loop, and
 * allocates nothing. Other callers keep one cursor per module and point it at their buffer.
 */
import { PaimonError } from '../errors.js';

const TWO_POW_49 = 562949953421312;

/** The bigint of every zig-zag encoded value below 4096 (-2048..2047), indexed by its encoding. */
const SMALL_LONGS: readonly bigint[] = Array.from({ length: 4096 }, (_, z) => BigInt(z % 2 === 0 ? z / 2 : -(z + 1) / 2));

/** A position in a buffer of Avro varints; a read past the end throws `truncated()`. */
export class VarintReader {
  constructor(
    public buf: Buffer,
    public pos = 0,
  ) {}

  /** The error for a value cut off by the end of the buffer; subclasses say what was cut off. */
  protected truncated(): Error {
    return new PaimonError('CORRUPT_METADATA', 'truncated Avro varint');
  }

  /** An Avro int/long as a JS number (as avsc's `Tap.readLong`: exact up to 2^53). */
  int(): number {
    const buf = this.buf;
    let pos = this.pos;
    let b = buf[pos++];
    if (b === undefined) throw this.truncated();
    if (b < 0x80) {
      this.pos = pos;
      return (b >> 1) ^ -(b & 1);
    }
    let n = b & 0x7f;
    let mul = 128;
    do {
      b = buf[pos++];
      if (b === undefined) throw this.truncated();
      n += (b & 0x7f) * mul;
      mul *= 128;
    } while (b & 0x80);
    this.pos = pos;
    return n % 2 ? -(n + 1) / 2 : n / 2;
  }

  /**
   * An Avro long as a bigint, exact over the whole 64-bit range. Up to 7 bytes (49 bits) are
   * assembled in a double, and small values share one bigint each (sizes of empty things, schema
   * ids, levels and counts are most of a manifest's longs).
   */
  long(): bigint {
    const buf = this.buf;
    let pos = this.pos;
    let b = buf[pos++];
    let n = b & 0x7f;
    let mul = 128;
    while (b & 0x80 && mul < TWO_POW_49) {
      b = buf[pos++];
      n += (b & 0x7f) * mul;
      mul *= 128;
    }
    if (b === undefined) throw this.truncated();
    if (!(b & 0x80)) {
      this.pos = pos;
      return n < SMALL_LONGS.length ? SMALL_LONGS[n] : BigInt(n % 2 === 0 ? n / 2 : -(n + 1) / 2);
    }
    let u = BigInt(n);
    let shift = 49n;
    do {
      b = buf[pos++];
      if (b === undefined) throw this.truncated();
      u |= BigInt(b & 0x7f) << shift;
      shift += 7n;
    } while (b & 0x80 && shift < 70n);
    this.pos = pos;
    return (u >> 1n) ^ -(u & 1n);
  }
}

/** Writes a 64-bit value at `pos` (up to 10 bytes) and returns the position after it. */
export function writeVarLong(buf: Uint8Array, pos: number, val: bigint): number {
  let z = val >= 0n ? val << 1n : ((-val) << 1n) - 1n;
  if (z < 9007199254740992n) {
    let m = Number(z);
    while (m >= 128) {
      buf[pos++] = (m % 128) | 0x80;
      m = Math.floor(m / 128);
    }
    buf[pos++] = m;
    return pos;
  }
  while (z >= 128n) {
    buf[pos++] = Number(z & 0x7fn) | 0x80;
    z >>= 7n;
  }
  buf[pos++] = Number(z);
  return pos;
}

/** The encoding of one value, in a buffer of its own. */
export function varLongBytes(val: number | bigint): Buffer {
  const out = Buffer.allocUnsafe(10);
  return out.subarray(0, writeVarLong(out, 0, BigInt(val)));
}
