/**
 * The columnar rewrite of an append-compaction group: DuckDB reads the group's files and writes
 * the new ones, instead of `readValueRows` + `AppendDataFileWriter` in JS (append-compaction.ts).
 * Used only where it gives exactly the rows and the `DataFileMeta` the JS path gives:
 *
 * - no deletion vectors, no row tracking / data evolution (their files carry row ids), not a dry
 *   run;
 * - every input file Parquet, local, written with the target schema (no evolution to apply), and
 *   Parquet output;
 * - column types whose DuckDB values and min/max are those of the JS path (columnar-output.ts
 *   `supportedType`).
 *
 * The rows keep the group's order (file by file, rows in file order), as
 * `AppendFileStoreWrite.compactRewrite` reads them; an output row's position in that order is its
 * file's offset (the row counts of the inputs' Parquet footers) plus its row number in the file,
 * and its sequence number is the group's first file's minSequenceNumber plus that position.
 * Files roll by the bytes actually written (columnar-output.ts `writeRolling`); each file is one
 * ordered COPY of a position range, reading only the input files that overlap it. The statistics
 * of all output files come from one more scan of the group, grouped by the files' position ranges
 * (SQL min/max/null counts put through the JS writer's stats modes), so each file's metadata is
 * what `AppendDataFileWriter` (Paimon's `RowDataFileWriter`) writes for the same rows: level 0,
 * file source COMPACT, no keys, sequence range of its rows.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { FileIO } from '../fs/file-io.js';
import { PaimonError } from '../errors.js';
import { FileSource, newAppendFileMeta, type DataFileMeta } from '../spec/data-file-meta.js';
import { toSimpleStats, type ColumnStats } from '../spec/simple-stats.js';
import type { DataFieldSpec } from '../data/field-type.js';
import { dataFileLayout, statsDenseStore, statsModes, type DataFileLayout, type TableSchemaLike } from '../data/data-file-layout.js';
import { applyStatsMode, denseValueStats, type SimpleColStats } from '../data/simple-col-stats.js';
import { binaryFieldType } from '../data/parquet-writer.js';
import { duckWriteType, quoteIdent, quoteLiteral, type DataEngine } from '../data/duckdb-engine.js';
import { columnarEnabled, columnStatsAggregates, columnTypeRefusal, fileIndexSql, filesRefusal, inputLocalPath, parquetCopyOptions, readColumnStats, withRewriteConnection, writeRolling } from './columnar-output.js';

/** Append rewrites always write level 0. */
const LEVEL = 0;

export interface ColumnarAppendInput {
  fileIO: FileIO;
  bucketDir: string;
  /** The target schema, with the compaction's options. */
  target: TableSchemaLike & { fieldSpecs: DataFieldSpec[] };
  options: Readonly<Record<string, string>>;
  /** The group, in the order the JS path reads it. */
  files: readonly DataFileMeta[];
  deletionVectors: boolean;
  dryRun: boolean;
  targetFileSize: number;
  /** The DuckDB instance to use (default: the process's shared one, as the JS writer). */
  engine?: DataEngine | null;
  signal?: AbortSignal;
}

export interface ColumnarAppendResult {
  files: DataFileMeta[];
  rowsRead: bigint;
  rowsWritten: bigint;
}

const isTrue = (v: string | undefined): boolean => v?.trim().toLowerCase() === 'true';

/** Why a group does not take the columnar path, or null when it does. */
export function columnarAppendRefusal(o: Omit<ColumnarAppendInput, 'fileIO' | 'engine' | 'signal'>): string | null {
  if (!columnarEnabled()) return 'turned off';
  if (o.dryRun) return 'dry run';
  const options = { ...o.target.options, ...o.options };
  if (o.deletionVectors || isTrue(options['deletion-vectors.enabled'])) return 'deletion vectors';
  if (isTrue(options['row-tracking.enabled']) || isTrue(options['data-evolution.enabled'])) return 'row tracking';
  const layout = dataFileLayout({ ...o.target, options });
  if (layout.isPrimaryKey) return 'primary-key table';
  const columns = columnTypeRefusal(layout.valueFields);
  if (columns !== null) return columns;
  const files = filesRefusal(o.files, { bucketDir: o.bucketDir, targetSchemaId: o.target.id, options, level: LEVEL });
  if (files !== null) return files;
  const tracked = o.files.find((f) => f.firstRowId !== null);
  return tracked ? `file ${tracked.fileName} has row ids` : null;
}

// ---------------------------------------------------------------------------------------
// Planning: the SQL of a group (pure)
// ---------------------------------------------------------------------------------------

export interface ColumnarAppendPlan {
  layout: DataFileLayout;
  rows: number;
  /** The first position of each input file, and the total. */
  offsets: number[];
  /** The rows at positions [from, to) to a local file. */
  copySql(from: number, to: number, local: string): string;
  /** Per output file (`starts`: the first position of every file after the first): count, then `columnStatsAggregates`. */
  statsSql(starts: readonly number[]): string;
  inputBytesPerRow: number;
  compression: string;
}

/** `fileRows`: the row count of each input file (from its footer), in group order. */
export function planColumnarAppend(o: Pick<ColumnarAppendInput, 'bucketDir' | 'target' | 'options' | 'files'>, fileRows: readonly number[]): ColumnarAppendPlan {
  const options = { ...o.target.options, ...o.options };
  const layout = dataFileLayout({ ...o.target, options });
  const where = `data files of ${o.bucketDir}`;
  const inputs = o.files.map((f) => inputLocalPath(f, o.bucketDir)!);
  const offsets = [0];
  for (const n of fileRows) offsets.push(offsets[offsets.length - 1] + n);
  const rows = offsets[offsets.length - 1];
  const values = layout.valueFields;
  const cols = values.map((f) => `CAST(${quoteIdent(f.name)} AS ${duckWriteType(f.type, `${where}, column ${f.name}`)}) AS ${quoteIdent(f.name)}`).join(', ');

  // The input files [a, b] with each row's position in the group.
  const scan = (a: number, b: number): string => {
    const list = `[${inputs.slice(a, b + 1).map(quoteLiteral).join(', ')}]`;
    const starts = `[${offsets.slice(a, b + 1).map((n) => `${n}::BIGINT`).join(', ')}]`;
    return `(SELECT ${cols}, ${starts}[CAST(file_index AS BIGINT) + 1] + file_row_number AS _pos FROM read_parquet(${list}, hive_partitioning = false, file_row_number = true))`;
  };
  const { compression, copyOptions } = parquetCopyOptions(options, LEVEL, layout.physicalFields, where);
  const physical = values.map((f) => quoteIdent(f.name)).join(', ');
  const copySql = (from: number, to: number, local: string): string => {
    // Only the files holding positions [from, to); the first and last may hold others too.
    let a = 0;
    while (offsets[a + 1] <= from) a++;
    let b = a;
    while (offsets[b + 1] < to) b++;
    const whole = offsets[a] === from && offsets[b + 1] === to;
    return `COPY (SELECT ${physical} FROM ${scan(a, b)}${whole ? '' : ` WHERE _pos >= ${from} AND _pos < ${to}`}) TO ${quoteLiteral(local)} (${copyOptions})`;
  };
  const statsSql = (starts: readonly number[]): string =>
    `SELECT ${fileIndexSql('_pos', starts)} AS _f, count(*), ${columnStatsAggregates(values).join(', ')} FROM ${scan(0, inputs.length - 1)} GROUP BY _f ORDER BY _f`;
  const inputBytes = o.files.reduce((s, f) => s + Number(f.fileSize), 0);
  return { layout, rows, offsets, copySql, statsSql, inputBytesPerRow: rows > 0 ? inputBytes / rows : 1, compression };
}

/** The DataFileMeta of one output file, as `AppendDataFileWriter` (`RowDataFileWriter.result`) builds it. */
export function appendFileMeta(
  layout: DataFileLayout,
  valueStats: readonly SimpleColStats[],
  denseStore: boolean,
  file: { fileName: string; fileSize: bigint; rowCount: bigint; minSequenceNumber: bigint },
): DataFileMeta {
  const dense = denseValueStats(layout.valueFields.map((f) => f.name), valueStats, denseStore);
  const types = dense.indexes.map((i) => binaryFieldType(layout.valueFields[i].type));
  return newAppendFileMeta({
    fileName: file.fileName,
    fileSize: file.fileSize,
    rowCount: file.rowCount,
    valueStats: toSimpleStats(types, dense.stats as ColumnStats[]),
    minSequenceNumber: file.minSequenceNumber,
    maxSequenceNumber: file.minSequenceNumber + file.rowCount - 1n,
    schemaId: layout.schemaId,
    level: LEVEL,
    fileSource: FileSource.COMPACT,
    valueStatsCols: dense.valueStatsCols,
  });
}

// ---------------------------------------------------------------------------------------
// Execution
// ---------------------------------------------------------------------------------------

/** The row count of each file from its Parquet footer, in the given order. */
async function footerRowCounts(conn: DuckDBConnection, paths: readonly string[]): Promise<number[]> {
  const rows = (await conn.runAndReadAll(`SELECT file_name, num_rows FROM parquet_file_metadata([${paths.map(quoteLiteral).join(', ')}])`)).getRows();
  const byName = new Map(rows.map((r) => [String(r[0]), Number(r[1])] as const));
  return paths.map((p) => {
    const n = byName.get(p);
    if (n === undefined) throw new PaimonError('CORRUPT_METADATA', `cannot read the Parquet footer of ${p}; check the file, or compact with the engine's sys.compact`);
    return n;
  });
}

/**
 * Rewrites one append-compaction group in DuckDB; null when it does not qualify (the caller then
 * takes the JS path). On failure the files written so far are deleted.
 */
export async function rewriteAppendColumnar(o: ColumnarAppendInput): Promise<ColumnarAppendResult | null> {
  if (columnarAppendRefusal(o) !== null) return null;
  const options = { ...o.target.options, ...o.options };
  return withRewriteConnection(o, async (conn, written) => {
    const plan = planColumnarAppend(o, await footerRowCounts(conn, o.files.map((f) => inputLocalPath(f, o.bucketDir)!)));
    const layout = plan.layout;
    const modes = statsModes(options, layout.physicalFields.map((f) => f.name), LEVEL, { thinModeKeyNames: [] });
    const rolled = await writeRolling({
      conn, fileIO: o.fileIO, bucketDir: o.bucketDir, options, compression: plan.compression, rows: plan.rows,
      inputBytesPerRow: plan.inputBytesPerRow, targetFileSize: o.targetFileSize, written, signal: o.signal, copySql: plan.copySql,
    });
    const files: DataFileMeta[] = [];
    if (rolled.length > 0) {
      o.signal?.throwIfAborted();
      const stats = (await conn.runAndReadAll(plan.statsSql(rolled.slice(1).map((f) => f.from)))).getRows();
      const start = o.files[0].minSequenceNumber;
      for (const [f, out] of rolled.entries()) {
        let i = 1;
        const rowCount = BigInt(stats[f][i++] as number | bigint);
        if (rowCount !== BigInt(out.to - out.from)) throw new PaimonError('CORRUPT_METADATA', `${o.bucketDir}: the input files hold ${rowCount} rows for ${out.fileName} where their Parquet footers give ${out.to - out.from}; check the files, or compact with the engine's sys.compact`);
        const footer = readColumnStats(layout.valueFields, () => stats[f][i++]);
        const valueStats = footer.map((s, c) => applyStatsMode(modes[c], s));
        files.push(appendFileMeta(layout, valueStats, statsDenseStore(options), { fileName: out.fileName, fileSize: out.fileSize, rowCount, minSequenceNumber: start + BigInt(out.from) }));
      }
    }
    return { files, rowsRead: BigInt(plan.rows), rowsWritten: BigInt(plan.rows) };
  });
}
