/**
 * `SnapshotManager.repairEarliestSnapshot` of Paimon 2.0 (`repair_earliest_snapshot`): after a
 * partial expiration left a gap in the snapshot files (say 1-2 and 6-10 remain), point the EARLIEST
 * hint at the first snapshot after the gap, so that readers and expiration start there. The checks
 * are Java's, in its order and with its messages: the table has snapshots; the target is not before
 * the current earliest nor after the latest; every snapshot from the target to the latest exists;
 * the target is the current earliest or immediately follows a gap (its predecessor is missing).
 */
import { PaimonError } from '../errors.js';
import type { SnapshotManager } from '../table/snapshot-manager.js';

export interface EarliestRepairPlan {
  previousEarliestId: number;
  latestId: number;
  targetId: number;
}

/** Validate the repair against the snapshot files as they are now (nothing is written). */
export async function planEarliestSnapshotRepair(snapshots: SnapshotManager, targetId: number): Promise<EarliestRepairPlan> {
  const previous = await snapshots.earliestSnapshotId();
  const latest = await snapshots.latestSnapshotId();
  if (previous === null || latest === null) throw new PaimonError('SNAPSHOT_NOT_FOUND', 'Cannot repair earliest snapshot for an empty table.');
  if (targetId < previous) throw new PaimonError('INVALID_ARGUMENT', `Snapshot ${targetId} must not be earlier than current earliest snapshot ${previous}.`);
  if (targetId > latest) throw new PaimonError('INVALID_ARGUMENT', `Snapshot ${targetId} must not be later than latest snapshot ${latest}.`);
  const ids = new Set<number>();
  for await (const id of snapshots.snapshotIds()) if (id >= targetId && id <= latest) ids.add(id);
  for (let id = targetId; id <= latest; id++) {
    if (!ids.has(id)) throw new PaimonError('SNAPSHOT_NOT_FOUND', `Snapshot ${id} does not exist.`);
  }
  if (targetId !== previous && (await snapshots.snapshotExists(targetId - 1))) {
    throw new PaimonError('INVALID_ARGUMENT', `Snapshot ${targetId} does not immediately follow a snapshot gap.`);
  }
  return { previousEarliestId: previous, latestId: latest, targetId };
}

/** Write the EARLIEST hint of the plan (`commitEarliestHint`). */
export async function applyEarliestSnapshotRepair(snapshots: SnapshotManager, plan: EarliestRepairPlan): Promise<void> {
  await snapshots.commitEarliestHint(plan.targetId);
}
