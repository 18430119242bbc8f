/**
 * `create_tag` (Spark/Flink CreateTagProcedure, Table.createTag): a tag on the given snapshot
 * (a snapshot file, or a tag holding that id) or on the latest one, with an optional retention.
 *
 * Safer than Paimon: the tag file is created atomically only if absent, so of two concurrent
 * create_tag calls of one name exactly one succeeds and the other gets TAG_ALREADY_EXISTS
 * (Paimon checks, then overwrites: both can succeed and the last one wins). replace_tag is the
 * explicit overwrite.
 */
import { defineProcedure } from '../framework/registry.js';
import { createTagOn } from './tag-creation.js';
import { findSnapshotForTag, latestSnapshotForTag } from '../../src/paimon/tags/tag-lifecycle.js';
import { snapshotIdArg, timeRetainedMillis } from './tag-args.js';

export const createTag = defineProcedure({
  name: 'create_tag',
  description:
    "Create a tag on a snapshot (default: the latest); the snapshot may also be one that only a tag still holds. The tag file is created only if absent: an existing name is TAG_ALREADY_EXISTS (use replace_tag to move a tag). With time_retained the tag expires through expire_tags.",
  params: [
    { name: 'table', type: 'string', required: true, description: "Table identifier 'db.tbl' or 'db.tbl$branch_<name>'." },
    { name: 'tag', type: 'string', required: true, description: 'Name of the new tag.' },
    { name: 'snapshot_id', aliases: ['snapshot'], type: 'bigint', description: 'Snapshot to tag (default: the latest).' },
    { name: 'time_retained', type: 'string', description: "How long the tag is kept, e.g. '1 d', '12h' (default: forever)." },
  ],
  resultColumns: [
    { name: 'result', type: 'boolean', description: "True when the tag was created (Paimon's result)." },
    { name: 'tag', type: 'string', description: 'The tag created.' },
    { name: 'snapshot_id', type: 'bigint', description: 'The snapshot it points at.' },
    { name: 'time_retained_ms', type: 'bigint', description: 'Its retention in milliseconds (null: kept until deleted).' },
    { name: 'pinned_snapshot_id', type: 'bigint', description: 'Latest snapshot id when the call ran.' },
  ],
  privilege: { privilege: 'ALTER', on: 'table' },
  destructive: false,
  run: async (args, ctx) => {
    const t = await ctx.resolveTable(args.table);
    const retained = timeRetainedMillis(args.time_retained);
    const id = snapshotIdArg(args.snapshot_id);
    const latestId = await t.snapshotManager().latestSnapshotId();
    const snapshot = id === null ? await latestSnapshotForTag(t) : await findSnapshotForTag(t, id);
    await createTagOn(t, snapshot, args.tag, retained, ctx);
    return {
      rows: [{ result: true, tag: args.tag, snapshot_id: snapshot.id, time_retained_ms: retained ?? null, pinned_snapshot_id: latestId }],
      info: `tag '${args.tag}' created on snapshot ${snapshot.id}`,
    };
  },
});
