/**
 * The branch procedures (create, delete, rename, fast_forward, merge_branch). Each module
 * declares one procedure; this list is what procedures/index.ts registers.
 */
import type { ParamSpec } from '../framework/signature.js';
import type { ProcedureDefinition } from '../framework/registry.js';
import { createBranch } from './create-branch.js';
import { deleteBranch } from './delete-branch.js';
import { fastForward } from './fast-forward.js';
import { mergeBranch } from './merge-branch.js';
import { renameBranch } from './rename-branch.js';

export const branchProcedures: readonly ProcedureDefinition<readonly ParamSpec[]>[] = [createBranch, deleteBranch, renameBranch, fastForward, mergeBranch];
