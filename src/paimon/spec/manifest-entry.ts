/**
 * Paimon's `ManifestEntry` (`ManifestEntry.SCHEMA`, `ManifestEntrySerializer`, version 2): one ADD or
 * DELETE of a data file in a partition and bucket.
 */
import { PaimonError } from '../errors.js';
import { deserializeBinaryRow, type BinaryRow } from './binary-row.js';
import { dataFileMetaFromRecord, dataFileMetaToRecord, type DataFileMeta, type DataFileMetaRecord } from './data-file-meta.js';
import { MANIFEST_ENTRY_SCHEMA, MANIFEST_ENTRY_VERSION, type AvroBytes } from './avro-schemas.js';
import { avroLayoutKey } from './objects-file.js';
import { VarintReader } from './varint.js';
import type { SimpleStats } from './simple-stats.js';

/** `FileKind`: 0 ADD, 1 DELETE. */
export type FileKind = 'ADD' | 'DELETE';

export function fileKindToByte(k: FileKind): number {
  return k === 'ADD' ? 0 : 1;
}

export function fileKindFromByte(b: number, what: string): FileKind {
  if (b === 0) return 'ADD';
  if (b === 1) return 'DELETE';
  throw new PaimonError('CORRUPT_METADATA', `${what}: unknown file kind ${b}`);
}

export interface ManifestEntry {
  kind: FileKind;
  partition: BinaryRow;
  bucket: number;
  totalBuckets: number;
  file: DataFileMeta;
}

export interface ManifestEntryRecord {
  _VERSION: number;
  _KIND: number;
  _PARTITION: Buffer | AvroBytes;
  _BUCKET: number;
  _TOTAL_BUCKETS: number;
  _FILE: DataFileMetaRecord;
}

export function manifestEntryToRecord(e: ManifestEntry): ManifestEntryRecord {
  return {
    _VERSION: MANIFEST_ENTRY_VERSION,
    _KIND: fileKindToByte(e.kind),
    _PARTITION: e.partition.serialize(),
    _BUCKET: e.bucket,
    _TOTAL_BUCKETS: e.totalBuckets,
    _FILE: dataFileMetaToRecord(e.file),
  };
}

export function manifestEntryFromRecord(r: Record<string, unknown>, what: string): ManifestEntry {
  const rec = r as Partial<ManifestEntryRecord>;
  if (rec._VERSION !== MANIFEST_ENTRY_VERSION) {
    throw new PaimonError('UNSUPPORTED_FORMAT', `${what}: unsupported manifest entry version ${String(rec._VERSION)} (expected ${MANIFEST_ENTRY_VERSION})`);
  }
  if (rec._PARTITION === undefined || rec._BUCKET === undefined || rec._FILE === undefined || rec._KIND === undefined) {
    throw new PaimonError('CORRUPT_METADATA', `${what}: manifest entry lacks required fields`);
  }
  return {
    kind: fileKindFromByte(rec._KIND, what),
    partition: deserializeBinaryRow(rec._PARTITION),
    bucket: rec._BUCKET,
    // Paimon 0.x manifests may lack _TOTAL_BUCKETS; Java reads a missing non-null int as an error,
    // we read it as -1 (unknown) rather than fail.
    totalBuckets: rec._TOTAL_BUCKETS ?? -1,
    file: dataFileMetaFromRecord(rec._FILE, what),
  };
}

/** A DELETE for a live ADD entry: the same entry with only the kind changed (what Java writes). */
export function toDeleteEntry(e: ManifestEntry): ManifestEntry {
  return { ...e, kind: 'DELETE' };
}

// ---------------------------------------------------------------- direct decoding

/**
 * Whether records written with this Avro schema can be decoded by `decodeManifestEntries`: the
 * schema has the binary layout of `MANIFEST_ENTRY_SCHEMA` (Paimon 1.3+ manifests, as Java and we
 * write them). Other layouts (older manifests without the newer fields, other field orders) go
 * through the generic avsc decoder and `manifestEntryFromRecord`.
 */
export function hasCurrentManifestEntryLayout(writerSchema: string): boolean {
  return avroLayoutKey(writerSchema) === CURRENT_LAYOUT;
}

const CURRENT_LAYOUT = avroLayoutKey(MANIFEST_ENTRY_SCHEMA);

/**
 * Decodes `count` manifest entries from a decompressed Avro block of the current layout straight
 * into ManifestEntry objects, with the same values and errors as avsc decoding followed by
 * `manifestEntryFromRecord` (bytes fields become rows over the block, longs bigints), but without
 * the intermediate records: decoding manifests is the bulk of reading a table's metadata.
 */
export function decodeManifestEntries(block: Buffer, count: number, what: string): ManifestEntry[] {
  const out: ManifestEntry[] = new Array(count);
  const r = new BlockReader(block, what);
  for (let i = 0; i < count; i++) out[i] = r.entry();
  return out;
}

/** `Buffer#utf8Slice` (what `toString('utf8', ...)` ends in, without its argument handling), as avsc reads strings. */
const utf8Slice: (buf: Buffer, start: number, end: number) => string = (() => {
  const native = (Buffer.prototype as unknown as { utf8Slice?: (this: Buffer, s: number, e: number) => string }).utf8Slice;
  return native ? (buf: Buffer, s: number, e: number) => native.call(buf, s, e) : (buf: Buffer, s: number, e: number) => buf.toString('utf8', s, e);
})();

const DECODED_EMPTY_ROW: BinaryRow = deserializeBinaryRow(Buffer.alloc(12));

/** A cursor over one decompressed block; every read past its end reports a truncated record. */
class BlockReader extends VarintReader {
  constructor(
    buf: Buffer,
    private readonly what: string,
  ) {
    super(buf);
  }

  protected override truncated(): PaimonError {
    return new PaimonError('CORRUPT_METADATA', `${this.what}: truncated Avro record`);
  }

  /** Start and length of a `bytes`/`string` value, checked against the block. */
  private span(): number {
    const len = this.int();
    if (len < 0 || this.pos + len > this.buf.length) throw this.truncated();
    const start = this.pos;
    this.pos += len;
    return start;
  }

  private string(): string {
    const start = this.span();
    return utf8Slice(this.buf, start, this.pos);
  }

  private row(): BinaryRow {
    const start = this.span();
    const buf = this.buf;
    // The empty row (arity 0, zero null bits: keys and key stats of append tables) is decoded
    // once; rows are never written to, so every entry can share it.
    if (this.pos - start === 12 && buf.readInt32LE(start) === 0 && buf.readInt32LE(start + 4) === 0 && buf.readInt32LE(start + 8) === 0) {
      return DECODED_EMPTY_ROW;
    }
    return deserializeBinaryRow({ buf, offset: start, length: this.pos - start });
  }

  /** Union branch of a `["null", T]`: false for null. */
  private present(): boolean {
    const branch = this.int();
    if (branch === 0) return false;
    if (branch === 1) return true;
    throw new PaimonError('CORRUPT_METADATA', `${this.what}: invalid Avro union branch ${branch}`);
  }

  /**
   * The item count of the next Avro array block; 0 ends the array. Arrays are blocks of
   * (count, items), and a negative count is followed by the block's byte size.
   */
  private blockCount(): number {
    const n = this.int();
    if (n >= 0) return n;
    this.int();
    return -n;
  }

  private strings(): string[] {
    const out: string[] = [];
    for (let n = this.blockCount(); n !== 0; n = this.blockCount()) {
      for (let i = 0; i < n; i++) out.push(this.string());
    }
    return out;
  }

  private nullableLongs(): (bigint | null)[] {
    const out: (bigint | null)[] = [];
    for (let n = this.blockCount(); n !== 0; n = this.blockCount()) {
      for (let i = 0; i < n; i++) out.push(this.present() ? this.long() : null);
    }
    return out;
  }

  private stats(): SimpleStats {
    const minValues = this.row();
    const maxValues = this.row();
    const nullCounts = this.present() ? this.nullableLongs() : [];
    return { minValues, maxValues, nullCounts };
  }

  entry(): ManifestEntry {
    const version = this.int();
    if (version !== MANIFEST_ENTRY_VERSION) {
      throw new PaimonError('UNSUPPORTED_FORMAT', `${this.what}: unsupported manifest entry version ${version} (expected ${MANIFEST_ENTRY_VERSION})`);
    }
    const kind = fileKindFromByte(this.int(), this.what);
    const partition = this.row();
    const bucket = this.int();
    const totalBuckets = this.int();
    const fileName = this.string();
    const fileSize = this.long();
    const rowCount = this.long();
    const minKey = this.row();
    const maxKey = this.row();
    const keyStats = this.stats();
    const valueStats = this.stats();
    const minSequenceNumber = this.long();
    const maxSequenceNumber = this.long();
    const schemaId = this.long();
    const level = this.int();
    const extraFiles = this.strings();
    const creationTime = this.present() ? this.long() : null;
    const deleteRowCount = this.present() ? this.long() : null;
    let embeddedIndex: Buffer | null = null;
    if (this.present()) {
      const start = this.span();
      embeddedIndex = this.buf.subarray(start, this.pos);
    }
    const fileSource = this.present() ? this.int() : null;
    const valueStatsCols = this.present() ? this.strings() : null;
    const externalPath = this.present() ? this.string() : null;
    const firstRowId = this.present() ? this.long() : null;
    const writeCols = this.present() ? this.strings() : null;
    return {
      kind,
      partition,
      bucket,
      totalBuckets,
      file: {
        fileName,
        fileSize,
        rowCount,
        minKey,
        maxKey,
        keyStats,
        valueStats,
        minSequenceNumber,
        maxSequenceNumber,
        schemaId,
        level,
        extraFiles,
        creationTime,
        deleteRowCount,
        embeddedIndex,
        fileSource,
        valueStatsCols,
        externalPath,
        firstRowId,
        writeCols,
      },
    };
  }
}
