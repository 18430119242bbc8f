/**
 * `create_branch(table, branch, tag, ignore_if_exists)` (Spark's and Flink's
 * CreateBranchProcedure): an empty branch with the current schemas, or a branch starting at a
 * tag of the branch the table argument names (`db.t$branch_x` creates from x's tag). Spark
 * declares `ignoreIfExists` as STRING parsed as a boolean, Flink as BOOLEAN: both bind here.
 * Nothing is deleted, so there is no dry run; an existing branch is BRANCH_ALREADY_EXISTS
 * unless ignore_if_exists.
 */
import { ProcedureError } from '../framework/errors.js';
import { defineProcedure } from '../framework/registry.js';
import { isMainBranch } from '../../src/paimon/table/branch.js';
import { catalogBranches, refuseUnderCatalogBranches, RESULT_COLUMN, TABLE_PARAM } from './branch-guard.js';

/** Spark parses the string with Boolean.parseBoolean; we also take 1/0 and refuse anything else. */
export function parseIgnoreIfExists(v: string | null): boolean {
  if (v === null) return false;
  const s = v.trim().toLowerCase();
  if (s === 'true' || s === '1') return true;
  if (s === 'false' || s === '0' || s === '') return false;
  throw new ProcedureError('INVALID_ARGUMENT', `ignore_if_exists must be true or false, got '${v}'`);
}

export const createBranch = defineProcedure({
  name: 'create_branch',
  description: "Create a branch: empty (with the current schemas) or from a tag of the table's branch. The branch shares the table's data files.",
  params: [
    TABLE_PARAM,
    { name: 'branch', type: 'string', required: true, description: 'Name of the new branch (not main, not all digits).' },
    { name: 'tag', aliases: ['tagName', 'tag_name'], type: 'string', description: 'Tag the branch starts at; empty branch when absent.' },
    { name: 'ignore_if_exists', aliases: ['ignoreIfExists'], type: 'string', description: "true: an existing branch is a no-op (Spark's STRING, Flink's BOOLEAN)." },
  ],
  resultColumns: [
    RESULT_COLUMN,
    { name: 'branch', type: 'string', description: 'The branch.' },
    { name: 'created', type: 'boolean', description: 'False when the branch existed and ignore_if_exists was true.' },
    { name: 'from_tag', type: 'string', description: 'The tag it starts at, or NULL for an empty branch.' },
    { name: 'from_snapshot_id', type: 'bigint', description: "The tag's snapshot id (the branch's first snapshot), or NULL." },
  ],
  privilege: { privilege: 'ALTER', on: 'table' },
  destructive: false,
  async run(args, ctx) {
    const t = await ctx.resolveTable(args.table);
    const ignore = parseIgnoreIfExists(args.ignore_if_exists);
    const tag = args.tag !== null && args.tag.trim() !== '' ? args.tag : null;
    const bm = t.branchManager();
    let fromSnapshot: number | null = null;
    if (tag !== null) fromSnapshot = (await t.tagManager().getOrThrow(tag)).id;
    const viaCatalog = catalogBranches(ctx);
    if (viaCatalog !== null && !isMainBranch(t.branch)) {
      refuseUnderCatalogBranches(ctx, t, 'creating a branch from another branch', `create it from ${t.database}.${t.name} (a tag of main)`);
    }
    ctx.progress({ phase: 'commit' });
    let created: boolean;
    if (viaCatalog !== null) {
      // CatalogBranchManager.createBranch: ignoreIfExists asks the catalog's branch list first.
      created = !(ignore && (await ctx.catalog.branchExists(t.database, t.name, args.branch)));
      if (created) await viaCatalog.createBranch(t.database, t.name, args.branch, tag);
    } else {
      created = tag === null ? await bm.createBranch(args.branch, { ignoreIfExists: ignore }) : await bm.createBranchFromTag(args.branch, tag, { ignoreIfExists: ignore });
    }
    if (created) {
      ctx.markCommitted();
      ctx.reportAffected(`${t.database}.${t.name}$branch_${args.branch}`);
    }
    return {
      rows: [{ result: true, branch: args.branch, created, from_tag: tag, from_snapshot_id: fromSnapshot }],
      info: created ? `created branch ${args.branch} of ${t.identifier}${tag ? ` from tag ${tag}` : ''}` : `branch ${args.branch} exists already`,
    };
  },
});
