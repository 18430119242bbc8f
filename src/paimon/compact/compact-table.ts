/**
 * Compaction of one table branch, as Paimon's Spark `CompactProcedure` runs it for bucketed
 * tables: the (partition, bucket) pairs of the pinned latest snapshot, after the partition and
 * bucket filters, are compacted (`write.compact(partition, bucket, full)`), and all results are
 * committed as one COMPACT snapshot (DELETE of the compacted files, ADD of the new ones and of
 * upgraded files at their new level) through the commit path with Java's conflict checks.
 *
 * Primary-key buckets: full compaction = `pickFullCompaction` to the max level, minor = universal
 * picking; the unit is planned into rewritten sections and upgraded files
 * (`MergeTreeCompactTask`) and rewritten with the table's merge function, streaming (one batch
 * per sorted run in memory). Retract records are dropped when the output level is at or above
 * the highest non-empty level of the bucket. A deduplicate or first-row step whose files DuckDB
 * can merge exactly as the JS merge does (columnar-merge.ts says which) is merged and written by
 * DuckDB instead, as columns, never record by record.
 *
 * Deletion-vector primary-key tables (`deletion-vectors.enabled`), full compaction only, as
 * Paimon's `MergeTreeCompactManager` with a `BucketedDvMaintainer` does it: the bucket's vectors
 * are read from the base snapshot's index manifest; every file that is rewritten is read with its
 * vector applied (deleted positions dropped) and its vector is removed; retract rows are dropped
 * (`dropDelete` holds for any output level above 0 with deletion vectors); when the bucket is a
 * single run at the max level already, only the files that have a vector are rewritten, each on
 * its own (`FileRewriteCompactTask`). When a rewritten file had a vector, a new index file with
 * the vectors that remain (those of files kept or only upgraded, copied byte for byte; possibly
 * none: Java then writes an empty file, and so do we) is added for the bucket in the same COMMIT
 * snapshot, which replaces the bucket's old index entry (the bucketed index combiner). Minor
 * compaction of such tables needs Paimon's lookup (new vectors for older files) and is refused,
 * naming compact_strategy => 'full'.
 *
 * Append tables: see append-compaction.ts; with deletion vectors (unaware and fixed bucket, full
 * and minor), append-dv.ts: the compacted files are read with their vectors applied, and the
 * index changes (unaware: DELETE of every index file that held a compacted file's vector, ADD of
 * a new file with the vectors it still held, bytes copied; fixed bucket: the bucket's new index
 * file as above) are committed in the same COMPACT snapshot. A concurrent writer that gave a
 * compacted file a vector (or replaced an index file this compaction removes) makes the commit a
 * COMMIT_CONFLICT.
 *
 * Row-tracking append tables: see row-tracking-compaction.ts (the rows keep their row ids and
 * sequence numbers as physical columns); data-evolution tables: data-evolution-compaction.ts
 * (files of contiguous row ids merged into one that keeps them).
 *
 * Postpone-bucket tables (bucket = -2): postpone-compaction.ts (sort compaction still refuses them).
 *
 * Refused with UNSUPPORTED_TABLE (naming what to use instead): changelog-producer
 * full-compaction/lookup, record-level expiry, the data-evolution files that
 * data-evolution-compaction.ts does not rewrite, non-Parquet output formats, descending sequence order.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileIO } from '../fs/file-io.js';
import { PaimonError } from '../errors.js';
import type { BinaryRow } from '../spec/binary-row.js';
import { localNowAsUtcMillis, type DataFileMeta } from '../spec/data-file-meta.js';
import { FileStoreCommit } from '../table/file-store-commit.js';
import { toDeleteEntry, type ManifestEntry } from '../spec/manifest-entry.js';
import type { TableSchema } from '../spec/table-schema.js';
import { SchemaManager } from '../table/schema-manager.js';
import type { Snapshot } from '../spec/snapshot.js';
import { partitionSpec, type PartitionField } from '../spec/partition-path.js';
import { DELETION_VECTORS_INDEX, type BucketMode, type IndexManifestEntry } from '../table/index-manifest.js';
import type { DeletionVector, DeletionVectorBlob } from '../spec/deletion-vector.js';
import { bucketDvEntries, indexFilePath, readDeletionVectorsIndexFile, writeDeletionVectorsIndexFile, type DvIndexLocation } from '../table/deletion-vectors-index-file.js';
import { readKeyValues } from '../data/parquet-reader.js';
import { rowEvolution } from '../data/schema-evolution.js';
import { parseDataField, type DataFieldSpec, type FieldType } from '../data/field-type.js';
import { fileCompressionForLevel, type TableSchemaLike } from '../data/data-file-layout.js';
import { optionList, parseMemorySize } from '../spec/core-options.js';
import { KeyValueDataFileWriter, binaryFieldType, duckCompression } from '../data/parquet-writer.js';
import { REWRITABLE_CODECS } from '../data/parquet-required-parts.js';
import type { KeyValue } from '../data/internal-row.js';
import { createMergeFunction, ignoreDeleteOption } from './merge-function.js';
import { rewriteColumnar } from './columnar-merge.js';
import { binaryKeyComparator, levelSortedRuns, pickFullCompaction, planSections, type CompactUnit, type SectionStep } from './interval-partition.js';
import { pickUniversal, universalOptions } from './universal-compaction.js';
import { readRun, type MergeOrder, type RunSource } from './sorted-run-merge.js';
import { compactionMemory, mergeSection, planSectionMerge } from './spill-merge.js';
import { dataTempDir, openDataEngine, type PrivateDataEngine } from '../data/duckdb-engine.js';
import { compactAppendBucket } from './append-compaction.js';
import { checkUnawareDvConflicts, loadAppendDvs } from './append-dv.js';
import { rowTrackingEnabled } from './row-tracking-compaction.js';
import { checkDataEvolutionCompactable, compactDataEvolutionPartition, fieldNamesInBlobFile } from './data-evolution-compaction.js';
import { optionBool as bool } from '../spec/core-options.js';
import { compactPostponeTable } from './postpone-compaction.js';
import { POSTPONE_BUCKET } from '../spec/partition-path.js';

export type CompactStrategy = 'full' | 'minor';

export interface CompactTableOptions {
  fileIO: FileIO;
  tablePath: string;
  branch?: string | null;
  /** `db.tbl` for messages. */
  table: string;
  strategy: CompactStrategy;
  /** Dynamic options for this call (the `options` argument), over the table's. */
  dynamicOptions?: Readonly<Record<string, string>>;
  /** Partition filter over the partition's (key, string value) spec; null = all partitions. */
  partitionFilter?: ((spec: ReadonlyArray<readonly [string, string]>) => boolean) | null;
  /** Only these buckets (fixed-bucket tables). */
  buckets?: ReadonlySet<number> | null;
  /** Partitions whose newest file is younger than this (ms) are skipped; those that pass get a full compaction. */
  partitionIdleTimeMs?: number | null;
  /** Memory budget for the merge, bytes (shared by the concurrent buckets). */
  memoryBudgetBytes: number;
  concurrency: number;
  dryRun?: boolean;
  signal?: AbortSignal;
  onProgress?: (p: CompactProgress) => void;
  now?: () => number;
  /** What may be written beyond what every Paimon reader reads (checkCompactable). */
  compactable?: CompactableSettings;
  /** Called at named points: the procedure reports its commit phase at 'before-commit'; crash tests kill the process there. */
  onPoint?: (point: string) => void | Promise<void>;
}

export interface CompactProgress {
  bucketsDone: number;
  bucketsTotal: number;
  rowsRead: bigint;
  rowsWritten: bigint;
  bytesWritten: bigint;
}

export interface CompactTableResult {
  baseSnapshotId: number | null;
  committedSnapshotId: number | null;
  partitions: number;
  buckets: number;
  filesBefore: number;
  filesAfter: number;
  bytesBefore: bigint;
  bytesAfter: bigint;
  rowsRead: bigint;
  rowsWritten: bigint;
  /** Files whose level changed without a rewrite. */
  filesUpgraded: number;
  /** Deletion vectors applied (and removed) by the rewrite; deletion-vector index files written. */
  deletionVectorsApplied: number;
  dvIndexFilesWritten: number;
  skippedReason: string | null;
  /** Sorted runs merged into temporary spill files first (sections with more runs than the budget lets the merge open at once). */
  spill?: { files: number; records: bigint; bytes: bigint };
}

interface BucketGroup {
  partition: BinaryRow;
  bucket: number;
  totalBuckets: number;
  entries: ManifestEntry[];
}

export interface BucketCompactResult {
  before: DataFileMeta[];
  after: DataFileMeta[];
  /** New files written (deleted again if the compaction fails). */
  written: DataFileMeta[];
  upgraded: number;
  rowsRead: bigint;
  rowsWritten: bigint;
  /** Deletion-vector tables: the bucket's new index file (replacing its old entry), if any. */
  dvIndex?: { entry: IndexManifestEntry; path: string; applied: number } | null;
  /** Unaware-bucket append deletion-vector tables: index DELETE/ADD entries of the partition. */
  dvIndexChanges?: { entries: IndexManifestEntry[]; applied: number } | null;
}

/** A table schema with its fields parsed, as the data-file readers and writers take it. */
export type SchemaLike = TableSchemaLike & { fieldSpecs: DataFieldSpec[] };

export function schemaLike(s: TableSchema): SchemaLike {
  return { id: s.id, fields: s.fields, partitionKeys: s.partitionKeys, primaryKeys: s.primaryKeys, options: s.options, fieldSpecs: s.fields.map((f) => parseDataField(f)) };
}

/** Table checks that make this implementation refuse a table (clear errors, before any work). */
/** What the caller lets a compaction write beyond what every Paimon reader reads. */
export interface CompactableSettings {
  /**
   * Tables with VARIANT columns (default: compacted). Their files are rewritten after DuckDB
   * writes them so that each variant's `value` and `metadata` are REQUIRED, as Paimon writes
   * them; false refuses such tables, for operators who leave them to Paimon's engines.
   */
  variant?: boolean;
}

function holdsVariant(t: FieldType): boolean {
  return t.root === 'VARIANT' || (t.root === 'ARRAY' || t.root === 'MULTISET' ? holdsVariant(t.element)
    : t.root === 'MAP' ? holdsVariant(t.key) || holdsVariant(t.value)
    : t.root === 'ROW' && t.fields.some((f) => holdsVariant(f.type)));
}

/** The first column that holds VARIANT values, at any depth. */
export function variantColumnOf(schema: Pick<TableSchema, 'fields'>): TableSchema['fields'][number] | undefined {
  return schema.fields.find((f) => holdsVariant(parseDataField(f).type));
}

/** A Paimon compression name as the Parquet codec DuckDB writes, '' for one it does not write. */
function parquetCodecOf(compression: string): string {
  try {
    return duckCompression(compression, 'compact');
  } catch {
    return '';
  }
}

export function checkCompactable(table: string, schema: TableSchema, options: Readonly<Record<string, string>>, settings: CompactableSettings = {}): void {
  const isPk = schema.primaryKeys.length > 0;
  const refuse = (why: string): never => {
    throw new PaimonError('UNSUPPORTED_TABLE', `compact on ${table}: ${why}`);
  };
  const producer = options['changelog-producer'] ?? 'none';
  if (isPk && (producer === 'full-compaction' || producer === 'lookup')) {
    refuse(`changelog-producer '${producer}' must emit changelog files on compaction, which this proxy does not produce; run the compaction with Paimon's own engine (Flink or Spark CALL sys.compact) for this table`);
  }
  // Row tracking and data evolution: append tables of bucket -1 only (Java's SchemaValidation);
  // row-tracking-compaction.ts and data-evolution-compaction.ts (which refuses the data-evolution
  // files it does not rewrite once the files are known).
  if (rowTrackingEnabled(options) && (isPk || Number(options['bucket'] ?? '-1') !== -1)) {
    refuse("row-tracking ('row-tracking.enabled') tables are compacted by this proxy only as append tables with bucket = -1; run Spark CALL sys.compact for this table");
  }
  if (bool(options['data-evolution.enabled']) && !rowTrackingEnabled(options)) {
    refuse("data-evolution ('data-evolution.enabled') tables need row tracking ('row-tracking.enabled'); run Spark CALL sys.compact for this table");
  }
  if (options['record-level.expire-time'] !== undefined) refuse("record-level expiry ('record-level.expire-time') is not supported; use Paimon's own engine");
  if (Number(options['bucket'] ?? (isPk ? '-1' : '-1')) === -2) {
    refuse("postpone-bucket tables (bucket = -2) are not compacted by this proxy (their files wait in bucket-postpone for Paimon's rescaling); run Flink CALL sys.compact for this table");
  }
  const unwritable = (t: FieldType): string | null =>
    t.root === 'BLOB' ? t.root
      : t.root === 'ARRAY' || t.root === 'MULTISET' ? unwritable(t.element)
      : t.root === 'MAP' ? (unwritable(t.key) ?? unwritable(t.value))
      : t.root === 'ROW' ? t.fields.map((f) => unwritable(f.type)).find((x) => x !== null) ?? null
      : null;
  // BLOB, ARRAY<BLOB> and MAP<X, BLOB> columns kept in `.blob` files are never rewritten by a
  // data-evolution compaction (compactBlob = false), which writes only the other columns; Java
  // keeps BLOB to data-evolution append tables and primary-key tables (SchemaValidation), and the
  // latter, like inline BLOB fields, are not written here.
  const inBlobFiles = bool(options['data-evolution.enabled']) && !isPk ? fieldNamesInBlobFile(schema.fields.map((f) => parseDataField(f)), options) : new Set<string>();
  for (const f of schema.fields) {
    if (inBlobFiles.has(f.name)) continue;
    const bad = unwritable(parseDataField(f).type);
    if (bad !== null) refuse(`column ${f.name} holds ${bad} values, which this proxy does not write; run Spark or Flink CALL sys.compact for this table`);
  }
  // VARIANT is written unshredded (variant-parquet.ts); with a shredding schema, configured or
  // inferred, Paimon's writer (VariantShreddingWritePlanFactory) splits it into typed columns.
  const shredding = ['variant.shreddingSchema', 'parquet.variant.shreddingSchema'].find((k) => options[k] !== undefined)
    ?? (bool(options['variant.inferShreddingSchema']) ? 'variant.inferShreddingSchema' : undefined);
  const variant = variantColumnOf(schema);
  if (variant && shredding !== undefined) {
    refuse(`column ${variant.name} holds VARIANT values, which Paimon writes shredded here ('${shredding}') and this proxy does not; run Spark or Flink CALL sys.compact for this table`);
  }
  if (variant && settings.variant === false) {
    refuse(`column ${variant.name} holds VARIANT values, and procedures.compact_variant_tables is off in this proxy's configuration; turn it on, or run Spark or Flink CALL sys.compact for this table`);
  }
  if (variant) {
    // The variant parts are made REQUIRED after DuckDB writes a file (variant-parquet.ts), which
    // compresses their pages again: only with codecs this proxy can encode.
    const levels = Number(options['num-levels'] ?? '5');
    for (let level = 0; level < Math.max(1, levels); level++) {
      const codec = fileCompressionForLevel(options, level);
      if (!REWRITABLE_CODECS.has(parquetCodecOf(codec))) {
        refuse(`column ${variant.name} holds VARIANT values, whose Parquet pages this proxy cannot write with compression '${codec}' ('file.compression'); compact with zstd, snappy, gzip, brotli or none, or run Spark or Flink CALL sys.compact for this table`);
      }
    }
  }
  const format = (options['file.format'] ?? 'parquet').toLowerCase();
  if (format !== 'parquet') throw new PaimonError('UNSUPPORTED_FORMAT', `compact on ${table}: file.format '${format}' is not written by this proxy (Parquet only); use Paimon's own engine`);
  for (const k of Object.keys(options)) {
    if (k.startsWith('file.format.per.level') && options[k].trim() !== '' && /orc|avro/i.test(options[k])) refuse(`option '${k}' asks for non-Parquet files; use Paimon's own engine`);
  }
  if ((options['sequence.field.sort-order'] ?? 'ascending').toLowerCase() === 'descending') refuse("'sequence.field.sort-order' = descending is not supported; use Paimon's own engine");
  // Builds the merge function only to refuse the options it does not support, before any work.
  if (isPk) createMergeFunction(schema.fields.map((f) => parseDataField(f)), schema.primaryKeys, options);
}

/** Partition fields, and the trimmed primary key's positions and types in the target schema. */
export function tableKeyLayout(table: string, schema: TableSchema, target: SchemaLike): { partitionFields: PartitionField[]; keyIndexes: number[]; keyTypes: FieldType[] } {
  const partitionFields: PartitionField[] = schema.partitionKeys.map((k) => {
    const f = schema.fields.find((x) => x.name === k);
    if (!f) throw new PaimonError('CORRUPT_METADATA', `${table}: partition key ${k} is not a field`);
    return { name: k, type: binaryFieldType(parseDataField(f).type) };
  });
  const trimmedKeys = schema.primaryKeys.filter((k) => !schema.partitionKeys.includes(k));
  const keyIndexes = trimmedKeys.map((k) => target.fieldSpecs.findIndex((f) => f.name === k));
  return { partitionFields, keyIndexes, keyTypes: keyIndexes.map((i) => target.fieldSpecs[i].type) };
}

/** The `sequence.field` columns (positions and types in the target schema). */
export function sequenceFieldsOf(table: string, target: SchemaLike, options: Readonly<Record<string, string>>): MergeOrder['sequenceFields'] {
  return optionList(options['sequence.field']).map((name) => {
    const index = target.fieldSpecs.findIndex((f) => f.name === name);
    if (index < 0) throw new PaimonError('CORRUPT_METADATA', `${table}: sequence.field ${name} is not a field`);
    return { index, type: target.fieldSpecs[index].type };
  });
}

/** A result with nothing done yet, planned from `base`. */
export function emptyCompactResult(base: Snapshot | null): CompactTableResult {
  return {
    baseSnapshotId: base?.id ?? null, committedSnapshotId: null, partitions: 0, buckets: 0, filesBefore: 0, filesAfter: 0,
    bytesBefore: 0n, bytesAfter: 0n, rowsRead: 0n, rowsWritten: 0n, filesUpgraded: 0, deletionVectorsApplied: 0, dvIndexFilesWritten: 0, skippedReason: null,
  };
}

export async function compactTable(o: CompactTableOptions): Promise<CompactTableResult> {
  const schemas = new SchemaManager(o.fileIO, o.tablePath, o.branch);
  const ids = await schemas.listAllIds();
  if (ids.length === 0) throw new PaimonError('SCHEMA_NOT_FOUND', `${o.table} has no schema`);
  const latest = await schemas.schema(ids[ids.length - 1]);
  const options: Record<string, string> = { ...latest.options, ...(o.dynamicOptions ?? {}) };
  if (Number(options['bucket'] ?? '-1') === POSTPONE_BUCKET) {
    // The generic checks hold for postpone tables too (their bucket aside): postpone-compaction.ts.
    checkCompactable(o.table, latest, { ...options, bucket: '1' }, o.compactable);
    return compactPostponeTable(o, { schema: latest, options, target: schemaLike({ ...latest, options }), parse: schemaLike });
  }
  checkCompactable(o.table, latest, options, o.compactable);
  const isPk = latest.primaryKeys.length > 0;
  const dvEnabled = bool(options['deletion-vectors.enabled']);
  const fullRequested = o.strategy === 'full' || (o.partitionIdleTimeMs !== null && o.partitionIdleTimeMs !== undefined);
  if (isPk && dvEnabled && !fullRequested) {
    throw new PaimonError(
      'UNSUPPORTED_TABLE',
      `compact on ${o.table}: a minor compaction of a deletion-vector table needs Paimon's lookup (new deletion vectors for older files), which this proxy does not do; use compact_strategy => 'full' (or Paimon's own engine for a minor compaction)`,
    );
  }
  const target = schemaLike({ ...latest, options });
  const schemaCache = new Map<string, Promise<TableSchemaLike & { fieldSpecs: DataFieldSpec[] }>>();
  schemaCache.set(String(latest.id), Promise.resolve(target));
  const schemaOf = (id: bigint): Promise<TableSchemaLike & { fieldSpecs: DataFieldSpec[] }> => {
    const k = String(id);
    let p = schemaCache.get(k);
    if (!p) {
      p = schemas.schema(Number(id)).then(schemaLike);
      schemaCache.set(k, p);
    }
    return p;
  };

  const { partitionFields, keyIndexes, keyTypes } = tableKeyLayout(o.table, latest, target);
  const bucketNum = Number(options['bucket'] ?? '-1');
  const bucketMode: BucketMode = !isPk
    ? bucketNum === -1 ? 'BUCKET_UNAWARE' : 'HASH_FIXED'
    : bucketNum === -1
      ? latest.partitionKeys.every((p) => latest.primaryKeys.includes(p)) ? 'HASH_DYNAMIC' : 'KEY_DYNAMIC'
      : 'HASH_FIXED';
  if (o.buckets && o.buckets.size > 0 && bucketMode !== 'HASH_FIXED') {
    throw new PaimonError('INVALID_ARGUMENT', `compact on ${o.table}: 'buckets' is only supported for fixed-bucket tables (bucket > 0), this table has bucket = ${bucketNum}`);
  }
  const commitUser = `compact-${randomUUID()}`;
  const commit = new FileStoreCommit({
    fileIO: o.fileIO,
    tablePath: o.tablePath,
    branch: o.branch,
    commitUser,
    partitionFields,
    keyTypes: keyTypes.map(binaryFieldType),
    bucketMode,
    tableOptions: latest.options,
  });
  const partitionOptions = {
    defaultName: options['partition.default-name'],
    legacyName: options['partition.legacy-name'] === undefined ? true : bool(options['partition.legacy-name']),
  };

  // ---- plan from the pinned latest snapshot
  const base: Snapshot | null = await commit.snapshotManager.latestSnapshot();
  const empty = emptyCompactResult(base);
  if (base === null) return { ...empty, skippedReason: 'the table has no snapshot' };
  const live = await commit.scan.readLiveEntries(base);
  const groups = new Map<string, BucketGroup>();
  const partitionNewest = new Map<string, bigint>();
  for (const e of live) {
    if (o.partitionFilter && !o.partitionFilter(partitionSpec(e.partition, partitionFields, partitionOptions))) continue;
    // The newest file of a partition is taken over all its buckets, selected or not (Spark's getHistoryPartition).
    const pk = e.partition.key();
    const t = e.file.creationTime ?? 0n;
    if ((partitionNewest.get(pk) ?? -1n) < BigInt(t)) partitionNewest.set(pk, BigInt(t));
    if (o.buckets && o.buckets.size > 0 && !o.buckets.has(e.bucket)) continue;
    const k = `${pk}\u0000${e.bucket}`;
    let g = groups.get(k);
    if (!g) groups.set(k, (g = { partition: e.partition, bucket: e.bucket, totalBuckets: e.totalBuckets, entries: [] }));
    g.entries.push(e);
  }
  let strategy = o.strategy;
  if (o.partitionIdleTimeMs !== null && o.partitionIdleTimeMs !== undefined) {
    // Spark: only partitions whose last file is older than the idle time, with a full compaction.
    // _CREATION_TIME is local wall-clock time stored as if UTC (LocalDateTime): compare like with like.
    const now = localNowAsUtcMillis(new Date((o.now ?? Date.now)()));
    for (const [k, g] of groups) {
      const newest = partitionNewest.get(g.partition.key()) ?? 0n;
      if (newest > now - BigInt(o.partitionIdleTimeMs)) groups.delete(k);
    }
    strategy = 'full';
  }
  if (groups.size === 0) return { ...empty, skippedReason: 'no data files match the partition and bucket filters' };
  const dataEvolution = bool(options['data-evolution.enabled']);
  if (dataEvolution) checkDataEvolutionCompactable(o.table, [...groups.values()].flatMap((g) => g.entries.map((e) => e.file)), options, (base.indexManifest ?? null) !== null);

  const numLevels = options['num-levels'] !== undefined ? Number(options['num-levels']) : Number(options['num-sorted-run.compaction-trigger'] ?? '5') + 1;
  const targetFileSize = parseMemorySize(options['target-file-size'] ?? (isPk ? '128 mb' : '256 mb'), 'target-file-size');
  const forceAll = bool(options['compaction.force-rewrite-all-files']);
  const cmp = binaryKeyComparator(keyTypes);
  const sequenceFields = sequenceFieldsOf(o.table, target, options);
  const order: MergeOrder = { keyTypes, sequenceFields };
  const mf = isPk ? createMergeFunction(target.fieldSpecs, latest.primaryKeys, options) : null;

  // Deletion vectors of the pinned snapshot (index manifest of the base).
  const baseIndex: IndexManifestEntry[] = dvEnabled && base.indexManifest ? await commit.indexManifestFile.read(base.indexManifest) : [];
  const dvLoc: DvIndexLocation = { pathFactory: commit.pathFactory, inDataFileDir: bool(options['index-file-in-data-file-dir']) };
  const indexWritten: string[] = [];

  const list = [...groups.values()];
  // The budget: the writers' own DuckDB instance (opened on first use), one share per bucket at
  // once; fewer buckets at once than asked when the budget cannot give each a useful share.
  const memory = compactionMemory(o.memoryBudgetBytes, Math.max(1, Math.min(o.concurrency, list.length)));
  const concurrency = memory.concurrency;
  const blockSize = parseMemorySize(options['parquet.block.size'] ?? '128 mb', 'parquet.block.size');
  let enginePromise: Promise<PrivateDataEngine> | null = null;
  const engine = (): Promise<PrivateDataEngine> => (enginePromise ??= openDataEngine({ memoryLimitBytes: memory.duckdbLimitBytes }));
  // Spill files of sections with more sorted runs than the budget lets the merge open at once.
  const spillDir = join(dataTempDir(), `compact-spill-${randomUUID()}`);
  let spillDirMade: Promise<unknown> | null = null;
  const spillStats = { files: 0, records: 0n, bytes: 0n };
  const progress: CompactProgress = { bucketsDone: 0, bucketsTotal: list.length, rowsRead: 0n, rowsWritten: 0n, bytesWritten: 0n };
  const results: Array<{ g: BucketGroup; r: BucketCompactResult }> = [];
  const allWritten: Array<{ g: BucketGroup; m: DataFileMeta }> = [];
  const bucketDirOf = (g: BucketGroup): string => commit.pathFactory.bucketPath(g.partition, g.bucket);

  const runOne = async (g: BucketGroup): Promise<BucketCompactResult> => {
    const files = g.entries.map((e) => e.file);
    const bucketDir = bucketDirOf(g);
    if (dataEvolution) {
      return compactDataEvolutionPartition({
        fileIO: o.fileIO, table: o.table, bucketDir, files, target, schemaOf, options, targetFileSize,
        dryRun: o.dryRun ?? false, signal: o.signal, onWritten: (m) => allWritten.push({ g, m }),
      });
    }
    if (!isPk) {
      // Deletion-vector tables: the partition's (unaware, entries of bucket 0) or bucket's vectors.
      const vectors = dvEnabled ? await loadAppendDvs(o.fileIO, dvLoc, bucketDvEntries(baseIndex, g.partition.key(), g.bucket), bucketDir) : null;
      return compactAppendBucket({
        fileIO: o.fileIO, table: o.table, bucketDir, files, target, schemaOf, options, targetFileSize,
        full: strategy === 'full', bucketed: bucketMode === 'HASH_FIXED', dryRun: o.dryRun ?? false, signal: o.signal,
        onWritten: (m) => allWritten.push({ g, m }), forceRewriteAll: forceAll,
        dv: vectors === null ? null : { vectors, loc: dvLoc, partition: g.partition, bucket: g.bucket, onIndexWritten: (p) => indexWritten.push(p) },
        rowTracking: rowTrackingEnabled(options), engine: o.dryRun ? null : await engine(),
      });
    }
    const runs = levelSortedRuns(files, cmp);
    const maxLevel = numLevels - 1;
    const r: BucketCompactResult = { before: [], after: [], written: [], upgraded: 0, rowsRead: 0n, rowsWritten: 0n, dvIndex: null };
    // Deletion-vector tables: the bucket's vectors (BucketedDvMaintainer restored from the base).
    let dvs: Map<string, DeletionVectorBlob> | null = null;
    if (dvEnabled) {
      dvs = new Map();
      for (const e of bucketDvEntries(baseIndex, g.partition.key(), g.bucket)) {
        for (const [name, blob] of await readDeletionVectorsIndexFile(o.fileIO, indexFilePath(dvLoc, e.indexFile, bucketDir), e.indexFile)) dvs.set(name, blob);
      }
    }
    let unit: CompactUnit | null;
    let steps: SectionStep[];
    if (dvs !== null && runs.length === 1 && runs[0].level === maxLevel) {
      // pickFullCompaction with a dv maintainer: only the max-level files with a vector (all when
      // forced), each rewritten on its own (FileRewriteCompactTask).
      const picked = runs[0].files.filter((f) => forceAll || dvs!.has(f.fileName));
      unit = picked.length === 0 ? null : { outputLevel: maxLevel, files: picked };
      steps = picked.map((file) => ({ kind: 'rewrite-file', file }) as const);
    } else {
      unit = strategy === 'full' ? pickFullCompaction(numLevels, runs, forceAll) : pickUniversal(numLevels, runs, universalOptions(options));
      steps = unit === null ? [] : planSections(unit, cmp, { minFileSize: Math.floor(targetFileSize / 10) * 7, maxLevel, forceRewriteAllFiles: forceAll });
    }
    if (unit === null || unit.files.length === 0) return r;
    const highest = files.reduce((m, f) => Math.max(m, f.level), 0);
    // MergeTreeCompactManager: with deletion vectors, retracts are dropped at any level above 0.
    const dropDelete = unit.outputLevel !== 0 && (unit.outputLevel >= highest || dvs !== null);
    // Readers and writers on the compaction's own instance: its limit (writers' part + the scans) makes DuckDB evict the rows
    // buffered for the file being written while the scans are open.
    const src: RunSource = { fileIO: o.fileIO, bucketDir, schemaOf, target, keyIndexes, table: o.table, engine: o.dryRun ? null : await engine() };
    const rewritten = new Set<string>();
    for (const step of steps) {
      o.signal?.throwIfAborted();
      if (step.kind === 'upgrade') {
        r.before.push(step.file);
        r.after.push({ ...step.file, level: unit.outputLevel });
        r.upgraded++;
        continue;
      }
      const sections = step.kind === 'rewrite' ? step.sections : [[[step.file]]];
      for (const s of sections) for (const run of s) r.before.push(...run);
      for (const s of sections) for (const run of s) for (const f of run) rewritten.add(f.fileName);
      if (o.dryRun) continue;
      // Deduplicate / first-row steps that qualify are merged and written by DuckDB (columnar-merge.ts).
      const columnar = await rewriteColumnar({
        fileIO: o.fileIO, bucketDir, target, options, sections, mergeEngine: mf!.engine, ignoreDelete: ignoreDeleteOption(options),
        sequenceFields: sequenceFields.length, deletionVectors: dvs !== null, dryRun: false, dropDelete, level: unit.outputLevel,
        targetFileSize, engine: src.engine, signal: o.signal,
      });
      if (columnar !== null) {
        for (const m of columnar.files) allWritten.push({ g, m });
        r.written.push(...columnar.files);
        r.after.push(...columnar.files);
        r.rowsRead += columnar.rowsRead;
        r.rowsWritten += columnar.rowsWritten;
        progress.rowsRead += columnar.rowsRead;
        progress.rowsWritten += columnar.rowsWritten;
        await o.onPoint?.('section-written');
        continue;
      }
      const writer = new KeyValueDataFileWriter({
        fileIO: o.fileIO, bucketDir, schema: target, level: unit.outputLevel, fileSource: 1, options, targetFileSize, engine: src.engine,
      });
      try {
        for (const section of sections) {
          // At most plan.fanIn runs open at once (spilling groups of runs first when there are more).
          const plan = planSectionMerge(section, memory.perBucketBytes, blockSize);
          if (section.length > plan.fanIn) await (spillDirMade ??= mkdir(spillDir, { recursive: true }));
          const stats = { read: 0n };
          const merged = mergeSection({
            runs: section,
            readFiles: (run, batch) => (dvs !== null ? readRunApplyingDv(src, run, batch, dvs, o.signal) : readRun(src, run, batch, o.signal)),
            order, mergeFunction: mf!.create(), dropDelete, plan, spillDir, fields: target.fieldSpecs, keyIndexes, stats, spillStats, signal: o.signal,
            spillMergeFunction: mf!.engine === 'deduplicate' || mf!.engine === 'first-row' ? mf!.create() : null,
          });
          for await (const out of merged) {
            await writer.write(out as Iterable<KeyValue>);
            r.rowsWritten += BigInt(out.length);
            progress.rowsWritten += BigInt(out.length);
          }
          r.rowsRead += stats.read;
          progress.rowsRead += stats.read;
        }
        const metas = await writer.close();
        for (const m of metas) allWritten.push({ g, m });
        r.written.push(...metas);
        r.after.push(...metas);
      } catch (e) {
        await writer.abort().catch(() => undefined);
        throw e;
      }
      await o.onPoint?.('section-written');
    }
    if (dvs !== null) {
      // removeDeletionVectorOf for every rewritten file; a new index file when one was removed
      // (BucketedDvMaintainer.writeDeletionVectorsIndex writes the remaining ones, even none).
      const applied = [...rewritten].filter((n) => dvs!.has(n)).length;
      if (applied > 0) {
        const remaining = [...dvs].filter(([name]) => !rewritten.has(name)).map(([dataFileName, blob]) => ({ dataFileName, blob }));
        if (o.dryRun) {
          r.dvIndex = { entry: { kind: 'ADD', partition: g.partition, bucket: g.bucket, indexFile: { indexType: DELETION_VECTORS_INDEX, fileName: '(dry run)', fileSize: 0n, rowCount: BigInt(remaining.length), dvRanges: [], externalPath: null, globalIndexMeta: null } }, path: '', applied };
        } else {
          const w = await writeDeletionVectorsIndexFile(o.fileIO, dvLoc, bucketDir, remaining);
          indexWritten.push(w.path);
          r.dvIndex = { entry: { kind: 'ADD', partition: g.partition, bucket: g.bucket, indexFile: w.meta }, path: w.path, applied };
        }
      }
    }
    return r;
  };

  // ---- run buckets with bounded concurrency
  let next = 0;
  let failure: unknown = null;
  const worker = async (): Promise<void> => {
    while (failure === null && next < list.length) {
      const g = list[next++];
      try {
        const r = await runOne(g);
        results.push({ g, r });
        progress.bucketsDone++;
        for (const m of r.written) progress.bytesWritten += m.fileSize;
        o.onProgress?.({ ...progress });
      } catch (e) {
        if (failure === null) failure = e;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, () => worker()));
    if (failure !== null) throw failure;
    o.signal?.throwIfAborted();

    const delta: ManifestEntry[] = [];
    const indexEntries: IndexManifestEntry[] = [];
    const res: CompactTableResult = { ...empty };
    const partitions = new Set<string>();
    for (const { g, r } of results) {
      if (r.before.length === 0 && r.after.length === 0) continue;
      partitions.add(g.partition.key());
      res.buckets++;
      const byName = new Map(g.entries.map((e) => [e.file.fileName, e] as const));
      for (const f of r.before) {
        const e = byName.get(f.fileName);
        if (!e) throw new PaimonError('CORRUPT_METADATA', `compacted file ${f.fileName} is not a live entry`);
        delta.push(toDeleteEntry(e));
        res.bytesBefore += f.fileSize;
      }
      for (const f of r.after) {
        delta.push({ kind: 'ADD', partition: g.partition, bucket: g.bucket, totalBuckets: g.totalBuckets, file: f });
        res.bytesAfter += f.fileSize;
      }
      res.filesBefore += r.before.length;
      res.filesAfter += r.after.length;
      res.rowsRead += r.rowsRead;
      res.rowsWritten += r.rowsWritten;
      res.filesUpgraded += r.upgraded;
      if (r.dvIndex) {
        indexEntries.push(r.dvIndex.entry);
        res.deletionVectorsApplied += r.dvIndex.applied;
        res.dvIndexFilesWritten++;
      }
      if (r.dvIndexChanges) {
        indexEntries.push(...r.dvIndexChanges.entries);
        res.deletionVectorsApplied += r.dvIndexChanges.applied;
        res.dvIndexFilesWritten += r.dvIndexChanges.entries.filter((e) => e.kind === 'ADD').length;
      }
    }
    res.partitions = partitions.size;
    res.spill = spillStats;
    if (delta.length === 0) return { ...res, skippedReason: 'nothing to compact (every selected bucket is already compacted)' };
    if (o.dryRun) return res;
    await o.onPoint?.('before-commit');
    const dvGroups = results.filter(({ r }) => r.before.length > 0 || r.after.length > 0).map(({ g }) => g);
    const committed = await commit.commit({
      kind: 'COMPACT', deltaEntries: delta, indexEntries, commitIdentifier: 9223372036854775807n, baseSnapshotId: base.id,
      // Evaluated in the commit loop against the snapshot being superseded (checked again when a concurrent commit takes the id).
      ...(dvEnabled && bucketMode !== 'BUCKET_UNAWARE' ? { conflictCheck: (latest: Snapshot | null) => checkDvUnchanged(commit, latest, base, baseIndex, dvGroups, o.table) } : {}),
      ...(dvEnabled && bucketMode === 'BUCKET_UNAWARE' ? { conflictCheck: (latest: Snapshot | null) => checkUnawareDvUnchanged(commit, latest, base, baseIndex, results, o.table) } : {}),
    });
    await o.onPoint?.('after-commit');
    return { ...res, committedSnapshotId: committed.snapshot.id };
  } catch (e) {
    // Nothing was committed: remove the files this call wrote (they would only be orphans).
    if (allWritten.length > 0 || indexWritten.length > 0) {
      const landed = await commit.snapshotManager.latestSnapshot().catch(() => null);
      if (landed === null || landed.commitUser !== commitUser) {
        await o.fileIO.deleteMany([...allWritten.map(({ g, m }) => m.externalPath ?? `${bucketDirOf(g)}/${m.fileName}`), ...indexWritten]).catch(() => 0);
      }
    }
    throw e;
  } finally {
    // Temporary space of this call: spill files and the writers' DuckDB instance (its spill directory).
    await rm(spillDir, { recursive: true, force: true }).catch(() => undefined);
    if (enginePromise !== null) await (await enginePromise.catch(() => null))?.close().catch(() => undefined);
  }
}


/** `readRun` with each file's deletion vector applied (deleted positions are not read). */
async function* readRunApplyingDv(
  src: RunSource,
  files: readonly DataFileMeta[],
  batchSize: number,
  dvs: ReadonlyMap<string, DeletionVectorBlob>,
  signal?: AbortSignal,
): AsyncGenerator<KeyValue[]> {
  for (const f of files) {
    signal?.throwIfAborted();
    const schema = await src.schemaOf(BigInt(f.schemaId));
    const evolve = rowEvolution(schema.fieldSpecs, src.target.fieldSpecs, `${src.table} file ${f.fileName}`);
    const dv: DeletionVector | null = dvs.get(f.fileName)?.dv ?? null;
    for await (const batch of readKeyValues({ fileIO: src.fileIO, path: f.externalPath ?? `${src.bucketDir}/${f.fileName}`, schema, table: src.table, batchSize, deletionVector: dv, engine: src.engine })) {
      if (evolve === null) yield batch;
      else {
        yield batch.map((kv) => {
          const value = evolve(kv.value);
          return { key: src.keyIndexes.map((i) => value[i]), sequenceNumber: kv.sequenceNumber, valueKind: kv.valueKind, value };
        });
      }
    }
  }
}

/**
 * The commit's conflict rule for a deletion-vector compaction of fixed buckets, evaluated by
 * FileStoreCommit in every attempt against the snapshot it is about to supersede: the
 * deletion-vector index entries of the compacted buckets must be those the plan read (another
 * writer's new vectors would otherwise be lost, its index entry replaced by ours). Java has no
 * such rule for fixed buckets (its ConflictDetection matches vectors to files only for
 * unaware-bucket tables, and a fixed bucket has a single writer there); this proxy compacts beside
 * a running writer, so it checks.
 */
async function checkDvUnchanged(
  commit: FileStoreCommit,
  latest: Snapshot | null,
  base: Snapshot,
  baseIndex: readonly IndexManifestEntry[],
  groups: readonly BucketGroup[],
  table: string,
): Promise<void> {
  if (latest === null || latest.id === base.id || (latest.indexManifest ?? null) === (base.indexManifest ?? null)) return;
  const now = latest.indexManifest ? await commit.indexManifestFile.read(latest.indexManifest) : [];
  for (const g of groups) {
    const names = (l: readonly IndexManifestEntry[]): string => bucketDvEntries(l, g.partition.key(), g.bucket).map((e) => e.indexFile.fileName).sort().join(',');
    if (names(baseIndex) !== names(now)) {
      throw new PaimonError(
        'COMMIT_CONFLICT',
        `compact on ${table}: the deletion vectors of bucket ${g.bucket} changed since snapshot ${base.id} (now snapshot ${latest.id}); nothing was committed, run the compaction again`,
      );
    }
  }
}

/**
 * The commit's conflict rule for a deletion-vector compaction of an unaware-bucket append table
 * (evaluated in every commit attempt): no other writer may have given a vector to a file this
 * compaction rewrote, nor replaced an index file it removes (append-dv.ts).
 */
async function checkUnawareDvUnchanged(
  commit: FileStoreCommit,
  latest: Snapshot | null,
  base: Snapshot,
  baseIndex: readonly IndexManifestEntry[],
  results: ReadonlyArray<{ g: BucketGroup; r: BucketCompactResult }>,
  table: string,
): Promise<void> {
  if (latest === null || latest.id === base.id || (latest.indexManifest ?? null) === (base.indexManifest ?? null)) return;
  const now = latest.indexManifest ? await commit.indexManifestFile.read(latest.indexManifest) : [];
  const changed = results.filter(({ r }) => r.before.length > 0).map(({ g, r }) => ({
    partitionKey: g.partition.key(),
    compacted: new Set(r.before.map((f) => f.fileName)),
    removedIndexFiles: (r.dvIndexChanges?.entries ?? []).filter((e) => e.kind === 'DELETE').map((e) => e.indexFile.fileName),
  }));
  checkUnawareDvConflicts(table, base.id, latest.id, baseIndex, now, changed);
}
