/**
 * The global cap on heavy procedures (compaction, orphan cleanup, database-wide work) running
 * at once in one proxy (`procedures.max_concurrent_heavy`). Calls over the cap queue in FIFO
 * order (bounded by their own deadline through the abort signal), or fail at once with
 * TOO_MANY_JOBS when asked to.
 */
import { ProcedureError } from '../errors.js';
import { WaitQueue } from './wait-queue.js';

export interface LimiterAcquireOptions {
  mode?: 'wait' | 'fail';
  /** Longest wait; default: until the signal aborts. */
  waitMs?: number;
  signal?: AbortSignal;
  onQueued?: (delta: 1 | -1) => void;
}

export class HeavyJobLimiter {
  private running = 0;
  private readonly queue = new WaitQueue();

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error(`heavy job capacity must be a positive integer, got ${capacity}`);
  }

  get active(): number {
    return this.running;
  }
  get queued(): number {
    return this.queue.length;
  }

  async acquire(opts: LimiterAcquireOptions = {}): Promise<() => void> {
    if (this.running < this.capacity && this.queue.length === 0) {
      this.running++;
      return this.releaser();
    }
    const full = (): ProcedureError =>
      new ProcedureError('TOO_MANY_JOBS', `${this.running} heavy procedures are running, the configured cap (procedures.max_concurrent_heavy) is ${this.capacity}${opts.mode === 'fail' ? '' : `; waited ${opts.waitMs} ms`}`);
    if (opts.mode === 'fail') throw full();
    opts.onQueued?.(1);
    try {
      await this.queue.wait(opts.waitMs ?? Number.POSITIVE_INFINITY, opts.signal, full);
    } finally {
      opts.onQueued?.(-1);
    }
    // The slot was handed over by a release: `running` was not decremented for us.
    return this.releaser();
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (!this.queue.wake()) this.running--;
    };
  }
}
