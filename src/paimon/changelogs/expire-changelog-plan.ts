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
import { addChangelogFiles, deletedInDelta, findSkippingTags, onlyMissing, tagSkippers, tryReadManifestList } from '../maintenance/expire-plan.js';
import {
  bucketFileKey,
  type FileLocator,
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
  const skipperFor = tagSkippers(reader, input.taggedSnapshots, warnings);

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
    const skipper = await skipperFor(c.id);
    if (skipper === null) {
      skippedIds.push(c.id);
      warnings.push(`changelog ${c.id} kept: its tag's file set could not be built`);
      continue;
    }
    if (c.changelogManifestList) {
      await addChangelogFiles(reader, locator, c.changelogManifestList, dataFiles);
      await collectList(c.changelogManifestList, c.changelogManifestListSize);
    } else {
      const deleted = await deletedInDelta(reader, locator, c);
      if (deleted === null) warnings.push(`data files of changelog ${c.id} kept: a manifest of its delta is missing`);
      else {
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
