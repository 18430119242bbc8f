/**
 * `rollback_to_watermark(table, watermark)`: roll back (destructively, like rollback_to) to the
 * snapshot Paimon's `SnapshotManager.earlierOrEqualWatermark` picks (Spark's and Flink's
 * `RollbackToWatermarkProcedure`; snapshot files only, not tags), then exactly rollback_to's
 * machinery (rollback-to.ts).
 */
import { PaimonError } from '../../src/paimon/errors.js';
import type { ProcedureContext } from '../framework/context.js';
import { defineProcedure } from '../framework/registry.js';
import type { ProcedureResult } from '../framework/result.js';
import { executeRollback, makeRollbackPlan, readRollbackState, ROLLBACK_RESULT_COLUMNS } from './rollback-to.js';

/** Flink writes Long.MIN_VALUE as "no watermark yet". */
const LONG_MIN_VALUE = -9223372036854775808n;

/**
 * `SnapshotManager.earlierOrEqualWatermark` of Paimon 1.4.2 / 2.0.0, step for step, so that the
 * same history picks the same snapshot: null when the latest snapshot has no watermark yet
 * (Long.MIN_VALUE) or no snapshot has one; the first snapshot with a watermark when that one is
 * already >= `watermark` (Java returns it even when it is greater); otherwise a binary search for
 * the last watermark <= `watermark` that skips snapshots without one (where Java's search would
 * never end, see below, this one goes on and gives the answer Java's loop holds).
 */
export async function earlierOrEqualWatermark(
  earliestId: number | null,
  latestId: number | null,
  watermark: bigint,
  watermarkOf: (id: number) => Promise<bigint | null>,
): Promise<number | null> {
  if (latestId === null || earliestId === null) return null;
  let latest = latestId;
  if ((await watermarkOf(latest)) === LONG_MIN_VALUE) return null;
  let earliest = earliestId;
  let earliestWatermark = await watermarkOf(earliest);
  while (earliestWatermark === null && earliest < latest) {
    earliest++;
    earliestWatermark = await watermarkOf(earliest);
  }
  if (earliestWatermark === null) return null;
  if (earliestWatermark >= watermark) return earliest;
  let found: number | null = null;
  while (earliest <= latest) {
    let mid = earliest + Math.floor((latest - earliest) / 2);
    const probe = mid;
    let wm = await watermarkOf(mid);
    while (wm === null && mid >= earliest) {
      mid--;
      wm = mid >= earliestId ? await watermarkOf(mid) : null;
    }
    if (wm === null) {
      earliest = probe + 1;
    } else if (wm > watermark) {
      latest = mid - 1;
    } else if (wm < watermark) {
      // Java sets earliest = mid + 1 with mid already stepped back over the snapshots without a
      // watermark, which revisits the same probe forever when such snapshots sit right of it
      // (a batch commit between streaming ones); nothing between mid and probe has a watermark,
      // so the search goes on right of the probe: the answer Java's loop holds, and it ends.
      earliest = probe + 1;
      found = probe; // Java keeps the probed snapshot (`finalSnapshot = snapshot`), not the stepped-back one
    } else {
      found = probe;
      break;
    }
  }
  return found;
}

export async function runRollbackToWatermark(args: { table: string; watermark: bigint; dry_run: boolean }, ctx: ProcedureContext): Promise<ProcedureResult> {
  const t = await ctx.resolveTable(args.table);
  const r = t.maintenanceReader();
  const state = await readRollbackState(r);
  if (state.generation.latestId === null) throw new PaimonError('SNAPSHOT_NOT_FOUND', 'Latest snapshot is null, can not rollback.');
  const snapshots = t.snapshotManager();
  const id = await earlierOrEqualWatermark(state.generation.earliestId, state.generation.latestId, args.watermark, async (sid) => (await snapshots.snapshot(sid)).watermark ?? null);
  if (id === null) {
    throw new PaimonError('SNAPSHOT_NOT_FOUND', `Can not find snapshot earlier than ${args.watermark}: no snapshot of ${t.identifier} from ${state.generation.earliestId} to ${state.generation.latestId} carries a watermark at or below it (the $snapshots system table shows each snapshot's watermark).`);
  }
  const plan = makeRollbackPlan(state, { kind: 'snapshot', id });
  const row = await executeRollback(r, state, plan, args.dry_run, ctx);
  return { rows: [row], info: `${args.dry_run ? 'would roll back' : 'rolled back'} ${t.identifier} to snapshot ${id} (watermark <= ${args.watermark})` };
}

export const rollbackToWatermark = defineProcedure({
  name: 'rollback_to_watermark',
  description: "Roll the table back (destructively, like rollback_to) to the latest snapshot whose watermark is at or below the given one (Paimon's SnapshotManager.earlierOrEqualWatermark).",
  params: [
    { name: 'table', type: 'string', required: true, description: "Table identifier 'db.tbl' or 'db.tbl$branch_<name>'." },
    { name: 'watermark', type: 'bigint', required: true, description: 'The watermark (epoch milliseconds as Flink writes it).' },
    { name: 'dry_run', type: 'boolean', default: false, description: 'Plan only: report what would be removed, change nothing.' },
  ],
  resultColumns: ROLLBACK_RESULT_COLUMNS,
  privilege: { privilege: 'ALTER', on: 'table' },
  destructive: true,
  run: (args, ctx) => runRollbackToWatermark(args, ctx),
});
