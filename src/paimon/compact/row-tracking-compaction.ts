/**
 * Compaction of row-tracking append tables (`row-tracking.enabled`, bucket -1), as Paimon's Spark
 * `CompactProcedure.compactUnAwareBucketTable` does it: the plan is the unaware-bucket append plan
 * (`AppendCompactCoordinator`, append-compaction.ts), and the rewrite reads every row with its
 * row-tracking fields and writes them as physical columns (`SpecialFields.rowTypeWithRowTracking`
 * as the write type), so row ids and per-row sequence numbers survive the compaction.
 *
 * With deletion vectors (allowed beside row tracking by Paimon 1.4 and 2.0, not beside data
 * evolution in 1.4) the plan and the index changes are those of any unaware-bucket append table
 * (append-dv.ts; `AppendCompactTask` restores the partition's `AppendDeleteFileMaintainer` and
 * persists it after the rewrite): the deleted rows are dropped, and the live ones keep the row id
 * of their position in the file they came from, since a vector deletes positions and never shifts
 * the ones after it.
 *
 * Reading (`DataFileRecordReader` / `ColumnarRowIterator.assignRowTracking`): a row's `_ROW_ID` is
 * the file's physical column when it has one and the value is set, else the file's firstRowId plus
 * the row's position in the file (deleted rows count); its `_SEQUENCE_NUMBER` likewise falls back
 * to the file's maxSequenceNumber.
 *
 * The new files keep firstRowId null, fileSource COMPACT and writeCols = the table's fields then
 * `_ROW_ID`, `_SEQUENCE_NUMBER` (`BaseAppendFileStoreWrite.createRollingFileWriter`); their
 * sequence range is that of the rows' `_SEQUENCE_NUMBER` (Paimon 2.0's
 * `RowDataFileSequenceNumberTracker`). The commit assigns them no row ids and leaves nextRowId
 * as it is (`RowTrackingCommitUtils` assigns ids only to APPEND files without `_ROW_ID`).
 */
import { PaimonError } from '../errors.js';
import type { FileIO } from '../fs/file-io.js';
import type { DataFileMeta } from '../spec/data-file-meta.js';
import type { InternalRow } from '../data/internal-row.js';
import { ROW_ID_FIELD, SEQUENCE_NUMBER_FIELD, dataFileLayout, type TableSchemaLike } from '../data/data-file-layout.js';
import { readParquetRows } from '../data/parquet-reader.js';
import { optionBool } from '../spec/core-options.js';

/** Whether compaction must carry the row-tracking fields (`CoreOptions.rowTrackingEnabled`). */
export function rowTrackingEnabled(options: Readonly<Record<string, string>>): boolean {
  return optionBool(options['row-tracking.enabled']);
}

/** A row's `_ROW_ID` and `_SEQUENCE_NUMBER` from its physical values, else the file's (null: not physical). */
export function trackedFields(file: Pick<DataFileMeta, 'fileName' | 'firstRowId' | 'maxSequenceNumber'>, position: number, rowId: bigint | null, seq: bigint | null): [bigint, bigint] {
  if (rowId === null) {
    if (file.firstRowId === null) throw new PaimonError('CORRUPT_METADATA', `data file ${file.fileName} of a row-tracking table has neither a first row id nor a _ROW_ID column`);
    rowId = file.firstRowId + BigInt(position);
  }
  return [rowId, seq ?? file.maxSequenceNumber];
}

export interface RowTrackedReadOptions {
  fileIO: FileIO;
  path: string;
  file: DataFileMeta;
  /** The schema the file was written with. */
  schema: TableSchemaLike;
  table: string;
  /** Maps a row of the file's schema to the target schema (null: the same schema). */
  evolve: ((row: InternalRow) => InternalRow) | null;
  deletionVector?: { isDeleted(position: number): boolean } | null;
}

/** The live rows of a file over the target schema, each followed by its `_ROW_ID` and `_SEQUENCE_NUMBER`. */
export async function* readRowTrackedRows(o: RowTrackedReadOptions): AsyncGenerator<InternalRow[]> {
  const values = dataFileLayout(o.schema).valueFields;
  const n = values.length;
  const nullable = (f: typeof ROW_ID_FIELD): typeof ROW_ID_FIELD => ({ ...f, type: { ...f.type, nullable: true } });
  const fields = [...values, nullable(ROW_ID_FIELD), nullable(SEQUENCE_NUMBER_FIELD)];
  const dv = o.deletionVector ?? null;
  let position = 0;
  // Positions count every row of the file: the vector is applied here, not by the reader.
  for await (const rows of readParquetRows(o.fileIO, o.path, fields, { table: o.table })) {
    const out: InternalRow[] = [];
    for (const row of rows) {
      const p = position++;
      if (dv !== null && dv.isDeleted(p)) continue;
      const [rowId, seq] = trackedFields(o.file, p, row[n] as bigint | null, row[n + 1] as bigint | null);
      const value = row.slice(0, n);
      out.push([...(o.evolve === null ? value : o.evolve(value)), rowId, seq]);
    }
    if (out.length > 0) yield out;
  }
}
