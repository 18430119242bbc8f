/**
 * The snapshot procedures (expiration and the rollbacks). Each module
 * declares one procedure (or a pair sharing one contract); this list is what procedures/index.ts
 * registers.
 */
import type { ParamSpec } from '../framework/signature.js';
import type { ProcedureDefinition } from '../framework/registry.js';
import { expireSnapshots } from './expire-snapshots.js';
import { rollback, rollbackTo } from './rollback-to.js';
import { rollbackToTimestamp } from './rollback-to-timestamp.js';
import { rollbackToAsLatest } from './rollback-to-as-latest.js';
import { rollbackToWatermark } from './rollback-to-watermark.js';

export const snapshotProcedures: readonly ProcedureDefinition<readonly ParamSpec[]>[] = [expireSnapshots, rollbackTo, rollback, rollbackToTimestamp, rollbackToWatermark, rollbackToAsLatest];
