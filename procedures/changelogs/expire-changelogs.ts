/**
 * `expire_changelogs` (Flink's ExpireChangelogsProcedure, ExpireChangelogImpl, ChangelogDeletion):
 * expire the long-lived changelogs a decoupled changelog lifecycle keeps under
 * `changelog/changelog-<id>` (changelog.num-retained.* / changelog.time-retained retaining more
 * than the snapshots). Selection: src/paimon/changelogs/expire-changelog-selection.ts; what is
 * deleted and in which order: expire-changelog-plan.ts. As in Flink, only the call's arguments
 * count (absent ones: no limit), so a call without arguments expires nothing;
 * `delete_all => true` deletes every long-lived changelog (ExpireChangelogImpl.expireAll).
 *
 * Differences from Paimon, in the safe direction:
 * - `older_than` in the future and negative counts are refused.
 * - dry_run plans and reports without deleting.
 * - The plan is pinned (earliest snapshot, tags, consumers, the long-lived changelog ids) and
 *   re-checked before every deletion phase: a change is CONCURRENT_MODIFICATION.
 * - delete_all still deletes changelogs a consumer would read next (as Paimon does), but says so
 *   in a warning naming the consumers.
 */
import { PaimonError } from '../../src/paimon/errors.js';
import { CHANGELOG_RETENTION_DEFAULTS, selectChangelogRange, type ChangelogSelection } from '../../src/paimon/changelogs/expire-changelog-selection.js';
import { planExpireChangelogs, type ExpireChangelogPlan } from '../../src/paimon/changelogs/expire-changelog-plan.js';
import type { SnapshotLike } from '../../src/paimon/maintenance/types.js';
import type { FileStoreTable } from '../../src/paimon/table/file-store-table.js';
import { ProcedureError } from '../framework/errors.js';
import type { ProcedureContext } from '../framework/context.js';
import { defineProcedure } from '../framework/registry.js';
import type { ProcedureResult } from '../framework/result.js';
import { compactIdRanges, deleteFiles, DeletionTally } from '../framework/file-deleter.js';
import { generationChanges, readGeneration, type Generation } from '../framework/generation.js';
import { parseTimestampMillis } from '../framework/time-args.js';
import { quote } from '../framework/quote.js';
import { EARLIEST, readHint } from '../../src/paimon/table/hint-file.js';

export const DELETE_ALL_RESULT = 'Delete all separated changelogs success.';

export interface ExpireChangelogsArgs {
  table: string;
  retain_max: number | null;
  retain_min: number | null;
  older_than: string | null;
  /** The time window as epoch milliseconds, when no older_than text is given (the post-commit expiry's now - changelog.time-retained). */
  older_than_millis?: number;
  max_deletes: number | null;
  delete_all: boolean;
  dry_run: boolean;
}

/** The retention the call asks for, Paimon's defaults filled in, checked. */
export function changelogRetention(args: Pick<ExpireChangelogsArgs, 'retain_max' | 'retain_min' | 'older_than' | 'older_than_millis' | 'max_deletes'>, now: number) {
  const retainMax = args.retain_max ?? CHANGELOG_RETENTION_DEFAULTS.retainMax;
  const retainMin = args.retain_min ?? CHANGELOG_RETENTION_DEFAULTS.retainMin;
  const maxDeletes = args.max_deletes ?? CHANGELOG_RETENTION_DEFAULTS.maxDeletes;
  for (const [name, v] of [
    ['retain_max', retainMax],
    ['retain_min', retainMin],
    ['max_deletes', maxDeletes],
  ] as const) {
    if (v < 0) throw new PaimonError('INVALID_ARGUMENT', `${name} must not be negative, got ${v}.`);
  }
  // Paimon's one check (ExpireChangelogImpl.expire), in the procedure's argument names.
  if (retainMax < retainMin) {
    throw new PaimonError(
      'INVALID_ARGUMENT',
      `retain_max (${retainMax}) must not be less than retain_min (${retainMin}); pass retain_min => ${retainMax} or lower, or retain_max => ${retainMin} or higher.`,
    );
  }
  let olderThanMillis = args.older_than_millis ?? CHANGELOG_RETENTION_DEFAULTS.olderThanMillis;
  if (args.older_than !== null) {
    olderThanMillis = parseTimestampMillis(args.older_than, 'older_than');
    if (olderThanMillis > now) throw new PaimonError('INVALID_ARGUMENT', `older_than ${quote(args.older_than)} is in the future; it must be earlier than now.`);
  }
  return { retainMax, retainMin, maxDeletes, olderThanMillis };
}

interface ChangelogGeneration extends Generation {
  changelogIds: number[];
}

async function readChangelogGeneration(t: FileStoreTable): Promise<ChangelogGeneration> {
  return { ...(await readGeneration(t.maintenanceReader())), changelogIds: await t.changelogManager().sortedChangelogIds() };
}

/**
 * What invalidates a plan: tags or consumers changed, a pinned changelog gone, snapshots moved
 * back. A writer committing meanwhile (its own expiry moving the earliest snapshot up and adding
 * changelogs above the pinned ones) only adds protection and is let through.
 */
function changes(a: ChangelogGeneration, b: ChangelogGeneration): string[] {
  const out = generationChanges(a, b, { tags: true, consumers: true });
  const now = new Set(b.changelogIds);
  const gone = a.changelogIds.filter((id) => !now.has(id));
  if (gone.length > 0) out.push(`long-lived changelog(s) ${compactIdRanges(gone)} were deleted`);
  const latestPinned = a.changelogIds.length > 0 ? a.changelogIds[a.changelogIds.length - 1] : 0;
  const below = b.changelogIds.filter((id) => id <= latestPinned && !a.changelogIds.includes(id));
  if (below.length > 0) out.push(`long-lived changelog(s) ${compactIdRanges(below)} were added`);
  if (a.earliestId !== null && (b.earliestId === null || b.earliestId < a.earliestId)) out.push(`earliest snapshot moved from ${a.earliestId} to ${b.earliestId} (a rollback?)`);
  return out;
}

interface Planned {
  generation: ChangelogGeneration;
  /** Null: nothing to do (Paimon returns 0 without writing anything). */
  plan: ExpireChangelogPlan | null;
  selection: ChangelogSelection | null;
  warnings: string[];
}

async function makePlan(t: FileStoreTable, args: ExpireChangelogsArgs, now: number): Promise<Planned> {
  const r = t.maintenanceReader();
  const changelogs = t.changelogManager();
  const generation = await readChangelogGeneration(t);
  const warnings: string[] = [];
  const latestSnapshotId = generation.latestId;
  const earliestSnapshotId = generation.earliestId;
  const ids = generation.changelogIds;
  const earliestChangelogId = ids.length > 0 ? ids[0] : null;
  const latestChangelogId = ids.length > 0 ? ids[ids.length - 1] : null;
  if (latestSnapshotId === null || earliestSnapshotId === null || earliestChangelogId === null || latestChangelogId === null) {
    return { generation, plan: null, selection: null, warnings };
  }
  const earliestSnapshot = await r.trySnapshot(earliestSnapshotId);
  const tags = (await r.tags()).map((x) => x.snapshot);
  const read = async (from: number, toExclusive: number): Promise<SnapshotLike[]> => {
    const out: SnapshotLike[] = [];
    for (const id of ids) if (id >= from && id < toExclusive) {
      const c = await changelogs.tryGetChangelog(id);
      if (c !== null) out.push(c);
    }
    return out;
  };
  if (args.delete_all) {
    // ExpireChangelogImpl.expireAll: the changelogs must all be older than the snapshots.
    if (latestChangelogId >= earliestSnapshotId) {
      throw new PaimonError(
        'INVALID_ARGUMENT',
        `delete_all needs every long-lived changelog to be older than the earliest snapshot, but changelog ${latestChangelogId} is not older than snapshot ${earliestSnapshotId} (Paimon: "latest changelog id should be less than earliest snapshot id"); expire by retain_max / older_than instead.`,
      );
    }
    const pinned = [...generation.consumers].filter(([, next]) => next <= latestChangelogId);
    if (pinned.length > 0) {
      warnings.push(`delete_all deletes changelogs that consumer(s) ${pinned.map(([id, n]) => `${quote(id)} (next ${n})`).join(', ')} would read next, as Paimon does`);
    }
    const plan = await planExpireChangelogs(
      { mode: 'all', beginInclusive: earliestChangelogId, endExclusive: latestChangelogId + 1, changelogs: await read(earliestChangelogId, latestChangelogId + 1), endChangelog: null, earliestSnapshot, taggedSnapshots: tags },
      r,
      r,
    );
    return { generation, plan, selection: { earliestChangelogId, endExclusive: latestChangelogId + 1, stoppedBy: 'latest_changelog' }, warnings };
  }
  let minConsumer: number | null = null;
  for (const v of generation.consumers.values()) minConsumer = minConsumer === null ? v : Math.min(minConsumer, v);
  const selection = await selectChangelogRange(
    { ...changelogRetention(args, now), earliestSnapshotId, latestSnapshotId, earliestChangelogId, latestChangelogId, minConsumerNextSnapshot: minConsumer },
    async (id) => (await changelogs.tryGetChangelog(id))?.timeMillis ?? null,
  );
  if (selection === null) return { generation, plan: null, selection: null, warnings };
  const plan = await planExpireChangelogs(
    {
      mode: 'range',
      beginInclusive: earliestChangelogId,
      endExclusive: selection.endExclusive,
      changelogs: await read(earliestChangelogId, selection.endExclusive),
      endChangelog: await changelogs.tryGetChangelog(selection.endExclusive),
      earliestSnapshot,
      taggedSnapshots: tags,
    },
    r,
    r,
  );
  return { generation, plan, selection, warnings };
}

export async function runExpireChangelogs(args: ExpireChangelogsArgs, ctx: ProcedureContext): Promise<ProcedureResult> {
  const t = await ctx.resolveTable(args.table);
  const changelogs = t.changelogManager();
  if (!args.delete_all) changelogRetention(args, ctx.clock.now()); // refused before anything is read
  ctx.progress({ phase: 'plan' });
  const planned = await makePlan(t, args, ctx.clock.now());
  const { generation, plan } = planned;
  const dryRun = args.dry_run;
  const tally = new DeletionTally();
  const warnings = [...planned.warnings, ...(plan?.warnings ?? [])];
  for (const w of warnings) ctx.warn(`expire_changelogs: ${w}`);
  if (plan === null) return result(args.delete_all, [], false, generation.latestId, tally, dryRun, warnings);

  let committed = false;
  const recheck = async (phase: string): Promise<void> => {
    const moved = changes(generation, await readChangelogGeneration(t));
    if (moved.length > 0) {
      throw new ProcedureError(
        'CONCURRENT_MODIFICATION',
        `expire_changelogs on ${t.identifier} stopped before ${phase}: ${moved.join('; ')}. ` +
          (committed ? 'Files of the expired changelogs were partly deleted; rerun the call to finish.' : 'Nothing was changed.'),
        { committed },
      );
    }
  };
  const phase = async (name: string, files: Parameters<typeof deleteFiles>[1]): Promise<void> => {
    if (files.length === 0) return;
    if (!dryRun) await recheck(`deleting ${name}`);
    ctx.throwIfAborted();
    ctx.progress({ phase: `delete ${name}`, done: 0, total: files.length });
    if (!dryRun && !committed) {
      committed = true;
      ctx.markCommitted();
    }
    await deleteFiles(t.fileIO, files, tally, {
      concurrency: ctx.limits.delete_concurrency,
      dryRun,
      signal: ctx.signal,
      onProgress: (done, total) => ctx.progress({ phase: `delete ${name}`, done, total }),
    });
  };
  await phase('data and changelog files', plan.dataFiles);
  // Manifests before the lists naming them, so a rerun after a crash still finds what is left.
  await phase('manifests', plan.manifests);
  await phase('manifest lists', plan.manifestLists);
  // The changelog-<id> files last, ascending.
  await phase(
    'changelog metadata',
    plan.changelogIds.map((id) => ({ path: changelogs.longLivedChangelogPath(id), kind: 'changelog_meta' as const, bytes: null })),
  );
  let changed = committed;
  if (!dryRun) {
    // Paimon writes the hint after every expireUntil, also when nothing was in the range.
    if (plan.earliestHint !== null && (await readHint(t.fileIO, changelogs.changelogDirectory(), EARLIEST)) !== plan.earliestHint) {
      await changelogs.commitLongLivedChangelogEarliestHint(plan.earliestHint);
      changed = true;
    }
    if (plan.deleteHints) {
      await changelogs.deleteEarliestHint();
      await changelogs.deleteLatestHint();
      changed = true;
    }
    if (changed) ctx.reportAffected(t.identifier);
  }
  return result(args.delete_all, plan.changelogIds, !dryRun && changed, generation.latestId, tally, dryRun, warnings);
}

function result(
  deleteAll: boolean,
  ids: readonly number[],
  changed: boolean,
  pinned: number | null,
  tally: DeletionTally,
  dryRun: boolean,
  warnings: readonly string[],
): ProcedureResult {
  return {
    rows: [
      {
        result: deleteAll ? DELETE_ALL_RESULT : String(ids.length),
        deleted_changelogs_count: ids.length,
        changed,
        dry_run: dryRun,
        pinned_snapshot_id: pinned,
        expired_changelog_ids: compactIdRanges(ids),
        deleted_files: tally.files,
        deleted_bytes: tally.bytes,
        deleted_by_kind: tally.toJson(),
        warnings: warnings.length,
      },
    ],
    info: `${dryRun ? 'would expire' : 'expired'} ${ids.length} changelog(s), ${tally.files} file(s)`,
  };
}

export const expireChangelogs = defineProcedure({
  name: 'expire_changelogs',
  description:
    "Expire the long-lived changelogs of a table whose changelog lifecycle is decoupled from its snapshots (changelog/changelog-<id>; Flink's ExpireChangelogsProcedure): only the arguments count, as in Flink (a call without arguments expires nothing); the latest changelog, the changelogs consumers read next, and files the earliest snapshot or a tag holds are kept. delete_all => true deletes every long-lived changelog (they must all be older than the earliest snapshot).",
  params: [
    { name: 'table', type: 'string', required: true, description: "Table identifier 'db.tbl' or 'db.tbl$branch_<name>'." },
    { name: 'retain_max', type: 'int', description: 'Expire changelogs older than the newest retain_max snapshot ids (default: no limit).' },
    { name: 'retain_min', type: 'int', description: 'Keep changelogs of the newest retain_min snapshot ids (default 1).' },
    {
      name: 'older_than',
      type: 'string',
      description: "Expire only changelogs committed before this time ('yyyy-MM-dd HH:mm:ss', proxy local time, or epoch ms); default: no time window.",
    },
    { name: 'max_deletes', type: 'int', description: 'At most this many changelogs per call (default: no limit).' },
    { name: 'delete_all', type: 'boolean', default: false, description: 'Delete every long-lived changelog (the other arguments are ignored).' },
    { name: 'dry_run', type: 'boolean', default: false, description: 'Plan only: report what would be deleted, change nothing.' },
  ],
  resultColumns: [
    { name: 'result', type: 'string', description: `Flink's result: the number of changelogs expired, or '${DELETE_ALL_RESULT}'.` },
    { name: 'deleted_changelogs_count', type: 'int', description: 'Number of long-lived changelogs expired (or that would be).' },
    { name: 'changed', type: 'boolean', description: 'Whether anything on disk changed.' },
    { name: 'dry_run', type: 'boolean', description: 'Whether this was a dry run.' },
    { name: 'pinned_snapshot_id', type: 'bigint', description: 'Latest snapshot id when the plan was made.' },
    { name: 'expired_changelog_ids', type: 'string', description: "Expired changelog ids as ranges, e.g. '1-40'." },
    { name: 'deleted_files', type: 'bigint', description: 'Files deleted (or that would be deleted).' },
    { name: 'deleted_bytes', type: 'bigint', description: 'Bytes of those files.' },
    { name: 'deleted_by_kind', type: 'json', description: 'Files and bytes per kind (data, changelog, manifest, manifest_list, changelog_meta).' },
    { name: 'warnings', type: 'int', description: 'Number of cleaning steps skipped to stay safe, or notes (details in SHOW WARNINGS).' },
  ],
  privilege: { privilege: 'ALTER', on: 'table' },
  destructive: true,
  run: (args, ctx) => runExpireChangelogs(args, ctx),
});
