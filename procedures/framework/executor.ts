/**
 * Runs one intercepted CALL: registry lookup -> bind arguments -> authorize -> run with a
 * deadline and abort signal -> result set -> hooks (audit, metrics, FE refresh). Every
 * failure, whatever threw it, comes back as a ProcedureError with a stable code; nothing
 * escapes as an exception.
 *
 * The hooks are the extension points (privileges, audit, metrics, FE refresh); the executor
 * itself knows nothing about how they are implemented.
 *
 * The executor owns a call's abort: one AbortController per call, aborted by the caller's
 * signal (the session's: client gone), by KILL (the controller is registered in the
 * running-calls registry when the caller asks), or by the deadline; and one translation of
 * whatever ended the call into a ProcedureError (toProcedureError).
 */
import { randomUUID } from 'node:crypto';
import type { LocalReply, Warning } from './reply.js';
import { bindArgumentsDynamic, bindFrameworkArguments, type AnyBoundArgs, type CallArgument } from './binding.js';
import type { CatalogProvider } from './catalog.js';
import { createContext, silentLogger, systemClock, type CallerInfo, type Clock, type ProcedureLimits, type ProcedureLogger, type ProgressUpdate } from './context.js';
import type { CancellationRegistry, NewRunningCall } from './cancellation.js';
import { CallTimeoutReason, ProcedureError, toProcedureError } from './errors.js';
import type { ProcedureRegistry } from './registry.js';
import { errorReply, toCallReplies, type ProcedureResult } from './result.js';
import type { ParamSpec, ProcedureSignature } from './signature.js';

export interface CallRequest {
  /** Catalog the call runs in (already resolved by the router: explicit or the session's current one). */
  catalog: string;
  /** Procedure name as written. */
  procedure: string;
  args: readonly CallArgument[];
  /** The statement text, for audit (the audit writer masks secrets). */
  statement: string;
  /** Per-call time limit; capped by limits.max_timeout_ms. Default limits.default_timeout_ms. */
  timeoutMs?: number;
  /** The call's query id (audit, trace, the running-calls registry); generated when absent. */
  queryId?: string;
  /** Set when the call runs as the work of an asynchronous job (audit `jobId`; the job holds its heavy-job slot). */
  jobId?: string;
  /** The procedure's progress reports of this call (an async job records them), besides hooks.onProgress. */
  onProgress?: (update: ProgressUpdate) => void;
}

/** What hooks see of a call once it is bound. */
export interface CallInfo {
  queryId: string;
  catalog: string;
  /** Canonical procedure name. */
  procedure: string;
  signature: ProcedureSignature;
  args: AnyBoundArgs;
  /** Framework arguments given by name (ExecutorOptions.frameworkParams, e.g. timeout, async), bound to their types. */
  frameworkArgs: AnyBoundArgs;
  caller: CallerInfo;
  statement: string;
  startedAt: number;
  dryRun: boolean;
  /** The async job this call is the work of (CallRequest.jobId). */
  jobId?: string;
}

export type CallOutcome =
  | {
      ok: true;
      info: CallInfo;
      result: ProcedureResult;
      replies: LocalReply[];
      warnings: Warning[];
      affected: string[];
      committed: boolean;
      durationMs: number;
    }
  | {
      ok: false;
      /** Null when the call failed before binding (unknown procedure, bad arguments, unparsable CALL). */
      info: CallInfo | null;
      /** What was asked, when info is null: onFinish still sees who called what (audit of rejected CALLs). */
      rejected?: { request: CallRequest; caller: CallerInfo; queryId: string; startedAt: number };
      error: ProcedureError;
      replies: LocalReply[];
      affected: string[];
      committed: boolean;
      durationMs: number;
    };

export interface CallHooks {
  /**
   * Privilege check, table lock and heavy-job slot; throw a ProcedureError
   * (TABLE_ACCESS_DENIED, ...) to refuse. `signal` is the call's own (KILL, disconnect,
   * timeout): a wait for a lock or slot must end when it aborts.
   */
  authorize?(call: CallInfo, signal: AbortSignal): Promise<void>;
  onStart?(call: CallInfo): void;
  onProgress?(call: CallInfo, update: ProgressUpdate): void;
  /**
   * Called exactly once for every call, successful or not (audit, metrics); for a call refused
   * before binding (unknown procedure, bad arguments, unparsable CALL) `info` is null and
   * `rejected` says who asked for what.
   */
  onFinish?(outcome: CallOutcome): void | Promise<void>;
  /** After a successful, non-dry-run call that changed objects (FE `REFRESH TABLE`); warnings go on the OK. */
  afterChange?(call: CallInfo, affected: string[]): Promise<Warning[]>;
  /**
   * The call's time limit in ms (from a `timeout` framework argument, a session setting...);
   * undefined: CallRequest.timeoutMs or the configured default. Capped by limits.max_timeout_ms.
   */
  timeoutMs?(call: CallInfo): number | undefined;
}

export interface ExecutorOptions {
  registry: ProcedureRegistry;
  catalogs: CatalogProvider;
  limits: ProcedureLimits;
  hooks?: CallHooks;
  logger?: ProcedureLogger;
  clock?: Clock;
  /**
   * Arguments every procedure accepts by name in addition to its own (`timeout`,
   * `async`). They are taken out before binding (so a procedure never sees them) and bound
   * with the same type rules; a procedure's own parameter of the same name wins.
   */
  frameworkParams?: readonly ParamSpec[];
  /**
   * Masks secrets in an error message before it becomes an ERR packet, a log line or an
   * audit record (the proxy passes src/security/masking.ts `maskText`; injected because
   * procedures/ does not depend on src/). Default: messages are passed unchanged.
   */
  maskMessage?: (text: string) => string;
}

/** Where a call is registered while it runs, so that KILL and list_jobs find it. */
export interface RunningCallRegistration {
  calls: CancellationRegistry;
  call: NewRunningCall;
}

export class ProcedureExecutor {
  readonly registry: ProcedureRegistry;
  readonly catalogs: CatalogProvider;
  private readonly opts: ExecutorOptions;

  constructor(opts: ExecutorOptions) {
    this.opts = opts;
    this.registry = opts.registry;
    this.catalogs = opts.catalogs;
  }

  /** Run a call and return its replies: [resultset, ok], [ok] or [error]. Never throws. */
  async execute(req: CallRequest, caller: CallerInfo, signal: AbortSignal, running?: RunningCallRegistration): Promise<LocalReply[]> {
    return (await this.run(req, caller, signal, running)).replies;
  }

  /**
   * Run a call and return the full outcome (the `call` command and tests use this). Never throws.
   * `outerSignal` is the caller's (the session's: the client went away); with `running`, the
   * call is in that registry from start to finish (audit included), where KILL aborts it.
   */
  async run(req: CallRequest, caller: CallerInfo, outerSignal: AbortSignal, running?: RunningCallRegistration): Promise<CallOutcome> {
    const controller = new AbortController();
    const onOuterAbort = (): void => controller.abort(outerSignal.reason);
    if (outerSignal.aborted) onOuterAbort();
    else outerSignal.addEventListener('abort', onOuterAbort, { once: true });
    const untrack = running?.calls.track(running.call, controller);
    try {
      return await this.runControlled(req, caller, controller);
    } finally {
      outerSignal.removeEventListener('abort', onOuterAbort);
      untrack?.();
    }
  }

  private async runControlled(req: CallRequest, caller: CallerInfo, controller: AbortController): Promise<CallOutcome> {
    const clock = this.opts.clock ?? systemClock;
    const logger = this.opts.logger ?? silentLogger;
    const hooks = this.opts.hooks ?? {};
    const limits = this.opts.limits;
    const startedAt = clock.now();

    // Before binding: the failure is about the statement itself; no hooks see it (no CallInfo).
    let info: CallInfo;
    let proc;
    try {
      const catalog = this.catalogs.get(req.catalog);
      if (catalog === undefined) {
        throw new ProcedureError('CATALOG_NOT_FOUND', `Catalog '${req.catalog}' is not a configured Paimon catalog (configured: ${this.catalogs.names().join(', ') || 'none'})`);
      }
      proc = this.registry.get(req.procedure, req.catalog);
      const frameworkParams = this.opts.frameworkParams ?? [];
      const { own, framework } = this.splitFrameworkArgs(proc.paramIndex, req.args);
      // Messages show the framework arguments in the signature and suggest them for near misses.
      const args = bindArgumentsDynamic(proc.signature, own, proc.paramIndex, frameworkParams);
      const frameworkArgs = framework.length > 0 ? bindFrameworkArguments(proc.signature, frameworkParams, framework) : {};
      info = {
        queryId: req.queryId ?? randomUUID(),
        catalog: req.catalog,
        procedure: proc.signature.name,
        signature: proc.signature,
        args,
        frameworkArgs,
        caller,
        statement: req.statement,
        startedAt,
        dryRun: args['dry_run'] === true,
        ...(req.jobId !== undefined ? { jobId: req.jobId } : {}),
      };
    } catch (e) {
      return this.reject(req, caller, e, startedAt);
    }

    let timeoutMs: number;
    try {
      timeoutMs = Math.min(hooks.timeoutMs?.(info) ?? req.timeoutMs ?? limits.default_timeout_ms, limits.max_timeout_ms);
    } catch (e) {
      const error = this.masked(toProcedureError(e));
      const outcome: CallOutcome = { ok: false, info, error, replies: [errorReply(error)], affected: [], committed: false, durationMs: clock.now() - startedAt };
      await this.finish(outcome, hooks, logger);
      return outcome;
    }
    const timer = setTimeout(() => controller.abort(new CallTimeoutReason(timeoutMs)), timeoutMs);
    timer.unref?.();
    const signal = controller.signal;

    const { context, state } = createContext({
      procedure: info.procedure,
      catalog: this.catalogs.get(req.catalog)!,
      caller,
      signal,
      dryRun: info.dryRun,
      limits,
      clock,
      logger,
      onProgress: (u) => {
        hooks.onProgress?.(info, u);
        req.onProgress?.(u);
      },
    });

    let outcome: CallOutcome;
    try {
      if (hooks.authorize) await hooks.authorize(info, signal);
      hooks.onStart?.(info);
      context.throwIfAborted();
      const result = await proc.run(info.args, context);
      // A procedure that returned normally after the stop may not have noticed it; it still
      // returned a complete result, so report it rather than an ambiguous interruption.
      const warnings = [...state.warnings];
      if (!info.dryRun && state.affected.length > 0 && hooks.afterChange) {
        try {
          warnings.push(...(await hooks.afterChange(info, state.affected)));
        } catch (e) {
          warnings.push({ level: 'Warning', code: 1105, message: `after-change hook failed: ${e instanceof Error ? e.message : String(e)}` });
        }
      }
      // Warnings go to SHOW WARNINGS and the audit: masked like error messages.
      const mask = this.opts.maskMessage;
      if (mask) for (let i = 0; i < warnings.length; i++) warnings[i] = { ...warnings[i]!, message: mask(warnings[i]!.message) };
      const replies = toCallReplies(proc.signature, result, warnings);
      outcome = { ok: true, info, result, replies, warnings, affected: [...state.affected], committed: state.committed, durationMs: clock.now() - startedAt };
    } catch (e) {
      let error = toProcedureError(e, signal);
      if (error.committed === undefined && state.committed) {
        error = new ProcedureError(error.code, error.message, { cause: error.cause, committed: true });
      }
      error = this.masked(error);
      if (error.code === 'INTERNAL_ERROR') logger.error({ err: e, procedure: info.procedure, queryId: info.queryId }, 'procedure failed unexpectedly');
      outcome = { ok: false, info, error, replies: [errorReply(error)], affected: [...state.affected], committed: state.committed, durationMs: clock.now() - startedAt };
    } finally {
      clearTimeout(timer);
    }
    await this.finish(outcome, hooks, logger);
    return outcome;
  }

  /**
   * Answer a CALL refused before it was bound (unknown catalog or procedure, an argument that
   * is unknown, missing or of the wrong type, or a CALL the router could not parse) with its
   * error, and give it to onFinish like every other call, so that it is audited and counted
   * exactly once. Never throws.
   */
  async reject(req: CallRequest, caller: CallerInfo, e: unknown, startedAt?: number): Promise<CallOutcome> {
    const clock = this.opts.clock ?? systemClock;
    const t0 = startedAt ?? clock.now();
    const error = this.masked(toProcedureError(e));
    const outcome: CallOutcome = {
      ok: false,
      info: null,
      rejected: { request: req, caller, queryId: req.queryId ?? randomUUID(), startedAt: t0 },
      error,
      replies: [errorReply(error)],
      affected: [],
      committed: false,
      durationMs: clock.now() - t0,
    };
    await this.finish(outcome, this.opts.hooks ?? {}, this.opts.logger ?? silentLogger);
    return outcome;
  }

  /** The error with its message masked (ExecutorOptions.maskMessage); the same object when nothing changes. */
  private masked(error: ProcedureError): ProcedureError {
    const mask = this.opts.maskMessage;
    if (!mask) return error;
    const message = mask(error.message);
    if (message === error.message) return error;
    return new ProcedureError(error.code, message, { cause: error.cause, ...(error.committed !== undefined ? { committed: error.committed } : {}) });
  }

  private async finish(outcome: CallOutcome, hooks: CallHooks, logger: ProcedureLogger): Promise<void> {
    try {
      await hooks.onFinish?.(outcome);
    } catch (e) {
      logger.error({ err: e, queryId: outcome.info?.queryId }, 'onFinish hook failed');
    }
  }

  /** Named arguments that are framework parameters (and not the procedure's own) go aside. */
  private splitFrameworkArgs(index: Map<string, ParamSpec>, args: readonly CallArgument[]): { own: CallArgument[]; framework: CallArgument[] } {
    const fw = this.opts.frameworkParams;
    if (!fw || fw.length === 0) return { own: [...args], framework: [] };
    const own: CallArgument[] = [];
    const framework: CallArgument[] = [];
    for (const a of args) {
      const n = a.name?.toLowerCase();
      if (n !== undefined && !index.has(n) && fw.some((p) => p.name.toLowerCase() === n || (p.aliases ?? []).some((x) => x.toLowerCase() === n))) {
        framework.push(a);
      } else {
        own.push(a);
      }
    }
    return { own, framework };
  }
}
