/**
 * The built-in procedures. Each procedure module exports one `defineProcedure({...})`
 * declaration; add it to this list (one import and one entry per module) to make it
 * callable. The list is the only place that knows which procedures exist.
 */
import type { ParamSpec } from './signature.js';
import { ProcedureRegistry, type ProcedureDefinition } from './registry.js';
import { expireSnapshots } from './expire-snapshots.js';

export const builtinProcedures: readonly ProcedureDefinition<readonly ParamSpec[]>[] = [
  expireSnapshots,
];

export function createDefaultRegistry(): ProcedureRegistry {
  return new ProcedureRegistry(builtinProcedures);
}
