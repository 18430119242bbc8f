/**
 * Append-table compaction planning and rewriting (Paimon 1.4.2 / 2.0.0).
 *
 * Fixed-bucket append tables (`BucketedAppendCompactManager`), files ordered by min sequence;
 * the compaction file size is 70% of target-file-size (`compaction.small-file-ratio`):
 *  - full: leading files at or above the compaction file size are left alone; the rest is
 *    rewritten when it has at least 3 files and more small files than large ones, or always with
 *    `compaction.force-rewrite-all-files` (`FullCompactTask`);
 *  - minor: a sliding window picks the first `compaction.min.file-num` (5) consecutive files,
 *    dropping the oldest while the window reaches twice target-file-size (`pickCompactBefore`).
 * Unaware-bucket tables (`AppendCompactCoordinator`, batch plan; the strategy does not matter):
 * files below the compaction file size, sorted by size, are packed into bins; a bin is emitted
 * when it has more than one file and its size (each file + `source.split.open-file-cost`,
 * 4 MiB) reaches twice the target, and the remainder when it has at least
 * `compaction.min.file-num` (5) files.
 *
 * With deletion vectors (`deletion-vectors.enabled`) the planning, the reading (deleted rows
 * dropped) and the index changes committed with the compaction are those of append-dv.ts.
 *
 * Rewrites keep the rows in file order, level 0, sequence numbers counted on from the first
 * compacted file's minimum (`AppendFileStoreWrite.compactRewrite`). Row-tracking tables keep each
 * row's `_ROW_ID` and `_SEQUENCE_NUMBER` as physical columns (row-tracking-compaction.ts).
 */
import type { FileIO } from '../fs/file-io.js';
import type { DataFileMeta } from '../spec/data-file-meta.js';
import type { DataFieldSpec } from '../data/field-type.js';
import type { TableSchemaLike } from '../data/data-file-layout.js';
import { parseMemorySize } from '../spec/core-options.js';
import { AppendDataFileWriter } from '../data/parquet-writer.js';
import type { DataEngine } from '../data/duckdb-engine.js';
import { readValueRows } from '../data/parquet-reader.js';
import { readRowTrackedRows } from './row-tracking-compaction.js';
import { rowEvolution } from '../data/schema-evolution.js';
import type { BucketCompactResult } from './compact-table.js';
import type { BinaryRow } from '../spec/binary-row.js';
import { DELETION_VECTORS_INDEX } from '../table/index-manifest.js';
import { writeDeletionVectorsIndexFile, type DvIndexLocation } from '../table/deletion-vectors-index-file.js';
import { rewriteAppendColumnar } from './columnar-append.js';
import { compactionFileSize as smallFileSize, deleteRatioThreshold, packInOrder, packUnawareDv, pickBucketedFullDv, unawareIndexChanges, type AppendDv } from './append-dv.js';

export const FULL_COMPACT_MIN_FILE = 3;

const bySeq = (a: DataFileMeta, b: DataFileMeta): number => (a.minSequenceNumber < b.minSequenceNumber ? -1 : a.minSequenceNumber > b.minSequenceNumber ? 1 : 0);

/** Bucketed append, full compaction (`FullCompactTask`); returns the files to rewrite (empty: nothing). */
export function pickBucketedFull(files: readonly DataFileMeta[], targetFileSize: number, compactionFileSize = Math.floor(targetFileSize / 10) * 7, forceRewriteAll = false): DataFileMeta[] {
  if (forceRewriteAll) return [...files].sort(bySeq);
  if (files.length < FULL_COMPACT_MIN_FILE) return [];
  const toCompact = [...files].sort(bySeq);
  while (toCompact.length > 0 && Number(toCompact[0].fileSize) >= compactionFileSize) toCompact.shift();
  let big = 0, small = 0;
  for (const f of toCompact) {
    if (Number(f.fileSize) >= compactionFileSize) big++;
    else small++;
  }
  return small > big && toCompact.length >= FULL_COMPACT_MIN_FILE ? toCompact : [];
}

/** Bucketed append, best-effort compaction (`pickCompactBefore`). */
export function pickBucketedMinor(files: readonly DataFileMeta[], targetFileSize: number, minFileNum: number): DataFileMeta[] {
  const sorted = [...files].sort(bySeq);
  const candidates: DataFileMeta[] = [];
  let total = 0;
  for (const f of sorted) {
    candidates.push(f);
    total += Number(f.fileSize);
    if (candidates.length >= minFileNum) return candidates;
    if (total >= targetFileSize * 2) total -= Number(candidates.shift()!.fileSize);
  }
  return [];
}

/** Unaware-bucket append (`AppendCompactCoordinator` batch plan): groups of files to rewrite. */
export function packUnaware(files: readonly DataFileMeta[], targetFileSize: number, minFileNum: number, openFileCost: number, compactionFileSize = Math.floor(targetFileSize / 10) * 7): DataFileMeta[][] {
  const small = files.filter((f) => Number(f.fileSize) < compactionFileSize).sort((a, b) => Number(a.fileSize - b.fileSize));
  return packInOrder(small, targetFileSize, minFileNum, openFileCost);
}

export interface AppendBucketInput {
  fileIO: FileIO;
  table: string;
  bucketDir: string;
  files: DataFileMeta[];
  target: TableSchemaLike & { fieldSpecs: DataFieldSpec[] };
  schemaOf(id: bigint): Promise<TableSchemaLike & { fieldSpecs: DataFieldSpec[] }>;
  options: Readonly<Record<string, string>>;
  targetFileSize: number;
  full: boolean;
  bucketed: boolean;
  dryRun: boolean;
  signal?: AbortSignal;
  onWritten(m: DataFileMeta): void;
  /** `compaction.force-rewrite-all-files`. */
  forceRewriteAll?: boolean;
  /** Deletion-vector tables: the vectors of this partition (unaware) or bucket (fixed) at the base snapshot. */
  dv?: AppendDvContext | null;
  /** Row-tracking tables: `_ROW_ID` and `_SEQUENCE_NUMBER` are carried into the new files (row-tracking-compaction.ts). */
  rowTracking?: boolean;
  /** The compaction's own DuckDB instance (its memory limit is the budget's), for the writers. */
  engine?: DataEngine | null;
}

export interface AppendDvContext {
  vectors: ReadonlyMap<string, AppendDv>;
  loc: DvIndexLocation;
  partition: BinaryRow;
  bucket: number;
  /** Index files written (removed again if the compaction fails). */
  onIndexWritten(path: string): void;
}

export async function compactAppendBucket(i: AppendBucketInput): Promise<BucketCompactResult> {
  const minFileNum = Number(i.options['compaction.min.file-num'] ?? '5');
  const openFileCost = parseMemorySize(i.options['source.split.open-file-cost'] ?? '4 mb', 'source.split.open-file-cost');
  const small = smallFileSize(i.options, i.targetFileSize);
  const force = i.forceRewriteAll ?? false;
  const dv = i.dv ?? null;
  let groups: DataFileMeta[][];
  if (dv === null) {
    groups = i.bucketed
      ? [i.full ? pickBucketedFull(i.files, i.targetFileSize, small, force) : pickBucketedMinor(i.files, i.targetFileSize, minFileNum)]
      : packUnaware(i.files, i.targetFileSize, minFileNum, openFileCost, small);
  } else if (i.bucketed) {
    groups = [i.full ? pickBucketedFullDv(i.files, (n) => dv.vectors.has(n), small, force) : pickBucketedMinor(i.files, i.targetFileSize, minFileNum)];
  } else {
    const info = new Map([...dv.vectors].map(([n, v]) => [n, { indexFileName: v.entry.indexFile.fileName, cardinality: v.cardinality }] as const));
    groups = packUnawareDv(i.files, info, { targetFileSize: i.targetFileSize, compactionFileSize: small, minFileNum, openFileCost, deleteRatioThreshold: deleteRatioThreshold(i.options) });
  }
  groups = groups.filter((g) => g.length > 0);
  const r: BucketCompactResult = { before: [], after: [], written: [], upgraded: 0, rowsRead: 0n, rowsWritten: 0n };
  for (const group of groups) {
    r.before.push(...group);
    if (i.dryRun) continue;
    // Groups that qualify are read and written by DuckDB (columnar-append.ts); row-tracking ones never do.
    const columnar = i.rowTracking === true ? null : await rewriteAppendColumnar({
      fileIO: i.fileIO, bucketDir: i.bucketDir, target: i.target, options: i.options, files: group,
      deletionVectors: dv !== null, dryRun: i.dryRun, targetFileSize: i.targetFileSize, signal: i.signal, engine: i.engine,
    });
    if (columnar !== null) {
      for (const m of columnar.files) i.onWritten(m);
      r.written.push(...columnar.files);
      r.after.push(...columnar.files);
      r.rowsRead += columnar.rowsRead;
      r.rowsWritten += columnar.rowsWritten;
      continue;
    }
    const writer = new AppendDataFileWriter({
      fileIO: i.fileIO, bucketDir: i.bucketDir, schema: i.target, level: 0, fileSource: 1, options: i.options,
      targetFileSize: i.targetFileSize, startSequenceNumber: group[0].minSequenceNumber, rowTrackingColumns: i.rowTracking === true, engine: i.engine,
    });
    try {
      for (const f of group) {
        i.signal?.throwIfAborted();
        const schema = await i.schemaOf(BigInt(f.schemaId));
        const evolve = rowEvolution(schema.fieldSpecs, i.target.fieldSpecs, `${i.table} file ${f.fileName}`);
        const deletionVector = dv?.vectors.get(f.fileName)?.blob.dv ?? null;
        const path = f.externalPath ?? `${i.bucketDir}/${f.fileName}`;
        const read = i.rowTracking === true
          ? readRowTrackedRows({ fileIO: i.fileIO, path, file: f, schema, table: i.table, evolve, deletionVector })
          : readValueRows({ fileIO: i.fileIO, path, schema, table: i.table, deletionVector });
        for await (const rows of read) {
          const out = evolve === null || i.rowTracking === true ? rows : rows.map(evolve);
          await writer.write(out);
          r.rowsRead += BigInt(rows.length);
          r.rowsWritten += BigInt(out.length);
        }
      }
      const metas = await writer.close();
      for (const m of metas) i.onWritten(m);
      r.written.push(...metas);
      r.after.push(...metas);
    } catch (e) {
      await writer.abort().catch(() => undefined);
      throw e;
    }
  }
  if (dv === null || r.before.length === 0) return r;
  const compacted = new Set(r.before.map((f) => f.fileName));
  if (!i.bucketed) {
    const c = await unawareIndexChanges(i.fileIO, dv.loc, dv.partition, i.bucketDir, dv.vectors, compacted, i.options, i.dryRun);
    for (const p of c.written) dv.onIndexWritten(p);
    if (c.entries.length > 0) r.dvIndexChanges = c;
    return r;
  }
  // BucketedDvMaintainer: the compacted files' vectors removed; a new index file when one was.
  const applied = [...compacted].filter((n) => dv.vectors.has(n)).length;
  if (applied === 0) return r;
  const remaining = [...dv.vectors].filter(([name]) => !compacted.has(name)).map(([dataFileName, v]) => ({ dataFileName, blob: v.blob }));
  if (i.dryRun) {
    r.dvIndex = { entry: { kind: 'ADD', partition: dv.partition, bucket: dv.bucket, indexFile: { indexType: DELETION_VECTORS_INDEX, fileName: '(dry run)', fileSize: 0n, rowCount: BigInt(remaining.length), dvRanges: [], externalPath: null, globalIndexMeta: null } }, path: '', applied };
  } else {
    const w = await writeDeletionVectorsIndexFile(i.fileIO, dv.loc, i.bucketDir, remaining);
    dv.onIndexWritten(w.path);
    r.dvIndex = { entry: { kind: 'ADD', partition: dv.partition, bucket: dv.bucket, indexFile: w.meta }, path: w.path, applied };
  }
  return r;
}
