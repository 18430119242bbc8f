/**
 * Directory listings on worker threads, for LocalFileIO.listBatches: each worker reads a
 * directory with synchronous readdir and stat calls and posts the entries back in batches of
 * parallel arrays (names, sizes, modification times, directory and symbolic-link flags). Listing a table of
 * millions of files is mostly stat(2) calls; on worker threads they run beside the main
 * thread's work (and get their own share of a busy machine's CPUs) instead of in turn with it.
 *
 * Flow control: a listing may run at most CREDITS batches ahead of its consumer; the consumer
 * returns a credit for each batch it takes, so memory is a few batches per open listing.
 * Workers are started on first use, at most POOL_SIZE, and do not keep the process alive
 * while idle (unref'd between listings).
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/** Entries per batch. */
export const LIST_BATCH_ENTRIES = 2048;
/** Batches a listing may post before its consumer took them. */
const CREDITS = 3;
const POOL_SIZE = Math.max(1, Math.min(4, availableParallelism()));

/** One batch of entries of one directory (absent entries skipped, `.`/`..` never listed). */
export interface RawListBatch {
  names: string[];
  sizes: Float64Array;
  modificationTimes: Float64Array;
  isDir: Uint8Array;
  /** 1 for a symbolic link; the other arrays then describe its target (the link when dangling). */
  isLink: Uint8Array;
}

type WorkerMessage =
  | { id: number; type: 'batch'; names: string[]; sizes: Float64Array; mtimes: Float64Array; isDir: Uint8Array; isLink: Uint8Array }
  | { id: number; type: 'end' }
  | { id: number; type: 'error'; code?: string; message: string };

/** The worker's code (CommonJS, evaluated): opendir/readSync/statSync, credit-driven. */
const WORKER_SOURCE = `
'use strict';
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const BATCH = ${LIST_BATCH_ENTRIES};
const jobs = new Map();
function fail(id, e) {
  parentPort.postMessage({ id, type: 'error', code: e && e.code, message: String((e && e.message) || e) });
}
function close(id, j) {
  jobs.delete(id);
  try { j.dir.closeSync(); } catch (e) { /* already closed */ }
}
function pump(id) {
  const j = jobs.get(id);
  while (j !== undefined && j.credits > 0) {
    const names = [];
    const sizes = new Float64Array(BATCH);
    const mtimes = new Float64Array(BATCH);
    const isDir = new Uint8Array(BATCH);
    const isLink = new Uint8Array(BATCH);
    let end = false;
    try {
      while (names.length < BATCH) {
        const ent = j.dir.readSync();
        if (ent === null) { end = true; break; }
        let st;
        const link = ent.isSymbolicLink();
        try {
          st = fs.statSync(j.prefix + ent.name);
        } catch (e) {
          if (!e || e.code !== 'ENOENT') throw e;
          if (!link) continue;
          try { st = fs.lstatSync(j.prefix + ent.name); } catch (e2) { if (e2 && e2.code === 'ENOENT') continue; throw e2; }
        }
        const k = names.length;
        names.push(ent.name);
        sizes[k] = st.size;
        mtimes[k] = Math.floor(st.mtimeMs);
        isDir[k] = st.isDirectory() ? 1 : 0;
        isLink[k] = link ? 1 : 0;
      }
    } catch (e) {
      close(id, j);
      fail(id, e);
      return;
    }
    if (names.length > 0) {
      j.credits--;
      parentPort.postMessage({ id, type: 'batch', names, sizes, mtimes, isDir, isLink }, [sizes.buffer, mtimes.buffer, isDir.buffer, isLink.buffer]);
    }
    if (end) {
      close(id, j);
      parentPort.postMessage({ id, type: 'end' });
      return;
    }
  }
}
parentPort.on('message', (m) => {
  if (m.type === 'open') {
    let dir;
    try {
      dir = fs.opendirSync(m.path, { bufferSize: 1024 });
    } catch (e) {
      if (e && e.code === 'ENOENT') parentPort.postMessage({ id: m.id, type: 'end' });
      else fail(m.id, e);
      return;
    }
    jobs.set(m.id, { dir, prefix: m.path.endsWith('/') ? m.path : m.path + '/', credits: m.credits });
    pump(m.id);
  } else if (m.type === 'credit') {
    const j = jobs.get(m.id);
    if (j !== undefined) { j.credits++; pump(m.id); }
  } else if (m.type === 'cancel') {
    const j = jobs.get(m.id);
    if (j !== undefined) close(m.id, j);
  }
});
`;

/** Thrown for a failed listing: carries the errno code (ENOTDIR, EACCES, ...) like node:fs errors. */
export class ListError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

interface Slot {
  worker: Worker;
  active: number;
}

class LocalListPool {
  private readonly slots: Slot[] = [];
  private readonly handlers = new Map<number, { slot: Slot; deliver: (m: WorkerMessage) => void }>();
  private nextId = 1;

  private pick(): Slot {
    let best: Slot | undefined;
    for (const s of this.slots) if (best === undefined || s.active < best.active) best = s;
    if (best !== undefined && (best.active === 0 || this.slots.length >= POOL_SIZE)) return best;
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    const slot: Slot = { worker, active: 0 };
    worker.on('message', (m: WorkerMessage) => this.handlers.get(m.id)?.deliver(m));
    const lost = (e: unknown): void => {
      const i = this.slots.indexOf(slot);
      if (i >= 0) this.slots.splice(i, 1);
      for (const [id, h] of this.handlers) {
        if (h.slot === slot) h.deliver({ id, type: 'error', message: `listing worker stopped: ${String((e as Error)?.message ?? e)}` });
      }
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`exit code ${code}`)));
    worker.unref();
    this.slots.push(slot);
    return slot;
  }

  /** Batches of the entries of `localPath` (an absolute local path); nothing if it does not exist. */
  async *list(localPath: string): AsyncGenerator<RawListBatch> {
    const slot = this.pick();
    const id = this.nextId++;
    const queue: WorkerMessage[] = [];
    let wake: (() => void) | null = null;
    this.handlers.set(id, {
      slot,
      deliver: (m) => {
        queue.push(m);
        const w = wake;
        wake = null;
        w?.();
      },
    });
    if (slot.active++ === 0) slot.worker.ref();
    let finished = false;
    try {
      slot.worker.postMessage({ type: 'open', id, path: localPath, credits: CREDITS });
      for (;;) {
        while (queue.length === 0) await new Promise<void>((r) => (wake = r));
        const m = queue.shift()!;
        if (m.type === 'batch') {
          slot.worker.postMessage({ type: 'credit', id });
          const n = m.names.length;
          yield {
            names: m.names,
            sizes: m.sizes.subarray(0, n),
            modificationTimes: m.mtimes.subarray(0, n),
            isDir: m.isDir.subarray(0, n),
            isLink: m.isLink.subarray(0, n),
          };
        } else if (m.type === 'end') {
          finished = true;
          return;
        } else {
          finished = true;
          throw new ListError(m.message, m.code);
        }
      }
    } finally {
      this.handlers.delete(id);
      if (!finished) slot.worker.postMessage({ type: 'cancel', id });
      if (--slot.active === 0) slot.worker.unref();
    }
  }
}

let pool: LocalListPool | null = null;

/** The process-wide pool (created on first use). */
export function localListPool(): { list(localPath: string): AsyncGenerator<RawListBatch> } {
  pool ??= new LocalListPool();
  return pool;
}
