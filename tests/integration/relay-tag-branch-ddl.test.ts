/**
 * ALTER TABLE tag/branch DDL in a relayed session (MariaDB upstream): on a table of the Paimon
 * catalog it runs as the tag/branch procedure calls (test stand-ins that record how they were
 * bound: tests/unit/router/ddl/recording-procedures.ts) through the CALL path with the ops
 * runtime's hooks, so it is audited and counted like a CALL, and the client gets an OK or an
 * ERR as from Doris; on any other table it reaches the upstream byte for byte. Standalone, the
 * same DDL takes the same path, with the users file's grants checked as for a CALL.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import mysql, { type ResultSetHeader } from 'mysql2/promise';
import { captureError, connect, mariadb, proxyConfig } from './wire-helpers.js';
import { startProxy, type RunningProxy } from '../../src/proxy-app.js';
import { startOps, type OpsRuntime } from '../../src/observability/ops-runtime.js';
import { silentLogger } from '../../src/observability/logger.js';
import { buildCatalogs } from '../../src/catalogs.js';
import { ProcedureExecutor } from '../../procedures/framework/executor.js';
import { ProcedureRegistry } from '../../procedures/framework/registry.js';
import { Router } from '../../src/router/router.js';
import { makeWarehouse } from '../unit/router/router-fixtures.js';
import { recordingProcedures, type Recorder } from '../unit/router/ddl/recording-procedures.js';
import { tempDir } from '../support/temp-dir.js';
import { until } from '../support/wait.js';
import { nativePasswordHash } from '../../protocol/auth.js';
import { resolveLocalUsers } from '../../src/users-file.js';

let proxy: RunningProxy;
let ops: OpsRuntime;
let rec: Recorder;
let auditFile: string;
const marker = `ddl${Date.now()}`;

function auditRecords(): { procedure: string; statement: string; outcome: string; errorCode: string | null; arguments: Record<string, unknown> }[] {
  if (!existsSync(auditFile)) return [];
  return readFileSync(auditFile, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
}

describe('relay: ALTER TABLE tag/branch DDL', () => {
  before(async () => {
    const wh = await makeWarehouse();
    const dir = tempDir('relay-ddl');
    auditFile = join(dir, 'audit.jsonl');
    const config = proxyConfig({
      catalogs: [{ name: 'paimon', type: 'filesystem', warehouse: wh }],
      audit: { file: auditFile },
      jobs: { dir },
      metrics: { port: 0 },
      // Privileges are the executor's authorize hook, the same for a CALL and a DDL; MariaDB's grants say nothing of Paimon tables.
      security: { check_privileges: false },
    });
    const logger = silentLogger();
    ops = await startOps(config, { logger });
    rec = recordingProcedures();
    const executor = new ProcedureExecutor({
      registry: new ProcedureRegistry(rec.procedures),
      catalogs: buildCatalogs(config),
      limits: config.procedures,
      hooks: ops.hooks,
      frameworkParams: ops.frameworkParams,
    });
    proxy = await startProxy(config, { logger, router: new Router({ executor, defaultCatalog: null, calls: ops.calls }) });
  });
  after(async () => {
    await proxy?.close();
    await ops?.close();
  });

  test('tag DDL runs the tag procedures with the right arguments and answers OK or ERR as Doris', async () => {
    const c = await connect(proxy.address.port);
    try {
      const ok = async (sql: string): Promise<ResultSetHeader> => {
        const [r] = await c.query(`${sql} /* ${marker} */`);
        assert.ok(!Array.isArray(r), `${sql}: an OK, not a result set`);
        assert.equal((r as ResultSetHeader).affectedRows, 0);
        return r as ResultSetHeader;
      };
      rec.calls.length = 0;
      await ok('ALTER TABLE paimon.sales.orders CREATE TAG t1 AS OF VERSION 3 RETAIN 2 DAYS');
      let e = await captureError(c.query(`ALTER TABLE paimon.sales.orders CREATE TAG t1 /* ${marker} */`));
      assert.equal(e.errno, 1105);
      assert.match(String(e.sqlMessage), /already exists/);
      const skipped = await ok('alter table paimon.`sales`.`orders` create tag if not exists `t1` retain 90 minutes');
      assert.equal(skipped.warningStatus, 1, 'IF NOT EXISTS leaves a Note');
      await ok('ALTER TABLE paimon.sales.orders CREATE OR REPLACE TAG t1 AS OF VERSION 4');
      await ok('ALTER TABLE paimon.sales.orders CREATE OR REPLACE TAG t2 RETAIN 1 HOURS');
      e = await captureError(c.query(`ALTER TABLE paimon.sales.orders REPLACE TAG nope /* ${marker} */`));
      assert.match(String(e.sqlMessage), /does not exist/);
      await ok('ALTER TABLE paimon.sales.orders DROP TAG t2');
      await ok('ALTER TABLE paimon.sales.orders DROP TAG IF EXISTS t2');
      e = await captureError(c.query(`ALTER TABLE paimon.sales.orders DROP TAG t2 /* ${marker} */`));
      assert.match(String(e.sqlMessage), /does not exist/);
      const T = 'sales.orders';
      assert.deepEqual(rec.calls.map((x) => [x.procedure, x.args]), [
        ['create_tag', { table: T, tag: 't1', snapshot_id: 3n, time_retained: '2 d' }],
        ['create_tag', { table: T, tag: 't1', snapshot_id: null, time_retained: null }],
        ['create_tag', { table: T, tag: 't1', snapshot_id: null, time_retained: '90 min' }],
        ['replace_tag', { table: T, tag: 't1', snapshot_id: 4n, time_retained: null, create_if_missing: true }],
        ['replace_tag', { table: T, tag: 't2', snapshot_id: null, time_retained: '1 h', create_if_missing: true }],
        ['replace_tag', { table: T, tag: 'nope', snapshot_id: null, time_retained: null, create_if_missing: false }],
        ['delete_tag', { table: T, tag: 't2', if_exists: false }],
        ['delete_tag', { table: T, tag: 't2', if_exists: true }],
        ['delete_tag', { table: T, tag: 't2', if_exists: false }],
      ]);
      const [rows] = await c.query('SELECT 1 + 1 AS two');
      assert.deepEqual(rows, [{ two: 2 }], 'the session stays in step');
    } finally {
      await c.end();
    }
    assert.ok(!readFileSync(mariadb().generalLog, 'utf8').includes(marker), 'intercepted DDL never reached the upstream');
  });

  test('branch DDL, and the branch clauses Paimon has no equivalent for (1235 naming the CALLs)', async () => {
    const c = await connect(proxy.address.port);
    try {
      rec.calls.length = 0;
      await c.query('ALTER TABLE paimon.ops.events CREATE BRANCH b1');
      await c.query('ALTER TABLE paimon.ops.events CREATE BRANCH IF NOT EXISTS b1');
      await c.query('ALTER TABLE paimon.ops.events DROP BRANCH b1');
      await c.query('ALTER TABLE paimon.ops.events DROP BRANCH IF EXISTS b1');
      const e = await captureError(c.query('ALTER TABLE paimon.ops.events DROP BRANCH b1'));
      assert.match(String(e.sqlMessage), /does not exist/);
      for (const [sql, what] of [
        ['ALTER TABLE paimon.ops.events CREATE BRANCH b2 AS OF VERSION 5', /CALL sys\.create_tag.*snapshot_id => 5.*CALL sys\.create_branch/],
        ['ALTER TABLE paimon.ops.events CREATE BRANCH b2 RETAIN 3 DAYS', /RETAIN.*CALL sys\.create_branch/],
        ['ALTER TABLE paimon.ops.events CREATE BRANCH b2 WITH SNAPSHOT RETENTION 2 SNAPSHOTS', /SNAPSHOT RETENTION/],
        ['ALTER TABLE paimon.ops.events CREATE OR REPLACE BRANCH b2', /delete_branch.*create_branch/],
      ] as const) {
        const n = await captureError(c.query(sql));
        assert.equal(n.errno, 1235, sql);
        assert.match(String(n.sqlMessage), what, sql);
      }
      const p = await captureError(c.query('ALTER TABLE paimon.ops.events CREATE TAG x RETAIN 1 WEEKS'));
      assert.equal(p.errno, 1064);
      assert.deepEqual(rec.calls.map((x) => [x.procedure, x.args]), [
        ['create_branch', { table: 'ops.events', branch: 'b1', tag: null, ignore_if_exists: false }],
        ['create_branch', { table: 'ops.events', branch: 'b1', tag: null, ignore_if_exists: true }],
        ['delete_branch', { table: 'ops.events', branch: 'b1' }],
        ['delete_branch', { table: 'ops.events', branch: 'b1' }],
        ['delete_branch', { table: 'ops.events', branch: 'b1' }],
      ]);
    } finally {
      await c.end();
    }
  });

  test('each call is audited under its procedure with the DDL as statement, and counted in the metrics', async () => {
    await until(() => auditRecords().some((r) => r.procedure === 'create_branch' && /NOT_SUPPORTED/.test(String(r.errorCode))), 'the audit of the refused branch DDL');
    const recs = auditRecords();
    const first = recs.find((r) => r.statement.includes('CREATE TAG t1 AS OF VERSION 3'));
    assert.ok(first, JSON.stringify(recs.map((r) => r.statement)));
    assert.equal(first.procedure, 'create_tag');
    assert.equal(first.outcome, 'succeeded');
    assert.deepEqual([first.arguments.tag, first.arguments.time_retained], ['t1', '2 d']);
    const exists = recs.find((r) => r.statement.startsWith('ALTER TABLE paimon.sales.orders CREATE TAG t1 /*'));
    assert.equal(exists?.errorCode, 'TAG_ALREADY_EXISTS');
    assert.ok(recs.some((r) => r.procedure === 'create_tag' && r.errorCode === 'PARSE_ERROR'), 'the syntax error is audited');
    // CREATE OR REPLACE TAG of a missing tag: one statement, one record (it creates the tag).
    const orReplace = recs.filter((r) => r.statement.startsWith('ALTER TABLE paimon.sales.orders CREATE OR REPLACE TAG t2 RETAIN 1 HOURS'));
    assert.deepEqual(orReplace.map((r) => [r.procedure, r.outcome]), [['replace_tag', 'succeeded']]);
    const metrics = await (await fetch(`http://127.0.0.1:${ops.metricsPort}/metrics`)).text();
    assert.match(metrics, /paimon_proxy_calls_total\{[^}]*procedure="replace_tag"[^}]*\} [1-9]/);
    assert.match(metrics, /paimon_proxy_calls_total\{[^}]*procedure="delete_branch"[^}]*\} [1-9]/);
  });

  test('the same DDL on a table of another catalog, an unknown catalog or without a Paimon session catalog reaches MariaDB byte for byte', async () => {
    const log = mariadb().generalLog;
    const offset = statSync(log).size;
    const c = await connect(proxy.address.port);
    const sent = [
      `ALTER TABLE internal.proxytest.t CREATE TAG x /* ${marker}-1 */`,
      `ALTER TABLE nocat.sales.orders DROP BRANCH IF EXISTS b /* ${marker}-2 */`,
      `alter  table sales.orders  create or replace tag  x retain 2 days /* ${marker}-3 */`,
      `ALTER TABLE orders CREATE TAG x RETAIN 2 WEEKS /* ${marker}-4 */`,
    ];
    try {
      for (const sql of sent) {
        const e = await captureError(c.query(sql));
        assert.ok(e.errno !== undefined && e.errno !== 1235, `${sql}: MariaDB's own error, got ${e.errno} ${e.sqlMessage}`);
      }
    } finally {
      await c.end();
    }
    await until(() => {
      const tail = readFileSync(log, 'utf8').slice(offset);
      return sent.every((s) => tail.includes(s));
    }, 'the forwarded DDL in the general log');
  });
});

describe('standalone: ALTER TABLE tag/branch DDL with the users file grants', () => {
  let alone: RunningProxy;
  let aloneOps: OpsRuntime;
  let aloneRec: Recorder;

  before(async () => {
    const wh = await makeWarehouse();
    const dir = tempDir('standalone-ddl');
    const users = join(dir, 'users.yaml');
    writeFileSync(users, [
      'users:',
      '  - name: maint',
      `    native_hash: '${nativePasswordHash('m-pass')}'`,
      "    grants: ['ALTER ON paimon.sales.*']",
      '  - name: viewer',
      `    native_hash: '${nativePasswordHash('v-pass')}'`,
      "    grants: ['SELECT ON paimon.*.*']",
    ].join('\n') + '\n');
    const config = proxyConfig({ catalogs: [{ name: 'paimon', type: 'filesystem', warehouse: wh }], users_file: users, audit: { file: join(dir, 'audit.jsonl') }, jobs: { dir } }, { upstream: false });
    const logger = silentLogger();
    aloneOps = await startOps(config, { logger, localUsers: (await resolveLocalUsers(users, '127.0.0.1')).users.values() });
    aloneRec = recordingProcedures();
    const executor = new ProcedureExecutor({ registry: new ProcedureRegistry(aloneRec.procedures), catalogs: buildCatalogs(config), limits: config.procedures, hooks: aloneOps.hooks, frameworkParams: aloneOps.frameworkParams });
    alone = await startProxy(config, { logger, router: new Router({ executor, defaultCatalog: 'paimon', calls: aloneOps.calls }) });
  });
  after(async () => {
    await alone?.close();
    await aloneOps?.close();
  });

  test('the session catalog and database name the table; a reader is refused with 1142 as for the CALL; nothing runs', async () => {
    const conn = (user: string, password: string) => mysql.createConnection({ host: '127.0.0.1', port: alone.address.port, user, password, database: 'sales' });
    const m = await conn('maint', 'm-pass');
    try {
      const [r] = await m.query('ALTER TABLE orders CREATE TAG s1 RETAIN 1 DAYS');
      assert.equal((r as ResultSetHeader).affectedRows, 0);
      assert.deepEqual(aloneRec.calls.map((x) => [x.procedure, x.identifier, x.args.time_retained]), [['create_tag', 'sales.orders', '1 d']]);
      const e = await captureError(m.query('ALTER TABLE ops.events CREATE TAG s1'));
      assert.equal(e.errno, 1142, String(e.sqlMessage));
    } finally {
      await m.end();
    }
    const v = await conn('viewer', 'v-pass');
    try {
      const ddl = await captureError(v.query('ALTER TABLE orders DROP TAG s1'));
      const call = await captureError(v.query("CALL sys.delete_tag(table => 'orders', tag => 's1')"));
      assert.equal(ddl.errno, 1142);
      assert.equal(ddl.sqlMessage, call.sqlMessage);
    } finally {
      await v.end();
    }
    assert.equal(aloneRec.calls.length, 1, 'the refused statements ran nothing');
  });
});
