/**
 * The audit trail: one record per intercepted CALL, written when the call ends whatever the
 * outcome (succeeded, failed, denied, cancelled, timed out, or submitted as a job), as JSON
 * lines to a file and optionally as rows of a table over a MySQL-protocol connection.
 *
 * Every record is masked (src/security/masking.ts) by the sinks themselves before it leaves
 * the process, so a caller that forgets cannot leak a secret. `runAudited` is the wrapper the
 * executor uses: it measures the call, maps its error to an outcome and always writes.
 */
import { createWriteStream, mkdirSync, renameSync, rmSync, statSync, type WriteStream } from 'node:fs';
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
  /**
   * The snapshot the plan was made from, and the one the call produced (null if none). A
   * bigint when the id is beyond 2^53 (written as its exact decimal digits), else a number.
   */
  pinnedSnapshot: number | bigint | null;
  resultingSnapshot: number | bigint | null;
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
  /**
   * Members cut to the audit's size limits (boundAuditRecord), by path (`arguments.where`,
   * `statement`, `affectedObjects`), with their original size: bytes of UTF-8 for strings,
   * entries for affectedObjects. Absent when nothing was cut.
   */
  truncated?: Record<string, number>;
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

/**
 * Size limits of one audit record: arguments, statement and error text come from the client
 * (or echo it), so each is cut to a stated size and the record says what was cut and how
 * long it was. The file and table then grow by at most AUDIT_MAX_RECORD_BYTES per CALL.
 */
export const AUDIT_MAX_ARGUMENT_BYTES = 4 * 1024;
export const AUDIT_MAX_STATEMENT_BYTES = 16 * 1024;
export const AUDIT_MAX_MESSAGE_BYTES = 4 * 1024;
export const AUDIT_MAX_AFFECTED_OBJECTS = 1000;
export const AUDIT_MAX_RECORD_BYTES = 64 * 1024;
/** What arguments are cut to when many long ones together would still exceed the record limit. */
const AUDIT_TIGHT_ARGUMENT_BYTES = 256;

/**
 * A string cut to at most `max` bytes of UTF-8 in all (never inside a character), ending in a
 * marker with the original size; null when it fits. Cutting the result again changes nothing.
 */
export function truncateUtf8(s: string, max: number): { text: string; bytes: number } | null {
  const bytes = Buffer.byteLength(s, 'utf8');
  if (bytes <= max) return null;
  const marker = `... [truncated, ${bytes} bytes]`;
  const buf = Buffer.from(s, 'utf8');
  let end = Math.max(0, max - marker.length);
  // Back off continuation bytes (10xxxxxx) so the cut is on a character boundary.
  while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--;
  return { text: `${buf.subarray(0, end).toString('utf8')}${marker}`, bytes };
}

/** The record within the size limits (masking first: a secret is never cut in two where the mask would miss it). */
export function boundAuditRecord(r: AuditRecord): AuditRecord {
  const truncated: Record<string, number> = { ...(r.truncated ?? {}) };
  const cut = (path: string, v: string | null, max: number): string | null => {
    if (v === null) return null;
    const t = truncateUtf8(v, max);
    if (t === null) return v;
    truncated[path] = Math.max(truncated[path] ?? 0, t.bytes);
    return t.text;
  };
  const args = (max: number): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(r.arguments)) {
      const key = cut('argument names', k, 128)!;
      out[key] = typeof v === 'string' ? cut(`arguments.${key}`, v, max) : v;
    }
    return out;
  };
  let affected = r.affectedObjects;
  if (affected.length > AUDIT_MAX_AFFECTED_OBJECTS) {
    truncated['affectedObjects'] = affected.length;
    affected = [...affected.slice(0, AUDIT_MAX_AFFECTED_OBJECTS), `... ${affected.length - AUDIT_MAX_AFFECTED_OBJECTS} more`];
  }
  let out: AuditRecord = {
    ...r,
    user: cut('user', r.user, 256)!,
    clientAddress: cut('clientAddress', r.clientAddress, 256)!,
    catalog: cut('catalog', r.catalog, 256)!,
    procedure: cut('procedure', r.procedure, 128)!,
    arguments: args(AUDIT_MAX_ARGUMENT_BYTES),
    statement: cut('statement', r.statement, AUDIT_MAX_STATEMENT_BYTES),
    errorMessage: cut('errorMessage', r.errorMessage, AUDIT_MAX_MESSAGE_BYTES),
    affectedObjects: affected.map((o, i) => cut(`affectedObjects[${i}]`, o, 1024)!),
  };
  if (Buffer.byteLength(JSON.stringify(out, bigintJson)) > AUDIT_MAX_RECORD_BYTES) {
    // Many long members together: arguments shrink further, then the statement, then the objects.
    out = { ...out, arguments: args(AUDIT_TIGHT_ARGUMENT_BYTES), statement: cut('statement', r.statement, 4 * 1024) };
    if (Buffer.byteLength(JSON.stringify(out, bigintJson)) > AUDIT_MAX_RECORD_BYTES) {
      if (truncated['affectedObjects'] === undefined) truncated['affectedObjects'] = r.affectedObjects.length;
      out = { ...out, affectedObjects: [...out.affectedObjects.slice(0, 20), `... ${r.affectedObjects.length - 20} more`] };
    }
  }
  if (Object.keys(truncated).length > 0) out.truncated = truncated;
  return out;
}

/** What every sink writes: masked, then bounded. */
export function safeRecord(r: AuditRecord): AuditRecord {
  return boundAuditRecord(maskRecord(r));
}

// ---------------------------------------------------------------------------------------------
// JSON lines file

export interface FileAuditOptions {
  /**
   * Rotate when the file would grow past this many bytes: `audit.jsonl` becomes
   * `audit.jsonl.1` (the older ones move up to `.keep`, the oldest is deleted). Unset: never.
   */
  maxBytes?: number;
  /** Rotated files kept (default 5). */
  keep?: number;
}

/**
 * JSON lines, appended. Writes are queued so that rotation and reopen happen between two
 * records, never inside one. `reopen()` (on SIGHUP, see ops-runtime) starts writing to a new
 * file at the same path after an external logrotate moved the old one away.
 */
export class FileAuditSink implements AuditSink {
  private stream: WriteStream;
  private size: number;
  private closed = false;
  private failure: Error | null = null;
  private queue: Promise<void> = Promise.resolve();
  private readonly maxBytes: number | undefined;
  private readonly keep: number;

  constructor(readonly path: string, opts: FileAuditOptions = {}) {
    mkdirSync(dirname(path), { recursive: true });
    this.maxBytes = opts.maxBytes !== undefined && opts.maxBytes > 0 ? opts.maxBytes : undefined;
    this.keep = Math.max(1, opts.keep ?? 5);
    this.size = 0;
    this.stream = this.open();
  }

  private open(): WriteStream {
    try {
      this.size = statSync(this.path).size;
    } catch {
      this.size = 0;
    }
    const stream = createWriteStream(this.path, { flags: 'a', mode: 0o600 });
    this.failure = null;
    stream.on('error', (e) => {
      if (this.stream === stream) this.failure = e;
    });
    return stream;
  }

  private endStream(): Promise<void> {
    const s = this.stream;
    return new Promise((resolve) => s.end(() => resolve()));
  }

  private enqueue<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn);
    this.queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  write(record: AuditRecord): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`audit file ${this.path} is closed`));
    const line = JSON.stringify(safeRecord(record), bigintJson) + '\n';
    const bytes = Buffer.byteLength(line);
    return this.enqueue(async () => {
      if (this.maxBytes !== undefined && this.size > 0 && this.size + bytes > this.maxBytes) await this.rotate();
      if (this.failure) throw this.failure;
      await new Promise<void>((resolve, reject) => {
        this.stream.write(line, (err) => (err ? reject(err) : resolve()));
      });
      this.size += bytes;
    });
  }

  /** Move audit.jsonl to .1 (and .n to .n+1, dropping the oldest), then start a new file. */
  private async rotate(): Promise<void> {
    await this.endStream();
    rmSync(`${this.path}.${this.keep}`, { force: true });
    for (let i = this.keep - 1; i >= 1; i--) {
      try {
        renameSync(`${this.path}.${i}`, `${this.path}.${i + 1}`);
      } catch {
        // that generation does not exist yet
      }
    }
    renameSync(this.path, `${this.path}.1`);
    this.stream = this.open();
  }

  /** Close the file and open the path again (a new file when it was moved away). */
  reopen(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return this.enqueue(async () => {
      await this.endStream();
      this.stream = this.open();
    });
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    return this.enqueue(() => this.endStream());
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
    const r = safeRecord(record);
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

  /** Reopen the file sinks (after logrotate moved their files); the others are left alone. */
  async reopen(): Promise<void> {
    await Promise.allSettled(this.sinks.map((s) => (s instanceof FileAuditSink ? s.reopen() : undefined)));
  }
}

/** Build the configured sinks: the file (default path given by the caller) and the table. */
export function createAuditSink(
  cfg: { file?: string; mysql?: Omit<MysqlAuditOptions, 'createTable' | 'connectTimeoutMs'> } & FileAuditOptions,
  log?: Logger,
): MultiAuditSink {
  const sinks: AuditSink[] = [];
  if (cfg.file) sinks.push(new FileAuditSink(cfg.file, { ...(cfg.maxBytes !== undefined ? { maxBytes: cfg.maxBytes } : {}), ...(cfg.keep !== undefined ? { keep: cfg.keep } : {}) }));
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
  pinnedSnapshot: number | bigint | null;
  resultingSnapshot: number | bigint | null;
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
  // Masked and bounded here already, so that any sink (also one written by someone else) gets a safe record.
  return safeRecord({
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
