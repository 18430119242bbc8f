/**
 * At most one metadata-changing procedure per table at a time inside one proxy. A second one
 * waits (bounded, abortable, FIFO) or fails at once with TABLE_BUSY, as configured
 * (`procedures.table_lock`: wait | fail, `procedures.table_lock_wait_ms`).
 *
 * The lock is per table, not per branch: tags, branches and consumers of one table share
 * directories, and fast_forward / merge_branch touch both the branch and main.
 */
import { ProcedureError } from '../errors.js';
import { WaitQueue } from './wait-queue.js';

export interface LockHolder {
  procedure: string;
  queryId: string;
  connectionId: number | null;
}

export interface TableLockOptions {
  mode: 'wait' | 'fail';
  waitMs: number;
  signal?: AbortSignal;
  /** Called with +1 when the caller starts waiting and -1 when it stops (metrics). */
  onQueued?: (delta: 1 | -1) => void;
}

/** The lock key of a table: catalog case-insensitive, the `$branch_x` suffix removed. */
export function tableLockKey(catalog: string, database: string, table: string): string {
  const base = table.replace(/\$.*$/, '');
  return `${catalog.toLowerCase()}.${database}.${base}`;
}

interface Slot {
  holder: LockHolder;
  queue: WaitQueue;
}

export class TableLockManager {
  private readonly slots = new Map<string, Slot>();

  /** Acquire the table's lock; returns the release function (idempotent). */
  async acquire(key: string, holder: LockHolder, opts: TableLockOptions): Promise<() => void> {
    const slot = this.slots.get(key);
    if (!slot) {
      this.slots.set(key, { holder, queue: new WaitQueue() });
      return this.releaser(key);
    }
    const busy = (): ProcedureError =>
      new ProcedureError(
        'TABLE_BUSY',
        `table ${key} is busy: ${slot.holder.procedure} (query ${slot.holder.queryId}${slot.holder.connectionId === null ? '' : `, connection ${slot.holder.connectionId}`}) is changing it` +
          (opts.mode === 'wait' ? `; waited ${opts.waitMs} ms` : '') +
          '. Retry when it has finished, or cancel it.',
      );
    if (opts.mode === 'fail') throw busy();
    opts.onQueued?.(1);
    try {
      await slot.queue.wait(opts.waitMs, opts.signal, busy);
    } finally {
      opts.onQueued?.(-1);
    }
    // The releaser handed the slot over to us (the slot object stays, with its queue).
    slot.holder = holder;
    return this.releaser(key);
  }

  private releaser(key: string): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const slot = this.slots.get(key);
      if (!slot) return;
      if (!slot.queue.wake()) this.slots.delete(key);
    };
  }

  /** Who holds a table now (undefined when free). */
  holderOf(key: string): LockHolder | undefined {
    return this.slots.get(key)?.holder;
  }

  waiting(key: string): number {
    return this.slots.get(key)?.queue.length ?? 0;
  }
}
