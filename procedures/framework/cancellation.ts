/**
 * Time limits and cancellation of procedure calls.
 *
 * * A call's time limit comes from its `timeout` argument, else the session's
 *   `@paimon_call_timeout` user variable, else the configured default; it may not exceed the
 *   configured maximum. Values are seconds, or durations such as `500ms`, `90s`, `10m`, `2h`.
 * * Every running call registers an AbortController under its connection id, so that
 *   `KILL QUERY <id>` / `KILL <id>` from another connection can abort it; a client that
 *   disconnects aborts its own synchronous call. The signal's reason says why (a
 *   `CallTimeoutReason` for a timeout, a `KillReason` for KILL, a `ClientGoneReason` for a
 *   disconnect), and procedures/framework/errors.ts `abortError` turns it into TIMEOUT or
 *   QUERY_INTERRUPTED with a message that says whether anything was committed.
 */
import { createHash } from 'node:crypto';
import { readDuration } from '../../src/paimon/spec/core-options.js';
import { CallTimeoutReason, ProcedureError } from './errors.js';

/** The user variable a session sets to change its calls' default limit: `SET @paimon_call_timeout = '10m'`. */
export const TIMEOUT_SESSION_VARIABLE = 'paimon_call_timeout';
/** The framework-level named argument: `CALL ...(table => 't', timeout => '30m')`. */
export const TIMEOUT_ARGUMENT = 'timeout';

export interface TimeoutSettings {
  defaultMs: number;
  maxMs: number;
}

/**
 * Parse a duration: a number is seconds (as Doris's `query_timeout`), a string may carry a
 * unit (ms, s, m, h, d). Returns milliseconds; throws INVALID_ARGUMENT for anything else.
 */
export function parseDurationMs(value: unknown, what: string): number {
  if (typeof value === 'bigint') value = Number(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value <= 0) throw new ProcedureError('INVALID_ARGUMENT', `${what} must be a positive number of seconds, got ${value}`);
    return Math.round(value * 1000);
  }
  if (typeof value === 'string') {
    const d = readDuration(value, 1000);
    if ('ms' in d && d.ms > 0) return d.ms;
  }
  throw new ProcedureError('INVALID_ARGUMENT', `${what} must be seconds or a duration like '90s', '10m', '2h', got ${JSON.stringify(String(value))}`);
}

export interface ResolvedTimeout {
  ms: number;
  source: 'argument' | 'session' | 'default';
  /** Set when the session's value was above the maximum and was lowered to it. */
  note?: string;
}

/**
 * The time limit of one call. An argument above the maximum is refused (the caller asked for
 * something explicit that will not be honoured); a session value above it is lowered to the
 * maximum with a note (it was set once, long before this call).
 */
export function resolveTimeout(argument: unknown, sessionValue: unknown, settings: TimeoutSettings): ResolvedTimeout {
  const max = settings.maxMs;
  if (argument !== undefined && argument !== null) {
    const ms = parseDurationMs(argument, `argument ${TIMEOUT_ARGUMENT}`);
    if (ms > max) {
      throw new ProcedureError('INVALID_ARGUMENT', `argument ${TIMEOUT_ARGUMENT} of ${ms} ms is above the configured maximum of ${max} ms (procedures.max_timeout_ms); run the call with async => true for longer work`);
    }
    return { ms, source: 'argument' };
  }
  if (sessionValue !== undefined && sessionValue !== null && sessionValue !== '') {
    const ms = parseDurationMs(sessionValue, `@${TIMEOUT_SESSION_VARIABLE}`);
    if (ms > max) return { ms: max, source: 'session', note: `@${TIMEOUT_SESSION_VARIABLE} of ${ms} ms is above the maximum; ${max} ms is used` };
    return { ms, source: 'session' };
  }
  return { ms: Math.min(settings.defaultMs, max), source: 'default' };
}

// ---------------------------------------------------------------------------------------------
// Abort reasons

/** KILL QUERY / KILL CONNECTION from another connection. */
export class KillReason extends Error {
  constructor(readonly mode: 'query' | 'connection', readonly targetConnectionId: number, readonly byConnectionId: number | null) {
    super(`killed by KILL ${mode === 'query' ? 'QUERY' : 'CONNECTION'} ${targetConnectionId}${byConnectionId === null ? '' : ` from connection ${byConnectionId}`}`);
    this.name = 'KillReason';
  }
}

/** The client closed its connection while its call ran. */
export class ClientGoneReason extends Error {
  constructor(readonly connectionId: number) {
    super(`the client of connection ${connectionId} disconnected`);
    this.name = 'ClientGoneReason';
  }
}

/** A job cancelled with SQL (procedures/jobs). */
export class JobCancelReason extends Error {
  constructor(readonly jobId: string) {
    super(`job ${jobId} was cancelled`);
    this.name = 'JobCancelReason';
  }
}

/** `CALL sys.cancel_job('call-...')` of a running synchronous call (procedures/jobs/job-procedures.ts). */
export class CallCancelReason extends Error {
  constructor(readonly callId: string, readonly byConnectionId: number | null) {
    super(`cancelled by cancel_job('${callId}')${byConnectionId === null ? '' : ` from connection ${byConnectionId}`}`);
    this.name = 'CallCancelReason';
  }
}

// ---------------------------------------------------------------------------------------------
// The registry

/** The last progress a running call reported (ctx.progress), as list_jobs shows it. */
export interface CallProgress {
  phase: string;
  done?: number;
  total?: number;
  message?: string;
  /** When this phase was entered (epoch ms). */
  phaseStartedAt: number;
  /** When the last report arrived (epoch ms). */
  updatedAt: number;
}

export interface RunningCall {
  connectionId: number;
  queryId: string;
  procedure: string;
  startedAt: number;
  /** Who runs it (KILL from another user is refused with 1095). */
  user?: string;
  /**
   * The id list_jobs / job_status / cancel_job show for this call: `call-` and the first 12 hex
   * digits of its query id (the audit record's and the trace's `queryId`), see callIdOf.
   */
  callId: string;
  catalog?: string;
  clientAddress?: string;
  /** What it acts on once its arguments are bound: `db.table[$branch_x]`, `db.*` or `db`. */
  target?: string;
  dryRun?: boolean;
  /** The CALL only submits an `async => true` job (the job, not this entry, is the work). */
  submitsJob?: boolean;
  /** Last progress reported; absent until the procedure reports one. */
  progress?: CallProgress;
}

/** What a caller gives when it registers a call (the registry adds startedAt, callId, progress). */
export type NewRunningCall = Omit<RunningCall, 'startedAt' | 'callId' | 'progress'>;

/** What may be filled in while a call runs (ops-hooks: once the arguments are bound). */
export type RunningCallDetails = Partial<Pick<RunningCall, 'catalog' | 'target' | 'dryRun' | 'clientAddress'>>;

/**
 * The stable id of a running synchronous call: `call-` + 12 lower-case hex digits, the first 12
 * of its query id when that is a UUID (so the audit record is easy to find), else of a SHA-256
 * of it.
 */
export function callIdOf(queryId: string): string {
  const hex = /^[0-9a-f]{8}-?[0-9a-f]{4}/i.test(queryId) ? queryId.replace(/-/g, '').toLowerCase().slice(0, 12) : '';
  return `call-${/^[0-9a-f]{12}$/.test(hex) ? hex : createHash('sha256').update(queryId).digest('hex').slice(0, 12)}`;
}

export function isCallId(s: string): boolean {
  return /^call-[0-9a-f]{12}$/.test(s);
}

/** What the registry aborts for a running call (an AbortController, typically the executor's). */
export interface Abortable {
  abort(reason: Error): void;
}

interface Entry extends RunningCall {
  controller: Abortable;
}

function snapshot(e: Entry): RunningCall {
  const { controller: _c, ...rest } = e;
  return { ...rest, ...(e.progress ? { progress: { ...e.progress } } : {}) };
}

export interface CallHandle {
  /** Aborted on timeout, KILL, disconnect (if a disconnect signal was given) or `abort()`. */
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  /** Abort with a reason (e.g. when the executor itself gives up). */
  abort(reason: Error): void;
  /** Unregister and stop the timer; call in `finally`. */
  dispose(): void;
}

/**
 * Running local procedures by connection id, per proxy process: the one record of what runs
 * (the executor registers every intercepted CALL here with `track` when the router asks; KILL, disconnects,
 * `list()` and list_jobs / job_status / cancel_job read it). The router asks `kill` when a
 * client sends `KILL [QUERY|CONNECTION] <id>`: if `<id>` runs a local procedure here it is
 * aborted and `kill` returns true (answer OK to the killer; for KILL CONNECTION also close the
 * victim and forward the KILL upstream); otherwise the KILL goes to the FE unchanged.
 * A call's progress (`progress`) and bound target (`describe`) are kept on its entry, so another
 * session can see how far a synchronous CALL has got while it runs.
 */
export class CancellationRegistry {
  private readonly byConnection = new Map<number, Set<Entry>>();
  private readonly byQuery = new Map<string, Entry>();

  constructor(private readonly now: () => number = Date.now) {}

  private add(call: NewRunningCall, controller: Abortable): Entry {
    const entry: Entry = { ...call, startedAt: this.now(), callId: callIdOf(call.queryId), controller };
    let set = this.byConnection.get(call.connectionId);
    if (!set) {
      set = new Set();
      this.byConnection.set(call.connectionId, set);
    }
    set.add(entry);
    this.byQuery.set(call.queryId, entry);
    return entry;
  }

  private remove(entry: Entry): void {
    const s = this.byConnection.get(entry.connectionId);
    s?.delete(entry);
    if (s && s.size === 0) this.byConnection.delete(entry.connectionId);
    if (this.byQuery.get(entry.queryId) === entry) this.byQuery.delete(entry.queryId);
  }

  /**
   * Start a call: a signal that aborts after `timeoutMs` (Infinity: never; the executor may
   * own the deadline), on `kill(connectionId)`, or when
   * `disconnect` aborts (the session's "client is gone" signal for a synchronous call).
   */
  start(call: NewRunningCall, timeoutMs: number, disconnect?: AbortSignal): CallHandle {
    const controller = new AbortController();
    const entry = this.add(call, controller);
    // No timer when the executor enforces the deadline itself (timeoutMs = Infinity).
    const timer = Number.isFinite(timeoutMs) ? setTimeout(() => controller.abort(new CallTimeoutReason(timeoutMs)), timeoutMs) : undefined;
    timer?.unref();
    const onGone = (): void => controller.abort(new ClientGoneReason(call.connectionId));
    if (disconnect) {
      if (disconnect.aborted) onGone();
      else disconnect.addEventListener('abort', onGone, { once: true });
    }
    let disposed = false;
    return {
      signal: controller.signal,
      timeoutMs,
      abort: (reason: Error) => controller.abort(reason),
      dispose: () => {
        if (disposed) return;
        disposed = true;
        if (timer) clearTimeout(timer);
        disconnect?.removeEventListener('abort', onGone);
        this.remove(entry);
      },
    };
  }

  /**
   * Track a call whose abort the caller owns (the executor's controller, which the caller's
   * signal and the deadline also abort). Returns the function that stops tracking it; call it
   * in `finally`.
   */
  track(call: NewRunningCall, controller: Abortable): () => void {
    const entry = this.add(call, controller);
    return () => this.remove(entry);
  }

  /** Record a progress report of a running call (unknown query ids are ignored: the call has ended). */
  progress(queryId: string, update: { phase: string; done?: number; total?: number; message?: string }): void {
    const e = this.byQuery.get(queryId);
    if (!e) return;
    const now = this.now();
    const phaseStartedAt = e.progress && e.progress.phase === update.phase ? e.progress.phaseStartedAt : now;
    e.progress = {
      phase: update.phase,
      ...(update.done !== undefined ? { done: update.done } : {}),
      ...(update.total !== undefined ? { total: update.total } : {}),
      ...(update.message !== undefined ? { message: update.message } : {}),
      phaseStartedAt,
      updatedAt: now,
    };
  }

  /** Fill in what is known once the call is bound (target table, catalog, dry run). */
  describe(queryId: string, details: RunningCallDetails): void {
    const e = this.byQuery.get(queryId);
    if (!e) return;
    for (const [k, v] of Object.entries(details)) if (v !== undefined) (e as unknown as Record<string, unknown>)[k] = v;
  }

  /** A running call by its call id (callIdOf), or undefined when none runs (any more). */
  get(callId: string): RunningCall | undefined {
    for (const e of this.byQuery.values()) if (e.callId === callId) return snapshot(e);
    return undefined;
  }

  /** A running call by its query id. */
  byQueryId(queryId: string): RunningCall | undefined {
    const e = this.byQuery.get(queryId);
    return e ? snapshot(e) : undefined;
  }

  /**
   * Abort one call by its call id, as KILL QUERY would (the procedure stops at its next safe
   * point; its error says whether anything was committed). True when it was running.
   */
  cancel(callId: string, reason: Error): boolean {
    for (const e of this.byQuery.values()) {
      if (e.callId === callId) {
        e.controller.abort(reason);
        return true;
      }
    }
    return false;
  }

  /** Abort every call of a connection (with `reason`, default a KillReason). True when there was one to abort. */
  kill(targetConnectionId: number, mode: 'query' | 'connection', byConnectionId: number | null = null, reason?: Error): boolean {
    const set = this.byConnection.get(targetConnectionId);
    if (!set || set.size === 0) return false;
    for (const e of set) e.controller.abort(reason ?? new KillReason(mode, targetConnectionId, byConnectionId));
    return true;
  }

  /** Abort every call of a connection with this reason (client disconnect, shutdown). */
  abort(connectionId: number, reason: Error): boolean {
    const set = this.byConnection.get(connectionId);
    if (!set || set.size === 0) return false;
    for (const e of set) e.controller.abort(reason);
    return true;
  }

  /** The calls a connection runs now (empty when none). */
  of(connectionId: number): RunningCall[] {
    return [...(this.byConnection.get(connectionId) ?? [])].map(snapshot);
  }

  isRunning(connectionId: number): boolean {
    return (this.byConnection.get(connectionId)?.size ?? 0) > 0;
  }

  /** What runs now (for a processlist-style view), oldest first. */
  list(): RunningCall[] {
    const out: RunningCall[] = [];
    for (const set of this.byConnection.values()) for (const e of set) out.push(snapshot(e));
    return out.sort((a, b) => a.startedAt - b.startedAt);
  }
}

/** Throw the signal's abort as a ProcedureError-producing exception at a safe point. */
export function checkpoint(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason));
}

/**
 * Recognise `SET @paimon_call_timeout = <value>` (also `:=`, and as one assignment of a SET
 * list) so the session can mirror it after the FE accepted the statement. Returns the value as
 * written (a number or string literal's text), null for `= NULL` (back to the default), or
 * undefined when the statement does not set it.
 */
export function parseSessionTimeoutSet(sql: string): string | null | undefined {
  const re = new RegExp(`@${TIMEOUT_SESSION_VARIABLE}\\s*:?=\\s*('(?:[^'\\\\]|\\\\.|'')*'|"(?:[^"\\\\]|\\\\.|"")*"|[0-9.]+|NULL)`, 'i');
  if (!/^\s*SET\s/i.test(sql)) return undefined;
  const m = re.exec(sql);
  if (!m) return undefined;
  const v = m[1]!;
  if (/^NULL$/i.test(v)) return null;
  if (v.startsWith("'") || v.startsWith('"')) return v.slice(1, -1).replace(/''/g, "'").replace(/""/g, '"');
  return v;
}

/** Per-connection mirror of `@paimon_call_timeout` (the session sets, the executor hook reads). */
export class SessionTimeouts {
  private readonly byConnection = new Map<number, string>();
  /** Feed every statement the FE (or standalone responder) accepted. */
  observe(connectionId: number, sql: string): void {
    const v = parseSessionTimeoutSet(sql);
    if (v === undefined) return;
    if (v === null) this.byConnection.delete(connectionId);
    else this.byConnection.set(connectionId, v);
  }
  get(connectionId: number): string | undefined {
    return this.byConnection.get(connectionId);
  }
  /** Forget a closed connection. */
  forget(connectionId: number): void {
    this.byConnection.delete(connectionId);
  }
}
