/**
 * Compaction of data-evolution tables (`data-evolution.enabled`, row tracking, bucket -1), as
 * Paimon 2.0's Spark `CompactProcedure.compactDataEvolutionTable` runs it: the plan of
 * `DataEvolutionCompactCoordinator` (blob and vector files not compacted, as the procedure asks),
 * each task rewritten as `DataEvolutionNormalCompactTask` does.
 *
 * Planning, per partition, files in manifest order (`CompactPlanner.compactPlan`):
 *  - files whose row-id ranges overlap or touch ([firstRowId, firstRowId + rowCount]) form a group;
 *  - inside a group, files of the same row-id range form a file group (they hold different
 *    columns of the same rows); its weight is the sum of max(file size, open-file cost);
 *  - file groups are packed in row-id order into a bin: a file group heavier than
 *    target-file-size closes the bin and is a bin of its own; a bin heavier than the target is
 *    closed; the rest is closed at the end of the group;
 *  - a closed bin with at least `compaction.min.file-num` files is a task.
 * A task is read in row-id order and written as ONE new file (the task's write options lift the
 * target size), which gets the first row id of the task's first file and the sequence range of all
 * its files; it is a plain append-source file (`AppendOnlyWriter`) whose writeCols are null, so
 * rows keep their row ids (firstRowId + position) and the commit assigns none.
 *
 * What this proxy does not do, refused before any work with UNSUPPORTED_TABLE naming Spark's
 * CALL sys.compact: files that hold only some columns (writeCols set: written by MERGE INTO or
 * UPDATE of some columns, merged field by field by Paimon's data-evolution reader), blob and
 * vector-store files, deletion vectors (`DataEvolutionCompactDeletionVectorRewriter`) and index
 * files (`DataEvolutionCompactGlobalIndexDropper`).
 */
import { PaimonError } from '../errors.js';
import type { FileIO } from '../fs/file-io.js';
import type { DataFileMeta } from '../spec/data-file-meta.js';
import { AppendDataFileWriter } from '../data/parquet-writer.js';
import { readValueRows } from '../data/parquet-reader.js';
import { rowEvolution } from '../data/schema-evolution.js';
import { parseMemorySize } from '../spec/core-options.js';
import type { BucketCompactResult } from './compact-table.js';
import type { AppendBucketInput } from './append-compaction.js';

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
    for (const fileGroup of mergeOverlappingRanges(group, (f) => [firstRowIdOf(f), firstRowIdOf(f) + f.rowCount - 1n])) {
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

/** Refuses what the rewrite does not do (see the module comment), before any work. */
export function checkDataEvolutionCompactable(table: string, files: readonly DataFileMeta[], options: Readonly<Record<string, string>>, hasIndexFiles: boolean): void {
  const refuse = (why: string): never => {
    throw new PaimonError('UNSUPPORTED_TABLE', `compact on ${table}: data-evolution ('data-evolution.enabled') tables ${why}; run Spark CALL sys.compact for this table`);
  };
  if (options['deletion-vectors.enabled'] === 'true') refuse('with deletion vectors are not compacted by this proxy');
  if (hasIndexFiles) refuse('with index files (deletion vectors or global indexes) are not compacted by this proxy');
  for (const f of files) {
    if (f.fileName.endsWith('.blob') || f.fileName.includes('.vector.')) refuse(`with blob or vector-store files (${f.fileName}) are not compacted by this proxy`);
    if (f.writeCols !== null) refuse(`with files that hold only some columns (${f.fileName}: ${f.writeCols.join(', ')}) are not compacted by this proxy`);
  }
}

export type DataEvolutionPartitionInput = Pick<AppendBucketInput, 'fileIO' | 'table' | 'bucketDir' | 'files' | 'target' | 'schemaOf' | 'options' | 'targetFileSize' | 'dryRun' | 'signal' | 'onWritten'>;

/** Plans and rewrites one partition (bucket 0) of a data-evolution table. */
export async function compactDataEvolutionPartition(i: DataEvolutionPartitionInput): Promise<BucketCompactResult> {
  const tasks = planDataEvolution(i.files, {
    targetFileSize: i.targetFileSize,
    openFileCost: parseMemorySize(i.options['source.split.open-file-cost'] ?? '4 mb', 'source.split.open-file-cost'),
    minFileNum: Number(i.options['compaction.min.file-num'] ?? '5'),
  });
  const r: BucketCompactResult = { before: [], after: [], written: [], upgraded: 0, rowsRead: 0n, rowsWritten: 0n };
  for (const task of tasks) {
    r.before.push(...task);
    if (i.dryRun) continue;
    const ordered = [...task].sort((a, b) => (firstRowIdOf(a) < firstRowIdOf(b) ? -1 : firstRowIdOf(a) > firstRowIdOf(b) ? 1 : 0));
    // One output file: the task's write options lift the target size (DataEvolutionCompactTask).
    const writer = new AppendDataFileWriter({
      fileIO: i.fileIO, bucketDir: i.bucketDir, schema: i.target, level: 0, fileSource: 0, options: i.options,
      targetFileSize: Number.MAX_SAFE_INTEGER, startSequenceNumber: 0n,
    });
    try {
      let expected = firstRowIdOf(ordered[0]);
      for (const f of ordered) {
        i.signal?.throwIfAborted();
        if (firstRowIdOf(f) !== expected) throw new PaimonError('CORRUPT_METADATA', `data file ${f.fileName} starts at row id ${f.firstRowId}, expected ${expected}`);
        expected += f.rowCount;
        const schema = await i.schemaOf(BigInt(f.schemaId));
        const evolve = rowEvolution(schema.fieldSpecs, i.target.fieldSpecs, `${i.table} file ${f.fileName}`);
        for await (const rows of readValueRows({ fileIO: i.fileIO, path: f.externalPath ?? `${i.bucketDir}/${f.fileName}`, schema, table: i.table })) {
          await writer.write(evolve === null ? rows : rows.map(evolve));
          r.rowsRead += BigInt(rows.length);
          r.rowsWritten += BigInt(rows.length);
        }
      }
      const metas = await writer.close();
      for (const m of metas) i.onWritten(m);
      r.written.push(...metas);
      const min = task.reduce((m, f) => (f.minSequenceNumber < m ? f.minSequenceNumber : m), task[0].minSequenceNumber);
      const max = task.reduce((m, f) => (f.maxSequenceNumber > m ? f.maxSequenceNumber : m), task[0].maxSequenceNumber);
      r.after.push({ ...metas[0], firstRowId: firstRowIdOf(ordered[0]), minSequenceNumber: min, maxSequenceNumber: max });
    } catch (e) {
      await writer.abort().catch(() => undefined);
      throw e;
    }
  }
  return r;
}
