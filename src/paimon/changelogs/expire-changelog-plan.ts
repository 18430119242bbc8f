/**
 * What expiring long-lived changelogs deletes: Paimon's ExpireChangelogImpl.expireUntil and
 * expireAll with ChangelogDeletion (paimon-core 1.4.2 / 2.0.0), planned completely before anything
 * is deleted. Per changelog:
 *   - with a changelog manifest list (a changelog-producer wrote files): the files its changelog
 *     manifests ADD (planAddedInChangelogManifest), and that list with its manifests;
 *   - without one (changelog-producer none: the level-0 files double as the changelog): the files
 *     its delta DELETEs that the nearest earlier tag does not hold (planDeletedInDeltaManifest),
 *     and its delta and base manifest lists with their manifests;
 *   - then the changelog-<id> file itself.
 * Manifests are kept when the skipping set holds them: the base and delta lists (and manifests),
 * index manifest and files and statistics of the tags overlapping the range, the end changelog
 * (expireUntil) and the earliest snapshot. A changelog whose tag file set cannot be read is left
 * whole (Paimon `continue`s past it).
 *
 * Execution order (the plan's field order), so a crash leaves changelog files that a rerun
 * finishes: dataFiles, manifests, manifestLists, changelogIds (ascending), then the hints.
 * Only missing files are tolerated (FILE_NOT_FOUND); anything else fails the plan, as in
 * expire-plan.ts.
 */
import { isPaimonError } from '../errors.js';
import { findPreviousTag, findSkippingTags } from '../maintenance/expire-plan.js';
import {
  bucketFileKey,
  mergeEntries,
  type FileLocator,
  type MaintenanceFileEntry,
  type MaintenanceReader,
  type ManifestFileRef,
  type PlannedFile,
  type SnapshotLike,
} from '../maintenance/types.js';

export interface ExpireChangelogPlanInput {
  /** `range`: expireUntil(earliest, endExclusive); `all`: expireAll (every changelog up to the latest). */
  mode: 'range' | 'all';
  /** First changelog id of the range (the earliest long-lived changelog). */
  beginInclusive: number;
  /** range: the end (kept); all: the latest changelog id + 1. */
  endExclusive: number;
  /** The long-lived changelogs that exist in [beginInclusive, endExclusive), ascending. */
  changelogs: readonly SnapshotLike[];
  /** range: changelog `endExclusive` (null when it is gone: Paimon then expires nothing). */
  endChangelog: SnapshotLike | null;
  /** The earliest snapshot (its files are kept); null when the table has none. */
  earliestSnapshot: SnapshotLike | null;
  /** The branch's tags trimmed to snapshots, ascending by id. */
  taggedSnapshots: readonly SnapshotLike[];
}

export interface ExpireChangelogPlan {
  /** Changelog ids whose files are deleted, ascending. */
  changelogIds: number[];
  /** Ids of changelogs left whole because their tag's file set could not be read. */
  skippedIds: number[];
  dataFiles: PlannedFile[];
  manifests: PlannedFile[];
  manifestLists: PlannedFile[];
  /** range: changelog/EARLIEST to write at the end; null for none. */
  earliestHint: number | null;
  /** all: delete changelog/EARLIEST and LATEST at the end. */
  deleteHints: boolean;
  warnings: string[];
}

function onlyMissing(e: unknown): void {
  if (!isPaimonError(e, 'FILE_NOT_FOUND')) throw e;
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** FileDeletionBase.tryReadManifestList: a list already deleted reads as empty. */
async function tryReadManifestList(reader: MaintenanceReader, name: string): Promise<ManifestFileRef[]> {
  try {
    return await reader.readManifestList(name);
  } catch (e) {
    onlyMissing(e);
    return [];
  }
}

/** ChangelogDeletion.manifestSkippingSet: what the kept snapshots still use; missing lists are passed over. */
async function changelogSkippingSet(reader: MaintenanceReader, keep: readonly SnapshotLike[]): Promise<Set<string>> {
  const skipping = new Set<string>();
  for (const s of keep) {
    for (const list of [s.baseManifestList, s.deltaManifestList]) {
      let refs: ManifestFileRef[];
      try {
        refs = await reader.readManifestList(list);
      } catch (e) {
        onlyMissing(e);
        continue;
      }
      skipping.add(list);
      for (const m of refs) skipping.add(m.fileName);
    }
    if (s.indexManifest) {
      try {
        const refs = await reader.readIndexManifest(s.indexManifest);
        skipping.add(s.indexManifest);
        for (const r of refs) skipping.add(r.fileName);
      } catch (e) {
        onlyMissing(e);
      }
    }
    if (s.statistics) skipping.add(s.statistics);
  }
  return skipping;
}

/** (partition, bucket, fileName) of every file live in a tag (FileDeletionBase.addMergedDataFiles); throws when a manifest is unreadable. */
async function tagFileKeys(reader: MaintenanceReader, tag: SnapshotLike): Promise<Set<string>> {
  const merged = new Map<string, MaintenanceFileEntry>();
  for (const list of [tag.baseManifestList, tag.deltaManifestList]) {
    for (const m of await reader.readManifestList(list)) mergeEntries(await reader.readManifest(m.fileName), merged);
  }
  const keys = new Set<string>();
  for (const e of merged.values()) if (e.kind === 'ADD') keys.add(bucketFileKey(e));
  return keys;
}

export async function planExpireChangelogs(input: ExpireChangelogPlanInput, reader: MaintenanceReader, locator: FileLocator): Promise<ExpireChangelogPlan> {
  const warnings: string[] = [];
  const empty = (earliestHint: number | null): ExpireChangelogPlan => ({
    changelogIds: [],
    skippedIds: [],
    dataFiles: [],
    manifests: [],
    manifestLists: [],
    earliestHint,
    deleteHints: false,
    warnings,
  });
  if (input.mode === 'range' && input.endChangelog === null) {
    warnings.push(`changelog ${input.endExclusive} (the end of the range) is gone; nothing expired`);
    return empty(null);
  }
  const keep: SnapshotLike[] =
    input.mode === 'range'
      ? findSkippingTags(input.taggedSnapshots, input.beginInclusive, input.endExclusive)
      : findSkippingTags(input.taggedSnapshots, input.beginInclusive, input.earliestSnapshot?.id ?? input.endExclusive);
  if (input.endChangelog !== null && input.mode === 'range') keep.push(input.endChangelog);
  if (input.earliestSnapshot !== null) keep.push(input.earliestSnapshot);
  const skipping = await changelogSkippingSet(reader, keep);

  const dataFiles = new Map<string, PlannedFile>();
  const manifests: PlannedFile[] = [];
  const manifestLists: PlannedFile[] = [];
  const changelogIds: number[] = [];
  const skippedIds: number[] = [];
  const tagKeys = new Map<number, Set<string> | null>();

  const collectList = async (list: string, size: number | null | undefined): Promise<void> => {
    for (const m of await tryReadManifestList(reader, list)) {
      if (!skipping.has(m.fileName)) {
        skipping.add(m.fileName);
        manifests.push({ path: locator.manifestPath(m.fileName), kind: 'manifest', bytes: m.fileSize });
      }
    }
    if (!skipping.has(list)) {
      skipping.add(list);
      manifestLists.push({ path: locator.manifestPath(list), kind: 'manifest_list', bytes: size ?? null });
    }
  };

  for (const c of input.changelogs) {
    // createDataFileSkipperForTags: built (and required) for every changelog, as Paimon does.
    const tagIndex = findPreviousTag(input.taggedSnapshots, c.id);
    let skipper: Set<string> | null = new Set();
    if (tagIndex >= 0) {
      const tag = input.taggedSnapshots[tagIndex];
      if (!tagKeys.has(tag.id)) {
        try {
          tagKeys.set(tag.id, await tagFileKeys(reader, tag));
        } catch (e) {
          onlyMissing(e);
          tagKeys.set(tag.id, null);
          warnings.push(`cannot read the files of tagged snapshot ${tag.id}: ${describe(e)}`);
        }
      }
      skipper = tagKeys.get(tag.id) ?? null;
    }
    if (skipper === null) {
      skippedIds.push(c.id);
      warnings.push(`changelog ${c.id} kept: its tag's file set could not be built`);
      continue;
    }
    if (c.changelogManifestList) {
      for (const m of await tryReadManifestList(reader, c.changelogManifestList)) {
        let entries: MaintenanceFileEntry[];
        try {
          entries = await reader.readManifest(m.fileName);
        } catch (e) {
          onlyMissing(e);
          continue; // Paimon ignores an unavailable changelog manifest
        }
        for (const e of entries) {
          if (e.kind !== 'ADD') continue;
          const path = locator.dataFilePath(e);
          dataFiles.set(path, { path, kind: 'changelog', bytes: e.fileSize });
        }
      }
      await collectList(c.changelogManifestList, c.changelogManifestListSize);
    } else {
      const deleted = new Map<string, { entry: MaintenanceFileEntry; extras: string[] }>();
      let cancelled = false;
      try {
        for (const m of await tryReadManifestList(reader, c.deltaManifestList)) {
          for (const e of await reader.readManifest(m.fileName)) {
            const path = locator.dataFilePath(e);
            // A DELETE and an ADD of the same file in one delta is an upgrade: the file stays.
            if (e.kind === 'ADD') deleted.delete(path);
            else deleted.set(path, { entry: e, extras: e.extraFiles.map((x) => locator.extraFilePath(e, x)) });
          }
        }
      } catch (e) {
        onlyMissing(e);
        cancelled = true;
        warnings.push(`data files of changelog ${c.id} kept: a manifest of its delta is missing`);
      }
      if (!cancelled) {
        for (const [path, { entry, extras }] of deleted) {
          if (skipper.has(bucketFileKey(entry))) continue;
          dataFiles.set(path, { path, kind: 'data', bytes: entry.fileSize });
          for (const x of extras) dataFiles.set(x, { path: x, kind: 'data', bytes: null });
        }
      }
      await collectList(c.deltaManifestList, c.deltaManifestListSize);
      await collectList(c.baseManifestList, c.baseManifestListSize);
    }
    changelogIds.push(c.id);
  }

  return {
    changelogIds,
    skippedIds,
    dataFiles: [...dataFiles.values()],
    manifests,
    manifestLists,
    earliestHint: input.mode === 'range' ? input.endExclusive : null,
    deleteHints: input.mode === 'all',
    warnings,
  };
}
