/**
 * The operations layer end to end through the proxy a user starts (startProxy), on a table written by
 * Paimon Java, with mysql2 as the client:
 *  - standalone: privileges from the users file (1142 for a reader, the procedure for a
 *    maintainer), `async => true` returning a job id, job_status / list_jobs, the per-call
 *    timeout argument refused above the maximum, the audit file, /metrics;
 *  - in front of MariaDB: after the procedure changed the table, REFRESH TABLE reached the FE
 *    on the proxy's own connection (general log) and its failure is a warning on the OK.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import mysql, { type RowDataPacket, type ResultSetHeader } from 'mysql2/promise';
import { configSchema } from '../../src/config-schema.js';
import { silentLogger } from '../../src/observability/logger.js';
import { startProxy, type RunningProxy } from '../../src/proxy-app.js';
import { nativePasswordHash } from '../../protocol/auth.js';
import { buildHistory, copyWarehouse, javaAvailable } from '../interop/procedures-support.js';
import { mariadbEnv, readFrom, scratchDir, testSecret } from './ops-env.js';

const V = '2.0.0' as const;

/** One table history written by Paimon Java, copied for each proxy (building one takes a minute). */
let origin: Promise<string> | null = null;
function javaWarehouse(dir: string): Promise<string> {
  origin ??= (async () => {
    const o = join(scratchDir('ops-e2e-origin'), 'wh');
    await buildHistory(V, o);
    return o;
  })();
  return origin.then((o) => {
    const wh = join(dir, 'wh');
    copyWarehouse(o, wh);
    return wh;
  });
}

async function queryAll(c: mysql.Connection, sql: string): Promise<unknown> {
  const [rows] = await c.query(sql);
  return rows;
}

async function errorOf(p: Promise<unknown>): Promise<{ errno: number; sqlState: string; message: string }> {
  try {
    await p;
  } catch (e) {
    const x = e as { errno: number; sqlState: string; sqlMessage: string };
    return { errno: x.errno, sqlState: x.sqlState, message: x.sqlMessage };
  }
  throw new Error('expected an error');
}

describe('standalone proxy: privileges, async jobs, timeout argument, audit, metrics', () => {
  let proxy: RunningProxy;
  let auditFile: string;
  const secret = testSecret('e2e');

  before(async () => {
    assert.ok(javaAvailable(V), `Paimon ${V} reference tool is not built (tests/setup/paimon-java.sh)`);
    const dir = scratchDir('ops-e2e');
    const wh = await javaWarehouse(dir);
    const users = join(dir, 'users.yaml');
    writeFileSync(users, [
      'users:',
      '  - name: maint',
      `    native_hash: '${nativePasswordHash('m-pass')}'`,
      "    grants: ['ALTER ON paimon.interop.*']",
      '  - name: viewer',
      `    native_hash: '${nativePasswordHash('v-pass')}'`,
      "    grants: ['SELECT ON paimon.*.*']",
    ].join('\n') + '\n');
    auditFile = join(dir, 'audit.jsonl');
    const config = configSchema.parse({
      listen: { host: '127.0.0.1', port: 0 },
      catalogs: [{ name: 'paimon', warehouse: wh, properties: { 's3.secret-key': secret } }],
      users_file: users,
      audit: { file: auditFile },
      metrics: { port: 0 },
      logging: { level: 'silent' },
    });
    proxy = await startProxy(config, { logger: silentLogger() });
  });
  after(async () => { await proxy?.close(); });

  const conn = (user: string, password: string) => mysql.createConnection({ host: '127.0.0.1', port: proxy.address.port, user, password });

  test('a reader is refused with 1142 naming privilege, table and procedure; nothing runs', async () => {
    const c = await conn('viewer', 'v-pass');
    try {
      const e = await errorOf(c.query("CALL paimon.sys.expire_snapshots(table => 'interop.t', retain_max => 1, retain_min => 1)"));
      assert.equal(e.errno, 1142);
      assert.equal(e.sqlState, '42000');
      assert.match(e.message, /ALTER/);
      assert.match(e.message, /paimon\.interop\.t/);
      assert.match(e.message, /expire_snapshots/);
    } finally {
      await c.end();
    }
  });

  test('a maintainer runs it asynchronously: job id at once, then job_status and list_jobs', async () => {
    const c = await conn('maint', 'm-pass');
    try {
      const e = await errorOf(c.query("CALL paimon.sys.expire_snapshots(table => 'interop.t', retain_max => 1, retain_min => 1, timeout => '30d')"));
      assert.equal(e.errno, 1210, e.message);
      // The session's limit: @paimon_call_timeout, mirrored by the proxy (a dry run changes nothing).
      await c.query("SET @paimon_call_timeout = '1ms'");
      const t = await errorOf(c.query("CALL paimon.sys.expire_snapshots(table => 'interop.t', retain_max => 1, retain_min => 1, dry_run => true)"));
      assert.equal(t.errno, 3024, t.message);
      assert.match(t.message, /committed/);
      await c.query('SET @paimon_call_timeout = NULL');
      const [sets] = await c.query("CALL paimon.sys.expire_snapshots(table => 'interop.t', retain_max => 1, retain_min => 1, async => true)");
      const first = (sets as RowDataPacket[][])[0]!;
      const id = String(first[0]!.job_id);
      assert.match(id, /^job-[0-9a-f]{12}$/);
      let state = '';
      let row: RowDataPacket | undefined;
      for (let i = 0; i < 300 && state !== 'succeeded' && state !== 'failed'; i++) {
        const [r] = await c.query(`CALL paimon.sys.job_status('${id}')`);
        row = (r as RowDataPacket[][])[0]![0];
        state = String(row?.state);
        if (state !== 'succeeded' && state !== 'failed') await new Promise((res) => setTimeout(res, 100));
      }
      assert.equal(state, 'succeeded', JSON.stringify(row));
      const result = JSON.parse(String(row!.result)) as { columns: string[]; rows: string[][] };
      assert.ok(result.columns.includes('deleted_snapshots_count'));
      const [list] = await c.query('CALL paimon.sys.list_jobs()');
      assert.ok((list as RowDataPacket[][])[0]!.some((r) => r.job_id === id));
    } finally {
      await c.end();
    }
  });

  test('every CALL is in the audit file, masked; /metrics counts them', async () => {
    const lines = readFileSync(auditFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { user: string; outcome: string; procedure: string; errorCode: string | null });
    assert.ok(lines.some((l) => l.user === 'viewer' && l.outcome === 'denied' && l.errorCode === 'TABLE_ACCESS_DENIED'));
    assert.ok(lines.some((l) => l.user === 'maint' && l.procedure === 'expire_snapshots' && l.outcome === 'succeeded'));
    assert.ok(!readFileSync(auditFile, 'utf8').includes(secret));
    const port = proxy.ops?.metricsPort;
    assert.ok(port, 'metrics endpoint not started');
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    assert.match(text, /paimon_proxy_calls_total\{outcome="denied",procedure="expire_snapshots"\} [1-9]/);
    assert.match(text, /paimon_proxy_connections_accepted_total [1-9]/);
  });
});

describe('in front of MariaDB: REFRESH TABLE after a change', () => {
  let proxy: RunningProxy;
  let generalLogOffset = 0;

  before(async () => {
    assert.ok(javaAvailable(V), `Paimon ${V} reference tool is not built (tests/setup/paimon-java.sh)`);
    const db = mariadbEnv();
    const wh = await javaWarehouse(scratchDir('ops-e2e-fe'));
    const config = configSchema.parse({
      listen: { host: '127.0.0.1', port: 0 },
      upstream: { host: db.host, port: db.port, refresh_user: db.user, refresh_password: db.password },
      catalogs: [{ name: 'paimon', warehouse: wh }],
      audit: { file: join(scratchDir('ops-e2e-fe-audit'), 'audit.jsonl') },
      logging: { level: 'silent' },
    });
    proxy = await startProxy(config, { logger: silentLogger() });
    generalLogOffset = statSync(db.generalLog).size;
  });
  after(async () => { await proxy?.close(); });

  test('the FE receives REFRESH TABLE on the proxy\'s own connection; its failure is a warning on the OK', async () => {
    const db = mariadbEnv();
    const c = await mysql.createConnection({ host: '127.0.0.1', port: proxy.address.port, user: db.user, password: db.password });
    try {
      const [sets] = await c.query("CALL paimon.sys.expire_snapshots(table => 'interop.t', retain_max => 1, retain_min => 1)");
      const parts = sets as unknown as [RowDataPacket[], ResultSetHeader];
      assert.ok(Number(parts[0]![0]!.deleted_snapshots_count) > 0, 'the call changed the table');
      assert.ok(parts[1]!.warningStatus >= 1, 'the failed refresh is a warning on the OK');
      assert.deepEqual(await queryAll(c, 'SELECT 1 AS one'), [{ one: 1 }], 'the session goes on');
    } finally {
      await c.end();
    }
    const log = readFrom(db.generalLog, generalLogOffset);
    assert.ok(log.includes('REFRESH TABLE `paimon`.`interop`.`t`'), 'REFRESH TABLE not received by the FE');
  });
});
