/**
 * Telling the Doris FE that a Paimon table changed: after a procedure changed a table the proxy
 * sends `REFRESH TABLE <catalog>.<db>.<table>` (Doris syntax) on a connection of its own, with
 * the account configured as `upstream.refresh_user` / `refresh_password`, so the FE's metadata
 * cache shows the new snapshots, tags and branches at once. A refresh that fails is a warning on
 * the CALL's OK (visible in SHOW WARNINGS), never a failed procedure: the procedure's work is
 * committed either way.
 */
import mysql from 'mysql2/promise';
import { ER_UNKNOWN_ERROR } from '../protocol/constants.js';
import type { Warning } from './router/route.js';
import { maskText, registerSecret } from './security/masking.js';

export interface FeRefreshOptions {
  host: string;
  port: number;
  user?: string;
  password?: string;
  tls?: boolean;
  connectTimeoutMs?: number;
  /** Per statement. */
  statementTimeoutMs?: number;
  /** Observer of each attempt (metrics, logs). */
  onResult?: (outcome: 'ok' | 'failed' | 'skipped', statement: string, error?: unknown) => void;
}

/** Quote one identifier with backticks (Doris and MySQL). */
export function quoteIdent(name: string): string {
  return '`' + name.replace(/`/g, '``') + '`';
}

/**
 * The base tables of the objects a procedure reported as changed: `db.table`,
 * `db.table$branch_x` (a branch is part of its table) or `db.table$tags`; duplicates removed.
 * Entries without a database part are ignored.
 */
export function changedTables(affected: readonly string[]): { database: string; table: string }[] {
  const out: { database: string; table: string }[] = [];
  const seen = new Set<string>();
  for (const a of affected) {
    const dot = a.indexOf('.');
    if (dot <= 0 || dot === a.length - 1) continue;
    const database = a.slice(0, dot);
    const table = a.slice(dot + 1).replace(/\$.*$/, '');
    if (table === '' || table === '*') continue;
    const key = `${database}\u0000${table}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ database, table });
  }
  return out;
}

export function refreshStatement(catalog: string, database: string, table: string): string {
  return `REFRESH TABLE ${quoteIdent(catalog)}.${quoteIdent(database)}.${quoteIdent(table)}`;
}

export class FeRefresher {
  private pool: mysql.Pool | null = null;

  constructor(private readonly opts: FeRefreshOptions) {
    registerSecret(opts.password);
  }

  get configured(): boolean {
    return this.opts.user !== undefined && this.opts.user !== '';
  }

  private getPool(): mysql.Pool {
    if (!this.pool) {
      this.pool = mysql.createPool({
        host: this.opts.host,
        port: this.opts.port,
        user: this.opts.user,
        password: this.opts.password,
        connectionLimit: 1,
        maxIdle: 1,
        idleTimeout: 60_000,
        connectTimeout: this.opts.connectTimeoutMs ?? 10_000,
        ...(this.opts.tls ? { ssl: {} } : {}),
      });
    }
    return this.pool;
  }

  /**
   * Refresh every changed table of one catalog; returns the warnings for the CALL's OK (empty
   * when every refresh succeeded).
   */
  async refresh(catalog: string, affected: readonly string[]): Promise<Warning[]> {
    const tables = changedTables(affected);
    if (tables.length === 0) return [];
    if (!this.configured) {
      for (const t of tables) this.opts.onResult?.('skipped', refreshStatement(catalog, t.database, t.table));
      return [
        {
          level: 'Note',
          code: ER_UNKNOWN_ERROR,
          message: `The FE was not told to refresh ${tables.map((t) => `${catalog}.${t.database}.${t.table}`).join(', ')}: upstream.refresh_user is not configured. Run REFRESH TABLE on the FE to see the change at once.`,
        },
      ];
    }
    const warnings: Warning[] = [];
    for (const t of tables) {
      const sql = refreshStatement(catalog, t.database, t.table);
      try {
        await this.getPool().query({ sql, timeout: this.opts.statementTimeoutMs ?? 10_000 });
        this.opts.onResult?.('ok', sql);
      } catch (e) {
        this.opts.onResult?.('failed', sql, e);
        const why = maskText(describeFeError(e));
        warnings.push({
          level: 'Warning',
          code: ER_UNKNOWN_ERROR,
          message: `The procedure's change is committed, but ${sql} on the FE failed (${why}); the FE may show the table's old metadata until its cache expires or REFRESH TABLE is run.`,
        });
      }
    }
    return warnings;
  }

  async close(): Promise<void> {
    await this.pool?.end();
    this.pool = null;
  }
}

/** A driver error from the FE as the mysql client prints it: `ERROR <errno>: <message>` (unmasked). */
export function describeFeError(e: unknown): string {
  const err = e as { errno?: unknown; message?: unknown };
  return `${typeof err.errno === 'number' && err.errno > 0 ? `ERROR ${err.errno}: ` : ''}${String(err.message ?? e)}`;
}
