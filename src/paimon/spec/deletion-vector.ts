/**
 * Deletion vectors (`DeletionVector`, `BitmapDeletionVector`, `Bitmap64DeletionVector`): the
 * row positions of one data file that are deleted, as Paimon serializes them inside a
 * deletion-vector index file.
 *
 * A serialized deletion vector (a "blob") is one of
 *  - V1 (`BitmapDeletionVector`, magic 1581511376): int32 BE size, then `size` bytes = int32 BE
 *    magic + a 32-bit RoaringBitmap in the portable format, then int32 BE CRC32 of those `size`
 *    bytes. The index file's `DeletionVectorMeta.length` is `size` (the offset points at the
 *    size field);
 *  - V2 (`Bitmap64DeletionVector`, `deletion-vectors.bitmap64`, magic 1681511377 written
 *    little-endian): int32 BE size, then `size` bytes = the magic (LE) + a 64-bit bitmap
 *    (`OptimizedRoaringBitmap64`: int64 LE count of 32-bit bitmaps, then per bitmap an int32 LE
 *    key (the high 32 bits, ascending) and a portable 32-bit RoaringBitmap), then int32 BE CRC32
 *    of those `size` bytes. `DeletionVectorMeta.length` is the whole blob (`size` + 8).
 *
 * The portable RoaringBitmap format (RoaringFormatSpec): a LE cookie (12346 = no run containers,
 * followed by an int32 container count; or 12347 in the low 16 bits with count - 1 in the high
 * 16 bits, followed by the run-container bitset), the descriptive header (per container: LE
 * uint16 key = high 16 bits, LE uint16 cardinality - 1), the offset header (int32 per container,
 * absent when runs are present and there are fewer than 4 containers), then the containers: run
 * (uint16 run count, then (start, length - 1) pairs), array (cardinality <= 4096 sorted uint16)
 * or bitmap (8192 bytes, bit i = value i).
 *
 * A small decoder of that documented format is used instead of the `roaring` npm package: that
 * package is a native CRoaring addon whose install needs prebuilt binaries from GitHub (offline
 * here) or a node-gyp toolchain, for the few kilobytes of reading this proxy does. Blobs of
 * deletion vectors that are kept are copied verbatim into new index files (no re-encoding).
 */
import { crc32 } from 'node:zlib';
import { PaimonError } from '../errors.js';

export const BITMAP_DV_MAGIC = 1581511376;
export const BITMAP64_DV_MAGIC = 1681511377;
/** First byte of a deletion-vector index file (`DeletionVectorsIndexFile.VERSION_ID_V1`). */
export const DV_INDEX_FILE_VERSION = 1;

const SERIAL_COOKIE_NO_RUNCONTAINER = 12346;
const SERIAL_COOKIE = 12347;
const NO_OFFSET_THRESHOLD = 4;
const ARRAY_MAX = 4096;

type Container =
  | { kind: 'array'; values: Uint16Array }
  | { kind: 'bitmap'; bits: Uint8Array; cardinality: number }
  | { kind: 'run'; starts: Uint16Array; lengths: Uint16Array; cardinality: number };

function corrupt(what: string, why: string): never {
  throw new PaimonError('CORRUPT_METADATA', `${what}: ${why}`);
}

/** A 32-bit RoaringBitmap read from the portable serialization (read-only). */
export class RoaringBitmap32 {
  private constructor(
    private readonly keys: Uint16Array,
    private readonly containers: Container[],
  ) {}

  static readonly EMPTY = new RoaringBitmap32(new Uint16Array(0), []);

  /** Decodes one bitmap at `offset`; `size` is the number of bytes it used. */
  static deserialize(buf: Uint8Array, offset = 0, what = 'roaring bitmap'): { bitmap: RoaringBitmap32; size: number } {
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    let p = offset;
    const need = (n: number): void => {
      if (p + n > buf.byteLength) corrupt(what, `truncated at byte ${p - offset} (needs ${n} more)`);
    };
    need(4);
    const cookie = view.getUint32(p, true);
    p += 4;
    let size: number;
    let runFlags: Uint8Array | null = null;
    if ((cookie & 0xffff) === SERIAL_COOKIE) {
      size = (cookie >>> 16) + 1;
      const n = (size + 7) >>> 3;
      need(n);
      runFlags = buf.subarray(p, p + n);
      p += n;
    } else if (cookie === SERIAL_COOKIE_NO_RUNCONTAINER) {
      need(4);
      size = view.getUint32(p, true);
      p += 4;
    } else {
      corrupt(what, `unknown cookie ${cookie}`);
    }
    if (size > 65536) corrupt(what, `${size} containers (at most 65536)`);
    need(size * 4);
    const keys = new Uint16Array(size);
    const cards = new Uint32Array(size);
    for (let i = 0; i < size; i++) {
      keys[i] = view.getUint16(p, true);
      cards[i] = view.getUint16(p + 2, true) + 1;
      p += 4;
      if (i > 0 && keys[i] <= keys[i - 1]) corrupt(what, 'container keys are not ascending');
    }
    const isRun = (i: number): boolean => runFlags !== null && (runFlags[i >>> 3] & (1 << (i & 7))) !== 0;
    if (runFlags === null || size >= NO_OFFSET_THRESHOLD) {
      need(size * 4);
      p += size * 4; // offsets: the containers are read in order
    }
    const containers: Container[] = new Array(size);
    for (let i = 0; i < size; i++) {
      if (isRun(i)) {
        need(2);
        const n = view.getUint16(p, true);
        p += 2;
        need(n * 4);
        const starts = new Uint16Array(n);
        const lengths = new Uint16Array(n);
        let card = 0;
        for (let r = 0; r < n; r++) {
          starts[r] = view.getUint16(p, true);
          lengths[r] = view.getUint16(p + 2, true);
          p += 4;
          if (starts[r] + lengths[r] > 0xffff) corrupt(what, 'a run goes past its container');
          if (r > 0 && starts[r] <= starts[r - 1] + lengths[r - 1]) corrupt(what, 'runs overlap or are not ascending');
          card += lengths[r] + 1;
        }
        containers[i] = { kind: 'run', starts, lengths, cardinality: card };
      } else if (cards[i] <= ARRAY_MAX) {
        const n = cards[i];
        need(n * 2);
        const values = new Uint16Array(n);
        for (let k = 0; k < n; k++) {
          values[k] = view.getUint16(p, true);
          p += 2;
          if (k > 0 && values[k] <= values[k - 1]) corrupt(what, 'array container values are not ascending');
        }
        containers[i] = { kind: 'array', values };
      } else {
        need(8192);
        const bits = Uint8Array.from(buf.subarray(p, p + 8192));
        p += 8192;
        let card = 0;
        for (let b = 0; b < 8192; b++) card += POPCOUNT[bits[b]];
        if (card !== cards[i]) corrupt(what, `bitmap container holds ${card} values, header says ${cards[i]}`);
        containers[i] = { kind: 'bitmap', bits, cardinality: card };
      }
    }
    return { bitmap: new RoaringBitmap32(keys, containers), size: p - offset };
  }

  get cardinality(): number {
    let n = 0;
    for (const c of this.containers) n += c.kind === 'array' ? c.values.length : c.cardinality;
    return n;
  }

  isEmpty(): boolean {
    return this.containers.length === 0 || this.cardinality === 0;
  }

  /** Whether the unsigned 32-bit value is in the set. */
  contains(value: number): boolean {
    if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) return false;
    const hi = value >>> 16;
    const lo = value & 0xffff;
    const i = searchU16(this.keys, hi);
    if (i < 0) return false;
    const c = this.containers[i];
    if (c.kind === 'array') return searchU16(c.values, lo) >= 0;
    if (c.kind === 'bitmap') return (c.bits[lo >>> 3] & (1 << (lo & 7))) !== 0;
    // run: the last run starting at or before lo
    let l = 0, h = c.starts.length - 1, at = -1;
    while (l <= h) {
      const m = (l + h) >>> 1;
      if (c.starts[m] <= lo) {
        at = m;
        l = m + 1;
      } else h = m - 1;
    }
    return at >= 0 && lo <= c.starts[at] + c.lengths[at];
  }

  /** The values in ascending order. */
  *values(): Generator<number> {
    for (let i = 0; i < this.keys.length; i++) {
      const base = this.keys[i] * 65536;
      const c = this.containers[i];
      if (c.kind === 'array') for (const v of c.values) yield base + v;
      else if (c.kind === 'bitmap') {
        for (let b = 0; b < 8192; b++) {
          const byte = c.bits[b];
          if (byte === 0) continue;
          for (let k = 0; k < 8; k++) if (byte & (1 << k)) yield base + b * 8 + k;
        }
      } else {
        for (let r = 0; r < c.starts.length; r++) for (let v = c.starts[r]; v <= c.starts[r] + c.lengths[r]; v++) yield base + v;
      }
    }
  }
}

const POPCOUNT = (() => {
  const t = new Uint8Array(256);
  for (let i = 1; i < 256; i++) t[i] = (i & 1) + t[i >>> 1];
  return t;
})();

function searchU16(a: Uint16Array, v: number): number {
  let l = 0, h = a.length - 1;
  while (l <= h) {
    const m = (l + h) >>> 1;
    if (a[m] === v) return m;
    if (a[m] < v) l = m + 1;
    else h = m - 1;
  }
  return -1;
}

/** Paimon's `OptimizedRoaringBitmap64` read from its portable serialization (LE). */
export class RoaringBitmap64 {
  private constructor(private readonly parts: ReadonlyArray<{ key: number; bitmap: RoaringBitmap32 }>) {}

  static deserialize(buf: Uint8Array, offset = 0, what = 'roaring bitmap64'): { bitmap: RoaringBitmap64; size: number } {
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    if (offset + 8 > buf.byteLength) corrupt(what, 'truncated bitmap count');
    const count = view.getBigInt64(offset, true);
    if (count < 0n || count > 0x7fffffffn) corrupt(what, `invalid bitmap count ${count}`);
    let p = offset + 8;
    const parts: Array<{ key: number; bitmap: RoaringBitmap32 }> = [];
    let last = -1;
    for (let i = 0; i < Number(count); i++) {
      if (p + 4 > buf.byteLength) corrupt(what, 'truncated key');
      const key = view.getInt32(p, true);
      p += 4;
      if (key < 0 || key > 0x7ffffffe) corrupt(what, `invalid key ${key}`);
      if (key <= last) corrupt(what, 'keys must be sorted in ascending order');
      last = key;
      const { bitmap, size } = RoaringBitmap32.deserialize(buf, p, what);
      p += size;
      parts.push({ key, bitmap });
    }
    return { bitmap: new RoaringBitmap64(parts), size: p - offset };
  }

  get cardinality(): number {
    return this.parts.reduce((n, x) => n + x.bitmap.cardinality, 0);
  }

  contains(position: number): boolean {
    if (!Number.isSafeInteger(position) || position < 0) return false;
    const key = Math.floor(position / 4294967296);
    const low = position % 4294967296;
    for (const x of this.parts) if (x.key === key) return x.bitmap.contains(low);
    return false;
  }

  *values(): Generator<number> {
    for (const x of this.parts) for (const v of x.bitmap.values()) yield x.key * 4294967296 + v;
  }
}

/** One data file's deleted row positions. */
export interface DeletionVector {
  /** V2 (`Bitmap64DeletionVector`) or V1 (`BitmapDeletionVector`). */
  readonly bitmap64: boolean;
  /** Number of deleted positions. */
  readonly cardinality: number;
  isDeleted(position: number): boolean;
  /** Deleted positions, ascending. */
  positions(): Iterable<number>;
}

export interface DeletionVectorBlob {
  dv: DeletionVector;
  /** The serialized vector exactly as stored (size field, magic, bitmap, CRC): copy it verbatim. */
  blob: Buffer;
  /** The `DeletionVectorMeta.length` this blob has in an index file. */
  metaLength: number;
}

/**
 * Reads the deletion vector stored at `offset` of `buf` (an index file's bytes, or one blob).
 * `expectedLength` is the index entry's `DeletionVectorMeta.length` (checked when given).
 */
export function readDeletionVector(buf: Buffer, offset: number, expectedLength: number | null, what = 'deletion vector'): DeletionVectorBlob {
  if (offset < 0 || offset + 8 > buf.length) corrupt(what, `offset ${offset} is outside the ${buf.length}-byte index file`);
  const size = buf.readInt32BE(offset);
  const magicBE = buf.readInt32BE(offset + 4);
  const magicLE = buf.readInt32LE(offset + 4);
  let bitmap64: boolean;
  if (magicBE === BITMAP_DV_MAGIC) {
    bitmap64 = false;
    if (expectedLength !== null && size !== expectedLength) corrupt(what, `size ${size} does not match the index entry's length ${expectedLength}`);
  } else if (magicLE === BITMAP64_DV_MAGIC) {
    bitmap64 = true;
    if (expectedLength !== null && size !== expectedLength - 8) corrupt(what, `size ${size} does not match the index entry's length ${expectedLength} - 8`);
  } else {
    corrupt(what, `invalid magic number ${magicBE} (V1 deletion vectors have ${BITMAP_DV_MAGIC}, V2 ${BITMAP64_DV_MAGIC} little-endian)`);
  }
  if (size < 4 || offset + 4 + size + 4 > buf.length) corrupt(what, `size ${size} runs past the end of the index file`);
  const data = buf.subarray(offset + 4, offset + 4 + size);
  const stored = buf.readUInt32BE(offset + 4 + size);
  const actual = crc32(data) >>> 0;
  if (stored !== actual) corrupt(what, `CRC32 mismatch (stored ${stored}, computed ${actual})`);
  const blob = Buffer.from(buf.subarray(offset, offset + 4 + size + 4));
  let dv: DeletionVector;
  if (!bitmap64) {
    const { bitmap, size: used } = RoaringBitmap32.deserialize(data, 4, what);
    if (used !== size - 4) corrupt(what, `bitmap uses ${used} of ${size - 4} bytes`);
    dv = {
      bitmap64: false,
      cardinality: bitmap.cardinality,
      isDeleted: (p) => bitmap.contains(p),
      positions: () => bitmap.values(),
    };
  } else {
    const { bitmap, size: used } = RoaringBitmap64.deserialize(data, 4, what);
    if (used !== size - 4) corrupt(what, `bitmap uses ${used} of ${size - 4} bytes`);
    dv = {
      bitmap64: true,
      cardinality: bitmap.cardinality,
      isDeleted: (p) => bitmap.contains(p),
      positions: () => bitmap.values(),
    };
  }
  return { dv, blob, metaLength: bitmap64 ? blob.length : size };
}
