/**
 * `trigger_tag_automatic_creation` (TriggerTagAutomaticCreationProcedure: the table's
 * TagAutoManager run once): the period tags due under `tag.automatic-creation` are created
 * (src/paimon/tags/tag-auto-creation.ts), auto-created tags beyond `tag.num-retained-max` are
 * deleted, then, with `tag.time-expire-enabled` (default true), tags whose retention passed.
 * Deletions clean files as delete_tag does (tag-cleanup.ts). New tags are created only if absent.
 *
 * dry_run => true reports the tags it would create and delete and changes nothing; the files of
 * a dry run's deletions are planned against the tags as they are now (without the new ones).
 */
import { defineProcedure } from '../framework/registry.js';
import { autoTagSettings, planAutoTags } from '../../src/paimon/tags/tag-auto-creation.js';
import { selectExpiredTags } from '../../src/paimon/tags/tag-lifecycle.js';
import { runTagDeletions, totalTally, type TagDeletionOutcome } from './tag-cleanup.js';
import type { ProcedureContext } from '../framework/context.js';
import type { FileStoreTable } from '../../src/paimon/table/file-store-table.js';

/** What one run of the table's TagAutoManager did (or would do, on a dry run). */
export interface TagAutoRun {
  created: string[];
  /** Auto-created tags deleted by tag.num-retained-max. */
  dropped: string[];
  /** Tags deleted because their time_retained passed (none when expiry was not asked for). */
  expired: string[];
  outcomes: TagDeletionOutcome[];
  latestId: number | null;
}

/**
 * The table's TagAutoManager run once: TagAutoCreation (the period tags due, then the auto-created
 * tags beyond tag.num-retained-max), then, when `expire` and tag.time-expire-enabled, TagTimeExpire.
 * Paimon's commit runs it without the expiry after rollback_to_as_latest; `dynamicOptions` are the
 * committing call's options over the table's, as the table Java commits through carries them.
 */
export async function runTagAutoManager(t: FileStoreTable, ctx: ProcedureContext, opts: { dryRun: boolean; expire: boolean; dynamicOptions?: Readonly<Record<string, string>> }): Promise<TagAutoRun> {
  const options = { ...t.schema.options, ...opts.dynamicOptions };
  const settings = autoTagSettings(options);
  const snapshots = t.snapshotManager();
  const tags = t.tagManager();
  const latestId = await snapshots.latestSnapshotId();
  const created: string[] = [];
  let drop: string[] = [];
  const outcomes: TagDeletionOutcome[] = [];
  if (settings !== null) {
    const current = (await tags.listTags()).map((e) => ({ name: e.name, snapshotId: e.tag.id }));
    const plan = await planAutoTags(settings, {
      tags: current,
      earliestId: await snapshots.earliestSnapshotId(),
      snapshot: async (id) => {
        const s = await snapshots.tryGetSnapshot(id);
        return s === null ? null : { id: s.id, timeMillis: s.timeMillis, watermark: s.watermark ?? null };
      },
    });
    for (const c of plan.create) {
      ctx.throwIfAborted();
      if (current.some((x) => x.name === c.name)) continue; // Paimon: ignoreIfExists
      if (!opts.dryRun) {
        const created1 = await tags.createTag(await snapshots.snapshot(c.snapshotId), c.name, {
          timeRetainedMs: settings.defaultTimeRetainedMs ?? undefined,
          ignoreIfExists: true,
          now: new Date(ctx.clock.now()),
        });
        if (!created1) continue;
        ctx.markCommitted();
      }
      created.push(c.name);
    }
    drop = plan.drop;
    if (drop.length > 0) outcomes.push(...(await runTagDeletions('trigger_tag_automatic_creation', t, drop, ctx, opts.dryRun)).outcomes);
  }
  let expired: string[] = [];
  if (opts.expire && (options['tag.time-expire-enabled'] ?? 'true').toLowerCase() === 'true') {
    const remaining = (await tags.listTags()).filter((e) => !drop.includes(e.name));
    expired = selectExpiredTags(remaining, ctx.clock.now(), null);
    if (expired.length > 0) outcomes.push(...(await runTagDeletions('trigger_tag_automatic_creation', t, expired, ctx, opts.dryRun)).outcomes);
  }
  if (!opts.dryRun && created.length > 0) ctx.reportAffected(t.identifier);
  return { created, dropped: drop, expired, outcomes, latestId };
}

export const triggerTagAutomaticCreation = defineProcedure({
  name: 'trigger_tag_automatic_creation',
  description:
    "Run the table's automatic tag creation once (tag.automatic-creation process-time or watermark, tag.creation-period, tag.num-retained-max, ...), then expire tags whose time_retained passed (tag.time-expire-enabled); deletions clean files as delete_tag does.",
  params: [
    { name: 'table', type: 'string', required: true, description: "Table identifier 'db.tbl' or 'db.tbl$branch_<name>'." },
    { name: 'dry_run', type: 'boolean', default: false, description: 'Only report what would be created and deleted.' },
  ],
  resultColumns: [
    { name: 'result', type: 'boolean', description: "True when the run succeeded (Paimon's result)." },
    { name: 'created_tags', type: 'string', description: "Tags created (or that would be), ','-separated." },
    { name: 'deleted_tags', type: 'string', description: "Auto-created tags deleted by tag.num-retained-max, ','-separated." },
    { name: 'expired_tags', type: 'string', description: "Tags deleted because their retention passed, ','-separated." },
    { name: 'deleted_files', type: 'bigint', description: 'Files deleted with those tags, tag files included.' },
    { name: 'deleted_by_kind', type: 'json', description: 'Files and bytes per kind.' },
    { name: 'pinned_snapshot_id', type: 'bigint', description: 'Latest snapshot id when the call ran.' },
    { name: 'dry_run', type: 'boolean', description: 'Whether this was a dry run.' },
  ],
  privilege: { privilege: 'ALTER', on: 'table' },
  destructive: true,
  run: async (args, ctx) => {
    const t = await ctx.resolveTable(args.table);
    const { created, dropped: drop, expired, outcomes, latestId } = await runTagAutoManager(t, ctx, { dryRun: args.dry_run, expire: true });
    const tally = totalTally(outcomes);
    return {
      rows: [
        {
          result: true,
          created_tags: created.join(','),
          deleted_tags: drop.join(','),
          expired_tags: expired.join(','),
          deleted_files: tally.files,
          deleted_by_kind: tally.toJson(),
          pinned_snapshot_id: latestId,
          dry_run: args.dry_run,
        },
      ],
      info: `${args.dry_run ? 'would create' : 'created'} ${created.length} tag(s), ${args.dry_run ? 'would delete' : 'deleted'} ${drop.length + expired.length}`,
    };
  },
});
