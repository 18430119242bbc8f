/**
 * The repair procedures (metadata entries whose files are gone, purging a table's data). Each module
 * declares one procedure (or a pair sharing one contract); this list is what procedures/index.ts
 * registers.
 */
import type { ParamSpec } from '../framework/signature.js';
import type { ProcedureDefinition } from '../framework/registry.js';
import { removeUnexistingFiles } from './remove-unexisting-files.js';
import { repairEarliestSnapshot } from './repair-earliest-snapshot.js';
import { purgeFiles } from './purge-files.js';

export const repairProcedures: readonly ProcedureDefinition<readonly ParamSpec[]>[] = [removeUnexistingFiles, repairEarliestSnapshot, purgeFiles];
