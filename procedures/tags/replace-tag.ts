/**
 * `replace_tag` (Spark/Flink ReplaceTagProcedure, Table.replaceTag): point an existing tag at
 * another snapshot (default: the latest) with a new retention; the explicit overwrite that
 * create_tag refuses. Like Paimon, the previously tagged snapshot's files are not cleaned
 * (remove_orphan_files finds them once nothing reaches them).
 *
 * Pinned: the tag must still point where it did when the call read it, right before the
 * overwrite; otherwise CONCURRENT_MODIFICATION. `dry_run => true` only reports.
 *
 * `create_if_missing => true` (ours; what `ALTER TABLE ... CREATE OR REPLACE TAG` runs as one
 * call, so the statement is one audited, counted call): a missing tag is created instead, with
 * create_tag's create-if-absent; should another session create it first, that tag is replaced.
 */
import { ProcedureError } from '../framework/errors.js';
import { defineProcedure } from '../framework/registry.js';
import { findSnapshotForTag, latestSnapshotForTag } from '../../src/paimon/tags/tag-lifecycle.js';
import { durationToMillis } from '../../src/paimon/spec/tag.js';
import { snapshotIdArg, timeRetainedMillis } from './tag-args.js';
import { validateNoAutoTag } from './tag-creation.js';

export const replaceTag = defineProcedure({
  name: 'replace_tag',
  description:
    'Point an existing tag at another snapshot (default: the latest) with a new time_retained (none given: no retention). The files only the old snapshot kept alive are left for remove_orphan_files, as Paimon does.',
  params: [
    { name: 'table', type: 'string', required: true, description: "Table identifier 'db.tbl' or 'db.tbl$branch_<name>'." },
    { name: 'tag', type: 'string', required: true, description: 'The existing tag.' },
    { name: 'snapshot_id', aliases: ['snapshot'], type: 'bigint', description: 'Snapshot the tag should point at (default: the latest).' },
    { name: 'time_retained', type: 'string', description: "New retention, e.g. '1 d' (default: none)." },
    { name: 'create_if_missing', type: 'boolean', default: false, description: 'Create the tag when it does not exist instead of failing with TAG_NOT_FOUND (CREATE OR REPLACE TAG).' },
    { name: 'dry_run', type: 'boolean', default: false, description: 'Only report what would change.' },
  ],
  resultColumns: [
    { name: 'result', type: 'boolean', description: "True when the tag was replaced (Paimon's result)." },
    { name: 'tag', type: 'string', description: 'The tag.' },
    { name: 'previous_snapshot_id', type: 'bigint', description: 'The snapshot it pointed at before.' },
    { name: 'previous_time_retained_ms', type: 'bigint', description: 'Its retention before, in milliseconds (null: none).' },
    { name: 'snapshot_id', type: 'bigint', description: 'The snapshot it points at now.' },
    { name: 'time_retained_ms', type: 'bigint', description: 'Its retention now, in milliseconds (null: none).' },
    { name: 'pinned_snapshot_id', type: 'bigint', description: 'Latest snapshot id when the call ran.' },
    { name: 'dry_run', type: 'boolean', description: 'Whether this was a dry run.' },
    { name: 'created', type: 'boolean', description: 'True when the tag did not exist and was created (create_if_missing).' },
  ],
  privilege: { privilege: 'ALTER', on: 'table' },
  destructive: true,
  run: async (args, ctx) => {
    const t = await ctx.resolveTable(args.table);
    const tags = t.tagManager();
    const retained = timeRetainedMillis(args.time_retained);
    const id = snapshotIdArg(args.snapshot_id);
    let before = await tags.get(args.tag);
    if (before === null && !args.create_if_missing) before = await tags.getOrThrow(args.tag); // TAG_NOT_FOUND
    const verb = before === null ? 'create' : 'replace';
    const latestId = await t.snapshotManager().latestSnapshotId();
    const snapshot = id === null ? await latestSnapshotForTag(t, verb) : await findSnapshotForTag(t, id, verb);
    await validateNoAutoTag(t, args.tag, snapshot);
    ctx.throwIfAborted();
    const now = new Date(ctx.clock.now());
    let created = before === null;
    if (!args.dry_run) {
      if (before === null) {
        created = await tags.createTag(snapshot, args.tag, { timeRetainedMs: retained, ignoreIfExists: true, now });
        // Created by another session since we looked: replace that one, as the caller asked.
        if (!created) before = await tags.getOrThrow(args.tag);
      }
      if (before !== null) {
        const current = await tags.get(args.tag);
        if (current === null || current.id !== before.id) {
          throw new ProcedureError(
            'CONCURRENT_MODIFICATION',
            `replace_tag on ${t.identifier}: tag '${args.tag}' ${current === null ? 'was deleted' : `moved from snapshot ${before.id} to ${current.id}`} meanwhile. Nothing was changed.`,
          );
        }
        await tags.replaceTag(snapshot, args.tag, { timeRetainedMs: retained, now });
      }
      ctx.markCommitted();
      ctx.reportAffected(t.identifier);
    }
    const verbDone = created ? (args.dry_run ? 'would create' : 'created') : args.dry_run ? 'would move' : 'moved';
    return {
      rows: [
        {
          result: true,
          tag: args.tag,
          previous_snapshot_id: before?.id ?? null,
          previous_time_retained_ms: before?.tagTimeRetained ? durationToMillis(before.tagTimeRetained) : null,
          snapshot_id: snapshot.id,
          time_retained_ms: retained ?? null,
          pinned_snapshot_id: latestId,
          dry_run: args.dry_run,
          created,
        },
      ],
      info: created ? `${verbDone} tag '${args.tag}' on snapshot ${snapshot.id}` : `${verbDone} tag '${args.tag}' from snapshot ${before?.id} to ${snapshot.id}`,
    };
  },
});
