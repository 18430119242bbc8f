/**
 * Writes Paimon data files in Parquet, rolling to a new file at `target-file-size`, and
 * returns for each file the `DataFileMeta` that Paimon Java would have produced for the same
 * rows: `KeyValueDataFileWriter.result` for primary-key tables (first/last key, key stats in
 * all-mode, value stats, sequence range, retract count), `RowDataFileWriter.result` for append
 * tables (sequence numbers counted from a start value). Statistics follow
 * `ParquetSimpleStatsExtractor` + the stats modes (see simple-col-stats.ts).
 *
 * Rows are buffered in a DuckDB temporary table (which spills to disk beyond DuckDB's memory
 * limit) and written with `COPY ... (FORMAT parquet, COMPRESSION zstd, FIELD_IDS ...)` to a
 * local temporary file, then streamed to the table's FileIO. Memory is therefore bounded by
 * the engine's limit, not by the file size.
 */
import { createReadStream } from 'node:fs';
import { copyFile, mkdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { DuckDBDataChunk, type DuckDBAppender, type DuckDBConnection, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';
import type { FileIO } from '../fs/file-io.js';
import { PaimonError } from '../errors.js';
import { binaryFieldTypeOf, toBinaryRow, type BinaryFieldType, type BinaryValue } from '../spec/binary-row.js';
import { toSimpleStats, EMPTY_STATS, type SimpleStats, type ColumnStats } from '../spec/simple-stats.js';
import { BinaryRow } from '../spec/binary-row.js';
import { FileSource, localNowAsUtcMillis, type DataFileMeta } from '../spec/data-file-meta.js';
import type { DataFieldSpec, FieldType } from './field-type.js';
import { isRetract, type InternalRow, type KeyValue, type Datum, type Decimal } from './internal-row.js';
import {
  ROW_ID_FIELD,
  SEQUENCE_NUMBER_FIELD,
  dataFileLayout,
  fileCompressionForLevel,
  fileFormatForLevel,
  newDataFileName,
  statsDenseStore,
  statsModes,
  targetFileSize as defaultTargetFileSize,
  zstdLevel,
  type DataFileLayout,
  type StatsMode,
  type TableSchemaLike,
} from './data-file-layout.js';
import { ColumnStatsAccumulator, denseValueStats, type SimpleColStats } from './simple-col-stats.js';
import { requireVariantParts } from './variant-parquet.js';
import { connectDuckDB, dataTempDir, localPathOf, duckWriteType, fieldIdsOption, quoteIdent, quoteLiteral, recordToDuckConverter, toDuckConverter, topLevelFieldIdsOption, type DataEngine, type ToDuck } from './duckdb-engine.js';

export interface DataFileWriterOptions {
  fileIO: FileIO;
  /** The bucket directory the files go to (`<table>/<partition path>/bucket-N`). */
  bucketDir: string;
  /** The schema the rows follow; its id becomes `_SCHEMA_ID`. */
  schema: TableSchemaLike;
  /** Output level (0 for flushes and append tables). */
  level: number;
  /** FileSource.APPEND (0) for new data, FileSource.COMPACT (1) for compaction output. */
  fileSource: number;
  /** Dynamic options over the table's (e.g. the `options` argument of compact). */
  options?: Readonly<Record<string, string>>;
  /** Changelog files (`changelog-` prefix, `changelog-file.*` options). */
  changelog?: boolean;
  /** Overrides `target-file-size`. */
  targetFileSize?: number;
  /**
   * Which Paimon line's statistics to reproduce: '1' (1.0-1.4: BINARY/VARBINARY columns get null
   * min/max; the default, and safe for every reader) or '2' (2.0+: byte-wise min/max).
   */
  statsCompat?: '1' | '2';
  /** The DuckDB instance the rows are buffered in (default: the process's shared one). */
  engine?: DataEngine | null;
  /**
   * Append tables with row tracking: each row ends with its `_ROW_ID` and `_SEQUENCE_NUMBER`,
   * written as physical columns after the table's fields (the write type
   * `SpecialFields.rowTypeWithRowTracking`), with statistics like any other column.
   */
  rowTrackingColumns?: boolean;
}

const CHUNK_ROWS = 2048;

/** Codec names Paimon accepts for Parquet, as DuckDB spells them. */
export function duckCompression(codec: string, where: string): string {
  switch (codec.toLowerCase()) {
    case 'zstd': return 'zstd';
    case 'snappy': return 'snappy';
    case 'gzip': return 'gzip';
    case 'lz4': case 'lz4_raw': return 'lz4_raw';
    case 'none': case 'uncompressed': return 'uncompressed';
    case 'brotli': return 'brotli';
    default:
      throw new PaimonError('UNSUPPORTED_FORMAT', `${where}: Parquet compression "${codec}" is not supported`);
  }
}

/** BinaryRow field type of a stats/key column (nested types only ever hold null there). */
export function binaryFieldType(t: FieldType): BinaryFieldType {
  return binaryFieldTypeOf(t) ?? { root: 'BIGINT' };
}

/** Stats min/max are only ever atomic values (nested columns have none). */
function atomicStats(s: SimpleColStats[]): ColumnStats[] {
  return s as ColumnStats[];
}

/** A rough encoded size of a value, to decide when a file reaches its target size. */
function sizeOf(v: Datum): number {
  if (v === null) return 0;
  switch (typeof v) {
    case 'string': return v.length + 4;
    case 'number': return 4;
    case 'bigint': return 8;
    case 'boolean': return 1;
    default:
      if (v instanceof Uint8Array) return v.length + 4;
      if (Array.isArray(v)) {
        let n = 4;
        for (const x of v as Datum[]) n += Array.isArray(x) ? sizeOf(x[0] as Datum) + sizeOf(x[1] as Datum) : sizeOf(x);
        return n;
      }
      return 12; // Decimal, Timestamp
  }
}

/**
 * Moves a finished local file to its destination: a rename (or copy + rename across devices)
 * when the destination is a local path, so the file appears whole and at once; otherwise a
 * streamed upload through the FileIO.
 */
export async function publishLocalFile(fileIO: FileIO, local: string, path: string): Promise<void> {
  const dest = localPathOf(path);
  if (dest === null) {
    await fileIO.writeStream(path, createReadStream(local));
    return;
  }
  await mkdir(dirname(dest), { recursive: true });
  try {
    await rename(local, dest);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw new PaimonError('STORAGE_ERROR', `cannot move data file to ${path}: ${(e as Error).message}`, { cause: e });
    const tmp = `${dest}.${randomUUID()}.tmp`;
    try {
      await copyFile(local, tmp);
      await rename(tmp, dest);
    } finally {
      await rm(tmp, { force: true });
    }
  }
}

/** One Parquet file being written through DuckDB. */
class ParquetFileSink {
  private table = `buf_${randomUUID().replace(/-/g, '')}`;
  private appender: DuckDBAppender | null = null;
  private types: DuckDBType[] = [];
  private pending: DuckDBValue[][];
  private pendingRows = 0;
  private chunk: DuckDBDataChunk | null = null;

  constructor(
    private readonly conn: DuckDBConnection,
    private readonly fields: readonly DataFieldSpec[],
    private readonly converters: readonly ToDuck[],
    private readonly where: string,
    private readonly fieldIds: string = fieldIdsOption(fields),
  ) {
    this.pending = fields.map(() => []);
  }

  async open(): Promise<void> {
    const cols = this.fields.map((f) => `${quoteIdent(f.name)} ${duckWriteType(f.type, `${this.where}, column ${f.name}`)}`);
    await this.conn.run(`CREATE TEMP TABLE ${this.table} (${cols.join(', ')})`);
    const probe = await this.conn.run(`SELECT * FROM ${this.table} LIMIT 0`);
    this.types = probe.columnTypes();
    this.appender = await this.conn.createAppender(this.table, 'main', 'temp');
  }

  add(row: InternalRow): void {
    for (let i = 0; i < this.converters.length; i++) this.pending[i].push(this.converters[i](row[i]));
    if (++this.pendingRows >= CHUNK_ROWS) this.flushChunk();
  }

  private flushChunk(): void {
    if (this.pendingRows === 0) return;
    // One chunk, reused: a new native DataChunk per batch is invisible to V8's heap accounting,
    // so thousands of them pile up before the GC frees them (hundreds of MB per million rows).
    this.chunk ??= DuckDBDataChunk.create(this.types, CHUNK_ROWS);
    const chunk = this.chunk;
    chunk.reset();
    chunk.rowCount = this.pendingRows;
    chunk.setColumns(this.pending);
    this.appender!.appendDataChunk(chunk);
    this.pending = this.fields.map(() => []);
    this.pendingRows = 0;
  }

  /** Writes the buffered rows to a local Parquet file; returns its size. */
  async finish(localPath: string, compression: string, level: number): Promise<number> {
    this.flushChunk();
    this.appender!.closeSync();
    this.appender = null;
    const codec = duckCompression(compression, this.where);
    const opts = [
      'FORMAT parquet',
      `COMPRESSION ${codec}`,
      ...(codec === 'zstd' ? [`COMPRESSION_LEVEL ${level}`] : []),
      `FIELD_IDS ${this.fieldIds}`,
    ];
    await this.conn.run(`COPY ${this.table} TO ${quoteLiteral(localPath)} (${opts.join(', ')})`);
    await this.drop();
    await requireVariantParts(localPath, this.fields, level);
    return (await stat(localPath)).size;
  }

  async drop(): Promise<void> {
    if (this.appender) {
      try { this.appender.closeSync(); } catch { /* already failing */ }
      this.appender = null;
    }
    await this.conn.run(`DROP TABLE IF EXISTS temp.main.${this.table}`);
  }
}

/**
 * The common rolling writer over physical rows (the file's columns, in order). Subclasses
 * turn their records into physical rows and fill in DataFileMeta.
 */
abstract class RollingDataFileWriter {
  protected readonly layout: DataFileLayout;
  protected readonly options: Readonly<Record<string, string>>;
  protected readonly modes: StatsMode[];
  private readonly converters: ToDuck[];
  private readonly target: number;
  private readonly compression: string;
  private readonly zstd: number;
  private readonly uuid = randomUUID();
  private fileCount = 0;
  private conn: DuckDBConnection | null = null;
  private sink: ParquetFileSink | null = null;
  protected stats: ColumnStatsAccumulator[] = [];
  protected rowCount = 0;
  private estimatedBytes = 0;
  /** Learned ratio of file bytes to estimated raw bytes; starts conservative. */
  private ratio = 0.5;
  private readonly results: DataFileMeta[] = [];
  private readonly written: string[] = [];
  private closed = false;
  protected readonly where: string;

  constructor(protected readonly opts: DataFileWriterOptions) {
    this.options = { ...opts.schema.options, ...(opts.options ?? {}) };
    const layout = dataFileLayout({ ...opts.schema, options: this.options });
    if (opts.rowTrackingColumns === true && layout.isPrimaryKey) throw new PaimonError('INVALID_ARGUMENT', `data files of ${opts.bucketDir}: row-tracking columns are only written for append tables`);
    const tracking = opts.rowTrackingColumns === true ? [ROW_ID_FIELD, SEQUENCE_NUMBER_FIELD] : [];
    this.layout = tracking.length === 0 ? layout : { ...layout, valueFields: [...layout.valueFields, ...tracking], physicalFields: [...layout.physicalFields, ...tracking] };
    this.where = `data files of ${opts.bucketDir}`;
    const format = fileFormatForLevel(this.options, opts.level);
    const changelogFormat = opts.changelog ? this.options['changelog-file.format'] : undefined;
    if ((changelogFormat ?? format) !== 'parquet') {
      throw new PaimonError('UNSUPPORTED_FORMAT', `${this.where}: writing ${changelogFormat ?? format} data files is not supported (only parquet)`);
    }
    this.compression = (opts.changelog && this.options['changelog-file.compression']) || fileCompressionForLevel(this.options, opts.level);
    this.zstd = zstdLevel(this.options);
    this.target = opts.targetFileSize ?? defaultTargetFileSize(this.options, this.layout.isPrimaryKey);
    const names = this.layout.physicalFields.map((f) => f.name);
    this.modes = statsModes(this.options, names, opts.level, {
      changelog: opts.changelog,
      thinModeKeyNames: this.layout.thinMode ? this.layout.keyFields.map((f) => f.name) : [],
    });
    this.converters = this.layout.physicalFields.map((f) => toDuckConverter(f.type));
    // fail fast on types we cannot write
    this.layout.physicalFields.forEach((f) => duckWriteType(f.type, `${this.where}, column ${f.name}`));
  }

  /** Paths of every file finished so far (for cleanup on failure). */
  writtenFiles(): readonly string[] {
    return this.written;
  }

  /**
   * Adds one physical row. Synchronous on the hot path: returns a promise only when the file
   * must be opened or has reached its target size and is being finished.
   */
  protected addPhysical(row: InternalRow): Promise<void> | undefined {
    if (this.closed) throw new PaimonError('INVALID_ARGUMENT', `${this.where}: writer already closed`);
    if (!this.sink) return this.openFile().then(() => this.addPhysical(row));
    let size = 0;
    const stats = this.stats;
    for (let i = 0; i < row.length; i++) {
      const v = row[i];
      stats[i].add(v);
      size += sizeOf(v);
    }
    this.sink.add(row);
    this.rowCount++;
    this.estimatedBytes += size;
    this.onRowAdded(row);
    if (this.estimatedBytes * this.ratio >= this.target) return this.finishFile();
    return undefined;
  }

  protected abstract onRowAdded(row: InternalRow): void;
  protected abstract resetFileState(): void;
  protected abstract fileMeta(base: {
    fileName: string;
    fileSize: bigint;
    rowCount: bigint;
    physicalStats: SimpleColStats[];
  }): DataFileMeta;

  private async openFile(): Promise<void> {
    if (!this.conn) this.conn = await connectDuckDB(this.opts.engine);
    this.sink = new ParquetFileSink(this.conn, this.layout.physicalFields, this.converters, this.where);
    await this.sink.open();
    const binaryStats = this.opts.statsCompat === '2';
    this.stats = this.layout.physicalFields.map((f) => new ColumnStatsAccumulator(f.type, binaryStats));
    this.rowCount = 0;
    this.estimatedBytes = 0;
    this.resetFileState();
  }

  private async finishFile(): Promise<void> {
    const sink = this.sink!;
    this.sink = null;
    const fileName = newDataFileName(this.options, 'parquet', {
      uuid: this.uuid,
      count: this.fileCount++,
      changelog: this.opts.changelog,
      compression: this.compression,
    });
    const local = join(dataTempDir(), `${randomUUID()}-${fileName}`);
    const path = `${this.opts.bucketDir.replace(/\/+$/, '')}/${fileName}`;
    try {
      const size = await sink.finish(local, this.compression, this.zstd);
      if (this.estimatedBytes > 0) this.ratio = Math.min(1, Math.max(0.01, size / this.estimatedBytes));
      this.written.push(path);
      await publishLocalFile(this.opts.fileIO, local, path);
      const physicalStats = this.stats.map((s, i) => s.result(this.modes[i]));
      this.results.push(this.fileMeta({ fileName, fileSize: BigInt(size), rowCount: BigInt(this.rowCount), physicalStats }));
    } finally {
      await rm(local, { force: true });
    }
  }

  /** Finishes the last file; returns the metas of all files written, in order. */
  async close(): Promise<DataFileMeta[]> {
    if (this.closed) return this.results;
    try {
      if (this.sink) {
        if (this.rowCount > 0) await this.finishFile();
        else { await this.sink.drop(); this.sink = null; }
      }
    } finally {
      this.closed = true;
      this.conn?.closeSync();
      this.conn = null;
    }
    return this.results;
  }

  /** Stops writing and deletes every file this writer produced. */
  async abort(): Promise<void> {
    this.closed = true;
    try {
      if (this.sink) await this.sink.drop().catch(() => undefined);
    } finally {
      this.sink = null;
      this.conn?.closeSync();
      this.conn = null;
    }
    if (this.written.length > 0) await this.opts.fileIO.deleteMany([...this.written]);
  }

  protected valueStats(physicalStats: SimpleColStats[], offset: number): { stats: SimpleStats; cols: string[] | null } {
    const fields = this.layout.valueFields;
    const stats = physicalStats.slice(offset, offset + fields.length);
    const dense = denseValueStats(fields.map((f) => f.name), stats, statsDenseStore(this.options));
    const types = dense.indexes.map((i) => binaryFieldType(fields[i].type));
    return { stats: toSimpleStats(types, atomicStats(dense.stats)), cols: dense.valueStatsCols };
  }
}

/** Writes primary-key table files from KeyValues sorted by key (`KeyValueDataFileWriter`). */
export class KeyValueDataFileWriter extends RollingDataFileWriter {
  private minKey: InternalRow | null = null;
  private lastKey: InternalRow | null = null;
  private minSeq = 0n;
  private maxSeq = 0n;
  private deleteRows = 0n;
  private readonly keyTypes: BinaryFieldType[];

  constructor(opts: DataFileWriterOptions) {
    super(opts);
    if (!this.layout.isPrimaryKey) throw new PaimonError('INVALID_ARGUMENT', `${this.where}: the table has no primary key`);
    this.keyTypes = this.layout.keyFields.map((f) => binaryFieldType(f.type));
  }

  /** Appends records; they must be sorted by key across calls (the writer does not compare). */
  async write(batch: Iterable<KeyValue>): Promise<void> {
    const thin = this.layout.thinMode;
    for (const kv of batch) {
      const row: InternalRow = thin
        ? [kv.sequenceNumber, kv.valueKind, ...kv.value]
        : [...kv.key, kv.sequenceNumber, kv.valueKind, ...kv.value];
      this.pendingKv = kv;
      const p = this.addPhysical(row);
      if (p) await p;
    }
  }

  private pendingKv: KeyValue | null = null;

  protected onRowAdded(): void {
    const kv = this.pendingKv!;
    if (this.minKey === null) {
      this.minKey = kv.key;
      this.minSeq = kv.sequenceNumber;
      this.maxSeq = kv.sequenceNumber;
    } else {
      if (kv.sequenceNumber < this.minSeq) this.minSeq = kv.sequenceNumber;
      if (kv.sequenceNumber > this.maxSeq) this.maxSeq = kv.sequenceNumber;
    }
    this.lastKey = kv.key;
    if (isRetract(kv.valueKind)) this.deleteRows++;
  }

  protected resetFileState(): void {
    this.minKey = null;
    this.lastKey = null;
    this.deleteRows = 0n;
  }

  protected fileMeta(base: { fileName: string; fileSize: bigint; rowCount: bigint; physicalStats: SimpleColStats[] }): DataFileMeta {
    const nKey = this.layout.keyFields.length;
    let keyColStats: SimpleColStats[];
    let valueOffset: number;
    if (this.layout.thinMode) {
      // KeyValueThinDataFileWriterImpl: key stats are the stats of the key's value columns.
      valueOffset = 2;
      keyColStats = this.layout.keyValueIndexes.map((i) => base.physicalStats[2 + i]);
    } else {
      valueOffset = nKey + 2;
      keyColStats = base.physicalStats.slice(0, nKey);
    }
    const keyStats = toSimpleStats(this.keyTypes, atomicStats(keyColStats));
    const value = this.valueStats(base.physicalStats, valueOffset);
    return {
      fileName: base.fileName,
      fileSize: base.fileSize,
      rowCount: base.rowCount,
      minKey: toBinaryRow(this.keyTypes, this.minKey! as BinaryValue[]),
      maxKey: toBinaryRow(this.keyTypes, this.lastKey! as BinaryValue[]),
      keyStats,
      valueStats: value.stats,
      minSequenceNumber: this.minSeq,
      maxSequenceNumber: this.maxSeq,
      schemaId: this.layout.schemaId,
      level: this.opts.level,
      extraFiles: [],
      creationTime: localNowAsUtcMillis(),
      deleteRowCount: this.deleteRows,
      embeddedIndex: null,
      fileSource: this.opts.fileSource,
      valueStatsCols: value.cols,
      externalPath: null,
      firstRowId: null,
      writeCols: null,
    };
  }
}

/**
 * Writes append-table files (`RowDataFileWriter`): rows over the table's fields, sequence
 * numbers counted from `startSequenceNumber` (the next number of the bucket for new data,
 * the first input file's minimum for compaction rewrites). With `rowTrackingColumns`, a file's
 * sequence range is the minimum and maximum of its rows' `_SEQUENCE_NUMBER` instead (Paimon 2.0's
 * `RowDataFileSequenceNumberTracker`), and its writeCols name every column it holds.
 */
export class AppendDataFileWriter extends RollingDataFileWriter {
  private nextSeq: bigint;
  private fileStartSeq: bigint;
  private readonly tracked: boolean;
  private trackedMin: bigint | null = null;
  private trackedMax: bigint | null = null;

  constructor(opts: DataFileWriterOptions & { startSequenceNumber: bigint }) {
    super(opts);
    if (this.layout.isPrimaryKey) throw new PaimonError('INVALID_ARGUMENT', `${this.where}: the table has a primary key; use KeyValueDataFileWriter`);
    this.nextSeq = opts.startSequenceNumber;
    this.fileStartSeq = opts.startSequenceNumber;
    this.tracked = opts.rowTrackingColumns === true;
  }

  async write(rows: Iterable<InternalRow>): Promise<void> {
    for (const row of rows) {
      const p = this.addPhysical(row);
      if (p) await p;
    }
  }

  /** The sequence number the next row will get. */
  nextSequenceNumber(): bigint {
    return this.nextSeq;
  }

  protected onRowAdded(row: InternalRow): void {
    this.nextSeq++;
    if (!this.tracked) return;
    const seq = row[row.length - 1] as bigint;
    if (this.trackedMin === null || seq < this.trackedMin) this.trackedMin = seq;
    if (this.trackedMax === null || seq > this.trackedMax) this.trackedMax = seq;
  }

  protected resetFileState(): void {
    this.fileStartSeq = this.nextSeq;
    this.trackedMin = null;
    this.trackedMax = null;
  }

  protected fileMeta(base: { fileName: string; fileSize: bigint; rowCount: bigint; physicalStats: SimpleColStats[] }): DataFileMeta {
    const value = this.valueStats(base.physicalStats, 0);
    return {
      fileName: base.fileName,
      fileSize: base.fileSize,
      rowCount: base.rowCount,
      minKey: BinaryRow.EMPTY_ROW,
      maxKey: BinaryRow.EMPTY_ROW,
      keyStats: EMPTY_STATS,
      valueStats: value.stats,
      minSequenceNumber: this.tracked ? (this.trackedMin ?? 0n) : this.fileStartSeq,
      maxSequenceNumber: this.tracked ? (this.trackedMax ?? 0n) : this.nextSeq - 1n,
      schemaId: this.layout.schemaId,
      level: this.opts.level,
      extraFiles: [],
      creationTime: localNowAsUtcMillis(),
      deleteRowCount: 0n,
      embeddedIndex: null,
      fileSource: this.opts.fileSource,
      valueStatsCols: value.cols,
      externalPath: null,
      firstRowId: null,
      writeCols: this.tracked ? this.layout.physicalFields.map((f) => f.name) : null,
    };
  }
}

/**
 * One Parquet file of metadata records (manifest entries, manifest file metas, index manifest
 * entries: Avro-shaped objects keyed by field name) in the given row type with its field ids,
 * as `ManifestFile`/`ManifestList` write it when `manifest.format` is parquet. The file is
 * small (a manifest rolls at 8 MiB), so it is returned whole.
 */
export async function encodeParquetRecords(
  fields: readonly DataFieldSpec[],
  records: Iterable<object>,
  o: { compression: string; zstdLevel?: number; what: string; engine?: DataEngine | null },
): Promise<Buffer> {
  const conn = await connectDuckDB(o.engine);
  const sink = new ParquetFileSink(conn, fields, fields.map((f) => recordToDuckConverter(f.type)), o.what, topLevelFieldIdsOption(fields));
  const local = join(dataTempDir(), `${randomUUID()}-metadata.parquet`);
  try {
    await sink.open();
    for (const r of records) sink.add(fields.map((f) => (r as Record<string, unknown>)[f.name]) as InternalRow);
    await sink.finish(local, o.compression, o.zstdLevel ?? 1);
    return await readFile(local);
  } catch (e) {
    await sink.drop().catch(() => undefined);
    throw e;
  } finally {
    conn.closeSync();
    await rm(local, { force: true });
  }
}

export { FileSource };
export type { Decimal };
