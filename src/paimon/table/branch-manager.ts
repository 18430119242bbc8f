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
 * - drop: delete the directory; an I/O failure is raised (Java only logs it).
 * - rename: rename the directory (atomic on a file system). On an object store, where a
 *   directory rename is a copy of every object and a delete, a marker file in the new directory
 *   names the source first, so that a rerun after a crash recognises its own partial copy and
 *   completes it instead of refusing "already exists".
 * - fast-forward: Java's end state (the current branch's snapshots >= the source's earliest
 *   snapshot E, schemas >= E's schema id and tags on those snapshots replaced by the source's),
 *   planned by src/paimon/branches/fast-forward-plan.ts and executed in an order that keeps the
 *   target readable at every step (see executeFastForward).
 */
import { BRANCH_PREFIX, DEFAULT_MAIN_BRANCH, branchPath, isMainBranch, normalizeBranch, validateBranchName } from './branch.js';
import { planFastForward, type BranchFiles, type FastForwardPlan, type TagFile } from '../branches/fast-forward-plan.js';
import { PaimonError, isPaimonError } from '../errors.js';
import type { FileIO } from '../fs/file-io.js';
import { join, name as baseName } from '../fs/path.js';
import { EARLIEST } from './hint-file.js';
import { SchemaManager } from './schema-manager.js';
import { parseSnapshot, snapshotToJson } from '../spec/snapshot.js';
import { SnapshotManager } from './snapshot-manager.js';
import { parseTag, trimToSnapshot } from '../spec/tag.js';
import { TagManager } from './tag-manager.js';

/** File in a branch directory being filled by an object-store rename: it holds the source's name. */
export const RENAME_MARKER = '.rename-from';

/** What a fast-forward plan was made from: the plan and the file contents it compared. */
export interface FastForwardState {
  branch: string;
  plan: FastForwardPlan;
  target: BranchFiles;
  source: BranchFiles;
}

export interface FastForwardOutcome {
  /** Snapshot files written (created) in the target. */
  writtenSnapshots: number[];
  /**
   * Set when a snapshot id the plan wanted to create was taken by a concurrent commit: the
   * execution stopped there (the target holds the source's snapshots below it plus that commit).
   */
  conflictAt: number | null;
  /** Files deleted (snapshots, schemas, tags). */
  deletedFiles: number;
}

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

  /** The metadata files a fast-forward compares; snapshot contents only from `contentFrom` on. */
  async readBranchFiles(branch: string, contentFrom = 0): Promise<BranchFiles> {
    const snapshots = this.snapshots.copyWithBranch(branch);
    const schemas = this.schemas.copyWithBranch(branch);
    const tags = this.tags.copyWithBranch(branch);
    const snapshotFiles = new Map<number, Buffer | null>();
    for (const id of await snapshots.sortedSnapshotIds()) {
      if (id < contentFrom) snapshotFiles.set(id, null);
      else {
        const bytes = await this.readIfExists(snapshots.snapshotPath(id));
        if (bytes !== null) snapshotFiles.set(id, bytes);
      }
    }
    const schemaFiles = new Map<number, Buffer>();
    for (const id of await schemas.listAllIds()) {
      const bytes = await this.readIfExists(schemas.schemaPath(id));
      if (bytes !== null) schemaFiles.set(id, bytes);
    }
    const tagFiles = new Map<string, TagFile>();
    for await (const name of tags.tagNames()) {
      const path = tags.tagPath(name);
      const bytes = await this.readIfExists(path);
      if (bytes !== null) tagFiles.set(name, { snapshotId: parseTag(bytes.toString('utf8'), path).id, bytes });
    }
    const hasEarliestHint = await this.fileIO.exists(join(snapshots.snapshotDirectory(), EARLIEST));
    return { snapshots: snapshotFiles, schemas: schemaFiles, tags: tagFiles, hasEarliestHint };
  }

  private async readIfExists(path: string): Promise<Buffer | null> {
    try {
      return await this.fileIO.readFile(path);
    } catch (e) {
      if (isPaimonError(e, 'FILE_NOT_FOUND')) return null;
      throw e;
    }
  }

  /** Java's checks (`fastForwardValidate`, existence, a snapshot to forward to), then the plan. */
  async planFastForward(name: string): Promise<FastForwardState> {
    if (isMainBranch(name)) throw new PaimonError('INVALID_ARGUMENT', `Branch name '${name}' do not use in fast-forward.`);
    if (name.trim() === '') throw new PaimonError('INVALID_ARGUMENT', `Branch name '${name}' is blank.`);
    if (name === this.currentBranch) {
      throw new PaimonError('INVALID_ARGUMENT', `Fast-forward from the current branch '${name}' is not allowed.`);
    }
    if (!(await this.branchExists(name))) throw new PaimonError('BRANCH_NOT_FOUND', `Branch name '${name}' doesn't exist in ${this.tablePath}.`);
    const source = await this.readBranchFiles(name);
    const ids = [...source.snapshots.keys()].sort((a, b) => a - b);
    if (ids.length === 0) {
      throw new PaimonError('SNAPSHOT_NOT_FOUND', `Cannot fast forward branch ${name}, because it does not have snapshot.`);
    }
    const earliestPath = this.snapshots.copyWithBranch(name).snapshotPath(ids[0]!);
    const earliestSchemaId = parseSnapshot(source.snapshots.get(ids[0]!)!.toString('utf8'), earliestPath).schemaId;
    const target = await this.readBranchFiles(this.currentBranch, ids[0]!);
    return { branch: name, plan: planFastForward(target, source, earliestSchemaId), target, source };
  }

  /**
   * Execute a fast-forward plan. The order keeps the target readable by Paimon at every step,
   * so that a crash leaves a table a rerun (which plans the remainder) completes:
   * 1. target snapshots that go (commits after the fork; only with losses): LATEST first, then
   *    newest first, as a rollback does: the target is then at the fork point;
   * 2. tags that go; 3. schemas that go (newest first), then the source's schemas (no snapshot
   *    of the target refers to a schema id >= S any more, or it refers to an identical one);
   * 4. the source's snapshots, ascending, each created only if absent, as a commit creates its
   *    snapshot: each step leaves a prefix of the source's history, and a concurrent commit that
   *    took an id first stops the copy there (conflictAt) instead of being overwritten;
   * 5. the source's tags; 6. LATEST (and EARLIEST when a hint exists) made exact.
   */
  async executeFastForward(state: FastForwardState, hooks: { beforeStep?: (step: string) => void } = {}): Promise<FastForwardOutcome> {
    const { plan, source } = state;
    const step = hooks.beforeStep ?? (() => {});
    let deletedFiles = 0;
    const del = async (path: string) => {
      if (await this.fileIO.delete(path)) deletedFiles++;
    };
    if (plan.deleteSnapshots.length > 0) {
      step('delete-snapshots');
      if (plan.latestBeforeDelete === null) await this.snapshots.deleteLatestHint();
      else await this.snapshots.commitLatestHint(plan.latestBeforeDelete);
      for (const id of plan.deleteSnapshots) await del(this.snapshots.snapshotPath(id));
    }
    step('delete-tags');
    for (const name of plan.deleteTags) await del(this.tags.tagPath(name));
    step('schemas');
    for (const id of plan.deleteSchemas) await del(this.schemas.schemaPath(id));
    for (const id of plan.writeSchemas) await this.fileIO.writeFile(this.schemas.schemaPath(id), source.schemas.get(id)!);
    step('snapshots');
    const written: number[] = [];
    let conflictAt: number | null = null;
    for (const id of plan.writeSnapshots) {
      const bytes = source.snapshots.get(id)!;
      if (await this.fileIO.tryCreateAtomic(this.snapshots.snapshotPath(id), bytes)) {
        written.push(id);
        continue;
      }
      const now = await this.readIfExists(this.snapshots.snapshotPath(id));
      if (now !== null && now.equals(bytes)) continue;
      conflictAt = id;
      break;
    }
    if (conflictAt === null) {
      step('tags');
      for (const name of plan.writeTags) await this.fileIO.writeFile(this.tags.tagPath(name), source.tags.get(name)!.bytes);
    }
    step('hints');
    const ids = await this.snapshots.sortedSnapshotIds();
    if (ids.length > 0) {
      await this.snapshots.commitLatestHint(ids[ids.length - 1]!);
      if (plan.earliestHint !== null) await this.snapshots.commitEarliestHint(ids[0]!);
    }
    return { writtenSnapshots: written, conflictAt, deletedFiles };
  }

  async dropBranch(name: string): Promise<void> {
    if (isMainBranch(name)) throw new PaimonError('INVALID_ARGUMENT', `Cannot drop the '${DEFAULT_MAIN_BRANCH}' branch.`);
    if (!(await this.branchExists(name))) {
      throw new PaimonError('BRANCH_NOT_FOUND', `Branch name '${name}' doesn't exist in ${this.tablePath}.`);
    }
    await this.fileIO.deleteDirectory(this.branchPath(name));
  }

  /** The source named by an unfinished object-store rename into `to`, or null. */
  async pendingRenameSource(to: string): Promise<string | null> {
    const bytes = await this.readIfExists(join(this.branchPath(to), RENAME_MARKER));
    return bytes === null ? null : bytes.toString('utf8');
  }

  async renameBranch(from: string, to: string): Promise<void> {
    if (isMainBranch(from)) throw new PaimonError('INVALID_ARGUMENT', 'Cannot rename the main branch.');
    const resuming = (await this.pendingRenameSource(to)) === from;
    if (!resuming) {
      if (!(await this.branchExists(from))) throw new PaimonError('BRANCH_NOT_FOUND', `Branch name '${from}' doesn't exist in ${this.tablePath}.`);
      await this.validateNew(to);
    }
    if (!this.fileIO.isObjectStore && !resuming) {
      if (!(await this.fileIO.rename(this.branchPath(from), this.branchPath(to)))) {
        throw new PaimonError('BRANCH_ALREADY_EXISTS', `Branch name '${to}' already exists in ${this.tablePath}.`);
      }
      return;
    }
    await this.copyRename(from, to, resuming);
  }

  /**
   * Object-store rename: marker, copy (schemas last, so that the new branch has a schema only
   * once it is complete), delete the source (schemas first), remove the marker.
   */
  private async copyRename(from: string, to: string, resuming: boolean): Promise<void> {
    const src = this.branchPath(from);
    const dst = this.branchPath(to);
    const marker = join(dst, RENAME_MARKER);
    if (!resuming && !(await this.fileIO.tryCreateAtomic(marker, from))) {
      throw new PaimonError('BRANCH_ALREADY_EXISTS', `Branch name '${to}' already exists in ${this.tablePath}.`);
    }
    const files: string[] = [];
    for await (const st of this.fileIO.listRecursive(src)) files.push(st.path.slice(src.length + 1));
    const schemaLast = (rel: string) => (rel.startsWith('schema/') ? 1 : 0);
    files.sort((a, b) => schemaLast(a) - schemaLast(b) || a.localeCompare(b));
    for (const rel of files) await this.fileIO.copyFile(join(src, rel), join(dst, rel), true);
    for (const rel of [...files].reverse()) await this.fileIO.delete(join(src, rel));
    if (await this.fileIO.exists(src)) await this.fileIO.deleteDirectory(src);
    await this.fileIO.delete(marker);
  }

  /**
   * Fast-forward the current branch (main by default) to `name` with Java's semantics (whatever
   * the current branch committed after the fork is replaced); the procedure adds the checks.
   */
  async fastForward(name: string): Promise<{ earliestSnapshotId: number; copiedSnapshots: number }> {
    const state = await this.planFastForward(name);
    const out = await this.executeFastForward(state);
    if (out.conflictAt !== null) {
      throw new PaimonError('COMMIT_CONFLICT', `fast-forward of ${this.tablePath} to branch ${name} stopped: snapshot ${out.conflictAt} was committed concurrently`);
    }
    return { earliestSnapshotId: state.plan.earliestSnapshotId, copiedSnapshots: state.source.snapshots.size };
  }
}
