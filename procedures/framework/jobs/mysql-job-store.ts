/**
 * The shared job store: a table in a MySQL-protocol database (MySQL, MariaDB; on Doris use a
 * UNIQUE KEY table with the same columns), for several proxies serving one warehouse. Each
 * row holds the full record as JSON plus the columns that are filtered on. Only the owning
 * proxy writes a job's record; other proxies may only set `cancel_requested`, which the owner
 * polls (JobManager), so the two never overwrite each other's column.
 */
import mysql from 'mysql2/promise';
import { type JobFilter, type JobPatch, type JobRecord, type JobStore, applyPatch, interruptedPatch, matchesFilter } from './job.js';

export interface MysqlJobStoreOptions {
  host: string;
  port: number;
  user: string;
  password?: string;
  database: string;
  table: string;
  owner: string;
  retentionMs: number;
  now?: () => number;
}

export function jobTableDdl(table: string): string {
  return `CREATE TABLE IF NOT EXISTS \`${table}\` (
  id VARCHAR(32) NOT NULL PRIMARY KEY,
  owner VARCHAR(256) NOT NULL,
  state VARCHAR(16) NOT NULL,
  user_name VARCHAR(256) NOT NULL,
  procedure_name VARCHAR(128) NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  finished_at BIGINT NULL,
  cancel_requested TINYINT NOT NULL DEFAULT 0,
  doc LONGTEXT NOT NULL,
  KEY idx_owner_state (owner, state),
  KEY idx_created (created_at)
)`;
}

interface Row {
  doc: string;
  cancel_requested: number;
}

export class MysqlJobStore implements JobStore {
  private readonly pool: mysql.Pool;
  private readonly now: () => number;
  private readonly t: string;

  constructor(private readonly opts: MysqlJobStoreOptions) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(opts.table)) throw new Error(`jobs table '${opts.table}' must be letters, digits and _`);
    this.t = `\`${opts.table}\``;
    this.now = opts.now ?? Date.now;
    this.pool = mysql.createPool({
      host: opts.host,
      port: opts.port,
      user: opts.user,
      password: opts.password,
      database: opts.database,
      connectionLimit: 4,
      connectTimeout: 10_000,
    });
  }

  private decode(r: Row): JobRecord {
    const rec = JSON.parse(r.doc) as JobRecord;
    return { ...rec, cancelRequested: rec.cancelRequested || r.cancel_requested === 1 };
  }

  async open(): Promise<{ interrupted: number }> {
    await this.pool.query(jobTableDdl(this.opts.table));
    const now = this.now();
    await this.pool.query(`DELETE FROM ${this.t} WHERE finished_at IS NOT NULL AND finished_at < ?`, [now - this.opts.retentionMs]);
    const [rows] = await this.pool.query<(Row & mysql.RowDataPacket)[]>(
      `SELECT doc, cancel_requested FROM ${this.t} WHERE owner = ? AND state IN ('queued', 'running')`,
      [this.opts.owner],
    );
    for (const r of rows) {
      const rec = this.decode(r);
      await this.write(applyPatch(rec, interruptedPatch(rec, now), now));
    }
    return { interrupted: rows.length };
  }

  private async write(rec: JobRecord): Promise<void> {
    await this.pool.query(
      `UPDATE ${this.t} SET state = ?, updated_at = ?, finished_at = ?, doc = ? WHERE id = ?`,
      [rec.state, rec.updatedAt, rec.finishedAt, JSON.stringify(rec), rec.id],
    );
  }

  async create(rec: JobRecord): Promise<void> {
    await this.pool.query(
      `INSERT INTO ${this.t} (id, owner, state, user_name, procedure_name, created_at, updated_at, finished_at, cancel_requested, doc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [rec.id, rec.owner, rec.state, rec.user, rec.procedure, rec.createdAt, rec.updatedAt, rec.finishedAt, rec.cancelRequested ? 1 : 0, JSON.stringify(rec)],
    );
  }

  /** Updates of one job run one after the other (read-modify-write must not interleave). */
  private readonly chains = new Map<string, Promise<unknown>>();

  update(id: string, patch: JobPatch): Promise<JobRecord | undefined> {
    const prev = this.chains.get(id) ?? Promise.resolve();
    const next = prev.then(
      () => this.applyUpdate(id, patch),
      () => this.applyUpdate(id, patch),
    );
    const settled = next.catch(() => undefined);
    this.chains.set(id, settled);
    void settled.then(() => {
      if (this.chains.get(id) === settled) this.chains.delete(id);
    });
    return next;
  }

  private async applyUpdate(id: string, patch: JobPatch): Promise<JobRecord | undefined> {
    const cur = await this.get(id);
    if (!cur) return undefined;
    const next = applyPatch(cur, patch, this.now());
    if (patch.cancelRequested !== undefined && Object.keys(patch).length === 1) {
      // A cancel request (possibly from another proxy) touches only its own column.
      await this.pool.query(`UPDATE ${this.t} SET cancel_requested = ?, updated_at = ? WHERE id = ?`, [patch.cancelRequested ? 1 : 0, next.updatedAt, id]);
      return next;
    }
    await this.write(next);
    return next;
  }

  async get(id: string): Promise<JobRecord | undefined> {
    const [rows] = await this.pool.query<(Row & mysql.RowDataPacket)[]>(`SELECT doc, cancel_requested FROM ${this.t} WHERE id = ?`, [id]);
    return rows[0] ? this.decode(rows[0]) : undefined;
  }

  async list(filter?: JobFilter): Promise<JobRecord[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter?.states && filter.states.length > 0) {
      where.push(`state IN (${filter.states.map(() => '?').join(', ')})`);
      params.push(...filter.states);
    }
    if (filter?.user !== undefined) {
      where.push('user_name = ?');
      params.push(filter.user);
    }
    if (filter?.procedure !== undefined) {
      where.push('procedure_name = ?');
      params.push(filter.procedure);
    }
    const limit = filter?.limit !== undefined ? ` LIMIT ${Math.max(0, Math.floor(filter.limit))}` : '';
    const [rows] = await this.pool.query<(Row & mysql.RowDataPacket)[]>(
      `SELECT doc, cancel_requested FROM ${this.t}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, id DESC${limit}`,
      params,
    );
    return rows.map((r) => this.decode(r)).filter((r) => matchesFilter(r, filter));
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
