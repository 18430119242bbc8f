/**
 * Through the proxy a user starts (startProxy), in front of MariaDB, with mysql2 as the client
 * and the demo table written by our library:
 *  - every intercepted CALL leaves exactly one record in the JSON-lines audit file, also the
 *    ones refused before they run: unknown procedure (1305), unknown / missing / wrongly typed
 *    argument, a CALL that does not parse (1064), a user without the privilege (1142);
 *    forwarded statements leave none;
 *  - an argument value echoed in an error message is masked in the ERR packet and the audit;
 *  - with tracing.file set, the CALL is a span tree (resolve, plan, write, refresh) in the file,
 *    its query id that of the audit record, the statement masked;
 *  - /metrics counts the refused CALLs, and the forwarded statements and bytes.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { startProxy, type RunningProxy } from '../../src/proxy-app.js';
import { silentLogger } from '../../src/observability/logger.js';
import { ensureDemoTable } from '../../src/paimon/demo-table.js';
import { createFileIO } from '../../src/paimon/file-io-factory.js';
import type { AuditRecord } from '../../src/observability/audit.js';
import type { FinishedSpan } from '../../src/observability/tracer-provider.js';
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

  test('a changing CALL: one record, and its span tree (resolve, plan, write, refresh) in the trace file, masked', async () => {
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
    for (const p of ['resolve', 'plan', 'write', 'refresh']) assert.ok(phases.includes(p), `phase ${p} in ${phases.join(',')}`);
    assert.deepEqual(Object.keys(r.phases).sort(), [...new Set(phases)].sort(), 'the audit record has the same phases');
    assert.ok(!readFileSync(traceFile, 'utf8').includes(SECRET));
  });

  test('/metrics counts the refused CALLs and the forwarded statements and bytes', async () => {
    await admin.query('SELECT 2');
    const text = await (await fetch(`http://127.0.0.1:${proxy.ops!.metricsPort}/metrics`)).text();
    assert.match(text, /paimon_proxy_calls_total\{outcome="failed",procedure="no_such_proc"\} 1/);
    assert.match(text, /paimon_proxy_calls_total\{outcome="denied",procedure="expire_snapshots"\} 1/);
    const fwd = Number(/paimon_proxy_forwarded_statements_total (\d+)/.exec(text)?.[1]);
    assert.ok(fwd >= 2, `forwarded statements ${fwd}`);
    assert.equal(fwd, proxy.server.stats.forwarded, 'the counter is the session\'s ProxyStats.forwarded');
    assert.ok(Number(/paimon_proxy_forwarded_bytes_total\{direction="upstream"\} (\d+)/.exec(text)?.[1]) > 0);
    assert.ok(Number(/paimon_proxy_forwarded_bytes_total\{direction="downstream"\} (\d+)/.exec(text)?.[1]) > 0);
  });
});

