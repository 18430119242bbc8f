/**
 * `merge_branch(table, source_branch, target_branch)` (Paimon 2.0's MergeBranchProcedure,
 * Spark and Flink; target defaults to main): the source's live data files that the target does
 * not hold are committed to the target as one APPEND snapshot, under Paimon 2.0's rules
 * (src/paimon/branches/merge-branch.ts: both sides append-only with a complete history, no
 * primary keys, no data evolution, equal row tracking, equal latest fields, identical schema
 * history for the merged files); a failed rule is an error naming it. Paimon 1.4 has no
 * merge_branch (its substitute is INSERT INTO t SELECT * FROM t$branch_x); this is 2.0's
 * behaviour for tables of either version.
 *
 * The commit goes through FileStoreCommit (the target's newCommit) with Java's append conflict
 * check, pinned to the target's latest snapshot: a commit on the target, or a change of the
 * source, between the plan and the commit is CONCURRENT_MODIFICATION with nothing committed.
 */
import { randomUUID } from 'node:crypto';
import { planMergeBranch, rowTrackingEnabled } from '../../src/paimon/branches/merge-branch.js';
import type { Snapshot } from '../../src/paimon/spec/snapshot.js';
import { ProcedureError } from '../framework/errors.js';
import { defineProcedure } from '../framework/registry.js';
import { checkPin, refuseUnderCatalogBranches, DRY_RUN_COLUMN, DRY_RUN_PARAM, readPin, RESULT_COLUMN, TABLE_PARAM, tableOnBranch } from './branch-guard.js';

export const mergeBranch = defineProcedure({
  name: 'merge_branch',
  description:
    "Paimon 2.0's branch merge: commit the source branch's data files that the target lacks to the target as one APPEND snapshot (append-only tables with a complete history only).",
  params: [
    TABLE_PARAM,
    { name: 'source_branch', aliases: ['sourceBranch'], type: 'string', required: true, description: 'The branch whose files are merged.' },
    { name: 'target_branch', aliases: ['targetBranch'], type: 'string', default: 'main', description: 'The branch that receives them (main by default).' },
    DRY_RUN_PARAM,
  ],
  resultColumns: [
    RESULT_COLUMN,
    { name: 'source_branch', type: 'string', description: 'The source branch.' },
    { name: 'target_branch', type: 'string', description: 'The target branch.' },
    { name: 'merged_files', type: 'bigint', description: 'Data files committed to the target (or that would be).' },
    { name: 'merged_rows', type: 'bigint', description: 'Rows in those files.' },
    { name: 'snapshot_id', type: 'bigint', description: "The target's new snapshot id (NULL when nothing was merged or on a dry run)." },
    { name: 'pinned_source_snapshot_id', type: 'bigint', description: "The source's latest snapshot id the plan was made from." },
    { name: 'pinned_target_snapshot_id', type: 'bigint', description: "The target's latest snapshot id the plan was made from." },
    DRY_RUN_COLUMN,
  ],
  privilege: { privilege: 'ALTER', on: 'table' },
  destructive: true,
  async run(args, ctx) {
    const t = await ctx.resolveTable(args.table);
    refuseUnderCatalogBranches(ctx, t, 'merging branches', 'fast_forward the target to the source branch when the target has no commits of its own');
    const bm = t.branchManager();
    const sourceName = args.source_branch;
    const targetName = args.target_branch.trim() === '' ? 'main' : args.target_branch;
    const exists = async (b: string) => b === 'main' || (await bm.branchExists(b));
    const pin = await readPin(ctx, t, [sourceName, targetName].filter((b) => b.trim() !== ''));
    ctx.progress({ phase: 'plan' });
    const plan = await planMergeBranch(sourceName, targetName, (b) => tableOnBranch(ctx, t, b), exists);
    const rows = plan.files.reduce((n, e) => n + e.file.rowCount, 0n);
    const row = (snapshotId: number | null) => ({
      result: true,
      source_branch: sourceName,
      target_branch: targetName,
      merged_files: plan.files.length,
      merged_rows: rows,
      snapshot_id: snapshotId,
      pinned_source_snapshot_id: plan.sourceLatest.id,
      pinned_target_snapshot_id: plan.targetLatest.id,
      dry_run: args.dry_run,
    });
    if (plan.files.length > 0 && rowTrackingEnabled(plan.target.schema)) {
      throw new ProcedureError(
        'NOT_SUPPORTED',
        `merge_branch into ${plan.target.identifier}: the table has row tracking ('row-tracking.enabled'), whose merged files need fresh row ids, which this proxy's commit does not assign. Nothing was changed. Use Paimon's own merge_branch instead: CALL sys.merge_branch in Flink or Spark with Paimon 2.0, or Table.mergeBranch in Paimon Java 2.0.`,
      );
    }
    if (args.dry_run) return { rows: [row(null)], info: `would merge ${plan.files.length} files of branch ${sourceName} into ${targetName}` };
    if (plan.files.length === 0) return { rows: [row(null)], info: `branch ${targetName} already holds every file of branch ${sourceName}` };

    await checkPin(ctx, t, pin, 'merge_branch');
    ctx.throwIfAborted();
    ctx.progress({ phase: 'commit' });
    const pinnedTarget = plan.targetLatest.id;
    const commit = plan.target.newCommit(randomUUID(), { now: () => ctx.clock.now() });
    const result = await commit.commit({
      kind: 'APPEND',
      deltaEntries: plan.files,
      commitIdentifier: 0n,
      detectConflicts: true,
      baseSnapshotId: pinnedTarget,
      conflictCheck: async (latest: Snapshot | null) => {
        if (latest === null || latest.id !== pinnedTarget) {
          throw new ProcedureError(
            'CONCURRENT_MODIFICATION',
            `merge_branch into ${plan.target.identifier} refused: its latest snapshot moved from ${pinnedTarget} to ${latest?.id ?? 'none'} since the plan was made. Nothing was committed; retry.`,
          );
        }
      },
    });
    ctx.markCommitted();
    ctx.reportAffected(plan.target.identifier);
    ctx.warn('merge_branch is Paimon 2.0\'s procedure (Paimon 1.4 has none): the merge followed 2.0\'s rules; the new APPEND snapshot is readable by Paimon 1.4 too.');
    return { rows: [row(result.snapshot.id)], info: `merged ${plan.files.length} files of branch ${sourceName} into ${targetName} as snapshot ${result.snapshot.id}` };
  },
});
