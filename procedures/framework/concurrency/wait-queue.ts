/**
 * A FIFO of waiters for a resource with a bounded wait, abortable by a signal. Shared by the
 * per-table lock and the heavy-job cap. Pure in-process state: correctness across several proxy
 * replicas comes from Paimon's commit protocol, not from these locks (architecture.md §5).
 */
export interface Waiter {
  resolve: () => void;
  reject: (e: unknown) => void;
  cleanup: () => void;
}

export class WaitQueue {
  private readonly waiters: Waiter[] = [];

  get length(): number {
    return this.waiters.length;
  }

  /**
   * Wait until `wake()` hands over the resource. Rejects with `onTimeout()` after `waitMs`, or
   * with the signal's reason when it aborts; either way the waiter leaves the queue.
   */
  wait(waitMs: number, signal: AbortSignal | undefined, onTimeout: () => Error): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const onAbort = (): void => {
        remove();
        reject(signal!.reason instanceof Error ? signal!.reason : new Error(String(signal!.reason)));
      };
      const remove = (): void => {
        const i = this.waiters.indexOf(w);
        if (i >= 0) this.waiters.splice(i, 1);
        w.cleanup();
      };
      const w: Waiter = {
        resolve,
        reject,
        cleanup: () => {
          if (timer) clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
        },
      };
      if (signal?.aborted) {
        reject(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
        return;
      }
      this.waiters.push(w);
      if (Number.isFinite(waitMs)) {
        timer = setTimeout(() => {
          remove();
          reject(onTimeout());
        }, waitMs);
      }
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Hand the resource to the first waiter; false when nobody waits. */
  wake(): boolean {
    const w = this.waiters.shift();
    if (!w) return false;
    w.cleanup();
    w.resolve();
    return true;
  }
}
