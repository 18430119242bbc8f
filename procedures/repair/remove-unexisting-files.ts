/**
 * `remove_unexisting_files(table, dry_run, parallelism)` (Spark's and Flink's
 * `RemoveUnexistingFilesProcedure`, Paimon 1.1+): the repair after a data file was deleted by hand
 * (or lost by a writer that restarted from an old savepoint, see `RemoveUnexistingFilesAction`):
 * the data files of the latest snapshot that do not exist are removed from the table by one APPEND
 * commit of their DELETE entries (src/paimon/repair/unexisting-files.ts). One row per file, Spark's
 * `fileName` (the full path); with `dry_run => true` the same rows and nothing committed.
 *
 * The rows those files held are lost (Paimon documents the procedure as "on your own risk"); the
 * table becomes readable again. The plan is pinned to the latest snapshot: if another commit lands
 * between listing and committing, nothing is committed (CONCURRENT_MODIFICATION; call again).
 */
import type { Snapshot } from '../../src/paimon/spec/snapshot.js';
import { commitUnexistingFileRemoval, listUnexistingFiles } from '../../src/paimon/repair/unexisting-files.js';
import { ProcedureError } from '../framework/errors.js';
import { defineProcedure } from '../framework/registry.js';

export const removeUnexistingFiles = defineProcedure({
  name: 'remove_unexisting_files',
  description:
    "Remove from the latest snapshot the data files that no longer exist (Paimon's remove_unexisting_files: one commit of their DELETE entries; the rows they held are lost, the table is readable again). One row per file removed; dry_run lists them.",
  params: [
    { name: 'table', type: 'string', required: true, description: "Table identifier 'db.tbl' or 'db.tbl$branch_<name>'." },
    { name: 'dry_run', type: 'boolean', default: false, description: "List the missing files only; commit nothing (Paimon's default is false too)." },
    { name: 'parallelism', type: 'int', description: 'How many existence checks run at once (default 16).' },
  ],
  resultColumns: [
    { name: 'fileName', type: 'string', description: "Full path of a data file that is missing (Spark's column)." },
    { name: 'partition', type: 'string', description: 'Its partition directory (empty for an unpartitioned table).' },
    { name: 'bucket', type: 'int', description: 'Its bucket.' },
    { name: 'row_count', type: 'bigint', description: 'Rows the entry held (lost with it).' },
    { name: 'snapshot_id', type: 'bigint', description: 'The snapshot that removed the entries (null on a dry run).' },
    { name: 'pinned_snapshot_id', type: 'bigint', description: 'The latest snapshot the files were listed from.' },
  ],
  privilege: { privilege: 'ALTER', on: 'table' },
  destructive: true,
  run: async (args, ctx) => {
    const t = await ctx.resolveTable(args.table);
    if (args.parallelism !== null && args.parallelism < 1) throw new ProcedureError('INVALID_ARGUMENT', `parallelism must be at least 1, but ${args.parallelism} was given.`);
    ctx.progress({ phase: 'plan' });
    const pinned = await t.snapshotManager().latestSnapshot();
    if (pinned === null) return { rows: [], info: `${t.identifier} has no snapshot: nothing to remove` };
    const missing = await listUnexistingFiles(t, pinned, { signal: ctx.signal, ...(args.parallelism !== null ? { parallelism: args.parallelism } : {}) });
    ctx.throwIfAborted();
    let committed: Snapshot | null = null;
    if (!args.dry_run && missing.length > 0) {
      ctx.progress({ phase: 'commit', done: 0, total: missing.length });
      committed = await commitUnexistingFileRemoval(t, pinned, missing, async (latest) => {
        if ((latest?.id ?? null) !== pinned.id) {
          throw new ProcedureError('CONCURRENT_MODIFICATION', `latest snapshot of ${t.identifier} moved from ${pinned.id} to ${latest?.id ?? 'none'} while the missing files were listed; nothing was committed, call remove_unexisting_files again.`);
        }
      });
      ctx.markCommitted();
      ctx.reportAffected(t.identifier);
    }
    const rows = missing.map((m) => ({
      fileName: m.path,
      partition: t.pathFactory.relativeBucketPath(m.entry.partition, m.entry.bucket).split('/').slice(0, -1).join('/'),
      bucket: m.entry.bucket,
      row_count: m.entry.file.rowCount,
      snapshot_id: committed?.id ?? null,
      pinned_snapshot_id: pinned.id,
    }));
    const info =
      missing.length === 0
        ? `no data file of snapshot ${pinned.id} is missing: nothing to remove`
        : args.dry_run
          ? `dry run: ${missing.length} missing data file(s) would be removed; nothing committed`
          : `removed ${missing.length} missing data file(s) in snapshot ${committed!.id}`;
    return { rows, info };
  },
});
