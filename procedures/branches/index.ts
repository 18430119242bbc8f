/**
 * The branch procedures (create, delete, rename, fast_forward, merge_branch). Each module
 * declares one procedure; this list is what procedures/index.ts registers.
 */
import type { ParamSpec } from '../framework/signature.js';
import type { ProcedureDefinition } from '../framework/registry.js';

export const branchProcedures: readonly ProcedureDefinition<readonly ParamSpec[]>[] = [];
