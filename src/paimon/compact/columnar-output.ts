/**
 * What the columnar rewrites of compaction (columnar-merge.ts for primary-key steps,
 * columnar-append.ts for append groups) share: which inputs and columns DuckDB handles exactly as
 * the JS reader and writer do, the per-file statistics as SQL aggregates, the Parquet COPY options
 * of Paimon's layout, and rolling the output by the bytes actually written.
 *
 * Rolling. Java's `RollingFileWriter` closes a file once its written size reaches
 * target-file-size (checked every 1000 records). DuckDB cannot report the size of a Parquet file
 * while writing it, and its own rotation (`COPY ... (FILE_SIZE_BYTES ...)`) writes in parallel
 * without keeping the rows in order across the files, which the sequence numbers and key ranges
 * of the metadata need. So each file is one ordered `COPY` of a row range, whose length is the
 * target size over the bytes per row measured on the files written so far in this rewrite (the
 * Parquet bytes on disk, footer included); the first file, before anything is measured, takes the
 * input's bytes per row (same columns, but another writer's encoding and per-file overhead), and
 * is written once more with its own bytes per row when it lands more than 10% from the target
 * (at most one extra file write per rewrite). Files therefore land near the target, the last one
 * taking the remainder as in Java.
 */
import { randomUUID } from 'node:crypto';
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import type { FileIO } from '../fs/file-io.js';
import type { DataFileMeta } from '../spec/data-file-meta.js';
import type { DataFieldSpec, FieldType } from '../data/field-type.js';
import { fileCompressionForLevel, fileFormatForLevel, formatFromFileName, newDataFileName, zstdLevel } from '../data/data-file-layout.js';
import type { SimpleColStats } from '../data/simple-col-stats.js';
import { duckCompression, publishLocalFile } from '../data/parquet-writer.js';
import { connectDuckDB, dataTempDir, fieldIdsOption, fromDuckConverter, localPathOf, quoteIdent, type DataEngine } from '../data/duckdb-engine.js';

let enabled = true;

/** Turns the columnar rewrites on or off for this process (off: every step takes the JS path; for A/B measurements). */
export function setColumnarMerge(on: boolean): void {
  enabled = on;
}

export function columnarEnabled(): boolean {
  return enabled;
}

/**
 * Whether DuckDB's values, casts, comparisons and min/max of a column type are those of the JS
 * path: no TIME, TIMESTAMP WITH LOCAL TIME ZONE, TIMESTAMP(p>6) or nested types; FLOAT/DOUBLE not
 * in a key, where -0.0/NaN would group differently.
 */
export function supportedType(t: FieldType, inKey: boolean): boolean {
  switch (t.root) {
    case 'BOOLEAN': case 'TINYINT': case 'SMALLINT': case 'INT': case 'BIGINT':
    case 'CHAR': case 'VARCHAR': case 'BINARY': case 'VARBINARY': case 'DECIMAL': case 'DATE':
      return true;
    case 'FLOAT': case 'DOUBLE':
      return !inKey;
    case 'TIMESTAMP':
      return (t.precision ?? 6) <= 6;
    default:
      return false;
  }
}

/** The first value column whose type the columnar path does not take, as a refusal. */
export function columnTypeRefusal(values: readonly DataFieldSpec[], keyValueIndexes: readonly number[] = []): string | null {
  const keyIdx = new Set(keyValueIndexes);
  for (let i = 0; i < values.length; i++) {
    const f = values[i];
    if (!supportedType(f.type, keyIdx.has(i))) return `column ${f.name} type ${f.type.root}`;
  }
  return null;
}

/** The local path DuckDB reads an input file from (null: not local). */
export function inputLocalPath(f: DataFileMeta, bucketDir: string): string | null {
  return localPathOf(f.externalPath ?? `${bucketDir}/${f.fileName}`);
}

/** Why the input files or the output format rule the columnar path out: local Parquet files of the target schema, Parquet output. */
export function filesRefusal(files: readonly DataFileMeta[], o: { bucketDir: string; targetSchemaId: number | bigint; options: Readonly<Record<string, string>>; level: number }): string | null {
  if (files.length === 0) return 'no files';
  const out = fileFormatForLevel(o.options, o.level);
  if (out !== 'parquet') return `output format ${out}`;
  for (const f of files) {
    if (BigInt(f.schemaId) !== BigInt(o.targetSchemaId)) return `file ${f.fileName} has schema ${f.schemaId}`;
    if (formatFromFileName(f.fileName) !== 'parquet') return `file ${f.fileName} is not Parquet`;
    if (inputLocalPath(f, o.bucketDir) === null) return `file ${f.fileName} is not local`;
  }
  return null;
}

// ---------------------------------------------------------------------------------------
// Statistics: SQL aggregates per value column, taken apart as the JS writer's footer stats
// ---------------------------------------------------------------------------------------

const isFloat = (f: DataFieldSpec): boolean => f.type.root === 'FLOAT' || f.type.root === 'DOUBLE';

/** Per value column: null count, min, max (and NaN / signed-zero checks for floats). */
export function columnStatsAggregates(values: readonly DataFieldSpec[]): string[] {
  const aggs: string[] = [];
  for (const f of values) {
    const c = quoteIdent(f.name);
    aggs.push(`count(*) - count(${c})`, `min(${c})`, `max(${c})`);
    if (isFloat(f)) {
      aggs.push(`coalesce(bool_or(isnan(${c})), false)`, `coalesce(bool_or(${c} = 0 AND signbit(${c})), false)`, `coalesce(bool_or(${c} = 0 AND NOT signbit(${c})), false)`);
    }
  }
  return aggs;
}

/** Takes apart the values of `columnStatsAggregates` (read one by one through `next`), before the stats modes. */
export function readColumnStats(values: readonly DataFieldSpec[], next: () => DuckDBValue): SimpleColStats[] {
  const big = (v: DuckDBValue): bigint => (v === null ? 0n : BigInt(v as number | bigint));
  return values.map((f): SimpleColStats => {
    const conv = fromDuckConverter(f.type);
    const nullCount = big(next());
    let min = conv(next());
    let max = conv(next());
    if (isFloat(f)) {
      const nan = next() === true, negZero = next() === true, posZero = next() === true;
      // parquet-java reports no min/max for a column with NaN; Double.compare orders -0.0 below 0.0.
      if (nan) return { min: null, max: null, nullCount };
      if (min === 0) min = negZero ? -0 : 0;
      if (max === 0) max = posZero ? 0 : -0;
    }
    // BINARY min/max: Paimon 1.x statistics (the JS writer's default), counts only.
    if (f.type.root === 'BINARY' || f.type.root === 'VARBINARY' || min === null) return { min: null, max: null, nullCount };
    return { min, max, nullCount };
  });
}

/**
 * The output file index of a row from its position (`pos`, an SQL expression) and the first
 * position of every file after the first.
 */
export function fileIndexSql(pos: string, starts: readonly number[]): string {
  if (starts.length === 0) return '0';
  return `CASE ${starts.map((s, i) => `WHEN ${pos} < ${s} THEN ${i}`).join(' ')} ELSE ${starts.length} END`;
}

// ---------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------

/** COPY options of Paimon's Parquet layout at a level: the level's compression, field ids. */
export function parquetCopyOptions(options: Readonly<Record<string, string>>, level: number, physicalFields: readonly DataFieldSpec[], where: string): { compression: string; copyOptions: string } {
  const compression = fileCompressionForLevel(options, level);
  const codec = duckCompression(compression, where);
  const copyOptions = ['FORMAT parquet', `COMPRESSION ${codec}`, ...(codec === 'zstd' ? [`COMPRESSION_LEVEL ${zstdLevel(options)}`] : []), `FIELD_IDS ${fieldIdsOption(physicalFields)}`].join(', ');
  return { compression, copyOptions };
}

/** Rows of the next file: the target over the bytes per row, at least one, at most what is left. */
export function rowsForNextFile(targetFileSize: number, bytesPerRow: number, remaining: number): number {
  return Math.max(1, Math.min(remaining, Math.floor(targetFileSize / Math.max(bytesPerRow, 1e-9))));
}

/** How far (a fraction of the target) the first file may land from it before it is written again with its own bytes per row. */
const FIRST_FILE_TOLERANCE = 0.1;

/** Whether the first file missed the target: too large, or too small while rows were left for it. */
function firstFileMissed(size: number, targetFileSize: number, tookAll: boolean): boolean {
  if (size > targetFileSize * (1 + FIRST_FILE_TOLERANCE)) return true;
  return !tookAll && size < targetFileSize * (1 - FIRST_FILE_TOLERANCE);
}

export interface RolledFile {
  fileName: string;
  fileSize: bigint;
  /** The rows of the file: positions [from, to) of the rewrite's output. */
  from: number;
  to: number;
}

/**
 * Writes `rows` output rows as files of about `targetFileSize` bytes (see the module comment),
 * each through `copySql` (the rows [from, to) to a local file), published into `bucketDir`.
 * Every published path is pushed to `written` before it appears, for the caller's cleanup.
 */
export async function writeRolling(o: {
  conn: DuckDBConnection;
  fileIO: FileIO;
  bucketDir: string;
  options: Readonly<Record<string, string>>;
  compression: string;
  rows: number;
  inputBytesPerRow: number;
  targetFileSize: number;
  copySql(from: number, to: number, local: string): string;
  written: string[];
  signal?: AbortSignal;
}): Promise<RolledFile[]> {
  const uuid = randomUUID();
  const files: RolledFile[] = [];
  let bytesWritten = 0;
  let firstChecked = false;
  for (let from = 0; from < o.rows;) {
    o.signal?.throwIfAborted();
    let bytesPerRow = from > 0 ? bytesWritten / from : o.inputBytesPerRow;
    const fileName = newDataFileName(o.options, 'parquet', { uuid, count: files.length, compression: o.compression });
    const local = join(dataTempDir(), `${randomUUID()}-${fileName}`);
    const path = `${o.bucketDir.replace(/\/+$/, '')}/${fileName}`;
    try {
      let to: number, size: number;
      for (;;) {
        to = from + rowsForNextFile(o.targetFileSize, bytesPerRow, o.rows - from);
        await o.conn.run(o.copySql(from, to, local));
        size = (await stat(local)).size;
        // The first file's size rests on the input's bytes per row; written once more with its own
        // when that missed the target by more than the tolerance (at most once per rewrite).
        if (firstChecked || !firstFileMissed(size, o.targetFileSize, to === o.rows)) break;
        firstChecked = true;
        bytesPerRow = size / (to - from);
        await rm(local, { force: true });
      }
      firstChecked = true;
      o.written.push(path);
      await publishLocalFile(o.fileIO, local, path);
      files.push({ fileName, fileSize: BigInt(size), from, to });
      bytesWritten += size;
      from = to;
    } finally {
      await rm(local, { force: true });
    }
  }
  return files;
}

/**
 * Runs one columnar rewrite on a connection of its own: a query in flight is interrupted when
 * `signal` aborts, and the files the rewrite recorded in `written` are deleted when it fails.
 * `cleanup` drops what the rewrite left in the connection (temporary tables).
 */
export async function withRewriteConnection<T>(
  o: { engine?: DataEngine | null; fileIO: FileIO; signal?: AbortSignal },
  body: (conn: DuckDBConnection, written: string[]) => Promise<T>,
  cleanup?: (conn: DuckDBConnection) => Promise<unknown>,
): Promise<T> {
  const written: string[] = [];
  const conn = await connectDuckDB(o.engine);
  const onAbort = (): void => conn.interrupt();
  o.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    o.signal?.throwIfAborted();
    return await body(conn, written);
  } catch (e) {
    if (written.length > 0) await o.fileIO.deleteMany([...written]).catch(() => 0);
    if (o.signal?.aborted) throw o.signal.reason;
    throw e;
  } finally {
    o.signal?.removeEventListener('abort', onAbort);
    if (cleanup) await cleanup(conn).catch(() => undefined);
    conn.closeSync();
  }
}
