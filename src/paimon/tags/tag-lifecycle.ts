/**
 * The tag lifecycle of one table branch, above TagManager: which snapshot a new tag takes
 * (AbstractFileStoreTable.findSnapshot, CreateTagFromTimestampProcedure), which tags have
 * expired (TagTimeExpire), and the inputs of a tag deletion plan (tag-deletion.ts): the
 * branch's tags and snapshots, and the protection of everything else that reaches files.
 */
import { PaimonError, isPaimonError } from '../errors.js';
import type { Snapshot } from '../spec/snapshot.js';
import { localDateTimeToEpochMillis, parseTag, tagExpireTimeMillis, trimToSnapshot, type Tag } from '../spec/tag.js';
import type { FileStoreTable } from '../table/file-store-table.js';
import type { TagManager } from '../table/tag-manager.js';
import { listOriginalVersionedFiles } from '../table/hint-file.js';
import { join } from '../fs/path.js';
import { ChangelogManager } from '../table/changelog-manager.js';
import type { MaintenanceReader } from '../maintenance/types.js';
import { emptyProtection, protectDelta, protectWhole, type Protection, type TagDeletionState, type TagRef } from './tag-deletion.js';

/**
 * AbstractFileStoreTable.findSnapshot: the snapshot file of `id`, else a tag that holds `id`;
 * SNAPSHOT_NOT_FOUND with Paimon's message otherwise.
 */
export async function findSnapshotForTag(table: FileStoreTable, id: number, verb = 'create'): Promise<Snapshot> {
  const s = await table.snapshotManager().tryGetSnapshot(id);
  if (s !== null) return s;
  for (const e of await table.tagManager().listTags()) if (e.tag.id === id) return trimToSnapshot(e.tag);
  throw new PaimonError('SNAPSHOT_NOT_FOUND', `Cannot ${verb} tag because given snapshot #${id} doesn't exist in ${table.identifier}.`);
}

/** The latest snapshot, or SNAPSHOT_NOT_FOUND with Paimon's message. */
export async function latestSnapshotForTag(table: FileStoreTable, verb = 'create'): Promise<Snapshot> {
  const s = await table.snapshotManager().latestSnapshot();
  if (s === null) throw new PaimonError('SNAPSHOT_NOT_FOUND', `Cannot ${verb} tag because latest snapshot doesn't exist in ${table.identifier}.`);
  return s;
}

/**
 * CreateTagFromTimestampProcedure: the first snapshot committed at or after `timestampMillis`
 * (laterOrEqualTimeMills), or the first tagged snapshot at or after it when that one is earlier.
 */
export async function snapshotAtOrAfter(table: FileStoreTable, timestampMillis: number): Promise<Snapshot> {
  let snapshot = await table.snapshotManager().laterOrEqualTimeMills(timestampMillis);
  const tagged = [...(await table.tagManager().tagsBySnapshot()).values()].map((v) => v.snapshot);
  for (const t of tagged) {
    if (timestampMillis <= t.timeMillis) {
      if (snapshot === null || t.timeMillis < snapshot.timeMillis) snapshot = t;
      break;
    }
  }
  if (snapshot === null) {
    throw new PaimonError('SNAPSHOT_NOT_FOUND', `Could not find any snapshot whose commit-time later than ${timestampMillis} in ${table.identifier}.`);
  }
  return snapshot;
}

export interface TagForExpiry {
  name: string;
  tag: Tag;
  /** Modification time of the tag file (used as creation time of tags without retention). */
  modificationTime: number;
}

/**
 * TagTimeExpire.expire: the tags to delete, in listing order. A tag with tagCreateTime and
 * tagTimeRetained expires once `now` is after createTime + timeRetained, or when `olderThanMillis`
 * is after its createTime; one without them only through `olderThanMillis`, with its file's
 * modification time as creation time. Times compare in this process's zone, as Java's
 * LocalDateTime compare in the JVM's.
 */
export function selectExpiredTags(tags: readonly TagForExpiry[], now: number, olderThanMillis: number | null): string[] {
  const out: string[] = [];
  for (const t of tags) {
    let createMillis: number;
    const expireAt = tagExpireTimeMillis(t.tag);
    if (t.tag.tagCreateTime && t.tag.tagTimeRetained) createMillis = localDateTimeToEpochMillis(t.tag.tagCreateTime);
    else if (olderThanMillis !== null) createMillis = t.modificationTime;
    else continue;
    const reachedRetention = expireAt !== null && now > expireAt;
    const older = olderThanMillis !== null && olderThanMillis > createMillis;
    if (reachedRetention || older) out.push(t.name);
  }
  return out;
}

/**
 * A tag being deleted is first renamed from tag-<name> to this prefix + name: Paimon (which lists
 * tags by the tag- prefix) no longer sees it, yet its file still says which snapshot's files its
 * cleanup must delete, so a call after a crash can finish the cleanup instead of leaving those
 * files behind for good (data files that a DELETE entry still names are never orphans).
 */
export const DELETING_TAG_PREFIX = 'deleting-tag-';

export function deletingTagPath(tags: TagManager, name: string): string {
  return join(tags.tagDirectory(), DELETING_TAG_PREFIX + name);
}

/** Tags whose deletion was interrupted after the rename (see DELETING_TAG_PREFIX). */
export async function interruptedTagDeletions(tags: TagManager): Promise<TagRef[]> {
  const out: TagRef[] = [];
  for await (const { status, suffix } of listOriginalVersionedFiles(tags.fileIO, tags.tagDirectory(), DELETING_TAG_PREFIX)) {
    try {
      out.push({ name: suffix, snapshot: trimToSnapshot(parseTag((await tags.fileIO.readFile(status.path)).toString('utf8'), status.path)), interrupted: true });
    } catch (e) {
      if (!isPaimonError(e, 'FILE_NOT_FOUND')) throw e; // finished by another call meanwhile
    }
  }
  return out.sort((a, b) => a.snapshot.id - b.snapshot.id || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The branch's tags, snapshot ids and earliest snapshot (TagDeletionState). `interrupted`: tags
 * whose deletion a crash interrupted; they count as tags of the plan (as they did when their
 * deletion was planned) and are planned first.
 */
export async function readTagDeletionState(table: FileStoreTable): Promise<TagDeletionState & { latestId: number | null; interrupted: TagRef[] }> {
  const interrupted = await interruptedTagDeletions(table.tagManager());
  const tags: TagRef[] = [...interrupted, ...(await table.tagManager().listTags()).map((e) => ({ name: e.name, snapshot: trimToSnapshot(e.tag) }))];
  const ids = await table.snapshotManager().sortedSnapshotIds();
  const earliest = ids.length > 0 ? await table.snapshotManager().tryGetSnapshot(ids[0]) : null;
  return { tags, snapshotIds: new Set(ids), earliest, latestId: ids.length > 0 ? ids[ids.length - 1] : null, interrupted };
}

/** Protection from one branch's snapshots (the earliest and latest whole, the rest by delta) and long-lived changelogs. */
async function protectHistory(table: FileStoreTable, branch: string, reader: MaintenanceReader, p: Protection): Promise<void> {
  const snapshots = table.snapshotManager().copyWithBranch(branch);
  const ids = await snapshots.sortedSnapshotIds();
  for (let i = 0; i < ids.length; i++) {
    const s = await snapshots.tryGetSnapshot(ids[i]);
    if (s === null) continue; // expired meanwhile: the generation check catches a real change
    if (i === 0 || i === ids.length - 1) await protectWhole(reader, s, p);
    if (i > 0) await protectDelta(reader, s, p);
  }
  for await (const c of new ChangelogManager(table.fileIO, table.location, branch).changelogs()) await protectDelta(reader, c, p);
}

/**
 * What a tag deletion on `table`'s branch must never delete: everything its snapshots and
 * long-lived changelogs reach, and everything every other branch (snapshots, tags, changelogs)
 * reaches. Consumers reach files only through snapshots, which are protected here.
 */
export async function collectProtection(table: FileStoreTable, reader: MaintenanceReader): Promise<Protection> {
  const p = emptyProtection();
  await protectHistory(table, table.branch, reader, p);
  for (const b of await otherBranches(table)) {
    await protectHistory(table, b, reader, p);
    for (const e of await table.tagManager().copyWithBranch(b).listTags()) await protectWhole(reader, trimToSnapshot(e.tag), p);
  }
  return p;
}

/** Names of the branches of the table other than the table's own (for the generation pin). */
export async function otherBranches(table: FileStoreTable): Promise<string[]> {
  return ['main', ...(await table.branchManager().branches())].filter((b) => b !== table.branch);
}
