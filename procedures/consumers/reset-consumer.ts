/**
 * `reset_consumer` (Spark/Flink ResetConsumerProcedure): with next_snapshot_id, point the
 * consumer at that snapshot (ConsumerManager.resetConsumer, creating the consumer if needed); the
 * snapshot must exist as a snapshot file, as Paimon checks with SnapshotManager.snapshot(id).
 * Without it, delete the consumer (ConsumerManager.deleteConsumer; a missing consumer is no error).
 *
 * Beyond Paimon: the result says what the consumer pointed at before, dry_run changes nothing,
 * and the snapshot is checked again after the write: if it expired in between, the consumer is
 * put back as it was and the call fails with CONCURRENT_MODIFICATION (Paimon would leave a
 * consumer pointing at a snapshot that no longer exists). A streaming job running with this
 * consumer id rewrites the file at its next checkpoint: stop it first (Paimon's advice too).
 */
import { defineProcedure } from '../framework/registry.js';
import { ProcedureError } from '../framework/errors.js';
import { quote } from '../framework/quote.js';
import type { FileStoreTable } from '../../src/paimon/table/file-store-table.js';
import { validateConsumerId } from '../../src/paimon/table/consumer-manager.js';
import { snapshotIdArg } from '../tags/tag-args.js';

async function requireSnapshot(t: FileStoreTable, id: number): Promise<void> {
  const snapshots = t.snapshotManager();
  if (await t.fileIO.exists(snapshots.snapshotPath(id))) return;
  const earliest = await snapshots.earliestSnapshotId();
  const latest = await snapshots.latestSnapshotId();
  const range = earliest === null || latest === null ? 'the table has no snapshots' : `its snapshots are ${earliest}..${latest}`;
  throw new ProcedureError(
    'SNAPSHOT_NOT_FOUND',
    `Snapshot ${id} does not exist in ${t.identifier} (${range}); pass a next_snapshot_id of an existing snapshot, or none to delete the consumer.`,
  );
}

export const resetConsumer = defineProcedure({
  name: 'reset_consumer',
  description:
    "Point a streaming consumer at another snapshot (Paimon's ResetConsumerProcedure): with next_snapshot_id the consumer file is written (created if absent) and the snapshot must exist; without it the consumer is deleted. Stop a streaming job using the consumer id first, or its next checkpoint undoes the reset.",
  params: [
    { name: 'table', type: 'string', required: true, description: "Table identifier 'db.tbl' or 'db.tbl$branch_<name>'." },
    { name: 'consumer_id', aliases: ['consumerId'], type: 'string', required: true, description: 'The consumer id (the consumer-id option of the streaming read).' },
    {
      name: 'next_snapshot_id',
      aliases: ['nextSnapshotId'],
      type: 'bigint',
      description: 'The snapshot the consumer reads next; it must exist. Absent: the consumer is deleted.',
    },
    { name: 'dry_run', type: 'boolean', default: false, description: 'Check and report only: change nothing.' },
  ],
  resultColumns: [
    { name: 'result', type: 'boolean', description: "True when the call succeeded (Paimon's result)." },
    { name: 'consumer_id', type: 'string', description: 'The consumer.' },
    { name: 'action', type: 'string', description: "'reset' (written), 'deleted', or 'absent' (nothing to delete)." },
    { name: 'previous_next_snapshot', type: 'bigint', description: 'The snapshot it pointed at before (null: it did not exist).' },
    { name: 'next_snapshot', type: 'bigint', description: 'The snapshot it points at now (null: deleted).' },
    { name: 'dry_run', type: 'boolean', description: 'Whether this was a dry run.' },
  ],
  privilege: { privilege: 'ALTER', on: 'table' },
  destructive: true,
  run: async (args, ctx) => {
    const t = await ctx.resolveTable(args.table);
    const id = args.consumer_id;
    validateConsumerId(id);
    const next = snapshotIdArg(args.next_snapshot_id);
    const consumers = t.consumerManager();
    if (next !== null) await requireSnapshot(t, next);
    const before = await consumers.consumer(id);
    const previous = before?.nextSnapshot ?? null;
    const action = next !== null ? 'reset' : previous === null ? 'absent' : 'deleted';
    const row = (dryRun: boolean) => ({ result: true, consumer_id: id, action, previous_next_snapshot: previous, next_snapshot: next, dry_run: dryRun });
    if (args.dry_run) return { rows: [row(true)], info: `would ${action === 'reset' ? `reset consumer ${quote(id)} to snapshot ${next}` : action === 'deleted' ? `delete consumer ${quote(id)}` : `find no consumer ${quote(id)}`}` };
    ctx.throwIfAborted();
    if (next === null) {
      if (previous !== null) await consumers.deleteConsumer(id);
    } else {
      await consumers.resetConsumer(id, { nextSnapshot: next });
      if (!(await t.fileIO.exists(t.snapshotManager().snapshotPath(next)))) {
        // Expired between the check and the write: undo, so no consumer points past the table's history.
        if (before === null) await consumers.deleteConsumer(id);
        else await consumers.resetConsumer(id, before);
        throw new ProcedureError(
          'CONCURRENT_MODIFICATION',
          `Snapshot ${next} of ${t.identifier} expired while consumer ${quote(id)} was being reset; the consumer was put back as it was. Pass a newer next_snapshot_id.`,
        );
      }
    }
    if (action !== 'absent') ctx.reportAffected(t.identifier);
    return {
      rows: [row(false)],
      info: action === 'reset' ? `consumer ${quote(id)} now reads snapshot ${next} next` : action === 'deleted' ? `consumer ${quote(id)} deleted` : `no consumer ${quote(id)}`,
    };
  },
});
