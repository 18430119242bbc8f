/**
 * The built-in procedures. Each procedure module exports one `defineProcedure({...})`
 * declaration; add it to this list (one import and one entry per module) to make it
 * callable. The list is the only place that knows which procedures exist. Procedures that
 * need runtime services (the job procedures need the JobManager) are passed to
 * createDefaultRegistry by the code that owns those services.
 */
import type { ParamSpec } from './signature.js';
import { ProcedureRegistry, type ProcedureDefinition } from './registry.js';
import { expireSnapshots } from './expire-snapshots.js';
import { rollback, rollbackTo } from './rollback-to.js';
import { rollbackToTimestamp } from './rollback-to-timestamp.js';
import { removeOrphanFiles } from './remove-orphan-files.js';
import { rollbackToAsLatest } from './rollback-to-as-latest.js';
import { compact } from './compact.js';

export const builtinProcedures: readonly ProcedureDefinition<readonly ParamSpec[]>[] = [
  expireSnapshots,
  rollbackTo,
  rollback,
  rollbackToTimestamp,
  removeOrphanFiles,
  rollbackToAsLatest,
  compact,
];

export function createDefaultRegistry(extra: readonly ProcedureDefinition<readonly ParamSpec[]>[] = []): ProcedureRegistry {
  return new ProcedureRegistry([...builtinProcedures, ...extra]);
}
