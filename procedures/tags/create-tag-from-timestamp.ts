/**
 * `create_tag_from_timestamp` (CreateTagFromTimestampProcedure): a tag on the first snapshot
 * committed at or after `timestamp` (epoch milliseconds), looking at snapshot files and tagged
 * snapshots, whichever is earlier. Created only if absent, as create_tag.
 */
import { PaimonError } from '../../src/paimon/errors.js';
import { defineProcedure } from '../framework/registry.js';
import { createTagOn } from './tag-creation.js';
import { snapshotAtOrAfter } from '../../src/paimon/tags/tag-lifecycle.js';
import { timeRetainedMillis } from './tag-args.js';

export const createTagFromTimestamp = defineProcedure({
  name: 'create_tag_from_timestamp',
  description:
    'Create a tag on the first snapshot (snapshot files and tagged snapshots) committed at or after a time in epoch milliseconds; created only if absent, as create_tag.',
  params: [
    { name: 'table', type: 'string', required: true, description: "Table identifier 'db.tbl' or 'db.tbl$branch_<name>'." },
    { name: 'tag', type: 'string', required: true, description: 'Name of the new tag.' },
    { name: 'timestamp', type: 'bigint', required: true, description: 'Epoch milliseconds: the first snapshot committed at or after it is tagged.' },
    { name: 'time_retained', type: 'string', description: "How long the tag is kept, e.g. '1 d' (default: forever)." },
  ],
  resultColumns: [
    { name: 'tagName', type: 'string', description: "The tag created (Paimon's result)." },
    { name: 'snapshot', type: 'bigint', description: "The snapshot it points at (Paimon's result)." },
    { name: 'commit_time', type: 'bigint', description: "That snapshot's commit time, epoch ms (Paimon's result)." },
    { name: 'watermark', type: 'string', description: "That snapshot's watermark (Paimon's result)." },
    { name: 'pinned_snapshot_id', type: 'bigint', description: 'Latest snapshot id when the call ran.' },
  ],
  privilege: { privilege: 'ALTER', on: 'table' },
  destructive: false,
  run: async (args, ctx) => {
    const t = await ctx.resolveTable(args.table);
    const retained = timeRetainedMillis(args.time_retained);
    if (args.timestamp < 0n || args.timestamp > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new PaimonError('INVALID_ARGUMENT', `timestamp ${args.timestamp} is not epoch milliseconds`);
    }
    const latestId = await t.snapshotManager().latestSnapshotId();
    const snapshot = await snapshotAtOrAfter(t, Number(args.timestamp));
    await createTagOn(t, snapshot, args.tag, retained, ctx);
    return {
      rows: [
        {
          tagName: args.tag,
          snapshot: snapshot.id,
          commit_time: snapshot.timeMillis,
          // Java prints String.valueOf(Long watermark): "null" when the snapshot has none.
          watermark: snapshot.watermark === undefined ? 'null' : String(snapshot.watermark),
          pinned_snapshot_id: latestId,
        },
      ],
      info: `tag '${args.tag}' created on snapshot ${snapshot.id}`,
    };
  },
});
