/**
 * How a commit publishes its snapshot (Paimon's `SnapshotCommit`): by default the snapshot file is
 * created on storage (`RenamingSnapshotCommit`: create-if-absent of `snapshot-N`, then the LATEST
 * hint); a catalog that owns versioning (REST) takes the snapshot through its commit endpoint
 * instead (`CatalogSnapshotCommit`), and the catalog writes the files.
 *
 * Paimon hands the commit its SnapshotCommit through the table's `CatalogEnvironment`. Our table
 * handle (FileStoreTable) carries no catalog environment, and several commit paths build their
 * FileStoreCommit from a FileIO and a table path alone (compaction). So a catalog that commits
 * itself registers the locations of the tables it hands out, and FileStoreCommit takes the
 * snapshot commit from its options first, then from that registry: a compaction or a branch merge
 * over a REST table commits through the catalog without knowing which catalog it came from.
 */
import type { Snapshot } from '../spec/snapshot.js';
import type { ManifestEntry } from '../spec/manifest-entry.js';
import { partitionSpec, type PartitionField, type PartitionPathOptions } from '../spec/partition-path.js';
import { TableLocationRegistry } from './table-location-registry.js';

/** `PartitionStatistics`: what one commit changed in one partition (negative for removals). */
export interface PartitionStatistics {
  /** Partition key to value, as `InternalRowPartitionComputer.generatePartValues` spells them. */
  spec: Record<string, string>;
  recordCount: bigint;
  fileSizeInBytes: bigint;
  fileCount: bigint;
  /** Epoch millis of the newest file creation in the change. */
  lastFileCreationTime: bigint;
  totalBuckets: number;
}

export interface SnapshotCommit {
  /**
   * Publish `snapshot` on `branch`. True when it is committed; false when another commit took its
   * place first (the caller retries from the new latest snapshot). Throws when the outcome is
   * unknown or the commit was refused; nothing is then to be cleaned up by the caller.
   * `baseSnapshotUuid` is the uuid of the snapshot this one was built on (Paimon 2.0 sends it so
   * that the catalog refuses a commit built on a snapshot that is no longer the latest).
   */
  commit(snapshot: Snapshot, branch: string, statistics: readonly PartitionStatistics[], baseSnapshotUuid: string | null): Promise<boolean>;
  /** Whether `commit` needs the statistics (computing them reads the delta manifests back). */
  readonly wantsStatistics: boolean;
}

/**
 * `PartitionEntry.merge(deltaFiles)` then `toPartitionStatistics`: per partition, the sum of the
 * ADD files minus the DELETE files (records, bytes, count), the newest creation time, the last
 * total-bucket count seen. Creation times are stored as local wall-clock millis
 * (`LocalDateTime`); Java turns them into epoch millis in the JVM's zone, as this process does.
 */
export function partitionStatistics(
  entries: readonly ManifestEntry[],
  fields: readonly PartitionField[],
  options: PartitionPathOptions = {},
): PartitionStatistics[] {
  const byPartition = new Map<string, PartitionStatistics>();
  for (const e of entries) {
    const sign = e.kind === 'DELETE' ? -1n : 1n;
    const created = e.file.creationTime === null ? 0n : localMillisToEpoch(e.file.creationTime);
    const key = e.partition.key();
    const old = byPartition.get(key);
    if (old === undefined) {
      byPartition.set(key, {
        spec: Object.fromEntries(partitionSpec(e.partition, fields, options)),
        recordCount: sign * e.file.rowCount,
        fileSizeInBytes: sign * e.file.fileSize,
        fileCount: sign,
        lastFileCreationTime: created,
        totalBuckets: e.totalBuckets,
      });
    } else {
      old.recordCount += sign * e.file.rowCount;
      old.fileSizeInBytes += sign * e.file.fileSize;
      old.fileCount += sign;
      if (created > old.lastFileCreationTime) old.lastFileCreationTime = created;
      old.totalBuckets = e.totalBuckets;
    }
  }
  return [...byPartition.values()];
}

function localMillisToEpoch(local: bigint): bigint {
  const offsetMinutes = new Date(Number(local)).getTimezoneOffset();
  return local + BigInt(offsetMinutes) * 60_000n;
}

/** Builds the snapshot commit of one table branch. */
export type SnapshotCommitFactory = (branch: string) => SnapshotCommit;

/**
 * Tables whose commits their catalog takes, by table location: registered by the catalog when it
 * hands out the table, consulted by FileStoreCommit. Keyed by location rather than carried by the
 * table's FileIO because procedures reopen tables over their own FileIO views (a table-scoped
 * FileIO) that keep the location but not the FileIO object. A location belongs to one table, so
 * a commit to it from anywhere in this process goes through the catalog that owns the table.
 */
const catalogTables = new TableLocationRegistry<SnapshotCommitFactory>();

export function registerCatalogTable(owner: object, location: string, factory: SnapshotCommitFactory): void {
  catalogTables.set(owner, location, factory);
}

/** Forget every table `owner` registered (the catalog is closed). */
export function unregisterCatalogTables(owner: object): void {
  catalogTables.deleteOwner(owner);
}

/** The snapshot commit a commit to `tablePath` must use, or null for the default (storage). */
export function catalogSnapshotCommitOf(tablePath: string, branch: string): SnapshotCommit | null {
  const factory = catalogTables.get(tablePath);
  return factory === null ? null : factory(branch);
}
