/**
 * The changelog procedures (decoupled changelog expiration). Each module
 * declares one procedure (or a pair sharing one contract); this list is what procedures/index.ts
 * registers.
 */
import type { ParamSpec } from '../framework/signature.js';
import type { ProcedureDefinition } from '../framework/registry.js';
import { expireChangelogs } from './expire-changelogs.js';

export const changelogProcedures: readonly ProcedureDefinition<readonly ParamSpec[]>[] = [expireChangelogs];
