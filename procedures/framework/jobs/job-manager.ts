/**
 * Runs asynchronous procedure jobs: records them in a JobStore, runs them in the background
 * under the heavy-job cap, keeps their progress, result and error, and cancels them on request
 * (from this proxy directly, from another proxy through the store's cancel flag, which the
 * owner polls).
 */
import { ProcedureError, toProcedureError, ERROR_CODES, type ProcedureErrorCode } from '../errors.js';
import { JobCancelReason } from '../cancellation.js';
import { quote } from '../quote.js';
import type { HeavyJobLimiter } from '../concurrency/heavy-job-limiter.js';
import { type JobError, type JobFilter, type JobProgress, type JobRecord, type JobResult, type JobStore, finalProgress, isTerminal, newJobId, shownProgress } from './job.js';

export interface JobRunContext {
  readonly jobId: string;
  readonly signal: AbortSignal;
  progress(p: JobProgress): void;
  /** Declare that a commit became durable (recorded at once, so a restart reports it). */
  markCommitted(): void;
}

/** The background work of one job: resolves with its result set, or throws (ProcedureError). */
export type JobWork = (ctx: JobRunContext) => Promise<JobResult>;

export interface JobSubmission {
  catalog: string;
  procedure: string;
  /** Masked before they are stored. */
  arguments: Record<string, unknown>;
  statement: string | null;
  user: string;
  clientAddress: string;
  connectionId: number | null;
  /** Heavy procedures count against the global cap (compaction, orphan cleanup, ...). */
  heavy: boolean;
}

export interface JobManagerOptions {
  store: JobStore;
  /**
   * Secret masking for what is stored and shown to other users (arguments, statement, error
   * message): pass src/security/masking.ts `mask`. Injected so procedures/ does not depend on src/.
   */
  redact: <T>(value: T) => T;
  owner: string;
  limiter?: HeavyJobLimiter;
  /** How often running jobs check the store for a cancel request from another proxy. */
  cancelPollMs?: number;
  /** Minimum interval between stored progress updates of one job. */
  progressIntervalMs?: number;
  now?: () => number;
  /** Called when a job changes state (metrics, logs). */
  onStateChange?: (rec: JobRecord) => void;
}

interface Running {
  controller: AbortController;
  done: Promise<void>;
}

export class JobManager {
  private readonly running = new Map<string, Running>();
  private readonly now: () => number;
  private poller: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly opts: JobManagerOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** The identity of this proxy in the job store (the `owner` column of list_jobs). */
  get owner(): string {
    return this.opts.owner;
  }

  /** Open the store (marking jobs interrupted by a restart as failed) and start polling for cancels. */
  async open(): Promise<{ interrupted: number }> {
    const r = await this.opts.store.open();
    const every = this.opts.cancelPollMs ?? 2000;
    this.poller = setInterval(() => void this.pollCancels(), every);
    this.poller.unref();
    return r;
  }

  private async pollCancels(): Promise<void> {
    for (const [id, run] of this.running) {
      try {
        const rec = await this.opts.store.get(id);
        if (rec?.cancelRequested && !run.controller.signal.aborted) run.controller.abort(new JobCancelReason(id));
      } catch {
        // The store being briefly unreachable must not kill jobs; the next poll retries.
      }
    }
  }

  /** Record a job and start it in the background; resolves with the queued record at once. */
  async submit(sub: JobSubmission, work: JobWork): Promise<JobRecord> {
    if (this.closed) throw new ProcedureError('NOT_SUPPORTED', 'the proxy is shutting down; no new jobs are accepted');
    const now = this.now();
    const rec: JobRecord = {
      id: newJobId(),
      catalog: sub.catalog,
      procedure: sub.procedure,
      // Job records are stored and shown to other users: never a secret in them.
      arguments: this.opts.redact(sub.arguments),
      statement: sub.statement === null ? null : this.opts.redact(sub.statement),
      user: sub.user,
      clientAddress: sub.clientAddress,
      connectionId: sub.connectionId,
      state: 'queued',
      progress: null,
      result: null,
      error: null,
      committed: false,
      owner: this.opts.owner,
      cancelRequested: false,
      createdAt: now,
      startedAt: null,
      finishedAt: null,
      updatedAt: now,
    };
    await this.opts.store.create(rec);
    this.opts.onStateChange?.(rec);
    const controller = new AbortController();
    const done = this.execute(rec.id, sub.heavy, controller, work).finally(() => this.running.delete(rec.id));
    this.running.set(rec.id, { controller, done });
    return rec;
  }

  private async execute(id: string, heavy: boolean, controller: AbortController, work: JobWork): Promise<void> {
    const signal = controller.signal;
    const store = this.opts.store;
    let release: (() => void) | undefined;
    let committed = false;
    try {
      if (heavy && this.opts.limiter) {
        const limiter = this.opts.limiter;
        // A queued job says what it waits for (job_status), until a slot is free.
        if (limiter.active >= limiter.capacity || limiter.queued > 0) {
          await store.update(id, { progress: { phase: 'waiting for a heavy-job slot', message: `${limiter.active} of ${limiter.capacity} running, ${limiter.queued} queued before it` } }).catch(() => undefined);
        }
        release = await limiter.acquire({ signal });
      }
      if (signal.aborted) throw signal.reason;
      const started = await store.update(id, { state: 'running', startedAt: this.now() });
      if (started) this.opts.onStateChange?.(started);
      const progress = this.progressWriter(id);
      let result: JobResult;
      try {
        result = await work({
          jobId: id,
          signal,
          progress: (p) => progress.report(p),
          markCommitted: () => {
            committed = true;
            void store.update(id, { committed: true }).catch(() => undefined);
          },
        });
      } finally {
        // The last progress is stored before the final state, so job_status never goes back.
        await progress.flush();
      }
      const fin = await store.update(id, {
        state: 'succeeded',
        result,
        progress: this.opts.redact(finalProgress('succeeded', { result })),
        ...(committed ? { committed: true } : {}),
        finishedAt: this.now(),
      });
      if (fin) this.opts.onStateChange?.(fin);
    } catch (e) {
      const pe = toProcedureError(e, signal);
      const wasCommitted = pe.committed ?? committed;
      const cancelled = signal.aborted && pe.code === 'QUERY_INTERRUPTED';
      const error: JobError = { code: pe.code, errno: pe.errno, sqlState: pe.sqlState, message: this.opts.redact(pe.message), committed: wasCommitted };
      const state = cancelled ? 'cancelled' : 'failed';
      const fin = await store
        .update(id, { state, error, progress: finalProgress(state, { error }), committed: wasCommitted, finishedAt: this.now() })
        .catch(() => undefined);
      if (fin) this.opts.onStateChange?.(fin);
    } finally {
      release?.();
    }
  }

  /**
   * Stores a running job's progress: a new phase at once, counts within a phase at most every
   * progressIntervalMs (the latest one is written when the interval has passed, so the stored
   * progress is never more than one interval old), one write at a time and in order.
   */
  private progressWriter(id: string): { report(p: JobProgress): void; flush(): Promise<void> } {
    const interval = this.opts.progressIntervalMs ?? 1000;
    const store = this.opts.store;
    let lastWrite = 0;
    let lastPhase: string | null = null;
    let pending: JobProgress | null = null;
    let timer: NodeJS.Timeout | null = null;
    let chain: Promise<unknown> = Promise.resolve();
    const write = (): void => {
      if (timer) {
        clearTimeout(timer);
        timer = null;
      }
      const p = pending;
      pending = null;
      if (!p) return;
      lastWrite = this.now();
      lastPhase = p.phase;
      const stored: JobProgress = this.opts.redact(p);
      chain = chain.then(() => store.update(id, { progress: stored })).catch(() => undefined);
    };
    return {
      report: (p) => {
        pending = { phase: p.phase, ...(p.done !== undefined ? { done: p.done } : {}), ...(p.total !== undefined ? { total: p.total } : {}), ...(p.message !== undefined ? { message: p.message } : {}) };
        const wait = lastWrite + interval - this.now();
        if (p.phase !== lastPhase || wait <= 0) write();
        else if (!timer) {
          timer = setTimeout(write, wait);
          timer.unref();
        }
      },
      flush: async () => {
        write();
        await chain;
      },
    };
  }

  /**
   * Cancel a job. A job running here is aborted (it ends 'cancelled' with a message saying
   * whether anything was committed); a job of another proxy gets the cancel flag, which its
   * owner acts on within the poll interval. A finished job is returned unchanged.
   */
  async cancel(id: string): Promise<{ record: JobRecord; action: 'aborted' | 'requested' | 'already_finished' }> {
    const rec = await this.opts.store.get(id);
    if (!rec) throw new ProcedureError('JOB_NOT_FOUND', `no job has id ${quote(id)}; list them with CALL sys.list_jobs()`);
    if (isTerminal(rec.state)) return { record: rec, action: 'already_finished' };
    const updated = (await this.opts.store.update(id, { cancelRequested: true })) ?? rec;
    const local = this.running.get(id);
    if (local) {
      local.controller.abort(new JobCancelReason(id));
      return { record: updated, action: 'aborted' };
    }
    return { record: updated, action: 'requested' };
  }

  async get(id: string): Promise<JobRecord> {
    const rec = await this.opts.store.get(id);
    if (!rec) throw new ProcedureError('JOB_NOT_FOUND', `no job has id ${quote(id)}; list them with CALL sys.list_jobs()`);
    return rec;
  }

  list(filter?: JobFilter): Promise<JobRecord[]> {
    return this.opts.store.list(filter);
  }

  /** Resolve when the given job (or every job running here) has finished; for tests and shutdown. */
  async whenFinished(id?: string): Promise<void> {
    if (id !== undefined) {
      await this.running.get(id)?.done;
      return;
    }
    await Promise.all([...this.running.values()].map((r) => r.done));
  }

  /** Stop: refuse new jobs, abort the running ones (they end cancelled), close the store. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.poller) clearInterval(this.poller);
    for (const [id, r] of this.running) r.controller.abort(new JobCancelReason(id));
    await this.whenFinished();
    await this.opts.store.close();
  }
}

/** Columns of `list_jobs` / `job_status` rows, and the rendering of one record. */
export const JOB_COLUMNS = [
  'job_id', 'state', 'catalog', 'procedure', 'user', 'created_at', 'started_at', 'finished_at', 'progress',
  'committed', 'error_code', 'errno', 'error_message', 'result', 'owner',
] as const;

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

function progressText(p: JobProgress | null): string | null {
  if (!p) return null;
  const count = p.done !== undefined ? (p.total !== undefined ? ` ${p.done}/${p.total}` : ` ${p.done}`) : '';
  return `${p.phase}${count}${p.message ? `: ${p.message}` : ''}`;
}

export function jobRow(rec: JobRecord): (string | null)[] {
  return [
    rec.id, rec.state, rec.catalog, rec.procedure, rec.user, iso(rec.createdAt), iso(rec.startedAt), iso(rec.finishedAt),
    progressText(shownProgress(rec)), rec.committed ? '1' : '0', rec.error?.code ?? null, rec.error ? String(rec.error.errno) : null,
    rec.error?.message ?? null, rec.result ? JSON.stringify(rec.result) : null, rec.owner,
  ];
}

/** errno and SQLSTATE of a symbolic code (for records written by older processes). */
export function errnoOf(code: string): { errno: number; sqlState: string } {
  const info = (ERROR_CODES as Record<string, { errno: number; sqlState: string }>)[code as ProcedureErrorCode];
  return info ? { errno: info.errno, sqlState: info.sqlState } : { errno: 1105, sqlState: 'HY000' };
}
