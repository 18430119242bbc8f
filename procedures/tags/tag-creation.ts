/**
 * Creating a tag as create_tag and create_tag_from_timestamp do: create-if-absent through
 * TagManager (TAG_ALREADY_EXISTS for a name that exists or is created concurrently), the
 * tag's creation time from the call's clock, then the commit and FE-refresh bookkeeping.
 */
import type { ProcedureContext } from '../framework/context.js';
import type { FileStoreTable } from '../../src/paimon/table/file-store-table.js';
import type { Snapshot } from '../../src/paimon/spec/snapshot.js';
import { PaimonError } from '../../src/paimon/errors.js';
import { autoTagSettings } from '../../src/paimon/tags/tag-auto-creation.js';

/**
 * TagManager.validateNoAutoTag: with automatic creation on, a name of the auto-tag pattern may
 * not be put on a snapshot that already has an auto tag.
 */
export async function validateNoAutoTag(t: FileStoreTable, name: string, snapshot: Snapshot): Promise<void> {
  const settings = autoTagSettings(t.schema.options);
  if (settings === null || settings.handler.tagToTime(name) === null) return;
  const auto = (await t.tagManager().listTags()).filter((e) => e.tag.id === snapshot.id && settings.handler.tagToTime(e.name) !== null).map((e) => e.name);
  if (auto.length > 0) {
    throw new PaimonError('INVALID_ARGUMENT', `Snapshot ${snapshot.id} is already auto-tagged with [${auto.join(', ')}] in ${t.identifier}; '${name}' has the auto-tag pattern.`);
  }
}

export async function createTagOn(t: FileStoreTable, snapshot: Snapshot, name: string, timeRetainedMs: number | undefined, ctx: ProcedureContext): Promise<void> {
  await validateNoAutoTag(t, name, snapshot);
  ctx.throwIfAborted();
  await t.tagManager().createTag(snapshot, name, { timeRetainedMs, now: new Date(ctx.clock.now()) });
  ctx.markCommitted();
  ctx.reportAffected(t.identifier);
}
