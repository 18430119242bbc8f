/**
 * MariaDB progress-report packets (protocol/progress-report.ts) for the CALL a session runs
 * itself, to a client that negotiated MARIADB_CLIENT_PROGRESS. The procedure's progress is
 * what it reports through ctx.progress and the router keeps on the call's entry in its
 * running-calls registry (list_jobs reads the same); it is read here at most every
 * PROGRESS_REPORT_INTERVAL_MS, and a packet goes out only when it changed. Each phase the
 * call enters is the next stage (MariaDB's stage/max_stage: the phases seen so far, as the
 * total is not known in advance); done/total is the progress within it.
 */
import { buildProgressReport } from '../../protocol/progress-report.js';
import { progressFraction, progressText } from '../observability/progress-log.js';

/**
 * How often a running CALL's progress is looked at (and reported when it changed). MariaDB's
 * own progress_report_time defaults to 5 s; the proxy's calls are shorter, so more often.
 */
export const PROGRESS_REPORT_INTERVAL_MS = 500;

/** The part of a running call's progress a report needs (procedures/framework/cancellation.ts CallProgress). */
export interface ProgressView {
  phase: string;
  done?: number;
  total?: number;
  message?: string;
}

export interface RunningCallView {
  progress?: ProgressView;
}

/** The router's running-calls registry as this module reads it (src/router/router.ts `calls`). */
export interface RunningCallsSource {
  calls?: { of(connectionId: number): readonly RunningCallView[] };
}

export class ProgressReporter {
  private timer: NodeJS.Timeout | null = null;
  private readonly phases: string[] = [];
  private last = '';
  /** Sequence id of the next packet of the response (the command was 0). */
  private seq = 1;

  constructor(
    private readonly read: () => ProgressView | undefined,
    private readonly send: (packetPayload: Buffer, seq: number) => void,
    private readonly intervalMs = PROGRESS_REPORT_INTERVAL_MS,
  ) {}

  start(): this {
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    this.timer.unref();
    return this;
  }

  /** Reports the current progress if it changed since the last report. */
  tick(): void {
    const p = this.read();
    if (!p) return;
    const key = `${p.phase}\0${p.done ?? ''}\0${p.total ?? ''}\0${p.message ?? ''}`;
    if (key === this.last) return;
    this.last = key;
    let stage = this.phases.indexOf(p.phase) + 1;
    if (stage === 0) stage = this.phases.push(p.phase);
    const payload = buildProgressReport({ stage, maxStage: this.phases.length, progress: progressFraction(p) ?? 0, info: progressText(p) });
    this.send(payload, this.seq);
    this.seq = (this.seq + 1) & 0xff;
  }

  /** Stops reporting; returns the sequence id the response continues with. */
  stop(): number {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    return this.seq;
  }
}

/** The progress of the call the connection runs now, from the router's registry (undefined: none yet). */
export function currentProgress(source: RunningCallsSource, connectionId: number): ProgressView | undefined {
  const running = source.calls?.of(connectionId) ?? [];
  for (let i = running.length - 1; i >= 0; i--) {
    const p = running[i]!.progress;
    if (p) return p;
  }
  return undefined;
}
