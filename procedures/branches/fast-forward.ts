/**
 * `fast_forward(table, branch)` (Spark's and Flink's FastForwardProcedure): the branch the table
 * argument names (main for `db.t`) takes the history of `branch` from the branch's earliest
 * snapshot on: Paimon's end state, planned by src/paimon/branches/fast-forward-plan.ts and
 * written in the crash-safe order of BranchManager.executeFastForward.
 *
 * Safer than Paimon:
 * - When the target has commits after the fork point that the branch does not contain (or
 *   schemas or tags the fast-forward would delete or overwrite), Paimon silently drops them and
 *   their data files become orphans. We refuse with UNSAFE_ARGUMENT (the arguments ask for
 *   something the safety rules refuse; the same MySQL error as INVALID_ARGUMENT, and not
 *   CONCURRENT_MODIFICATION because retrying cannot help: the state is stable, the intent needs
 *   confirming) listing what would be lost, unless `force => true`.
 * - Both branches' snapshots and tags and the set of branches are pinned and re-read right
 *   before the first write (CONCURRENT_MODIFICATION, nothing changed). A commit that lands on
 *   the target while the branch's snapshots are being created wins its id (snapshot files are
 *   created only if absent): the copy stops there, nothing is overwritten, and the call reports
 *   CONCURRENT_MODIFICATION saying what was applied. So does a commit that read the target's
 *   latest before its snapshots were replaced and landed above the copied history afterwards
 *   (a gap below its id): the target's latest is then that writer's, and the call says so.
 * - A kill at any step leaves the target readable; a rerun completes it.
 */
import { hasLosses, type FastForwardLosses } from '../../src/paimon/branches/fast-forward-plan.js';
import { isMainBranch } from '../../src/paimon/table/branch.js';
import { compactIdRanges } from '../framework/file-deleter.js';
import { ProcedureError } from '../framework/errors.js';
import { defineProcedure } from '../framework/registry.js';
import { catalogBranches, checkPin, refuseUnderCatalogBranches, DRY_RUN_COLUMN, DRY_RUN_PARAM, pinnedLatest, readPin, RESULT_COLUMN, TABLE_PARAM } from './branch-guard.js';

export function describeLosses(l: FastForwardLosses, fork: number): string {
  const parts: string[] = [];
  if (l.snapshots.length > 0) parts.push(`snapshots ${compactIdRanges(l.snapshots)} (committed after the fork at snapshot ${fork}; their data files would become orphans)`);
  if (l.schemas.length > 0) parts.push(`schemas ${compactIdRanges(l.schemas)}`);
  if (l.tags.length > 0) parts.push(`tags ${l.tags.join(',')}`);
  return parts.join('; ');
}

export const fastForward = defineProcedure({
  name: 'fast_forward',
  description:
    "Make the table's branch (main for db.t) take the history of another branch from that branch's earliest snapshot on. Refused when the table has commits after the fork that the branch lacks, unless force.",
  params: [
    TABLE_PARAM,
    { name: 'branch', type: 'string', required: true, description: 'The branch to fast-forward to.' },
    { name: 'force', type: 'boolean', default: false, description: "Replace the table's commits after the fork (Paimon's behaviour); their data files become orphans." },
    DRY_RUN_PARAM,
  ],
  resultColumns: [
    RESULT_COLUMN,
    { name: 'branch', type: 'string', description: 'The branch fast-forwarded to.' },
    { name: 'target_branch', type: 'string', description: 'The branch that changed (main for db.t).' },
    { name: 'previous_snapshot_id', type: 'bigint', description: "The target's latest snapshot id before." },
    { name: 'current_snapshot_id', type: 'bigint', description: "The target's latest snapshot id after (the branch's latest)." },
    { name: 'fork_snapshot_id', type: 'bigint', description: "The branch's earliest snapshot id: the target's history from it on is the branch's." },
    { name: 'copied_snapshot_ids', type: 'string', description: "Snapshot files created in the target, as ranges." },
    { name: 'replaced_snapshot_ids', type: 'string', description: "The target's snapshots removed (commits after the fork; only with force), as ranges." },
    { name: 'replaced_schema_ids', type: 'string', description: 'Target schemas removed or overwritten (only with force).' },
    { name: 'replaced_tags', type: 'string', description: 'Target tags removed or overwritten (only with force).' },
    { name: 'deleted_files', type: 'bigint', description: 'Metadata files deleted (snapshots, schemas, tags); data files are never deleted.' },
    { name: 'pinned_snapshot_id', type: 'bigint', description: "The branch's latest snapshot id when the plan was made." },
    { name: 'forced', type: 'boolean', description: 'Whether force was given.' },
    DRY_RUN_COLUMN,
  ],
  privilege: { privilege: 'ALTER', on: 'table' },
  destructive: true,
  async run(args, ctx) {
    const t = await ctx.resolveTable(args.table);
    const viaCatalog = catalogBranches(ctx);
    if (viaCatalog !== null && !isMainBranch(t.branch)) {
      refuseUnderCatalogBranches(ctx, t, 'fast-forwarding a branch other than main', `call fast_forward on ${t.database}.${t.name}`);
    }
    const bm = t.branchManager();
    ctx.progress({ phase: 'plan' });
    // Pin first, plan after: whatever moves in between is caught by the check before writing.
    const source = args.branch !== t.branch && args.branch !== 'main' && (await bm.branchExists(args.branch)) ? [args.branch] : [];
    const pin = await readPin(ctx, t, [t.branch, ...source]);
    const state = await bm.planFastForward(args.branch);
    const { plan } = state;
    const lossy = hasLosses(plan.losses);
    if (lossy && !args.force) {
      throw new ProcedureError(
        'UNSAFE_ARGUMENT',
        `fast_forward of ${t.identifier} to branch '${args.branch}' refused: it would drop ${describeLosses(plan.losses, plan.earliestSnapshotId)} of ${t.identifier} that the branch does not contain. ` +
          `Merge them into the branch first, or pass force => true to replace them as Paimon does. Nothing was changed.`,
      );
    }
    const previous = pinnedLatest(pin, t.branch);
    const row = (copied: number[], deletedFiles: number, current: number | null) => ({
      result: true,
      branch: args.branch,
      target_branch: t.branch,
      previous_snapshot_id: previous,
      current_snapshot_id: current,
      fork_snapshot_id: plan.earliestSnapshotId,
      copied_snapshot_ids: compactIdRanges(copied),
      replaced_snapshot_ids: compactIdRanges(plan.losses.snapshots),
      replaced_schema_ids: compactIdRanges(plan.losses.schemas),
      replaced_tags: plan.losses.tags.join(','),
      deleted_files: deletedFiles,
      pinned_snapshot_id: pinnedLatest(pin, args.branch),
      forced: args.force,
      dry_run: args.dry_run,
    });
    const warnReplaced = (): void => {
      if (plan.losses.snapshots.length > 0) ctx.warn('fast_forward: data files of the replaced snapshots stay on storage; run remove_orphan_files to reclaim them.');
    };
    const deletions = plan.deleteSnapshots.length + plan.deleteSchemas.length + plan.deleteTags.length;
    if (args.dry_run) {
      return { rows: [row(plan.writeSnapshots, deletions, plan.latestSnapshotId)], info: `would fast-forward ${t.identifier} to branch ${args.branch} (snapshot ${plan.latestSnapshotId})` };
    }
    if (plan.noop) return { rows: [row([], 0, previous)], info: `${t.identifier} already holds branch ${args.branch}'s history` };
    await checkPin(ctx, t, pin, 'fast_forward');
    ctx.throwIfAborted();
    ctx.progress({ phase: 'commit', message: 'target snapshots after the fork, then schemas, then the branch snapshots ascending, tags, hints' });
    ctx.markCommitted();
    ctx.reportAffected(t.identifier);
    if (viaCatalog !== null) {
      // The catalog moves main to the branch (CatalogBranchManager.fastForward); the plan, made
      // from the same files, says what that replaces.
      await viaCatalog.fastForward(t.database, t.name, args.branch);
      warnReplaced();
      return { rows: [row(plan.writeSnapshots, 0, await t.snapshotManager().latestSnapshotId())], info: `fast-forwarded ${t.identifier} to branch ${args.branch} through catalog '${ctx.catalog.name}'` };
    }
    const out = await bm.executeFastForward(state);
    if (out.conflictAt !== null) {
      throw new ProcedureError(
        'CONCURRENT_MODIFICATION',
        `fast_forward of ${t.identifier} to branch '${args.branch}' stopped: snapshot ${out.conflictAt} was committed to ${t.identifier} by another writer while the branch's snapshots were copied. ` +
          `Copied: ${compactIdRanges(out.writtenSnapshots) || 'none'}; the concurrent commit was kept. Stop the writers, check the table, and rerun to finish.`,
        { committed: out.writtenSnapshots.length > 0 || out.deletedFiles > 0 },
      );
    }
    // A commit that read the target's latest before the replaced snapshots went lands above the
    // copied history with a gap below it (a commit always takes latest + 1): the target's latest
    // is then that commit on the replaced history, not the branch. Say so instead of succeeding.
    const ids = await t.snapshotManager().sortedSnapshotIds();
    const stray = ids.filter((id, i) => id > plan.latestSnapshotId && ids[i - 1] !== id - 1);
    if (stray.length > 0) {
      throw new ProcedureError(
        'CONCURRENT_MODIFICATION',
        `fast_forward of ${t.identifier} to branch '${args.branch}': snapshot ${stray[0]} was committed to ${t.identifier} by another writer on top of the replaced history while the fast-forward ran, so it is the latest snapshot now. ` +
          `Copied: ${compactIdRanges(out.writtenSnapshots) || 'none'}; the concurrent commit was kept. Stop the writers, check the table, and rerun to finish.`,
        { committed: true },
      );
    }
    warnReplaced();
    return { rows: [row(out.writtenSnapshots, out.deletedFiles, ids.at(-1) ?? null)], info: `fast-forwarded ${t.identifier} to branch ${args.branch}` };
  },
});
