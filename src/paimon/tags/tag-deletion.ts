/**
 * What deleting tags removes from disk: Paimon's TagManager.deleteTag / doClean with
 * TagDeletion, planned completely before anything is deleted, for one tag or a sequence of
 * tags (delete_tag with a comma list, expire_tags), each planned against the tags that remain
 * after the ones before it, as Java deletes them one by one.
 *
 * Per tag, as Java:
 * - its snapshot still exists as a snapshot file, or another remaining tag holds the same
 *   snapshot: only the tag file goes;
 * - otherwise the data files live in the tagged snapshot (merged base + delta manifests) go,
 *   minus those live in the left neighbour tag and in the nearest right neighbour (the next tag
 *   or the earliest snapshot, whichever id is smaller); then its manifest lists, manifests,
 *   index manifest, index files and statistics, minus the neighbours' (TagDeletion:
 *   cleanUnusedManifests without changelog manifests, which snapshot expiry owns).
 *
 * Safer than Java: the neighbour argument holds only for one linear history, so everything
 * else that can still reach a file is subtracted too (`Protection`: every existing snapshot of
 * the branch through its delta, the latest snapshot, other branches' snapshots and tags, and
 * long-lived changelogs). Java deletes such files; a file is only ever left as an orphan here.
 * A step whose skipping set cannot be built (an unreadable manifest) cleans nothing of that kind,
 * as Java.
 */
import { isPaimonError } from '../errors.js';
import { manifestSkippingSet, mergedDataFiles } from '../maintenance/expire-plan.js';
import { bucketFileKey, type FileLocator, type IndexFileRef, type MaintenanceFileEntry, type MaintenanceReader, type ManifestFileRef, type PlannedFile, type SnapshotLike } from '../maintenance/types.js';

export interface TagRef {
  name: string;
  snapshot: SnapshotLike;
  /** A tag whose deletion a crash interrupted after its tag file was renamed away (tag-lifecycle.ts). */
  interrupted?: boolean;
}

export interface TagDeletionState {
  /** Every tag of the branch (any order). */
  tags: readonly TagRef[];
  /** Ids of the branch's existing snapshot files. */
  snapshotIds: ReadonlySet<number>;
  /** The earliest existing snapshot of the branch, null when it has none. */
  earliest: SnapshotLike | null;
}

/** Files something other than the branch's own tags reaches: never deleted by a tag deletion. */
export interface Protection {
  /** bucketFileKey of data files. */
  dataKeys: Set<string>;
  /** Names of manifest lists, manifests, index manifests, index files and statistics files. */
  metadataNames: Set<string>;
}

export interface TagDeletionStep {
  name: string;
  /** Null when the tag does not exist (any more, in the sequence). */
  snapshotId: number | null;
  /** The rest of a deletion a crash interrupted (the tag file is already renamed away). */
  interrupted: boolean;
  /** Why nothing but the tag file goes, or null when the tag's files were cleaned. */
  keptFilesBecause: string | null;
  /** Data files first, then manifests and index files, then manifest lists, index manifests and statistics. */
  files: PlannedFile[];
}

export interface TagDeletionPlan {
  steps: TagDeletionStep[];
  warnings: string[];
}

/** Memoizes a reader's reads for one plan: neighbours, protection and steps read the same manifests. */
export function cachingReader(reader: MaintenanceReader): MaintenanceReader {
  const lists = new Map<string, Promise<ManifestFileRef[]>>();
  const manifests = new Map<string, Promise<MaintenanceFileEntry[]>>();
  const indexes = new Map<string, Promise<IndexFileRef[]>>();
  const memo = <T>(m: Map<string, Promise<T>>, k: string, f: () => Promise<T>): Promise<T> => {
    let p = m.get(k);
    if (p === undefined) {
      p = f();
      m.set(k, p);
    }
    return p;
  };
  return {
    readManifestList: (n) => memo(lists, n, () => reader.readManifestList(n)),
    readManifest: (n) => memo(manifests, n, () => reader.readManifest(n)),
    readIndexManifest: (n) => memo(indexes, n, () => reader.readIndexManifest(n)),
  };
}

export function emptyProtection(): Protection {
  return { dataKeys: new Set(), metadataNames: new Set() };
}

/**
 * Add to `p` what `s` reaches completely: its live data files and its skipping set (a snapshot
 * or tag that readers may open as a whole).
 */
export async function protectWhole(reader: MaintenanceReader, s: SnapshotLike, p: Protection): Promise<void> {
  for (const e of await mergedDataFiles(reader, s)) p.dataKeys.add(bucketFileKey(e));
  await manifestSkippingSet(reader, s, p.metadataNames);
}

/**
 * Add to `p` what `s` adds on top of its predecessor: the files its delta ADDs, its own list
 * names, its delta and changelog manifests, index manifest (with its index files) and
 * statistics. Together with protectWhole of the earliest snapshot this covers every file any
 * snapshot of a history reaches, without merging each one (a file is live in a snapshot only if
 * the earliest had it or some delta since added it).
 */
export async function protectDelta(reader: MaintenanceReader, s: SnapshotLike, p: Protection): Promise<void> {
  p.metadataNames.add(s.baseManifestList);
  p.metadataNames.add(s.deltaManifestList);
  for (const m of await reader.readManifestList(s.deltaManifestList)) {
    p.metadataNames.add(m.fileName);
    for (const e of await reader.readManifest(m.fileName)) if (e.kind === 'ADD') p.dataKeys.add(bucketFileKey(e));
  }
  if (s.changelogManifestList) {
    p.metadataNames.add(s.changelogManifestList);
    for (const m of await reader.readManifestList(s.changelogManifestList)) p.metadataNames.add(m.fileName);
  }
  if (s.indexManifest && !p.metadataNames.has(s.indexManifest)) {
    p.metadataNames.add(s.indexManifest);
    for (const f of await reader.readIndexManifest(s.indexManifest)) p.metadataNames.add(f.fileName);
  }
  if (s.statistics) p.metadataNames.add(s.statistics);
}

/** Distinct tagged snapshots, ascending (TagManager.tags().keySet()). */
function taggedSnapshots(tags: readonly TagRef[]): SnapshotLike[] {
  const byId = new Map<number, SnapshotLike>();
  for (const t of tags) if (!byId.has(t.snapshot.id)) byId.set(t.snapshot.id, t.snapshot);
  return [...byId.values()].sort((a, b) => a.id - b.id);
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * Plan deleting `targets` in order: a name is a tag of `state` (not an interrupted one), a TagRef
 * that very entry of `state.tags` (an interrupted deletion to finish). `protection` is what else
 * reaches files (see the module comment); files planned by an earlier step are not planned again.
 */
export async function planTagDeletions(
  targets: readonly (string | TagRef)[],
  state: TagDeletionState,
  protection: Protection,
  reader: MaintenanceReader,
  locator: FileLocator,
): Promise<TagDeletionPlan> {
  let remaining = [...state.tags];
  const planned = new Set<string>();
  const steps: TagDeletionStep[] = [];
  const warnings: string[] = [];
  for (const target of targets) {
    const name = typeof target === 'string' ? target : target.name;
    const tag = typeof target === 'string' ? remaining.find((t) => t.name === name && !t.interrupted) : remaining.find((t) => t === target);
    const interrupted = tag?.interrupted === true;
    if (tag === undefined) {
      steps.push({ name, snapshotId: null, interrupted, keptFilesBecause: 'the tag does not exist', files: [] });
      continue;
    }
    const id = tag.snapshot.id;
    const before = remaining;
    remaining = remaining.filter((t) => t !== tag);
    if (state.snapshotIds.has(id)) {
      steps.push({ name, snapshotId: id, interrupted, keptFilesBecause: `snapshot ${id} still exists`, files: [] });
      continue;
    }
    const sharing = remaining.filter((t) => t.snapshot.id === id).map((t) => t.name);
    if (sharing.length > 0) {
      steps.push({ name, snapshotId: id, interrupted, keptFilesBecause: `tag ${sharing.map((n) => `'${n}'`).join(', ')} holds snapshot ${id} too`, files: [] });
      continue;
    }
    const files = await planOneTag(tag.snapshot, taggedSnapshots(before), state.earliest, protection, reader, locator, warnings);
    const fresh = files.filter((f) => !planned.has(f.path));
    for (const f of fresh) planned.add(f.path);
    steps.push({ name, snapshotId: id, interrupted, keptFilesBecause: null, files: fresh });
  }
  return { steps, warnings };
}

/** TagManager.doClean for one tag whose snapshot expired; `sorted` includes the tag's own snapshot. */
async function planOneTag(
  tagged: SnapshotLike,
  sorted: readonly SnapshotLike[],
  earliest: SnapshotLike | null,
  protection: Protection,
  reader: MaintenanceReader,
  locator: FileLocator,
  warnings: string[],
): Promise<PlannedFile[]> {
  const index = sorted.findIndex((s) => s.id === tagged.id);
  const neighbours: SnapshotLike[] = [];
  if (index > 0) neighbours.push(sorted[index - 1]);
  let right: SnapshotLike | null = earliest;
  const rightTag = index >= 0 && index + 1 < sorted.length ? sorted[index + 1] : null;
  if (rightTag !== null && (right === null || rightTag.id < right.id)) right = rightTag;
  if (right !== null) neighbours.push(right);

  const out: PlannedFile[] = [];
  // Data files (TagDeletion.cleanUnusedDataFiles with dataFileSkipper of the neighbours).
  let skipper: Set<string> | null = new Set(protection.dataKeys);
  try {
    for (const n of neighbours) for (const e of await mergedDataFiles(reader, n)) skipper.add(bucketFileKey(e));
  } catch (e) {
    skipper = null;
    warnings.push(`data files of tagged snapshot ${tagged.id} kept: cannot build the skipping set (${describe(e)})`);
  }
  if (skipper !== null) {
    let entries: MaintenanceFileEntry[] | null;
    try {
      entries = await mergedDataFiles(reader, tagged);
    } catch (e) {
      entries = null;
      warnings.push(`data files of tagged snapshot ${tagged.id} kept: cannot read its manifests (${describe(e)})`);
    }
    for (const e of entries ?? []) {
      if (skipper.has(bucketFileKey(e))) continue;
      out.push({ path: locator.dataFilePath(e), kind: 'data', bytes: e.fileSize });
      for (const x of e.extraFiles) out.push({ path: locator.extraFilePath(e, x), kind: 'data', bytes: null });
    }
  }

  // Manifests (TagDeletion.cleanUnusedManifests: planManifestsCleaner(tag, skipping, true, false)).
  let skipping: Set<string> | null = new Set(protection.metadataNames);
  try {
    for (const n of neighbours) await manifestSkippingSet(reader, n, skipping);
  } catch (e) {
    skipping = null;
    warnings.push(`manifests of tagged snapshot ${tagged.id} kept: cannot build the skipping set (${describe(e)})`);
  }
  if (skipping !== null) {
    const inner: PlannedFile[] = [];
    const outer: PlannedFile[] = [];
    const take = (name: string): boolean => {
      if (skipping!.has(name)) return false;
      skipping!.add(name);
      return true;
    };
    for (const [list, size] of [
      [tagged.baseManifestList, tagged.baseManifestListSize],
      [tagged.deltaManifestList, tagged.deltaManifestListSize],
    ] as const) {
      let refs: ManifestFileRef[] = [];
      try {
        refs = await reader.readManifestList(list);
      } catch {
        // Java's tryReadManifestList: an unreadable list names nothing
      }
      for (const m of refs) if (take(m.fileName)) inner.push({ path: locator.manifestPath(m.fileName), kind: 'manifest', bytes: m.fileSize });
      if (take(list)) outer.push({ path: locator.manifestPath(list), kind: 'manifest_list', bytes: size ?? null });
    }
    if (tagged.indexManifest && !skipping.has(tagged.indexManifest)) {
      let refs: IndexFileRef[] | null = null;
      try {
        refs = await reader.readIndexManifest(tagged.indexManifest);
      } catch (e) {
        if (!isPaimonError(e, 'FILE_NOT_FOUND')) throw e;
      }
      for (const r of refs ?? []) if (take(r.fileName)) inner.push({ path: locator.indexFilePath(r), kind: 'index', bytes: r.fileSize });
      if (take(tagged.indexManifest)) outer.push({ path: locator.indexManifestPath(tagged.indexManifest), kind: 'index_manifest', bytes: null });
    }
    if (tagged.statistics && take(tagged.statistics)) outer.push({ path: locator.statisticsPath(tagged.statistics), kind: 'statistics', bytes: null });
    out.push(...inner, ...outer);
  }
  return out;
}
