/**
 * Partitions that a catalog keeps beside the table files (Paimon's `PartitionModification` and
 * `PartitionMarkDone` of a Hive catalog): with `metastore.partitioned-table` every partition of a
 * partitioned table is a metastore partition too, and with `metastore.tag-to-partition` every tag
 * of the table is a metastore partition `<field>=<tag>`. The catalog files one of these under the
 * location of each such table it hands out; Paimon's callbacks then find it from wherever the
 * change is made:
 *
 * * a commit that adds files adds their partitions (`AddPartitionCommitCallback`, FileStoreCommit);
 * * a tag created or deleted adds or drops its partition (`AddPartitionTagCallback`, TagManager);
 * * partition expiry drops the expired partitions and their `.done` partitions
 *   (`NormalPartitionExpire.doBatchExpire`), mark_partition_done adds `<last value>.done`
 *   (`AddDonePartitionAction`) or marks the partition's LOAD_DONE event (`MarkPartitionDoneEventAction`).
 *
 * Every method works on the metastore only; the files are the caller's.
 */
import { TableLocationRegistry } from './table-location-registry.js';

/** A partition by its keys and values, in partition-key order (Paimon's `LinkedHashMap` spec). */
export type PartitionValues = ReadonlyArray<readonly [string, string]>;

export interface MetastorePartitions {
  /** The metastore and table, for messages (no credentials). */
  readonly where: string;
  /** `metastore.partitioned-table` on a partitioned table: data partitions are kept. */
  readonly keepsDataPartitions: boolean;
  /** `metastore.tag-to-partition`: the partition field each tag is kept under, or null. */
  readonly tagPartitionField: string | null;
  /** Adds the partitions the metastore does not have yet (`add_partitions`, if not exists). */
  add(partitions: readonly PartitionValues[]): Promise<void>;
  /** Drops the partitions; ones the metastore does not have are skipped. Returns how many it dropped. */
  drop(partitions: readonly PartitionValues[]): Promise<number>;
  /** Marks each partition's LOAD_DONE event; ones the metastore does not have are skipped. */
  markDone(partitions: readonly PartitionValues[]): Promise<void>;
}

const registry = new TableLocationRegistry<MetastorePartitions>();

export function registerMetastorePartitions(owner: object, location: string, partitions: MetastorePartitions): void {
  registry.set(owner, location, partitions);
}

/** The table no longer has metastore partitions (its options changed); forget it. */
export function unregisterMetastorePartitions(location: string): void {
  registry.delete(location);
}

export function unregisterAllMetastorePartitions(owner: object): void {
  registry.deleteOwner(owner);
}

/** The metastore partitions of the table at `location`, or null when no catalog keeps any. */
export function metastorePartitionsOf(location: string): MetastorePartitions | null {
  return registry.get(location);
}

/** `<last value>.done`: the partition AddDonePartitionAction adds for a finished partition. */
export function donePartition(partition: PartitionValues): PartitionValues {
  if (partition.length === 0) return partition;
  const last = partition[partition.length - 1]!;
  return [...partition.slice(0, -1), [last[0], `${last[1]}.done`]];
}
