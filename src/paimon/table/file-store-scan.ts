/**
 * Reading the live data files of a snapshot (`AbstractFileStoreScan` / `FileEntry.mergeEntries`):
 * the base and delta manifest lists, in order, each manifest's entries applied in record order,
 * and only ADD entries remaining after the merge. Manifests are fetched with bounded concurrency
 * and merged in list order, so memory holds the live-entry map plus a small window of manifests.
 */
import type { BinaryFieldType, BinaryRow } from '../spec/binary-row.js';
import { compareStatsValues } from '../spec/simple-stats.js';
import { mergeEntries } from '../spec/file-entry.js';
import type { ManifestEntry } from '../spec/manifest-entry.js';
import type { ManifestFileMeta } from '../spec/manifest-file-meta.js';
import type { ManifestFile } from './manifest-file.js';
import type { ManifestList } from './manifest-list.js';
import type { Snapshot } from '../spec/snapshot.js';

export interface ScanFilter {
  /** Only entries of these partitions (keys from `BinaryRow.key()`). */
  partitions?: ReadonlySet<string>;
  /** The same partitions as rows: lets whole manifests be skipped by their partition stats. */
  partitionRows?: readonly BinaryRow[];
  /** Only entries of this bucket. */
  bucket?: number;
}

export class FileStoreScan {
  constructor(
    readonly manifestList: ManifestList,
    readonly manifestFile: ManifestFile,
    /** How many manifests are read ahead (`scan.manifest.parallelism`-like). */
    readonly readAhead = 8,
  ) {}

  /** The manifests of a snapshot's data (base, then delta). */
  async dataManifests(snapshot: Pick<Snapshot, 'baseManifestList' | 'deltaManifestList'>): Promise<ManifestFileMeta[]> {
    return this.manifestList.readDataManifests(snapshot);
  }

  /**
   * Entries of the given manifests, in order, read ahead with bounded concurrency. A filter drops
   * entries early (the merge of dropped entries cannot affect kept ones: identities include
   * partition and bucket).
   */
  async *readEntries(allManifests: readonly ManifestFileMeta[], filter: ScanFilter = {}): AsyncGenerator<ManifestEntry[]> {
    // Skip manifests whose bucket bounds or partition stats exclude what is asked for (1.1+
    // manifests carry the bounds; null bounds mean unknown and never skip).
    const pending: Promise<ManifestEntry[]>[] = [];
    let next = 0;
    const load = async (m: ManifestFileMeta): Promise<ManifestEntry[]> => {
      const out: ManifestEntry[] = [];
      for (const e of await this.manifestFile.iterate(m.fileName)) {
        if (filter.bucket !== undefined && e.bucket !== filter.bucket) continue;
        if (filter.partitions && !filter.partitions.has(e.partition.key())) continue;
        out.push(e);
      }
      return out;
    };
    const mayContain = (m: ManifestFileMeta): boolean => {
      if (filter.bucket !== undefined && m.minBucket !== null && m.maxBucket !== null && m.minBucket <= m.maxBucket) {
        if (filter.bucket < m.minBucket || filter.bucket > m.maxBucket) return false;
      }
      if (filter.partitionRows && filter.partitionRows.length > 0) {
        return filter.partitionRows.some((p) => partitionMayBeIn(p, m, this.manifestFile.partitionTypes));
      }
      return true;
    };
    const manifests = allManifests.filter(mayContain);
    while (next < manifests.length || pending.length > 0) {
      while (next < manifests.length && pending.length < this.readAhead) {
        const p = load(manifests[next++]);
        p.catch(() => undefined); // surfaced when awaited in order
        pending.push(p);
      }
      yield await (pending.shift() as Promise<ManifestEntry[]>);
    }
  }

  /** Merge entries of the given manifests; returns the merged map (ADD and unmatched DELETE). */
  async mergeManifests(manifests: readonly ManifestFileMeta[], filter: ScanFilter = {}): Promise<Map<string, ManifestEntry>> {
    const map = new Map<string, ManifestEntry>();
    for await (const batch of this.readEntries(manifests, filter)) mergeEntries(batch, map);
    return map;
  }

  /** Every live data file of the snapshot (ADD entries after the merge), in manifest order. */
  async readLiveEntries(snapshot: Pick<Snapshot, 'baseManifestList' | 'deltaManifestList'> | null, filter: ScanFilter = {}): Promise<ManifestEntry[]> {
    if (snapshot === null) return [];
    const merged = await this.mergeManifests(await this.dataManifests(snapshot), filter);
    const out: ManifestEntry[] = [];
    for (const e of merged.values()) if (e.kind === 'ADD') out.push(e);
    return out;
  }

  /** `readAllEntriesFromChangedPartitions`: live entries of the given partitions. */
  async readLiveEntriesOfPartitions(snapshot: Snapshot | null, partitions: readonly BinaryRow[]): Promise<ManifestEntry[]> {
    return this.readLiveEntries(snapshot, { partitions: new Set(partitions.map((p) => p.key())), partitionRows: partitions });
  }

  /** The changes a snapshot made (its delta list), unmerged, in file order. */
  async readDeltaEntries(snapshot: Pick<Snapshot, 'deltaManifestList'>): Promise<ManifestEntry[]> {
    const out: ManifestEntry[] = [];
    for await (const batch of this.readEntries(await this.manifestList.readDeltaManifests(snapshot))) out.push(...batch);
    return out;
  }

  /** The changelog files a snapshot produced. */
  async readChangelogEntries(snapshot: Pick<Snapshot, 'changelogManifestList'>): Promise<ManifestEntry[]> {
    const out: ManifestEntry[] = [];
    for await (const batch of this.readEntries(await this.manifestList.readChangelogManifests(snapshot))) out.push(...batch);
    return out;
  }
}

/**
 * Whether a manifest may hold entries of the partition, judged by its FULL-mode partition stats
 * (min/max per field, null counts). Unknown stats (null min/max, arity mismatch) never exclude.
 */
export function partitionMayBeIn(partition: BinaryRow, m: ManifestFileMeta, types: readonly BinaryFieldType[]): boolean {
  const st = m.partitionStats;
  if (partition.arity !== types.length || st.minValues.arity !== types.length || st.maxValues.arity !== types.length) return true;
  for (let i = 0; i < types.length; i++) {
    const t = types[i];
    const v = partition.get(i, t);
    if (v === null) {
      const nc = st.nullCounts[i];
      if (nc !== null && nc !== undefined && nc === 0n) return false;
      continue;
    }
    const min = st.minValues.get(i, t);
    const max = st.maxValues.get(i, t);
    if (min === null || max === null) {
      // Every value of the field is null in this manifest when min/max are null and nulls counted all.
      if (m.numAddedFiles + m.numDeletedFiles > 0n && st.nullCounts[i] === m.numAddedFiles + m.numDeletedFiles) return false;
      continue;
    }
    const lo = compareStatsValues(t, v, min);
    const hi = compareStatsValues(t, v, max);
    if (lo === null || hi === null) continue;
    if (lo < 0 || hi > 0) return false;
  }
  return true;
}
