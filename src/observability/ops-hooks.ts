/**
 * The operations layer around every intercepted CALL, as the procedure executor's hooks
 * (procedures/framework/executor.ts CallHooks): privilege check, per-table lock and heavy-job cap,
 * per-call time limit, trace span with phases, metrics, FE refresh and the audit record.
 * What a call needs is read from its procedure's signature (privilege, and the traits of
 * procedures/framework/signature.ts: changes metadata, heavy, caller-scoped).
 * Each piece is optional, so the same function serves the standalone proxy, the proxy in front
 * of an FE, the `call` command and tests.
 */
import type { Tracer } from '@opentelemetry/api';
import type { CallHooks, CallInfo, CallOutcome } from '../../procedures/framework/executor.js';
import type { ProgressUpdate } from '../../procedures/framework/context.js';
import { ProcedureError } from '../../procedures/framework/errors.js';
import { parseTableIdentifier } from '../../procedures/framework/target.js';
import { callIdOf, resolveTimeout, TIMEOUT_ARGUMENT, type CancellationRegistry, type TimeoutSettings } from '../../procedures/framework/cancellation.js';
import { TableLockManager, tableLockKey } from '../../procedures/framework/concurrency/table-lock.js';
import type { HeavyJobLimiter } from '../../procedures/framework/concurrency/heavy-job-limiter.js';
import type { Warning } from '../router/route.js';
import type { FeRefresher } from '../fe-refresh.js';
import type { GrantSource } from '../security/grant-source.js';
import { authorize, identityOf, orphanFloorRequirement, requirementFor, satisfies, type Privilege, type UserGrants, type UserIdentity } from '../security/privileges.js';
import { AUDIT_MAX_STATEMENT_BYTES, buildAuditRecord, newAuditProgress, truncateUtf8, type AuditRecord, type AuditSink, type AuditOutcome } from './audit.js';
import type { CallArgument } from '../../procedures/framework/binding.js';
import type { Logger } from './logger.js';
import type { ProxyMetrics } from './metrics.js';
import { CallTrace, type Phase } from './tracing.js';
import { maskText } from '../security/masking.js';
import { traitsOf } from '../../procedures/framework/signature.js';
import { CallProgressLog, progressFraction, type ProgressSubject } from './progress-log.js';

export interface OpsHooksOptions {
  logger?: Pick<Logger, 'warn' | 'error' | 'info'>;
  metrics?: ProxyMetrics;
  audit?: AuditSink;
  /** Undefined: no privilege checks (security.check_privileges: false). */
  grants?: GrantSource;
  refresher?: FeRefresher;
  locks?: { manager: TableLockManager; mode: 'wait' | 'fail'; waitMs: number };
  limiter?: HeavyJobLimiter;
  /**
   * True when the job manager takes the heavy-job slot of an async job before its work runs
   * (ops-runtime wires it so): the work of a job (CallInfo.jobId set) then does not take a
   * second one, which would halve the cap or, with a cap of 1, wait for itself.
   */
  jobsHoldHeavySlots?: boolean;
  /** Per-call limits; `session` reads a connection's `@paimon_call_timeout` as the session mirrors it. */
  timeouts?: TimeoutSettings & { session?: (connectionId: number) => unknown };
  tracer?: Tracer;
  now?: () => number;
  /**
   * The running-calls registry the router tracks synchronous CALLs in: their bound target and
   * the phases of waiting for a table lock or a heavy-job slot are recorded on their entries
   * (the procedure's own progress reaches it through the router), for list_jobs / job_status.
   */
  calls?: CancellationRegistry;
  /** Progress lines in the log: at most one every `intervalMs` per call while a phase runs, one per phase change; 0: none. */
  progressLog?: { intervalMs: number };
}

/** What ops hooks offer besides the executor hooks. */
export interface OpsHooks extends CallHooks {
  /** Stop the progress-log timers (shutdown). */
  close(): void;
}

interface CallState {
  trace: CallTrace;
  /** Who and what the progress lines and the progress gauge are about. */
  subject: ProgressSubject;
  /** The last progress the procedure reported. */
  progress: ProgressUpdate | null;
  /** It waited for a table lock or heavy-job slot (a wait phase was recorded and logged). */
  waited: boolean;
  releases: (() => void)[];
  /** onStart ran (the active-jobs gauge was raised). */
  started: boolean;
}

/** Map a procedure's progress phase name ('plan', 'delete data', 'commit', ...) to a trace phase. */
export function tracePhaseOf(phase: string): Phase {
  const p = phase.toLowerCase();
  if (p.startsWith('resolve')) return 'resolve';
  if (p.startsWith('plan') || p.startsWith('scan')) return 'plan';
  if (p.startsWith('commit')) return 'commit';
  if (p.startsWith('refresh')) return 'refresh';
  return 'write';
}

function num(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return Number(v);
  return null;
}

function firstOf(row: Record<string, unknown> | undefined, names: readonly string[]): number | null {
  if (!row) return null;
  for (const n of names) {
    const v = num(row[n]);
    if (v !== null) return v;
  }
  return null;
}

/** A 64-bit id exactly: a number while it is safe, else the bigint (snapshot ids may pass 2^53). */
function exactId(v: unknown): number | bigint | null {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? v : null;
  const big = typeof v === 'bigint' ? v : typeof v === 'string' && /^-?\d{1,20}$/.test(v) ? BigInt(v) : null;
  if (big === null) return null;
  return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
}

function firstId(row: Record<string, unknown> | undefined, names: readonly string[]): number | bigint | null {
  if (!row) return null;
  for (const n of names) {
    const v = exactId(row[n]);
    if (v !== null) return v;
  }
  return null;
}

/**
 * Facts for audit and metrics from a procedure's first result row, by the column names the
 * procedures use (`pinned_snapshot_id`, `deleted_files`, ...). Snapshot ids are exact.
 */
export function resultFacts(outcome: CallOutcome): { pinned: number | bigint | null; resulting: number | bigint | null; deletedFiles: number; rewrittenRows: number; rewrittenBytes: number } {
  const row = outcome.ok ? (outcome.result.rows[0] as Record<string, unknown> | undefined) : undefined;
  return {
    pinned: firstId(row, ['pinned_snapshot_id', 'pinned_snapshot']),
    resulting: firstId(row, ['resulting_snapshot_id', 'new_snapshot_id', 'committed_snapshot_id', 'snapshot_id']),
    deletedFiles: firstOf(row, ['deleted_files', 'deleted_files_count', 'deleted_file_count']) ?? 0,
    rewrittenRows: firstOf(row, ['rewritten_rows', 'rows_rewritten']) ?? 0,
    rewrittenBytes: firstOf(row, ['rewritten_bytes', 'written_bytes', 'bytes_rewritten']) ?? 0,
  };
}

/** Unbound arguments as the statement gave them (`name` or `#position` -> value text); the audit masks them. */
export function argumentsAsWritten(args: readonly CallArgument[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  args.forEach((a, i) => {
    const v = a.value;
    out[a.name ?? `#${i + 1}`] = v.kind === 'null' ? null : v.kind === 'string' ? v.value : v.kind === 'boolean' ? v.value : v.text;
  });
  return out;
}

/** The object a call acts on, from its `table` / `database` argument. */
export function callTarget(call: CallInfo): { catalog: string; database?: string; table?: string } {
  const table = call.args['table'];
  if (typeof table === 'string' && table.trim() !== '') {
    // Same parsing as the procedure's own ctx.parseTable: a bad identifier fails here with the
    // error the procedure would give, before any privilege is assumed.
    const id = parseTableIdentifier(table, { catalog: call.catalog, currentDatabase: call.caller.currentDatabase, allowWildcard: true, argument: 'table' });
    return { catalog: call.catalog, database: id.database, table: id.table };
  }
  const database = call.args['database'];
  if (typeof database === 'string' && database.trim() !== '') return { catalog: call.catalog, database };
  return { catalog: call.catalog };
}

/** `db.table[$branch_x]`, `db.*` or `db` from a call's target, undefined when it names none. */
export function targetText(t: { database?: string; table?: string }, branch?: string | null): string | undefined {
  if (t.database === undefined) return undefined;
  if (t.table === undefined) return t.database;
  return `${t.database}.${t.table}${branch ? `$branch_${branch}` : ''}`;
}

function branchOf(call: CallInfo): string | null {
  const table = call.args['table'];
  if (typeof table !== 'string') return null;
  try {
    return parseTableIdentifier(table, { catalog: call.catalog, currentDatabase: call.caller.currentDatabase, allowWildcard: true, argument: 'table' }).branch;
  } catch {
    return null;
  }
}

/** Privileges that make a catalog visible to a user (Doris shows a catalog to users with any of them in it). */
const VISIBILITY_PRIVILEGES: readonly Privilege[] = ['SELECT', 'LOAD', 'ALTER', 'CREATE', 'DROP', 'SHOW_VIEW', 'ADMIN'];

/**
 * The privilege check of a caller-scoped procedure (the job procedures), which only ever act on
 * the caller's own jobs: the declared privilege on the catalog or on anything in it (a grant on
 * `paimon.db.t` counts for catalog `paimon`), or ADMIN. A declared SELECT (list_jobs,
 * job_status: reading about one's own jobs) is met by any privilege that makes the catalog
 * visible, so that whoever could submit a job (ALTER on one table) can follow it; ALTER
 * (cancel_job) needs ALTER. Null when allowed.
 */
export function authorizeWithinCatalog(who: UserIdentity, grants: UserGrants, procedure: string, privilege: Privilege, catalog: string): ProcedureError | null {
  const inCatalog = (g: UserGrants['grants'][number]): boolean => g.catalog === '*' || g.catalog.toLowerCase() === catalog.toLowerCase();
  const has = (g: UserGrants['grants'][number]): boolean => (privilege === 'SELECT' ? g.privileges.some((p) => VISIBILITY_PRIVILEGES.includes(p)) : satisfies(g.privileges, privilege));
  if (grants.grants.some((g) => inCatalog(g) && has(g))) return null;
  const u = `'${who.user.replace(/'/g, "''")}'@'${who.host.replace(/'/g, "''")}'`;
  const need = privilege === 'SELECT' ? 'a privilege (SELECT, ALTER, ...)' : privilege;
  return new ProcedureError('DATABASE_ACCESS_DENIED', `Access denied for user ${u} to catalog '${catalog}' (procedure ${procedure} needs ${need} on the catalog or on a database or table in it)`);
}

function boundedText(s: string, max: number): string {
  return truncateUtf8(s, max)?.text ?? s;
}

/** The `procedure` label of calls whose procedure name is not known to be a registered one. */
export const UNKNOWN_PROCEDURE_LABEL = 'unknown';

/**
 * Errors raised before the registry found the procedure (the executor checks the catalog, then
 * looks the procedure up, then binds): with them the name is only what the client wrote.
 */
const NAME_UNCHECKED_CODES: ReadonlySet<unknown> = new Set(['PROCEDURE_NOT_FOUND', 'CATALOG_NOT_FOUND', 'PARSE_ERROR', 'MULTI_STATEMENT', 'INTERNAL_ERROR']);

/**
 * The metric label of a refused CALL's procedure: its name when the registry found it (the
 * refusal came from binding), else `unknown`, so that the label values are the registered
 * names and nothing a client can invent. (Bound calls use the signature's name.)
 */
export function metricProcedureLabel(procedure: string, errorCode: unknown): string {
  return NAME_UNCHECKED_CODES.has(errorCode) ? UNKNOWN_PROCEDURE_LABEL : procedure;
}

export function createOpsHooks(opts: OpsHooksOptions): OpsHooks {
  const now = opts.now ?? Date.now;
  const calls = new Map<string, CallState>();
  const progressLog = opts.progressLog && opts.logger && opts.progressLog.intervalMs > 0 ? new CallProgressLog({ logger: opts.logger, intervalMs: opts.progressLog.intervalMs, now }) : null;
  const stopObservingProgress = opts.metrics?.observeProgress(function* () {
    for (const st of calls.values()) {
      const f = st.progress ? progressFraction(st.progress) : null;
      if (f !== null) yield { procedure: st.subject.procedure, id: st.subject.jobId ?? st.subject.callId ?? st.subject.queryId, phase: st.progress!.phase, fraction: f };
    }
  });
  /**
   * A phase of the call's own, before the procedure runs: on its running-calls entry (a
   * synchronous CALL's; async work shows in its job record) and, for a wait, in the progress log.
   */
  const registryPhase = (call: CallInfo, phase: string, message?: string): void => {
    const update: ProgressUpdate = { phase, ...(message !== undefined ? { message } : {}) };
    if (call.jobId === undefined) opts.calls?.progress(call.queryId, update);
    const st = calls.get(call.queryId);
    if (!st) return;
    if (phase.startsWith('waiting')) {
      st.waited = true;
      progressLog?.report(st.subject, update);
    } else if (st.waited) {
      // The log's last line said it waits: say it no longer does.
      progressLog?.report(st.subject, update);
    }
  };

  const stateOf = (call: CallInfo): CallState => {
    let st = calls.get(call.queryId);
    if (!st) {
      const trace = new CallTrace(call.procedure, {
        'paimon.catalog': call.catalog,
        'paimon.query_id': call.queryId,
        'db.user': call.caller.user,
        'paimon.connection_id': call.caller.connectionId,
        'client.address': call.caller.clientAddress,
        // The statement with secrets masked (the exporter masks every attribute again), as long as the audit keeps it.
        'db.statement': boundedText(maskText(call.statement), AUDIT_MAX_STATEMENT_BYTES),
        ...(call.jobId !== undefined ? { 'paimon.job_id': call.jobId } : {}),
      }, { ...(opts.tracer ? { tracer: opts.tracer } : {}), ...(opts.metrics ? { metrics: opts.metrics } : {}), now });
      let target: string | undefined;
      try {
        target = targetText(callTarget(call), branchOf(call));
      } catch {
        target = undefined; // a bad identifier: authorize reports it
      }
      const subject: ProgressSubject = {
        queryId: call.queryId,
        ...(call.jobId === undefined ? { callId: callIdOf(call.queryId) } : { jobId: call.jobId }),
        procedure: call.procedure,
        catalog: call.catalog,
        ...(target !== undefined ? { target } : {}),
        connectionId: call.caller.connectionId,
        user: call.caller.user,
        dryRun: call.dryRun,
        startedAt: call.startedAt,
      };
      st = { trace, subject, progress: null, waited: false, releases: [], started: false };
      // A synchronous CALL's entry in the running-calls registry learns what it acts on.
      if (call.jobId === undefined) opts.calls?.describe(call.queryId, { catalog: call.catalog, ...(target !== undefined ? { target } : {}), dryRun: call.dryRun });
      calls.set(call.queryId, st);
    }
    return st;
  };

  const hooks: OpsHooks = {
    timeoutMs(call) {
      if (!opts.timeouts) return undefined;
      const session = opts.timeouts.session?.(call.caller.connectionId);
      return resolveTimeout(call.frameworkArgs[TIMEOUT_ARGUMENT], session, opts.timeouts).ms;
    },

    async authorize(call, signal) {
      const st = stateOf(call);
      st.trace.enter('resolve');
      const target = callTarget(call);
      const traits = traitsOf(call.signature);
      if (opts.grants && traits.callerScoped) {
        // list_jobs, job_status, cancel_job act only on the caller's own jobs (job-procedures.ts);
        // their privilege is still checked, within the catalog (see authorizeWithinCatalog).
        const grants = await opts.grants.grantsFor(call.caller);
        const denied = authorizeWithinCatalog(identityOf(call.caller.user, call.caller.clientAddress), grants, call.procedure, call.signature.privilege.privilege, call.catalog);
        if (denied) throw denied;
      } else if (opts.grants) {
        const req = requirementFor(call.procedure, call.signature.privilege, target);
        const grants = await opts.grants.grantsFor(call.caller);
        const who = identityOf(call.caller.user, call.caller.clientAddress);
        const r = authorize(who, grants, req);
        if (!r.ok) throw new ProcedureError(r.error.code, r.error.message);
        // `force => true` lifts a safety floor (remove_orphan_files below orphan_min_age_ms): ADMIN.
        if (call.args['force'] === true) {
          const admin = authorize(who, grants, orphanFloorRequirement(call.procedure));
          if (!admin.ok) throw new ProcedureError(admin.error.code, `${admin.error.message}; force => true lifts a safety floor`);
        }
      }
      // Metadata-changing work (not a dry run) holds the table's lock; heavy work a slot of the cap.
      if (opts.locks && traits.changesMetadata && !call.dryRun && target.database !== undefined && target.table !== undefined && target.table !== '*') {
        const release = await opts.locks.manager.acquire(
          tableLockKey(target.catalog, target.database, target.table),
          { procedure: call.procedure, queryId: call.queryId, connectionId: call.caller.connectionId },
          {
            mode: opts.locks.mode,
            waitMs: opts.locks.waitMs,
            signal,
            onQueued: (d) => {
              opts.metrics?.queued(d, 'table_lock');
              if (d === 1) registryPhase(call, 'waiting for the table lock', `another CALL changes ${tableLockKey(target.catalog, target.database!, target.table!)}`);
            },
          },
        );
        st.releases.push(release);
      }
      // An async job's work already holds its slot: the job manager took it before the job ran.
      if (opts.limiter && traits.heavy && !call.dryRun && (call.jobId === undefined || !opts.jobsHoldHeavySlots)) {
        const limiter = opts.limiter;
        const release = await limiter.acquire({
          waitMs: opts.locks?.waitMs ?? 60_000,
          signal,
          onQueued: (d) => {
            opts.metrics?.queued(d, 'heavy_cap');
            if (d === 1) registryPhase(call, 'waiting for a heavy-job slot', `${limiter.active} of ${limiter.capacity} running (procedures.max_concurrent_heavy)`);
          },
        });
        st.releases.push(release);
      }
    },

    onStart(call) {
      const st = stateOf(call);
      if (!st.started) {
        // Past the privilege check, lock and slot: the entry no longer says it waits.
        registryPhase(call, 'started');
        // The work of an async job is counted as mode async by the job manager (ops-runtime).
        if (call.jobId === undefined) opts.metrics?.jobStarted('sync');
        opts.metrics?.callRunning(call.procedure, call.jobId === undefined ? 'sync' : 'async', 1);
      }
      st.started = true;
    },

    onProgress(call, update: ProgressUpdate) {
      const st = calls.get(call.queryId);
      if (!st) return;
      st.trace.enter(tracePhaseOf(update.phase));
      st.progress = update;
      progressLog?.report(st.subject, update);
    },

    close() {
      progressLog?.close();
      stopObservingProgress?.();
    },

    async afterChange(call, affected): Promise<Warning[]> {
      if (!opts.refresher || !traitsOf(call.signature).changesMetadata) return [];
      calls.get(call.queryId)?.trace.enter('refresh');
      // The refresher reports each attempt to the metrics itself (FeRefreshOptions.onResult).
      return opts.refresher.refresh(call.catalog, affected);
    },

    async onFinish(outcome: CallOutcome) {
      const call = outcome.info;
      if (!call) {
        if (!outcome.ok && outcome.rejected) await auditRejected(outcome, outcome.rejected);
        return;
      }
      const st = calls.get(call.queryId);
      calls.delete(call.queryId);
      progressLog?.end(call.queryId);
      const end = now();
      if (st) for (const r of st.releases.reverse()) r();
      const facts = resultFacts(outcome);
      const error = outcome.ok ? undefined : outcome.error;
      st?.trace.closePhase(error);
      const progress = newAuditProgress();
      progress.pinnedSnapshot = facts.pinned;
      progress.resultingSnapshot = facts.resulting;
      progress.affectedObjects = [...outcome.affected];
      progress.phases = { ...(st?.trace.phases ?? {}) };
      progress.committed = outcome.committed;
      const record = buildAuditRecord(
        {
          queryId: call.queryId,
          connectionId: call.caller.connectionId,
          user: call.caller.user,
          clientAddress: call.caller.clientAddress,
          catalog: call.catalog,
          procedure: call.procedure,
          arguments: { ...call.args, ...call.frameworkArgs },
          statement: call.statement,
          dryRun: call.dryRun,
          ...(call.jobId !== undefined ? { jobId: call.jobId } : {}),
        },
        progress,
        { startedAt: call.startedAt, endedAt: end, failed: !outcome.ok, error },
      );
      st?.trace.end(record.outcome, error);
      if (st?.started) {
        if (call.jobId === undefined) opts.metrics?.jobEnded('sync');
        opts.metrics?.callRunning(call.procedure, call.jobId === undefined ? 'sync' : 'async', -1);
      }
      opts.metrics?.callFinished(call.procedure, record.outcome as AuditOutcome, outcome.durationMs / 1000);
      opts.metrics?.deleted(call.procedure, facts.deletedFiles);
      opts.metrics?.rewritten(call.procedure, facts.rewrittenRows, facts.rewrittenBytes);
      await writeAudit(record);
    },
  };

  async function writeAudit(record: AuditRecord): Promise<void> {
    if (!opts.audit) return;
    try {
      await opts.audit.write(record);
    } catch (e) {
      opts.metrics?.auditFailed();
      opts.logger?.error({ err: e, queryId: record.queryId }, 'no audit sink accepted the record of a CALL');
    }
  }

  /**
   * A CALL refused before it was bound (unknown procedure, bad arguments, unparsable): one
   * record with the procedure name and arguments as written, and a count in the metrics under
   * metricProcedureLabel (a client cannot mint new series).
   */
  async function auditRejected(outcome: Extract<CallOutcome, { ok: false }>, r: NonNullable<Extract<CallOutcome, { ok: false }>['rejected']>): Promise<void> {
    const procedure = r.request.procedure.toLowerCase();
    const record = buildAuditRecord(
      {
        queryId: r.queryId,
        connectionId: r.caller.connectionId,
        user: r.caller.user,
        clientAddress: r.caller.clientAddress,
        catalog: r.request.catalog,
        procedure,
        arguments: argumentsAsWritten(r.request.args),
        statement: r.request.statement,
        ...(r.request.jobId !== undefined ? { jobId: r.request.jobId } : {}),
      },
      newAuditProgress(),
      { startedAt: r.startedAt, endedAt: r.startedAt + outcome.durationMs, failed: true, error: outcome.error },
    );
    opts.metrics?.callFinished(metricProcedureLabel(procedure, outcome.error.code), record.outcome as AuditOutcome, outcome.durationMs / 1000);
    await writeAudit(record);
  }

  return hooks;
}
