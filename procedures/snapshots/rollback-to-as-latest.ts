/**
 * `rollback_to_as_latest(table, tag | snapshot_id)`: Paimon 2.0's non-destructive rollback
 * (Flink's RollbackToAsLatestProcedure). A new OVERWRITE snapshot `latest + 1` whose live files
 * equal the target's is committed through FileStoreCommit.rollbackToAsLatest, as Paimon commits
 * it through FileStoreCommitImpl.rollbackToAsLatest (src/paimon/table/file-store-commit.ts says
 * what the snapshot holds). Nothing is deleted. A snapshot-id target first gets a protective tag
 * `rollback-to-as-latest-<id>-<uuid>` (no TTL; the prefix of Paimon's Spark procedure), so that
 * expiry cannot remove the files the new snapshot shares with it; the tag is removed again if
 * the commit fails.
 *
 * After the commit, as Paimon's `TableCommitImpl.rollbackToAsLatest` does, only the table's
 * automatic tag creation runs (procedures/maintenance/after-commit.ts with expire off): no snapshot,
 * tag, partition or consumer expiry, which could remove what the rollback promises to keep.
 *
 * The commit is planned from the pinned latest snapshot: if another writer committed first, this
 * is COMMIT_CONFLICT (Paimon's procedure fails the same way) and the files written for it are
 * removed.
 */
import { randomUUID } from 'node:crypto';
import { PaimonError, isPaimonError } from '../../src/paimon/errors.js';
import type { Snapshot } from '../../src/paimon/spec/snapshot.js';
import { trimToSnapshot } from '../../src/paimon/spec/tag.js';
import { ProcedureError } from '../framework/errors.js';
import { quote } from '../framework/quote.js';
import type { ProcedureContext } from '../framework/context.js';
import { defineProcedure } from '../framework/registry.js';
import type { RollbackTarget } from '../../src/paimon/maintenance/rollback-plan.js';
import { readRollbackState, withNearbyTargets } from './rollback-to.js';
import type { ProcedureResult } from '../framework/result.js';
import { describeMaintenance, runCommitMaintenance, type CommitMaintenance } from '../maintenance/after-commit.js';

export const ROLLBACK_TO_AS_LATEST_TAG_PREFIX = 'rollback-to-as-latest-';

export interface RollbackToAsLatestArgs {
  table: string;
  tag: string | null;
  snapshot_id: bigint | null;
  dry_run: boolean;
}

export async function runRollbackToAsLatest(args: RollbackToAsLatestArgs, ctx: ProcedureContext): Promise<ProcedureResult> {
  const hasTag = args.tag !== null && args.tag.trim() !== '';
  const hasSnapshot = args.snapshot_id !== null;
  if (hasTag === hasSnapshot) {
    const given = hasTag ? `got tag => ${quote(args.tag!)} and snapshot_id => ${args.snapshot_id}` : 'none was given';
    throw new PaimonError('INVALID_ARGUMENT', `rollback_to_as_latest needs exactly one of tag, snapshot_id; ${given}.`);
  }

  const t = await ctx.resolveTable(args.table);
  const commitUser = `${ROLLBACK_TO_AS_LATEST_TAG_PREFIX}${randomUUID()}`;
  const commit = t.newCommit(commitUser, { now: () => ctx.clock.now() });
  const snapshots = t.snapshotManager();
  const tags = t.tagManager();
  const latest = await snapshots.latestSnapshot();
  if (latest === null) throw new PaimonError('SNAPSHOT_NOT_FOUND', 'Latest snapshot is null, can not roll back.');

  let target: Snapshot;
  let targetTag: string | null = null;
  // A missing target is told what exists near it (only read on that path).
  const nearby = async (e: unknown, missing: RollbackTarget): Promise<unknown> => withNearbyTargets(e, await readRollbackState(t.maintenanceReader()), missing);
  if (hasTag) {
    targetTag = args.tag!.trim();
    try {
      target = trimToSnapshot(await tags.getOrThrow(targetTag));
    } catch (e) {
      throw await nearby(e, { kind: 'tag', name: targetTag });
    }
  } else {
    const id = Number(args.snapshot_id);
    if (!Number.isSafeInteger(id) || id <= 0) {
      throw new PaimonError('INVALID_ARGUMENT', `snapshot_id ${args.snapshot_id} is not a valid snapshot id (1 to ${Number.MAX_SAFE_INTEGER})`);
    }
    const s = await snapshots.tryGetSnapshot(id);
    if (s !== null) target = s;
    else {
      const tagged = (await t.maintenanceReader().tags()).find((x) => x.snapshot.id === id);
      if (!tagged) {
        const e = new PaimonError('SNAPSHOT_NOT_FOUND', `Snapshot '${args.snapshot_id}' to roll back to doesn't exist.`);
        throw await nearby(e, { kind: 'snapshot', id });
      }
      targetTag = tagged.name;
      target = trimToSnapshot(await tags.getOrThrow(tagged.name));
    }
  }

  ctx.progress({ phase: 'plan' });
  const plan = await commit.planRollbackToAsLatest(latest, target);

  const row = (changed: boolean, current: number, protectiveTag: string | null, maintenance: CommitMaintenance | null = null) => ({
    previous_snapshot_id: latest.id,
    rolled_back_snapshot_id: target.id,
    current_snapshot_id: current,
    changed,
    dry_run: args.dry_run,
    pinned_snapshot_id: latest.id,
    target_tag: targetTag,
    protective_tag: protectiveTag,
    files_removed_from_view: plan.removed,
    files_restored_to_view: plan.restored,
    maintenance: maintenance === null ? null : JSON.stringify(maintenance),
  });
  if (args.dry_run) {
    return { rows: [row(false, latest.id, null)], info: `would commit snapshot ${latest.id + 1} equal to snapshot ${target.id}` };
  }

  // A snapshot-id target gets a protective tag first, so expiry keeps the target's files.
  let createdTag: string | null = null;
  if (!hasTag) {
    createdTag = `${ROLLBACK_TO_AS_LATEST_TAG_PREFIX}${target.id}-${randomUUID()}`;
    await tags.createTag(target, createdTag);
    ctx.markCommitted();
    ctx.reportAffected(t.identifier);
  }
  let committed = false;
  try {
    const { snapshot } = await commit.rollbackToAsLatest(plan, {
      beforeWrite: () => ctx.throwIfAborted(),
      beforePublish: (s) => {
        ctx.throwIfAborted();
        ctx.progress({ phase: 'commit', message: `snapshot ${s.id}` });
      },
    });
    committed = true;
    ctx.markCommitted();
    ctx.reportAffected(t.identifier);
    const maintenance = await runCommitMaintenance(ctx, args.table, {}, { expire: false });
    return {
      rows: [row(true, snapshot.id, createdTag, maintenance)],
      info: `committed snapshot ${snapshot.id} with the content of snapshot ${target.id}; ${describeMaintenance(maintenance)}`,
    };
  } catch (e) {
    if (!committed && createdTag !== null) {
      // The commit removed what its attempt wrote; the protective tag goes too, unless our
      // snapshot landed after all (a lost acknowledgement can hide that).
      const landed = await snapshots.tryGetSnapshot(latest.id + 1).catch(() => null);
      if (landed === null || landed.commitUser !== commitUser) await tags.deleteTag(createdTag).catch(() => null);
    }
    if (isPaimonError(e, 'COMMIT_CONFLICT')) {
      throw new ProcedureError(
        'COMMIT_CONFLICT',
        `rollback_to_as_latest on ${t.identifier}: snapshot ${latest.id + 1} was committed by another writer meanwhile; nothing was rolled back, retry.`,
        { cause: e },
      );
    }
    if (isPaimonError(e) || e instanceof ProcedureError) throw e;
    throw new PaimonError('STORAGE_ERROR', `Failed to roll back to snapshot ${target.id} as latest: ${(e as Error).message}`, { cause: e });
  }
}

export const rollbackToAsLatest = defineProcedure({
  name: 'rollback_to_as_latest',
  description:
    "Non-destructive rollback (Paimon 2.0): commit a new latest snapshot whose content equals the target snapshot or tag; nothing is deleted.",
  params: [
    { name: 'table', type: 'string', required: true, description: "Table identifier 'db.tbl' or 'db.tbl$branch_<name>'." },
    { name: 'tag', aliases: ['tagName'], type: 'string', description: 'Tag to roll back to.' },
    { name: 'snapshot_id', aliases: ['snapshot', 'snapshotId'], type: 'bigint', description: 'Snapshot id to roll back to.' },
    { name: 'dry_run', type: 'boolean', default: false, description: 'Plan only: report the difference, commit nothing.' },
  ],
  resultColumns: [
    { name: 'previous_snapshot_id', type: 'bigint', description: "Latest snapshot id before (Paimon's result)." },
    { name: 'rolled_back_snapshot_id', type: 'bigint', description: "The target snapshot id (Paimon's result)." },
    { name: 'current_snapshot_id', type: 'bigint', description: "The new latest snapshot id (Paimon's result)." },
    { name: 'changed', type: 'boolean', description: 'Whether a snapshot was committed.' },
    { name: 'dry_run', type: 'boolean', description: 'Whether this was a dry run.' },
    { name: 'pinned_snapshot_id', type: 'bigint', description: 'Latest snapshot the new one was planned from.' },
    { name: 'target_tag', type: 'string', description: 'The tag rolled back to, when the target was (or resolved to) a tag.' },
    { name: 'protective_tag', type: 'string', description: 'Tag created to keep the target snapshot from expiring (snapshot targets).' },
    { name: 'files_removed_from_view', type: 'bigint', description: 'Data files live in the latest snapshot but not in the target (DELETE entries).' },
    { name: 'files_restored_to_view', type: 'bigint', description: 'Data files live in the target but not in the latest snapshot (ADD entries).' },
    {
      name: 'maintenance',
      type: 'json',
      description: "What ran after the commit, as Paimon's rollbackToAsLatest runs it: the automatic tag creation only (tags created, auto-created tags beyond tag.num-retained-max deleted, failed steps); null when nothing was committed.",
    },
  ],
  privilege: { privilege: 'ALTER', on: 'table' },
  destructive: true,
  run: (args, ctx) => runRollbackToAsLatest(args, ctx),
});
