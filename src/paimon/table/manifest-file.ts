/**
 * Reading and writing manifest files (`ManifestFile`): files of `ManifestEntry` records in
 * `manifest/`, in the table's `manifest.format` (Avro container files by default, or Parquet),
 * compressed with `manifest.compression` (zstd by default), rolled at `manifest.target-file-size`
 * (8 MiB). Each written file yields its `ManifestFileMeta` as
 * `ManifestFile.ManifestEntryWriter.result` computes it.
 *
 * readMetadataRecords / encodeMetadataFile are the one format switch that manifest lists and
 * index manifests share: reading goes by the file's magic bytes, writing by the table's option.
 */
import type { FileIO } from '../fs/file-io.js';
import { PaimonError } from '../errors.js';
import { MANIFEST_ENTRY_SCHEMA, type AvroSchema } from '../spec/avro-schemas.js';
import { avroCodecFor, encodeObjectsFile, prepareCodecs, readBlocks, readHeader, readObjectsFile, type AvroCodec, type ObjectsFileHeader } from '../spec/objects-file.js';
import { manifestFormatOf, metadataFileFormat, metadataRowType, type ManifestFormat } from '../spec/manifest-format.js';
import { decodeManifestEntries, hasCurrentManifestEntryLayout, manifestEntryFromRecord, manifestEntryToRecord, type ManifestEntry } from '../spec/manifest-entry.js';
import type { ManifestFileMeta } from '../spec/manifest-file-meta.js';
import { FullStatsCollector } from '../spec/simple-stats.js';
import type { BinaryFieldType } from '../spec/binary-row.js';
import { decodeParquetRecords } from '../data/parquet-reader.js';
import { encodeParquetRecords } from '../data/parquet-writer.js';
import type { FileStorePathFactory } from './file-store-path-factory.js';

export const DEFAULT_MANIFEST_TARGET_FILE_SIZE = 8 * 1024 * 1024;

export interface MetadataFileOptions {
  /** `manifest.format` (default avro): the format new metadata files are written in. */
  format?: ManifestFormat;
  /** `manifest.compression` (default zstd); for Avro files `avro.codec` overrides it when set. */
  compression?: string;
  /** `file.compression.zstd-level` (default 1). */
  zstdLevel?: number;
  /** `manifest.target-file-size` in bytes (default 8 MiB). */
  targetFileSize?: number;
}

/**
 * The metadata file options of a table's options map: `manifest.format` (avro; ORC and other
 * formats are refused with UNSUPPORTED_FORMAT), `manifest.compression` (zstd; `avro.codec` over
 * it for Avro), `file.compression.zstd-level` (1), `manifest.target-file-size` (8 MiB when
 * absent or unreadable).
 */
export function metadataFileOptions(tableOptions: Readonly<Record<string, string>>): MetadataFileOptions {
  const level = tableOptions['file.compression.zstd-level'];
  const format = manifestFormatOf(tableOptions);
  const compression = tableOptions['manifest.compression'] ?? 'zstd';
  if (format === 'parquet' && /^lz[4o]$/i.test(compression.trim())) {
    // parquet-mr's LZ4 is Hadoop's framed codec (and LZO Hadoop's too): DuckDB reads LZ4_RAW only.
    throw new PaimonError(
      'UNSUPPORTED_FORMAT',
      `the table has 'manifest.compression' = '${compression}' with Parquet manifests (Hadoop ${compression.toUpperCase()}), which this proxy cannot read or write; ` +
        `run the procedure in Paimon's own engines (Flink/Spark CALL sys.<procedure>), or use zstd, snappy, gzip or none`,
    );
  }
  return {
    format,
    compression: format === 'avro' ? (tableOptions['avro.codec'] ?? compression) : compression,
    zstdLevel: level === undefined ? 1 : Number(level),
    targetFileSize: lenientMemorySize(tableOptions['manifest.target-file-size']),
  };
}

/** Paimon memory sizes (`8 mb`, `16MB`, `1024`) in bytes; undefined when absent or unreadable. */
function lenientMemorySize(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const m = /^\s*(\d+)\s*([kmgt]?i?b?|bytes?)?\s*$/i.exec(v);
  if (!m) return undefined;
  const n = Number(m[1]);
  const u = (m[2] ?? '').toLowerCase()[0];
  const mult = u === 'k' ? 1024 : u === 'm' ? 1024 ** 2 : u === 'g' ? 1024 ** 3 : u === 't' ? 1024 ** 4 : 1;
  return n * mult;
}

export function codecOf(options: MetadataFileOptions): AvroCodec {
  return avroCodecFor(options.compression);
}

/**
 * The records of a metadata file held in memory, in whichever supported format it was written
 * (by its magic bytes). A file of no known format is CORRUPT_METADATA, an ORC file
 * UNSUPPORTED_FORMAT, both naming `what`.
 */
export async function readMetadataRecords(buf: Buffer, what: string): Promise<Iterable<Record<string, unknown>>> {
  if (metadataFileFormat(buf, what) === 'parquet') return decodeParquetRecords(buf, what);
  await prepareCodecs();
  return readObjectsFile(buf, what);
}

/** A complete metadata file of `records` (shaped by the Avro `schema`) in the options' format and codec. */
export async function encodeMetadataFile(schema: AvroSchema, records: Iterable<object>, options: MetadataFileOptions, what: string): Promise<Buffer> {
  if ((options.format ?? 'avro') === 'parquet') {
    return encodeParquetRecords(metadataRowType(schema), records, { compression: options.compression ?? 'zstd', zstdLevel: options.zstdLevel, what });
  }
  return encodeObjectsFile(schema, records, { codec: codecOf(options), zstdLevel: options.zstdLevel });
}

export class ManifestFile {
  constructor(
    readonly fileIO: FileIO,
    readonly pathFactory: FileStorePathFactory,
    /** Partition field types of the table (for `_PARTITION_STATS`). */
    readonly partitionTypes: readonly BinaryFieldType[],
    readonly options: MetadataFileOptions = {},
  ) {}

  /** Every entry of a manifest file, in file order. */
  async read(fileName: string): Promise<ManifestEntry[]> {
    return [...(await this.iterate(fileName))];
  }

  /** Reads the file, then decodes entries lazily block by block. */
  async iterate(fileName: string): Promise<Iterable<ManifestEntry>> {
    const path = this.pathFactory.toManifestFilePath(fileName);
    const [buf] = await Promise.all([this.fileIO.readFile(path), prepareCodecs()]);
    const what = `manifest ${path}`;
    if (metadataFileFormat(buf, what) === 'parquet') return mapIter(await decodeParquetRecords(buf, what), (r) => manifestEntryFromRecord(r, what));
    const header = readHeader(buf, what);
    if (hasCurrentManifestEntryLayout(header.schema)) return decodeBlocks(buf, what, header);
    return mapIter(readObjectsFile(buf, what), (r) => manifestEntryFromRecord(r, what));
  }

  /**
   * Writes entries into one or more manifest files (rolling at the target size) and returns their
   * metas. No entries, no file. `latestSchemaId` is what Java records for a file without entries.
   */
  async write(entries: readonly ManifestEntry[], latestSchemaId: bigint): Promise<ManifestFileMeta[]> {
    const out: ManifestFileMeta[] = [];
    const target = this.options.targetFileSize ?? DEFAULT_MANIFEST_TARGET_FILE_SIZE;
    let start = 0;
    while (start < entries.length) {
      // Roll on the uncompressed record size, checked per 1000 records (RollingFileWriter checks
      // its target every 1000 records, on the compressed stream).
      let end = start;
      let bytes = 0;
      while (end < entries.length) {
        bytes += approxEntrySize(entries[end]);
        end++;
        if ((end - start) % 1000 === 0 && bytes >= target) break;
      }
      out.push(await this.writeOne(entries.slice(start, end), latestSchemaId));
      start = end;
    }
    return out;
  }

  private async writeOne(entries: readonly ManifestEntry[], latestSchemaId: bigint): Promise<ManifestFileMeta> {
    const fileName = this.pathFactory.newManifestFileName();
    const data = await encodeMetadataFile(MANIFEST_ENTRY_SCHEMA, entries.map(manifestEntryToRecord), this.options, `manifest ${fileName}`);
    await this.fileIO.writeFile(this.pathFactory.toManifestFilePath(fileName), data);
    return manifestFileMetaOf(fileName, BigInt(data.length), entries, this.partitionTypes, latestSchemaId);
  }
}

/** `ManifestEntryWriter.result`: counts, partition stats (FULL mode), schema id, bucket/level/row-id bounds. */
export function manifestFileMetaOf(
  fileName: string,
  fileSize: bigint,
  entries: readonly ManifestEntry[],
  partitionTypes: readonly BinaryFieldType[],
  latestSchemaId: bigint,
): ManifestFileMeta {
  let added = 0n;
  let deleted = 0n;
  let schemaId: bigint | null = null;
  let minBucket = Infinity;
  let maxBucket = -Infinity;
  let minLevel = Infinity;
  let maxLevel = -Infinity;
  let rowIds: { min: bigint; max: bigint } | null = { min: 0n, max: 0n };
  let first = true;
  const stats = new FullStatsCollector(partitionTypes);
  for (const e of entries) {
    if (e.kind === 'ADD') added++;
    else deleted++;
    if (schemaId === null || e.file.schemaId > schemaId) schemaId = e.file.schemaId;
    minBucket = Math.min(minBucket, e.bucket);
    maxBucket = Math.max(maxBucket, e.bucket);
    minLevel = Math.min(minLevel, e.file.level);
    maxLevel = Math.max(maxLevel, e.file.level);
    if (rowIds !== null) {
      const fr = e.file.firstRowId;
      if (fr === null) rowIds = null;
      else {
        const last = fr + e.file.rowCount - 1n;
        if (first || fr < rowIds.min) rowIds.min = fr;
        if (first || last > rowIds.max) rowIds.max = last;
      }
    }
    first = false;
    if (e.partition.arity !== partitionTypes.length) {
      throw new PaimonError('INVALID_ARGUMENT', `entry ${e.file.fileName} has a partition of arity ${e.partition.arity}, the table has ${partitionTypes.length} partition keys`);
    }
    stats.collect(e.partition);
  }
  const empty = entries.length === 0;
  return {
    fileName,
    fileSize,
    numAddedFiles: added,
    numDeletedFiles: deleted,
    partitionStats: stats.result(),
    schemaId: empty || schemaId === null ? latestSchemaId : schemaId,
    // Java writes the int accumulators as they stand (MAX_VALUE/MIN_VALUE for an empty file).
    minBucket: empty ? 2147483647 : minBucket,
    maxBucket: empty ? -2147483648 : maxBucket,
    minLevel: empty ? 2147483647 : minLevel,
    maxLevel: empty ? -2147483648 : maxLevel,
    minRowId: empty || rowIds === null ? null : rowIds.min,
    maxRowId: empty || rowIds === null ? null : rowIds.max,
  };
}

function approxEntrySize(e: ManifestEntry): number {
  const f = e.file;
  return (
    64 +
    f.fileName.length +
    e.partition.bytes.length +
    f.minKey.bytes.length * 2 +
    f.keyStats.minValues.bytes.length * 2 +
    f.valueStats.minValues.bytes.length * 2 +
    9 * (f.valueStats.nullCounts.length + f.keyStats.nullCounts.length)
  );
}

/** Entries of a current-layout manifest, decoded directly block by block (one block's entries at a time). */
function* decodeBlocks(buf: Buffer, what: string, header: ObjectsFileHeader): Generator<ManifestEntry> {
  for (const block of readBlocks(buf, what, header)) yield* decodeManifestEntries(block.data, block.count, what);
}

export function* mapIter<A, B>(it: Iterable<A>, fn: (a: A) => B): Generator<B> {
  for (const a of it) yield fn(a);
}
