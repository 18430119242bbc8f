/**
 * Rollback plans.
 *
 * Destructive rollback (Paimon's Table.rollbackTo + RollbackHelper.cleanLargerThan, 1.2+):
 * later snapshot files, later long-lived changelog files and later tags are deleted; data
 * files, manifests, index and statistics files are NOT deleted (they become orphans for
 * remove_orphan_files, as in Paimon). Execution order, chosen so that a process killed
 * at any step leaves a readable table and a rerun finishes the work:
 *   1. tag target whose snapshot expired: create snapshot-<id> from the tag (if absent)
 *   2. snapshot/LATEST := target (readers stop picking later snapshots)
 *   3. delete snapshot files newest first, so the visible latest only ever steps down
 *   4. tag target whose snapshot expired: snapshot/EARLIEST := target
 *   5. changelog/LATEST hint, then long-lived changelog files newest first
 *   6. tags whose snapshot id is greater than the target, newest first
 * Paimon writes step 1's file after step 3; writing it first keeps a valid snapshot on disk
 * throughout and ends in the same state.
 *
 * Non-destructive rollback (rollback_to_as_latest, Paimon 2.0 FileStoreCommitImpl
 * .rollbackToAsLatest): a new OVERWRITE snapshot whose live files equal the target's.
 */
import { PaimonError } from '../errors.js';

export type RollbackTarget = { kind: 'snapshot'; id: number } | { kind: 'tag'; name: string };

export interface TagRef {
  name: string;
  snapshotId: number;
}

export interface RollbackState {
  earliestId: number | null;
  latestId: number | null;
  /** Whether snapshot-<id> exists on this branch. */
  snapshotExists: (id: number) => boolean;
  tags: readonly TagRef[];
  /** Long-lived changelog ids present (changelog/changelog-<id>), any order. */
  changelogIds: readonly number[];
}

export interface ResolvedRollbackTarget {
  snapshotId: number;
  /** Set when the rollback goes to a tag (named, or found by the snapshot id). */
  tagName: string | null;
}

export interface RollbackPlan {
  previousLatestId: number;
  target: ResolvedRollbackTarget;
  /** Write snapshot-<target> from this tag's content before anything else. */
  restoreSnapshotFromTag: string | null;
  latestHint: number;
  /** Snapshot ids to delete, descending. */
  deleteSnapshotIds: number[];
  earliestHint: number | null;
  /** New changelog/LATEST value (-1 when every long-lived changelog goes), or null to leave it. */
  changelogLatestHint: number | null;
  /** Long-lived changelog ids to delete, descending. */
  deleteChangelogIds: number[];
  /** Tag names to delete, newest snapshot first. */
  deleteTags: string[];
}

/** Resolve like AbstractFileStoreTable.rollbackTo(long | String). */
export function resolveRollbackTarget(state: RollbackState, target: RollbackTarget): ResolvedRollbackTarget {
  if (target.kind === 'tag') {
    const t = state.tags.find((x) => x.name === target.name);
    if (!t) throw new PaimonError('TAG_NOT_FOUND', `Tag '${target.name}' doesn't exist.`);
    return { snapshotId: t.snapshotId, tagName: t.name };
  }
  if (state.snapshotExists(target.id)) return { snapshotId: target.id, tagName: null };
  // An expired snapshot that a tag still holds: roll back to that tag (the first name, sorted).
  const tagged = state.tags
    .filter((t) => t.snapshotId === target.id)
    .map((t) => t.name)
    .sort();
  if (tagged.length > 0) return { snapshotId: target.id, tagName: tagged[0] };
  throw new PaimonError('SNAPSHOT_NOT_FOUND', `Rollback snapshot '${target.id}' doesn't exist.`);
}

export function planRollback(state: RollbackState, target: RollbackTarget): RollbackPlan {
  if (state.latestId === null || state.earliestId === null) {
    throw new PaimonError('SNAPSHOT_NOT_FOUND', 'Latest snapshot is null, can not rollback.');
  }
  const resolved = resolveRollbackTarget(state, target);
  const targetId = resolved.snapshotId;
  const latest = state.latestId;
  const earliest = state.earliestId;

  const restore = resolved.tagName !== null && !state.snapshotExists(targetId) ? resolved.tagName : null;

  const deleteSnapshotIds: number[] = [];
  for (let i = latest; i >= Math.max(earliest, targetId + 1); i--) {
    if (state.snapshotExists(i)) deleteSnapshotIds.push(i);
  }

  let changelogLatestHint: number | null = null;
  const deleteChangelogIds: number[] = [];
  if (state.changelogIds.length > 0) {
    const clEarliest = Math.min(...state.changelogIds);
    const present = new Set(state.changelogIds);
    const to = Math.max(clEarliest, targetId + 1);
    const ids = [...present].filter((i) => i >= to).sort((a, b) => b - a);
    if (ids.length > 0) {
      deleteChangelogIds.push(...ids);
      // RollbackHelper: -1 when every long-lived changelog is removed.
      changelogLatestHint = to === clEarliest ? -1 : to - 1;
    }
  }

  const deleteTags = state.tags
    .filter((t) => t.snapshotId > targetId)
    .sort((a, b) => b.snapshotId - a.snapshotId || a.name.localeCompare(b.name))
    .map((t) => t.name);

  return {
    previousLatestId: latest,
    target: resolved,
    restoreSnapshotFromTag: restore,
    latestHint: targetId,
    deleteSnapshotIds,
    earliestHint: restore !== null ? targetId : null,
    changelogLatestHint,
    deleteChangelogIds,
    deleteTags,
  };
}

/** True when the plan changes nothing on disk. */
export function isNoopRollback(p: RollbackPlan): boolean {
  return (
    p.restoreSnapshotFromTag === null &&
    p.earliestHint === null &&
    p.deleteSnapshotIds.length === 0 &&
    p.deleteChangelogIds.length === 0 &&
    p.deleteTags.length === 0 &&
    p.previousLatestId === p.latestHint
  );
}

/**
 * The latest snapshot committed at or before `timestampMillis`
 * (SnapshotManager.earlierOrEqualTimeMills: binary search over the snapshot files).
 */
export async function earlierOrEqualTimeMillis(
  earliestId: number | null,
  latestId: number | null,
  timestampMillis: number,
  commitTimeOf: (id: number) => Promise<number>,
): Promise<number | null> {
  if (latestId === null || earliestId === null) return null;
  if ((await commitTimeOf(earliestId)) > timestampMillis) return null;
  let lo = earliestId;
  let hi = latestId;
  let found: number | null = null;
  while (lo <= hi) {
    const mid = lo + Math.floor((hi - lo) / 2);
    const t = await commitTimeOf(mid);
    if (t > timestampMillis) hi = mid - 1;
    else if (t < timestampMillis) {
      found = mid;
      lo = mid + 1;
    } else {
      found = mid;
      break;
    }
  }
  return found;
}

/**
 * rollback_to_as_latest's delta: DELETE what is live in the latest snapshot but not in the
 * target, ADD what is live in the target but not in the latest. Inputs are the merged live
 * (ADD) entries keyed by file identity.
 */
export function diffLiveFiles<E>(
  latestLive: ReadonlyMap<string, E>,
  targetLive: ReadonlyMap<string, E>,
): { toDelete: E[]; toAdd: E[] } {
  const toDelete: E[] = [];
  const toAdd: E[] = [];
  for (const [k, e] of latestLive) if (!targetLive.has(k)) toDelete.push(e);
  for (const [k, e] of targetLive) if (!latestLive.has(k)) toAdd.push(e);
  return { toDelete, toAdd };
}
