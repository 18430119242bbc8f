/**
 * `delete_tag` (Spark/Flink DeleteTagProcedure, Table.deleteTags): delete one tag or a comma
 * list, in order. A tag whose snapshot has expired takes with it the data files, manifests and
 * index files only it kept alive (TagManager.doClean with TagDeletion), see tag-cleanup.ts.
 *
 * Safer than Paimon:
 * - a missing tag is TAG_NOT_FOUND (before anything is deleted) unless `if_exists => true`;
 *   Paimon only logs a warning;
 * - files are cleaned only when nothing else reaches them: besides Paimon's neighbour tags,
 *   every snapshot of the branch, its long-lived changelogs, and every other branch's
 *   snapshots, tags and changelogs (Paimon may delete files another branch still reads);
 * - the plan is pinned (latest and earliest snapshot, tags, branches): a change before a tag is
 *   deleted is CONCURRENT_MODIFICATION; `dry_run => true` lists what would go;
 * - crash-safe without leaks: the tag file is renamed away first and deleted last, so the next
 *   delete_tag or expire_tags finishes a cleanup a crash interrupted (with Paimon's order the
 *   data files of such a tag stay for good).
 */
import { PaimonError } from '../../src/paimon/errors.js';
import { defineProcedure } from '../framework/registry.js';
import { runTagDeletions, totalTally } from './tag-cleanup.js';
import { validateTagName } from '../../src/paimon/table/tag-manager.js';
import { interruptedTagDeletions } from '../../src/paimon/tags/tag-lifecycle.js';
import { nameList } from '../framework/name-list.js';

export const deleteTag = defineProcedure({
  name: 'delete_tag',
  description:
    "Delete a tag or a comma-separated list of tags. A tag whose snapshot has expired also deletes the files only it kept alive (never a file another tag, snapshot, branch or changelog reaches). A missing tag is TAG_NOT_FOUND unless if_exists => true.",
  params: [
    { name: 'table', type: 'string', required: true, description: "Table identifier 'db.tbl' or 'db.tbl$branch_<name>'." },
    { name: 'tag', type: 'string', required: true, description: "Tag name, or several separated by ','." },
    { name: 'if_exists', type: 'boolean', default: false, description: 'Skip tags that do not exist instead of failing (Paimon skips them silently).' },
    { name: 'dry_run', type: 'boolean', default: false, description: 'Plan only: report what would be deleted, change nothing.' },
  ],
  resultColumns: [
    { name: 'result', type: 'boolean', description: "True when the call succeeded (Paimon's result)." },
    { name: 'deleted_tags', type: 'string', description: "Tags deleted (or that would be), ','-separated." },
    { name: 'snapshot_ids', type: 'string', description: "Their snapshot ids, ','-separated in the same order." },
    { name: 'missing_tags', type: 'string', description: "Tags that did not exist (only with if_exists), ','-separated." },
    { name: 'deleted_files', type: 'bigint', description: 'Files deleted (or that would be), tag files included.' },
    { name: 'deleted_bytes', type: 'bigint', description: 'Bytes of those files.' },
    { name: 'deleted_by_kind', type: 'json', description: 'Files and bytes per kind (tag, data, manifest, manifest_list, index, index_manifest, statistics).' },
    { name: 'pinned_snapshot_id', type: 'bigint', description: 'Latest snapshot id when the plan was made.' },
    { name: 'dry_run', type: 'boolean', description: 'Whether this was a dry run.' },
    { name: 'warnings', type: 'int', description: 'Number of cleaning steps skipped to stay safe (details in SHOW WARNINGS).' },
  ],
  privilege: { privilege: 'ALTER', on: 'table' },
  destructive: true,
  run: async (args, ctx) => {
    const t = await ctx.resolveTable(args.table);
    const names = nameList(args.tag, 'tag');
    for (const n of names) validateTagName(n);
    const present = new Set<string>();
    for (const n of names) if (await t.tagManager().tagExists(n)) present.add(n);
    // A tag whose deletion a crash interrupted is not missing: this call finishes its cleanup.
    const interrupted = new Set((await interruptedTagDeletions(t.tagManager())).map((x) => x.name));
    const missing = names.filter((n) => !present.has(n) && !interrupted.has(n));
    if (missing.length > 0 && !args.if_exists) {
      throw new PaimonError(
        'TAG_NOT_FOUND',
        `Tag ${missing.map((n) => `'${n}'`).join(', ')} doesn't exist in ${t.identifier}; nothing was deleted. Pass if_exists => true to skip missing tags.`,
      );
    }
    const run = await runTagDeletions('delete_tag', t, names.filter((n) => present.has(n)), ctx, args.dry_run);
    const done = run.outcomes.filter((o) => o.step.snapshotId !== null);
    const tally = totalTally(run.outcomes);
    // Tags removed between the existence check and the plan count as missing too.
    const gone = [...missing, ...run.outcomes.filter((o) => o.step.snapshotId === null).map((o) => o.step.name)];
    return {
      rows: [
        {
          result: true,
          deleted_tags: done.map((o) => o.step.name).join(','),
          snapshot_ids: done.map((o) => String(o.step.snapshotId)).join(','),
          missing_tags: gone.join(','),
          deleted_files: tally.files,
          deleted_bytes: tally.bytes,
          deleted_by_kind: tally.toJson(),
          pinned_snapshot_id: run.pinnedSnapshotId,
          dry_run: args.dry_run,
          warnings: run.warnings.length,
        },
      ],
      info: `${args.dry_run ? 'would delete' : 'deleted'} ${done.length} tag(s), ${tally.files} file(s)`,
    };
  },
});
