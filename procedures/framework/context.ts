/**
 * The execution context handed to every procedure: who called, in which catalog, the abort
 * signal (KILL, disconnect, timeout), progress reporting, a logger, the configured limits,
 * the dry-run flag, a clock, and helpers to resolve the `table` argument exactly. Procedures
 * take everything from here and nothing from globals, so tests can pass their own clock,
 * limits and catalogs.
 */
import type { ProcedureLimits } from './limits.js';
import type { Warning } from './reply.js';
import { tableScopedCatalog, type ProcedureCatalog } from './catalog.js';
import { abortError } from './errors.js';
import type { FileStoreTable } from '../../src/paimon/table/file-store-table.js';
import { parseTableIdentifier, resolveDatabase, resolveTable, type TableIdentifier } from './target.js';

export type { ProcedureLimits } from './limits.js';

/** Minimal pino-compatible logger surface (a pino Logger satisfies it). */
export interface ProcedureLogger {
  debug(obj: Record<string, unknown>, msg?: string): void;
  info(obj: Record<string, unknown>, msg?: string): void;
  warn(obj: Record<string, unknown>, msg?: string): void;
  error(obj: Record<string, unknown>, msg?: string): void;
}

export const silentLogger: ProcedureLogger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** Who is calling (never a password). */
export interface CallerInfo {
  user: string;
  connectionId: number;
  clientAddress: string;
  currentDatabase: string | null;
}

export interface ProgressUpdate {
  /** Phase name, e.g. 'plan', 'delete', 'commit' (also used for trace spans). */
  phase: string;
  /** Units done and (when known) total in this phase. */
  done?: number;
  total?: number;
  message?: string;
}

export interface ProcedureContext {
  readonly procedure: string;
  /** The catalog through tableScopedCatalog: tables change only inside their own directories. */
  readonly catalog: ProcedureCatalog;
  readonly caller: CallerInfo;
  readonly signal: AbortSignal;
  /** True when the bound dry_run argument is TRUE: the procedure must change nothing. */
  readonly dryRun: boolean;
  readonly limits: ProcedureLimits;
  readonly clock: Clock;
  readonly logger: ProcedureLogger;
  progress(update: ProgressUpdate): void;
  /** A warning on the CALL's final OK (visible in SHOW WARNINGS). */
  warn(message: string, code?: number): void;
  /**
   * Declare that a commit has become durable. After this a cancellation or timeout is
   * reported as "part of the work was committed", never as "nothing was committed".
   */
  markCommitted(): void;
  /** Objects the call changed (for audit and FE refresh): canonical `db.table[$branch_x]` spellings. */
  reportAffected(identifier: string): void;
  /** Throws QUERY_INTERRUPTED / TIMEOUT (saying whether anything was committed) if the call was stopped. */
  throwIfAborted(): void;
  /** Parse the identifier of a `table` argument (relative to the caller's current database). */
  parseTable(text: string, opts?: { allowWildcard?: boolean; argument?: string }): TableIdentifier;
  /**
   * Parse and resolve a table exactly (database, table and branch must all exist) to its one
   * handle: identity, storage, latest schema, managers, readers and commit factory.
   */
  resolveTable(text: string, opts?: { argument?: string }): Promise<FileStoreTable>;
  /** Tables of an existing database (DATABASE_NOT_FOUND otherwise). */
  listTables(database: string): Promise<string[]>;
}

/** Mutable state the executor reads back after the procedure returned or failed. */
export interface ContextState {
  committed: boolean;
  warnings: Warning[];
  affected: string[];
}

export interface CreateContextOptions {
  procedure: string;
  catalog: ProcedureCatalog;
  caller: CallerInfo;
  signal: AbortSignal;
  dryRun: boolean;
  limits: ProcedureLimits;
  clock?: Clock;
  logger?: ProcedureLogger;
  onProgress?: (update: ProgressUpdate) => void;
}

export function createContext(opts: CreateContextOptions): { context: ProcedureContext; state: ContextState } {
  const state: ContextState = { committed: false, warnings: [], affected: [] };
  const { caller, signal } = opts;
  // Every procedure reaches its tables through this view: nothing outside a table is changed.
  const catalog = tableScopedCatalog(opts.catalog);
  const context: ProcedureContext = {
    procedure: opts.procedure,
    catalog,
    caller,
    signal,
    dryRun: opts.dryRun,
    limits: opts.limits,
    clock: opts.clock ?? systemClock,
    logger: opts.logger ?? silentLogger,
    progress(update) {
      opts.onProgress?.(update);
    },
    warn(message, code = 1105) {
      state.warnings.push({ level: 'Warning', code, message });
    },
    markCommitted() {
      state.committed = true;
    },
    reportAffected(identifier) {
      if (!state.affected.includes(identifier)) state.affected.push(identifier);
    },
    throwIfAborted() {
      if (signal.aborted) throw abortError(signal, state.committed);
    },
    parseTable(text, o = {}) {
      return parseTableIdentifier(text, {
        catalog: catalog.name,
        currentDatabase: caller.currentDatabase,
        ...(o.allowWildcard !== undefined ? { allowWildcard: o.allowWildcard } : {}),
        ...(o.argument !== undefined ? { argument: o.argument } : {}),
      });
    },
    async resolveTable(text, o = {}) {
      const id = context.parseTable(text, o);
      return resolveTable(catalog, id);
    },
    listTables(database) {
      return resolveDatabase(catalog, database);
    },
  };
  return { context, state };
}
