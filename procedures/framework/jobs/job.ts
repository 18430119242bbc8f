/**
 * Asynchronous procedure jobs: `CALL ...(..., async => true)` returns a job id at once and the
 * work goes on in the background. A job record is what `list_jobs` / `job_status` show and what
 * survives a restart of the proxy.
 *
 * States: queued -> running -> succeeded | failed | cancelled (queued -> cancelled too).
 * A job left queued or running by a process that died is marked failed "interrupted by
 * restart" by the next process that owns it, never re-run.
 */
import { randomUUID } from 'node:crypto';

export const JOB_STATES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type JobState = (typeof JOB_STATES)[number];

export function isTerminal(state: JobState): boolean {
  return state === 'succeeded' || state === 'failed' || state === 'cancelled';
}

export interface JobProgress {
  phase: string;
  done?: number;
  total?: number;
  message?: string;
}

/** The result set a finished job produced (the rows its synchronous CALL would have returned). */
export interface JobResult {
  columns: string[];
  rows: (string | null)[][];
  info?: string;
}

export interface JobError {
  code: string;
  errno: number;
  sqlState: string;
  message: string;
  /** Whether anything was committed before the failure (stated, never ambiguous). */
  committed: boolean;
}

export interface JobRecord {
  id: string;
  catalog: string;
  procedure: string;
  /** Bound arguments, masked. */
  arguments: Record<string, unknown>;
  /** The statement, masked. */
  statement: string | null;
  user: string;
  clientAddress: string;
  connectionId: number | null;
  state: JobState;
  progress: JobProgress | null;
  result: JobResult | null;
  error: JobError | null;
  /** True once the procedure declared a durable commit (ctx.markCommitted). */
  committed: boolean;
  /** The proxy instance that runs (or ran) the job; restarts recover only their own jobs. */
  owner: string;
  cancelRequested: boolean;
  /** Epoch milliseconds. */
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  updatedAt: number;
}

/** Fields a running job may change. */
export type JobPatch = Partial<Pick<JobRecord, 'state' | 'progress' | 'result' | 'error' | 'committed' | 'cancelRequested' | 'startedAt' | 'finishedAt'>>;

export interface JobFilter {
  states?: readonly JobState[];
  user?: string;
  procedure?: string;
  /** Newest first, at most this many. */
  limit?: number;
}

/** Job ids: `job-` + 12 hex digits of a random UUID (short enough to type, unique enough). */
export function newJobId(): string {
  return `job-${randomUUID().replace(/-/g, '').slice(0, 12)}`;
}

export function isJobId(s: string): boolean {
  return /^job-[0-9a-f]{12}$/.test(s);
}

/** The error recorded on jobs interrupted by a restart of the proxy. */
export function interruptedByRestart(rec: JobRecord): JobError {
  return {
    code: 'QUERY_INTERRUPTED',
    errno: 1317,
    sqlState: '70100',
    message: rec.committed
      ? `job ${rec.id} was interrupted by restart of the proxy after its commit; the committed part is durable and the rest was not done. It is not re-run.`
      : `job ${rec.id} was interrupted by restart of the proxy; nothing was committed. It is not re-run; submit it again if still needed.`,
    committed: rec.committed,
  };
}

/** The phase a finished job shows (list_jobs, job_status), by its final state. */
export const FINAL_PHASES = { succeeded: 'done', failed: 'failed', cancelled: 'cancelled' } as const satisfies Record<TerminalJobState, string>;

export type TerminalJobState = Extract<JobState, 'succeeded' | 'failed' | 'cancelled'>;

/** The longest summary a finished job's progress message carries (the full error has its own column). */
const SUMMARY_CHARS = 200;

function shorten(text: string): string {
  const points = Array.from(text);
  return points.length <= SUMMARY_CHARS ? text : `${points.slice(0, SUMMARY_CHARS).join('')}…`;
}

/** One line about a job's result: its final OK's info, else how many rows it returned. */
export function resultSummary(result: JobResult | null): string {
  if (result?.info) return shorten(result.info);
  const n = result?.rows.length ?? 0;
  return `${n} row${n === 1 ? '' : 's'}`;
}

/**
 * The progress a finished job keeps: its final phase (done, failed, cancelled) with the result's
 * summary or the error's code and message, so that a finished job never shows the phase it was
 * last in while running ('plan', 'attempt 1').
 */
export function finalProgress(state: TerminalJobState, outcome: { result?: JobResult | null; error?: JobError | null }): JobProgress {
  const message = outcome.error ? `${outcome.error.code}: ${shorten(outcome.error.message)}` : resultSummary(outcome.result ?? null);
  return { phase: FINAL_PHASES[state], message };
}

/**
 * The progress to show for a record: the stored one, or for a finished record written before
 * final phases were stored, its final phase.
 */
export function shownProgress(rec: JobRecord): JobProgress | null {
  if (!isTerminal(rec.state)) return rec.progress;
  const state = rec.state as TerminalJobState;
  if (rec.progress?.phase === FINAL_PHASES[state]) return rec.progress;
  return finalProgress(state, rec);
}

/** The patch that marks a job interrupted by a restart as failed (both stores, at open). */
export function interruptedPatch(rec: JobRecord, now: number): JobPatch {
  const error = interruptedByRestart(rec);
  return { state: 'failed', error, progress: finalProgress('failed', { error }), finishedAt: now };
}

/**
 * Where job records live. Implementations: FileJobStore (embedded, JSON lines in the data
 * directory) and MysqlJobStore (a table shared by several proxies).
 */
export interface JobStore {
  /**
   * Open the store. Jobs of `owner` left queued or running are marked failed (interrupted by
   * restart); returns how many were.
   */
  open(): Promise<{ interrupted: number }>;
  create(rec: JobRecord): Promise<void>;
  /** Apply a patch; returns the updated record (undefined if no such job). */
  update(id: string, patch: JobPatch): Promise<JobRecord | undefined>;
  get(id: string): Promise<JobRecord | undefined>;
  list(filter?: JobFilter): Promise<JobRecord[]>;
  close(): Promise<void>;
}

/** Apply a patch to a record (pure). */
export function applyPatch(rec: JobRecord, patch: JobPatch, now: number): JobRecord {
  const next: JobRecord = { ...rec, updatedAt: now };
  // Members given as undefined leave the record's value alone.
  for (const [k, v] of Object.entries(patch)) if (v !== undefined) (next as unknown as Record<string, unknown>)[k] = v;
  return next;
}

export function matchesFilter(rec: JobRecord, f: JobFilter | undefined): boolean {
  if (!f) return true;
  if (f.states && !f.states.includes(rec.state)) return false;
  if (f.user !== undefined && rec.user !== f.user) return false;
  if (f.procedure !== undefined && rec.procedure !== f.procedure) return false;
  return true;
}
