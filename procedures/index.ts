/**
 * The built-in procedures. Each procedure module exports one `defineProcedure({...})`
 * declaration; add it to its family's list (procedures/<family>/index.ts) to make it
 * callable, and a new family to this list. The lists are the only place that knows which
 * procedures exist; everything else about a procedure (privilege, table lock and FE refresh, heavy-job cap, caller scoping,
 * docs) is read from its declaration. Procedures that need runtime services (the job
 * procedures need the JobManager) are passed to createDefaultRegistry by the code that owns
 * those services.
 */
import type { ParamSpec } from './framework/signature.js';
import { ProcedureRegistry, type ProcedureDefinition } from './framework/registry.js';
import { snapshotProcedures } from './snapshots/index.js';
import { fileProcedures } from './files/index.js';
import { compactionProcedures } from './compaction/index.js';
import { tagProcedures } from './tags/index.js';
import { branchProcedures } from './branches/index.js';
import { consumerProcedures } from './consumers/index.js';
import { changelogProcedures } from './changelogs/index.js';
import { manifestProcedures } from './manifests/index.js';
import { partitionProcedures } from './partitions/index.js';
import { repairProcedures } from './repair/index.js';

export const builtinProcedures: readonly ProcedureDefinition<readonly ParamSpec[]>[] = [
  ...snapshotProcedures,
  ...fileProcedures,
  ...compactionProcedures,
  ...tagProcedures,
  ...branchProcedures,
  ...consumerProcedures,
  ...changelogProcedures,
  ...manifestProcedures,
  ...partitionProcedures,
  ...repairProcedures,
];

export function createDefaultRegistry(extra: readonly ProcedureDefinition<readonly ParamSpec[]>[] = []): ProcedureRegistry {
  return new ProcedureRegistry([...builtinProcedures, ...extra]);
}
