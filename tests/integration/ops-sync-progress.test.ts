/**
 * Progress of a synchronous CALL while it runs, seen the ways an operator looks, through the
 * proxy a user starts (startProxy, standalone) with mysql2 clients, on tables written by Paimon
 * Java:
 *  - a second connection's `CALL sys.list_jobs()` / `job_status('call-...')` show the running
 *    `compact` (mode sync, its connection id, target, phase 'compact', buckets done/total,
 *    rows and bytes so far), and no longer once its client has the result;
 *  - the log has a progress line per phase and interval lines while the phase runs;
 *  - /metrics shows it among the running calls, with its progress ratio;
 *  - `cancel_job('call-...')` from the second connection stops it like KILL QUERY: the client
 *    gets 1317 "Nothing was committed", the table has the same snapshots and files, and Paimon
 *    Java still reads it.
 *
 * To look at a compaction in the middle, the catalog is served over a FileIO that holds the
 * first data-file read after the first bucket was compacted (compact_concurrency 1), until the
 * test lets it go. That is an in-process option of startProxy (`catalogs`), which no
 * configuration can set. The warehouse is named `gated:///<local path>` so that data files too
 * go through that FileIO (streamed, as on an object store) instead of DuckDB opening local
 * files directly; the FileIO maps the names to the local directory.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import mysql, { type RowDataPacket } from 'mysql2/promise';
import { configSchema } from '../../src/config-schema.js';
import { createLogger } from '../../src/observability/logger.js';
import { startProxy, type RunningProxy } from '../../src/proxy-app.js';
import { CatalogSet, FileSystemProcedureCatalog } from '../../src/catalogs.js';
import { LocalFileIO } from '../../src/paimon/fs/local-file-io.js';
import type { FileIO } from '../../src/paimon/fs/file-io.js';
import { nativePasswordHash } from '../../protocol/auth.js';
import { javaAvailable, javaBatch, listTree, readRows, writeSchema } from '../interop/procedures-support.js';
import { scratchDir, testSecret } from './ops-env.js';
import { until } from '../support/wait.js';

const V = '2.0.0' as const;

/** Holds the first read that `when` accepts until `release()`; every other call passes. */
class ReadGate {
  private when: ((method: string, path: string) => boolean) | null = null;
  private held: { path: string; release: () => void } | null = null;
  private onHeld: ((path: string) => void) | null = null;

  /** Arm: resolves with the held path once a read is held. */
  arm(when: (method: string, path: string) => boolean): Promise<string> {
    this.when = when;
    return new Promise((resolve) => {
      this.onHeld = resolve;
    });
  }

  release(): void {
    this.when = null;
    this.held?.release();
    this.held = null;
  }

  async pass(method: string, path: string): Promise<void> {
    if (this.when === null || this.held !== null || !this.when(method, path)) return;
    this.when = null;
    await new Promise<void>((release) => {
      this.held = { path, release };
      this.onHeld?.(path);
    });
  }

  /**
   * `inner` (a LocalFileIO) under the scheme `gated://`: path arguments lose the prefix, paths
   * in returned statuses get it back; reads pass through the gate first.
   */
  wrap(inner: FileIO): FileIO {
    const gated = new Set(['readFile', 'readRange', 'openRead']);
    const local = (a: unknown): unknown =>
      typeof a === 'string' && a.startsWith(SCHEME) ? a.slice(SCHEME.length) : Array.isArray(a) ? a.map(local) : a; // deleteMany takes a list
    const remote = <T>(st: T): T => (st !== null && typeof st === 'object' && 'path' in st ? { ...st, path: SCHEME + String((st as { path: string }).path) } : st);
    return new Proxy(inner, {
      get: (target, prop, receiver) => {
        const v: unknown = Reflect.get(target, prop, receiver);
        if (typeof v !== 'function') return v;
        const fn = v as (...a: unknown[]) => unknown;
        if (prop === 'list' || prop === 'listRecursive') {
          return async function* (...args: unknown[]) {
            for await (const st of fn.apply(target, args.map(local)) as AsyncIterable<unknown>) yield remote(st);
          };
        }
        if (prop === 'getStatus') return async (...args: unknown[]) => remote(await (fn.apply(target, args.map(local)) as Promise<unknown>));
        return async (...args: unknown[]) => {
          if (typeof prop === 'string' && gated.has(prop)) await this.pass(prop, String(args[0]));
          return fn.apply(target, args.map(local));
        };
      },
    });
  }
}

const SCHEME = 'gated://';

/** Resolves as `p` does, or fails after `ms` saying what it waited for and `state()`. */
async function within<T>(p: Promise<T>, ms: number, what: string, state: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}; ${state()}`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

type Row = Record<string, unknown>;

async function rowsOf(c: mysql.Connection, sql: string): Promise<Row[]> {
  const [sets] = await c.query(sql);
  return (sets as RowDataPacket[][])[0] as Row[];
}

async function errorOf(p: Promise<unknown>): Promise<{ errno: number; message: string }> {
  try {
    await p;
  } catch (e) {
    const x = e as { errno: number; sqlMessage: string };
    return { errno: x.errno, message: x.sqlMessage };
  }
  throw new Error('expected an error');
}

const waitFor = (cond: () => boolean | Promise<boolean>, what: string, ms = 60_000): Promise<void> => until(cond, what, ms, 20);

describe('a synchronous compact seen from a second connection, the log and /metrics', () => {
  let proxy: RunningProxy;
  let wh: string;
  const gate = new ReadGate();
  const logLines: string[] = [];
  const secret = testSecret('sync-progress');

  before(async () => {
    assert.ok(javaAvailable(V), `Paimon ${V} reference tool is not built (tests/setup/paimon-java.sh)`);
    const dir = scratchDir('ops-sync-progress');
    wh = join(dir, 'wh');
    // Two primary-key tables with 4 buckets, every key written twice: each non-empty bucket has
    // two level-0 files for compact to merge.
    const schema = writeSchema(dir, {
      fields: [
        { name: 'id', type: 'INT NOT NULL' },
        { name: 'v', type: 'STRING' },
      ],
      primaryKeys: ['id'],
      options: { bucket: '4', 'write-only': 'true' },
    });
    const steps: string[][] = [];
    for (const t of ['t1', 't2']) {
      steps.push(['create-table', wh, 'interop', t, schema], ['write-loop', wh, 'interop', t, '8', '0', '0'], ['write-loop', wh, 'interop', t, '8', '0', '0']);
    }
    await javaBatch(V, steps);
    const users = join(dir, 'users.yaml');
    writeFileSync(users, [
      'users:',
      '  - name: maint',
      `    native_hash: '${nativePasswordHash('m-pass')}'`,
      "    grants: ['ALTER ON paimon.*.*', 'SELECT ON paimon.*.*']",
      '  - name: other',
      `    native_hash: '${nativePasswordHash('o-pass')}'`,
      "    grants: ['ALTER ON paimon.*.*', 'SELECT ON paimon.*.*']",
    ].join('\n') + '\n');
    const config = configSchema.parse({
      listen: { host: '127.0.0.1', port: 0 },
      catalogs: [{ name: 'paimon', warehouse: wh, properties: { 's3.secret-key': secret } }],
      users_file: users,
      audit: { file: join(dir, 'audit.jsonl') },
      jobs: { dir: join(dir, 'jobs') },
      metrics: { port: 0 },
      logging: { level: 'info', progress_interval_ms: 300 },
      procedures: { compact_concurrency: 1 },
    });
    const logger = createLogger({ level: 'info', destination: { write: (s: string) => void logLines.push(s) } });
    const catalogs = new CatalogSet([new FileSystemProcedureCatalog('paimon', SCHEME + wh, gate.wrap(new LocalFileIO()))]);
    proxy = await startProxy(config, { logger, catalogs });
  });
  after(async () => {
    gate.release();
    await proxy?.close();
  });

  const conn = (user = 'maint', password = 'm-pass') => mysql.createConnection({ host: '127.0.0.1', port: proxy.address.port, user, password });

  /** The running compact's entry, once its first bucket is done: then hold its next data-file read. */
  function holdAfterFirstBucket(): Promise<string> {
    return gate.arm((_method, path) => {
      if (!path.includes('/bucket-')) return false;
      const c = proxy.ops!.calls.list().find((x) => x.procedure === 'compact');
      return c?.progress?.phase === 'compact' && (c.progress.done ?? 0) >= 1;
    });
  }

  const progressLines = (): Row[] =>
    logLines.map((l) => JSON.parse(l) as Row).filter((o) => o.event === 'procedure_progress');

  test('list_jobs, job_status, the log and /metrics show it while it runs; it is gone once done', async () => {
    const a = await conn();
    const b = await conn();
    const other = await conn('other', 'o-pass');
    try {
      const held = holdAfterFirstBucket();
      const running = a.query("CALL paimon.sys.compact(table => 'interop.t1')");
      running.catch(() => undefined);
      await within(held, 120_000, 'a data-file read after the first bucket', () => JSON.stringify(proxy.ops!.calls.list()));
      const listed = await rowsOf(b, 'CALL paimon.sys.list_jobs()');
      assert.equal(listed.length, 1, JSON.stringify(listed));
      const r = listed[0]!;
      const id = String(r.job_id);
      assert.match(id, /^call-[0-9a-f]{12}$/);
      assert.equal(r.mode, 'sync');
      assert.equal(r.state, 'running');
      assert.equal(r.procedure, 'compact');
      assert.equal(r.user, 'maint');
      assert.equal(r.target, 'interop.t1');
      assert.equal(Number(r.connection_id), a.threadId);
      assert.equal(r.phase, 'compact');
      const done = Number(r.done);
      const total = Number(r.total);
      assert.ok(done >= 1 && done < total, `buckets ${done}/${total}`);
      assert.match(String(r.message), /^rows read [1-9]\d*, written [1-9]\d*, bytes written [1-9]\d*$/);
      assert.equal(r.progress, `compact ${done}/${total}: ${String(r.message)}`);
      assert.equal(r.finished_at, null);
      assert.equal(r.committed, null);
      assert.equal(id, `call-${String(r.query_id).replace(/-/g, '').slice(0, 12)}`);
      // job_status: the same call; another user sees none of it.
      const st = await rowsOf(b, `CALL paimon.sys.job_status('${id}')`);
      assert.deepEqual([st[0]!.job_id, st[0]!.phase, st[0]!.done, st[0]!.total], [id, 'compact', r.done, r.total]);
      assert.equal((await rowsOf(other, 'CALL paimon.sys.list_jobs()')).length, 0);
      assert.equal((await errorOf(other.query(`CALL paimon.sys.job_status('${id}')`))).errno > 0, true);

      // The log: one line per phase so far (plan, compact) with the call id, then interval lines while held.
      const mine = () => progressLines().filter((o) => o.callId === id);
      assert.deepEqual(mine().filter((o) => o.reason === 'phase').map((o) => o.phase), ['plan', 'compact']);
      await waitFor(() => mine().some((o) => o.reason === 'interval' && o.phase === 'compact'), 'an interval line while the phase runs', 30_000);
      const line = mine().find((o) => o.reason === 'interval' && o.phase === 'compact')!;
      assert.deepEqual([line.procedure, line.target, line.connectionId, line.user, line.mode, line.done, line.total], ['compact', 'interop.t1', a.threadId, 'maint', 'sync', done, total]);
      assert.equal(line.fraction, Math.round((done / total) * 10_000) / 10_000);
      assert.ok(!logLines.join('\n').includes(secret));

      // /metrics: one compact running, its ratio.
      const text = await (await fetch(`http://127.0.0.1:${proxy.ops!.metricsPort}/metrics`)).text();
      assert.match(text, /paimon_proxy_calls_running\{[^}]*procedure="compact"[^}]*\} 1\b/);
      assert.match(text, new RegExp(`paimon_proxy_call_progress_ratio\\{[^}]*id="${id}"[^}]*\\} ${done / total}`));

      gate.release();
      const [sets] = await running;
      const result = (sets as RowDataPacket[][])[0]![0]!;
      assert.equal(Number(result.buckets_compacted), total, JSON.stringify(result));
      assert.equal((await rowsOf(b, 'CALL paimon.sys.list_jobs()')).length, 0, 'gone once the client has its result');
      const gone = await errorOf(b.query(`CALL paimon.sys.job_status('${id}')`));
      assert.match(gone.message, /is running in this proxy; a finished one is in the audit log/);
      const after = await (await fetch(`http://127.0.0.1:${proxy.ops!.metricsPort}/metrics`)).text();
      assert.match(after, /paimon_proxy_calls_running\{[^}]*procedure="compact"[^}]*\} 0\b/);
      assert.doesNotMatch(after, new RegExp(`id="${id}"`));
      const n = mine().length;
      await new Promise((res) => setTimeout(res, 700));
      assert.equal(mine().length, n, 'no progress lines after the end');
    } finally {
      gate.release();
      await Promise.all([a.end(), b.end(), other.end()]);
    }
  });

  test('cancel_job of the call id stops it like KILL QUERY: 1317, nothing committed, Java still reads the table', async () => {
    const tableDir = join(wh, 'interop.db', 't2');
    const before = listTree(tableDir);
    const snapshotsBefore = readdirSync(join(tableDir, 'snapshot')).sort();
    const a = await conn();
    const b = await conn();
    try {
      const held = holdAfterFirstBucket();
      const running = a.query("CALL paimon.sys.compact(table => 'interop.t2')");
      running.catch(() => undefined);
      await within(held, 120_000, 'a data-file read after the first bucket', () => JSON.stringify(proxy.ops!.calls.list()));
      const [r] = await rowsOf(b, 'CALL paimon.sys.list_jobs()');
      const id = String(r!.job_id);
      const c = await rowsOf(b, `CALL paimon.sys.cancel_job('${id}')`);
      assert.deepEqual([c[0]!.job_id, c[0]!.action], [id, 'aborted']);
      gate.release();
      const e = await errorOf(running);
      assert.equal(e.errno, 1317, e.message);
      assert.match(e.message, new RegExp(`cancelled by cancel_job\\('${id}'\\) from connection ${b.threadId}\\. Nothing was committed`));
      assert.equal((await rowsOf(b, 'CALL paimon.sys.list_jobs()')).length, 0);
      // Nothing half-done: the same snapshots, the files written for the first bucket removed again.
      assert.deepEqual(readdirSync(join(tableDir, 'snapshot')).sort(), snapshotsBefore);
      assert.deepEqual(listTree(tableDir), before);
      // The same files, so the same rows: Java reads the 8 keys as written.
      assert.deepEqual(await readRows(V, wh, 'interop', 't2'), Array.from({ length: 8 }, (_, i) => JSON.stringify({ id: i, v: `w${i}` })));
      // The audit record says cancelled.
      const audit = readFileSync(join(wh, '..', 'audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Row);
      const rec = audit.find((x) => String(x.queryId).replace(/-/g, '').startsWith(id.slice(5)));
      assert.equal(rec?.outcome, 'cancelled', JSON.stringify(rec));
    } finally {
      gate.release();
      await Promise.all([a.end(), b.end()]);
    }
  });
});
