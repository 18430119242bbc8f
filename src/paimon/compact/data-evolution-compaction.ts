/**
 * Compaction of data-evolution tables (`data-evolution.enabled`, row tracking, bucket -1), as
 * Paimon 2.0's Spark `CompactProcedure.compactDataEvolutionTable` runs it: the plan of
 * `DataEvolutionCompactCoordinator` (blob and vector files not compacted, as the procedure asks),
 * each task rewritten as `DataEvolutionNormalCompactTask` does.
 *
 * Planning, per partition, files in manifest order (`CompactPlanner.compactPlan`):
 *  - files whose row-id ranges overlap or touch ([firstRowId, firstRowId + rowCount]) form a group;
 *  - blob files (`*.blob`) are set aside: they are not compacted and stay live, lined up with
 *    whatever file holds the other columns of their rows;
 *  - inside a group, data files of the same row-id range form a file group (they hold different
 *    columns of the same rows); its weight is the sum of max(file size, open-file cost);
 *  - file groups are packed in row-id order into a bin: a file group heavier than
 *    target-file-size closes the bin and is a bin of its own; a bin heavier than the target is
 *    closed; the rest is closed at the end of the group;
 *  - a closed bin with at least `compaction.min.file-num` files is a task.
 * A task is read file group by file group in row-id order, each merged field by field as the
 * data-evolution read does (data-evolution-merge.ts: the newest file holding a field gives it,
 * fields matched by id over schema evolution), over the write type: the table's current fields
 * minus those kept in blob files. It is written as ONE new file (the task's write options lift
 * the target size), which gets the first row id of the task's first file and the sequence range
 * of all its files; it is a plain append-source file (`AppendOnlyWriter`) whose writeCols are the
 * write type's names, or null when that is every field, so rows keep their row ids
 * (firstRowId + position) and the commit assigns none.
 *
 * What this proxy does not do, refused before any work with UNSUPPORTED_TABLE naming Spark's
 * CALL sys.compact: vector-store files, deletion vectors
 * (`DataEvolutionCompactDeletionVectorRewriter`) and index files
 * (`DataEvolutionCompactGlobalIndexDropper`).
 */
import { PaimonError } from '../errors.js';
import type { DataFileMeta } from '../spec/data-file-meta.js';
import type { DataFieldSpec, FieldType } from '../data/field-type.js';
import type { InternalRow } from '../data/internal-row.js';
import { AppendDataFileWriter } from '../data/parquet-writer.js';
import { readParquetRows } from '../data/parquet-reader.js';
import { rowEvolution } from '../data/schema-evolution.js';
import { optionList, parseMemorySize } from '../spec/core-options.js';
import type { BucketCompactResult } from './compact-table.js';
import type { AppendBucketInput } from './append-compaction.js';
import { fieldsOfFile, mergeFieldRows, planFieldMerge, type FieldMergeFile } from './data-evolution-merge.js';

function firstRowIdOf(f: DataFileMeta): bigint {
  if (f.firstRowId === null) throw new PaimonError('CORRUPT_METADATA', `data file ${f.fileName} of a data-evolution table has no first row id`);
  return f.firstRowId;
}

/** `RangeHelper.mergeOverlappingRanges`: groups of items whose [from, to] ranges overlap, each in input order. */
export function mergeOverlappingRanges<T>(items: readonly T[], range: (t: T) => [bigint, bigint]): T[][] {
  const indexed = items.map((value, i) => ({ value, i, r: range(value) }));
  indexed.sort((a, b) => (a.r[0] !== b.r[0] ? (a.r[0] < b.r[0] ? -1 : 1) : a.r[1] !== b.r[1] ? (a.r[1] < b.r[1] ? -1 : 1) : 0));
  const groups: (typeof indexed)[] = [];
  let end = 0n;
  for (const x of indexed) {
    const current = groups[groups.length - 1];
    if (current !== undefined && x.r[0] <= end) {
      current.push(x);
      if (x.r[1] > end) end = x.r[1];
    } else {
      groups.push([x]);
      end = x.r[1];
    }
  }
  return groups.map((g) => g.sort((a, b) => a.i - b.i).map((x) => x.value));
}

export interface DataEvolutionPlanOptions {
  targetFileSize: number;
  openFileCost: number;
  minFileNum: number;
}

/** `DataEvolutionCompactCoordinator.CompactPlanner` for one partition's data files: the tasks' files. */
export function planDataEvolution(files: readonly DataFileMeta[], o: DataEvolutionPlanOptions): DataFileMeta[][] {
  const tasks: DataFileMeta[][] = [];
  const emit = (bin: DataFileMeta[]): void => {
    if (bin.length >= o.minFileNum) tasks.push(bin);
  };
  // Adjacent files are merged too (the range's end is one past the last row id).
  for (const group of mergeOverlappingRanges(files, (f) => [firstRowIdOf(f), firstRowIdOf(f) + f.rowCount])) {
    let bin: DataFileMeta[] = [];
    let weight = 0;
    // Blob files join the groups but are not compacted (compactBlob = false): they stay live.
    const dataFiles = group.filter((f) => !isBlobFile(f.fileName));
    for (const fileGroup of mergeOverlappingRanges(dataFiles, (f) => [firstRowIdOf(f), firstRowIdOf(f) + f.rowCount - 1n])) {
      const first = fileGroup[0];
      if (fileGroup.some((f) => f.firstRowId !== first.firstRowId || f.rowCount !== first.rowCount)) {
        throw new PaimonError('CORRUPT_METADATA', `data files ${fileGroup.map((f) => f.fileName).join(', ')} overlap in row ids but do not cover the same rows`);
      }
      const w = fileGroup.reduce((s, f) => s + Math.max(Number(f.fileSize), o.openFileCost), 0);
      if (w > o.targetFileSize) {
        emit(bin);
        bin = [];
        weight = 0;
        emit([...fileGroup]);
      } else {
        bin.push(...fileGroup);
        weight += w;
        if (weight > o.targetFileSize) {
          emit(bin);
          bin = [];
          weight = 0;
        }
      }
    }
    emit(bin);
  }
  return tasks;
}

/** `BlobFileFormat.isBlobFile`. */
export function isBlobFile(fileName: string): boolean {
  return fileName.endsWith('.blob');
}

/** `VectorType.isVectorStoreFile`. */
function isVectorStoreFile(fileName: string): boolean {
  return fileName.includes('.vector.');
}

/** `CoreOptions.blobInlineField`: BLOB fields stored inline in the data files (descriptor or view bytes). */
export function blobInlineFields(options: Readonly<Record<string, string>>): Set<string> {
  return new Set([...optionList(options['blob-descriptor-field'] ?? options['blob.stored-descriptor-fields']), ...optionList(options['blob-view-field'])]);
}

/** `BlobType.isBlobFileField`: BLOB, ARRAY<BLOB> and MAP<X, BLOB> fields go to `.blob` files unless stored inline. */
export function isBlobFileField(t: FieldType): boolean {
  return t.root === 'BLOB' || (t.root === 'ARRAY' && t.element.root === 'BLOB') || (t.root === 'MAP' && t.value.root === 'BLOB');
}

/** `BlobType.fieldNamesInBlobFile` over the table's fields. */
export function fieldNamesInBlobFile(fields: readonly DataFieldSpec[], options: Readonly<Record<string, string>>): Set<string> {
  const inline = blobInlineFields(options);
  return new Set(fields.filter((f) => isBlobFileField(f.type) && !inline.has(f.name)).map((f) => f.name));
}

/** Refuses what the rewrite does not do (see the module comment), before any work. */
export function checkDataEvolutionCompactable(table: string, files: readonly DataFileMeta[], options: Readonly<Record<string, string>>, hasIndexFiles: boolean): void {
  const refuse = (why: string): never => {
    throw new PaimonError('UNSUPPORTED_TABLE', `compact on ${table}: data-evolution ('data-evolution.enabled') tables ${why}; run Spark CALL sys.compact for this table`);
  };
  if (options['deletion-vectors.enabled'] === 'true') refuse('with deletion vectors are not compacted by this proxy');
  if (hasIndexFiles) refuse('with index files (deletion vectors or global indexes) are not compacted by this proxy');
  if (options['vector.file.format'] !== undefined) refuse("with vector-store files ('vector.file.format') are not compacted by this proxy");
  for (const f of files) {
    if (isVectorStoreFile(f.fileName)) refuse(`with vector-store files (${f.fileName}) are not compacted by this proxy`);
  }
}

export type DataEvolutionPartitionInput = Pick<AppendBucketInput, 'fileIO' | 'table' | 'bucketDir' | 'files' | 'target' | 'schemaOf' | 'options' | 'targetFileSize' | 'dryRun' | 'signal' | 'onWritten'>;

/**
 * `DataEvolutionNormalCompactTask.readWriteType`: the table's fields except those kept in
 * dedicated blob files; with the writeCols the new file gets (null when that is every field,
 * as `BaseAppendFileStoreWrite.withWriteType` leaves it).
 */
export function dataEvolutionWriteType(target: DataEvolutionPartitionInput['target'], options: Readonly<Record<string, string>>): { fields: DataFieldSpec[]; writeCols: string[] | null } {
  const dedicated = fieldNamesInBlobFile(target.fieldSpecs, options);
  const fields = target.fieldSpecs.filter((f) => !dedicated.has(f.name));
  return { fields, writeCols: fields.length === target.fieldSpecs.length ? null : fields.map((f) => f.name) };
}

/** Plans and rewrites one partition (bucket 0) of a data-evolution table. */
export async function compactDataEvolutionPartition(i: DataEvolutionPartitionInput): Promise<BucketCompactResult> {
  const tasks = planDataEvolution(i.files, {
    targetFileSize: i.targetFileSize,
    openFileCost: parseMemorySize(i.options['source.split.open-file-cost'] ?? '4 mb', 'source.split.open-file-cost'),
    minFileNum: Number(i.options['compaction.min.file-num'] ?? '5'),
  });
  const r: BucketCompactResult = { before: [], after: [], written: [], upgraded: 0, rowsRead: 0n, rowsWritten: 0n };
  const writeType = dataEvolutionWriteType(i.target, i.options);
  const writeNames = new Set(writeType.fields.map((f) => f.name));
  // The writer's schema is the table's, projected on the write type (field ids and stats follow it).
  const writeSchema = { ...i.target, fields: i.target.fields.filter((f) => writeNames.has(f.name)), fieldSpecs: writeType.fields };
  for (const task of tasks) {
    r.before.push(...task);
    if (i.dryRun) continue;
    // One output file: the task's write options lift the target size (DataEvolutionCompactTask).
    const writer = new AppendDataFileWriter({
      fileIO: i.fileIO, bucketDir: i.bucketDir, schema: writeSchema, level: 0, fileSource: 0, options: i.options,
      targetFileSize: Number.MAX_SAFE_INTEGER, startSequenceNumber: 0n,
    });
    try {
      // DataEvolutionSplitRead.mergeRangesAndSort: the task's file groups in row-id order.
      const groups = mergeOverlappingRanges(task, (f) => [firstRowIdOf(f), firstRowIdOf(f) + f.rowCount - 1n]);
      let expected = firstRowIdOf(groups[0][0]);
      for (const group of groups) {
        i.signal?.throwIfAborted();
        const head = group[0];
        if (firstRowIdOf(head) !== expected) throw new PaimonError('CORRUPT_METADATA', `data file ${head.fileName} starts at row id ${head.firstRowId}, expected ${expected}`);
        expected += head.rowCount;
        const n = await rewriteFileGroup(i, group, writeType.fields, writer);
        r.rowsRead += n.read;
        r.rowsWritten += n.written;
      }
      const metas = await writer.close();
      if (metas.length !== 1) throw new PaimonError('CORRUPT_METADATA', `data-evolution compaction of ${task.map((f) => f.fileName).join(', ')} produced ${metas.length} files, expected one`);
      for (const m of metas) i.onWritten(m);
      r.written.push(...metas);
      const min = task.reduce((m, f) => (f.minSequenceNumber < m ? f.minSequenceNumber : m), task[0].minSequenceNumber);
      const max = task.reduce((m, f) => (f.maxSequenceNumber > m ? f.maxSequenceNumber : m), task[0].maxSequenceNumber);
      // Java: the task's first file's first row id (the task is in row-id order), its sequence range.
      r.after.push({ ...metas[0], firstRowId: firstRowIdOf(task[0]), minSequenceNumber: min, maxSequenceNumber: max, writeCols: writeType.writeCols });
    } catch (e) {
      await writer.abort().catch(() => undefined);
      throw e;
    }
  }
  return r;
}

/**
 * Reads one file group (files of the same rows) merged field by field and writes its rows; returns
 * the rows read (over the files that give a field) and written.
 */
async function rewriteFileGroup(i: DataEvolutionPartitionInput, group: readonly DataFileMeta[], readFields: readonly DataFieldSpec[], writer: AppendDataFileWriter): Promise<{ read: bigint; written: bigint }> {
  const where = `${i.table} files ${group.map((f) => f.fileName).join(', ')}`;
  const inputs: FieldMergeFile[] = [];
  for (const f of group) {
    const schema = await i.schemaOf(BigInt(f.schemaId));
    inputs.push({ name: f.fileName, fields: fieldsOfFile(schema.fieldSpecs, f.writeCols), maxSequenceNumber: f.maxSequenceNumber });
  }
  const plan = planFieldMerge(readFields, inputs, where);
  const rowCount = Number(group[0].rowCount);
  const cursors = plan.perFile.map((p, k) => {
    if (p.winners.length === 0) return null;
    const evolve = rowEvolution(p.fileFields, p.winners, `${i.table} file ${group[k].fileName}`);
    const rows = readParquetRows(i.fileIO, group[k].externalPath ?? `${i.bucketDir}/${group[k].fileName}`, p.fileFields, { table: i.table });
    return new RowCursor(rows, evolve);
  });
  try {
    let done = 0;
    while (done < rowCount) {
      i.signal?.throwIfAborted();
      const want = Math.min(4096, rowCount - done);
      const batches: Array<InternalRow[] | null> = [];
      for (const c of cursors) batches.push(c === null ? null : await c.take(want));
      const n = Math.min(want, ...batches.map((b) => (b === null ? want : b.length)));
      if (n === 0) throw new PaimonError('CORRUPT_METADATA', `${where}: a file ends after ${done} rows, its metadata says ${rowCount}`);
      // A cursor that gave more than the shortest keeps the rest for the next round.
      cursors.forEach((c, k) => c?.giveBack(batches[k]!.slice(n)));
      await writer.write(mergeFieldRows(plan, batches.map((b) => (b === null ? null : b.slice(0, n))), n));
      done += n;
    }
    for (const c of cursors) if (c !== null && (await c.take(1)).length > 0) throw new PaimonError('CORRUPT_METADATA', `${where}: a file holds more than the ${rowCount} rows its metadata says`);
  } finally {
    for (const c of cursors) await c?.close();
  }
  return { read: BigInt(rowCount) * BigInt(cursors.filter((c) => c !== null).length), written: BigInt(rowCount) };
}

/** Rows of one file taken a batch at a time, whatever the sizes the reader yields. */
class RowCursor {
  private buffer: InternalRow[] = [];
  constructor(private readonly source: AsyncGenerator<InternalRow[]>, private readonly evolve: ((row: InternalRow) => InternalRow) | null) {}

  async take(n: number): Promise<InternalRow[]> {
    while (this.buffer.length < n) {
      const next = await this.source.next();
      if (next.done === true) break;
      this.buffer.push(...(this.evolve === null ? next.value : next.value.map(this.evolve)));
    }
    const out = this.buffer.slice(0, n);
    this.buffer = this.buffer.slice(n);
    return out;
  }

  giveBack(rows: InternalRow[]): void {
    if (rows.length > 0) this.buffer = [...rows, ...this.buffer];
  }

  async close(): Promise<void> {
    await this.source.return(undefined);
  }
}
