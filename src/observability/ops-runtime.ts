/**
 * The operations layer built from a validated configuration, for proxy-app.ts to plug in:
 * metrics (and the /metrics endpoint), the audit sinks, the grant source, the FE refresher,
 * the per-table locks and heavy-job cap, the job store and manager, session timeouts, the
 * tracer provider (tracing.file / tracing.console), the running-calls registry, the executor
 * hooks and framework parameters, and the job procedures.
 *
 * Wiring (proxy-app.ts does it): pass `hooks` and `frameworkParams` to the ProcedureExecutor
 * (with `maskMessage`), register `jobProcedures` in the registry, give the router `calls` and
 * route `async => true` CALLs to `submitAsync`, and `close()` on shutdown.
 */
import { join, resolve } from 'node:path';
import { hostname } from 'node:os';
import type { ProxyConfig } from '../config-schema.js';
import type { Logger } from './logger.js';
import { createAuditSink, type MultiAuditSink } from './audit.js';
import { setupMetrics, startMetricsServer, type ProxyMetrics } from './metrics.js';
import { createOpsHooks } from './ops-hooks.js';
import { FeRefresher } from '../fe-refresh.js';
import { JsonLinesSpanExporter, RecordingTracerProvider } from './tracer-provider.js';
import { TRACER_NAME } from './tracing.js';
import { GrantCache } from '../security/grant-cache.js';
import { ConfigGrantSource, UpstreamGrantSource, type GrantSource, type GrantSubject, type UpstreamQuery } from '../security/grant-source.js';
import type { UserGrants } from '../security/privileges.js';
import { mask, registerSecretsFrom } from '../security/masking.js';
import { TableLockManager } from '../../procedures/framework/concurrency/table-lock.js';
import { HeavyJobLimiter } from '../../procedures/framework/concurrency/heavy-job-limiter.js';
import { CancellationRegistry, SessionTimeouts, TIMEOUT_SESSION_VARIABLE } from '../../procedures/framework/cancellation.js';
import { FileJobStore } from '../../procedures/framework/jobs/file-job-store.js';
import { MysqlJobStore } from '../../procedures/framework/jobs/mysql-job-store.js';
import { JobManager } from '../../procedures/framework/jobs/job-manager.js';
import { FRAMEWORK_PARAMS, isAsyncCall, submitAsyncCall, type CallRunner } from '../../procedures/framework/jobs/async-call.js';
import { jobProcedures } from '../../procedures/jobs/job-procedures.js';
import type { CallHooks, CallRequest } from '../../procedures/framework/executor.js';
import type { CallerInfo } from '../../procedures/framework/context.js';
import { traitsOf, type ParamSpec } from '../../procedures/framework/signature.js';
import type { ProcedureDefinition, ProcedureRegistry } from '../../procedures/framework/registry.js';
import type { LocalReply } from '../router/route.js';

export interface OpsRuntimeOptions {
  logger: Logger;
  /** Where the job file and the default audit file live; default: see defaultDataDir. */
  dataDir?: string;
  /** Standalone users and their configured grants. */
  localUsers?: Iterable<{ name: string; grants: readonly string[] }>;
  /** Runs `SHOW GRANTS` on a client's own upstream session (the session layer provides it). */
  upstreamQuery?: UpstreamQuery;
  /** Identity of this proxy for the job store (default: host name and listen port). */
  owner?: string;
  /**
   * Reads a session's mirrored user variable (the router's `userVariable`), for
   * `@paimon_call_timeout`; called at each CALL. Without it `sessionTimeouts` is used.
   */
  sessionVariable?: (connectionId: number, name: string) => string | null | undefined;
  /** Start the /metrics HTTP endpoint when `metrics.port` is configured (default true). */
  serveMetrics?: boolean;
  /** Reopen the audit file on SIGHUP (default true; tests starting several runtimes in one process may turn it off). */
  reopenOnSighup?: boolean;
  /**
   * Set in the worker processes of `listen.workers` > 1: each worker keeps its embedded job
   * file in its own sub-directory and owns its jobs (the shared MySQL store lets every worker
   * see every job).
   */
  worker?: { index: number; count: number };
}

/** What runs an async job's work and knows its procedure (ProcedureExecutor is one). */
export type AsyncCallRunner = CallRunner & { readonly registry: Pick<ProcedureRegistry, 'lookup'> };

export interface OpsRuntime {
  hooks: CallHooks;
  frameworkParams: readonly ParamSpec[];
  jobProcedures: ProcedureDefinition[];
  jobs: JobManager;
  metrics: ProxyMetrics;
  audit: MultiAuditSink;
  sessionTimeouts: SessionTimeouts;
  /** The per-table locks of metadata-changing CALLs and the heavy-job cap (for inspection and tests). */
  locks: TableLockManager;
  limiter: HeavyJobLimiter;
  /** What runs now, by connection: the router registers every intercepted CALL here (KILL, disconnects, list()). */
  calls: CancellationRegistry;
  /** Port of the /metrics endpoint, when started. */
  metricsPort: number | null;
  /** Things the operator should know at start-up (already logged). */
  startupNotes: string[];
  isAsync(req: CallRequest): boolean;
  /** Submit an `async => true` CALL as a job; the runner's registry says whether its procedure is heavy. */
  submitAsync(runner: AsyncCallRunner, req: CallRequest, caller: CallerInfo): Promise<LocalReply[]>;
  close(): Promise<void>;
}

export async function startOps(config: ProxyConfig, opts: OpsRuntimeOptions): Promise<OpsRuntime> {
  const log = opts.logger;
  // Every configured credential is masked wherever it might be echoed.
  registerSecretsFrom(config);
  const notes: string[] = [];
  const dataDir = resolve(config.jobs.dir ?? opts.dataDir ?? defaultDataDir(config));

  const { metrics, registry } = setupMetrics();
  let metricsServer: { port: number; close(): Promise<void> } | null = null;
  if (config.metrics.port !== undefined && opts.serveMetrics !== false) {
    metricsServer = await startMetricsServer(registry, config.metrics.host, config.metrics.port);
    log.info({ port: metricsServer.port }, 'metrics endpoint listening (/metrics)');
  }

  const audit = createAuditSink(
    {
      file: config.audit.file ?? join(dataDir, 'audit.jsonl'),
      ...(config.audit.mysql ? { mysql: config.audit.mysql } : {}),
      ...(config.audit.max_bytes !== undefined ? { maxBytes: config.audit.max_bytes } : {}),
      keep: config.audit.keep,
    },
    log,
  );
  // SIGHUP reopens the audit file, for logrotate's `postrotate kill -HUP <pid>` (or copytruncate-free
  // rotation by any tool that moves the file away). Registering the handler also stops Node's
  // default SIGHUP action (exit).
  const onHangup = (): void => {
    log.info({ file: config.audit.file ?? join(dataDir, 'audit.jsonl') }, 'SIGHUP: reopening the audit file');
    void audit.reopen();
  };
  if (opts.reopenOnSighup !== false) process.on('SIGHUP', onHangup);

  let grants: GrantSource | undefined;
  /**
   * Grants read when an `async => true` CALL was submitted, for its job: the job runs after the
   * CALL has returned, when the caller's upstream session is no longer ours to use (or is gone).
   * Keyed by the CallerInfo object the job runs with.
   */
  const pinnedGrants = new WeakMap<GrantSubject, UserGrants>();
  if (!config.security.check_privileges) {
    notes.push('privilege checks are disabled (security.check_privileges: false): every user may run every procedure');
  } else if (!config.upstream) {
    grants = new ConfigGrantSource(opts.localUsers ?? []);
  } else if (opts.upstreamQuery) {
    const upstreamGrants = new UpstreamGrantSource(opts.upstreamQuery, new GrantCache({ ttlMs: config.security.grant_cache_ttl_ms }));
    grants = {
      grantsFor: (subject) => {
        const pinned = pinnedGrants.get(subject);
        return pinned ? Promise.resolve(pinned) : upstreamGrants.grantsFor(subject);
      },
    };
  } else {
    notes.push('privilege checks are not possible: the session layer offers no upstream query for SHOW GRANTS; every user may run every procedure');
  }

  const refresher = config.upstream
    ? new FeRefresher({
        host: config.upstream.host,
        port: config.upstream.port,
        tls: config.upstream.tls,
        connectTimeoutMs: config.upstream.connect_timeout_ms,
        ...(config.upstream.refresh_user !== undefined ? { user: config.upstream.refresh_user } : {}),
        ...(config.upstream.refresh_password !== undefined ? { password: config.upstream.refresh_password } : {}),
        onResult: (outcome, statement, error) => {
          metrics.refresh(outcome);
          if (outcome === 'failed') log.warn({ statement, err: error }, 'FE refresh failed');
        },
      })
    : undefined;
  if (config.upstream && !config.upstream.refresh_user) notes.push('upstream.refresh_user is not set: the FE is not told to REFRESH TABLE after a change');

  const limiter = new HeavyJobLimiter(config.procedures.max_concurrent_heavy);
  const locks = new TableLockManager();
  // Stable across restarts of the same proxy (so it recovers its own jobs): host name and port;
  // an ephemeral port (0, tests) gets the pid so that concurrent proxies do not share an owner.
  const base = config.listen.port === 0 ? `${hostname()}:0:pid${process.pid}` : `${hostname()}:${config.listen.port}`;
  const owner = opts.owner ?? (opts.worker ? `${base}:w${opts.worker.index}` : base);
  if (opts.worker && opts.worker.count > 1 && config.jobs.store === 'file') {
    notes.push(`listen.workers = ${opts.worker.count} with the embedded job store: each worker lists only its own jobs; use jobs.store: mysql to see them all from any connection`);
  }
  const store =
    config.jobs.store === 'mysql'
      ? (() => {
          if (!config.jobs.mysql) throw new Error('jobs.store is mysql but jobs.mysql is not configured');
          return new MysqlJobStore({ ...config.jobs.mysql, owner, retentionMs: config.jobs.retention_ms });
        })()
      : new FileJobStore({ dir: opts.worker ? join(dataDir, `worker-${opts.worker.index}`) : dataDir, owner, retentionMs: config.jobs.retention_ms });
  const jobs = new JobManager({
    store,
    owner,
    limiter,
    redact: mask,
    onStateChange: (rec) => {
      if (rec.state === 'running') metrics.jobStarted('async');
      if (rec.state === 'succeeded' || rec.state === 'failed' || rec.state === 'cancelled') {
        if (rec.startedAt !== null) metrics.jobEnded('async');
      }
    },
  });
  const { interrupted } = await jobs.open();
  if (interrupted > 0) notes.push(`${interrupted} job(s) interrupted by the previous process were marked failed (not re-run)`);

  // Tracing (off by default): spans of every CALL as JSON lines to a file or standard error.
  const tracerProvider =
    config.tracing.file !== undefined || config.tracing.console
      ? new RecordingTracerProvider({
          exporter: new JsonLinesSpanExporter(config.tracing.file !== undefined ? { file: resolve(config.tracing.file) } : { stream: process.stderr }),
        })
      : undefined;
  if (tracerProvider) log.info({ file: config.tracing.file ?? 'stderr' }, 'tracing: CALL spans are written as JSON lines');

  const sessionTimeouts = new SessionTimeouts();
  // The router tracks every intercepted CALL here; the hooks add what it acts on and its waits.
  const calls = new CancellationRegistry();
  const hooks = createOpsHooks({
    calls,
    progressLog: { intervalMs: config.logging.progress_interval_ms },
    logger: log,
    metrics,
    audit,
    ...(grants ? { grants } : {}),
    ...(refresher ? { refresher } : {}),
    locks: { manager: locks, mode: config.procedures.table_lock, waitMs: config.procedures.table_lock_wait_ms },
    limiter,
    ...(tracerProvider ? { tracer: tracerProvider.getTracer(TRACER_NAME) } : {}),
    // submitAsync hands heavy jobs to the job manager, which takes their slot before they run.
    jobsHoldHeavySlots: true,
    timeouts: {
      defaultMs: config.procedures.default_timeout_ms,
      maxMs: config.procedures.max_timeout_ms,
      session: (id) => opts.sessionVariable?.(id, TIMEOUT_SESSION_VARIABLE) ?? sessionTimeouts.get(id),
    },
  });
  for (const n of notes) log.warn(n);

  return {
    hooks,
    frameworkParams: FRAMEWORK_PARAMS,
    jobProcedures: jobProcedures(() => jobs, () => calls),
    jobs,
    metrics,
    audit,
    sessionTimeouts,
    calls,
    locks,
    limiter,
    metricsPort: metricsServer?.port ?? null,
    startupNotes: notes,
    isAsync: (req) => isAsyncCall(req.args),
    submitAsync: async (runner, req, caller) => {
      // With an upstream, read the grants now, on the caller's session, while it runs this CALL.
      if (grants && opts.upstreamQuery && config.upstream) pinnedGrants.set(caller, await grants.grantsFor(caller));
      // An unknown procedure is not heavy: the job fails at once with PROCEDURE_NOT_FOUND.
      const signature = runner.registry.lookup(req.procedure)?.signature;
      return submitAsyncCall(jobs, runner, req, caller, { heavy: signature !== undefined && traitsOf(signature).heavy });
    },
    async close() {
      process.removeListener('SIGHUP', onHangup);
      await jobs.close();
      hooks.close();
      await refresher?.close();
      await audit.close();
      await tracerProvider?.shutdown();
      await metricsServer?.close();
    },
  };
}

/**
 * Default home of the job file and audit file: `.paimon-proxy` inside the first catalog's
 * warehouse when that is a local directory (so each warehouse keeps its own jobs), else in the
 * working directory.
 */
export function defaultDataDir(config: ProxyConfig): string {
  const wh = config.catalogs[0]?.warehouse;
  if (wh !== undefined) {
    if (wh.startsWith('file://')) return join(new URL(wh).pathname, '.paimon-proxy');
    if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(wh)) return join(resolve(wh), '.paimon-proxy');
  }
  return join(process.cwd(), '.paimon-proxy');
}
