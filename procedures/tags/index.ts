/**
 * The tag procedures (create, delete, rename, replace, expire, automatic creation). Each
 * module declares one procedure; this list is what procedures/index.ts registers.
 */
import type { ParamSpec } from '../framework/signature.js';
import type { ProcedureDefinition } from '../framework/registry.js';

export const tagProcedures: readonly ProcedureDefinition<readonly ParamSpec[]>[] = [];
