/**
 * The partition procedures (expiration and mark-done). Each module
 * declares one procedure (or a pair sharing one contract); this list is what procedures/index.ts
 * registers.
 */
import type { ParamSpec } from '../framework/signature.js';
import type { ProcedureDefinition } from '../framework/registry.js';
import { expirePartitions } from './expire-partitions.js';
import { markPartitionDone } from './mark-partition-done.js';

export const partitionProcedures: readonly ProcedureDefinition<readonly ParamSpec[]>[] = [expirePartitions, markPartitionDone];
