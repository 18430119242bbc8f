/**
 * Tags of one branch of a table (`TagManager`): `<branch path>/tag/tag-<name>`.
 * A new tag is created only if absent (FileIO.tryCreateAtomic: exclusive create or hard link
 * locally, `If-None-Match: *` on S3), so of two concurrent creates of one name exactly one
 * succeeds; Java checks for existence and then overwrites, where both can succeed and the last
 * write wins. Replacing a tag is the explicit overwrite (`overwriteFileUtf8`).
 *
 * Deleting a tag here removes only the tag file. Java's `deleteTag` then also deletes the data
 * files and manifests that only this tag kept alive (when its snapshot has expired); that needs
 * manifest reading and belongs to the procedure layer (`deleteTag` reports whether the tagged
 * snapshot still exists, i.e. whether such a cleanup is needed).
 *
 * A tag created or deleted here runs Paimon's tag callback of a table whose tags a metastore
 * keeps as partitions (`metastore.tag-to-partition`, `AddPartitionTagCallback`): the partition
 * `<field>=<tag>` is added or dropped after the tag file. Replacing a tag keeps it (Java's
 * replaceTag passes no such callback), and so does renaming one, as in Java.
 */
import { BranchScopedManager } from './branch-scoped-manager.js';
import { PaimonError, isPaimonError } from '../errors.js';
import { listOriginalVersionedFiles } from './hint-file.js';
import { join } from '../fs/path.js';
import { metastorePartitionsOf } from '../catalog/metastore-partitions.js';
import type { Snapshot } from '../spec/snapshot.js';
import {
  durationFromMillis,
  localDateTimeOf,
  parseTag,
  tagFromSnapshot,
  tagToJson,
  trimToSnapshot,
  type Duration,
  type Tag,
} from '../spec/tag.js';

export const TAG_PREFIX = 'tag-';

export interface TagEntry {
  name: string;
  tag: Tag;
  /** Modification time of the tag file (Java orders tags of one snapshot by it). */
  modificationTime: number;
}

export function validateTagName(name: string): void {
  if (name.trim() === '') throw new PaimonError('INVALID_ARGUMENT', "Tag name shouldn't be blank.");
  if (name.includes('/') || name.includes('\\')) {
    throw new PaimonError('INVALID_ARGUMENT', `Tag name '${name}' must not contain a path separator.`);
  }
}

export class TagManager extends BranchScopedManager {
  copyWithBranch(branch: string): TagManager {
    return new TagManager(this.fileIO, this.tablePath, branch);
  }

  tagDirectory(): string {
    return this.branchDirectory('tag');
  }

  tagPath(name: string): string {
    return join(this.tagDirectory(), TAG_PREFIX + name);
  }

  async tagExists(name: string): Promise<boolean> {
    return this.fileIO.exists(this.tagPath(name));
  }

  /** The tag, or null when it does not exist. */
  async get(name: string): Promise<Tag | null> {
    validateTagName(name);
    const path = this.tagPath(name);
    try {
      return parseTag((await this.fileIO.readFile(path)).toString('utf8'), path);
    } catch (e) {
      if (isPaimonError(e, 'FILE_NOT_FOUND')) return null;
      throw e;
    }
  }

  async getOrThrow(name: string): Promise<Tag> {
    const t = await this.get(name);
    if (t === null) throw new PaimonError('TAG_NOT_FOUND', `Tag '${name}' doesn't exist in ${this.where()}.`);
    return t;
  }

  /**
   * `TagManager.createTag`: TAG_ALREADY_EXISTS unless `ignoreIfExists`. With `timeRetainedMs`
   * the file carries tagCreateTime (local wall clock of `now`) and tagTimeRetained.
   * Returns false when the tag existed and was left alone. The file is created atomically only
   * if absent: a concurrent creator of the same name makes this call fail (or return false).
   */
  async createTag(
    snapshot: Snapshot,
    name: string,
    opts: { timeRetainedMs?: number; ignoreIfExists?: boolean; now?: Date } = {},
  ): Promise<boolean> {
    validateTagName(name);
    if (await this.tagExists(name)) {
      if (opts.ignoreIfExists) return false;
      throw new PaimonError('TAG_ALREADY_EXISTS', `Tag '${name}' already exists in ${this.where()}.`);
    }
    const created = await this.write(snapshot, name, opts.timeRetainedMs === undefined ? undefined : durationFromMillis(opts.timeRetainedMs), opts.now, true);
    if (created) {
      await this.tagPartitionChanged(name, 'created');
      return true;
    }
    if (opts.ignoreIfExists) return false;
    throw new PaimonError('TAG_ALREADY_EXISTS', `Tag '${name}' already exists in ${this.where()} (created concurrently).`);
  }

  /** `TagManager.replaceTag`: the tag must exist. */
  async replaceTag(snapshot: Snapshot, name: string, opts: { timeRetainedMs?: number; now?: Date } = {}): Promise<void> {
    validateTagName(name);
    if (!(await this.tagExists(name))) throw new PaimonError('TAG_NOT_FOUND', `Tag '${name}' doesn't exist in ${this.where()}.`);
    await this.write(snapshot, name, opts.timeRetainedMs === undefined ? undefined : durationFromMillis(opts.timeRetainedMs), opts.now);
  }

  /** Write the tag file; `exclusive`: only if absent (false when it existed). */
  private async write(snapshot: Snapshot, name: string, retained: Duration | undefined, now = new Date(), exclusive = false): Promise<boolean> {
    const base = 'tagCreateTime' in snapshot || 'tagTimeRetained' in snapshot ? trimToSnapshot(snapshot as Tag) : snapshot;
    const content = retained === undefined ? tagToJson(base) : tagToJson(tagFromSnapshot(base, retained, localDateTimeOf(now)));
    if (exclusive) return this.fileIO.tryCreateAtomic(this.tagPath(name), content);
    await this.fileIO.writeFile(this.tagPath(name), content);
    return true;
  }

  /**
   * Remove the tag file. Returns the removed tag (null if it did not exist, as Java only warns).
   * The caller decides about data cleanup (see the module comment).
   */
  async deleteTag(name: string): Promise<Tag | null> {
    const tag = await this.get(name);
    if (tag === null) return null;
    await this.fileIO.delete(this.tagPath(name));
    await this.tagPartitionChanged(name, 'deleted');
    return tag;
  }

  /**
   * The tag callback after a tag appeared or disappeared for Paimon (`notifyCreation` /
   * `notifyDeletion`); also called by deletions that take the tag file away themselves.
   */
  async tagPartitionChanged(name: string, change: 'created' | 'deleted'): Promise<void> {
    const metastore = metastorePartitionsOf(this.tablePath);
    if (metastore === null || metastore.tagPartitionField === null) return;
    const partition = [[metastore.tagPartitionField, name] as const];
    try {
      if (change === 'created') await metastore.add([partition]);
      else await metastore.drop([partition]);
    } catch (e) {
      throw new PaimonError(
        'STORAGE_ERROR',
        `tag '${name}' of ${this.where()} is ${change}, but ${change === 'created' ? 'adding' : 'dropping'} its partition ${metastore.tagPartitionField}=${name} in the metastore (${metastore.where}) failed: ${(e as Error).message}`,
        { cause: e },
      );
    }
  }

  /** `renameTag`: TAG_NOT_FOUND / TAG_ALREADY_EXISTS as Java's precondition checks. */
  async renameTag(from: string, to: string): Promise<void> {
    validateTagName(from);
    validateTagName(to);
    if (!(await this.tagExists(from))) throw new PaimonError('TAG_NOT_FOUND', `Tag '${from}' doesn't exist in ${this.where()}.`);
    if (await this.tagExists(to)) throw new PaimonError('TAG_ALREADY_EXISTS', `Tag '${to}' already exists in ${this.where()}.`);
    if (!(await this.fileIO.rename(this.tagPath(from), this.tagPath(to)))) {
      throw new PaimonError('TAG_ALREADY_EXISTS', `Tag '${to}' already exists in ${this.where()}.`);
    }
  }

  /** Every tag name (listing order). */
  async *tagNames(): AsyncIterable<string> {
    for await (const { suffix } of listOriginalVersionedFiles(this.fileIO, this.tagDirectory(), TAG_PREFIX)) yield suffix;
  }

  /**
   * Every tag with its content, sorted by snapshot id, then file modification time, then name.
   * Tags deleted while listing are skipped (as Java does).
   */
  async listTags(): Promise<TagEntry[]> {
    const out: TagEntry[] = [];
    for await (const { status, suffix } of listOriginalVersionedFiles(this.fileIO, this.tagDirectory(), TAG_PREFIX)) {
      try {
        const tag = parseTag((await this.fileIO.readFile(status.path)).toString('utf8'), status.path);
        out.push({ name: suffix, tag, modificationTime: status.modificationTime });
      } catch (e) {
        if (!isPaimonError(e, 'FILE_NOT_FOUND')) throw e;
      }
    }
    return out.sort((a, b) => a.tag.id - b.tag.id || a.modificationTime - b.modificationTime || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** `tags()`: snapshot id -> tag names, ascending by id. */
  async tagsBySnapshot(): Promise<Map<number, { snapshot: Snapshot; names: string[] }>> {
    const m = new Map<number, { snapshot: Snapshot; names: string[] }>();
    for (const e of await this.listTags()) {
      const cur = m.get(e.tag.id);
      if (cur) cur.names.push(e.name);
      else m.set(e.tag.id, { snapshot: trimToSnapshot(e.tag), names: [e.name] });
    }
    return m;
  }

  /** `taggedSnapshots()`: one snapshot per tagged id, ascending. */
  async taggedSnapshots(): Promise<Snapshot[]> {
    return [...(await this.tagsBySnapshot()).values()].map((v) => v.snapshot);
  }

  async tagCount(): Promise<number> {
    let n = 0;
    for await (const _ of this.tagNames()) n++;
    return n;
  }
}
