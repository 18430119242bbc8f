/**
 * Sort keys of a sort compaction (`order_strategy` order / zorder / hilbert), as byte strings
 * whose unsigned lexicographic order is the order Paimon sorts rows in:
 *
 *  - zorder: `org.apache.paimon.sort.zorder.ZIndexer` (the Flink sort-compact path) with
 *    `ZOrderByteUtils`: every column becomes 8 bytes (CHAR/VARCHAR/BINARY/VARBINARY:
 *    `zorder.var-length-contribution` bytes, default 8, truncated or zero-filled), NULL is all
 *    zeros, and the columns' bits are interleaved most significant first. The per-type
 *    normalisation is reproduced bit for bit, oddities included (integers are sign-extended to
 *    64 bits and sign-flipped; floats are widened to double and flipped with Java's
 *    `bits ^ ((bits >> 31) | Long.MIN_VALUE)`; booleans are 0x81/0x00 in the first byte;
 *    decimals are the first 8 bytes of the unscaled two's-complement bytes; timestamps use
 *    their milliseconds).
 *  - hilbert: `org.apache.paimon.sort.hilbert.HilbertIndexer`: every column becomes a 64-bit
 *    long (NULL and `true` are Long.MAX_VALUE; strings and binaries are their first 8 bytes,
 *    left-padded, read big-endian; TINYINT is read as an unsigned byte; floats and doubles are
 *    their IEEE bits; decimals are truncated to a long; timestamps are milliseconds), then the
 *    point's index on a 63-bit Hilbert curve (Skilling's transposition, as the shaded
 *    `org.davidmoten.hilbert.HilbertCurve` computes it; only the low 63 bits of each long take
 *    part), serialised as `BigInteger.toByteArray()` left-padded (or cut) to 63 bytes.
 *  - order: Paimon's generated record comparator over the order columns (ascending, NULLS
 *    FIRST; strings and binaries compare as unsigned bytes, floats and doubles as
 *    `Float.compare`/`Double.compare`, decimals and timestamps by value), encoded as a
 *    memcmp-comparable byte string (NULL = 0x00, value = 0x01 + normalised bytes, variable-length
 *    values with 0x00 escaped as 0x00 0xFF and ended by 0x00 0x00).
 *
 * A sort key is computed per row in JS and the rows are sorted by it in DuckDB (which spills),
 * see sort-compaction.ts.
 */
import { PaimonError } from '../errors.js';
import { typeToString, type DataFieldSpec, type FieldType } from '../data/field-type.js';
import type { Datum, InternalRow } from '../data/internal-row.js';
import { Decimal, Timestamp } from '../data/internal-row.js';

export type SortStrategy = 'order' | 'zorder' | 'hilbert';

export const PRIMITIVE_BUFFER_SIZE = 8;
export const HILBERT_BITS = 63;

const utf8 = new TextEncoder();

/** Builds the key function of a strategy over the given row type; refuses columns Paimon cannot sort by. */
export interface SortKeyEncoder {
  strategy: SortStrategy;
  /** Key bytes of one row (a fresh array). */
  key(row: InternalRow): Uint8Array;
}

const ZORDER_TYPES = new Set(['BOOLEAN', 'TINYINT', 'SMALLINT', 'INT', 'BIGINT', 'FLOAT', 'DOUBLE', 'CHAR', 'VARCHAR', 'BINARY', 'VARBINARY', 'DECIMAL', 'DATE', 'TIME', 'TIMESTAMP', 'TIMESTAMP_LTZ']);

function isVarType(t: FieldType): boolean {
  return t.root === 'CHAR' || t.root === 'VARCHAR' || t.root === 'BINARY' || t.root === 'VARBINARY';
}

/** Resolves the order columns to field indexes (Paimon: "Can't find column ..."). */
export function orderColumnIndexes(fields: readonly DataFieldSpec[], orderBy: readonly string[]): number[] {
  return orderBy.map((c) => {
    const i = fields.findIndex((f) => f.name === c);
    if (i < 0) {
      throw new PaimonError('INVALID_ARGUMENT', `Can't find column ${c} in table columns. Possible columns are [${fields.map((f) => f.name).join(',')}]`);
    }
    return i;
  });
}

/** Checks that every order column has a type the strategy can sort by (before any work). */
export function checkSortColumns(strategy: SortStrategy, fields: readonly DataFieldSpec[], orderBy: readonly string[]): void {
  if (orderBy.length === 0) throw new PaimonError('INVALID_ARGUMENT', 'order column could not be empty');
  const idx = orderColumnIndexes(fields, orderBy);
  if (strategy === 'hilbert' && orderBy.length < 2) throw new PaimonError('INVALID_ARGUMENT', 'Hilbert sort needs at least two columns.');
  for (const i of idx) {
    const f = fields[i];
    if (!ZORDER_TYPES.has(f.type.root)) {
      throw new PaimonError('INVALID_ARGUMENT', `order_by column ${f.name} has type ${typeToString(f.type)}, which ${strategy} sort does not support (only atomic types: numbers, strings, binaries, booleans, decimals, dates, times, timestamps)`);
    }
  }
}

// ------------------------------------------------------------------------------------------
// 64-bit helpers (Java long semantics on BigInt)
// ------------------------------------------------------------------------------------------

const MASK64 = (1n << 64n) - 1n;
const LONG_MIN = -(1n << 63n);

function putLongBE(out: Uint8Array, off: number, v: bigint): void {
  let u = v & MASK64;
  for (let i = 7; i >= 0; i--) {
    out[off + i] = Number(u & 0xffn);
    u >>= 8n;
  }
}

const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);
// Little-endian platforms only (every platform Node runs on): [lo, hi].
const u32x2 = new Uint32Array(f64.buffer);
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** `Double.doubleToLongBits` (NaN canonicalised to 0x7ff8000000000000). */
export function doubleToLongBits(d: number): bigint {
  if (Number.isNaN(d)) return 0x7ff8000000000000n;
  f64[0] = d;
  return BigInt.asIntN(64, u64[0]);
}

/** `Float.floatToIntBits` (NaN canonicalised to 0x7fc00000), as an unsigned 32-bit number. */
function floatToIntBits(f: number): number {
  if (Number.isNaN(f)) return 0x7fc00000;
  f32[0] = f;
  return u32[0];
}

/** `BigInteger.toByteArray()`: minimal big-endian two's complement. */
export function bigIntToByteArray(v: bigint): Uint8Array {
  let bitLen = 0;
  // Java's bitLength for negatives is that of ~v.
  let m = v < 0n ? ~v : v;
  while (m > 0n) {
    bitLen++;
    m >>= 1n;
  }
  const n = Math.floor(bitLen / 8) + 1;
  const out = new Uint8Array(n);
  let u = BigInt.asUintN(n * 8, v);
  for (let i = n - 1; i >= 0; i--) {
    out[i] = Number(u & 0xffn);
    u >>= 8n;
  }
  return out;
}

/** `ZOrderByteUtils.byteTruncateOrFill`. */
function truncateOrFill(val: Uint8Array, length: number): Uint8Array {
  const out = new Uint8Array(length);
  out.set(val.length <= length ? val : val.subarray(0, length));
  return out;
}

function bytesOf(v: Datum): Uint8Array {
  return typeof v === 'string' ? utf8.encode(v) : (v as Uint8Array);
}

// ------------------------------------------------------------------------------------------
// zorder
// ------------------------------------------------------------------------------------------

function orderedLong(v: bigint): Uint8Array {
  const out = new Uint8Array(8);
  putLongBE(out, 0, v ^ LONG_MIN);
  return out;
}

/** The IEEE bits of a double as (hi, lo) uint32 halves, NaN canonicalised as `doubleToLongBits` does. */
function doubleBits(d: number): [number, number] {
  if (Number.isNaN(d)) return [0x7ff80000, 0];
  f64[0] = d;
  return [u32x2[1], u32x2[0]];
}

function put32(out: Uint8Array, off: number, v: number): void {
  out[off] = v >>> 24;
  out[off + 1] = (v >>> 16) & 0xff;
  out[off + 2] = (v >>> 8) & 0xff;
  out[off + 3] = v & 0xff;
}

/** `intToOrderedBytes` (and short/tinyint): the value sign-extended to 64 bits, sign bit flipped. */
function orderedInt(v: number): Uint8Array {
  const out = new Uint8Array(8);
  put32(out, 0, ((v < 0 ? 0xffffffff : 0) ^ 0x80000000) >>> 0);
  put32(out, 4, v >>> 0);
  return out;
}

/**
 * `ZOrderByteUtils.doubleToOrderedBytes` (also used for floats, widened):
 * `l ^= (l >> 31) | Long.MIN_VALUE` on the 64-bit pattern, computed on its halves.
 */
function orderedDouble(d: number): Uint8Array {
  const [hi, lo] = doubleBits(d);
  const shHi = hi >> 31; // arithmetic: the sign, spread
  const shLo = ((hi << 1) | (lo >>> 31)) >>> 0;
  const out = new Uint8Array(8);
  put32(out, 0, (hi ^ (shHi | 0x80000000)) >>> 0);
  put32(out, 4, (lo ^ shLo) >>> 0);
  return out;
}

type ColumnBytes = (v: Datum) => Uint8Array;

function zColumn(t: FieldType, varTypeSize: number): ColumnBytes {
  const nullPrim = new Uint8Array(PRIMITIVE_BUFFER_SIZE);
  switch (t.root) {
    case 'CHAR': case 'VARCHAR': case 'BINARY': case 'VARBINARY': {
      const nullVar = new Uint8Array(varTypeSize);
      return (v) => (v === null ? nullVar : truncateOrFill(bytesOf(v), varTypeSize));
    }
    case 'BOOLEAN':
      return (v) => {
        if (v === null) return nullPrim;
        const out = new Uint8Array(8);
        out[0] = v ? 0x81 : 0;
        return out;
      };
    case 'DECIMAL':
      return (v) => (v === null ? nullPrim : truncateOrFill(bigIntToByteArray((v as Decimal).unscaled), PRIMITIVE_BUFFER_SIZE));
    case 'TINYINT': case 'SMALLINT': case 'INT': case 'DATE': case 'TIME':
      return (v) => (v === null ? nullPrim : orderedInt(v as number));
    case 'BIGINT':
      return (v) => (v === null ? nullPrim : orderedLong(v as bigint));
    case 'FLOAT': case 'DOUBLE':
      return (v) => (v === null ? nullPrim : orderedDouble(v as number));
    case 'TIMESTAMP': case 'TIMESTAMP_LTZ':
      return (v) => (v === null ? nullPrim : orderedLong((v as Timestamp).millisecond));
    default:
      throw new PaimonError('INVALID_ARGUMENT', `zorder does not support type ${typeToString(t)}`);
  }
}

/** `ZOrderByteUtils.interleaveBits`: bit by bit, most significant first, skipping exhausted columns. */
export function interleaveBits(columns: readonly Uint8Array[], interleavedSize: number): Uint8Array {
  const out = new Uint8Array(interleavedSize);
  let sourceColumn = 0;
  let sourceByte = 0;
  let sourceBit = 7;
  let interleaveByte = 0;
  let interleaveBit = 7;
  while (interleaveByte < interleavedSize) {
    out[interleaveByte] |= ((columns[sourceColumn][sourceByte] >> sourceBit) & 1) << interleaveBit;
    --interleaveBit;
    if (interleaveBit === -1) {
      interleaveByte++;
      interleaveBit = 7;
    }
    if (interleaveByte === interleavedSize) break;
    do {
      ++sourceColumn;
      if (sourceColumn === columns.length) {
        sourceColumn = 0;
        --sourceBit;
        if (sourceBit === -1) {
          sourceByte++;
          sourceBit = 7;
        }
      }
    } while (columns[sourceColumn].length <= sourceByte);
  }
  return out;
}

export function zorderEncoder(fields: readonly DataFieldSpec[], orderBy: readonly string[], varTypeSize = PRIMITIVE_BUFFER_SIZE): SortKeyEncoder {
  if (!Number.isInteger(varTypeSize) || varTypeSize < 1) throw new PaimonError('INVALID_ARGUMENT', `zorder.var-length-contribution must be a positive integer, got ${varTypeSize}`);
  checkSortColumns('zorder', fields, orderBy);
  const idx = orderColumnIndexes(fields, orderBy);
  const fns = idx.map((i) => zColumn(fields[i].type, varTypeSize));
  const total = idx.reduce((s, i) => s + (isVarType(fields[i].type) ? varTypeSize : PRIMITIVE_BUFFER_SIZE), 0);
  return {
    strategy: 'zorder',
    key: (row) => interleaveBits(idx.map((i, k) => fns[k](row[i])), total),
  };
}

// ------------------------------------------------------------------------------------------
// hilbert
// ------------------------------------------------------------------------------------------

/** A Java long as its (hi, lo) uint32 halves. */
type Long64 = [number, number];

const LONG_MAX_HL: Long64 = [0x7fffffff, 0xffffffff];
const ZERO_HL: Long64 = [0, 0];

function bigToHL(v: bigint): Long64 {
  const u = BigInt.asUintN(64, v);
  return [Number(u >> 32n), Number(u & 0xffffffffn)];
}

function intToHL(v: number): Long64 {
  return [v < 0 ? 0xffffffff : 0, v >>> 0];
}

/** `ConvertBinaryUtil.convertBytesToLong`: first 8 bytes, or left-padded, big-endian. */
function bytesToHL(b: Uint8Array): Long64 {
  const p = new Uint8Array(8);
  if (b.length >= 8) p.set(b.subarray(0, 8));
  else p.set(b, 8 - b.length);
  return [((p[0] << 24) | (p[1] << 16) | (p[2] << 8) | p[3]) >>> 0, ((p[4] << 24) | (p[5] << 16) | (p[6] << 8) | p[7]) >>> 0];
}

type ColumnLong = (v: Datum) => Long64;

function hColumn(t: FieldType): ColumnLong {
  switch (t.root) {
    case 'CHAR': case 'VARCHAR': case 'BINARY': case 'VARBINARY':
      return (v) => (v === null ? LONG_MAX_HL : bytesToHL(bytesOf(v)));
    case 'BOOLEAN':
      return (v) => (v === null || v === true ? LONG_MAX_HL : ZERO_HL);
    case 'DECIMAL':
      return (v) => {
        if (v === null) return LONG_MAX_HL;
        const d = v as Decimal;
        // BigDecimal.longValue(): the integral part (truncated toward zero), low 64 bits.
        return bigToHL(d.scale >= 0 ? d.unscaled / 10n ** BigInt(d.scale) : d.unscaled * 10n ** BigInt(-d.scale));
      };
    case 'TINYINT':
      return (v) => (v === null ? LONG_MAX_HL : [0, (v as number) & 0xff]);
    case 'SMALLINT': case 'INT': case 'DATE': case 'TIME':
      return (v) => (v === null ? LONG_MAX_HL : intToHL(v as number));
    case 'BIGINT':
      return (v) => (v === null ? LONG_MAX_HL : bigToHL(v as bigint));
    case 'FLOAT': case 'DOUBLE':
      return (v) => (v === null ? LONG_MAX_HL : doubleBits(v as number));
    case 'TIMESTAMP': case 'TIMESTAMP_LTZ':
      return (v) => (v === null ? LONG_MAX_HL : bigToHL((v as Timestamp).millisecond));
    default:
      throw new PaimonError('INVALID_ARGUMENT', `hilbert does not support type ${typeToString(t)}`);
  }
}

// Masks of p = q - 1 for q = 1 << b, as (hi, lo) halves.
const MASK_HI = Array.from({ length: 64 }, (_, b) => (b > 32 ? ((1 << (b - 32)) - 1) >>> 0 : 0));
const MASK_LO = Array.from({ length: 64 }, (_, b) => (b >= 32 ? 0xffffffff : b === 0 ? 0 : 0xffffffff >>> (32 - b)));

/**
 * `HilbertCurve.bits(63).dimensions(n).index(point)` as the 63-bit transposed index, on
 * (hi, lo) halves of each coordinate's low 63 bits: hi = bits 62..32, lo = bits 31..0 (bit 63
 * never reaches the index).
 */
function transposedIndex(point: readonly Long64[]): { hi: Uint32Array; lo: Uint32Array } {
  const n = point.length;
  const hi = new Uint32Array(n);
  const lo = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    hi[i] = point[i][0] & 0x7fffffff;
    lo[i] = point[i][1];
  }
  // Inverse undo
  for (let b = HILBERT_BITS - 1; b >= 1; b--) {
    const ph = MASK_HI[b], pl = MASK_LO[b];
    for (let i = 0; i < n; i++) {
      const set = b >= 32 ? (hi[i] >>> (b - 32)) & 1 : (lo[i] >>> b) & 1;
      if (set) {
        hi[0] ^= ph;
        lo[0] ^= pl;
      } else {
        const th = (hi[0] ^ hi[i]) & ph;
        const tl = (lo[0] ^ lo[i]) & pl;
        hi[0] ^= th;
        lo[0] ^= tl;
        hi[i] ^= th;
        lo[i] ^= tl;
      }
    }
  }
  // Gray encode
  for (let i = 1; i < n; i++) {
    hi[i] ^= hi[i - 1];
    lo[i] ^= lo[i - 1];
  }
  let th = 0, tl = 0;
  for (let b = HILBERT_BITS - 1; b >= 1; b--) {
    const set = b >= 32 ? (hi[n - 1] >>> (b - 32)) & 1 : (lo[n - 1] >>> b) & 1;
    if (set) {
      th ^= MASK_HI[b];
      tl ^= MASK_LO[b];
    }
  }
  for (let i = 0; i < n; i++) {
    hi[i] ^= th;
    lo[i] ^= tl;
  }
  return { hi, lo };
}

/** The Hilbert index bytes as `HilbertIndexer.hilbertCurvePosBytes` returns them (63 bytes). */
export function hilbertIndexBytes(point: readonly bigint[]): Uint8Array {
  return hilbertIndexBytesHL(point.map(bigToHL));
}

function hilbertIndexBytesHL(point: readonly Long64[]): Uint8Array {
  const n = point.length;
  const { hi, lo } = transposedIndex(point);
  const totalBits = HILBERT_BITS * n;
  const nBytes = Math.ceil(totalBits / 8);
  const mag = new Uint8Array(nBytes);
  // Bit k (0 = most significant of the index) is bit (62 - floor(k / n)) of coordinate k % n.
  let pos = nBytes * 8 - totalBits; // leading pad bits
  for (let b = HILBERT_BITS - 1; b >= 0; b--) {
    for (let j = 0; j < n; j++, pos++) {
      const bit = b >= 32 ? (hi[j] >>> (b - 32)) & 1 : (lo[j] >>> b) & 1;
      if (bit) mag[pos >> 3] |= 0x80 >> (pos & 7);
    }
  }
  // BigInteger(1, mag).toByteArray(): strip leading zero bytes, keep one sign byte if needed.
  let start = 0;
  while (start < mag.length && mag[start] === 0) start++;
  let bytes: Uint8Array;
  if (start === mag.length) bytes = new Uint8Array(1);
  else if (mag[start] & 0x80) {
    bytes = new Uint8Array(mag.length - start + 1);
    bytes.set(mag.subarray(start), 1);
  } else bytes = mag.subarray(start);
  // ConvertBinaryUtil.paddingToNByte(bytes, 63)
  const N = HILBERT_BITS;
  if (bytes.length === N) return bytes.slice();
  if (bytes.length > N) return bytes.slice(0, N);
  const out = new Uint8Array(N);
  out.set(bytes, N - bytes.length);
  return out;
}

export function hilbertEncoder(fields: readonly DataFieldSpec[], orderBy: readonly string[]): SortKeyEncoder {
  checkSortColumns('hilbert', fields, orderBy);
  const idx = orderColumnIndexes(fields, orderBy);
  const fns = idx.map((i) => hColumn(fields[i].type));
  return {
    strategy: 'hilbert',
    key: (row) => hilbertIndexBytesHL(idx.map((i, k) => fns[k](row[i]))),
  };
}

// ------------------------------------------------------------------------------------------
// order (lexicographic, NULLS FIRST)
// ------------------------------------------------------------------------------------------

/** Appends memcmp-comparable bytes of one non-null value. */
type OrderPart = (v: Datum, out: number[]) => void;

function pushInt32(out: number[], v: number): void {
  const u = (v ^ 0x80000000) >>> 0;
  out.push(u >>> 24, (u >>> 16) & 0xff, (u >>> 8) & 0xff, u & 0xff);
}

function pushUint64(out: number[], u: bigint): void {
  for (let s = 56n; s >= 0n; s -= 8n) out.push(Number((u >> s) & 0xffn));
}

function pushEscaped(out: number[], b: Uint8Array): void {
  for (const x of b) {
    out.push(x);
    if (x === 0) out.push(0xff);
  }
  out.push(0, 0);
}

function orderPart(t: FieldType): OrderPart {
  switch (t.root) {
    case 'BOOLEAN':
      return (v, out) => void out.push(v ? 1 : 0);
    case 'TINYINT': case 'SMALLINT': case 'INT': case 'DATE': case 'TIME':
      return (v, out) => pushInt32(out, v as number);
    case 'BIGINT':
      return (v, out) => pushUint64(out, BigInt.asUintN(64, (v as bigint) ^ LONG_MIN));
    case 'FLOAT':
      // Float.compare: floatToIntBits order with negatives reversed.
      return (v, out) => {
        const bits = floatToIntBits(v as number);
        const u = bits & 0x80000000 ? ~bits >>> 0 : (bits ^ 0x80000000) >>> 0;
        out.push(u >>> 24, (u >>> 16) & 0xff, (u >>> 8) & 0xff, u & 0xff);
      };
    case 'DOUBLE':
      return (v, out) => {
        const bits = BigInt.asUintN(64, doubleToLongBits(v as number));
        pushUint64(out, bits & (1n << 63n) ? BigInt.asUintN(64, ~bits) : bits ^ (1n << 63n));
      };
    case 'CHAR': case 'VARCHAR': case 'BINARY': case 'VARBINARY':
      return (v, out) => pushEscaped(out, bytesOf(v));
    case 'DECIMAL': {
      const scale = t.scale ?? 0;
      return (v, out) => {
        const d = v as Decimal;
        // Same-scale values compare by unscaled value; rescale defensively.
        const u = d.scale === scale ? d.unscaled : d.scale < scale ? d.unscaled * 10n ** BigInt(scale - d.scale) : d.unscaled / 10n ** BigInt(d.scale - scale);
        const w = BigInt.asUintN(128, u ^ -(1n << 127n));
        pushUint64(out, w >> 64n);
        pushUint64(out, w & MASK64);
      };
    }
    case 'TIMESTAMP': case 'TIMESTAMP_LTZ':
      return (v, out) => {
        const ts = v as Timestamp;
        pushUint64(out, BigInt.asUintN(64, ts.millisecond ^ LONG_MIN));
        pushInt32(out, ts.nanoOfMillisecond ^ 0x80000000);
      };
    default:
      throw new PaimonError('INVALID_ARGUMENT', `order does not support type ${typeToString(t)}`);
  }
}

export function orderEncoder(fields: readonly DataFieldSpec[], orderBy: readonly string[]): SortKeyEncoder {
  checkSortColumns('order', fields, orderBy);
  const idx = orderColumnIndexes(fields, orderBy);
  const parts = idx.map((i) => orderPart(fields[i].type));
  return {
    strategy: 'order',
    key: (row) => {
      const out: number[] = [];
      for (let k = 0; k < idx.length; k++) {
        const v = row[idx[k]];
        if (v === null || v === undefined) out.push(0);
        else {
          out.push(1);
          parts[k](v, out);
        }
      }
      return Uint8Array.from(out);
    },
  };
}

export function sortKeyEncoder(
  strategy: SortStrategy,
  fields: readonly DataFieldSpec[],
  orderBy: readonly string[],
  options: Readonly<Record<string, string>> = {},
): SortKeyEncoder {
  switch (strategy) {
    case 'order':
      return orderEncoder(fields, orderBy);
    case 'zorder':
      return zorderEncoder(fields, orderBy, Number(options['zorder.var-length-contribution'] ?? PRIMITIVE_BUFFER_SIZE));
    case 'hilbert':
      return hilbertEncoder(fields, orderBy);
  }
}

/** Unsigned lexicographic comparison (`SortUtil.compareBinary`). */
export function compareKeys(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}
