/**
 * The columnar rewrite of a compaction step: DuckDB merges the step's files and writes the new
 * ones, instead of the record-by-record merge in JS (spill-merge.ts + KeyValueDataFileWriter).
 * Used only where it gives exactly the records and the `DataFileMeta` the JS path gives:
 *
 * - merge engine deduplicate or first-row, no `sequence.field` (the merge order is then the key,
 *   the sequence number and the run order), no deletion vectors, no thin mode, not a dry run;
 * - every input file Parquet, local, written with the target schema (no evolution to apply);
 * - column types whose DuckDB values, casts, comparisons and min/max are those of the JS path
 *   (no TIME, TIMESTAMP WITH LOCAL TIME ZONE, TIMESTAMP(p>6) or nested types; FLOAT/DOUBLE only
 *   outside the key, where -0.0/NaN would group differently);
 * - first-row without ignore-delete only when no input file holds a retract (Java fails such a
 *   merge: the JS path raises that error).
 *
 * The merge runs over all files of the step at once (its sections have disjoint keys) in two
 * scans: first, per key, the merge order value of the winner of `ReducerMergeFunctionWrapper`
 * over `DeduplicateMergeFunction` (the last record) or `FirstRowMergeFunction` (the first), the
 * order being (sequence number, run order, row in file), packed in one HUGEINT (the files are
 * listed run by run, so DuckDB's `file_index` is the run order; files of one run never share a
 * key); then the records whose order value is a winner's. The first scan keeps only fixed-size
 * aggregate states, which DuckDB spills beyond its memory limit (states holding the records'
 * strings would not be). A key with one record keeps it whatever its kind; with ignore-delete a
 * key of several records keeps the winner among its non-retract records (they rank above
 * retracts), or nothing. Retracts are dropped when `dropDelete` is set. The result goes, ordered
 * by key, to a temporary table (spilled by DuckDB beyond the compaction engine's memory limit),
 * whose insertion order is the key order.
 *
 * Files roll at `target-file-size` by the bytes actually written (columnar-output.ts
 * `writeRolling`: each file one ordered COPY of a row range sized by the bytes per row of the files
 * written so far, the input's for the first). Each file's statistics are SQL aggregates of its rows
 * (min/max/null count per column, NaN and signed-zero checks for floats), grouped by the files'
 * row ranges, put through the same stats modes as the JS writer (`applyStatsMode`,
 * `denseValueStats`), so the metadata is what `KeyValueDataFileWriter` would write for the same
 * rows (Paimon Java's `KeyValueDataFileWriter` reads it from the footer; both match, see
 * simple-col-stats.ts).
 */
import { randomUUID } from 'node:crypto';
import type { DuckDBValue } from '@duckdb/node-api';
import type { FileIO } from '../fs/file-io.js';
import { toBinaryRow, type BinaryValue } from '../spec/binary-row.js';
import { FileSource, localNowAsUtcMillis, type DataFileMeta } from '../spec/data-file-meta.js';
import { toSimpleStats, type ColumnStats } from '../spec/simple-stats.js';
import type { DataFieldSpec } from '../data/field-type.js';
import type { Datum } from '../data/internal-row.js';
import { dataFileLayout, statsDenseStore, statsModes, type DataFileLayout, type StatsMode, type TableSchemaLike } from '../data/data-file-layout.js';
import { applyStatsMode, denseValueStats, type SimpleColStats } from '../data/simple-col-stats.js';
import { binaryFieldType } from '../data/parquet-writer.js';
import { duckWriteType, fromDuckConverter, quoteIdent, quoteLiteral, type DataEngine } from '../data/duckdb-engine.js';
import type { MergeEngineName } from './merge-function.js';
import { columnarEnabled, columnStatsAggregates, columnTypeRefusal, fileIndexSql, filesRefusal, inputLocalPath, parquetCopyOptions, readColumnStats, withRewriteConnection, writeRolling } from './columnar-output.js';

export { setColumnarMerge } from './columnar-output.js';

export interface ColumnarMergeInput {
  fileIO: FileIO;
  bucketDir: string;
  /** The target schema, with the compaction's options. */
  target: TableSchemaLike & { fieldSpecs: DataFieldSpec[] };
  options: Readonly<Record<string, string>>;
  /** The step's sections (each: sorted runs, each: files in key order); sections have disjoint keys. */
  sections: ReadonlyArray<ReadonlyArray<readonly DataFileMeta[]>>;
  mergeEngine: MergeEngineName;
  ignoreDelete: boolean;
  /** Number of `sequence.field` columns (the path needs none). */
  sequenceFields: number;
  deletionVectors: boolean;
  dryRun: boolean;
  dropDelete: boolean;
  level: number;
  targetFileSize: number;
  /** The compaction's own DuckDB instance. */
  engine?: DataEngine | null;
  signal?: AbortSignal;
}

export interface ColumnarMergeResult {
  files: DataFileMeta[];
  rowsRead: bigint;
  rowsWritten: bigint;
}

/** Run-order tags are `file_index` values packed below the sequence number: at most this many files per step. */
const MAX_FILES = 1 << 16;

/** Why a step does not take the columnar path, or null when it does. */
export function columnarRefusal(o: Omit<ColumnarMergeInput, 'fileIO' | 'engine' | 'signal'>): string | null {
  if (!columnarEnabled()) return 'turned off';
  if (o.dryRun) return 'dry run';
  if (o.mergeEngine !== 'deduplicate' && o.mergeEngine !== 'first-row') return `merge engine ${o.mergeEngine}`;
  if (o.sequenceFields > 0) return 'sequence.field';
  if (o.deletionVectors) return 'deletion vectors';
  const options = { ...o.target.options, ...o.options };
  const layout = dataFileLayout({ ...o.target, options });
  if (layout.thinMode) return 'thin mode';
  const columns = columnTypeRefusal(layout.valueFields, layout.keyValueIndexes);
  if (columns !== null) return columns;
  const files = o.sections.flat(2);
  if (files.length > MAX_FILES) return `more than ${MAX_FILES} files`;
  const inputs = filesRefusal(files, { bucketDir: o.bucketDir, targetSchemaId: o.target.id, options, level: o.level });
  if (inputs !== null) return inputs;
  // FirstRowMergeFunction refuses retracts without ignore-delete; the JS path raises Java's error.
  if (o.mergeEngine === 'first-row' && !o.ignoreDelete && files.some((f) => f.deleteRowCount !== 0n)) return 'first-row input with retracts';
  return null;
}

// ---------------------------------------------------------------------------------------
// Planning: the SQL of a step (pure)
// ---------------------------------------------------------------------------------------

/** 2^56 and 2^40: merge order packed in a HUGEINT as (preference, sequence number, file index, row in file). */
const SEQ_SHIFT = '72057594037927936';
const FILE_SHIFT = '1099511627776';
/** 2^120: above every packed (sequence number, file, row); ranks non-retract records first with ignore-delete. */
const PREFER_SHIFT = '1329227995784915872903807060280344576';
const RETRACT = `"_VALUE_KIND" IN (1, 3)`;

export interface ColumnarMergePlan {
  layout: DataFileLayout;
  /** Local paths of the input files, run by run (their position is DuckDB's `file_index`). */
  inputs: string[];
  inputRows: bigint;
  /** CREATE TEMP TABLE of the merged records in key order, physical columns of the output files. */
  mergeSql(table: string): string;
  /** Per output file (`starts`: the first rowid of every file after the first): the aggregates `fileAggregates` takes apart. */
  statsSql(table: string, starts: readonly number[]): string;
  /** The rows [from, to) of the merged table to a local file (`rows` null: all of them). */
  copySql(table: string, rows: { from: number; to: number } | null, local: string): string;
  /** The input's Parquet bytes per row, for the first output file's size. */
  inputBytesPerRow: number;
  compression: string;
}

export function planColumnarMerge(o: Pick<ColumnarMergeInput, 'bucketDir' | 'target' | 'options' | 'sections' | 'mergeEngine' | 'ignoreDelete' | 'dropDelete' | 'level' | 'targetFileSize'>): ColumnarMergePlan {
  const options = { ...o.target.options, ...o.options };
  const layout = dataFileLayout({ ...o.target, options });
  const where = `data files of ${o.bucketDir}`;
  const files = o.sections.flatMap((s) => s.flat());
  const inputs = files.map((f) => inputLocalPath(f, o.bucketDir)!);
  const inputRows = files.reduce((s, f) => s + f.rowCount, 0n);
  const inputBytes = files.reduce((s, f) => s + f.fileSize, 0n);
  const values = layout.valueFields;
  const keyIdx = layout.keyValueIndexes;
  const writeType = (f: DataFieldSpec): string => duckWriteType(f.type, `${where}, column ${f.name}`);
  const firstRow = o.mergeEngine === 'first-row';

  // Merge order of a record; with ignore-delete, non-retract records rank above retracts (deduplicate
  // takes the greatest, first-row the least).
  const packed = `CAST("_SEQUENCE_NUMBER" AS HUGEINT) * ${SEQ_SHIFT} + CAST(file_index AS HUGEINT) * ${FILE_SHIFT} + file_row_number`;
  const prefer = !o.ignoreDelete ? '' : firstRow ? ` + CASE WHEN ${RETRACT} THEN CAST('${PREFER_SHIFT}' AS HUGEINT) ELSE 0 END` : ` + CASE WHEN ${RETRACT} THEN 0 ELSE CAST('${PREFER_SHIFT}' AS HUGEINT) END`;
  const order = `${packed}${prefer}`;
  const groupKeys = keyIdx.map((i) => quoteIdent(values[i].name));
  const fileList = `[${inputs.map(quoteLiteral).join(', ')}]`;
  const scan = (cols: string): string => `(SELECT ${cols}, ${order} AS _o FROM read_parquet(${fileList}, hive_partitioning = false, file_row_number = true))`;
  // Two passes over the files: the winner's order value per key (fixed-size aggregate states, which
  // DuckDB spills; the records themselves would not be), then the records whose order value is a
  // winner's (unique per record: file and row), the winners being the join's build side.
  const winnerRetract = `${firstRow ? 'arg_min' : 'arg_max'}("_VALUE_KIND", _o) IN (1, 3)`;
  const keep: string[] = [];
  // ReducerMergeFunctionWrapper: a key of one record keeps it; of several, the merge function's
  // result, which is null when ignore-delete skipped every record.
  if (o.ignoreDelete) keep.push(`NOT (count(*) > 1 AND ${winnerRetract})`);
  if (o.dropDelete) keep.push(`NOT ${winnerRetract}`);
  const winners =
    `SELECT ${firstRow ? 'min' : 'max'}(_o) FROM ${scan(['"_SEQUENCE_NUMBER"', '"_VALUE_KIND"', ...groupKeys].join(', '))} ` +
    `GROUP BY ${groupKeys.join(', ')}${keep.length ? ` HAVING ${keep.join(' AND ')}` : ''}`;
  const records = scan(['"_SEQUENCE_NUMBER"', '"_VALUE_KIND"', ...values.map((f) => quoteIdent(f.name))].join(', '));
  const outCols = [
    ...layout.keyFields.map((f, j) => `CAST(${quoteIdent(values[keyIdx[j]].name)} AS ${writeType(f)}) AS ${quoteIdent(f.name)}`),
    `CAST("_SEQUENCE_NUMBER" AS BIGINT) AS "_SEQUENCE_NUMBER"`,
    `CAST("_VALUE_KIND" AS TINYINT) AS "_VALUE_KIND"`,
    ...values.map((f) => `CAST(${quoteIdent(f.name)} AS ${writeType(f)}) AS ${quoteIdent(f.name)}`),
  ];
  const mergeSql = (table: string): string =>
    `CREATE TEMP TABLE ${table} AS SELECT ${outCols.join(', ')} FROM ${records} WHERE _o IN (${winners}) ORDER BY ${groupKeys.join(', ')}`;

  const statsSql = (table: string, starts: readonly number[]): string => {
    const aggs: string[] = [
      'count(*)',
      'min("_SEQUENCE_NUMBER")',
      'max("_SEQUENCE_NUMBER")',
      `count(*) FILTER (WHERE ${RETRACT})`,
      ...layout.keyFields.map((f) => `arg_min(${quoteIdent(f.name)}, rowid)`),
      ...layout.keyFields.map((f) => `arg_max(${quoteIdent(f.name)}, rowid)`),
      ...columnStatsAggregates(values),
    ];
    return `SELECT ${fileIndexSql('rowid', starts)} AS _f, ${aggs.join(', ')} FROM ${table} GROUP BY _f ORDER BY _f`;
  };

  const { compression, copyOptions } = parquetCopyOptions(options, o.level, layout.physicalFields, where);
  const physical = layout.physicalFields.map((f) => quoteIdent(f.name)).join(', ');
  const copySql = (table: string, rows: { from: number; to: number } | null, local: string): string =>
    `COPY (SELECT ${physical} FROM ${table}${rows === null ? '' : ` WHERE rowid >= ${rows.from} AND rowid < ${rows.to}`}) TO ${quoteLiteral(local)} (${copyOptions})`;

  // The output has the same columns through the same kind of encoder.
  const inputBytesPerRow = inputRows > 0n ? Number(inputBytes) / Number(inputRows) : 1;
  return { layout, inputs, inputRows, mergeSql, statsSql, copySql, inputBytesPerRow, compression };
}

/** One output file's statistics as the JS writer collects them (footer statistics, before the stats modes). */
export interface FileAggregates {
  rowCount: bigint;
  minSeq: bigint;
  maxSeq: bigint;
  deleteRows: bigint;
  firstKey: Datum[];
  lastKey: Datum[];
  /** Per value field. */
  footer: SimpleColStats[];
}

/** Takes apart one row of `statsSql` (after the file index column). */
export function fileAggregates(layout: DataFileLayout, row: readonly DuckDBValue[]): FileAggregates {
  let i = 1;
  const next = (): DuckDBValue => row[i++];
  const big = (v: DuckDBValue): bigint => (v === null ? 0n : BigInt(v as number | bigint));
  const rowCount = big(next());
  const minSeq = big(next());
  const maxSeq = big(next());
  const deleteRows = big(next());
  const keyConv = layout.keyFields.map((f) => fromDuckConverter(f.type));
  const firstKey = keyConv.map((c) => c(next()));
  const lastKey = keyConv.map((c) => c(next()));
  const footer = readColumnStats(layout.valueFields, next);
  return { rowCount, minSeq, maxSeq, deleteRows, firstKey, lastKey, footer };
}

/** The DataFileMeta of one output file, as `KeyValueDataFileWriter.fileMeta` builds it. */
export function columnarFileMeta(
  layout: DataFileLayout,
  modes: readonly StatsMode[],
  denseStore: boolean,
  a: FileAggregates,
  file: { fileName: string; fileSize: bigint; level: number },
): DataFileMeta {
  const nKey = layout.keyFields.length;
  const keyTypes = layout.keyFields.map((f) => binaryFieldType(f.type));
  // Physical order: _KEY_ columns (the key's value columns' data), _SEQUENCE_NUMBER, _VALUE_KIND, values.
  const keyStats = layout.keyValueIndexes.map((vi, j) => applyStatsMode(modes[j], a.footer[vi]));
  const valueColStats = a.footer.map((s, i) => applyStatsMode(modes[nKey + 2 + i], s));
  const dense = denseValueStats(layout.valueFields.map((f) => f.name), valueColStats, denseStore);
  const valueTypes = dense.indexes.map((i) => binaryFieldType(layout.valueFields[i].type));
  return {
    fileName: file.fileName,
    fileSize: file.fileSize,
    rowCount: a.rowCount,
    minKey: toBinaryRow(keyTypes, a.firstKey as BinaryValue[]),
    maxKey: toBinaryRow(keyTypes, a.lastKey as BinaryValue[]),
    keyStats: toSimpleStats(keyTypes, keyStats as ColumnStats[]),
    valueStats: toSimpleStats(valueTypes, dense.stats as ColumnStats[]),
    minSequenceNumber: a.minSeq,
    maxSequenceNumber: a.maxSeq,
    schemaId: layout.schemaId,
    level: file.level,
    extraFiles: [],
    creationTime: localNowAsUtcMillis(),
    deleteRowCount: a.deleteRows,
    embeddedIndex: null,
    fileSource: FileSource.COMPACT,
    valueStatsCols: dense.valueStatsCols,
    externalPath: null,
    firstRowId: null,
    writeCols: null,
  };
}

// ---------------------------------------------------------------------------------------
// Execution
// ---------------------------------------------------------------------------------------

/**
 * Merges and writes one compaction step in DuckDB; null when the step does not qualify (the caller
 * then takes the JS merge). On failure the files written so far are deleted.
 */
export async function rewriteColumnar(o: ColumnarMergeInput): Promise<ColumnarMergeResult | null> {
  if (columnarRefusal(o) !== null) return null;
  const plan = planColumnarMerge(o);
  const options = { ...o.target.options, ...o.options };
  const layout = plan.layout;
  const modes = statsModes(options, layout.physicalFields.map((f) => f.name), o.level, { thinModeKeyNames: [] });
  const denseStore = statsDenseStore(options);
  const table = `merged_${randomUUID().replace(/-/g, '')}`;
  return withRewriteConnection(o, async (conn, written) => {
    await conn.run(plan.mergeSql(table));
    const count = Number((await conn.runAndReadAll(`SELECT count(*) FROM ${table}`)).getRows()[0][0]);
    const rolled = await writeRolling({
      conn, fileIO: o.fileIO, bucketDir: o.bucketDir, options, compression: plan.compression, rows: count,
      inputBytesPerRow: plan.inputBytesPerRow, targetFileSize: o.targetFileSize, written, signal: o.signal,
      copySql: (from, to, local) => plan.copySql(table, from === 0 && to === count ? null : { from, to }, local),
    });
    const files: DataFileMeta[] = [];
    if (rolled.length > 0) {
      const stats = (await conn.runAndReadAll(plan.statsSql(table, rolled.slice(1).map((f) => f.from)))).getRows();
      for (const [f, out] of rolled.entries()) {
        files.push(columnarFileMeta(layout, modes, denseStore, fileAggregates(layout, stats[f]), { fileName: out.fileName, fileSize: out.fileSize, level: o.level }));
      }
    }
    return { files, rowsRead: plan.inputRows, rowsWritten: BigInt(count) };
  }, (conn) => conn.run(`DROP TABLE IF EXISTS temp.main.${table}`));
}
