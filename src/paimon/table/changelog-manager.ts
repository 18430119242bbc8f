/**
 * Long-lived changelogs of one branch (`ChangelogManager`): `<branch path>/changelog/changelog-N`
 * with EARLIEST/LATEST hints. Written by snapshot expiry when changelog retention is decoupled
 * from snapshot retention; each file has the snapshot's JSON shape (`Changelog extends Snapshot`).
 */
import { BranchScopedManager } from './branch-scoped-manager.js';
import { PaimonError, isPaimonError } from '../errors.js';
import { EARLIEST, LATEST, commitHint, deleteHint, findEarliest, findLatest, listVersionedFileStatus } from './hint-file.js';
import { join } from '../fs/path.js';
import { parseSnapshot, snapshotToJson, type Snapshot } from '../spec/snapshot.js';

export const CHANGELOG_PREFIX = 'changelog-';

/** A long-lived changelog has exactly the snapshot's fields. */
export type Changelog = Snapshot;

export class ChangelogManager extends BranchScopedManager {
  copyWithBranch(branch: string): ChangelogManager {
    return new ChangelogManager(this.fileIO, this.tablePath, branch);
  }

  changelogDirectory(): string {
    return this.branchDirectory('changelog');
  }

  longLivedChangelogPath(id: number): string {
    return join(this.changelogDirectory(), CHANGELOG_PREFIX + id);
  }

  async latestLongLivedChangelogId(): Promise<number | null> {
    return findLatest(this.fileIO, this.changelogDirectory(), CHANGELOG_PREFIX, (id) => this.longLivedChangelogPath(id));
  }

  async earliestLongLivedChangelogId(): Promise<number | null> {
    return findEarliest(this.fileIO, this.changelogDirectory(), CHANGELOG_PREFIX, (id) => this.longLivedChangelogPath(id));
  }

  async longLivedChangelogExists(id: number): Promise<boolean> {
    return this.fileIO.exists(this.longLivedChangelogPath(id));
  }

  async tryGetChangelog(id: number): Promise<Changelog | null> {
    const path = this.longLivedChangelogPath(id);
    try {
      return parseSnapshot((await this.fileIO.readFile(path)).toString('utf8'), path);
    } catch (e) {
      if (isPaimonError(e, 'FILE_NOT_FOUND')) return null;
      throw e;
    }
  }

  async changelog(id: number): Promise<Changelog> {
    const c = await this.tryGetChangelog(id);
    if (c === null) throw new PaimonError('SNAPSHOT_NOT_FOUND', `long-lived changelog ${id} does not exist in ${this.tablePath}`);
    return c;
  }

  /** `commitChangelog`: overwrite `changelog-<id>`. */
  async commitChangelog(changelog: Changelog, id: number): Promise<void> {
    await this.fileIO.writeFile(this.longLivedChangelogPath(id), snapshotToJson(changelog));
  }

  async commitLongLivedChangelogLatestHint(id: number): Promise<void> {
    await commitHint(this.fileIO, this.changelogDirectory(), LATEST, id);
  }

  async commitLongLivedChangelogEarliestHint(id: number): Promise<void> {
    await commitHint(this.fileIO, this.changelogDirectory(), EARLIEST, id);
  }

  async deleteLatestHint(): Promise<void> {
    await deleteHint(this.fileIO, this.changelogDirectory(), LATEST);
  }

  async deleteEarliestHint(): Promise<void> {
    await deleteHint(this.fileIO, this.changelogDirectory(), EARLIEST);
  }

  async deleteChangelog(id: number): Promise<boolean> {
    return this.fileIO.delete(this.longLivedChangelogPath(id));
  }

  async sortedChangelogIds(): Promise<number[]> {
    const ids: number[] = [];
    for await (const { version } of listVersionedFileStatus(this.fileIO, this.changelogDirectory(), CHANGELOG_PREFIX)) ids.push(version);
    return ids.sort((a, b) => a - b);
  }

  /** Every long-lived changelog, ascending; files that vanish while reading are skipped. */
  async *changelogs(): AsyncIterable<Changelog> {
    for (const id of await this.sortedChangelogIds()) {
      const c = await this.tryGetChangelog(id);
      if (c !== null) yield c;
    }
  }
}
