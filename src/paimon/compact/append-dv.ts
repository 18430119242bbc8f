/**
 * Deletion vectors in the compaction of append tables (`deletion-vectors.enabled` = true), as
 * Paimon 1.4.2 and 2.0.0 do it.
 *
 * Unaware-bucket tables (bucket -1; `AppendCompactCoordinator`, `AppendCompactTask`,
 * `AppendDeleteFileMaintainer`): the vectors of a partition live in any number of index files
 * (entry bucket 0, one `dvRanges` item per data file), combined by file name (`GlobalCombiner`).
 *  - Planning: a file is a candidate when it is smaller than the compaction file size or its
 *    vector deletes more than `compaction.delete-ratio-threshold` (0.2) of its rows (or the entry
 *    has no cardinality). Candidates with a vector are grouped by the index file holding it; the
 *    groups, smallest total first, fill bins that are emitted when they have more than one file and
 *    reach twice the target size, and the last bin is always emitted (a file with a vector must be
 *    compacted, even alone). Candidates without a vector are packed as without deletion vectors,
 *    when there are at least two.
 *  - Commit: every index file that held the vector of a compacted file is removed (DELETE entry);
 *    the vectors it still holds for files that were not compacted are written to one new index
 *    file (rolling at `deletion-vector.index-file.target-size`, 2 MiB), their bytes copied as
 *    they were; an index file left with no vector is only removed. Index files that hold no
 *    compacted file's vector are untouched.
 *
 * Fixed-bucket tables (`BucketedAppendCompactManager` with a `BucketedDvMaintainer`): one index
 * file per bucket. A full compaction skips the leading files (by sequence number) that are at
 * least the compaction file size and have no vector, and rewrites all the others (even one); a
 * minor compaction picks as without vectors. When a compacted file had a vector, the bucket gets a
 * new index file with the vectors left (possibly none: Java writes an empty file then, and so do
 * we), which replaces the bucket's entry (`BucketedCombiner`).
 *
 * In both modes the rewrite reads each file with its vector applied, so deleted rows are dropped.
 */
import type { FileIO } from '../fs/file-io.js';
import { PaimonError } from '../errors.js';
import type { DataFileMeta } from '../spec/data-file-meta.js';
import { parseMemorySize } from '../spec/core-options.js';
import type { DeletionVectorBlob } from '../spec/deletion-vector.js';
import { encodeDeletionVectorsIndexFile, indexFilePath, readDeletionVectorsIndexFile, type DvIndexLocation } from '../table/deletion-vectors-index-file.js';
import { DELETION_VECTORS_INDEX, type IndexFileMeta, type IndexManifestEntry } from '../table/index-manifest.js';
import type { BinaryRow } from '../spec/binary-row.js';

/** One data file's vector and where it is stored. */
export interface AppendDv {
  blob: DeletionVectorBlob;
  /** Cardinality as the index entry states it (null in old entries). */
  cardinality: bigint | null;
  /** The index manifest entry of the index file holding it. */
  entry: IndexManifestEntry;
}

/** The vectors of the given index entries (one partition / bucket), keyed by data file name. */
export async function loadAppendDvs(fileIO: FileIO, loc: DvIndexLocation, entries: readonly IndexManifestEntry[], bucketDir: string): Promise<Map<string, AppendDv>> {
  const out = new Map<string, AppendDv>();
  for (const entry of entries) {
    const blobs = await readDeletionVectorsIndexFile(fileIO, indexFilePath(loc, entry.indexFile, bucketDir), entry.indexFile);
    for (const r of entry.indexFile.dvRanges ?? []) {
      if (out.has(r.dataFileName)) {
        throw new PaimonError('CORRUPT_METADATA', `data file ${r.dataFileName} has deletion vectors in two index files (${out.get(r.dataFileName)!.entry.indexFile.fileName}, ${entry.indexFile.fileName})`);
      }
      out.set(r.dataFileName, { blob: blobs.get(r.dataFileName)!, cardinality: r.cardinality, entry });
    }
  }
  return out;
}

/** `CoreOptions.compactionFileSize(false)`: files below it join a compaction. */
export function compactionFileSize(options: Readonly<Record<string, string>>, targetFileSize: number): number {
  const ratio = options['compaction.small-file-ratio'];
  if (ratio !== undefined) {
    const r = Number(ratio);
    if (!Number.isFinite(r) || r <= 0) throw new PaimonError('INVALID_ARGUMENT', `compaction.small-file-ratio '${ratio}' is not a positive number`);
    return Math.floor(targetFileSize * r);
  }
  // Paimon 1.4: targetFileSize / 10 * 7 (2.0: targetFileSize * 0.7, the same up to rounding).
  return Math.floor(targetFileSize / 10) * 7;
}

export function deleteRatioThreshold(options: Readonly<Record<string, string>>): number {
  const v = options['compaction.delete-ratio-threshold'];
  if (v === undefined) return 0.2;
  const r = Number(v);
  if (!Number.isFinite(r) || r < 0) throw new PaimonError('INVALID_ARGUMENT', `compaction.delete-ratio-threshold '${v}' is not a non-negative number`);
  return r;
}

export interface UnawareDvPlanOptions {
  targetFileSize: number;
  compactionFileSize: number;
  minFileNum: number;
  openFileCost: number;
  deleteRatioThreshold: number;
}

/** What the planner needs to know of a file's vector. */
export interface DvInfo {
  indexFileName: string;
  cardinality: bigint | null;
}

/** `AppendCompactCoordinator.shouldCompact` with deletion vectors. */
export function unawareCandidate(f: DataFileMeta, dv: DvInfo | undefined, o: UnawareDvPlanOptions): boolean {
  if (Number(f.fileSize) < o.compactionFileSize) return true;
  if (dv === undefined) return false;
  return dv.cardinality === null || Number(dv.cardinality) > Number(f.rowCount) * o.deleteRatioThreshold;
}

/**
 * `SubCoordinator.pack` over files in the given order: a bin is emitted when it holds more than
 * one file and its size (each file + the open-file cost) reaches twice the target; the remainder
 * when it has at least `minFileNum` files.
 */
export function packInOrder(files: readonly DataFileMeta[], targetFileSize: number, minFileNum: number, openFileCost: number): DataFileMeta[][] {
  const out: DataFileMeta[][] = [];
  let bin: DataFileMeta[] = [];
  let size = 0;
  for (const f of files) {
    bin.push(f);
    size += Number(f.fileSize) + openFileCost;
    if (bin.length > 1 && size >= targetFileSize * 2) {
      out.push(bin);
      bin = [];
      size = 0;
    }
  }
  if (bin.length >= minFileNum) out.push(bin);
  return out;
}

/** The plain bin packing of `SubCoordinator.pack` (files sorted by size). */
function packBySize(files: readonly DataFileMeta[], o: UnawareDvPlanOptions): DataFileMeta[][] {
  const sorted = [...files].sort((a, b) => (a.fileSize < b.fileSize ? -1 : a.fileSize > b.fileSize ? 1 : a.fileName.localeCompare(b.fileName)));
  return packInOrder(sorted, o.targetFileSize, o.minFileNum, o.openFileCost);
}

/**
 * Unaware-bucket plan of one partition with deletion vectors enabled
 * (`SubCoordinator.packInDeletionVectorVMode` over the `shouldCompact` candidates).
 */
export function packUnawareDv(files: readonly DataFileMeta[], dvs: ReadonlyMap<string, DvInfo>, o: UnawareDvPlanOptions): DataFileMeta[][] {
  const candidates = files.filter((f) => unawareCandidate(f, dvs.get(f.fileName), o));
  const withDv = new Map<string, DataFileMeta[]>();
  const rest: DataFileMeta[] = [];
  for (const f of candidates) {
    const dv = dvs.get(f.fileName);
    if (dv === undefined) rest.push(f);
    else {
      const l = withDv.get(dv.indexFileName) ?? [];
      l.push(f);
      withDv.set(dv.indexFileName, l);
    }
  }
  const total = (l: readonly DataFileMeta[]): bigint => l.reduce((n, f) => n + f.fileSize, 0n);
  const groups = [...withDv.entries()]
    .map(([name, l]) => ({ name, files: [...l].sort((a, b) => (a.minSequenceNumber < b.minSequenceNumber ? -1 : a.minSequenceNumber > b.minSequenceNumber ? 1 : 0)), size: total(l) }))
    .sort((a, b) => (a.size < b.size ? -1 : a.size > b.size ? 1 : a.name.localeCompare(b.name)));
  const out: DataFileMeta[][] = [];
  let bin: DataFileMeta[] = [];
  let size = 0;
  for (const g of groups) {
    for (const f of g.files) {
      bin.push(f);
      size += Number(f.fileSize) + o.openFileCost;
    }
    if (bin.length > 1 && size >= o.targetFileSize * 2) {
      out.push(bin);
      bin = [];
      size = 0;
    }
  }
  // Files with deletion vectors must be compacted.
  if (bin.length > 0) out.push(bin);
  if (rest.length > 1) out.push(...packBySize(rest, o));
  return out;
}

const bySeq = (a: DataFileMeta, b: DataFileMeta): number => (a.minSequenceNumber < b.minSequenceNumber ? -1 : a.minSequenceNumber > b.minSequenceNumber ? 1 : 0);

/**
 * Fixed-bucket full compaction with a deletion-vector maintainer (`FullCompactTask`): the leading
 * files (by min sequence number) that are large and have no vector are skipped; everything after
 * is rewritten. Empty: nothing to do.
 */
export function pickBucketedFullDv(files: readonly DataFileMeta[], hasDv: (fileName: string) => boolean, compactionFileSize: number, forceRewriteAll: boolean): DataFileMeta[] {
  const toCompact = [...files].sort(bySeq);
  if (forceRewriteAll) return toCompact;
  while (toCompact.length > 0 && Number(toCompact[0].fileSize) >= compactionFileSize && !hasDv(toCompact[0].fileName)) toCompact.shift();
  return toCompact;
}

/** Splits vectors into index files as `DeletionVectorIndexFileWriter.writeWithRolling` does (a file ends once it passes the target size). */
export function rollVectors<T extends { blob: DeletionVectorBlob }>(vectors: readonly T[], targetSize: number): T[][] {
  const out: T[][] = [];
  let cur: T[] = [];
  let pos = 1;
  for (const v of vectors) {
    cur.push(v);
    pos += v.blob.blob.length;
    if (pos > targetSize) {
      out.push(cur);
      cur = [];
      pos = 1;
    }
  }
  if (cur.length > 0) out.push(cur);
  return out;
}

export interface UnawareIndexChanges {
  /** DELETE entries of the touched index files, then ADD entries of the new ones (the order Java commits them). */
  entries: IndexManifestEntry[];
  /** Paths of the index files written (removed again if the compaction fails). */
  written: string[];
  /** Vectors removed with their compacted files. */
  applied: number;
}

/**
 * Index changes of an unaware-bucket partition after compacting `compacted`
 * (`AppendDeleteFileMaintainer.notifyRemovedDeletionVector` + `persist`).
 */
export async function unawareIndexChanges(
  fileIO: FileIO,
  loc: DvIndexLocation,
  partition: BinaryRow,
  bucketDir: string,
  dvs: ReadonlyMap<string, AppendDv>,
  compacted: ReadonlySet<string>,
  options: Readonly<Record<string, string>>,
  dryRun: boolean,
): Promise<UnawareIndexChanges> {
  const targetSize = parseMemorySize(options['deletion-vector.index-file.target-size'] ?? '2 mb', 'deletion-vector.index-file.target-size');
  const touched = new Map<string, IndexManifestEntry>();
  let applied = 0;
  for (const name of compacted) {
    const dv = dvs.get(name);
    if (dv === undefined) continue;
    applied++;
    touched.set(dv.entry.indexFile.fileName, dv.entry);
  }
  const deletes: IndexManifestEntry[] = [];
  const adds: IndexManifestEntry[] = [];
  const written: string[] = [];
  try {
    for (const [indexName, entry] of [...touched].sort(([a], [b]) => a.localeCompare(b))) {
      deletes.push({ ...entry, kind: 'DELETE' });
      // The vectors this index file keeps, in its own order, bytes as stored.
      const remaining = (entry.indexFile.dvRanges ?? [])
        .filter((r) => !compacted.has(r.dataFileName))
        .map((r) => {
          const dv = dvs.get(r.dataFileName);
          if (dv === undefined || dv.entry.indexFile.fileName !== indexName) throw new PaimonError('CORRUPT_METADATA', `deletion vector of ${r.dataFileName} in ${indexName} was not loaded`);
          return { dataFileName: r.dataFileName, blob: dv.blob };
        });
      for (const chunk of rollVectors(remaining, targetSize)) {
        if (dryRun) {
          adds.push({ kind: 'ADD', partition, bucket: 0, indexFile: { indexType: DELETION_VECTORS_INDEX, fileName: '(dry run)', fileSize: 0n, rowCount: BigInt(chunk.length), dvRanges: [], externalPath: null, globalIndexMeta: null } });
          continue;
        }
        const fileName = loc.pathFactory.newIndexFileName();
        const { data, meta } = encodeDeletionVectorsIndexFile(fileName, chunk);
        const path = indexFilePath(loc, meta, bucketDir);
        await fileIO.writeFile(path, data);
        written.push(path);
        adds.push({ kind: 'ADD', partition, bucket: 0, indexFile: meta as IndexFileMeta });
      }
    }
  } catch (e) {
    await fileIO.deleteMany(written).catch(() => 0);
    throw e;
  }
  return { entries: [...deletes, ...adds], written, applied };
}

/**
 * Before committing an unaware-bucket deletion-vector compaction: a concurrent writer must not
 * have given a vector to a file this compaction rewrote (its deletes would be lost), nor replaced
 * an index file this compaction removes.
 */
export function checkUnawareDvConflicts(
  table: string,
  baseSnapshotId: number,
  latestSnapshotId: number,
  base: readonly IndexManifestEntry[],
  latest: readonly IndexManifestEntry[],
  changes: ReadonlyArray<{ partitionKey: string; compacted: ReadonlySet<string>; removedIndexFiles: readonly string[] }>,
): void {
  const baseNames = new Set(base.filter((e) => e.indexFile.indexType === DELETION_VECTORS_INDEX).map((e) => e.indexFile.fileName));
  const latestDv = latest.filter((e) => e.kind === 'ADD' && e.indexFile.indexType === DELETION_VECTORS_INDEX);
  const latestNames = new Set(latestDv.map((e) => e.indexFile.fileName));
  const conflict = (why: string): never => {
    throw new PaimonError('COMMIT_CONFLICT', `compact on ${table}: ${why} since snapshot ${baseSnapshotId} (now snapshot ${latestSnapshotId}); nothing was committed, run the compaction again`);
  };
  for (const c of changes) {
    for (const n of c.removedIndexFiles) if (!latestNames.has(n)) conflict(`the deletion-vector index file ${n} was replaced by another writer`);
    for (const e of latestDv) {
      if (baseNames.has(e.indexFile.fileName) || e.partition.key() !== c.partitionKey) continue;
      const hit = (e.indexFile.dvRanges ?? []).find((r) => c.compacted.has(r.dataFileName));
      if (hit) conflict(`another writer added deletion vectors to ${hit.dataFileName}, a file this compaction rewrote,`);
    }
  }
}
