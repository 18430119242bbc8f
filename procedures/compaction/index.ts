/**
 * The compaction procedures. Each module
 * declares one procedure (or a pair sharing one contract); this list is what procedures/index.ts
 * registers.
 */
import type { ParamSpec } from '../framework/signature.js';
import type { ProcedureDefinition } from '../framework/registry.js';
import { compact } from './compact.js';
import { compactDatabase } from './compact-database.js';

export const compactionProcedures: readonly ProcedureDefinition<readonly ParamSpec[]>[] = [compact, compactDatabase];
