/**
 * What Paimon's TableCommitImpl runs after a commit of new data or a compaction
 * (`TableCommitImpl.maintain`), in its order: the table's automatic tag creation (TagAutoCreation:
 * the period tags due, then auto-created tags beyond `tag.num-retained-max`) and the expiry of
 * tags whose `time_retained` passed, partition expiry when `partition.expiration-time` is set,
 * consumer expiry when `consumer.expiration-time` is set, snapshot expiry by the table's
 * `snapshot.num-retained.*`, `snapshot.time-retained` and `snapshot.expire.limit`, and, when the
 * changelog lifecycle is decoupled, changelog expiry by `changelog.num-retained.*` and
 * `changelog.time-retained` (`newExpireRunnable`). A table (or the call's dynamic options) with
 * `write-only = true` runs none of it, as Java builds no maintenance for such a table.
 *
 * `expire: false` is Paimon's `maintain(..., doExpire = false)`, which `rollbackToAsLatest` uses:
 * only TagAutoCreation runs, so that nothing the rollback promises to keep expires. Paimon's other
 * committing paths that our procedures mirror run no maintenance at all (compact_manifest:
 * `TableCommitImpl.compactManifests`; merge_branch: `BranchMergeHandler` commits through
 * FileStoreCommit; expire_partitions: `FileStoreCommit.dropPartitions`), and neither do ours.
 *
 * Each step is the procedure a user could call, with no arguments but the table (and the table's
 * retention), so it plans, pins and deletes exactly as that procedure does. Unlike Java, where an
 * error here surfaces as the commit's error after the commit already happened, a failing step is
 * reported as a warning and in the summary, and the later steps still run: the commit stands
 * either way. A KILL stops the remaining steps.
 */
import { runTagAutoManager } from '../tags/trigger-tag-automatic-creation.js';
import { runExpireChangelogs } from '../changelogs/expire-changelogs.js';
import { runExpirePartitions } from '../partitions/expire-partitions.js';
import { runExpireSnapshots } from '../snapshots/expire-snapshots.js';
import type { ProcedureContext } from '../framework/context.js';
import { toProcedureError } from '../framework/errors.js';
import type { ProcedureResult, ResultRow } from '../framework/result.js';
import { CoreOptions } from '../../src/paimon/spec/core-options.js';

/** What the maintenance did, for the committing procedure's result. */
export interface CommitMaintenance {
  created_tags: string[];
  expired_tags: string[];
  expired_partitions: string[];
  expired_consumers: string[];
  expired_snapshots: number;
  expired_changelogs: number;
  /** `<step>: <code> <message>` of each step that failed. */
  errors: string[];
  /** Why nothing ran, when that is the case (write-only). */
  skipped?: string;
  /** False when only the automatic tag creation ran (after rollback_to_as_latest, as Paimon's commit does). */
  expire: boolean;
}

function firstRow(r: ProcedureResult): ResultRow | undefined {
  return r.rows[0];
}

/**
 * Run the post-commit maintenance on `table` (the identifier the call resolved, branch included),
 * with the call's dynamic options over the table's; `expire: false` runs only the automatic tag
 * creation.
 */
export async function runCommitMaintenance(
  ctx: ProcedureContext,
  table: string,
  dynamicOptions: Readonly<Record<string, string>>,
  { expire = true }: { expire?: boolean } = {},
): Promise<CommitMaintenance> {
  const out: CommitMaintenance = { created_tags: [], expired_tags: [], expired_partitions: [], expired_consumers: [], expired_snapshots: 0, expired_changelogs: 0, errors: [], expire };
  const t = await ctx.resolveTable(table);
  const options = new CoreOptions({ ...t.schema.options, ...dynamicOptions }, t.schema.primaryKeys.length > 0);
  if (options.writeOnly()) {
    out.skipped = 'write-only';
    return out;
  }
  const step = async (name: string, run: () => Promise<void>): Promise<void> => {
    ctx.throwIfAborted();
    ctx.progress({ phase: `after commit: ${name}` });
    try {
      await run();
    } catch (e) {
      if (ctx.signal.aborted) throw e;
      const pe = toProcedureError(e);
      out.errors.push(`${name}: ${pe.code} ${pe.message}`);
      ctx.warn(`after the commit, ${name} failed (${pe.code}): ${pe.message} The commit itself stands; run ${name} again.`);
    }
  };
  await step('trigger_tag_automatic_creation', async () => {
    const run = await runTagAutoManager(t, ctx, { dryRun: false, expire, dynamicOptions });
    out.created_tags.push(...run.created);
    out.expired_tags.push(...run.dropped, ...run.expired);
  });
  if (!expire) return out;
  if (options.get('partition.expiration-time') !== undefined && t.partitionKeys.length > 0) {
    await step('expire_partitions', async () => {
      const r = await runExpirePartitions(
        { table, expiration_time: null, timestamp_formatter: null, timestamp_pattern: null, expire_strategy: null, max_expires: null, options: null, dry_run: false },
        ctx,
      );
      for (const row of r.rows) if (row.expired_partitions !== undefined && row.expired_partitions !== 'No expired partitions.') out.expired_partitions.push(String(row.expired_partitions));
    });
  }
  const consumerExpiry = options.consumerExpirationTimeMs();
  if (consumerExpiry !== undefined) {
    // Before snapshot expiry: a stale consumer would hold snapshots back (Java's order).
    await step('consumer expiry', async () => {
      out.expired_consumers.push(...(await t.consumerManager().expire(ctx.clock.now() - consumerExpiry)));
    });
  }
  await step('expire_snapshots', async () => {
    const row = firstRow(await runExpireSnapshots({ table, retain_max: null, retain_min: null, older_than: null, max_deletes: null, options: null, dry_run: false }, ctx));
    out.expired_snapshots = Number(row?.deleted_snapshots_count ?? 0);
  });
  if (options.changelogLifecycleDecoupled()) {
    // ExpireConfig's changelog side: the changelog retention, snapshot.expire.limit as the cap.
    await step('expire_changelogs', async () => {
      const r = await runExpireChangelogs(
        {
          table,
          retain_max: options.changelogNumRetainMax(),
          retain_min: options.changelogNumRetainMin(),
          older_than: null,
          older_than_millis: ctx.clock.now() - options.changelogTimeRetainedMs(),
          max_deletes: options.snapshotExpireLimit(),
          delete_all: false,
          dry_run: false,
        },
        ctx,
      );
      out.expired_changelogs = Number(firstRow(r)?.deleted_changelogs_count ?? 0);
    });
  }
  return out;
}

/** One line for the committing procedure's OK info. */
export function describeMaintenance(m: CommitMaintenance): string {
  if (m.skipped !== undefined) return `no post-commit maintenance (${m.skipped})`;
  const parts = [
    m.created_tags.length > 0 ? `created tags ${m.created_tags.join(',')}` : null,
    m.expired_tags.length > 0 ? `expired tags ${m.expired_tags.join(',')}` : null,
    m.expired_partitions.length > 0 ? `expired ${m.expired_partitions.length} partition(s)` : null,
    m.expired_consumers.length > 0 ? `expired consumers ${m.expired_consumers.join(',')}` : null,
    m.expired_snapshots > 0 ? `expired ${m.expired_snapshots} snapshot(s)` : null,
    m.expired_changelogs > 0 ? `expired ${m.expired_changelogs} changelog(s)` : null,
    m.errors.length > 0 ? `${m.errors.length} step(s) failed` : null,
  ].filter((p): p is string => p !== null);
  return parts.length === 0 ? 'post-commit maintenance: nothing to do' : `post-commit maintenance: ${parts.join('; ')}`;
}
