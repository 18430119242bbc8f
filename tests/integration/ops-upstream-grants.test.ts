/**
 * Privilege checks in front of an FE (MariaDB stands in): the proxy reads the caller's grants
 * with `SHOW GRANTS` on the caller's OWN upstream connection while it runs the intercepted
 * CALL (Session.queryUpstream), maps the MariaDB grants (`db`.*) onto the Paimon catalog's
 * database, refuses a SELECT-only user with 1142 naming ALTER, runs the procedure for a user
 * granted ALTER, and the session stays in step for ordinary forwarded statements afterwards
 * (with and without CLIENT_DEPRECATE_EOF), the SHOW GRANTS response never reaching the client.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { startProxy, type RunningProxy } from '../../src/proxy-app.js';
import { silentLogger } from '../../src/observability/logger.js';
import { ensureDemoTable } from '../../src/paimon/table/demo-table.js';
import { createFileIO } from '../../src/paimon/fs/file-io-factory.js';
import { captureError, mariadb, proxyConfig, tmpDir } from './wire-helpers.js';
import { adminConnection, readFrom, testSecret } from './ops-env.js';

const suffix = Math.random().toString(16).slice(2, 8);
const PASSWORD = testSecret('upstream-grants');
const alterUser = `ops_up_alter_${suffix}`;
const selectUser = `ops_up_select_${suffix}`;
const CALL = "CALL paimon.sys.expire_snapshots(table => 'demo.orders', retain_max => 1, retain_min => 1, dry_run => true)";

let proxy: RunningProxy;

describe('relay: privileges from SHOW GRANTS on the caller\'s own upstream session', () => {
  before(async () => {
    const wh = join(tmpDir('up-grants'), 'wh');
    const demo = await ensureDemoTable(wh, createFileIO(wh));
    assert.equal(demo.created, true);
    const c = await adminConnection();
    try {
      for (const u of [alterUser, selectUser]) await c.query(`CREATE USER ?@'127.0.0.1' IDENTIFIED BY ?`, [u, PASSWORD]);
      await c.query(`GRANT ALTER ON \`demo\`.* TO ?@'127.0.0.1'`, [alterUser]);
      await c.query(`GRANT SELECT ON \`demo\`.* TO ?@'127.0.0.1'`, [selectUser]);
    } finally {
      await c.end();
    }
    // grant cache off: every CALL asks the FE again, so each one exercises the upstream query
    proxy = await startProxy(
      proxyConfig({ catalogs: [{ name: 'paimon', type: 'filesystem', warehouse: wh }], security: { grant_cache_ttl_ms: 0 } }),
      { logger: silentLogger() },
    );
    assert.ok(!proxy.ops!.startupNotes.some((n) => /privilege checks are not possible/.test(n)), proxy.ops!.startupNotes.join('\n'));
  });

  after(async () => {
    await proxy?.close();
    const c = await adminConnection();
    try {
      for (const u of [alterUser, selectUser]) await c.query(`DROP USER IF EXISTS ?@'127.0.0.1'`, [u]);
    } finally {
      await c.end();
    }
  });

  const connectAs = (user: string, deprecateEof: boolean) =>
    mysql.createConnection({
      host: '127.0.0.1',
      port: proxy.address.port,
      user,
      password: PASSWORD,
      multipleStatements: true,
      ...(deprecateEof ? {} : { flags: ['-DEPRECATE_EOF'] }),
    });

  /** Submits an async CALL and waits for its job to end; returns the job_status row. */
  async function runAsync(c: mysql.Connection): Promise<Record<string, unknown>> {
    const [sets] = await c.query(CALL.replace('dry_run => true)', 'dry_run => true, async => true)'));
    const id = String((sets as Record<string, unknown>[][])[0]![0]!.job_id);
    assert.match(id, /^job-[0-9a-f]{12}$/);
    let row: Record<string, unknown> = {};
    for (let i = 0; i < 300; i++) {
      const [r] = await c.query(`CALL paimon.sys.job_status('${id}')`);
      row = (r as Record<string, unknown>[][])[0]![0]!;
      if (row.state === 'succeeded' || row.state === 'failed') break;
      await new Promise((res) => setTimeout(res, 50));
    }
    return row;
  }

  test('async => true: the job is checked with the grants read on the submitting session', async () => {
    const viewer = await connectAs(selectUser, true);
    const maint = await connectAs(alterUser, true);
    try {
      const denied = await runAsync(viewer);
      assert.equal(denied.state, 'failed', JSON.stringify(denied));
      assert.equal(denied.errno, 1142, JSON.stringify(denied));
      assert.match(String(denied.error_message), /ALTER/);
      const ok = await runAsync(maint);
      assert.equal(ok.state, 'succeeded', JSON.stringify(ok));
      for (const c of [viewer, maint]) {
        const [rows] = await c.query('SELECT 2 AS two');
        assert.deepEqual(rows, [{ two: 2 }]);
      }
    } finally {
      await viewer.end();
      await maint.end();
    }
  });

  for (const deprecateEof of [true, false]) {
    const label = deprecateEof ? 'with' : 'without';

    test(`SELECT-only user: 1142 naming ALTER; the connection stays in step (${label} DEPRECATE_EOF)`, async () => {
      const log = mariadb().generalLog;
      const offset = log ? statSync(log).size : 0;
      const c = await connectAs(selectUser, deprecateEof);
      try {
        for (let i = 0; i < 3; i++) {
          const e = await captureError(c.query(CALL));
          assert.equal(e.errno, 1142, String(e.sqlMessage));
          assert.equal(e.sqlState, '42000');
          assert.match(String(e.sqlMessage), /ALTER/);
          assert.match(String(e.sqlMessage), /expire_snapshots/);
          const [rows] = await c.query('SELECT 1 AS one, CURRENT_USER() AS me');
          assert.deepEqual(rows, [{ one: 1, me: `${selectUser}@127.0.0.1` }]);
        }
        const [multi] = await c.query('SELECT 1 AS a; SELECT 2 AS b');
        assert.deepEqual(multi, [[{ a: 1 }], [{ b: 2 }]]);
        // SHOW GRANTS ran on this client's own FE session (the general log's thread id is the
        // connection id the client saw in the greeting), not on some other connection.
        if (log) {
          const tail = readFrom(log, offset);
          const mine = tail.split('\n').filter((l) => new RegExp(`\\b${c.threadId}\\s+Query\\s+SHOW GRANTS\\s*$`).test(l));
          assert.equal(mine.length, 3, `SHOW GRANTS on thread ${c.threadId} once per CALL:\n${tail}`);
        }
      } finally {
        await c.end();
      }
    });

    test(`ALTER user: the procedure runs; the connection stays in step (${label} DEPRECATE_EOF)`, async () => {
      const c = await connectAs(alterUser, deprecateEof);
      try {
        await c.query('SET @x = 41');
        for (let i = 0; i < 2; i++) {
          const [res] = await c.query(CALL);
          const sets = res as unknown as [Record<string, unknown>[], { affectedRows: number }];
          assert.equal(sets.length, 2, 'the result set and the final OK');
          assert.ok(Array.isArray(sets[0]) && sets[0].length >= 1, JSON.stringify(sets[0]));
          const [rows] = await c.query('SELECT 1 AS one, @x + 1 AS x');
          assert.deepEqual(rows, [{ one: 1, x: 42 }]);
        }
        // the user's privileges are the FE's business for forwarded statements
        const e = await captureError(c.query('CREATE DATABASE not_allowed_here'));
        assert.equal(e.errno, 1044);
      } finally {
        await c.end();
      }
    });
  }
});
