/**
 * `repair_earliest_snapshot(table, snapshot_id)` (Paimon 2.0's Spark and Flink
 * `RepairEarliestSnapshotProcedure`): point the EARLIEST hint past a gap in the snapshot files
 * (src/paimon/repair/earliest-snapshot.ts, Java's checks and messages). Result as Paimon's:
 * `previous_earliest_snapshot_id`, `current_earliest_snapshot_id`. With `dry_run => true` the checks
 * run and nothing is written; the plan is re-checked just before the hint is written and a moved
 * earliest or latest snapshot is CONCURRENT_MODIFICATION.
 */
import { applyEarliestSnapshotRepair, planEarliestSnapshotRepair } from '../../src/paimon/repair/earliest-snapshot.js';
import { ProcedureError } from '../framework/errors.js';
import { defineProcedure } from '../framework/registry.js';

export const repairEarliestSnapshot = defineProcedure({
  name: 'repair_earliest_snapshot',
  description: "Point the table's EARLIEST snapshot hint at the first snapshot after a gap in the snapshot files (Paimon 2.0's repair_earliest_snapshot).",
  params: [
    { name: 'table', type: 'string', required: true, description: "Table identifier 'db.tbl' or 'db.tbl$branch_<name>'." },
    { name: 'snapshot_id', type: 'bigint', required: true, description: 'The new earliest snapshot: the current earliest, or the first snapshot after a gap.' },
    { name: 'dry_run', type: 'boolean', default: false, description: 'Check only; write nothing.' },
  ],
  resultColumns: [
    { name: 'previous_earliest_snapshot_id', type: 'bigint', description: 'The earliest snapshot before the repair.' },
    { name: 'current_earliest_snapshot_id', type: 'bigint', description: 'The earliest snapshot after it (the argument).' },
    { name: 'dry_run', type: 'boolean', description: 'Whether this was a dry run.' },
  ],
  privilege: { privilege: 'ALTER', on: 'table' },
  destructive: false,
  run: async (args, ctx) => {
    const t = await ctx.resolveTable(args.table);
    if (args.snapshot_id > BigInt(Number.MAX_SAFE_INTEGER) || args.snapshot_id < 1n) throw new ProcedureError('INVALID_ARGUMENT', `snapshot_id ${args.snapshot_id} is not a snapshot id of ${t.identifier}.`);
    const snapshots = t.snapshotManager();
    const plan = await planEarliestSnapshotRepair(snapshots, Number(args.snapshot_id));
    if (!args.dry_run) {
      const again = await planEarliestSnapshotRepair(snapshots, plan.targetId);
      if (again.previousEarliestId !== plan.previousEarliestId || again.latestId !== plan.latestId) {
        throw new ProcedureError('CONCURRENT_MODIFICATION', `the snapshots of ${t.identifier} changed while the repair was checked (earliest ${plan.previousEarliestId} -> ${again.previousEarliestId}, latest ${plan.latestId} -> ${again.latestId}); nothing was written, call repair_earliest_snapshot again.`);
      }
      ctx.throwIfAborted();
      await applyEarliestSnapshotRepair(snapshots, plan);
      ctx.markCommitted();
      ctx.reportAffected(t.identifier);
    }
    return {
      rows: [{ previous_earliest_snapshot_id: plan.previousEarliestId, current_earliest_snapshot_id: plan.targetId, dry_run: args.dry_run }],
      info: `${args.dry_run ? 'would set' : 'set'} the earliest snapshot of ${t.identifier} from ${plan.previousEarliestId} to ${plan.targetId}`,
    };
  },
});
