/**
 * Avro object container files as Paimon writes its metadata (`ObjectsFile` over `AvroFileFormat`):
 * header (magic `Obj\x01`, metadata map with `avro.schema` and `avro.codec`, 16-byte sync marker),
 * then blocks of (record count, byte size, data, sync). Records are encoded and decoded with avsc;
 * this module owns only the container framing and the block codecs, so that a file held in memory
 * can be decoded block by block without streams.
 *
 * Codecs: `null`, `deflate` (raw deflate), `zstandard` (Paimon's default: `manifest.compression`
 * = zstd, level 1; decoded with fzstd, encoded with the zstd WebAssembly build because Node 20 has no
 * zstd) and `snappy` (raw snappy + CRC32 of the uncompressed block; decoded here, and written as
 * a literal-only snappy stream).
 */
import { randomBytes } from 'node:crypto';
import { crc32, deflateRawSync, inflateRawSync } from 'node:zlib';
import type avro from 'avsc';
import { decompress as zstdDecompress } from 'fzstd';
import { init as zstdInit, compress as zstdCompress, decompress as zstdWasmDecompress } from '@bokuweb/zstd-wasm';
import { PaimonError } from '../errors.js';
import { avroType, type AvroSchema } from './avro-schemas.js';
import { VarintReader, varLongBytes } from './varint.js';

const MAGIC = Buffer.from([0x4f, 0x62, 0x6a, 0x01]);
/** Java `DataFileConstants.DEFAULT_SYNC_INTERVAL`: a block is closed once its data passes this. */
export const DEFAULT_SYNC_INTERVAL = 64000;

export type AvroCodec = 'null' | 'deflate' | 'zstandard' | 'snappy';

/**
 * The Avro codec for a Paimon compression name (`AvroFileFormat.createCodecFactory`): `zstd` maps
 * to `zstandard`; other names go through Avro's `CodecFactory.fromString`.
 */
export function avroCodecFor(compression: string | undefined): AvroCodec {
  const c = (compression ?? 'zstd').toLowerCase();
  if (c === 'zstd' || c === 'zstandard') return 'zstandard';
  if (c === 'null' || c === 'none' || c === 'uncompressed') return 'null';
  if (c === 'deflate') return 'deflate';
  if (c === 'snappy') return 'snappy';
  throw new PaimonError('UNSUPPORTED_FORMAT', `unsupported Avro codec for metadata files: '${compression}'`);
}

let zstdReady: Promise<void> | null = null;
/** True once the zstd WebAssembly module is instantiated (it then also decodes: ~3x fzstd's speed). */
let zstdWasmLoaded = false;
function ensureZstd(): Promise<void> {
  zstdReady ??= zstdInit().then(() => {
    zstdWasmLoaded = true;
  });
  return zstdReady;
}

/**
 * Loads the zstd WebAssembly module so that block decoding can use it; readers of metadata files
 * await this once before decoding (decoding itself is synchronous). Without it (or if loading
 * fails) blocks are decoded with fzstd, with the same result.
 */
export async function prepareCodecs(): Promise<void> {
  if (zstdWasmLoaded) return;
  try {
    await ensureZstd();
  } catch {
    // fzstd decodes everything the WebAssembly build does.
  }
}

/** Largest declared frame content size handed to the WebAssembly decoder (it allocates that much). */
const WASM_MAX_CONTENT = 16 << 20;

/**
 * Whether the block is one the WebAssembly decoder may take: it starts with a zstd frame header
 * whose declared content size, if any, is at most WASM_MAX_CONTENT (the wrapper allocates the
 * declared size up front; a corrupt header must not make it try gigabytes).
 */
function wasmCanDecode(data: Buffer): boolean {
  if (data.length < 6 || data.readUInt32LE(0) !== 0xfd2fb528) return false;
  const fhd = data[4];
  const fcsFlag = fhd >> 6;
  const single = (fhd & 0x20) !== 0;
  const dictBytes = [0, 1, 2, 4][fhd & 3];
  const fcsBytes = fcsFlag === 0 ? (single ? 1 : 0) : [0, 2, 4, 8][fcsFlag];
  if (fcsBytes === 0) return true; // unknown size: the wrapper uses the capacity we pass
  const at = 5 + (single ? 0 : 1) + dictBytes;
  if (data.length < at + fcsBytes) return false;
  switch (fcsBytes) {
    case 1:
      return true;
    case 2:
      return data.readUInt16LE(at) + 256 <= WASM_MAX_CONTENT;
    case 4:
      return data.readUInt32LE(at) <= WASM_MAX_CONTENT;
    default:
      return data.readUInt32LE(at + 4) === 0 && data.readUInt32LE(at) <= WASM_MAX_CONTENT;
  }
}

/**
 * A zstd frame decoded by the WebAssembly build when it is loaded, else by fzstd. Frames written by
 * Java's streaming encoder do not record their content size, so the output capacity is a bound
 * (Avro blocks hold about 64 KB); a frame that does not fit, or any error, goes to fzstd, which
 * grows its output and reports corrupt input as before.
 */
export function zstdDecode(data: Buffer): Buffer {
  if (zstdWasmLoaded && wasmCanDecode(data)) {
    try {
      const out = zstdWasmDecompress(data, { defaultHeapSize: Math.min(WASM_MAX_CONTENT, Math.max(1 << 20, data.length * 64)) });
      return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
    } catch {
      // fall through to fzstd
    }
  }
  const out = zstdDecompress(data);
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}

// ---------------------------------------------------------------- varints (Avro zig-zag longs)

/** Container-level varints (counts, sizes, lengths): at most 10 bytes, as Java's `BinaryDecoder`. */
class ContainerVarints extends VarintReader {
  start = 0;

  protected override truncated(): PaimonError {
    // The read went on past the first eleven bytes: those already make an invalid varint.
    if (this.start + 10 < this.buf.length) return invalidVarint();
    return new PaimonError('CORRUPT_METADATA', 'truncated Avro container (varint)');
  }
}

const NO_BYTES = Buffer.alloc(0);
const CONTAINER_VARINTS = new ContainerVarints(NO_BYTES);

function invalidVarint(): PaimonError {
  return new PaimonError('CORRUPT_METADATA', 'invalid Avro varint');
}

function readLong(buf: Buffer, pos: { p: number }): number {
  const r = CONTAINER_VARINTS;
  r.buf = buf;
  r.pos = r.start = pos.p;
  try {
    const v = r.int();
    if (r.pos - r.start > 10) throw invalidVarint();
    pos.p = r.pos;
    return v;
  } finally {
    r.buf = NO_BYTES; // the cursor keeps no file alive
  }
}

// ---------------------------------------------------------------- snappy (decode, and literal-only encode)

export function snappyDecompress(src: Buffer): Buffer {
  const pos = { p: 0 };
  let len = 0;
  let shift = 1;
  for (;;) {
    const b = src[pos.p++];
    len += (b & 0x7f) * shift;
    shift *= 128;
    if (!(b & 0x80)) break;
  }
  const out = Buffer.alloc(len);
  let o = 0;
  while (pos.p < src.length) {
    const tag = src[pos.p++];
    const kind = tag & 3;
    if (kind === 0) {
      let l = tag >> 2;
      if (l >= 60) {
        const nb = l - 59;
        l = 0;
        for (let i = 0; i < nb; i++) l |= src[pos.p++] << (8 * i);
      }
      l += 1;
      src.copy(out, o, pos.p, pos.p + l);
      pos.p += l;
      o += l;
      continue;
    }
    let l: number;
    let off: number;
    if (kind === 1) {
      l = ((tag >> 2) & 7) + 4;
      off = ((tag >> 5) << 8) | src[pos.p++];
    } else if (kind === 2) {
      l = (tag >> 2) + 1;
      off = src.readUInt16LE(pos.p);
      pos.p += 2;
    } else {
      l = (tag >> 2) + 1;
      off = src.readUInt32LE(pos.p);
      pos.p += 4;
    }
    if (off === 0 || off > o) throw new PaimonError('CORRUPT_METADATA', 'invalid snappy copy offset');
    for (let i = 0; i < l; i++, o++) out[o] = out[o - off];
  }
  if (o !== len) throw new PaimonError('CORRUPT_METADATA', 'snappy block length mismatch');
  return out;
}

/**
 * A valid snappy stream that stores the input as literals (no matching): readers decode it like
 * any snappy block. Metadata files are small, so honouring the codec matters more than its ratio.
 */
export function snappyLiteral(src: Buffer): Buffer {
  const head: number[] = [];
  let n = src.length;
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    head.push(b);
  } while (n > 0);
  const parts: Buffer[] = [Buffer.from(head)];
  for (let off = 0; off < src.length; off += 65536) {
    const chunk = src.subarray(off, Math.min(src.length, off + 65536));
    const l = chunk.length - 1;
    parts.push(l < 60 ? Buffer.from([l << 2]) : l < 256 ? Buffer.from([60 << 2, l]) : Buffer.from([61 << 2, l & 0xff, l >> 8]), chunk);
  }
  return Buffer.concat(parts);
}

// ---------------------------------------------------------------- block codecs

function decodeBlock(codec: string, data: Buffer): Buffer {
  switch (codec) {
    case 'null':
      return data;
    case 'deflate':
      return inflateRawSync(data);
    case 'zstandard':
      return zstdDecode(data);
    case 'snappy': {
      // Avro appends a 4-byte CRC32 (big-endian) of the uncompressed data.
      const out = snappyDecompress(data.subarray(0, data.length - 4));
      if ((crc32(out) >>> 0) !== data.readUInt32BE(data.length - 4)) throw new PaimonError('CORRUPT_METADATA', 'snappy block checksum mismatch');
      return out;
    }
    default:
      throw new PaimonError('UNSUPPORTED_FORMAT', `Avro codec '${codec}' is not supported for metadata files`);
  }
}

async function encodeBlock(codec: AvroCodec, data: Buffer, zstdLevel: number): Promise<Buffer> {
  switch (codec) {
    case 'null':
      return data;
    case 'deflate':
      return deflateRawSync(data);
    case 'snappy': {
      // Avro's SnappyCodec: the snappy block followed by the CRC32 of the uncompressed data (BE).
      const crc = Buffer.alloc(4);
      crc.writeUInt32BE(crc32(data) >>> 0);
      return Buffer.concat([snappyLiteral(data), crc]);
    }
    case 'zstandard': {
      await ensureZstd();
      const out = zstdCompress(data, zstdLevel);
      return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
    }
    default:
      throw new PaimonError('UNSUPPORTED_FORMAT', `Avro codec '${codec}' cannot be written`);
  }
}

// ---------------------------------------------------------------- reading

export interface ObjectsFileHeader {
  schema: string;
  codec: string;
  sync: Buffer;
  /** Offset of the first block. */
  dataStart: number;
}

const HEADER_META_KEY_DECODER = new TextDecoder();

export function readHeader(buf: Buffer, what: string): ObjectsFileHeader {
  if (buf.length < 4 + 1 + 16 || !buf.subarray(0, 4).equals(MAGIC)) {
    throw new PaimonError('CORRUPT_METADATA', `${what} is not an Avro object container file`);
  }
  const pos = { p: 4 };
  const meta = new Map<string, Buffer>();
  for (;;) {
    let count = readLong(buf, pos);
    if (count === 0) break;
    if (count < 0) {
      count = -count;
      readLong(buf, pos); // block byte size
    }
    for (let i = 0; i < count; i++) {
      const kl = readLong(buf, pos);
      const key = HEADER_META_KEY_DECODER.decode(buf.subarray(pos.p, pos.p + kl));
      pos.p += kl;
      const vl = readLong(buf, pos);
      meta.set(key, buf.subarray(pos.p, pos.p + vl));
      pos.p += vl;
    }
  }
  const sync = Buffer.from(buf.subarray(pos.p, pos.p + 16));
  pos.p += 16;
  const schema = meta.get('avro.schema');
  if (!schema) throw new PaimonError('CORRUPT_METADATA', `${what} has no avro.schema in its header`);
  return { schema: schema.toString('utf8'), codec: meta.get('avro.codec')?.toString('utf8') ?? 'null', sync, dataStart: pos.p };
}

/**
 * Decodes every record of a container file held in memory, block by block (one block decompressed
 * at a time), with the file's own writer schema. Records are plain objects keyed by field name.
 */
export function* readObjectsFile(buf: Buffer, what: string): Generator<Record<string, unknown>> {
  const header = readHeader(buf, what);
  const type = avroType(header.schema);
  for (const block of readBlocks(buf, what, header)) {
    let off = 0;
    for (let i = 0; i < block.count; i++) {
      const r = type.decode(block.data, off);
      if (r.offset < 0) throw new PaimonError('CORRUPT_METADATA', `${what}: truncated Avro record`);
      off = r.offset;
      yield r.value as Record<string, unknown>;
    }
  }
}

/** The blocks of a container file, decompressed: record count and the concatenated record bytes. */
export function* readBlocks(buf: Buffer, what: string, header: ObjectsFileHeader = readHeader(buf, what)): Generator<{ count: number; data: Buffer }> {
  const pos = { p: header.dataStart };
  while (pos.p < buf.length) {
    const count = readLong(buf, pos);
    const size = readLong(buf, pos);
    if (count < 0 || size < 0 || pos.p + size + 16 > buf.length) {
      throw new PaimonError('CORRUPT_METADATA', `${what}: truncated Avro block at offset ${pos.p}`);
    }
    const data = decodeBlock(header.codec, buf.subarray(pos.p, pos.p + size));
    pos.p += size;
    if (!buf.subarray(pos.p, pos.p + 16).equals(header.sync)) {
      throw new PaimonError('CORRUPT_METADATA', `${what}: Avro sync marker mismatch at offset ${pos.p}`);
    }
    pos.p += 16;
    yield { count, data };
  }
}

// ---------------------------------------------------------------- writing

export interface WriteOptions {
  codec?: AvroCodec;
  /** `file.compression.zstd-level`, default 1. */
  zstdLevel?: number;
  syncInterval?: number;
  /** Fixed sync marker (tests); random otherwise, as Java's DataFileWriter. */
  syncMarker?: Buffer;
}

/** Encodes records into a complete Avro container file. A file with no records has a header only. */
export async function encodeObjectsFile(
  schema: AvroSchema,
  records: Iterable<object>,
  options: WriteOptions = {},
): Promise<Buffer> {
  const type: avro.Type = avroType(schema);
  const codec = options.codec ?? 'zstandard';
  const level = options.zstdLevel ?? 1;
  const syncInterval = options.syncInterval ?? DEFAULT_SYNC_INTERVAL;
  const sync = options.syncMarker ?? randomBytes(16);
  const schemaJson = typeof schema === 'string' ? schema : JSON.stringify(schema);

  const parts: Buffer[] = [MAGIC, varLongBytes(2)];
  for (const [k, v] of [
    ['avro.schema', Buffer.from(schemaJson, 'utf8')],
    ['avro.codec', Buffer.from(codec, 'utf8')],
  ] as const) {
    const kb = Buffer.from(k, 'utf8');
    parts.push(varLongBytes(kb.length), kb, varLongBytes(v.length), v);
  }
  parts.push(varLongBytes(0), sync);

  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let pendingCount = 0;
  const flush = async (): Promise<void> => {
    if (pendingCount === 0) return;
    const data = await encodeBlock(codec, Buffer.concat(pending, pendingBytes), level);
    parts.push(varLongBytes(pendingCount), varLongBytes(data.length), data, sync);
    pending = [];
    pendingBytes = 0;
    pendingCount = 0;
  };
  for (const rec of records) {
    let encoded: Buffer;
    try {
      encoded = type.toBuffer(rec);
    } catch (e) {
      throw new PaimonError('INVALID_ARGUMENT', `record does not match its Avro schema: ${(e as Error).message}`, { cause: e });
    }
    pending.push(encoded);
    pendingBytes += encoded.length;
    pendingCount++;
    if (pendingBytes >= syncInterval) await flush();
  }
  await flush();
  return Buffer.concat(parts);
}

// ---------------------------------------------------------------- binary layout of a schema

const PRIMITIVES = new Set(['null', 'boolean', 'int', 'long', 'float', 'double', 'bytes', 'string']);

function layoutOf(s: unknown): unknown {
  if (typeof s === 'string') return s;
  if (Array.isArray(s)) return { union: s.map(layoutOf) };
  if (typeof s !== 'object' || s === null) return { invalid: String(s) };
  const o = s as Record<string, unknown>;
  const t = o.type;
  if (typeof t === 'string' && PRIMITIVES.has(t)) return t; // logical types share their primitive's bytes
  if (t === 'record' || t === 'error') {
    const fields = Array.isArray(o.fields) ? o.fields : [];
    return { record: fields.map((f) => [(f as { name?: unknown }).name, layoutOf((f as { type?: unknown }).type)]) };
  }
  if (t === 'array') return { array: layoutOf(o.items) };
  if (t === 'map') return { map: layoutOf(o.values) };
  if (t === 'enum') return { enum: o.symbols };
  if (t === 'fixed') return { fixed: o.size };
  return { other: layoutOf(t) };
}

const layoutCache = new Map<string, string>();

/**
 * A key that is equal for two Avro schemas exactly when their records are encoded alike and
 * decode to the same field names and values: field names and order, types, union branches in
 * order; record names, namespaces, docs, defaults and logical-type annotations (which do not
 * change the bytes of a long) are left out. Named-type references (a record used twice by name)
 * give a different key, so such schemas simply never match a fixed layout.
 */
export function avroLayoutKey(schema: AvroSchema): string {
  const text = typeof schema === 'string' ? schema : JSON.stringify(schema);
  let key = layoutCache.get(text);
  if (key === undefined) {
    let parsed: unknown;
    try {
      parsed = typeof schema === 'string' ? JSON.parse(schema) : schema;
    } catch {
      parsed = { unparsable: text };
    }
    key = JSON.stringify(layoutOf(parsed));
    if (layoutCache.size > 64) layoutCache.clear();
    layoutCache.set(text, key);
  }
  return key;
}
