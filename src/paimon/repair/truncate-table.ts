/**
 * `FileStoreCommit.truncateTable` of Paimon 1.4 / 2.0 (`BatchTableCommit.truncateTable`, the fourth
 * step of `FileStoreTable.purgeFiles`): one OVERWRITE snapshot that deletes every live data file and
 * every index file (deletion vectors, hash indexes) of the branch, committed with Java's batch
 * identifier Long.MAX_VALUE.
 */
import { randomUUID } from 'node:crypto';
import { toDeleteEntry, type ManifestEntry } from '../spec/manifest-entry.js';
import { LONG_MAX_VALUE, type Snapshot } from '../spec/snapshot.js';
import type { FileStoreTable } from '../table/file-store-table.js';
import type { IndexManifestEntry } from '../table/index-manifest.js';

export interface TruncatePlan {
  base: Snapshot;
  dataFiles: number;
  dataBytes: bigint;
  rows: bigint;
  indexFiles: number;
  entries: ManifestEntry[];
  index: IndexManifestEntry[];
}

/** What truncating on top of `base` removes (nothing is written). */
export async function planTruncate(table: FileStoreTable, base: Snapshot): Promise<TruncatePlan> {
  const entries = await table.newScan().readLiveEntries(base);
  const index = base.indexManifest ? (await table.indexManifestFile.read(base.indexManifest)).filter((e) => e.kind === 'ADD') : [];
  let dataBytes = 0n;
  let rows = 0n;
  for (const e of entries) {
    dataBytes += e.file.fileSize;
    rows += e.file.rowCount;
  }
  return { base, dataFiles: entries.length, dataBytes, rows, indexFiles: index.length, entries, index };
}

/** Commit the truncation; `conflictCheck` pins the base (see FileStoreCommit's CommitChanges). */
export async function commitTruncate(
  table: FileStoreTable,
  plan: TruncatePlan,
  conflictCheck: (latest: Snapshot | null) => Promise<void>,
): Promise<Snapshot> {
  const r = await table.newCommit(`purge-${randomUUID()}`).commit({
    kind: 'OVERWRITE',
    deltaEntries: plan.entries.map(toDeleteEntry),
    indexEntries: plan.index.map((e) => ({ ...e, kind: 'DELETE' as const })),
    commitIdentifier: LONG_MAX_VALUE,
    baseSnapshotId: plan.base.id,
    conflictCheck,
  });
  return r.snapshot;
}
