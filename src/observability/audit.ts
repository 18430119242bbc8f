/**
 * The audit trail: one record per intercepted CALL, written when the call ends whatever the
 * outcome (succeeded, failed, denied, cancelled, timed out, or submitted as a job), as JSON
 * lines to a file and optionally as rows of a table over a MySQL-protocol connection.
 *
 * Every record is masked (src/security/masking.ts) by the sinks themselves before it leaves
 * the process, so a caller that forgets cannot leak a secret. `runAudited` is the wrapper the
 * executor uses: it measures the call, maps its error to an outcome and always writes.
 */
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import mysql from 'mysql2/promise';
import { mask } from '../security/masking.js';
import type { Logger } from './logger.js';

export type AuditOutcome = 'succeeded' | 'failed' | 'denied' | 'cancelled' | 'timeout' | 'submitted';

export interface AuditRecord {
  /** When the call started (ISO 8601, UTC). */
  time: string;
  /** When the record was written (ISO 8601, UTC). */
  endTime: string;
  queryId: string;
  connectionId: number | null;
  user: string;
  clientAddress: string;
  catalog: string;
  procedure: string;
  /** Bound arguments by canonical name; secrets masked. */
  arguments: Record<string, unknown>;
  /** The statement text as received; secrets masked. */
  statement: string | null;
  /** The snapshot the plan was made from, and the one the call produced (null if none). */
  pinnedSnapshot: number | null;
  resultingSnapshot: number | null;
  outcome: AuditOutcome;
  /** Symbolic error code (procedures/framework/errors.ts) and errno, when the call failed. */
  errorCode: string | null;
  errno: number | null;
  errorMessage: string | null;
  /** Whether anything was committed (stated for failures, cancellations and timeouts). */
  committed: boolean | null;
  /** Tables, tags, branches, snapshots, files the call changed or would change (dry run). */
  affectedObjects: string[];
  durationMs: number;
  dryRun: boolean | null;
  jobId: string | null;
  /** Milliseconds per phase (resolve, plan, write, commit, refresh). */
  phases: Record<string, number>;
  /** The proxy process that ran the call (several replicas may share a table). */
  proxy: string;
}

export interface AuditSink {
  write(record: AuditRecord): Promise<void>;
  close(): Promise<void>;
}

export const PROXY_INSTANCE = `${hostname()}:${process.pid}`;

export function newQueryId(): string {
  return randomUUID();
}

/** Mask a record (all string members, arguments by key, the statement text). */
export function maskRecord(r: AuditRecord): AuditRecord {
  return mask(r);
}

// ---------------------------------------------------------------------------------------------
// JSON lines file

export class FileAuditSink implements AuditSink {
  private readonly stream: WriteStream;
  private closed = false;
  private failure: Error | null = null;

  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
    this.stream = createWriteStream(path, { flags: 'a', mode: 0o600 });
    this.stream.on('error', (e) => {
      this.failure = e;
    });
  }

  write(record: AuditRecord): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`audit file ${this.path} is closed`));
    if (this.failure) return Promise.reject(this.failure);
    const line = JSON.stringify(maskRecord(record), bigintJson) + '\n';
    return new Promise((resolve, reject) => {
      this.stream.write(line, (err) => (err ? reject(err) : resolve()));
    });
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    return new Promise((resolve) => this.stream.end(() => resolve()));
  }
}

// ---------------------------------------------------------------------------------------------
// MySQL-protocol table

export interface MysqlAuditOptions {
  host: string;
  port: number;
  user: string;
  password?: string;
  database: string;
  table: string;
  /** Create the table when absent (MySQL/MariaDB DDL; on Doris create it yourself). Default true. */
  createTable?: boolean;
  connectTimeoutMs?: number;
}

const AUDIT_COLUMNS = [
  'query_id', 'start_time', 'end_time', 'connection_id', 'user_name', 'client_address', 'catalog_name',
  'procedure_name', 'arguments', 'statement', 'pinned_snapshot', 'resulting_snapshot', 'outcome', 'error_code',
  'errno', 'error_message', 'committed', 'affected_objects', 'duration_ms', 'dry_run', 'job_id', 'phases', 'proxy',
] as const;

/**
 * The table's DDL for MySQL/MariaDB. For a Doris table use the same columns with
 * `DUPLICATE KEY(query_id) DISTRIBUTED BY HASH(query_id) BUCKETS 1`.
 */
export function auditTableDdl(table: string): string {
  return `CREATE TABLE IF NOT EXISTS \`${table}\` (
  query_id VARCHAR(64) NOT NULL,
  start_time DATETIME(3) NOT NULL,
  end_time DATETIME(3) NOT NULL,
  connection_id BIGINT NULL,
  user_name VARCHAR(256) NOT NULL,
  client_address VARCHAR(256) NOT NULL,
  catalog_name VARCHAR(256) NOT NULL,
  procedure_name VARCHAR(128) NOT NULL,
  arguments TEXT NOT NULL,
  statement TEXT NULL,
  pinned_snapshot BIGINT NULL,
  resulting_snapshot BIGINT NULL,
  outcome VARCHAR(16) NOT NULL,
  error_code VARCHAR(64) NULL,
  errno INT NULL,
  error_message TEXT NULL,
  committed TINYINT NULL,
  affected_objects TEXT NOT NULL,
  duration_ms BIGINT NOT NULL,
  dry_run TINYINT NULL,
  job_id VARCHAR(64) NULL,
  phases TEXT NOT NULL,
  proxy VARCHAR(256) NOT NULL,
  KEY idx_start_time (start_time)
)`;
}

/** '2026-11-29T12:00:00.123Z' -> '2026-11-29 12:00:00.123' (DATETIME literal, UTC). */
function sqlDateTime(iso: string): string {
  return iso.replace('T', ' ').replace('Z', '');
}

function assertIdentifier(name: string, what: string): void {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`${what} '${name}' must be letters, digits and _`);
}

export class MysqlAuditSink implements AuditSink {
  private readonly pool: mysql.Pool;
  private ready: Promise<void> | null = null;

  constructor(private readonly opts: MysqlAuditOptions) {
    assertIdentifier(opts.table, 'audit table');
    this.pool = mysql.createPool({
      host: opts.host,
      port: opts.port,
      user: opts.user,
      password: opts.password,
      database: opts.database,
      connectionLimit: 2,
      connectTimeout: opts.connectTimeoutMs ?? 10_000,
      // Times are written as UTC literals.
      timezone: 'Z',
    });
  }

  private ensureTable(): Promise<void> {
    if (this.opts.createTable === false) return Promise.resolve();
    if (!this.ready) {
      this.ready = this.pool.query(auditTableDdl(this.opts.table)).then(
        () => undefined,
        (e: unknown) => {
          this.ready = null;
          throw e;
        },
      );
    }
    return this.ready;
  }

  async write(record: AuditRecord): Promise<void> {
    await this.ensureTable();
    const r = maskRecord(record);
    const values = [
      r.queryId, sqlDateTime(r.time), sqlDateTime(r.endTime), r.connectionId, r.user, r.clientAddress, r.catalog,
      r.procedure, JSON.stringify(r.arguments, bigintJson), r.statement, r.pinnedSnapshot, r.resultingSnapshot, r.outcome,
      r.errorCode, r.errno, r.errorMessage, r.committed === null ? null : r.committed ? 1 : 0,
      JSON.stringify(r.affectedObjects), r.durationMs, r.dryRun === null ? null : r.dryRun ? 1 : 0, r.jobId,
      JSON.stringify(r.phases), r.proxy,
    ];
    const sql = `INSERT INTO \`${this.opts.table}\` (${AUDIT_COLUMNS.join(', ')}) VALUES (${AUDIT_COLUMNS.map(() => '?').join(', ')})`;
    await this.pool.query({ sql, values, timeout: 10_000 });
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/** 64-bit arguments (snapshot ids, sequence numbers) as their exact decimal digits. */
function bigintJson(_k: string, v: unknown): unknown {
  return typeof v === 'bigint' ? v.toString() : v;
}

// ---------------------------------------------------------------------------------------------
// Fan-out

/**
 * Writes to every sink; a failing sink is logged (masked) and does not stop the others or the
 * call. `write` rejects only when every sink failed, so the caller can warn the client.
 */
export class MultiAuditSink implements AuditSink {
  constructor(private readonly sinks: readonly AuditSink[], private readonly log?: Logger) {}

  async write(record: AuditRecord): Promise<void> {
    if (this.sinks.length === 0) return;
    const results = await Promise.allSettled(this.sinks.map((s) => s.write(record)));
    const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    for (const f of failures) this.log?.warn({ err: f.reason, queryId: record.queryId }, 'audit sink failed to write a record');
    if (failures.length === this.sinks.length) {
      throw new Error(`no audit sink accepted record ${record.queryId}: ${String((failures[0]!.reason as Error)?.message ?? failures[0]!.reason)}`);
    }
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.sinks.map((s) => s.close()));
  }
}

/** Build the configured sinks: the file (default path given by the caller) and the table. */
export function createAuditSink(
  cfg: { file?: string; mysql?: Omit<MysqlAuditOptions, 'createTable' | 'connectTimeoutMs'> },
  log?: Logger,
): MultiAuditSink {
  const sinks: AuditSink[] = [];
  if (cfg.file) sinks.push(new FileAuditSink(cfg.file));
  if (cfg.mysql) sinks.push(new MysqlAuditSink(cfg.mysql));
  return new MultiAuditSink(sinks, log);
}

// ---------------------------------------------------------------------------------------------
// Wrapping one call

/** What is known about a call when it starts. */
export interface AuditStart {
  queryId?: string;
  connectionId: number | null;
  user: string;
  clientAddress: string;
  catalog: string;
  procedure: string;
  arguments: Record<string, unknown>;
  statement?: string | null;
  dryRun?: boolean | null;
  jobId?: string | null;
}

/** What the call reports as it runs (filled in by the procedure / executor). */
export interface AuditProgress {
  pinnedSnapshot: number | null;
  resultingSnapshot: number | null;
  affectedObjects: string[];
  phases: Record<string, number>;
  committed: boolean | null;
}

/** The error shape the outcome is derived from (ProcedureError and AccessDenied have it). */
export interface ErrorLike {
  code?: unknown;
  errno?: unknown;
  message?: unknown;
  committed?: unknown;
}

export function outcomeOf(error: unknown): AuditOutcome {
  const code = (error as ErrorLike | null)?.code;
  switch (code) {
    case 'QUERY_INTERRUPTED':
      return 'cancelled';
    case 'TIMEOUT':
      return 'timeout';
    case 'TABLE_ACCESS_DENIED':
    case 'DATABASE_ACCESS_DENIED':
    case 'ADMIN_REQUIRED':
      return 'denied';
    default:
      return 'failed';
  }
}

export function newAuditProgress(): AuditProgress {
  return { pinnedSnapshot: null, resultingSnapshot: null, affectedObjects: [], phases: {}, committed: null };
}

/**
 * Run `fn` and write exactly one audit record when it ends (also when it throws). The record
 * is written before the result or error is returned, so a client that saw the answer can find
 * the record. A failing audit write is reported through `onAuditError` (the executor turns it
 * into a warning), never as the call's failure.
 */
export async function runAudited<T>(
  sink: AuditSink,
  start: AuditStart,
  fn: (progress: AuditProgress) => Promise<T>,
  opts: { now?: () => number; onAuditError?: (e: unknown) => void; outcomeOnSuccess?: (result: T) => AuditOutcome } = {},
): Promise<T> {
  const now = opts.now ?? Date.now;
  const t0 = now();
  const progress = newAuditProgress();
  let result: T | undefined;
  let error: unknown = undefined;
  let failed = false;
  try {
    result = await fn(progress);
    return result;
  } catch (e) {
    failed = true;
    error = e;
    throw e;
  } finally {
    const record = buildAuditRecord(start, progress, {
      startedAt: t0,
      endedAt: now(),
      failed,
      error,
      outcome: failed ? undefined : opts.outcomeOnSuccess ? opts.outcomeOnSuccess(result as T) : 'succeeded',
    });
    try {
      await sink.write(record);
    } catch (e) {
      opts.onAuditError?.(e);
    }
  }
}

/** Build the record of a finished call (used by runAudited and by the executor hooks). */
export function buildAuditRecord(
  start: AuditStart,
  progress: AuditProgress,
  end: { startedAt: number; endedAt: number; failed: boolean; error?: unknown; outcome?: AuditOutcome },
): AuditRecord {
  const err = end.error as ErrorLike | undefined;
  const failed = end.failed;
  const committedFromError = failed && typeof err?.committed === 'boolean' ? (err.committed as boolean) : null;
  // Masked here already, so that any sink (also one written by someone else) gets a safe record.
  return maskRecord({
    time: new Date(end.startedAt).toISOString(),
    endTime: new Date(end.endedAt).toISOString(),
    queryId: start.queryId ?? newQueryId(),
    connectionId: start.connectionId,
    user: start.user,
    clientAddress: start.clientAddress,
    catalog: start.catalog,
    procedure: start.procedure,
    arguments: start.arguments,
    statement: start.statement ?? null,
    pinnedSnapshot: progress.pinnedSnapshot,
    resultingSnapshot: progress.resultingSnapshot,
    outcome: end.outcome ?? (failed ? outcomeOf(end.error) : 'succeeded'),
    errorCode: failed ? String(err?.code ?? 'INTERNAL_ERROR') : null,
    errno: failed && typeof err?.errno === 'number' ? (err.errno as number) : null,
    errorMessage: failed ? String(err?.message ?? end.error) : null,
    committed: committedFromError ?? progress.committed ?? (failed ? null : progress.resultingSnapshot !== null ? true : null),
    affectedObjects: progress.affectedObjects,
    durationMs: Math.max(0, end.endedAt - end.startedAt),
    dryRun: start.dryRun ?? null,
    jobId: start.jobId ?? null,
    phases: progress.phases,
    proxy: PROXY_INSTANCE,
  });
}
