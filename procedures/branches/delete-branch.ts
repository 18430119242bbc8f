/**
 * `delete_branch(table, branch)` (Spark's and Flink's DeleteBranchProcedure, `deleteBranches`):
 * a comma-separated list of branches, each directory `branch/branch-<name>/` removed. Data files
 * written through a branch stay (they are shared or orphaned: remove_orphan_files reclaims them).
 *
 * Safer than Paimon: every name is checked before anything is deleted (Paimon deletes one by
 * one and stops at the first bad name); the branch the table argument names, and a branch that
 * `scan.fallback-branch` or `scan.primary-branch` names, are refused; the branches' snapshots
 * and tags are pinned and re-read before the first delete (CONCURRENT_MODIFICATION); and an I/O
 * failure is an error (Paimon only logs it) that says which branches were deleted before it.
 */
import { isMainBranch } from '../../src/paimon/table/branch.js';
import { ProcedureError, toProcedureError } from '../framework/errors.js';
import { nameList } from '../framework/name-list.js';
import { defineProcedure } from '../framework/registry.js';
import { catalogBranches, checkNotConfiguredBranch, checkPin, DRY_RUN_COLUMN, DRY_RUN_PARAM, pinnedLatest, readPin, RESULT_COLUMN, TABLE_PARAM } from './branch-guard.js';

export const deleteBranch = defineProcedure({
  name: 'delete_branch',
  description: "Delete branches (comma-separated). Data files written through them stay until remove_orphan_files; a branch named by 'scan.fallback-branch' or 'scan.primary-branch' is refused.",
  params: [
    TABLE_PARAM,
    { name: 'branch', aliases: ['branches'], type: 'string', required: true, description: 'Branch name, or several separated by commas.' },
    DRY_RUN_PARAM,
  ],
  resultColumns: [
    RESULT_COLUMN,
    { name: 'deleted_branches', type: 'string', description: 'Branches deleted (or that would be), comma-separated.' },
    { name: 'deleted_files', type: 'bigint', description: 'Metadata files below the deleted branch directories.' },
    { name: 'pinned_snapshot_ids', type: 'json', description: 'Latest snapshot id of each branch when the plan was made (null: no snapshot).' },
    DRY_RUN_COLUMN,
  ],
  privilege: { privilege: 'ALTER', on: 'table' },
  destructive: true,
  async run(args, ctx) {
    const t = await ctx.resolveTable(args.table);
    const bm = t.branchManager();
    const names = nameList(args.branch, 'branch');
    for (const b of names) {
      if (isMainBranch(b)) throw new ProcedureError('INVALID_ARGUMENT', `Cannot delete the main branch of ${t.identifier}.`);
      if (b === t.branch) {
        throw new ProcedureError('INVALID_ARGUMENT', `Cannot delete branch '${b}' through itself; call delete_branch on ${t.database}.${t.name}.`);
      }
      if (!(await bm.branchExists(b))) throw new ProcedureError('BRANCH_NOT_FOUND', `Branch name '${b}' doesn't exist in ${t.identifier}.`);
      await checkNotConfiguredBranch(ctx, t, b, 'delete');
    }
    ctx.progress({ phase: 'plan' });
    const pin = await readPin(ctx, t, names);
    let files = 0;
    for (const b of names) for await (const _ of t.fileIO.listRecursive(bm.branchPath(b))) files++;
    const pinned: Record<string, number | null> = {};
    for (const b of names) pinned[b] = pinnedLatest(pin, b);
    const row = (deleted: string[]) => ({
      result: true,
      deleted_branches: deleted.join(','),
      deleted_files: files,
      pinned_snapshot_ids: JSON.stringify(pinned),
      dry_run: args.dry_run,
    });
    if (args.dry_run) return { rows: [row(names)], info: `would delete branches ${names.join(', ')} of ${t.identifier}` };

    await checkPin(ctx, t, pin, 'delete_branch');
    ctx.throwIfAborted();
    ctx.progress({ phase: 'commit' });
    const done: string[] = [];
    const viaCatalog = catalogBranches(ctx);
    for (const b of names) {
      try {
        if (viaCatalog !== null) await viaCatalog.dropBranch(t.database, t.name, b);
        else await bm.dropBranch(b);
      } catch (e) {
        const err = toProcedureError(e);
        throw new ProcedureError(
          err.code === 'INTERNAL_ERROR' ? 'STORAGE_ERROR' : err.code,
          `delete_branch on ${t.identifier}: deleting branch '${b}' failed: ${err.message}.` +
            (done.length > 0 ? ` Branches already deleted: ${done.join(', ')}.` : ' No branch was deleted.') +
            ' Rerun to finish.',
          { cause: e },
        );
      }
      done.push(b);
      ctx.markCommitted();
      ctx.reportAffected(`${t.database}.${t.name}$branch_${b}`);
    }
    ctx.warn(`delete_branch: data files written only through ${names.join(', ')} stay on storage; run remove_orphan_files to reclaim them.`);
    return { rows: [row(done)], info: `deleted branches ${done.join(', ')} of ${t.identifier}` };
  },
});
