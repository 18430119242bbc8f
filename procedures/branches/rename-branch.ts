/**
 * `rename_branch(table, from_branch, to_branch)` (Paimon 1.4's RenameBranchProcedure, Spark and
 * Flink). On a file system the branch directory is renamed in one step. On an object store the
 * rename is a copy of every file and a delete; BranchManager.renameBranch orders it (marker,
 * copy with schemas last, delete, marker removed) so that a rerun after a crash finishes it: the
 * rerun of an unfinished rename is accepted although the target "exists".
 *
 * Safer than Paimon: a branch named by `scan.fallback-branch` / `scan.primary-branch` is not
 * renamed (its readers would lose it); the source's snapshots and tags are pinned and re-read
 * before the rename (CONCURRENT_MODIFICATION); dry_run checks everything and changes nothing.
 */
import { ProcedureError } from '../framework/errors.js';
import { defineProcedure } from '../framework/registry.js';
import { validateBranchName } from '../../src/paimon/table/branch.js';
import { checkNotConfiguredBranch, checkPin, refuseUnderCatalogBranches, DRY_RUN_COLUMN, DRY_RUN_PARAM, pinnedLatest, readPin, RESULT_COLUMN, TABLE_PARAM } from './branch-guard.js';

export const renameBranch = defineProcedure({
  name: 'rename_branch',
  description: 'Rename a branch (not main). Atomic on a file system; on an object store a copy and delete that a rerun completes after a crash.',
  params: [
    TABLE_PARAM,
    { name: 'from_branch', aliases: ['fromBranch'], type: 'string', required: true, description: 'The branch to rename.' },
    { name: 'to_branch', aliases: ['toBranch'], type: 'string', required: true, description: 'Its new name (not main, not all digits, must not exist).' },
    DRY_RUN_PARAM,
  ],
  resultColumns: [
    RESULT_COLUMN,
    { name: 'from_branch', type: 'string', description: 'The old name.' },
    { name: 'to_branch', type: 'string', description: 'The new name.' },
    { name: 'renamed', type: 'boolean', description: 'Whether the branch was renamed (false on a dry run).' },
    { name: 'resumed', type: 'boolean', description: 'Whether this call finished a rename that an earlier call had left unfinished.' },
    { name: 'pinned_snapshot_id', type: 'bigint', description: "The branch's latest snapshot id when the plan was made." },
    DRY_RUN_COLUMN,
  ],
  privilege: { privilege: 'ALTER', on: 'table' },
  destructive: true,
  async run(args, ctx) {
    const t = await ctx.resolveTable(args.table);
    refuseUnderCatalogBranches(ctx, t, 'renaming a branch', 'create the new branch from a tag and delete the old one');
    const bm = t.branchManager();
    const from = args.from_branch;
    const to = args.to_branch;
    if (from === 'main') throw new ProcedureError('INVALID_ARGUMENT', 'Cannot rename the main branch.');
    if (from === t.branch) throw new ProcedureError('INVALID_ARGUMENT', `Cannot rename branch '${from}' through itself; call rename_branch on ${t.database}.${t.name}.`);
    const resumed = (await bm.pendingRenameSource(to)) === from;
    if (!resumed) {
      if (!(await bm.branchExists(from))) throw new ProcedureError('BRANCH_NOT_FOUND', `Branch name '${from}' doesn't exist in ${t.identifier}.`);
      if (await bm.branchExists(to)) throw new ProcedureError('BRANCH_ALREADY_EXISTS', `Branch name '${to}' already exists in ${t.identifier}.`);
    }
    validateBranchName(to);
    await checkNotConfiguredBranch(ctx, t, from, 'rename');
    const sourceExists = await bm.branchExists(from);
    const pin = await readPin(ctx, t, sourceExists ? [from] : []);
    const row = (renamed: boolean) => ({
      result: true,
      from_branch: from,
      to_branch: to,
      renamed,
      resumed,
      pinned_snapshot_id: pinnedLatest(pin, from),
      dry_run: args.dry_run,
    });
    if (args.dry_run) return { rows: [row(false)], info: `would rename branch ${from} of ${t.identifier} to ${to}` };
    await checkPin(ctx, t, pin, 'rename_branch');
    ctx.throwIfAborted();
    ctx.progress({ phase: 'commit' });
    await bm.renameBranch(from, to);
    ctx.markCommitted();
    ctx.reportAffected(`${t.database}.${t.name}$branch_${from}`);
    ctx.reportAffected(`${t.database}.${t.name}$branch_${to}`);
    return { rows: [row(true)], info: `renamed branch ${from} of ${t.identifier} to ${to}${resumed ? ' (finished an interrupted rename)' : ''}` };
  },
});
