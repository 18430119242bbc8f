/**
 * What every per-branch metadata manager (snapshots, schemas, tags, consumers, changelogs)
 * shares: the table, its FileIO and the branch whose subtree (`branch/branch-NAME/` or the
 * table root for `main`) holds its directory.
 */
import { branchPath, normalizeBranch } from './branch.js';
import type { FileIO } from '../fs/file-io.js';
import { join } from '../fs/path.js';

export abstract class BranchScopedManager {
  readonly branch: string;

  constructor(
    readonly fileIO: FileIO,
    readonly tablePath: string,
    branch?: string | null,
  ) {
    this.branch = normalizeBranch(branch);
  }

  /** `<table or branch root>/<name>`. */
  protected branchDirectory(name: string): string {
    return join(branchPath(this.tablePath, this.branch), name);
  }

  /** The table (and branch) for messages. */
  protected where(): string {
    return this.branch === 'main' ? this.tablePath : `${this.tablePath} (branch ${this.branch})`;
  }
}
