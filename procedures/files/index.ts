/**
 * The procedures over a table's files. Each module
 * declares one procedure (or a pair sharing one contract); this list is what procedures/index.ts
 * registers.
 */
import type { ParamSpec } from '../framework/signature.js';
import type { ProcedureDefinition } from '../framework/registry.js';
import { removeOrphanFiles } from './remove-orphan-files.js';

export const fileProcedures: readonly ProcedureDefinition<readonly ParamSpec[]>[] = [removeOrphanFiles];
