/**
 * `compact(table, partitions, compact_strategy, order_strategy, order_by, where, options,
 * partition_idle_time, buckets)` in Spark's positional order (Flink's names are accepted as
 * aliases where they differ), plus our `dry_run`. Runs src/paimon/compact/compact-table.ts on
 * the resolved table branch and commits one COMPACT snapshot planned from the pinned latest
 * snapshot (a concurrent writer that touched the same files makes it a COMMIT_CONFLICT and the
 * table is unchanged).
 *
 * With `order_strategy` 'order' | 'zorder' | 'hilbert' it is a sort compaction
 * (src/paimon/compact/sort-compaction.ts, Spark's `sortCompactUnAwareBucketTable`): every
 * selected partition of an unaware-bucket append table is read, sorted by the strategy's key
 * (Paimon's ZIndexer / HilbertIndexer bytes, or the ascending NULLS FIRST order of the columns)
 * and rewritten, committed as one OVERWRITE snapshot of exactly those partitions; the files
 * deleted are those of the pinned snapshot, so rows appended concurrently are kept.
 *
 * Validation follows Spark's `CompactProcedure` (messages quoted from it where it has them):
 * the strategy is 'full' | 'minor'; `partitions` and `where` are exclusive; `where` may only
 * reference partition columns; `order_by` needs a sort strategy and vice versa; `buckets` only on
 * fixed-bucket tables, in range, and never with a sort strategy; a sort compaction needs an
 * unaware-bucket append table (UNSUPPORTED_TABLE otherwise), order_by columns that exist
 * (COLUMN_NOT_FOUND), are not partition columns and have atomic types, and at least two columns
 * for 'hilbert'. */
import { parseDuration } from '../../src/paimon/spec/core-options.js';
import { compactTable } from '../../src/paimon/compact/compact-table.js';
import { sortCompactTable, checkSortCompactable, type SortCompactResult } from '../../src/paimon/compact/sort-compaction.js';
import type { SortStrategy } from '../../src/paimon/compact/sort-key.js';
import { parsePartitionPredicate, parsePartitionsArgument, parseBucketsArgument } from '../../src/paimon/compact/partition-predicate.js';
import type { FileStoreTable } from '../../src/paimon/table/file-store-table.js';
import { ProcedureError } from '../framework/errors.js';
import type { ProcedureContext } from '../framework/context.js';
import { describeMaintenance, runCommitMaintenance, type CommitMaintenance } from '../maintenance/after-commit.js';
import { defineProcedure } from '../framework/registry.js';
import type { ProcedureResult } from '../framework/result.js';
import { parseOptions } from '../framework/time-args.js';
import { bounded, quote } from '../framework/quote.js';
import { didYouMean, type Candidate } from '../framework/suggest.js';

export interface CompactArgs {
  table: string;
  partitions: string | null;
  compact_strategy: string | null;
  order_strategy: string | null;
  order_by: string | null;
  where: string | null;
  options: string | null;
  partition_idle_time: string | null;
  buckets: string | null;
  dry_run: boolean;
}

const blank = (s: string | null): boolean => s === null || s.trim() === '';
const choices = (names: readonly string[]): Candidate[] => names.map((name) => ({ name, canonical: name }));

export async function runCompact(args: CompactArgs, ctx: ProcedureContext): Promise<ProcedureResult> {
  const strategy = blank(args.compact_strategy) ? 'full' : args.compact_strategy!.trim().toLowerCase();
  if (strategy !== 'full' && strategy !== 'minor') {
    throw new ProcedureError('INVALID_ARGUMENT', `The compact strategy only supports 'full' or 'minor', but compact_strategy => ${quote(args.compact_strategy!)} was given.${didYouMean(strategy, choices(['full', 'minor']))}`);
  }
  const orderStrategy = blank(args.order_strategy) ? 'none' : args.order_strategy!.trim().toLowerCase();
  if (!['none', 'order', 'zorder', 'hilbert'].includes(orderStrategy)) {
    // CoreOptions.OrderType.of
    throw new ProcedureError('INVALID_ARGUMENT', `cannot match type: ${quote(args.order_strategy!)} for ordering (order_strategy is one of none, order, zorder, hilbert).${didYouMean(orderStrategy, choices(['none', 'order', 'zorder', 'hilbert']))}`);
  }
  const orderBy = blank(args.order_by) ? [] : args.order_by!.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (orderStrategy === 'none' && orderBy.length > 0) throw new ProcedureError('INVALID_ARGUMENT', `order_strategy "none" (the default) cannot work with order_by columns; pass order_strategy => 'order', 'zorder' or 'hilbert', or leave order_by out.`);
  if (orderStrategy !== 'none' && orderBy.length === 0) throw new ProcedureError('INVALID_ARGUMENT', `order column could not be empty (order_strategy => '${orderStrategy}' needs order_by columns, e.g. order_by => 'a,b').`);
  if (orderStrategy !== 'none' && !blank(args.partition_idle_time)) throw new ProcedureError('INVALID_ARGUMENT', `sort compact (order_strategy => '${orderStrategy}') does not support partition_idle_time.`);
  if (!blank(args.partitions) && !blank(args.where)) throw new ProcedureError('INVALID_ARGUMENT', 'partitions and where cannot be used together.');
  if (orderStrategy !== 'none' && !blank(args.buckets)) throw new ProcedureError('INVALID_ARGUMENT', `Specifying buckets is not supported for sort compact (order_strategy => '${orderStrategy}').`);
  const idleMs = blank(args.partition_idle_time) ? null : parseDuration(args.partition_idle_time!.trim(), 'partition_idle_time');
  const dynamicOptions = parseOptions(args.options);

  const t = await ctx.resolveTable(args.table);
  const schema = t.schema;
  const partitionKeys = schema.partitionKeys;

  let filter: ((spec: ReadonlyArray<readonly [string, string]>) => boolean) | null = null;
  if (!blank(args.partitions)) {
    if (partitionKeys.length === 0) throw new ProcedureError('INVALID_ARGUMENT', 'Table should be a partitioned table when using partition predicate.');
    filter = parsePartitionsArgument(args.partitions!, partitionKeys);
  } else if (!blank(args.where)) {
    filter = parsePartitionPredicate(args.where!, partitionKeys);
  }
  const options = { ...schema.options, ...dynamicOptions };
  const bucketNum = Number(options['bucket'] ?? '-1');
  let buckets: Set<number> | null = null;
  if (!blank(args.buckets)) {
    if (!(bucketNum > 0)) throw new ProcedureError('INVALID_ARGUMENT', `'buckets' is only supported for fixed-bucket tables, but ${t.identifier} has bucket = ${bucketNum}.`);
    buckets = parseBucketsArgument(args.buckets!, bucketNum);
  }
  if (orderStrategy !== 'none') {
    // Spark checks the partition columns first, then the table kind, then the columns (TableSorter).
    if (orderBy.some((c) => partitionKeys.includes(c))) {
      throw new ProcedureError(
        'INVALID_ARGUMENT',
        `order_by should not contain partition cols, because it is meaningless, your order_by cols are [${bounded(orderBy.join(', '))}], and partition cols are [${partitionKeys.join(', ')}]`,
      );
    }
    if (schema.primaryKeys.length > 0 || bucketNum !== -1) {
      throw new ProcedureError(
        'UNSUPPORTED_TABLE',
        `compact with order_strategy => '${orderStrategy}' only supports unaware-bucket append-only tables; ${t.identifier} is a ${schema.primaryKeys.length > 0 ? 'primary-key' : 'fixed-bucket append'} table (bucket = ${bucketNum}).`,
      );
    }
    const missing = orderBy.find((c) => !schema.fields.some((f) => f.name === c));
    if (missing !== undefined) {
      throw new ProcedureError('COLUMN_NOT_FOUND', `Can't find order_by column ${quote(missing)} in table columns.${didYouMean(missing, schema.fields.map((f) => ({ name: f.name, canonical: f.name })))} Possible columns are [${schema.fields.map((f) => f.name).join(',')}]`);
    }
    // The remaining table checks (types, hilbert arity, clustering, formats) raise PaimonErrors.
    checkSortCompactable(t.identifier, schema, options, orderStrategy as SortStrategy, orderBy);
    return runSortCompact(args, ctx, t, orderStrategy as SortStrategy, orderBy, filter, dynamicOptions);
  }

  const r = await runCompaction(ctx, t, ({ signal, onPoint }) =>
    compactTable({
      fileIO: t.fileIO,
      tablePath: t.location,
      branch: t.branch,
      table: t.identifier,
      strategy,
      dynamicOptions,
      partitionFilter: filter,
      buckets,
      partitionIdleTimeMs: idleMs,
      memoryBudgetBytes: ctx.limits.compact_memory_budget_mb * 1024 * 1024,
      concurrency: ctx.limits.compact_concurrency,
      compactable: { variant: ctx.limits.compact_variant_tables },
      dryRun: args.dry_run,
      signal,
      onPoint,
      now: () => ctx.clock.now(),
      onProgress: (p) => ctx.progress({ phase: 'compact', done: p.bucketsDone, total: p.bucketsTotal, message: `rows read ${p.rowsRead}, written ${p.rowsWritten}, bytes written ${p.bytesWritten}` }),
    }),
  );
  return compactResult(args, r, r.buckets, r.filesUpgraded, `committed snapshot ${r.committedSnapshotId}`, await afterCommit(ctx, args, r, dynamicOptions));
}

/** TableCommitImpl's maintenance after a committed compaction (procedures/maintenance/after-commit.ts); null when nothing was committed. */
async function afterCommit(ctx: ProcedureContext, args: CompactArgs, r: { committedSnapshotId: number | null }, dynamicOptions: Record<string, string>): Promise<CommitMaintenance | null> {
  if (args.dry_run || r.committedSnapshotId === null) return null;
  return runCommitMaintenance(ctx, args.table, dynamicOptions);
}

async function runSortCompact(
  args: CompactArgs,
  ctx: ProcedureContext,
  t: FileStoreTable,
  strategy: SortStrategy,
  orderBy: string[],
  filter: ((spec: ReadonlyArray<readonly [string, string]>) => boolean) | null,
  dynamicOptions: Record<string, string>,
): Promise<ProcedureResult> {
  const r = await runCompaction(ctx, t, ({ signal, onPoint }) =>
    sortCompactTable({
      fileIO: t.fileIO,
      tablePath: t.location,
      branch: t.branch,
      table: t.identifier,
      strategy,
      orderBy,
      dynamicOptions,
      partitionFilter: filter,
      dryRun: args.dry_run,
      signal,
      onPoint,
      onProgress: (p) => ctx.progress({ phase: 'sort', done: p.partitionsDone, total: p.partitionsTotal, message: `rows read ${p.rowsRead}, written ${p.rowsWritten}, bytes written ${p.bytesWritten}` }),
    }),
  );
  // An unaware-bucket table has one bucket (0) per partition; sort compaction upgrades nothing.
  return compactResult(
    args,
    r,
    r.partitions,
    0,
    `sort compaction (${strategy} by ${orderBy.join(', ')}): committed OVERWRITE snapshot ${r.committedSnapshotId}`,
    await afterCommit(ctx, args, r, dynamicOptions),
  );
}

/** The result row: Paimon's `result`, then what was compacted and committed. */
function compactResult(args: CompactArgs, r: SortCompactResult, buckets: number, filesUpgraded: number, committed: string, maintenance: CommitMaintenance | null): ProcedureResult {
  return {
    rows: [
      {
        result: true,
        partitions_compacted: r.partitions,
        buckets_compacted: buckets,
        files_before: r.filesBefore,
        files_after: r.filesAfter,
        files_upgraded: filesUpgraded,
        bytes_before: r.bytesBefore,
        bytes_after: r.bytesAfter,
        rows_read: r.rowsRead,
        rows_written: r.rowsWritten,
        snapshot_id: r.committedSnapshotId,
        pinned_snapshot_id: r.baseSnapshotId,
        dry_run: args.dry_run,
        message: r.skippedReason,
        maintenance: maintenance === null ? null : JSON.stringify(maintenance),
      },
    ],
    info: r.skippedReason ?? (args.dry_run ? 'dry run: nothing committed' : maintenance === null ? committed : `${committed}; ${describeMaintenance(maintenance)}`),
  };
}

/**
 * One compaction inside the call: the library gets an abort signal tied to the call's and reports
 * its commit phase at 'before-commit'; a committed snapshot marks the call committed and the table
 * affected; a cancellation surfaces as the call's own abort error.
 */
async function runCompaction<R extends { committedSnapshotId: number | null }>(
  ctx: ProcedureContext,
  t: FileStoreTable,
  run: (hooks: { signal: AbortSignal; onPoint: (point: string) => void }) => Promise<R>,
): Promise<R> {
  ctx.progress({ phase: 'plan' });
  const ac = new AbortController();
  const onAbort = (): void => ac.abort(ctx.signal.reason);
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  try {
    const r = await run({
      signal: ac.signal,
      onPoint: (point) => {
        if (point === 'before-commit') ctx.progress({ phase: 'commit' });
      },
    });
    if (r.committedSnapshotId !== null) {
      ctx.markCommitted();
      ctx.reportAffected(t.identifier);
    }
    ctx.throwIfAborted();
    return r;
  } catch (e) {
    if (ctx.signal.aborted) ctx.throwIfAborted();
    throw e;
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
  }
}

export const compact = defineProcedure({
  name: 'compact',
  description:
    "Compact a table: merge the files of each bucket (primary-key tables: with the merge engine, to the top level for a full compaction; append tables: small files), committed as one COMPACT snapshot; then, unless the table or the call's options say write-only, what Paimon's commit runs after it, by the table's options (automatic tag creation and tag expiry, partition expiry, consumer expiry, snapshot expiry). With order_strategy order/zorder/hilbert: sort compaction of an unaware-bucket append table, the selected partitions rewritten sorted (Paimon's z-order / Hilbert keys) and committed as one OVERWRITE snapshot of those partitions.",
  params: [
    { name: 'table', type: 'string', required: true, description: "Table identifier 'db.tbl' or 'db.tbl$branch_<name>'." },
    { name: 'partitions', type: 'string', description: "Partitions to compact: 'p=v,q=w;p=v2' (',' = AND, ';' = OR). Exclusive with where." },
    { name: 'compact_strategy', type: 'string', description: "'full' (default) or 'minor' (Paimon's universal compaction picking)." },
    { name: 'order_strategy', type: 'string', description: "'none' (default), or a sort compaction of an unaware-bucket append table: 'order' (ascending, NULLS FIRST), 'zorder' (Paimon's ZIndexer; 'zorder.var-length-contribution' bytes per string), 'hilbert' (HilbertIndexer, at least two columns)." },
    { name: 'order_by', type: 'string', description: "Sort columns of a sort compaction: 'a,b' (atomic-typed, not partition columns)." },
    { name: 'where', type: 'string', description: "Predicate on partition columns only, in MySQL's syntax: =, <>, !=, <, <=, >, >=, [NOT] IN, [NOT] BETWEEN, IS [NOT] NULL, AND, OR, NOT, parentheses; quoted strings, numbers, TRUE/FALSE." },
    { name: 'options', type: 'string', description: "Dynamic table options for this call: 'k1=v1,k2=v2' (e.g. target-file-size)." },
    { name: 'partition_idle_time', type: 'string', description: "Only partitions without new files for this long (e.g. '1 d'), with a full compaction." },
    { name: 'buckets', type: 'string', description: "Buckets of a fixed-bucket table: '0,3-5'." },
    { name: 'dry_run', type: 'boolean', default: false, description: 'Plan only: report what would be compacted, write and commit nothing.' },
  ],
  resultColumns: [
    { name: 'result', type: 'boolean', description: "Paimon's result: true (also when nothing needed compacting)." },
    { name: 'partitions_compacted', type: 'bigint', description: 'Partitions with at least one compacted bucket.' },
    { name: 'buckets_compacted', type: 'bigint', description: 'Buckets whose files changed.' },
    { name: 'files_before', type: 'bigint', description: 'Data files removed from the view (compacted or upgraded).' },
    { name: 'files_after', type: 'bigint', description: 'Data files added (written or upgraded).' },
    { name: 'files_upgraded', type: 'bigint', description: 'Files moved to the output level without a rewrite.' },
    { name: 'bytes_before', type: 'bigint', description: 'Bytes of files_before.' },
    { name: 'bytes_after', type: 'bigint', description: 'Bytes of files_after.' },
    { name: 'rows_read', type: 'bigint', description: 'Records read from rewritten files.' },
    { name: 'rows_written', type: 'bigint', description: 'Records written.' },
    { name: 'snapshot_id', type: 'bigint', description: 'The COMPACT snapshot committed (null when nothing was committed).' },
    { name: 'pinned_snapshot_id', type: 'bigint', description: 'Latest snapshot the compaction was planned from.' },
    { name: 'dry_run', type: 'boolean', description: 'Whether this was a dry run.' },
    { name: 'message', type: 'string', description: 'Why nothing was compacted, when that is the case.' },
    {
      name: 'maintenance',
      type: 'json',
      description:
        "What ran after the commit, as Paimon's commit runs it (unless write-only): tags created and expired, partitions, consumers and snapshots expired, failed steps; null when nothing was committed.",
    },
  ],
  privilege: { privilege: 'ALTER', on: 'table' },
  destructive: false,
  heavy: true,
  run: (args, ctx) => runCompact(args, ctx),
});
