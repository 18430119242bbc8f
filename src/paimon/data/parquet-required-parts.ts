/**
 * Turns OPTIONAL leaf columns of a finished Parquet file that never hold a null of their own into
 * REQUIRED ones, as Paimon Java writes the two parts of an unshredded VARIANT (see
 * variant-parquet.ts; DuckDB writes every column OPTIONAL and has no way to say otherwise).
 *
 * A pure rewrite over the file's bytes, in the Parquet format's terms (parquet-format's
 * `parquet.thrift`, `Encodings.md`):
 * - the leaf's `SchemaElement.repetition_type` becomes REQUIRED, so its maximum definition level
 *   drops by one;
 * - in each of its data pages the definition levels are re-encoded for that level: "the leaf is
 *   present" (the old maximum) becomes the new maximum, levels below "the leaf's parent is present"
 *   stay, and "parent present, leaf null" cannot be written any more, so it is refused. The
 *   levels sit inside the compressed body of a v1 page, which is decompressed and compressed again
 *   with the column chunk's codec (v2 data pages, which DuckDB does not write, are refused);
 * - the values, dictionary pages, statistics (the null counts stay true: a leaf null only where an
 *   ancestor is) and bloom filters are copied byte for byte; page headers, column-chunk and
 *   row-group sizes, and every offset that moves (pages, dictionary, bloom filter, page index) are
 *   updated, as are level histograms (`SizeStatistics`, `ColumnIndex`) and offset indexes.
 */
import { brotliCompressSync, brotliDecompressSync, crc32, gunzipSync, gzipSync } from 'node:zlib';
import { compress as zstdCompress } from '@bokuweb/zstd-wasm';
import { PaimonError } from '../errors.js';
import { prepareCodecs, snappyDecompress, snappyLiteral, zstdDecode } from '../spec/objects-file.js';
import {
  T, decodeStruct, encodeStruct, getBinary, getI32, getI64, getList, getStruct, setI32, setI64, structsOf,
  type ThriftStruct, type ThriftValue,
} from './thrift-compact.js';

const MAGIC = 'PAR1';
const REQUIRED = 0, OPTIONAL = 1, REPEATED = 2;
const DATA_PAGE = 0, DATA_PAGE_V2 = 3;
const CODEC_NAMES = ['UNCOMPRESSED', 'SNAPPY', 'GZIP', 'LZO', 'BROTLI', 'LZ4', 'ZSTD', 'LZ4_RAW'];

/** The Parquet codecs (as DuckDB spells them) whose pages this rewrite decompresses and compresses again. */
export const REWRITABLE_CODECS: ReadonlySet<string> = new Set(['uncompressed', 'snappy', 'gzip', 'brotli', 'zstd']);

export interface RequiredPartsOptions {
  /** The zstd level v1 pages of ZSTD chunks are compressed again with (Paimon's `parquet.compression.codec.zstd.level`). */
  zstdLevel?: number;
}

function corrupt(what: string): PaimonError {
  return new PaimonError('CORRUPT_METADATA', `Parquet file being finished: ${what}; this is a bug of the writer, the file is not published`);
}

/** A leaf column of the schema: its path (element names below the root) and levels. */
interface Leaf {
  path: string[];
  element: ThriftStruct;
  maxDef: number;
  maxRep: number;
}

function leavesOf(schema: ThriftStruct[]): Leaf[] {
  const leaves: Leaf[] = [];
  let at = 1;
  const walk = (path: string[], def: number, rep: number, depth: number): void => {
    if (depth > 64 || at >= schema.length) throw corrupt('schema tree truncated or nested too deeply');
    const e = schema[at++];
    const name = Buffer.from(getBinary(e, 4, 'name') ?? new Uint8Array()).toString('utf8');
    const r = getI32(e, 3, 'repetition_type') ?? REQUIRED;
    const d = def + (r === REQUIRED ? 0 : 1), p = rep + (r === REPEATED ? 1 : 0);
    const children = getI32(e, 5, 'num_children');
    if (children === undefined) leaves.push({ path: [...path, name], element: e, maxDef: d, maxRep: p });
    else for (let i = 0; i < children; i++) walk([...path, name], d, p, depth + 1);
  };
  const rootChildren = getI32(schema[0], 5, 'num_children') ?? 0;
  for (let i = 0; i < rootChildren; i++) walk([], 0, 0, 0);
  return leaves;
}

// ---------------------------------------------------------------- RLE / bit-packing hybrid levels

function bitWidth(max: number): number {
  return max === 0 ? 0 : 32 - Math.clz32(max);
}

function readVarint(buf: Uint8Array, pos: { p: number }): number {
  let v = 0;
  for (let shift = 0; shift < 35; shift += 7) {
    if (pos.p >= buf.length) throw corrupt('definition levels truncated');
    const b = buf[pos.p++];
    v += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0) return v;
  }
  throw corrupt('definition levels: varint too long');
}

function decodeLevels(buf: Uint8Array, width: number, count: number): Uint8Array {
  const out = new Uint8Array(count);
  const pos = { p: 0 };
  let n = 0;
  const bytesPerValue = Math.ceil(width / 8);
  while (n < count) {
    const h = readVarint(buf, pos);
    if ((h & 1) === 0) {
      const run = Math.floor(h / 2);
      let v = 0;
      for (let i = 0; i < bytesPerValue; i++) v |= buf[pos.p++] << (8 * i);
      if (pos.p > buf.length || run === 0) throw corrupt('definition levels: bad RLE run');
      for (let i = 0; i < run && n < count; i++) out[n++] = v;
    } else {
      const values = Math.floor(h / 2) * 8;
      const end = pos.p + (values * width) / 8;
      if (end > buf.length || values === 0) throw corrupt('definition levels: bad bit-packed run');
      for (let i = 0; i < values; i++) {
        let v = 0;
        for (let b = 0; b < width; b++) {
          const bit = i * width + b;
          v |= ((buf[pos.p + (bit >> 3)] >> (bit & 7)) & 1) << b;
        }
        if (n < count) out[n++] = v;
      }
      pos.p = end;
    }
  }
  return out;
}

function pushVarint(out: number[], v: number): void {
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
}

/**
 * Hybrid-encodes levels: groups of eight equal values as RLE runs, other groups bit-packed, and a
 * last partial group as RLE runs (so no run is padded).
 */
function encodeLevels(levels: Uint8Array, width: number): Buffer {
  const out: number[] = [];
  const bytesPerValue = Math.ceil(width / 8);
  const rle = (v: number, run: number): void => {
    pushVarint(out, run * 2);
    for (let i = 0; i < bytesPerValue; i++) out.push((v >> (8 * i)) & 0xff);
  };
  const groups = Math.floor(levels.length / 8);
  const uniform = (g: number): boolean => levels.subarray(g * 8, g * 8 + 8).every((x) => x === levels[g * 8]);
  let g = 0;
  while (g < groups) {
    if (uniform(g)) {
      let e = g + 1;
      while (e < groups && uniform(e) && levels[e * 8] === levels[g * 8]) e++;
      rle(levels[g * 8], (e - g) * 8);
      g = e;
    } else {
      let e = g + 1;
      while (e < groups && !uniform(e)) e++;
      pushVarint(out, (e - g) * 2 + 1);
      const bytes = new Uint8Array(((e - g) * 8 * width) / 8);
      for (let i = 0; i < (e - g) * 8; i++) {
        const v = levels[g * 8 + i];
        for (let b = 0; b < width; b++) if ((v >> b) & 1) bytes[(i * width + b) >> 3] |= 1 << ((i * width + b) & 7);
      }
      for (const x of bytes) out.push(x);
      g = e;
    }
  }
  let i = groups * 8;
  while (i < levels.length) {
    let e = i + 1;
    while (e < levels.length && levels[e] === levels[i]) e++;
    rle(levels[i], e - i);
    i = e;
  }
  return Buffer.from(out);
}

/** The levels of an OPTIONAL leaf made REQUIRED: present stays present (one lower), a null of the leaf itself is refused. */
function lowerLevels(levels: Uint8Array, oldMax: number, path: readonly string[]): Uint8Array {
  const out = new Uint8Array(levels.length);
  for (let i = 0; i < levels.length; i++) {
    const l = levels[i];
    if (l === oldMax) out[i] = oldMax - 1;
    else if (l === oldMax - 1) throw corrupt(`column ${path.join('.')} holds a null of its own, so it cannot be made REQUIRED`);
    else if (l > oldMax) throw corrupt(`column ${path.join('.')}: definition level ${l} above the maximum ${oldMax}`);
    else out[i] = l;
  }
  return out;
}

// ---------------------------------------------------------------- codecs (v1 page bodies)

function decompress(codec: number, data: Uint8Array): Uint8Array {
  switch (codec) {
    case 0: return data;
    case 1: return snappyDecompress(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    case 2: return gunzipSync(data);
    case 4: return brotliDecompressSync(data);
    case 6: return zstdDecode(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    default: throw unsupportedCodec(codec);
  }
}

function compress(codec: number, data: Uint8Array, o: RequiredPartsOptions): Uint8Array {
  switch (codec) {
    case 0: return data;
    // Literal-only snappy: a valid block every reader decodes, at the size of the levels and values.
    case 1: return snappyLiteral(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    case 2: return gzipSync(data);
    case 4: return brotliCompressSync(data);
    case 6: return zstdCompress(Buffer.from(data.buffer, data.byteOffset, data.byteLength), o.zstdLevel ?? 1);
    default: throw unsupportedCodec(codec);
  }
}

function unsupportedCodec(codec: number): PaimonError {
  return new PaimonError(
    'UNSUPPORTED_FORMAT',
    `VARIANT columns cannot be written with Parquet compression ${CODEC_NAMES[codec] ?? codec}; compact with 'file.compression' = 'zstd' (or snappy, gzip, brotli, none) in the options, or use Spark or Flink CALL sys.compact`,
  );
}

// ---------------------------------------------------------------- pages

interface Edit {
  start: number;
  end: number;
  bytes: Uint8Array;
}

interface ChunkResult {
  edits: Edit[];
  compressedDelta: number;
  uncompressedDelta: number;
  /** New sizes of pages (header included), by old start offset: for offset indexes. */
  pageSizes: Map<number, number>;
}

function rewriteChunk(file: Uint8Array, meta: ThriftStruct, leaf: Leaf, o: RequiredPartsOptions): ChunkResult {
  const codec = getI32(meta, 4, 'codec') ?? 0;
  const dataOffset = Number(getI64(meta, 9, 'data_page_offset') ?? -1n);
  const dictOffset = getI64(meta, 11, 'dictionary_page_offset');
  const start = dictOffset !== undefined && Number(dictOffset) > 0 && Number(dictOffset) < dataOffset ? Number(dictOffset) : dataOffset;
  const total = Number(getI64(meta, 7, 'total_compressed_size') ?? -1n);
  const end = start + total;
  if (start < 4 || end > file.length - 8) throw corrupt(`column chunk ${leaf.path.join('.')} lies outside the file`);
  const oldWidth = bitWidth(leaf.maxDef), newWidth = bitWidth(leaf.maxDef - 1);
  const res: ChunkResult = { edits: [], compressedDelta: 0, uncompressedDelta: 0, pageSizes: new Map() };
  let pos = start;
  for (let pages = 0; pos < end; pages++) {
    if (pages > file.length) throw corrupt('too many pages');
    const { struct: header, end: bodyStart } = decodeStruct(file, pos);
    const type = getI32(header, 1, 'page type');
    const uncompressed = getI32(header, 2, 'uncompressed_page_size') ?? 0;
    const compressed = getI32(header, 3, 'compressed_page_size') ?? -1;
    const bodyEnd = bodyStart + compressed;
    if (compressed < 0 || bodyEnd > end) throw corrupt(`a page of ${leaf.path.join('.')} runs past its column chunk`);
    const body = file.subarray(bodyStart, bodyEnd);
    let newBody: Uint8Array | null = null;
    let newUncompressed = uncompressed;
    if (type === DATA_PAGE) {
      const dph = getStruct(header, 5, 'data_page_header');
      const count = dph === undefined ? -1 : getI32(dph, 1, 'num_values') ?? -1;
      if (count < 0) throw corrupt('a v1 data page without its value count');
      const raw = decompress(codec, body);
      if (raw.length !== uncompressed) throw corrupt('a v1 data page does not decompress to its stated size');
      let p = 0;
      const readLen = (): number => {
        if (p + 4 > raw.length) throw corrupt('levels truncated');
        const n = Buffer.from(raw.buffer, raw.byteOffset + p, 4).readUInt32LE(0);
        p += 4 + n;
        if (p > raw.length) throw corrupt('levels truncated');
        return n;
      };
      const repStart = p;
      if (leaf.maxRep > 0) readLen();
      const repBytes = raw.subarray(repStart, p);
      const defLen = readLen();
      const levels = decodeLevels(raw.subarray(p - defLen, p), oldWidth, count);
      const lowered = encodeLevels(lowerLevels(levels, leaf.maxDef, leaf.path), newWidth);
      // With no levels left (a top-level REQUIRED leaf) the section and its length go.
      const section = leaf.maxDef - 1 > 0 ? Buffer.concat([Buffer.alloc(4), lowered]) : Buffer.alloc(0);
      if (section.length > 0) section.writeUInt32LE(lowered.length, 0);
      const rebuilt = Buffer.concat([repBytes, section, raw.subarray(p)]);
      newUncompressed = rebuilt.length;
      newBody = compress(codec, rebuilt, o);
    } else if (type === DATA_PAGE_V2) {
      // DuckDB writes v1 data pages only (its PARQUET_VERSION V2 changes encodings, not pages).
      throw corrupt(`column ${leaf.path.join('.')} has a v2 data page, which this rewrite does not handle`);
    }
    if (newBody !== null) {
      setI32(header, 2, newUncompressed);
      setI32(header, 3, newBody.length);
      if (header.has(4)) setI32(header, 4, crc32(newBody) | 0);
      const newHeader = encodeStruct(header);
      const bytes = Buffer.concat([newHeader, newBody]);
      res.edits.push({ start: pos, end: bodyEnd, bytes });
      res.compressedDelta += bytes.length - (bodyEnd - pos);
      res.uncompressedDelta += newHeader.length + newUncompressed - (bodyStart - pos + uncompressed);
      res.pageSizes.set(pos, bytes.length);
    }
    pos = bodyEnd;
  }
  if (pos !== end) throw corrupt(`the pages of ${leaf.path.join('.')} do not fill its column chunk`);
  return res;
}

/** Drops the histogram bucket of "parent present, leaf null" (always 0) from each page's or chunk's histogram. */
function lowerHistogram(items: ThriftValue[], oldMax: number, path: readonly string[]): ThriftValue[] {
  const width = oldMax + 1;
  if (items.length % width !== 0) throw corrupt(`column ${path.join('.')}: a definition level histogram of ${items.length} buckets`);
  const out: ThriftValue[] = [];
  for (let i = 0; i < items.length; i += width) {
    const nulls = items[i + oldMax - 1];
    if (nulls.type !== T.I64 || nulls.value !== 0n) throw corrupt(`column ${path.join('.')} holds a null of its own, so it cannot be made REQUIRED`);
    out.push(...items.slice(i, i + oldMax - 1), items[i + oldMax]);
  }
  return out;
}

function offsetMapper(edits: readonly Edit[]): (o: bigint) => bigint {
  return (o: bigint): bigint => {
    const n = Number(o);
    let delta = 0;
    for (const e of edits) {
      if (e.end <= n) delta += e.bytes.length - (e.end - e.start);
      else if (e.start < n) throw corrupt(`an offset (${n}) points into a rewritten page`);
    }
    return o + BigInt(delta);
  };
}

function mapField(s: ThriftStruct, id: number, map: (o: bigint) => bigint, what: string): void {
  const v = getI64(s, id, what);
  if (v !== undefined && v > 0n) setI64(s, id, map(v));
}

/**
 * The file with the given leaf columns (paths of element names below the root, as in
 * `ColumnMetaData.path_in_schema`) made REQUIRED. Every path must name an OPTIONAL leaf (or an
 * already REQUIRED one, left as it is). Returns the input itself when nothing changes.
 */
export async function requireLeafColumns(file: Uint8Array, paths: readonly (readonly string[])[], o: RequiredPartsOptions = {}): Promise<Uint8Array> {
  if (paths.length === 0) return file;
  const buf = Buffer.from(file.buffer, file.byteOffset, file.byteLength);
  if (buf.length < 12 || buf.toString('latin1', 0, 4) !== MAGIC || buf.toString('latin1', buf.length - 4) !== MAGIC) throw corrupt('not a Parquet file');
  const footerLen = buf.readUInt32LE(buf.length - 8);
  const footerStart = buf.length - 8 - footerLen;
  if (footerStart < 4) throw corrupt('footer length out of range');
  const { struct: footer } = decodeStruct(buf, footerStart);
  const schema = structsOf(getList(footer, 2, 'schema') ?? [], 'schema');
  if (schema.length === 0) throw corrupt('no schema');
  const leaves = leavesOf(schema);
  const key = (p: readonly string[]): string => JSON.stringify(p);
  const targets = new Map<number, Leaf>();
  for (const p of paths) {
    const i = leaves.findIndex((l) => key(l.path) === key(p));
    if (i < 0) throw corrupt(`no leaf column ${p.join('.')}`);
    const r = getI32(leaves[i].element, 3, 'repetition_type');
    if (r === REQUIRED) continue;
    if (r !== OPTIONAL) throw corrupt(`column ${p.join('.')} is repeated`);
    targets.set(i, leaves[i]);
  }
  if (targets.size === 0) return file;
  for (const l of targets.values()) setI32(l.element, 3, REQUIRED);

  const rowGroups = structsOf(getList(footer, 4, 'row_groups') ?? [], 'row_groups');
  const needsZstd = rowGroups.some((rg) => structsOf(getList(rg, 1, 'columns') ?? [], 'columns').some((c, i) => targets.has(i) && getI32(getStruct(c, 3, 'meta_data') ?? new Map(), 4, 'codec') === 6));
  if (needsZstd) await prepareCodecs();

  // Pages first: everything else that moves lies after them or points at them.
  const edits: Edit[] = [];
  const pageSizes = new Map<number, number>();
  const chunkDeltas = new Map<ThriftStruct, ChunkResult>();
  for (const rg of rowGroups) {
    const columns = structsOf(getList(rg, 1, 'columns') ?? [], 'columns');
    if (columns.length !== leaves.length) throw corrupt('a row group with a column count unlike the schema');
    columns.forEach((c, i) => {
      const leaf = targets.get(i);
      if (leaf === undefined) return;
      const meta = getStruct(c, 3, 'meta_data');
      if (meta === undefined) throw corrupt('a column chunk without its metadata');
      const r = rewriteChunk(buf, meta, leaf, o);
      edits.push(...r.edits);
      for (const [k, v] of r.pageSizes) pageSizes.set(k, v);
      chunkDeltas.set(c, r);
    });
  }
  edits.sort((a, b) => a.start - b.start);
  const lastPageEnd = edits.length === 0 ? 0 : edits[edits.length - 1].end;
  const mapPages = offsetMapper(edits);

  // Page indexes: offset indexes name every page's offset and size; column indexes of the leaves
  // carry definition level histograms.
  const indexEdits: Edit[] = [];
  for (const rg of rowGroups) {
    structsOf(getList(rg, 1, 'columns') ?? [], 'columns').forEach((c, i) => {
      const oiOff = getI64(c, 4, 'offset_index_offset'), oiLen = getI32(c, 5, 'offset_index_length');
      if (oiOff !== undefined && oiLen !== undefined && oiOff > 0n) {
        const start = Number(oiOff);
        if (start < lastPageEnd) throw corrupt('an offset index before the data pages');
        const { struct: oi } = decodeStruct(buf.subarray(start, start + oiLen));
        for (const loc of structsOf(getList(oi, 1, 'page_locations') ?? [], 'page_locations')) {
          const off = getI64(loc, 1, 'offset') ?? 0n;
          const size = pageSizes.get(Number(off));
          if (size !== undefined) setI32(loc, 2, size);
          setI64(loc, 1, mapPages(off));
        }
        const bytes = encodeStruct(oi);
        indexEdits.push({ start, end: start + oiLen, bytes });
        setI32(c, 5, bytes.length);
      }
      const leaf = targets.get(i);
      const ciOff = getI64(c, 6, 'column_index_offset'), ciLen = getI32(c, 7, 'column_index_length');
      if (leaf !== undefined && ciOff !== undefined && ciLen !== undefined && ciOff > 0n) {
        const start = Number(ciOff);
        if (start < lastPageEnd) throw corrupt('a column index before the data pages');
        const { struct: ci } = decodeStruct(buf.subarray(start, start + ciLen));
        const hist = getList(ci, 7, 'definition_level_histograms');
        if (hist !== undefined) {
          ci.set(7, { type: T.LIST, elemType: T.I64, items: lowerHistogram(hist, leaf.maxDef, leaf.path) });
          const bytes = encodeStruct(ci);
          indexEdits.push({ start, end: start + ciLen, bytes });
          setI32(c, 7, bytes.length);
        }
      }
    });
  }
  const all = [...edits, ...indexEdits].sort((a, b) => a.start - b.start);
  for (let i = 1; i < all.length; i++) if (all[i].start < all[i - 1].end) throw corrupt('overlapping regions');
  const map = offsetMapper(all);

  for (const rg of rowGroups) {
    let compressedDelta = 0, uncompressedDelta = 0;
    structsOf(getList(rg, 1, 'columns') ?? [], 'columns').forEach((c, i) => {
      const meta = getStruct(c, 3, 'meta_data')!;
      const r = chunkDeltas.get(c);
      if (r !== undefined) {
        compressedDelta += r.compressedDelta;
        uncompressedDelta += r.uncompressedDelta;
        setI64(meta, 7, (getI64(meta, 7, 'total_compressed_size') ?? 0n) + BigInt(r.compressedDelta));
        setI64(meta, 6, (getI64(meta, 6, 'total_uncompressed_size') ?? 0n) + BigInt(r.uncompressedDelta));
        const leaf = targets.get(i)!;
        const size = getStruct(meta, 16, 'size_statistics');
        const hist = size === undefined ? undefined : getList(size, 3, 'definition_level_histogram');
        if (size !== undefined && hist !== undefined) size.set(3, { type: T.LIST, elemType: T.I64, items: lowerHistogram(hist, leaf.maxDef, leaf.path) });
      }
      for (const id of [9, 10, 11, 14]) mapField(meta, id, map, 'column offset');
      mapField(c, 2, map, 'file_offset');
      mapField(c, 4, map, 'offset_index_offset');
      mapField(c, 6, map, 'column_index_offset');
    });
    mapField(rg, 5, map, 'row group file_offset');
    const tc = getI64(rg, 6, 'row group total_compressed_size');
    if (tc !== undefined) setI64(rg, 6, tc + BigInt(compressedDelta));
    const tb = getI64(rg, 2, 'row group total_byte_size');
    if (tb !== undefined) setI64(rg, 2, tb + BigInt(uncompressedDelta));
  }

  const parts: Uint8Array[] = [];
  let pos = 0;
  for (const e of all) {
    parts.push(buf.subarray(pos, e.start), e.bytes);
    pos = e.end;
  }
  parts.push(buf.subarray(pos, footerStart));
  const newFooter = encodeStruct(footer);
  const tail = Buffer.alloc(8);
  tail.writeUInt32LE(newFooter.length, 0);
  tail.write(MAGIC, 4, 'latin1');
  parts.push(newFooter, tail);
  return Buffer.concat(parts);
}
