/**
 * `rollback_to_timestamp(table, timestamp)`: roll back (destructively, like rollback_to) to
 * the latest snapshot committed at or before `timestamp` epoch ms
 * (SnapshotManager.earlierOrEqualTimeMills; snapshot files only, not tags).
 */
import { PaimonError } from '../../src/paimon/errors.js';
import { earlierOrEqualTimeMillis } from '../../src/paimon/maintenance/rollback-plan.js';
import type { ProcedureContext } from '../framework/context.js';
import { defineProcedure } from '../framework/registry.js';
import type { ProcedureResult } from '../framework/result.js';
import { executeRollback, makeRollbackPlan, readRollbackState, ROLLBACK_RESULT_COLUMNS } from './rollback-to.js';

export async function runRollbackToTimestamp(
  args: { table: string; timestamp: bigint; dry_run: boolean },
  ctx: ProcedureContext,
): Promise<ProcedureResult> {
  const t = await ctx.resolveTable(args.table);
  const r = t.maintenanceReader();
  const state = await readRollbackState(r);
  if (state.generation.latestId === null) {
    throw new PaimonError('SNAPSHOT_NOT_FOUND', 'Latest snapshot is null, can not rollback.');
  }
  const ts = Number(args.timestamp);
  const id = await earlierOrEqualTimeMillis(state.generation.earliestId, state.generation.latestId, ts, async (sid) => {
    const s = await r.trySnapshot(sid);
    if (s === null) throw new PaimonError('SNAPSHOT_NOT_FOUND', `snapshot ${sid} of ${t.identifier} disappeared while searching; retry`);
    return s.timeMillis;
  });
  if (id === null) {
    const earliestId = state.generation.earliestId;
    const earliest = earliestId === null ? null : await r.trySnapshot(earliestId);
    const at = (ms: number): string => (Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? ` (${new Date(ms).toISOString()})` : '');
    const where = earliest === null ? '' : `: the earliest snapshot, ${earliest.id}, was committed at ${earliest.timeMillis}${at(earliest.timeMillis)}`;
    throw new PaimonError('SNAPSHOT_NOT_FOUND', `Can not find snapshot earlier than ${ts}${at(ts)}${where}; pass timestamp => ${earliest?.timeMillis ?? 'a later time'} or later.`);
  }
  const plan = makeRollbackPlan(state, { kind: 'snapshot', id });
  const row = await executeRollback(r, state, plan, args.dry_run, ctx);
  return { rows: [row], info: `${args.dry_run ? 'would roll back' : 'rolled back'} ${t.identifier} to snapshot ${id}` };
}

export const rollbackToTimestamp = defineProcedure({
  name: 'rollback_to_timestamp',
  description:
    'Roll the table back (destructively, like rollback_to) to the latest snapshot committed at or before the given epoch-millisecond timestamp.',
  params: [
    { name: 'table', type: 'string', required: true, description: "Table identifier 'db.tbl' or 'db.tbl$branch_<name>'." },
    { name: 'timestamp', type: 'bigint', required: true, description: 'Epoch milliseconds.' },
    { name: 'dry_run', type: 'boolean', default: false, description: 'Plan only: report what would be removed, change nothing.' },
  ],
  resultColumns: ROLLBACK_RESULT_COLUMNS,
  privilege: { privilege: 'ALTER', on: 'table' },
  destructive: true,
  run: (args, ctx) => runRollbackToTimestamp(args, ctx),
});
