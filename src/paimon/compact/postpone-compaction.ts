/**
 * Compaction of a postpone-bucket primary-key table (`bucket = -2`), as Flink's `CALL sys.compact`
 * does it in Paimon 2.0 (`CompactAction.buildForPostponeBucketCompaction`): writers leave their
 * records in `bucket-postpone` unsorted and unmerged (`PostponeBucketWriter`, Avro files named
 * `<prefix>-u-<commit user>-s-<write id>-w-...`); the compaction gives every affected partition
 * its real buckets and moves the records there, all in one COMPACT snapshot.
 *
 * Per partition that has postpone files (or real buckets with level-0 files):
 * - the number of buckets (`PostponeUtils.determineBucketNum`): the partition's known
 *   `totalBuckets` (its real-bucket entries, which must agree), else, with
 *   `postpone.target-row-num-per-bucket`, ceil(postpone rows / target), else
 *   `postpone.default-bucket-num`, whose default is 1: Flink's compact reads the option with its
 *   default (Spark's `SparkPostponeCompactProcedure` and batch writes fall back to the engine's
 *   parallelism instead), so the result does not depend on how many cores run it;
 * - the postpone files are replayed in creation-time order (`PostponeBucketCompactSplitSource`
 *   sorts them so; equal times keep manifest order), each file's records in file order, and every
 *   record goes to `Math.abs(hash(bucket key) % n)` (`FixedBucketRowKeyExtractor`,
 *   `DefaultBucketFunction`; bucket key = `bucket-key`, else the trimmed primary key);
 * - in each bucket the records get sequence numbers after the bucket's highest one (the writer
 *   restored from the snapshot), in arrival order, and the write buffer's flush is reproduced:
 *   sorted by key (then `sequence.field`, then sequence number), merged per key by the table's
 *   merge function, written as level-0 files (`FileSource.APPEND`), retract records kept;
 * - the bucket is then compacted as `write.compact(partition, bucket, false)` does: universal
 *   picking over its files (existing ones plus the new level-0 files; universal-compaction.ts);
 *   with fewer than `num-sorted-run.compaction-trigger` runs nothing is picked, else the unit is
 *   planned and rewritten as `MergeTreeCompactTask` does (interval-partition.ts sections, the
 *   k-way merge of sorted-run-merge.ts, retracts dropped at the bucket's highest level). New files
 *   the rewrite consumed are deleted, never committed; existing files it consumed are deleted in
 *   the same snapshot.
 *
 * The snapshot holds DELETE entries for every postpone file read (and for real-bucket files a
 * compaction consumed) and ADD entries (bucket b,
 * `totalBuckets` n) for the new files (`PostponeBucketCommittableRewriter`: new files become compact
 * results). Postpone files written after the pinned snapshot stay for the next compaction; a
 * second compaction of a partition with real buckets uses their bucket count and appends new
 * level-0 files next to the existing ones.
 *
 * Not reproduced: the write buffer filling up (`write-buffer-size`, 256 mb) before the end, which
 * makes Java flush several level-0 files per bucket; here a partition's postpone records must fit
 * the memory budget, else the call is refused. Refused (Flink refuses them too): partitions /
 * where filters, `buckets`, `partition_idle_time`. Refused (they need Paimon's lookup or changelog
 * files): deletion vectors, first-row, `force-lookup`, `changelog-producer` other than none,
 * `compaction.force-up-level-0`, the early full-compaction options; bucket functions other than
 * the default.
 */
import { randomUUID } from 'node:crypto';
import { PaimonError } from '../errors.js';
import { defaultBucket, toBinaryRow, type BinaryFieldType, type BinaryRow, type BinaryValue } from '../spec/binary-row.js';
import type { DataFileMeta } from '../spec/data-file-meta.js';
import { toDeleteEntry, type ManifestEntry } from '../spec/manifest-entry.js';
import { POSTPONE_BUCKET } from '../spec/partition-path.js';
import type { Snapshot } from '../spec/snapshot.js';
import type { TableSchema } from '../spec/table-schema.js';
import { optionBool as bool, optionList, parseMemorySize } from '../spec/core-options.js';
import { FileStoreCommit } from '../table/file-store-commit.js';
import { SchemaManager } from '../table/schema-manager.js';
import type { DataFieldSpec } from '../data/field-type.js';
import type { TableSchemaLike } from '../data/data-file-layout.js';
import type { KeyValue } from '../data/internal-row.js';
import { KeyValueDataFileWriter, binaryFieldType } from '../data/parquet-writer.js';
import { FileSource } from '../spec/data-file-meta.js';
import { createMergeFunction } from './merge-function.js';
import { binaryKeyComparator, levelSortedRuns, planSections, type CompactUnit } from './interval-partition.js';
import { pickUniversal, universalOptions } from './universal-compaction.js';
import { mergeRuns, readRun, recordComparator, type MergeOrder, type RunSource } from './sorted-run-merge.js';
import { emptyCompactResult, sequenceFieldsOf, tableKeyLayout, type CompactTableOptions, type CompactTableResult } from './compact-table.js';

// ---------------------------------------------------------------- pure planning

/** Where a partition's bucket count comes from (`PostponeUtils.PostponeBucketAssigner`). */
export interface PostponeBucketAssigner {
  /** Partition key -> `totalBuckets` of its real-bucket files. */
  knownNumBuckets: ReadonlyMap<string, number>;
  /** `postpone.target-row-num-per-bucket`, or null. */
  targetRowNumPerBucket: bigint | null;
  /** Partition key -> rows in its postpone files (only used with a target row number). */
  postponeRowCounts: ReadonlyMap<string, bigint>;
  /** `postpone.default-bucket-num` (default 1). */
  defaultBucketNum: number;
}

/** `PostponeUtils.computeBucketNumByRowCount`: ceil(rows / target), at least 1. */
export function computeBucketNumByRowCount(rowCount: bigint, targetRowNumPerBucket: bigint): number {
  if (targetRowNumPerBucket <= 0n) throw new PaimonError('INVALID_ARGUMENT', "option 'postpone.target-row-num-per-bucket' must be greater than 0");
  const n = rowCount <= 0n ? 1n : (rowCount - 1n) / targetRowNumPerBucket + 1n;
  if (n > 2147483647n) {
    throw new PaimonError('INVALID_ARGUMENT', `the computed postpone bucket number ${n} exceeds 2147483647; increase 'postpone.target-row-num-per-bucket'`);
  }
  return Number(n);
}

/** `PostponeUtils.determineBucketNum`: known buckets, else by row count, else the default. */
export function determineBucketNum(partitionKey: string, a: PostponeBucketAssigner): number {
  const known = a.knownNumBuckets.get(partitionKey);
  if (known !== undefined) return known;
  if (a.targetRowNumPerBucket !== null) return computeBucketNumByRowCount(a.postponeRowCounts.get(partitionKey) ?? 0n, a.targetRowNumPerBucket);
  return a.defaultBucketNum;
}

function positiveInt(options: Readonly<Record<string, string>>, key: string): number | null {
  const v = options[key];
  if (v === undefined) return null;
  const n = Number(v.trim());
  if (!Number.isInteger(n) || n <= 0) throw new PaimonError('INVALID_ARGUMENT', `option '${key}' must be a positive integer, got '${v}'`);
  return n;
}

/** The assigner of a snapshot's live entries (`getKnownNumBuckets`, `getPostponeRowCounts`). */
export function postponeBucketAssigner(live: readonly ManifestEntry[], options: Readonly<Record<string, string>>): PostponeBucketAssigner {
  const known = new Map<string, number>();
  const rows = new Map<string, bigint>();
  for (const e of live) {
    const pk = e.partition.key();
    if (e.bucket === POSTPONE_BUCKET) {
      rows.set(pk, (rows.get(pk) ?? 0n) + e.file.rowCount);
      continue;
    }
    if (e.bucket < 0 || e.totalBuckets < 0) continue;
    const prev = known.get(pk);
    if (prev !== undefined && prev !== e.totalBuckets) {
      throw new PaimonError('CORRUPT_METADATA', `partition ${pk} has files with different totalBuckets ${prev} and ${e.totalBuckets}`);
    }
    known.set(pk, e.totalBuckets);
  }
  const target = options['postpone.target-row-num-per-bucket'];
  let targetRows: bigint | null = null;
  if (target !== undefined) {
    if (!/^\s*-?\d+\s*$/.test(target)) throw new PaimonError('INVALID_ARGUMENT', `option 'postpone.target-row-num-per-bucket' must be an integer, got '${target}'`);
    targetRows = BigInt(target.trim());
    if (targetRows <= 0n) throw new PaimonError('INVALID_ARGUMENT', "option 'postpone.target-row-num-per-bucket' must be greater than 0");
  }
  return { knownNumBuckets: known, targetRowNumPerBucket: targetRows, postponeRowCounts: rows, defaultBucketNum: positiveInt(options, 'postpone.default-bucket-num') ?? 1 };
}

/** `PostponeBucketFileStoreWrite.getWriterPrefix`: the name up to and including `-w-`. */
export function postponeWriterPrefix(fileName: string): string {
  const i = fileName.lastIndexOf('-w-');
  if (i < 0) throw new PaimonError('CORRUPT_METADATA', `data file ${fileName} in bucket-postpone does not follow the postpone writer naming`);
  return fileName.slice(0, i + 3);
}

/** The replay order of a partition's postpone files: creation time, equal times in manifest order. */
export function orderPostponeFiles<T extends { file: Pick<DataFileMeta, 'creationTime'> }>(entries: readonly T[]): T[] {
  return entries
    .map((e, i) => ({ e, i }))
    .sort((x, y) => {
      const a = x.e.file.creationTime ?? 0n, b = y.e.file.creationTime ?? 0n;
      return a < b ? -1 : a > b ? 1 : x.i - y.i;
    })
    .map((x) => x.e);
}

/** Positions (in the value row) and binary types of the bucket key (`bucket-key`, else the trimmed primary key). */
export function postponeBucketKey(schema: Pick<TableSchema, 'primaryKeys' | 'partitionKeys'>, fields: readonly DataFieldSpec[], options: Readonly<Record<string, string>>, table: string): { indexes: number[]; types: BinaryFieldType[] } {
  const trimmed = schema.primaryKeys.filter((k) => !schema.partitionKeys.includes(k));
  const configured = optionList(options['bucket-key']);
  const names = configured.length > 0 ? configured : trimmed;
  for (const n of names) {
    if (!trimmed.includes(n)) throw new PaimonError('CORRUPT_METADATA', `${table}: bucket key ${n} of a postpone-bucket table must be part of the trimmed primary key`);
  }
  const indexes = names.map((n) => fields.findIndex((f) => f.name === n));
  return { indexes, types: indexes.map((i) => binaryFieldType(fields[i].type)) };
}

/** One partition of the plan. */
export interface PostponePartitionPlan {
  partition: BinaryRow;
  numBuckets: number;
  /** Postpone entries in replay order. */
  postpone: ManifestEntry[];
  /** Real-bucket files by bucket (the buckets a writer would restore). */
  real: Map<number, DataFileMeta[]>;
  /** Their live entries by file name (what a compaction of them deletes). */
  realEntries: Map<string, ManifestEntry>;
}

/**
 * The affected partitions of a snapshot (`CompactAction`): those with postpone files, and those
 * with level-0 files in a real bucket (`PostponeUtils.getLevel0Buckets`), in first-seen order.
 */
export function planPostponeCompaction(live: readonly ManifestEntry[], assigner: PostponeBucketAssigner): PostponePartitionPlan[] {
  const byPartition = new Map<string, { partition: BinaryRow; postpone: ManifestEntry[]; real: Map<number, DataFileMeta[]>; realEntries: Map<string, ManifestEntry>; level0: boolean }>();
  for (const e of live) {
    const pk = e.partition.key();
    let p = byPartition.get(pk);
    if (!p) byPartition.set(pk, (p = { partition: e.partition, postpone: [], real: new Map(), realEntries: new Map(), level0: false }));
    if (e.bucket === POSTPONE_BUCKET) p.postpone.push(e);
    else if (e.bucket >= 0) {
      let files = p.real.get(e.bucket);
      if (!files) p.real.set(e.bucket, (files = []));
      files.push(e.file);
      p.realEntries.set(e.file.fileName, e);
      if (e.totalBuckets > 0 && e.file.level === 0) p.level0 = true;
    }
  }
  const out: PostponePartitionPlan[] = [];
  for (const [pk, p] of byPartition) {
    if (p.postpone.length === 0 && !p.level0) continue;
    out.push({ partition: p.partition, numBuckets: determineBucketNum(pk, assigner), postpone: orderPostponeFiles(p.postpone), real: p.real, realEntries: p.realEntries });
  }
  return out;
}

/** Sequence numbers of a bucket's new records start after its highest one (`MergeTreeWriter`). */
export function nextSequenceNumber(files: readonly Pick<DataFileMeta, 'maxSequenceNumber'>[]): bigint {
  let max = -1n;
  for (const f of files) if (f.maxSequenceNumber > max) max = f.maxSequenceNumber;
  return max + 1n;
}

/** Table checks of this path, before any work (the generic ones are checkCompactable's). */
export function checkPostponeCompactable(o: Pick<CompactTableOptions, 'table' | 'partitionFilter' | 'buckets' | 'partitionIdleTimeMs'>, schema: TableSchema, options: Readonly<Record<string, string>>): void {
  const flink = 'run Flink CALL sys.compact for this table';
  const refuse = (why: string): never => {
    throw new PaimonError('UNSUPPORTED_TABLE', `compact on ${o.table}: ${why}; ${flink}`);
  };
  if (o.partitionFilter) throw new PaimonError('NOT_SUPPORTED', `compact on ${o.table}: a postpone-bucket table (bucket = -2) is compacted as a whole; Paimon's postpone compaction takes no partitions or where filter (Flink refuses them too), call it without`);
  if (o.buckets && o.buckets.size > 0) throw new PaimonError('NOT_SUPPORTED', `compact on ${o.table}: 'buckets' does not apply to a postpone-bucket table (bucket = -2), whose buckets the compaction assigns; call it without`);
  if (o.partitionIdleTimeMs !== null && o.partitionIdleTimeMs !== undefined) throw new PaimonError('NOT_SUPPORTED', `compact on ${o.table}: 'partition_idle_time' does not apply to a postpone-bucket table (bucket = -2); call it without`);
  if (schema.primaryKeys.length === 0) refuse('an append table with bucket = -2 is not a postpone-bucket table this proxy knows');
  if (bool(options['deletion-vectors.enabled'])) refuse('postpone-bucket tables with deletion vectors need Paimon\'s lookup compaction of level 0');
  if ((options['merge-engine'] ?? 'deduplicate') === 'first-row') refuse('first-row postpone-bucket tables need Paimon\'s lookup compaction of level 0');
  if (bool(options['force-lookup']) || bool(options['compaction.force-up-level-0'])) refuse("'force-lookup' / 'compaction.force-up-level-0' need Paimon's lookup compaction of level 0");
  const producer = options['changelog-producer'] ?? 'none';
  if (producer !== 'none') refuse(`changelog-producer '${producer}' makes the compaction write changelog files, which this proxy does not produce`);
  if ((options['bucket-function.type'] ?? 'default').toLowerCase() !== 'default') refuse(`'bucket-function.type' = ${options['bucket-function.type']} is not the default bucket function`);
  for (const k of ['compaction.optimization-interval', 'compaction.total-size-threshold', 'compaction.offpeak.start.hour']) {
    if (options[k] !== undefined) refuse(`option '${k}' changes which buckets Paimon compacts after the move, which this proxy does not reproduce`);
  }
}

// ---------------------------------------------------------------- I/O

export interface PostponeTableContext {
  schema: TableSchema;
  /** Table options with the call's dynamic options over them. */
  options: Readonly<Record<string, string>>;
  /** The latest schema with `options`, parsed (compact-table.ts `schemaLike`). */
  target: TableSchemaLike & { fieldSpecs: DataFieldSpec[] };
  parse: (s: TableSchema) => TableSchemaLike & { fieldSpecs: DataFieldSpec[] };
}

interface BucketOutput {
  partition: BinaryRow;
  bucket: number;
  totalBuckets: number;
  files: DataFileMeta[];
}

/** Rough in-memory size of a decoded record per byte of Avro file (the budget check only). */
const MEMORY_PER_FILE_BYTE = 8;
const BATCH = 1024;

export async function compactPostponeTable(o: CompactTableOptions, ctx: PostponeTableContext): Promise<CompactTableResult> {
  const { schema, options, target } = ctx;
  checkPostponeCompactable(o, schema, options);
  const { partitionFields, keyIndexes, keyTypes } = tableKeyLayout(o.table, schema, target);
  const bucketKey = postponeBucketKey(schema, target.fieldSpecs, options, o.table);
  const mf = createMergeFunction(target.fieldSpecs, schema.primaryKeys, options);
  const sequenceFields = sequenceFieldsOf(o.table, target, options);
  const order: MergeOrder = { keyTypes, sequenceFields };
  const numLevels = options['num-levels'] !== undefined ? Number(options['num-levels']) : Number(options['num-sorted-run.compaction-trigger'] ?? '5') + 1;
  const universal = universalOptions(options);
  const targetFileSize = parseMemorySize(options['target-file-size'] ?? '128 mb', 'target-file-size');
  const cmp = binaryKeyComparator(keyTypes);

  const commitUser = `compact-${randomUUID()}`;
  const commit = new FileStoreCommit({
    fileIO: o.fileIO, tablePath: o.tablePath, branch: o.branch, commitUser, partitionFields,
    keyTypes: keyTypes.map(binaryFieldType), bucketMode: 'HASH_FIXED', tableOptions: schema.options,
  });
  const base: Snapshot | null = await commit.snapshotManager.latestSnapshot();
  const empty = emptyCompactResult(base);
  if (base === null) return { ...empty, skippedReason: 'the table has no snapshot' };
  const live = await commit.scan.readLiveEntries(base);
  const plan = planPostponeCompaction(live, postponeBucketAssigner(live, options));
  if (plan.length === 0) return { ...empty, skippedReason: 'nothing to compact (no postpone files and no level-0 files in real buckets)' };

  const schemas = new SchemaManager(o.fileIO, o.tablePath, o.branch);
  const schemaCache = new Map<string, Promise<TableSchemaLike & { fieldSpecs: DataFieldSpec[] }>>([[String(schema.id), Promise.resolve(target)]]);
  const schemaOf = (id: bigint): Promise<TableSchemaLike & { fieldSpecs: DataFieldSpec[] }> => {
    let p = schemaCache.get(String(id));
    if (!p) schemaCache.set(String(id), (p = schemas.schema(Number(id)).then(ctx.parse)));
    return p;
  };

  const written: string[] = [];
  const outputs: BucketOutput[] = [];
  const deletes: ManifestEntry[] = [];
  const maxLevel = numLevels - 1;

  /**
   * The unit universal picking chose (`MergeTreeCompactTask`): sections rewritten with the merge
   * function to the output level (retracts dropped when it is the bucket's highest level),
   * large non-overlapping files upgraded.
   */
  const rewriteUnit = async (unit: CompactUnit, files: readonly DataFileMeta[], bucketDir: string): Promise<{ before: DataFileMeta[]; after: DataFileMeta[]; upgraded: number }> => {
    const out = { before: [] as DataFileMeta[], after: [] as DataFileMeta[], upgraded: 0 };
    const highest = files.reduce((m, f) => Math.max(m, f.level), 0);
    const dropDelete = unit.outputLevel !== 0 && unit.outputLevel >= highest;
    const src: RunSource = { fileIO: o.fileIO, bucketDir, schemaOf, target, keyIndexes, table: o.table };
    for (const step of planSections(unit, cmp, { minFileSize: Math.floor(targetFileSize / 10) * 7, maxLevel, forceRewriteAllFiles: bool(options['compaction.force-rewrite-all-files']) })) {
      o.signal?.throwIfAborted();
      if (step.kind === 'upgrade') {
        out.before.push(step.file);
        out.after.push({ ...step.file, level: unit.outputLevel });
        out.upgraded++;
        continue;
      }
      const sections = step.kind === 'rewrite' ? step.sections : [[[step.file]]];
      const writer = new KeyValueDataFileWriter({ fileIO: o.fileIO, bucketDir, schema: target, level: unit.outputLevel, fileSource: FileSource.COMPACT, options, targetFileSize });
      try {
        for (const section of sections) {
          for (const run of section) out.before.push(...run);
          const merged = mergeRuns(section.map((run) => readRun(src, run, BATCH, o.signal)), order, mf.create(), { dropDelete, stats: { read: 0n }, signal: o.signal });
          for await (const batch of merged) {
            await writer.write(batch);
            res.rowsWritten += BigInt(batch.length);
          }
        }
        const metas = await writer.close();
        for (const m of metas) written.push(`${bucketDir}/${m.fileName}`);
        out.after.push(...metas);
      } catch (e) {
        await writer.abort().catch(() => undefined);
        throw e;
      }
    }
    return out;
  };
  const res: CompactTableResult = { ...empty };
  const touched = new Set<string>();
  const progress = { bucketsDone: 0, bucketsTotal: plan.length, rowsRead: 0n, rowsWritten: 0n, bytesWritten: 0n };
  try {
    for (const p of plan) {
      o.signal?.throwIfAborted();
      const postponeBytes = p.postpone.reduce((s, e) => s + e.file.fileSize, 0n);
      if (postponeBytes * BigInt(MEMORY_PER_FILE_BYTE) > BigInt(o.memoryBudgetBytes)) {
        throw new PaimonError(
          'UNSUPPORTED_TABLE',
          `compact on ${o.table}: partition ${p.partition.key()} holds ${postponeBytes} bytes of postpone files, more than this proxy moves in its memory budget (${o.memoryBudgetBytes} bytes); raise the budget or run Flink CALL sys.compact for this table`,
        );
      }
      // Replay: file by file in order, records in file order, routed to their bucket.
      const routed = new Map<number, KeyValue[]>();
      const src: RunSource = { fileIO: o.fileIO, bucketDir: commit.pathFactory.bucketPath(p.partition, POSTPONE_BUCKET), schemaOf, target, keyIndexes, table: o.table };
      for await (const batch of readRun(src, p.postpone.map((e) => e.file), BATCH, o.signal)) {
        for (const kv of batch) {
          const bucket = defaultBucket(toBinaryRow(bucketKey.types, bucketKey.indexes.map((i) => kv.value[i] as BinaryValue)), p.numBuckets);
          let list = routed.get(bucket);
          if (!list) routed.set(bucket, (list = []));
          list.push({ key: kv.key, sequenceNumber: 0n, valueKind: kv.valueKind, value: [...kv.value] });
          res.rowsRead++;
        }
      }
      for (const e of p.postpone) {
        res.filesBefore++;
        res.bytesBefore += e.file.fileSize;
      }
      if (p.postpone.length > 0) touched.add(p.partition.key());
      const buckets = [...new Set([...routed.keys(), ...[...p.real].filter(([, fs]) => fs.some((f) => f.level === 0)).map(([b]) => b)])].sort((a, b) => a - b);
      for (const bucket of buckets) {
        const existing = p.real.get(bucket) ?? [];
        const records = routed.get(bucket) ?? [];
        const newFiles: DataFileMeta[] = [];
        if (records.length > 0) {
          let seq = nextSequenceNumber(existing);
          for (const r of records) r.sequenceNumber = seq++;
          records.sort(recordComparator(order));
          if (!o.dryRun) {
            const bucketDir = commit.pathFactory.bucketPath(p.partition, bucket);
            const writer = new KeyValueDataFileWriter({ fileIO: o.fileIO, bucketDir, schema: target, level: 0, fileSource: FileSource.APPEND, options, targetFileSize });
            try {
              const stats = { read: 0n };
              for await (const out of mergeRuns([batches(records)], order, mf.create(), { dropDelete: false, stats, signal: o.signal })) {
                await writer.write(out);
                res.rowsWritten += BigInt(out.length);
              }
              const metas = await writer.close();
              for (const m of metas) written.push(`${bucketDir}/${m.fileName}`);
              newFiles.push(...metas);
            } catch (e) {
              await writer.abort().catch(() => undefined);
              throw e;
            }
          }
        }
        // write.compact(partition, bucket, false): universal picking over the bucket after the flush.
        const all = [...existing, ...newFiles];
        const unit = pickUniversal(numLevels, levelSortedRuns(all, cmp), universal);
        let before: DataFileMeta[] = [];
        if (unit !== null && unit.files.length > 0 && !o.dryRun) {
          const r = await rewriteUnit(unit, all, commit.pathFactory.bucketPath(p.partition, bucket));
          const fresh = new Set(newFiles.map((f) => f.fileName));
          // New files the compaction consumed are never committed (PostponeBucketCommittableRewriter drops them).
          const kept = new Set(r.after.map((f) => f.fileName));
          const consumed = r.before.filter((f) => fresh.has(f.fileName) && !kept.has(f.fileName));
          await o.fileIO.deleteMany(consumed.map((f) => `${commit.pathFactory.bucketPath(p.partition, bucket)}/${f.fileName}`));
          before = r.before.filter((f) => !fresh.has(f.fileName));
          const gone = new Set(r.before.map((f) => f.fileName));
          newFiles.splice(0, newFiles.length, ...newFiles.filter((f) => !gone.has(f.fileName)), ...r.after);
          res.filesUpgraded += r.upgraded;
        }
        for (const f of before) {
          const e = p.realEntries.get(f.fileName);
          if (!e) throw new PaimonError('CORRUPT_METADATA', `compacted file ${f.fileName} is not a live entry`);
          deletes.push(toDeleteEntry(e));
          res.filesBefore++;
          res.bytesBefore += f.fileSize;
        }
        if (newFiles.length > 0 || before.length > 0 || (o.dryRun && records.length > 0)) {
          outputs.push({ partition: p.partition, bucket, totalBuckets: p.numBuckets, files: newFiles });
          touched.add(p.partition.key());
        }
      }
      // Progress counts partitions here (the unit of this path); the procedure shows them as buckets done.
      progress.bucketsDone++;
      progress.rowsRead = res.rowsRead;
      progress.rowsWritten = res.rowsWritten;
      progress.bytesWritten = outputs.reduce((s, x) => s + x.files.reduce((t, f) => t + f.fileSize, 0n), 0n);
      o.onProgress?.({ ...progress });
    }
    res.partitions = touched.size;
    res.buckets = outputs.length;
    const delta: ManifestEntry[] = [...deletes];
    for (const p of plan) for (const e of p.postpone) delta.push(toDeleteEntry(e));
    for (const out of outputs) {
      for (const f of out.files) {
        delta.push({ kind: 'ADD', partition: out.partition, bucket: out.bucket, totalBuckets: out.totalBuckets, file: f });
        res.filesAfter++;
        res.bytesAfter += f.fileSize;
      }
    }
    if (delta.length === 0) return { ...res, skippedReason: 'nothing to compact (no postpone files; no real bucket Paimon would compact)' };
    if (o.dryRun) return res;
    await o.onPoint?.('before-commit');
    const committed = await commit.commit({ kind: 'COMPACT', deltaEntries: delta, indexEntries: [], commitIdentifier: 9223372036854775807n, baseSnapshotId: base.id });
    await o.onPoint?.('after-commit');
    return { ...res, committedSnapshotId: committed.snapshot.id };
  } catch (e) {
    // Nothing was committed (or the commit is not ours): the new files would only be orphans.
    if (written.length > 0) {
      const landed = await commit.snapshotManager.latestSnapshot().catch(() => null);
      if (landed === null || landed.commitUser !== commitUser) await o.fileIO.deleteMany(written).catch(() => 0);
    }
    throw e;
  }
}

async function* batches(records: readonly KeyValue[]): AsyncGenerator<KeyValue[]> {
  for (let i = 0; i < records.length; i += BATCH) yield records.slice(i, i + BATCH);
}

