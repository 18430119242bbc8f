/**
 * `expire_snapshots`: Paimon's ExpireSnapshotsImpl (selection and deletion order, see
 * src/paimon/maintenance/expire-selection.ts and expire-plan.ts), run against one branch.
 *
 * Differences from Paimon, all in the safe direction:
 * - `retain_min < 1` is refused (Paimon accepts it and deletes files of retained snapshots), as is
 *   an `older_than` in the future.
 * - Decoupled changelogs (`changelog.num-retained.*` / `changelog.time-retained` keeping more
 *   than the snapshots) are honoured as the writer-side expiry does: changelog files stay and
 *   `changelog/changelog-<id>` is written before each snapshot file is deleted. Paimon's
 *   procedure ignores those options and deletes the changelog with the snapshots.
 * - The plan is pinned to a generation (tags, consumers, earliest snapshot) and re-checked
 *   before every deletion phase; a change is CONCURRENT_MODIFICATION. New commits on top
 *   (a larger latest id) do not invalidate the plan: they only add protection.
 */
import { PaimonError } from '../../src/paimon/errors.js';
import { selectExpireRange, isChangelogDecoupled, validateRetention, type RetentionSources } from '../../src/paimon/maintenance/expire-selection.js';
import { emptyExpirePlan, planExpire, type ExpirePlan } from '../../src/paimon/maintenance/expire-plan.js';
import type { SnapshotLike } from '../../src/paimon/maintenance/types.js';
import { commitHint, EARLIEST, LATEST, readHint } from '../../src/paimon/table/hint-file.js';
import { ProcedureError } from '../framework/errors.js';
import type { ProcedureContext } from '../framework/context.js';
import { defineProcedure } from '../framework/registry.js';
import type { ProcedureResult } from '../framework/result.js';
import { compactIdRanges, deleteFiles, DeletionTally } from '../framework/file-deleter.js';
import { generationChanges, readGeneration, type Generation } from '../framework/generation.js';
import type { TableMaintenanceReader } from '../../src/paimon/table/maintenance-reader.js';
import { intOption, optionSource, parseDurationMillis, parseOptions, parseTimestampMillis } from '../framework/time-args.js';
import { quote } from '../framework/quote.js';

const INT_MAX = 2_147_483_647;
const PLAN_ATTEMPTS = 3;

export interface ExpireSnapshotsArgs {
  table: string;
  retain_max: number | null;
  retain_min: number | null;
  older_than: string | null;
  max_deletes: number | null;
  options: string | null;
  dry_run: boolean;
}

interface ExpireSettings {
  retainMax: number;
  retainMin: number;
  maxDeletes: number;
  olderThanMillis: number;
  timeRetainMs: number;
  changelogDecoupled: boolean;
  produceChangelog: boolean;
  /** Where retainMax, retainMin and maxDeletes came from when not from their arguments (messages). */
  sources: RetentionSources;
}

/** Paimon's CoreOptions defaults of the options expire_snapshots reads. */
const DEFAULT_RETAIN_MAX = INT_MAX;
const DEFAULT_RETAIN_MIN = 10;
const DEFAULT_EXPIRE_LIMIT = 50;
const DEFAULT_TIME_RETAINED_MS = 3_600_000;

/**
 * ProcedureUtils.fillInSnapshotOptions, with dynamic `options` applied over the table's first.
 * Each value not passed as its argument remembers its source (the options argument, the table
 * option, or the default), so that a refusal says what to change.
 */
export function expireSettings(args: ExpireSnapshotsArgs, tableOptions: Record<string, string>, now: number): ExpireSettings {
  const dynamic = parseOptions(args.options);
  const opts = { ...tableOptions, ...dynamic };
  const sources: RetentionSources = {};
  const fromOption = (arg: number | null, key: string, dflt: number, which: keyof RetentionSources): number => {
    if (arg !== null) return arg;
    const source = optionSource(key, dynamic, tableOptions);
    sources[which] = source;
    return intOption(opts, key, dflt, source);
  };
  const retainMax = fromOption(args.retain_max, 'snapshot.num-retained.max', DEFAULT_RETAIN_MAX, 'retainMax');
  const retainMin = fromOption(args.retain_min, 'snapshot.num-retained.min', DEFAULT_RETAIN_MIN, 'retainMin');
  const maxDeletes = fromOption(args.max_deletes, 'snapshot.expire.limit', DEFAULT_EXPIRE_LIMIT, 'maxDeletes');
  const timeRetained = opts['snapshot.time-retained'];
  let timeRetainMs =
    timeRetained !== undefined ? parseDurationMillis(timeRetained, optionSource('snapshot.time-retained', dynamic, tableOptions)) : DEFAULT_TIME_RETAINED_MS;
  let olderThanMillis = now - timeRetainMs;
  if (args.older_than !== null && args.older_than.trim() !== '') {
    olderThanMillis = parseTimestampMillis(args.older_than, 'older_than');
    if (olderThanMillis > now) {
      throw new PaimonError('INVALID_ARGUMENT', `older_than ${quote(args.older_than)} is in the future; it must be earlier than now`);
    }
    timeRetainMs = now - olderThanMillis;
  }
  const opt = (k: string): string | undefined => opts[k];
  const changelogDecoupled = isChangelogDecoupled(
    { retainMax, retainMin, timeRetainMs },
    {
      changelogRetainMax: opt('changelog.num-retained.max') !== undefined ? intOption(opts, 'changelog.num-retained.max', 0) : null,
      changelogRetainMin: opt('changelog.num-retained.min') !== undefined ? intOption(opts, 'changelog.num-retained.min', 0) : null,
      changelogTimeRetainMs:
        opt('changelog.time-retained') !== undefined ? parseDurationMillis(opt('changelog.time-retained')!, 'changelog.time-retained') : null,
    },
  );
  const producer = (opts['changelog-producer'] ?? 'none').toLowerCase();
  const settings = { retainMax, retainMin, maxDeletes, olderThanMillis, timeRetainMs, changelogDecoupled, produceChangelog: producer !== 'none', sources };
  // Refused before the table is read any further: the message says where each value came from.
  validateRetention(settings);
  return settings;
}

interface PlannedExpiry {
  generation: Generation;
  plan: ExpirePlan;
  /** Raw bytes of the snapshot files to copy into changelog/ (decoupled only). */
  snapshotBytes: Map<number, Buffer>;
}

async function makePlan(r: TableMaintenanceReader, s: ExpireSettings): Promise<PlannedExpiry | null> {
  const snapshotManager = r.table.snapshotManager();
  const generation = await readGeneration(r);
  let minConsumer: number | null = null;
  for (const v of generation.consumers.values()) minConsumer = minConsumer === null ? v : Math.min(minConsumer, v);
  const selection = await selectExpireRange(
    { ...s, earliestId: generation.earliestId, latestId: generation.latestId, minConsumerNextSnapshot: minConsumer },
    async (id) => (await r.trySnapshot(id))?.timeMillis ?? null,
  );
  if (selection === null) return null;
  if (selection.endExclusive <= selection.earliestId) {
    const hintMissing = (await readHint(r.table.fileIO, snapshotManager.snapshotDirectory(), EARLIEST)) === null;
    return { generation, plan: emptyExpirePlan(selection.earliestId, hintMissing), snapshotBytes: new Map() };
  }
  const snapshots: SnapshotLike[] = [];
  const snapshotBytes = new Map<number, Buffer>();
  for (let id = selection.earliestId; id <= selection.endExclusive; id++) {
    const path = snapshotManager.snapshotPath(id);
    const snap = await r.trySnapshot(id);
    if (snap === null) continue;
    snapshots.push(snap);
    if (s.changelogDecoupled && id < selection.endExclusive) {
      try {
        snapshotBytes.set(id, await r.table.fileIO.readFile(path));
      } catch {
        /* vanished meanwhile: nothing to preserve */
      }
    }
  }
  const tags = (await r.tags()).map((x) => x.snapshot);
  const plan = await planExpire(
    {
      earliestId: selection.earliestId,
      endExclusive: selection.endExclusive,
      snapshots,
      taggedSnapshots: tags,
      changelogDecoupled: s.changelogDecoupled,
      produceChangelog: s.produceChangelog,
    },
    r,
    r,
  );
  return { generation, plan, snapshotBytes };
}

const PIN_ASPECTS = { earliest: true, tags: true, consumers: true } as const;

async function checkPin(r: TableMaintenanceReader, pinned: Generation, phase: string, committed: boolean): Promise<void> {
  const now = await readGeneration(r);
  const changes = generationChanges(pinned, now, PIN_ASPECTS);
  if (now.latestId !== null && pinned.latestId !== null && now.latestId < pinned.latestId) {
    changes.push(`latest snapshot moved back from ${pinned.latestId} to ${now.latestId} (a rollback?)`);
  }
  if (changes.length > 0) {
    throw new ProcedureError(
      'CONCURRENT_MODIFICATION',
      `expire_snapshots on ${r.table.identifier} stopped before ${phase}: ${changes.join('; ')}. ` +
        (committed ? 'Files of the expired range were partly deleted; rerun the call to finish.' : 'Nothing was changed.'),
      { committed },
    );
  }
}

export async function runExpireSnapshots(args: ExpireSnapshotsArgs, ctx: ProcedureContext): Promise<ProcedureResult> {
  const t = await ctx.resolveTable(args.table);
  const r = t.maintenanceReader();
  const snapshots = t.snapshotManager();
  const changelogs = t.changelogManager();
  const settings = expireSettings(args, t.schema.options, ctx.clock.now());
  const dryRun = args.dry_run;

  // Plan, then confirm the pin still holds; replan a few times if tags/consumers moved meanwhile.
  let planned: PlannedExpiry | null = null;
  for (let attempt = 1; ; attempt++) {
    ctx.throwIfAborted();
    ctx.progress({ phase: 'plan', message: `attempt ${attempt}` });
    planned = await makePlan(r, settings);
    if (planned === null) break;
    const now = await readGeneration(r);
    const changes = generationChanges(planned.generation, now, PIN_ASPECTS);
    if (changes.length === 0) break;
    if (attempt >= PLAN_ATTEMPTS) {
      throw new ProcedureError(
        'CONCURRENT_MODIFICATION',
        `expire_snapshots on ${t.identifier}: the table's tags or consumers kept changing while planning (${changes.join('; ')}). Nothing was changed.`,
      );
    }
    ctx.logger.info({ table: t.identifier, changes }, 'expire_snapshots: generation moved while planning, replanning');
  }

  const tally = new DeletionTally();
  const pinnedId = planned?.generation.latestId ?? null;
  if (planned === null) return result(0, false, pinnedId, [], tally, dryRun, []);
  const { plan, generation } = planned;
  for (const w of plan.warnings) ctx.warn(`expire_snapshots: ${w}`);

  if (plan.snapshotIds.length === 0 && plan.dataFiles.length === 0 && plan.changelogFiles.length === 0) {
    let changed = false;
    if (plan.earliestHint !== null && !dryRun) {
      await snapshots.commitEarliestHint(plan.earliestHint); // Paimon writes the missing hint too
      changed = true;
    }
    return result(0, changed, pinnedId, [], tally, dryRun, plan.warnings);
  }

  const concurrency = ctx.limits.delete_concurrency;
  let committed = false;
  const phase = async (name: string, files: Parameters<typeof deleteFiles>[1]): Promise<void> => {
    if (files.length === 0) return;
    if (!dryRun) await checkPin(r, generation, `deleting ${name}`, committed);
    ctx.throwIfAborted();
    ctx.progress({ phase: `delete ${name}`, done: 0, total: files.length });
    if (!dryRun && !committed) {
      committed = true;
      ctx.markCommitted();
    }
    await deleteFiles(t.fileIO, files, tally, {
      concurrency,
      dryRun,
      signal: ctx.signal,
      onProgress: (done, total) => ctx.progress({ phase: `delete ${name}`, done, total }),
    });
  };

  // 1-2. data files, then changelog files
  await phase('data files', plan.dataFiles);
  await phase('changelog files', plan.changelogFiles);
  // 3. manifests, index and statistics files (only if the end snapshot still exists)
  if (plan.snapshotIds.length > 0) {
    if (!dryRun && !(await t.fileIO.exists(snapshots.snapshotPath(plan.endExclusive)))) {
      ctx.warn(`expire_snapshots: snapshot ${plan.endExclusive} disappeared (another expirer?); metadata and snapshot files left to it`);
      return result(0, committed, pinnedId, [], tally, dryRun, plan.warnings);
    }
    if (plan.metadataFiles !== null) {
      // Files named inside a list before the list itself, so that a rerun after a crash can
      // still find (through the surviving list) everything left to delete.
      const inner = plan.metadataFiles.filter((f) => f.kind === 'manifest' || f.kind === 'index');
      const outer = plan.metadataFiles.filter((f) => f.kind !== 'manifest' && f.kind !== 'index');
      await phase('manifests and index files', inner);
      await phase('manifest lists, index manifests and statistics', outer);
    }
  }
  // 4. snapshot files, ascending; decoupled: keep each as a long-lived changelog first
  if (plan.snapshotIds.length > 0) {
    if (!dryRun) await checkPin(r, generation, 'deleting snapshot files', committed);
    ctx.throwIfAborted();
    if (!dryRun && !committed) {
      committed = true;
      ctx.markCommitted();
    }
    let done = 0;
    for (const id of plan.snapshotIds) {
      ctx.throwIfAborted();
      const path = snapshots.snapshotPath(id);
      if (dryRun) {
        const st = await t.fileIO.getStatus(path);
        if (st !== null) tally.add('snapshot', st.size);
      } else {
        if (plan.writeLongLivedChangelogs) {
          const bytes = planned.snapshotBytes.get(id);
          if (bytes !== undefined) {
            await t.fileIO.writeFile(changelogs.longLivedChangelogPath(id), bytes);
            await commitHint(t.fileIO, changelogs.changelogDirectory(), LATEST, id);
          }
        }
        const st = await t.fileIO.getStatus(path);
        if (await t.fileIO.delete(path)) tally.add('snapshot', st?.size ?? 0);
      }
      if (++done % 100 === 0) ctx.progress({ phase: 'delete snapshot files', done, total: plan.snapshotIds.length });
    }
  }
  // 5. EARLIEST hint
  if (!dryRun && plan.earliestHint !== null) {
    ctx.progress({ phase: 'commit', message: `EARLIEST hint ${plan.earliestHint}` });
    await snapshots.commitEarliestHint(plan.earliestHint);
  }
  if (!dryRun) ctx.reportAffected(t.identifier);
  return result(plan.snapshotIds.length, !dryRun && committed, pinnedId, plan.snapshotIds, tally, dryRun, plan.warnings);
}

function result(
  count: number,
  changed: boolean,
  pinned: number | null,
  ids: readonly number[],
  tally: DeletionTally,
  dryRun: boolean,
  warnings: readonly string[],
): ProcedureResult {
  return {
    rows: [
      {
        deleted_snapshots_count: count,
        changed,
        dry_run: dryRun,
        pinned_snapshot_id: pinned,
        expired_snapshot_ids: compactIdRanges(ids),
        deleted_files: tally.files,
        deleted_bytes: tally.bytes,
        deleted_by_kind: tally.toJson(),
        warnings: warnings.length,
      },
    ],
    info: `${dryRun ? 'would expire' : 'expired'} ${count} snapshot(s), ${tally.files} file(s)`,
  };
}

export const expireSnapshots = defineProcedure({
  name: 'expire_snapshots',
  description:
    "Expire old snapshots of a table (Paimon's ExpireSnapshotsImpl): keeps the newest retain_min, drops anything older than the newest retain_max, keeps snapshots within the time window, at most max_deletes per call; tagged snapshots and consumer positions are protected. With a decoupled changelog lifecycle (changelog.num-retained.* or changelog.time-retained keeping more than the snapshots), each expired snapshot stays as a long-lived changelog/changelog-<id> with its changelog files, as Paimon's writer-side expiry keeps it.",
  params: [
    { name: 'table', type: 'string', required: true, description: "Table identifier 'db.tbl' or 'db.tbl$branch_<name>'." },
    { name: 'retain_max', type: 'int', description: 'Maximum number of snapshots to keep (default: the table option snapshot.num-retained.max; no limit when unset).' },
    { name: 'retain_min', type: 'int', description: 'Minimum number of snapshots to keep, at least 1 (default: the table option snapshot.num-retained.min; 10 when unset).' },
    {
      name: 'older_than',
      type: 'string',
      description: "Only expire snapshots whose successor was committed before this time ('yyyy-MM-dd HH:mm:ss', proxy local time); default now - the table option snapshot.time-retained (1 h when unset).",
    },
    { name: 'max_deletes', type: 'int', description: 'At most this many snapshots per call (default: the table option snapshot.expire.limit; 50 when unset).' },
    { name: 'options', type: 'string', description: "Dynamic table options for this call, 'k1=v1,k2=v2'." },
    { name: 'dry_run', type: 'boolean', default: false, description: 'Plan only: report what would be deleted, change nothing.' },
  ],
  resultColumns: [
    { name: 'deleted_snapshots_count', type: 'int', description: "Number of snapshots expired (Paimon's result)." },
    { name: 'changed', type: 'boolean', description: 'Whether anything on disk changed.' },
    { name: 'dry_run', type: 'boolean', description: 'Whether this was a dry run.' },
    { name: 'pinned_snapshot_id', type: 'bigint', description: 'Latest snapshot id when the plan was made.' },
    { name: 'expired_snapshot_ids', type: 'string', description: "Expired snapshot ids as ranges, e.g. '1-40'." },
    { name: 'deleted_files', type: 'bigint', description: 'Files deleted (or that would be deleted).' },
    { name: 'deleted_bytes', type: 'bigint', description: 'Bytes of those files.' },
    { name: 'deleted_by_kind', type: 'json', description: 'Files and bytes per kind (data, changelog, manifest, manifest_list, index, index_manifest, statistics, snapshot).' },
    { name: 'warnings', type: 'int', description: 'Number of cleaning steps skipped to stay safe (details in SHOW WARNINGS).' },
  ],
  privilege: { privilege: 'ALTER', on: 'table' },
  destructive: true,
  run: (args, ctx) => runExpireSnapshots(args, ctx),
});
