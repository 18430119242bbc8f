/**
 * Branch naming and paths (`BranchManager.branchPath`, `normalizeBranch`, `validateBranch`).
 * Pure helpers, kept apart from branch-manager.ts so the per-branch managers (snapshots, schemas,
 * tags, consumers, changelogs) can use them without importing the branch manager itself.
 */
import { PaimonError } from '../errors.js';
import { join } from '../fs/path.js';

export const DEFAULT_MAIN_BRANCH = 'main';
export const BRANCH_PREFIX = 'branch-';

/** Blank or missing means main. */
export function normalizeBranch(branch: string | null | undefined): string {
  return branch === undefined || branch === null || branch.trim() === '' ? DEFAULT_MAIN_BRANCH : branch;
}

export function isMainBranch(branch: string): boolean {
  return branch === DEFAULT_MAIN_BRANCH;
}

/** `<table>` for main, `<table>/branch/branch-<name>` otherwise. */
export function branchPath(tablePath: string, branch: string): string {
  const b = normalizeBranch(branch);
  return isMainBranch(b) ? tablePath : join(tablePath, 'branch', BRANCH_PREFIX + b);
}

/** Java `BranchManager.validateBranch` (without the existence check). */
export function validateBranchName(name: string): void {
  if (isMainBranch(name)) {
    throw new PaimonError('INVALID_ARGUMENT', `Branch name '${DEFAULT_MAIN_BRANCH}' is the default branch and cannot be used.`);
  }
  if (name.trim() === '') throw new PaimonError('INVALID_ARGUMENT', `Branch name '${name}' is blank.`);
  if (/^\d+$/.test(name)) {
    throw new PaimonError('INVALID_ARGUMENT', `Branch name cannot be pure numeric string but is '${name}'.`);
  }
  if (name.includes('/') || name.includes('\\')) {
    // Java would create nested directories; we refuse a name that is not one path component.
    throw new PaimonError('INVALID_ARGUMENT', `Branch name '${name}' must not contain a path separator.`);
  }
}
