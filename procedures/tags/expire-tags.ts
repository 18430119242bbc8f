/**
 * `expire_tags` (Spark/Flink ExpireTagsProcedure with TagTimeExpire): delete every tag whose
 * retention has passed (tagCreateTime + tagTimeRetained before now), and, with `older_than`,
 * every tag created before that time (a tag without retention counts from its file's
 * modification time). Each goes through delete_tag's cleanup (tag-cleanup.ts): pinned, files only
 * when nothing else reaches them, `dry_run => true` to list.
 *
 * Times compare in the proxy's local zone, as Paimon's LocalDateTime values in the JVM's.
 */
import { defineProcedure } from '../framework/registry.js';
import { parseTimestampMillis } from '../framework/time-args.js';
import type { ResultRow } from '../framework/result.js';
import { interruptedTagDeletions, selectExpiredTags } from '../../src/paimon/tags/tag-lifecycle.js';
import { runTagDeletions, totalTally } from './tag-cleanup.js';

export const expireTags = defineProcedure({
  name: 'expire_tags',
  description:
    "Delete the tags whose time_retained has passed, and with older_than every tag created before it (tags without retention by their file's time); each tag's files are cleaned as delete_tag does. One row per expired tag, or 'No expired tags.'.",
  params: [
    { name: 'table', type: 'string', required: true, description: "Table identifier 'db.tbl' or 'db.tbl$branch_<name>'." },
    { name: 'older_than', type: 'string', description: "Also expire tags created before this time ('yyyy-MM-dd HH:mm:ss', proxy local time, or epoch ms)." },
    { name: 'dry_run', type: 'boolean', default: false, description: 'Plan only: report what would be deleted, change nothing.' },
  ],
  resultColumns: [
    { name: 'expired_tags', type: 'string', description: "An expired tag, or 'No expired tags.' (Paimon's result)." },
    { name: 'snapshot_id', type: 'bigint', description: 'The snapshot the tag pointed at.' },
    { name: 'deleted_files', type: 'bigint', description: 'Files deleted with this tag (or that would be), its tag file included.' },
    { name: 'deleted_bytes', type: 'bigint', description: 'Bytes of those files.' },
    { name: 'deleted_by_kind', type: 'json', description: 'Files and bytes per kind for this tag.' },
    { name: 'pinned_snapshot_id', type: 'bigint', description: 'Latest snapshot id when the plan was made.' },
    { name: 'dry_run', type: 'boolean', description: 'Whether this was a dry run.' },
  ],
  privilege: { privilege: 'ALTER', on: 'table' },
  destructive: true,
  run: async (args, ctx) => {
    const t = await ctx.resolveTable(args.table);
    const olderThan = args.older_than === null || args.older_than.trim() === '' ? null : parseTimestampMillis(args.older_than, 'older_than');
    const tags = await t.tagManager().listTags();
    const names = selectExpiredTags(tags, ctx.clock.now(), olderThan);
    // With nothing to expire an interrupted deletion (tag-cleanup.ts) is still finished.
    if (names.length === 0 && (await interruptedTagDeletions(t.tagManager())).length === 0) {
      const latestId = await t.snapshotManager().latestSnapshotId();
      return {
        rows: [{ expired_tags: 'No expired tags.', snapshot_id: null, deleted_files: 0, deleted_bytes: 0, deleted_by_kind: '{}', pinned_snapshot_id: latestId, dry_run: args.dry_run }],
        info: 'no expired tags',
      };
    }
    const run = await runTagDeletions('expire_tags', t, names, ctx, args.dry_run);
    const rows: ResultRow[] = run.outcomes
      .filter((o) => o.step.snapshotId !== null)
      .map((o) => ({
        expired_tags: o.step.name,
        snapshot_id: o.step.snapshotId,
        deleted_files: o.tally.files,
        deleted_bytes: o.tally.bytes,
        deleted_by_kind: o.tally.toJson(),
        pinned_snapshot_id: run.pinnedSnapshotId,
        dry_run: args.dry_run,
      }));
    const total = totalTally(run.outcomes);
    return { rows, info: `${args.dry_run ? 'would expire' : 'expired'} ${rows.length} tag(s), ${total.files} file(s)` };
  },
});
