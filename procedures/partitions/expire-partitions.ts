/**
 * `expire_partitions` (Spark/Flink ExpirePartitionsProcedure over core's PartitionExpire, see
 * src/paimon/partitions/partition-expire.ts): the partitions whose values-time or update-time is
 * older than `expiration_time` are dropped as Paimon drops them, by an OVERWRITE commit that
 * deletes every live file of them (one commit per `partition.expiration-batch-size` batch; one
 * in all by default). The data files stay on disk until the snapshots before the drop expire, as
 * in Paimon. One row per expired partition (`k1=v1, k2=v2`), or `No expired partitions.`.
 *
 * Differences from Paimon, in the safe direction:
 * - The plan is pinned to the latest snapshot: when the files of a partition being dropped
 *   change before the commit (a concurrent write or compaction in it), the call fails with
 *   CONCURRENT_MODIFICATION and commits nothing (Paimon re-reads the partitions at each commit
 *   attempt and drops the new files too). Commits to other partitions do not matter: the drop
 *   lands on top of them.
 * - `max_expires` below 1 is refused (Paimon fails inside the commit); a values-time partition
 *   whose value holds '$' or '\' is refused by name (Paimon fails with a regex error).
 * - The commit user is unique per call (Paimon's procedure commits as the empty user).
 *
 * With a metastore that keeps the table's partitions (a Hive catalog and
 * `metastore.partitioned-table`), each batch first drops its partitions there, except those that
 * other branches of the table still have, then commits the drop of their files, then drops their
 * `.done` partitions (HiveCatalog.dropPartitions as NormalPartitionExpire calls it; a rerun after
 * a failure in between finds the same partitions and finishes). Paimon then also commits a
 * truncation of the `.done` partitions, an OVERWRITE snapshot deleting nothing, since they hold no
 * files; we do not commit that empty snapshot.
 */
import { randomUUID } from 'node:crypto';
import { isPaimonError } from '../../src/paimon/errors.js';
import { mergeEntries } from '../../src/paimon/spec/file-entry.js';
import type { ManifestEntry } from '../../src/paimon/spec/manifest-entry.js';
import { LONG_MAX_VALUE, type Snapshot } from '../../src/paimon/spec/snapshot.js';
import type { IndexManifestEntry } from '../../src/paimon/table/index-manifest.js';
import type { FileStoreTable } from '../../src/paimon/table/file-store-table.js';
import {
  dropPartitionChanges,
  expireBatches,
  formatExpiredPartition,
  partitionEntriesOf,
  partitionExpireSettings,
  selectExpiredPartitions,
  type ExpiredPartition,
} from '../../src/paimon/partitions/partition-expire.js';
import { compileFormatter, formatLocalDateTime } from '../../src/paimon/partitions/partition-time-extractor.js';
import { ProcedureError } from '../framework/errors.js';
import type { ProcedureContext } from '../framework/context.js';
import { defineProcedure } from '../framework/registry.js';
import type { ProcedureResult, ResultRow } from '../framework/result.js';
import { parseOptions } from '../framework/time-args.js';
import { donePartition, metastorePartitionsOf, type MetastorePartitions, type PartitionValues } from '../../src/paimon/catalog/metastore-partitions.js';
import { FileStoreTable as Table } from '../../src/paimon/table/file-store-table.js';
import { otherBranches } from '../../src/paimon/tags/tag-lifecycle.js';

export interface ExpirePartitionsArgs {
  table: string;
  expiration_time: string | null;
  timestamp_formatter: string | null;
  timestamp_pattern: string | null;
  expire_strategy: string | null;
  max_expires: number | null;
  options: string | null;
  dry_run: boolean;
}

const MAX_WARNINGS = 20;

/** `ProcedureUtils.fillInPartitionOptions` over the table's options: arguments over `options` over the table. */
export function effectivePartitionOptions(args: ExpirePartitionsArgs, tableOptions: Readonly<Record<string, string>>): Record<string, string> {
  const opts: Record<string, string> = { ...tableOptions, ...parseOptions(args.options) };
  const put = (key: string, v: string | null): void => {
    if (v !== null && v.trim() !== '') opts[key] = v;
  };
  put('partition.expiration-strategy', args.expire_strategy);
  put('partition.timestamp-formatter', args.timestamp_formatter);
  put('partition.timestamp-pattern', args.timestamp_pattern);
  put('partition.expiration-time', args.expiration_time);
  put('partition.expiration-max-num', args.max_expires === null ? null : String(args.max_expires));
  return opts;
}

interface PlannedState {
  base: Snapshot;
  /** Every data-manifest entry of the base, unmerged. */
  live: Map<string, ManifestEntry>;
  index: IndexManifestEntry[];
}

/** Live partitions (by key) of `t`'s other branches among `keys`: HiveCatalog keeps those in the metastore. */
async function partitionsOfOtherBranches(t: FileStoreTable, keys: ReadonlySet<string>): Promise<Set<string>> {
  const found = new Set<string>();
  for (const branch of await otherBranches(t)) {
    const b = await Table.open(t.fileIO, t.location, { database: t.database, table: t.name, branch }).catch(() => null);
    const latest = b === null ? null : await b.snapshotManager().latestSnapshot();
    if (b === null || latest === null) continue;
    for (const e of (await readState(b, latest)).live.values()) if (keys.has(e.partition.key())) found.add(e.partition.key());
  }
  return found;
}

async function dropFromMetastore(metastore: MetastorePartitions, partitions: readonly PartitionValues[], what: string, t: FileStoreTable): Promise<number> {
  try {
    return await metastore.drop(partitions);
  } catch (e) {
    throw new ProcedureError('STORAGE_ERROR', `expire_partitions on ${t.identifier}: dropping ${what} in the metastore (${metastore.where}) failed: ${(e as Error).message}`, { cause: e });
  }
}

async function readState(t: FileStoreTable, snapshot: Snapshot): Promise<PlannedState & { entries: ManifestEntry[] }> {
  const scan = t.newScan();
  const entries: ManifestEntry[] = [];
  for await (const batch of scan.readEntries(await scan.dataManifests(snapshot))) for (const e of batch) entries.push(e);
  const live = mergeEntries(entries);
  for (const [k, e] of live) if (e.kind !== 'ADD') live.delete(k);
  const index = snapshot.indexManifest ? await t.indexManifestFile.read(snapshot.indexManifest) : [];
  return { base: snapshot, live, index, entries };
}

const fileSet = (entries: Iterable<{ file: { fileName: string } } | { indexFile: { fileName: string } }>): string[] =>
  [...entries].map((e) => ('file' in e ? e.file.fileName : e.indexFile.fileName)).sort();

/**
 * The pin of one batch, checked against every snapshot the commit is about to supersede: the
 * live files and index files of the batch's partitions must be the planned ones.
 */
function pinCheck(t: FileStoreTable, base: Snapshot, keys: ReadonlySet<string>, planned: { deltaEntries: ManifestEntry[]; indexEntries: IndexManifestEntry[] }, batchLabel: string) {
  const plannedFiles = fileSet(planned.deltaEntries).join('\n');
  const plannedIndex = fileSet(planned.indexEntries).join('\n');
  return async (latest: Snapshot | null): Promise<void> => {
    if (latest !== null && latest.id === base.id) return;
    const fail = (why: string): ProcedureError =>
      new ProcedureError(
        'CONCURRENT_MODIFICATION',
        `expire_partitions on ${t.identifier}: ${why} after the plan was made from snapshot ${base.id} (${batchLabel}). Nothing of this batch was committed; rerun the call.`,
      );
    if (latest === null || latest.id < base.id) throw fail(`the latest snapshot moved back to ${latest?.id ?? 'none'} (a rollback?)`);
    const now = await readState(t, latest);
    const bucket = Number(t.schema.options['bucket'] ?? '-1');
    const changes = dropPartitionChanges([...now.live.values()], now.index, keys, bucket);
    if (fileSet(changes.deltaEntries).join('\n') !== plannedFiles) throw fail(`the data files of the expired partitions changed in snapshot ${latest.id}`);
    if (fileSet(changes.indexEntries).join('\n') !== plannedIndex) throw fail(`the index files of the expired partitions changed in snapshot ${latest.id}`);
  };
}

function row(x: ExpiredPartition, committed: number | null, pinned: number, dryRun: boolean, strategy: string, files: number): ResultRow {
  return {
    expired_partitions: formatExpiredPartition(x.spec),
    partition: JSON.stringify(Object.fromEntries(x.spec)),
    strategy,
    partition_time: x.time === null ? null : formatLocalDateTime(x.time),
    data_files: files,
    record_count: x.entry.recordCount,
    file_size_bytes: x.entry.fileSizeInBytes,
    committed_snapshot_id: committed,
    pinned_snapshot_id: pinned,
    dry_run: dryRun,
  };
}

function noneRow(pinned: number | null, dryRun: boolean, strategy: string | null): ResultRow {
  return {
    expired_partitions: 'No expired partitions.',
    partition: null,
    strategy,
    partition_time: null,
    data_files: 0,
    record_count: 0n,
    file_size_bytes: 0n,
    committed_snapshot_id: null,
    pinned_snapshot_id: pinned,
    dry_run: dryRun,
  };
}

export async function runExpirePartitions(args: ExpirePartitionsArgs, ctx: ProcedureContext): Promise<ProcedureResult> {
  const t = await ctx.resolveTable(args.table);
  const settings = partitionExpireSettings(effectivePartitionOptions(args, t.schema.options), t.partitionKeys);
  if (settings.strategy === 'values-time' && settings.timestampFormatter !== null) {
    try {
      compileFormatter(settings.timestampFormatter);
    } catch (e) {
      // A pattern letter the extractor does not implement is a missing feature, not bad input.
      if (isPaimonError(e, 'UNSUPPORTED_FORMAT')) throw new ProcedureError('NOT_SUPPORTED', `${e.message} (or use expire_strategy => 'update-time')`, { cause: e });
      throw e;
    }
  }
  const dryRun = args.dry_run;
  ctx.progress({ phase: 'plan' });
  const latest = await t.snapshotManager().latestSnapshot();
  if (latest === null) return { rows: [noneRow(null, dryRun, settings.strategy)], info: 'no expired partitions (the table has no snapshot)' };
  const state = await readState(t, latest);
  const selection = selectExpiredPartitions(partitionEntriesOf(state.entries), t.partitionFields, settings, ctx.clock.now());
  for (const s of selection.skipped.slice(0, MAX_WARNINGS)) {
    const spec = formatExpiredPartition(s.spec);
    ctx.warn(
      s.reason === 'null-value'
        ? `expire_partitions: partition ${spec} cannot be expired because it contains a null value; drop it by hand or use expire_strategy => 'update-time'`
        : `expire_partitions: cannot extract a time from partition ${spec} ('${s.text}'); check partition.timestamp-formatter / partition.timestamp-pattern, or use expire_strategy => 'update-time'`,
    );
  }
  if (selection.skipped.length > MAX_WARNINGS) ctx.warn(`expire_partitions: ${selection.skipped.length - MAX_WARNINGS} more partitions skipped for the same reasons`);
  if (selection.expired.length === 0) return { rows: [noneRow(latest.id, dryRun, settings.strategy)], info: 'no expired partitions' };

  const bucket = Number(t.schema.options['bucket'] ?? '-1');
  const batches = expireBatches(selection.expired, settings.batchSize);
  const commitUser = `expire-partitions-${randomUUID()}`;
  const commit = t.newCommit(commitUser, { now: () => ctx.clock.now() });
  const rows: ResultRow[] = [];
  let base = state;
  let committedAny = false;
  // Other branches' partitions, read once for the whole call: this call's commits touch only its own branch.
  let keptByOtherBranches: Promise<Set<string>> | null = null;
  for (let b = 0; b < batches.length; b++) {
    ctx.throwIfAborted();
    const batch = batches[b];
    const keys = new Set(batch.map((x) => x.partition.key()));
    const changes = dropPartitionChanges([...base.live.values()], base.index, keys, bucket);
    const filesOf = (x: ExpiredPartition): number => changes.deltaEntries.filter((e) => e.partition.key() === x.partition.key()).length;
    if (dryRun) {
      for (const x of batch) rows.push(row(x, null, latest.id, true, settings.strategy, filesOf(x)));
      continue;
    }
    const label = batches.length === 1 ? 'one batch' : `batch ${b + 1} of ${batches.length}`;
    const metastore = metastorePartitionsOf(t.location);
    const metastoreKept = metastore !== null && metastore.keepsDataPartitions ? metastore : null;
    if (metastoreKept !== null) {
      const kept = await (keptByOtherBranches ??= partitionsOfOtherBranches(t, new Set(selection.expired.map((x) => x.partition.key()))));
      const drop = batch.filter((x) => !kept.has(x.partition.key())).map((x) => x.spec);
      ctx.progress({ phase: 'metastore', message: `dropping ${drop.length} partition(s)` });
      await dropFromMetastore(metastoreKept, drop, `${drop.length} partition(s) (${label})`, t);
    }
    ctx.progress({ phase: 'commit', done: b, total: batches.length, message: `${batch.length} partition(s), ${changes.deltaEntries.length} file(s)` });
    let committed: Snapshot;
    try {
      const r = await commit.commit({
        kind: 'OVERWRITE',
        deltaEntries: changes.deltaEntries,
        indexEntries: changes.indexEntries,
        commitIdentifier: LONG_MAX_VALUE,
        conflictCheck: pinCheck(t, base.base, keys, changes, label),
      });
      committed = r.snapshot;
    } catch (e) {
      const done = committedAny ? ` ${b} earlier batch(es) were committed.` : '';
      if (e instanceof ProcedureError) throw new ProcedureError(e.code, e.message + done, { committed: committedAny, cause: e });
      if (isPaimonError(e, 'COMMIT_CONFLICT')) {
        throw new ProcedureError('CONCURRENT_MODIFICATION', `expire_partitions on ${t.identifier}: ${e.message} (${label}). Nothing of this batch was committed; rerun the call.${done}`, {
          committed: committedAny,
          cause: e,
        });
      }
      throw e;
    }
    if (!committedAny) ctx.markCommitted();
    committedAny = true;
    if (metastoreKept !== null) await dropFromMetastore(metastoreKept, batch.map((x) => donePartition(x.spec)), `the .done partitions (${label})`, t);
    for (const x of batch) rows.push(row(x, committed.id, latest.id, false, settings.strategy, filesOf(x)));
    if (b + 1 < batches.length) base = await readState(t, committed);
  }
  if (committedAny) ctx.reportAffected(t.identifier);
  return { rows, info: `${dryRun ? 'would expire' : 'expired'} ${rows.length} partition(s)` };
}

export const expirePartitions = defineProcedure({
  name: 'expire_partitions',
  description:
    "Drop the partitions older than expiration_time as Paimon's PartitionExpire does: by the time in their values (values-time, with partition.timestamp-formatter / -pattern) or by their last file's creation time (update-time), at most max_expires, in one OVERWRITE commit deleting their files from the table (the files go when older snapshots expire). One row per expired partition, or 'No expired partitions.'.",
  params: [
    { name: 'table', type: 'string', required: true, description: "Table identifier 'db.tbl' or 'db.tbl$branch_<name>'." },
    { name: 'expiration_time', type: 'string', description: "How old a partition must be, e.g. '7 d' (default: the table option partition.expiration-time)." },
    { name: 'timestamp_formatter', type: 'string', description: "Java DateTimeFormatter pattern of the partition time, e.g. 'yyyyMMdd' (default: partition.timestamp-formatter, else 'yyyy-MM-dd[ HH:mm:ss]')." },
    { name: 'timestamp_pattern', type: 'string', description: "How the time is built from the partition values, e.g. '$dt $hour:00:00' (default: partition.timestamp-pattern, else the first value)." },
    { name: 'expire_strategy', type: 'string', description: "'values-time' (default) or 'update-time' (partition.expiration-strategy)." },
    { name: 'max_expires', type: 'int', description: 'At most this many partitions per call (default: partition.expiration-max-num, 100).' },
    { name: 'options', type: 'string', description: "Dynamic table options for this call, 'k1=v1,k2=v2'." },
    { name: 'dry_run', type: 'boolean', default: false, description: 'Plan only: list the partitions that would expire, commit nothing.' },
  ],
  resultColumns: [
    { name: 'expired_partitions', type: 'string', description: "An expired partition as 'k1=v1, k2=v2', or 'No expired partitions.' (Paimon's result)." },
    { name: 'partition', type: 'json', description: 'The partition as a JSON object of key to value.' },
    { name: 'strategy', type: 'string', description: 'The expiration strategy used.' },
    { name: 'partition_time', type: 'string', description: 'values-time: the time read from the values; update-time: the last file creation time (local wall clock).' },
    { name: 'data_files', type: 'bigint', description: 'Live data files the drop removes from the table.' },
    { name: 'record_count', type: 'bigint', description: "Rows of the partition's files (Paimon's partition entry)." },
    { name: 'file_size_bytes', type: 'bigint', description: "Bytes of the partition's files." },
    { name: 'committed_snapshot_id', type: 'bigint', description: 'The OVERWRITE snapshot that dropped it (null in a dry run).' },
    { name: 'pinned_snapshot_id', type: 'bigint', description: 'Latest snapshot id when the plan was made.' },
    { name: 'dry_run', type: 'boolean', description: 'Whether this was a dry run.' },
  ],
  privilege: { privilege: 'ALTER', on: 'table' },
  destructive: true,
  run: (args, ctx) => runExpirePartitions(args, ctx),
});

