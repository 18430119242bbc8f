/**
 * Through the proxy a user starts (startProxy), in front of MariaDB, with mysql2 as the client
 * and the demo table written by our library:
 *  - every intercepted CALL leaves exactly one record in the JSON-lines audit file, also the
 *    ones refused before they run: unknown procedure (1305), unknown / missing / wrongly typed
 *    argument, a CALL that does not parse (1064), a user without the privilege (1142);
 *    forwarded statements leave none;
 *  - an argument value echoed in an error message is masked in the ERR packet and the audit;
 *  - with tracing.file set, the CALL is a span tree (resolve, plan, write, commit, refresh) in the file,
 *    its query id that of the audit record, the statement masked;
 *  - /metrics counts the refused CALLs, and the forwarded statements and bytes;
 *  - a CALL waiting for its table's lock stops on KILL QUERY from another connection, on its
 *    timeout and on its client's disconnect, saying nothing was committed;
 *  - an async job's job_status shows the progress its procedure reported.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { startProxy, type RunningProxy } from '../../src/proxy-app.js';
import { silentLogger } from '../../src/observability/logger.js';
import { ensureDemoTable } from '../../src/paimon/table/demo-table.js';
import { createFileIO } from '../../src/paimon/fs/file-io-factory.js';
import type { AuditRecord } from '../../src/observability/audit.js';
import type { FinishedSpan } from '../../src/observability/tracer-provider.js';
import { tableLockKey } from '../../procedures/framework/concurrency/table-lock.js';
import { mariadb, proxyConfig, tmpDir } from './wire-helpers.js';
import { adminConnection, testSecret } from './ops-env.js';

const suffix = Math.random().toString(16).slice(2, 8);
const PASSWORD = testSecret('call-records');
const SECRET = testSecret('call-records-key');
const readerUser = `ops_rec_reader_${suffix}`;

describe('one audit record per intercepted CALL, masked errors, span tree, metrics', () => {
  let proxy: RunningProxy;
  let auditFile: string;
  let traceFile: string;
  let admin: mysql.Connection;

  before(async () => {
    const dir = tmpDir('ops-records');
    const wh = join(dir, 'wh');
    assert.equal((await ensureDemoTable(wh, createFileIO(wh))).created, true);
    auditFile = join(dir, 'audit.jsonl');
    traceFile = join(dir, 'traces', 'spans.jsonl');
    const c = await adminConnection();
    try {
      await c.query(`CREATE USER ?@'127.0.0.1' IDENTIFIED BY ?`, [readerUser, PASSWORD]);
      await c.query(`GRANT SELECT ON \`demo\`.* TO ?@'127.0.0.1'`, [readerUser]);
    } finally {
      await c.end();
    }
    const db = mariadb();
    proxy = await startProxy(
      proxyConfig({
        upstream: { host: db.host, port: db.port, refresh_user: db.user, refresh_password: db.password },
        catalogs: [{ name: 'paimon', type: 'filesystem', warehouse: wh, properties: { 's3.secret-key': SECRET } }],
        audit: { file: auditFile },
        tracing: { file: traceFile },
        metrics: { port: 0 },
        security: { grant_cache_ttl_ms: 0 },
      }),
      { logger: silentLogger() },
    );
    admin = await mysql.createConnection({ host: '127.0.0.1', port: proxy.address.port, user: db.user, password: db.password });
  });

  after(async () => {
    await admin?.end();
    await proxy?.close();
    const c = await adminConnection();
    try {
      await c.query(`DROP USER IF EXISTS ?@'127.0.0.1'`, [readerUser]);
    } finally {
      await c.end();
    }
  });

  const records = (): AuditRecord[] =>
    existsSync(auditFile) ? readFileSync(auditFile, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as AuditRecord) : [];

  interface SqlError { errno: number; sqlState: string; message: string }

  /** Run one statement; the audit file must have grown by exactly `expected` records. */
  async function audited(c: mysql.Connection, sql: string, expected = 1): Promise<{ error: SqlError | null; added: AuditRecord[] }> {
    const before = records().length;
    let error: SqlError | null = null;
    await c.query(sql).catch((e: { errno: number; sqlState: string; sqlMessage: string }) => {
      error = { errno: e.errno, sqlState: e.sqlState, message: e.sqlMessage };
    });
    const added = records().slice(before);
    assert.equal(added.length, expected, `${sql}: ${added.length} records, expected ${expected}`);
    return { error, added };
  }

  test('refused CALLs are answered with their errno and audited exactly once each', async () => {
    const cases: [string, number, string][] = [
      ["CALL paimon.sys.no_such_proc(table => 'demo.orders')", 1305, 'PROCEDURE_NOT_FOUND'],
      ["CALL paimon.sys.expire_snapshots(table => 'demo.orders', bogus => 1)", 1210, 'ARGUMENT_UNKNOWN'],
      ['CALL paimon.sys.expire_snapshots()', 1318, 'ARGUMENT_MISSING'],
      ["CALL paimon.sys.expire_snapshots(table => 'demo.orders', retain_max => 'many')", 1210, 'ARGUMENT_TYPE'],
      ["CALL paimon.sys.expire_snapshots(table => 'demo.orders', retain_max => ", 1064, 'PARSE_ERROR'],
      ["CALL paimon.sys.expire_snapshots(table => 'demo.orders', timeout => '40d')", 1210, 'INVALID_ARGUMENT'],
    ];
    for (const [sql, errno, code] of cases) {
      const { error, added } = await audited(admin, sql);
      assert.ok(error, `${sql} should fail`);
      assert.equal(error.errno, errno, `${sql}: ${error.message}`);
      const r = added[0]!;
      assert.equal(r.errorCode, code, sql);
      assert.equal(r.errno, errno);
      assert.equal(r.outcome, 'failed');
      assert.equal(r.user, mariadb().user);
      assert.equal(r.catalog, 'paimon');
      assert.equal(r.statement, sql);
      assert.ok(r.connectionId !== null && r.connectionId > 0);
    }
    // Forwarded statements, other CALLs included, are the FE's: no record.
    await audited(admin, 'SELECT 1', 0);
  });

  test('a user without the privilege is refused with 1142 and audited once as denied', async () => {
    const c = await mysql.createConnection({ host: '127.0.0.1', port: proxy.address.port, user: readerUser, password: PASSWORD });
    try {
      const { error, added } = await audited(c, "CALL paimon.sys.expire_snapshots(table => 'demo.orders', retain_max => 1)");
      assert.equal(error?.errno, 1142);
      assert.equal(added[0]!.outcome, 'denied');
      assert.equal(added[0]!.user, readerUser);
    } finally {
      await c.end();
    }
  });

  test('a secret echoed in an error message is masked in the ERR packet and the audit record', async () => {
    for (const value of [`password=${SECRET}`, SECRET]) {
      const sql = `CALL paimon.sys.expire_snapshots(table => 'demo.orders', older_than => '${value}')`;
      const { error, added } = await audited(admin, sql);
      assert.equal(error?.errno, 1210, error?.message);
      assert.ok(!error!.message.includes(SECRET), `ERR packet leaks: ${error!.message}`);
      assert.match(error!.message, /older_than '.*\*{6}'/);
      assert.ok(!JSON.stringify(added).includes(SECRET));
    }
    // A CALL that does not parse echoes its text near the error: masked too.
    const { error } = await audited(admin, `CALL paimon.sys.expire_snapshots(table => 'demo.orders', options => 's3.secret-key=${SECRET}' retain_max => 1)`);
    assert.equal(error?.errno, 1064);
    assert.ok(!error!.message.includes(SECRET), error!.message);
    assert.ok(!readFileSync(auditFile, 'utf8').includes(SECRET));
  });

  test('a changing CALL: one record, and its span tree (resolve, plan, write, commit, refresh) in the trace file, masked', async () => {
    const sql = `CALL paimon.sys.expire_snapshots(table => 'demo.orders', retain_max => 1, retain_min => 1, options => 'snapshot.expire.limit=50,s3.secret-key=${SECRET}')`;
    const { error, added } = await audited(admin, sql);
    assert.equal(error, null, (error as SqlError | null)?.message);
    const r = added[0]!;
    assert.equal(r.outcome, 'succeeded');
    assert.deepEqual(r.affectedObjects, ['demo.orders']);
    // Spans are written by a buffered stream after the reply: wait (bounded) for this CALL's.
    let spans: FinishedSpan[] = [];
    let root: FinishedSpan | undefined;
    for (let i = 0; i < 100 && root === undefined; i++) {
      if (i > 0) await new Promise((res) => setTimeout(res, 20));
      spans = existsSync(traceFile) ? readFileSync(traceFile, 'utf8').split('\n').filter((l) => l.endsWith('}')).map((l) => JSON.parse(l) as FinishedSpan) : [];
      root = spans.find((s) => s.attributes['paimon.query_id'] === r.queryId);
    }
    assert.ok(root, 'the CALL\'s span carries the audit record\'s query id');
    assert.equal(root.name, 'CALL expire_snapshots');
    assert.equal(root.parentSpanId, null);
    assert.equal(root.attributes['paimon.outcome'], 'succeeded');
    assert.equal(root.attributes['db.statement'], r.statement, 'the statement attribute is the masked statement');
    const phases = spans.filter((s) => s.parentSpanId === root.spanId).map((s) => s.name);
    for (const p of ['resolve', 'plan', 'write', 'commit', 'refresh']) assert.ok(phases.includes(p), `phase ${p} in ${phases.join(',')}`);
    assert.deepEqual(Object.keys(r.phases).sort(), [...new Set(phases)].sort(), 'the audit record has the same phases');
    assert.ok(!readFileSync(traceFile, 'utf8').includes(SECRET));
  });

  test('/metrics counts the refused CALLs and the forwarded statements and bytes', async () => {
    await admin.query('SELECT 2');
    const text = await (await fetch(`http://127.0.0.1:${proxy.ops!.metricsPort}/metrics`)).text();
    assert.match(text, /paimon_proxy_calls_total\{outcome="failed",procedure="unknown"\} \d+/);
    assert.match(text, /paimon_proxy_calls_total\{outcome="denied",procedure="expire_snapshots"\} 1/);
    const fwd = Number(/paimon_proxy_forwarded_statements_total (\d+)/.exec(text)?.[1]);
    assert.ok(fwd >= 2, `forwarded statements ${fwd}`);
    assert.equal(fwd, proxy.server.stats.forwarded, 'the counter is the session\'s ProxyStats.forwarded');
    assert.ok(Number(/paimon_proxy_forwarded_bytes_total\{direction="upstream"\} (\d+)/.exec(text)?.[1]) > 0);
    assert.ok(Number(/paimon_proxy_forwarded_bytes_total\{direction="downstream"\} (\d+)/.exec(text)?.[1]) > 0);
  });

  test('a CALL waiting for the table lock stops on KILL QUERY, timeout and disconnect; nothing committed', async () => {
    const ops = proxy.ops!;
    const key = tableLockKey('paimon', 'demo', 'orders');
    // Another CALL holds the table (taken here directly: a real procedure is over too soon to race).
    const release = await ops.locks.acquire(key, { procedure: 'holder', queryId: 'test-holder', connectionId: null }, { mode: 'fail', waitMs: 0 });
    const CALL = "CALL paimon.sys.expire_snapshots(table => 'demo.orders', retain_max => 1, retain_min => 1)";
    const db = mariadb();
    const connect = () => mysql.createConnection({ host: '127.0.0.1', port: proxy.address.port, user: db.user, password: db.password });
    const waitFor = async (n: number, what: string) => {
      for (let i = 0; i < 500 && ops.locks.waiting(key) !== n; i++) await new Promise((res) => setTimeout(res, 10));
      assert.equal(ops.locks.waiting(key), n, what);
    };
    try {
      // KILL QUERY from another connection of the same user.
      const victim = await connect();
      try {
        const before = records().length;
        const t0 = Date.now();
        const pending = victim.query(CALL).then(() => null, (e: { errno: number; sqlMessage: string }) => e);
        await waitFor(1, 'the CALL waits for the lock');
        assert.ok(ops.calls.isRunning(victim.threadId!), 'the waiting CALL is a running CALL of its connection');
        await admin.query(`KILL QUERY ${victim.threadId}`);
        const e = await pending;
        assert.ok(e, 'the CALL failed');
        assert.equal(e.errno, 1317, e.sqlMessage);
        assert.match(e.sqlMessage, /Nothing was committed/);
        assert.ok(Date.now() - t0 < 10_000, 'stopped at once, not after table_lock_wait_ms');
        await waitFor(0, 'the killed CALL left the lock queue');
        const added = records().slice(before);
        assert.equal(added.length, 1);
        assert.equal(added[0]!.outcome, 'cancelled');
        assert.equal(added[0]!.committed, false);
        // Its own timeout.
        const t = await victim.query(CALL.replace(')', ", timeout => '300ms')")).then(() => null, (x: { errno: number; sqlMessage: string }) => x);
        assert.equal(t?.errno, 3024, t?.sqlMessage);
        assert.match(t!.sqlMessage, /Nothing was committed/);
        await waitFor(0, 'the timed-out CALL left the lock queue');
        assert.deepEqual((await victim.query('SELECT 1 AS one'))[0], [{ one: 1 }], 'the connection goes on');
      } finally {
        await victim.end();
      }
      // The client goes away while its CALL waits.
      const gone = await connect();
      const before = records().length;
      void gone.query(CALL).catch(() => undefined);
      await waitFor(1, 'the CALL waits for the lock');
      gone.destroy();
      await waitFor(0, 'the disconnected client\'s CALL left the lock queue');
      for (let i = 0; i < 200 && records().length === before; i++) await new Promise((res) => setTimeout(res, 10));
      const added = records().slice(before);
      assert.equal(added.length, 1);
      assert.equal(added[0]!.outcome, 'cancelled');
      assert.equal(ops.locks.holderOf(key)?.queryId, 'test-holder', 'no waiter ever took the lock');
    } finally {
      release();
    }
    assert.equal(ops.locks.holderOf(key), undefined);
    const { error } = await audited(admin, CALL);
    assert.equal(error, null, 'with the lock free the CALL runs');
  });

  test('an async job: job_status shows its final phase with the result summary once it finished', async () => {
    const [sets] = await admin.query("CALL paimon.sys.remove_orphan_files(table => 'demo.orders', older_than => '2000-01-01 00:00:00', dry_run => true, async => true)");
    const id = String((sets as Record<string, unknown>[][])[0]![0]!.job_id);
    let row: Record<string, unknown> = {};
    for (let i = 0; i < 300; i++) {
      const [r] = await admin.query(`CALL paimon.sys.job_status('${id}')`);
      row = (r as Record<string, unknown>[][])[0]![0]!;
      if (row.state !== 'queued' && row.state !== 'running') break;
      await new Promise((res) => setTimeout(res, 50));
    }
    assert.equal(row.state, 'succeeded', JSON.stringify(row));
    // A finished job shows its final phase, with the result's summary as the message.
    assert.equal(row.phase, 'done', JSON.stringify(row));
    assert.match(String(row.progress), /^done: would delete 0 orphan file\(s\)/, JSON.stringify(row));
    const rec = records().find((r) => r.jobId === id);
    assert.ok(rec, 'the job\'s CALL is audited with its job id');
    assert.equal(rec.procedure, 'remove_orphan_files');
  });
});
