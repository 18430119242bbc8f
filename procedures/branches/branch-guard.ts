/**
 * What the branch procedures share: the parameters every one of them declares, the table on
 * another branch, the pinned generation of the branches a plan read (each branch's latest and
 * earliest snapshot and its tags, plus the set of branches), re-read right before the first
 * write, and the branch-option guard (`scan.fallback-branch` / `scan.primary-branch`).
 */
import type { FileStoreTable } from '../../src/paimon/table/file-store-table.js';
import { ProcedureError } from '../framework/errors.js';
import type { ProcedureContext } from '../framework/context.js';
import { generationChanges, readGeneration, type Generation } from '../framework/generation.js';

export const TABLE_PARAM = {
  name: 'table',
  type: 'string',
  required: true,
  description: "Table identifier 'db.tbl', or 'db.tbl$branch_<name>' to act from that branch.",
} as const;

export const DRY_RUN_PARAM = { name: 'dry_run', type: 'boolean', default: false, description: 'Check and plan only: report what would change, change nothing.' } as const;

/** Paimon's own result column (Spark `result`, Flink `Success`). */
export const RESULT_COLUMN = { name: 'result', type: 'boolean', description: "Paimon's result: true when the procedure succeeded." } as const;

export const DRY_RUN_COLUMN = { name: 'dry_run', type: 'boolean', description: 'Whether this was a dry run (nothing changed).' } as const;

/** Branch changes a catalog that owns the table's versions makes itself. */
export interface CatalogBranches {
  createBranch(database: string, table: string, branch: string, fromTag?: string | null): Promise<void>;
  dropBranch(database: string, table: string, branch: string): Promise<void>;
  fastForward(database: string, table: string, branch: string): Promise<void>;
}

/**
 * The catalog's branch operations when it owns the table's versions (Paimon's
 * `supportsVersionManagement`: the REST catalog), else null. Java's tables then use a
 * CatalogBranchManager: branches are created, dropped and fast-forwarded by the catalog, which
 * keeps the branches' latest snapshots, not by writing the branch files; a procedure that
 * changed the files behind its back would leave the catalog's state behind.
 */
export function catalogBranches(ctx: ProcedureContext): CatalogBranches | null {
  const c = ctx.catalog;
  if (c.supportsVersionManagement !== true || !c.createBranch || !c.dropBranch || !c.fastForward) return null;
  return { createBranch: c.createBranch.bind(c), dropBranch: c.dropBranch.bind(c), fastForward: c.fastForward.bind(c) };
}

/**
 * NOT_SUPPORTED for a branch change that a version-managing catalog cannot make (Paimon:
 * RESTCatalog.renameBranch is unsupported, CatalogBranchManager refuses merges), or one on a
 * branch table that the catalog's branch API (which addresses the main table) has no form for.
 */
export function refuseUnderCatalogBranches(ctx: ProcedureContext, t: FileStoreTable, what: string, instead: string): void {
  if (catalogBranches(ctx) === null) return;
  throw new ProcedureError('NOT_SUPPORTED', `${what} of ${t.identifier} is not supported by catalog '${ctx.catalog.name}', which manages the table's versions itself; ${instead}`);
}

/** The same table on another branch (main for 'main'). */
export async function tableOnBranch(ctx: ProcedureContext, t: FileStoreTable, branch: string): Promise<FileStoreTable> {
  if (branch === t.branch) return t;
  return ctx.catalog.getTable({ database: t.database, table: t.name, ...(branch === 'main' ? {} : { branch }) });
}

/** Pinned state of a set of branches of one table. */
export interface BranchPin {
  branches: string[];
  generations: Map<string, Generation>;
}

export async function readPin(ctx: ProcedureContext, t: FileStoreTable, branches: readonly string[]): Promise<BranchPin> {
  const generations = new Map<string, Generation>();
  for (const b of branches) {
    const bt = await tableOnBranch(ctx, t, b);
    generations.set(b, await readGeneration(bt.maintenanceReader()));
  }
  return { branches: await t.branchManager().branches(), generations };
}

/** Throws CONCURRENT_MODIFICATION naming what moved since `pin` was read. */
export async function checkPin(ctx: ProcedureContext, t: FileStoreTable, pin: BranchPin, what: string): Promise<void> {
  const now = await readPin(ctx, t, [...pin.generations.keys()]);
  const changes: string[] = [];
  const before = new Set(pin.branches);
  const after = new Set(now.branches);
  for (const b of before) if (!after.has(b)) changes.push(`branch '${b}' was removed`);
  for (const b of after) if (!before.has(b)) changes.push(`branch '${b}' was created`);
  for (const [b, g] of pin.generations) {
    for (const c of generationChanges(g, now.generations.get(b)!, { latest: true, earliest: true, tags: true })) changes.push(`on branch '${b}': ${c}`);
  }
  if (changes.length > 0) {
    throw new ProcedureError(
      'CONCURRENT_MODIFICATION',
      `${what} on ${t.identifier} refused: ${changes.join('; ')} since the plan was made. Nothing was changed; retry when the writers are done.`,
    );
  }
}

export function pinnedLatest(pin: BranchPin, branch: string): number | null {
  return pin.generations.get(branch)?.latestId ?? null;
}

/** The branch options of Paimon's `deleteBranch` guard, read from main's and this handle's schema. */
const GUARDED_OPTIONS = ['scan.fallback-branch', 'scan.primary-branch'] as const;

/** Refuses (INVALID_ARGUMENT) an operation that would remove `branch` while an option names it. */
export async function checkNotConfiguredBranch(ctx: ProcedureContext, t: FileStoreTable, branch: string, action: string): Promise<void> {
  const handles = [t, await tableOnBranch(ctx, t, 'main')];
  for (const h of handles) {
    for (const key of GUARDED_OPTIONS) {
      const v = h.option(key);
      if (v !== undefined && v.trim() !== '' && v === branch) {
        throw new ProcedureError(
          'INVALID_ARGUMENT',
          `Cannot ${action} branch '${branch}' because it is configured as '${key}' of ${h.identifier}. Unset '${key}' first.`,
        );
      }
    }
  }
}
