/**
 * Runs one intercepted CALL: registry lookup -> bind arguments -> authorize -> run with a
 * deadline and abort signal -> result set -> hooks (audit, metrics, FE refresh). Every
 * failure, whatever threw it, comes back as a ProcedureError with a stable code; nothing
 * escapes as an exception.
 *
 * The hooks are the extension points of issue 6 (privileges, audit, metrics, FE refresh);
 * the executor itself knows nothing about how they are implemented.
 */
import { randomUUID } from 'node:crypto';
import type { LocalReply, Warning } from '../src/route.js';
import { bindArgumentsDynamic, type AnyBoundArgs, type CallArgument } from './binding.js';
import type { CatalogProvider } from './catalog.js';
import { createContext, silentLogger, systemClock, type CallerInfo, type Clock, type ProcedureLimits, type ProcedureLogger, type ProgressUpdate } from './context.js';
import { CallTimeoutReason, ProcedureError, toProcedureError } from './errors.js';
import type { ProcedureRegistry } from './registry.js';
import { errorReply, toCallReplies, type ProcedureResult } from './result.js';
import type { ProcedureSignature } from './signature.js';

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
}

/** What hooks see of a call once it is bound. */
export interface CallInfo {
  queryId: string;
  catalog: string;
  /** Canonical procedure name. */
  procedure: string;
  signature: ProcedureSignature;
  args: AnyBoundArgs;
  caller: CallerInfo;
  statement: string;
  startedAt: number;
  dryRun: boolean;
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
      /** Null when the call failed before binding (unknown procedure, bad arguments). */
      info: CallInfo | null;
      error: ProcedureError;
      replies: LocalReply[];
      affected: string[];
      committed: boolean;
      durationMs: number;
    };

export interface CallHooks {
  /** Privilege check (issue 6); throw a ProcedureError (TABLE_ACCESS_DENIED, ...) to refuse. */
  authorize?(call: CallInfo): Promise<void>;
  onStart?(call: CallInfo): void;
  onProgress?(call: CallInfo, update: ProgressUpdate): void;
  /** Called once for every call that reached binding, successful or not (audit, metrics). */
  onFinish?(outcome: CallOutcome): void | Promise<void>;
  /** After a successful, non-dry-run call that changed objects (FE `REFRESH TABLE`); warnings go on the OK. */
  afterChange?(call: CallInfo, affected: string[]): Promise<Warning[]>;
}

export interface ExecutorOptions {
  registry: ProcedureRegistry;
  catalogs: CatalogProvider;
  limits: ProcedureLimits;
  hooks?: CallHooks;
  logger?: ProcedureLogger;
  clock?: Clock;
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
  async execute(req: CallRequest, caller: CallerInfo, signal: AbortSignal): Promise<LocalReply[]> {
    return (await this.run(req, caller, signal)).replies;
  }

  /** Run a call and return the full outcome (the `call` command and tests use this). Never throws. */
  async run(req: CallRequest, caller: CallerInfo, outerSignal: AbortSignal): Promise<CallOutcome> {
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
      const args = bindArgumentsDynamic(proc.signature, req.args, proc.paramIndex);
      info = {
        queryId: randomUUID(),
        catalog: req.catalog,
        procedure: proc.signature.name,
        signature: proc.signature,
        args,
        caller,
        statement: req.statement,
        startedAt,
        dryRun: args['dry_run'] === true,
      };
    } catch (e) {
      const error = toProcedureError(e);
      return { ok: false, info: null, error, replies: [errorReply(error)], affected: [], committed: false, durationMs: clock.now() - startedAt };
    }

    const timeoutMs = Math.min(req.timeoutMs ?? limits.default_timeout_ms, limits.max_timeout_ms);
    const controller = new AbortController();
    const onOuterAbort = (): void => controller.abort(outerSignal.reason);
    if (outerSignal.aborted) onOuterAbort();
    else outerSignal.addEventListener('abort', onOuterAbort, { once: true });
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
      onProgress: (u) => hooks.onProgress?.(info, u),
    });

    let outcome: CallOutcome;
    try {
      if (hooks.authorize) await hooks.authorize(info);
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
      const replies = toCallReplies(proc.signature, result, warnings);
      outcome = { ok: true, info, result, replies, warnings, affected: [...state.affected], committed: state.committed, durationMs: clock.now() - startedAt };
    } catch (e) {
      let error = toProcedureError(e, signal);
      if (error.committed === undefined && state.committed) {
        error = new ProcedureError(error.code, error.message, { cause: error.cause, committed: true });
      }
      if (error.code === 'INTERNAL_ERROR') logger.error({ err: e, procedure: info.procedure, queryId: info.queryId }, 'procedure failed unexpectedly');
      outcome = { ok: false, info, error, replies: [errorReply(error)], affected: [...state.affected], committed: state.committed, durationMs: clock.now() - startedAt };
    } finally {
      clearTimeout(timer);
      outerSignal.removeEventListener('abort', onOuterAbort);
    }
    try {
      await hooks.onFinish?.(outcome);
    } catch (e) {
      logger.error({ err: e, queryId: info.queryId }, 'onFinish hook failed');
    }
    return outcome;
  }
}
