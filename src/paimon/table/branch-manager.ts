/**
 * Branches of a table (`FileSystemBranchManager`): `<table>/branch/branch-<name>/` holds the
 * branch's own schema/, snapshot/, tag/, consumer/ and changelog/ directories; manifests, index
 * files and data files stay at the table root and are shared.
 *
 * - create (empty): copy schema-0..latest into the branch; no snapshot.
 * - create from a tag: copy tag-T, snapshot-<id> and schemas 0..<tag schemaId>; no hints.
 *   When snapshot-<id> has expired in the source, the tag's snapshot (tag keys trimmed) is
 *   written instead (Java would fail; `Tag.trimToSnapshot` gives the same file content).
 * - create from a snapshot (0.9-era `createBranch(name, snapshotId)`): copy snapshot-<id> and
 *   schemas 0..<schemaId>.
 * - drop: delete the directory; rename: rename the directory.
 * - fast-forward: delete the current branch's snapshots >= the branch's earliest snapshot,
 *   schemas >= its schema id and tags on those snapshots, delete LATEST, then copy the branch's
 *   snapshot, schema and tag directories over.
 */
import { BRANCH_PREFIX, DEFAULT_MAIN_BRANCH, branchPath, isMainBranch, normalizeBranch, validateBranchName } from './branch.js';
import { PaimonError } from '../errors.js';
import type { FileIO } from '../fs/file-io.js';
import { join, name as baseName } from '../fs/path.js';
import { SchemaManager } from './schema-manager.js';
import { snapshotToJson } from '../spec/snapshot.js';
import { SnapshotManager } from './snapshot-manager.js';
import { trimToSnapshot } from '../spec/tag.js';
import { TagManager } from './tag-manager.js';

export { BRANCH_PREFIX, DEFAULT_MAIN_BRANCH, branchPath, isMainBranch, normalizeBranch, validateBranchName } from './branch.js';

export class BranchManager {
  /** The branch the table object is on (fast-forward target). */
  readonly currentBranch: string;
  private readonly snapshots: SnapshotManager;
  private readonly schemas: SchemaManager;
  private readonly tags: TagManager;

  constructor(
    readonly fileIO: FileIO,
    readonly tablePath: string,
    currentBranch?: string | null,
  ) {
    this.currentBranch = normalizeBranch(currentBranch);
    this.snapshots = new SnapshotManager(fileIO, tablePath, this.currentBranch);
    this.schemas = new SchemaManager(fileIO, tablePath, this.currentBranch);
    this.tags = new TagManager(fileIO, tablePath, this.currentBranch);
  }

  branchDirectory(): string {
    return join(this.tablePath, 'branch');
  }

  branchPath(name: string): string {
    return branchPath(this.tablePath, name);
  }

  async branchExists(name: string): Promise<boolean> {
    if (isMainBranch(name)) return true;
    return this.fileIO.exists(this.branchPath(name));
  }

  /** Branch names (directories `branch/branch-*`), sorted. */
  async branches(): Promise<string[]> {
    const out: string[] = [];
    for await (const st of this.fileIO.list(this.branchDirectory())) {
      const n = baseName(st.path);
      if (st.isDir && n.startsWith(BRANCH_PREFIX) && n.length > BRANCH_PREFIX.length) out.push(n.slice(BRANCH_PREFIX.length));
    }
    return out.sort();
  }

  private async validateNew(name: string): Promise<void> {
    validateBranchName(name);
    if (await this.branchExists(name)) {
      throw new PaimonError('BRANCH_ALREADY_EXISTS', `Branch name '${name}' already exists in ${this.tablePath}.`);
    }
  }

  private async copySchemasToBranch(name: string, upToSchemaId: number): Promise<void> {
    const target = this.schemas.copyWithBranch(name);
    for (let id = 0; id <= upToSchemaId; id++) {
      if (await this.schemas.schemaExists(id)) {
        await this.fileIO.copyFile(this.schemas.schemaPath(id), target.schemaPath(id), true);
      }
    }
  }

  /** Empty branch with the current schemas. Returns false if it existed and `ignoreIfExists`. */
  async createBranch(name: string, opts: { ignoreIfExists?: boolean } = {}): Promise<boolean> {
    if (opts.ignoreIfExists && (await this.branchExists(name))) return false;
    await this.validateNew(name);
    const latest = await this.schemas.latest();
    if (latest === null) throw new PaimonError('SCHEMA_NOT_FOUND', `table ${this.tablePath} has no schema`);
    await this.copySchemasToBranch(name, latest.id);
    return true;
  }

  /** Branch starting at a tag of the current branch. */
  async createBranchFromTag(name: string, tagName: string, opts: { ignoreIfExists?: boolean } = {}): Promise<boolean> {
    if (opts.ignoreIfExists && (await this.branchExists(name))) return false;
    await this.validateNew(name);
    const tag = await this.tags.getOrThrow(tagName);
    const snapshot = trimToSnapshot(tag);
    const branchTags = this.tags.copyWithBranch(name);
    const branchSnapshots = this.snapshots.copyWithBranch(name);
    await this.fileIO.copyFile(this.tags.tagPath(tagName), branchTags.tagPath(tagName), true);
    if (await this.snapshots.snapshotExists(snapshot.id)) {
      await this.fileIO.copyFile(this.snapshots.snapshotPath(snapshot.id), branchSnapshots.snapshotPath(snapshot.id), true);
    } else {
      await this.fileIO.writeFile(branchSnapshots.snapshotPath(snapshot.id), snapshotToJson(snapshot));
    }
    await this.copySchemasToBranch(name, snapshot.schemaId);
    return true;
  }

  /** Branch starting at a snapshot of the current branch. */
  async createBranchFromSnapshot(name: string, snapshotId: number, opts: { ignoreIfExists?: boolean } = {}): Promise<boolean> {
    if (opts.ignoreIfExists && (await this.branchExists(name))) return false;
    await this.validateNew(name);
    const snapshot = await this.snapshots.snapshot(snapshotId);
    await this.fileIO.copyFile(this.snapshots.snapshotPath(snapshotId), this.snapshots.copyWithBranch(name).snapshotPath(snapshotId), true);
    await this.copySchemasToBranch(name, snapshot.schemaId);
    return true;
  }

  async dropBranch(name: string): Promise<void> {
    if (isMainBranch(name)) throw new PaimonError('INVALID_ARGUMENT', `Cannot drop the '${DEFAULT_MAIN_BRANCH}' branch.`);
    if (!(await this.branchExists(name))) {
      throw new PaimonError('BRANCH_NOT_FOUND', `Branch name '${name}' doesn't exist in ${this.tablePath}.`);
    }
    await this.fileIO.deleteDirectory(this.branchPath(name));
  }

  async renameBranch(from: string, to: string): Promise<void> {
    if (isMainBranch(from)) throw new PaimonError('INVALID_ARGUMENT', 'Cannot rename the main branch.');
    if (!(await this.branchExists(from))) throw new PaimonError('BRANCH_NOT_FOUND', `Branch name '${from}' doesn't exist in ${this.tablePath}.`);
    await this.validateNew(to);
    if (!(await this.fileIO.rename(this.branchPath(from), this.branchPath(to)))) {
      throw new PaimonError('BRANCH_ALREADY_EXISTS', `Branch name '${to}' already exists in ${this.tablePath}.`);
    }
  }

  /**
   * Fast-forward the current branch (main by default) to `name`. Java's order: delete the
   * superseded snapshot/schema/tag files and LATEST, then copy the branch's directories over.
   */
  async fastForward(name: string): Promise<{ earliestSnapshotId: number; copiedSnapshots: number }> {
    if (isMainBranch(name)) throw new PaimonError('INVALID_ARGUMENT', `Branch name '${name}' do not use in fast-forward.`);
    if (name.trim() === '') throw new PaimonError('INVALID_ARGUMENT', `Branch name '${name}' is blank.`);
    if (name === this.currentBranch) {
      throw new PaimonError('INVALID_ARGUMENT', `Fast-forward from the current branch '${name}' is not allowed.`);
    }
    if (!(await this.branchExists(name))) throw new PaimonError('BRANCH_NOT_FOUND', `Branch name '${name}' doesn't exist in ${this.tablePath}.`);
    const branchSnapshots = this.snapshots.copyWithBranch(name);
    const earliestId = await branchSnapshots.earliestSnapshotId();
    if (earliestId === null) {
      throw new PaimonError('SNAPSHOT_NOT_FOUND', `Cannot fast forward branch ${name}, because it does not have snapshot.`);
    }
    const earliestSchemaId = (await branchSnapshots.snapshot(earliestId)).schemaId;

    const deletePaths: string[] = [];
    for (const id of await this.snapshots.sortedSnapshotIds()) if (id >= earliestId) deletePaths.push(this.snapshots.snapshotPath(id));
    for (const id of await this.schemas.listAllIds()) if (id >= earliestSchemaId) deletePaths.push(this.schemas.schemaPath(id));
    for (const t of await this.tags.listTags()) if (t.tag.id >= earliestId) deletePaths.push(this.tags.tagPath(t.name));

    await this.snapshots.deleteLatestHint();
    await this.fileIO.deleteMany(deletePaths);
    let copied = 0;
    const copyDir = async (from: string, to: string) => {
      for await (const st of this.fileIO.list(from)) {
        if (st.isDir) continue;
        await this.fileIO.copyFile(st.path, join(to, baseName(st.path)), true);
        if (from === branchSnapshots.snapshotDirectory() && baseName(st.path).startsWith('snapshot-')) copied++;
      }
    };
    await copyDir(branchSnapshots.snapshotDirectory(), this.snapshots.snapshotDirectory());
    await copyDir(this.schemas.copyWithBranch(name).schemaDirectory(), this.schemas.schemaDirectory());
    await copyDir(this.tags.copyWithBranch(name).tagDirectory(), this.tags.tagDirectory());
    // Java leaves LATEST to whatever the branch had (possibly none); pypaimon needs it exact.
    const ids = await this.snapshots.sortedSnapshotIds();
    if (ids.length > 0) await this.snapshots.commitLatestHint(ids[ids.length - 1]);
    return { earliestSnapshotId: earliestId, copiedSnapshots: copied };
  }
}
