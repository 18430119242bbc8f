/**
 * Manifest entries whose data file is gone (Paimon 1.1+ `ListUnexistingFiles` in paimon-core, run
 * by Spark's `SparkRemoveUnexistingFiles` and Flink's `RemoveUnexistingFilesAction`): every data
 * file of the latest snapshot, at every level, whose path (`DataFilePathFactory.toPath`, external
 * paths included) does not exist. Removing them is one commit of DELETE entries for exactly those
 * files, as Java's `TableCommit.commit(Long.MAX_VALUE, messages)` with the files as the deleted
 * files of a `DataIncrement`: an APPEND snapshot. Index files (deletion vectors) and changelog
 * files are not looked at, as in Java.
 */
import { randomUUID } from 'node:crypto';
import { PaimonError } from '../errors.js';
import { toDeleteEntry, type ManifestEntry } from '../spec/manifest-entry.js';
import { LONG_MAX_VALUE, type Snapshot } from '../spec/snapshot.js';
import type { FileStoreTable } from '../table/file-store-table.js';

export interface UnexistingFile {
  /** Full path as the table's path factory builds it (Java's `Path.toString()` of the same file). */
  path: string;
  entry: ManifestEntry;
}

/** Checks at most this many paths at once (Java: `file-operation.thread-num` threads). */
const EXISTS_CONCURRENCY = 16;

/** The live data files of `snapshot` that do not exist, in manifest order; `parallelism` existence checks at once. */
export async function listUnexistingFiles(table: FileStoreTable, snapshot: Snapshot, opts: { signal?: AbortSignal; parallelism?: number } = {}): Promise<UnexistingFile[]> {
  const signal = opts.signal;
  const live = await table.newScan().readLiveEntries(snapshot);
  const missing: (UnexistingFile | null)[] = new Array<UnexistingFile | null>(live.length).fill(null);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      signal?.throwIfAborted();
      const i = next++;
      if (i >= live.length) return;
      const e = live[i]!;
      const path = table.pathFactory.toDataFilePath(e.partition, e.bucket, e.file);
      if (!(await table.fileIO.exists(path))) missing[i] = { path, entry: e };
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, opts.parallelism ?? EXISTS_CONCURRENCY), live.length) }, worker));
  return missing.filter((m): m is UnexistingFile => m !== null);
}

/**
 * Commit the DELETE entries of `files` on top of `base` (the snapshot they were listed from).
 * `conflictCheck` runs against the snapshot the commit would supersede (the caller pins its
 * generation there); the built-in conflict detection refuses a file another commit removed
 * meanwhile (COMMIT_CONFLICT).
 */
export async function commitUnexistingFileRemoval(
  table: FileStoreTable,
  base: Snapshot,
  files: readonly UnexistingFile[],
  conflictCheck?: (latest: Snapshot | null) => Promise<void>,
): Promise<Snapshot> {
  if (files.length === 0) throw new PaimonError('INVALID_ARGUMENT', 'nothing to remove: no data file of the latest snapshot is missing');
  const r = await table.newCommit(`remove-unexisting-files-${randomUUID()}`).commit({
    kind: 'APPEND',
    deltaEntries: files.map((f) => toDeleteEntry(f.entry)),
    commitIdentifier: LONG_MAX_VALUE,
    baseSnapshotId: base.id,
    ...(conflictCheck ? { conflictCheck } : {}),
  });
  return r.snapshot;
}
