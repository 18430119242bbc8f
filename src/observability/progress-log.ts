/**
 * Progress of running CALLs in the log: one structured line when a call enters a new phase,
 * and, while it stays in a phase, one line every `intervalMs` with the latest counts (also when
 * the procedure reported nothing new: the line then shows how long the phase has run, so a
 * stuck call is visible). Synchronous CALLs and the work of async jobs alike; the lines go
 * through the proxy's logger, which masks secrets in every member and in the message.
 *
 * Configured by `logging.progress_interval_ms` (default 10 s; 0 turns these lines off).
 */
import type { ProgressUpdate } from '../../procedures/framework/context.js';

export interface ProgressLogger {
  info(obj: Record<string, unknown>, msg?: string): void;
}

export interface ProgressLogOptions {
  logger: ProgressLogger;
  /** Longest gap between two lines of a call while it runs; 0 or less: no progress lines at all. */
  intervalMs: number;
  now?: () => number;
}

/** Who and what a line is about: the fields every progress line of one call carries. */
export interface ProgressSubject {
  queryId: string;
  /** `call-...` of a synchronous CALL (list_jobs shows it), absent for async work. */
  callId?: string;
  /** The async job this work belongs to. */
  jobId?: string;
  procedure: string;
  catalog: string;
  target?: string;
  connectionId: number;
  user: string;
  dryRun: boolean;
  /** When the call started (epoch ms). */
  startedAt: number;
}

interface State {
  subject: ProgressSubject;
  latest: ProgressUpdate;
  phaseStartedAt: number;
  /** Reports since the last line. */
  reports: number;
  timer: NodeJS.Timeout | null;
}

/** done/total as a fraction in [0, 1] when both are known and total > 0, else null. */
export function progressFraction(u: { done?: number; total?: number }): number | null {
  if (u.done === undefined || u.total === undefined || !(u.total > 0)) return null;
  return Math.max(0, Math.min(1, u.done / u.total));
}

/** `phase 120/400: message` (the text list_jobs and job_status show). */
export function progressText(u: { phase: string; done?: number; total?: number; message?: string }): string {
  const count = u.done !== undefined ? (u.total !== undefined ? ` ${u.done}/${u.total}` : ` ${u.done}`) : '';
  return `${u.phase}${count}${u.message ? `: ${u.message}` : ''}`;
}

export class CallProgressLog {
  private readonly calls = new Map<string, State>();
  private readonly now: () => number;

  constructor(private readonly opts: ProgressLogOptions) {
    this.now = opts.now ?? Date.now;
  }

  get enabled(): boolean {
    return this.opts.intervalMs > 0;
  }

  /** A progress report of a call: a line now if the phase changed, else the timer's line carries it. */
  report(subject: ProgressSubject, update: ProgressUpdate): void {
    if (!this.enabled) return;
    const st = this.calls.get(subject.queryId);
    if (!st) {
      const fresh: State = { subject, latest: update, phaseStartedAt: this.now(), reports: 1, timer: null };
      this.calls.set(subject.queryId, fresh);
      this.emit(fresh, 'phase');
      return;
    }
    st.subject = subject;
    if (st.latest.phase !== update.phase) {
      st.latest = update;
      st.phaseStartedAt = this.now();
      st.reports = 1;
      this.emit(st, 'phase');
      return;
    }
    st.latest = update;
    st.reports++;
  }

  /** The call ended: no more lines for it. */
  end(queryId: string): void {
    const st = this.calls.get(queryId);
    if (!st) return;
    if (st.timer) clearTimeout(st.timer);
    this.calls.delete(queryId);
  }

  /** Calls with a pending line (tests). */
  get size(): number {
    return this.calls.size;
  }

  /** Stop every timer (shutdown). */
  close(): void {
    for (const st of this.calls.values()) if (st.timer) clearTimeout(st.timer);
    this.calls.clear();
  }

  private emit(st: State, reason: 'phase' | 'interval'): void {
    if (st.timer) clearTimeout(st.timer);
    const now = this.now();
    const s = st.subject;
    const u = st.latest;
    const fraction = progressFraction(u);
    const where = s.target !== undefined ? ` ${s.target}` : '';
    this.opts.logger.info(
      {
        event: 'procedure_progress',
        reason,
        queryId: s.queryId,
        ...(s.callId !== undefined ? { callId: s.callId } : {}),
        ...(s.jobId !== undefined ? { jobId: s.jobId } : {}),
        mode: s.jobId !== undefined ? 'async' : 'sync',
        procedure: s.procedure,
        catalog: s.catalog,
        ...(s.target !== undefined ? { target: s.target } : {}),
        connectionId: s.connectionId,
        user: s.user,
        dryRun: s.dryRun,
        phase: u.phase,
        ...(u.done !== undefined ? { done: u.done } : {}),
        ...(u.total !== undefined ? { total: u.total } : {}),
        ...(fraction !== null ? { fraction: Math.round(fraction * 10_000) / 10_000 } : {}),
        ...(u.message !== undefined ? { progressMessage: u.message } : {}),
        reportsSinceLastLine: st.reports,
        elapsedMs: now - s.startedAt,
        phaseElapsedMs: now - st.phaseStartedAt,
      },
      `${s.procedure}${where}: ${progressText(u)}`,
    );
    st.reports = 0;
    st.timer = setTimeout(() => {
      st.timer = null;
      if (this.calls.get(s.queryId) === st) this.emit(st, 'interval');
    }, this.opts.intervalMs);
    st.timer.unref();
  }
}
