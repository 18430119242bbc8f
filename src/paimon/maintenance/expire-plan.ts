/**
 * What expiring the snapshots [begin, endExclusive) deletes, and in which order: Paimon's
 * ExpireSnapshotsImpl.innerExpireUntil with SnapshotDeletion / FileDeletionBase.
 *
 * The plan is made completely before anything is deleted (the procedure re-checks its
 * pinned generation in between). The execution order that keeps the table readable if the
 * process dies at any point is the plan's field order:
 *   1. dataFiles        files that the expired snapshots' deltas removed and no later
 *                        snapshot or nearest earlier tag still uses
 *   2. changelogFiles   changelog-producer files of the expired snapshots (coupled lifecycle only)
 *   3. metadataFiles    manifest lists, manifests, index manifests and index files, statistics,
 *                        minus everything the end snapshot and the overlapping tags use
 *   4. snapshotIds      snapshot files, ascending (decoupled: changelog-<id> written first)
 *   5. earliestHint     snapshot/EARLIEST
 * A crash leaves snapshot files whose files are partly gone; a rerun finishes the range,
 * because every step tolerates missing files.
 *
 * Only a missing file is tolerated (FILE_NOT_FOUND: a killed earlier run, a concurrent expirer;
 * Paimon reads "nothing" then). A file that exists but cannot be decoded (a format this process
 * does not read, UNSUPPORTED_FORMAT; a damaged file, CORRUPT_METADATA; a storage error) fails the
 * plan, so the procedure stops before it deletes anything: deleting snapshots whose files could
 * not be listed would leave those files behind for good.
 */
import { isPaimonError } from '../errors.js';
import {
  bucketFileKey,
  mergeEntries,
  type FileLocator,
  type MaintenanceFileEntry,
  type MaintenanceReader,
  type ManifestFileRef,
  type PlannedFile,
  type SnapshotLike,
} from './types.js';

export interface ExpirePlanInput {
  earliestId: number;
  endExclusive: number;
  /** The snapshots that exist in [earliestId, endExclusive] (inclusive of the end), ascending. */
  snapshots: readonly SnapshotLike[];
  /** This branch's tags trimmed to snapshots, ascending by id (several names may share one). */
  taggedSnapshots: readonly SnapshotLike[];
  /** Decoupled changelog lifecycle (expire-selection.ts isChangelogDecoupled). */
  changelogDecoupled: boolean;
  /** changelog-producer is not `none`. */
  produceChangelog: boolean;
}

export interface ExpirePlan {
  beginInclusive: number;
  endExclusive: number;
  /** Snapshot ids whose files are deleted, ascending (empty when the end snapshot vanished). */
  snapshotIds: number[];
  dataFiles: PlannedFile[];
  changelogFiles: PlannedFile[];
  /** Null when the skipping set could not be built: manifest cleaning is then skipped (Paimon does too). */
  metadataFiles: PlannedFile[] | null;
  /** Write changelog/changelog-<id> (a copy of the snapshot) before deleting each snapshot. */
  writeLongLivedChangelogs: boolean;
  /** Value of snapshot/EARLIEST to write at the end; null when nothing is written. */
  earliestHint: number | null;
  /** Why some cleaning was skipped (files then stay as orphans, never the other way round). */
  warnings: string[];
}

/** Snapshots with nothing to expire: only the EARLIEST hint may be written. */
export function emptyExpirePlan(earliestId: number, writeEarliestHint: boolean): ExpirePlan {
  return {
    beginInclusive: earliestId,
    endExclusive: earliestId,
    snapshotIds: [],
    dataFiles: [],
    changelogFiles: [],
    metadataFiles: [],
    writeLongLivedChangelogs: false,
    earliestHint: writeEarliestHint ? earliestId : null,
    warnings: [],
  };
}

/** Index of the last tag with id < target, or -1 (SnapshotManager.findPreviousSnapshot). */
export function findPreviousTag(sorted: readonly SnapshotLike[], target: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid].id < target) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** Index of the last tag with id <= target, or -1 (SnapshotManager.findPreviousOrEqualSnapshot). */
export function findPreviousOrEqualTag(sorted: readonly SnapshotLike[], target: number): number {
  return findPreviousTag(sorted, target + 1);
}

/** Tags whose files the expired range may share: ExpireSnapshotsImpl.findSkippingTags. */
export function findSkippingTags(
  sorted: readonly SnapshotLike[],
  beginInclusive: number,
  endExclusive: number,
): SnapshotLike[] {
  const right = findPreviousTag(sorted, endExclusive);
  if (right < 0) return [];
  const left = Math.max(findPreviousOrEqualTag(sorted, beginInclusive), 0);
  return sorted.slice(left, right + 1);
}

/** Rethrows everything but a missing file: only FILE_NOT_FOUND may turn into "nothing" or a warning. */
export function onlyMissing(e: unknown): void {
  if (!isPaimonError(e, 'FILE_NOT_FOUND')) throw e;
}

export async function tryReadManifestList(reader: MaintenanceReader, name: string): Promise<ManifestFileRef[]> {
  // A killed earlier run may have deleted it already; Paimon reads "nothing" then.
  try {
    return await reader.readManifestList(name);
  } catch (e) {
    onlyMissing(e);
    return [];
  }
}

/** Base then delta manifests: every data manifest of the snapshot. */
async function readDataManifests(reader: MaintenanceReader, s: SnapshotLike): Promise<ManifestFileRef[]> {
  const base = await reader.readManifestList(s.baseManifestList);
  const delta = await reader.readManifestList(s.deltaManifestList);
  return [...base, ...delta];
}

/**
 * The merged entries of a snapshot (FileDeletionBase.readMergedDataFiles): what snapshot
 * expiry's tag skipper and tag deletion (tag-deletion.ts) both subtract.
 */
export async function mergedDataFiles(reader: MaintenanceReader, s: SnapshotLike): Promise<MaintenanceFileEntry[]> {
  const merged = new Map<string, MaintenanceFileEntry>();
  for (const m of await readDataManifests(reader, s)) mergeEntries(await reader.readManifest(m.fileName), merged);
  return [...merged.values()];
}

/** Keys (partition, bucket, fileName) of every file live in a tag: createDataFileSkipperForTag. */
async function tagDataFileKeys(reader: MaintenanceReader, tag: SnapshotLike): Promise<Set<string>> {
  const keys = new Set<string>();
  for (const e of await mergedDataFiles(reader, tag)) keys.add(bucketFileKey(e));
  return keys;
}

/**
 * The files a changelog manifest list adds (ChangelogDeletion.cleanUnusedDataFiles), into
 * `into`; an unreadable manifest is passed over (its files become orphans), as Paimon does.
 */
export async function addChangelogFiles(reader: MaintenanceReader, locator: FileLocator, changelogManifestList: string, into: Map<string, PlannedFile>): Promise<void> {
  for (const m of await tryReadManifestList(reader, changelogManifestList)) {
    let entries: MaintenanceFileEntry[];
    try {
      entries = await reader.readManifest(m.fileName);
    } catch (e) {
      onlyMissing(e);
      continue;
    }
    for (const e of entries) {
      if (e.kind !== 'ADD') continue;
      const path = locator.dataFilePath(e);
      into.set(path, { path, kind: 'changelog', bytes: e.fileSize });
    }
  }
}

/**
 * The data-file skipper of the nearest tag before each snapshot (createDataFileSkipperForTags):
 * the keys a tag holds, built once per tag; an empty set without a tag before it, and null when
 * the tag's files cannot be read (said in `warnings`), so that nothing of that snapshot is deleted.
 */
export function tagSkippers(reader: MaintenanceReader, taggedSnapshots: readonly SnapshotLike[], warnings: string[]): (snapshotId: number) => Promise<Set<string> | null> {
  const built = new Map<number, Set<string> | null>();
  const none = new Set<string>();
  return async (snapshotId) => {
    const tagIndex = findPreviousTag(taggedSnapshots, snapshotId);
    if (tagIndex < 0) return none;
    const tag = taggedSnapshots[tagIndex];
    if (!built.has(tag.id)) {
      try {
        built.set(tag.id, await tagDataFileKeys(reader, tag));
      } catch (e) {
        onlyMissing(e);
        built.set(tag.id, null);
        warnings.push(`cannot read the files of tagged snapshot ${tag.id}: ${describe(e)}`);
      }
    }
    return built.get(tag.id) ?? null;
  };
}

/** Files removed by the snapshot's delta (planDeletedInDeltaManifest), before the skipper; null when a manifest of it is missing. */
export async function deletedInDelta(
  reader: MaintenanceReader,
  locator: FileLocator,
  s: SnapshotLike,
): Promise<Map<string, { entry: MaintenanceFileEntry; extras: string[] }> | null> {
  const toDelete = new Map<string, { entry: MaintenanceFileEntry; extras: string[] }>();
  try {
    for (const m of await tryReadManifestList(reader, s.deltaManifestList)) {
      for (const e of await reader.readManifest(m.fileName)) {
        const path = locator.dataFilePath(e);
        // A DELETE followed by an ADD of the same file is an upgrade (level change): keep it.
        if (e.kind === 'ADD') toDelete.delete(path);
        else toDelete.set(path, { entry: e, extras: e.extraFiles.map((x) => locator.extraFilePath(e, x)) });
      }
    }
  } catch (e) {
    onlyMissing(e);
    return null; // a missing manifest cancels this snapshot's data cleaning
  }
  return toDelete;
}

/**
 * Manifest lists, manifests, index manifest + files and statistics a surviving snapshot uses
 * (FileDeletionBase.manifestSkippingSet), for snapshot expiry and tag deletion alike.
 */
export async function manifestSkippingSet(reader: MaintenanceReader, s: SnapshotLike, into: Set<string>): Promise<void> {
  into.add(s.baseManifestList);
  into.add(s.deltaManifestList);
  for (const m of await readDataManifests(reader, s)) into.add(m.fileName);
  if (s.indexManifest) {
    into.add(s.indexManifest);
    for (const f of await reader.readIndexManifest(s.indexManifest)) into.add(f.fileName);
  }
  if (s.statistics) into.add(s.statistics);
}

export async function planExpire(
  input: ExpirePlanInput,
  reader: MaintenanceReader,
  locator: FileLocator,
): Promise<ExpirePlan> {
  const { endExclusive, snapshots, taggedSnapshots } = input;
  if (endExclusive <= input.earliestId || snapshots.length === 0) {
    return emptyExpirePlan(input.earliestId, false);
  }
  const begin = snapshots[0].id;
  const excludingEnd = snapshots.filter((s) => s.id !== endExclusive);
  const warnings: string[] = [];

  // 1. Data files: a file DELETEd by snapshot s (begin < s <= end) was last used by s-1,
  //    unless the nearest tag before s still holds it.
  const skipperFor = tagSkippers(reader, taggedSnapshots, warnings);
  const dataFiles = new Map<string, PlannedFile>();
  const skipAppendFiles = input.changelogDecoupled && !input.produceChangelog;
  for (const s of snapshots) {
    if (s.id === begin) continue;
    const skipper = await skipperFor(s.id);
    if (skipper === null) {
      warnings.push(`data files of snapshot ${s.id} kept: its tag's file set could not be built`);
      continue;
    }
    const deleted = await deletedInDelta(reader, locator, s);
    if (deleted === null) {
      warnings.push(`data files of snapshot ${s.id} kept: a manifest of its delta is missing`);
      continue;
    }
    for (const [path, { entry, extras }] of deleted) {
      if (skipper.has(bucketFileKey(entry))) continue;
      // Decoupled changelog without a producer: APPEND files double as the changelog and
      // are left for changelog expiry (SnapshotDeletion.planDeletedInDeltaManifest).
      if (skipAppendFiles && (entry.fileSource ?? 'APPEND') === 'APPEND') continue;
      dataFiles.set(path, { path, kind: 'data', bytes: entry.fileSize });
      for (const x of extras) dataFiles.set(x, { path: x, kind: 'data', bytes: null });
    }
  }

  // 2. Changelog files of the expired snapshots (coupled lifecycle only).
  const changelogFiles = new Map<string, PlannedFile>();
  if (!input.changelogDecoupled) {
    for (const s of excludingEnd) if (s.changelogManifestList) await addChangelogFiles(reader, locator, s.changelogManifestList, changelogFiles);
  }

  // If the end snapshot disappeared meanwhile, another expirer owns the rest (Paimon returns 0).
  const last = snapshots[snapshots.length - 1];
  if (last.id !== endExclusive) {
    warnings.push(`snapshot ${endExclusive} disappeared during planning; only data files are cleaned`);
    return {
      beginInclusive: begin,
      endExclusive,
      snapshotIds: [],
      dataFiles: [...dataFiles.values()],
      changelogFiles: [...changelogFiles.values()],
      metadataFiles: [],
      writeLongLivedChangelogs: false,
      earliestHint: null,
      warnings,
    };
  }

  // 3. Metadata, minus what the end snapshot and the overlapping tags still use.
  let metadataFiles: PlannedFile[] | null = null;
  const skipping = new Set<string>();
  let skippingOk = true;
  try {
    for (const t of [...findSkippingTags(taggedSnapshots, begin, endExclusive), last]) {
      await manifestSkippingSet(reader, t, skipping);
    }
  } catch (e) {
    onlyMissing(e);
    skippingOk = false;
    warnings.push(`manifest cleaning skipped: cannot build the skipping set (${describe(e)})`);
  }
  if (skippingOk) {
    const out: PlannedFile[] = [];
    const deleteDataManifestLists = !input.changelogDecoupled || input.produceChangelog;
    const deleteChangelog = !input.changelogDecoupled;
    for (const s of excludingEnd) {
      const manifests: PlannedFile[] = [];
      const collectList = async (list: string, listSize: number | null | undefined): Promise<void> => {
        for (const m of await tryReadManifestList(reader, list)) {
          if (!skipping.has(m.fileName)) {
            skipping.add(m.fileName);
            manifests.push({ path: locator.manifestPath(m.fileName), kind: 'manifest', bytes: m.fileSize });
          }
        }
        if (!skipping.has(list)) {
          skipping.add(list);
          manifests.push({ path: locator.manifestPath(list), kind: 'manifest_list', bytes: listSize ?? null });
        }
      };
      if (deleteDataManifestLists) {
        await collectList(s.baseManifestList, s.baseManifestListSize);
        await collectList(s.deltaManifestList, s.deltaManifestListSize);
      }
      if (deleteChangelog && s.changelogManifestList) {
        await collectList(s.changelogManifestList, s.changelogManifestListSize);
      }
      out.push(...manifests);
      if (s.indexManifest) {
        let refs: Awaited<ReturnType<MaintenanceReader['readIndexManifest']>> | null;
        try {
          refs = await reader.readIndexManifest(s.indexManifest);
        } catch (e) {
          if (!isPaimonError(e, 'FILE_NOT_FOUND')) throw e; // Paimon fails the expiry here too
          refs = null; // deleted by an earlier run
        }
        if (refs !== null) {
          for (const r of refs) {
            if (!skipping.has(r.fileName)) {
              skipping.add(r.fileName);
              out.push({ path: locator.indexFilePath(r), kind: 'index', bytes: r.fileSize });
            }
          }
          if (!skipping.has(s.indexManifest)) {
            skipping.add(s.indexManifest);
            out.push({ path: locator.indexManifestPath(s.indexManifest), kind: 'index_manifest', bytes: null });
          }
        }
      }
      if (s.statistics && !skipping.has(s.statistics)) {
        skipping.add(s.statistics);
        out.push({ path: locator.statisticsPath(s.statistics), kind: 'statistics', bytes: null });
      }
    }
    metadataFiles = out;
  }

  return {
    beginInclusive: begin,
    endExclusive,
    snapshotIds: excludingEnd.map((s) => s.id),
    dataFiles: [...dataFiles.values()],
    changelogFiles: [...changelogFiles.values()],
    metadataFiles,
    writeLongLivedChangelogs: input.changelogDecoupled,
    earliestHint: endExclusive,
    warnings,
  };
}

export function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
