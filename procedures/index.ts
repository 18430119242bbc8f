/**
 * The built-in procedures. Each procedure module exports one `defineProcedure({...})`
 * declaration; add it to this list (one import and one entry per module), or to its
 * family's list (procedures/tags/index.ts, procedures/branches/index.ts), to make it
 * callable. The list is the only place that knows which procedures exist; everything else
 * about a procedure (privilege, table lock and FE refresh, heavy-job cap, caller scoping,
 * docs) is read from its declaration. Procedures that need runtime services (the job
 * procedures need the JobManager) are passed to createDefaultRegistry by the code that owns
 * those services.
 */
import type { ParamSpec } from './framework/signature.js';
import { ProcedureRegistry, type ProcedureDefinition } from './framework/registry.js';
import { expireSnapshots } from './snapshots/expire-snapshots.js';
import { rollback, rollbackTo } from './snapshots/rollback-to.js';
import { rollbackToTimestamp } from './snapshots/rollback-to-timestamp.js';
import { removeOrphanFiles } from './files/remove-orphan-files.js';
import { rollbackToAsLatest } from './snapshots/rollback-to-as-latest.js';
import { compact } from './compaction/compact.js';
import { tagProcedures } from './tags/index.js';
import { branchProcedures } from './branches/index.js';

export const builtinProcedures: readonly ProcedureDefinition<readonly ParamSpec[]>[] = [
  expireSnapshots,
  rollbackTo,
  rollback,
  rollbackToTimestamp,
  removeOrphanFiles,
  rollbackToAsLatest,
  compact,
  ...tagProcedures,
  ...branchProcedures,
];

export function createDefaultRegistry(extra: readonly ProcedureDefinition<readonly ParamSpec[]>[] = []): ProcedureRegistry {
  return new ProcedureRegistry([...builtinProcedures, ...extra]);
}
