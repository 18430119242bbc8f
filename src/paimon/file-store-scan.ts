/**
 * Reading the live data files of a snapshot (`AbstractFileStoreScan` / `FileEntry.mergeEntries`):
 * the base and delta manifest lists, in order, each manifest's entries applied in record order,
 * and only ADD entries remaining after the merge. Manifests are fetched with bounded concurrency
 * and merged in list order, so memory holds the live-entry map plus a small window of manifests.
 */
import type { BinaryRow } from './binary-row.js';
import { mergeEntries } from './file-entry.js';
import type { ManifestEntry } from './manifest-entry.js';
import type { ManifestFileMeta } from './manifest-file-meta.js';
import type { ManifestFile } from './manifest-file.js';
import type { ManifestList } from './manifest-list.js';
import type { Snapshot } from './snapshot.js';

export interface ScanFilter {
  /** Only entries of these partitions (keys from `BinaryRow.key()`). */
  partitions?: ReadonlySet<string>;
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
  async *readEntries(manifests: readonly ManifestFileMeta[], filter: ScanFilter = {}): AsyncGenerator<ManifestEntry[]> {
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
    return this.readLiveEntries(snapshot, { partitions: new Set(partitions.map((p) => p.key())) });
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
