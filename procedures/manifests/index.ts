/**
 * The manifest procedures (manifest compaction). Each module
 * declares one procedure (or a pair sharing one contract); this list is what procedures/index.ts
 * registers.
 */
import type { ParamSpec } from '../framework/signature.js';
import type { ProcedureDefinition } from '../framework/registry.js';
import { compactManifest } from './compact-manifest.js';

export const manifestProcedures: readonly ProcedureDefinition<readonly ParamSpec[]>[] = [compactManifest];
