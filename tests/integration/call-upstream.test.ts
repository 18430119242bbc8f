/**
 * Routing with a real upstream (MariaDB standing in for the Doris FE): Paimon CALLs are
 * answered by the proxy and never reach the upstream (checked in MariaDB's general query
 * log), while the upstream's own stored procedures, including one in MariaDB's `sys` schema
 * called as `CALL sys.x()`, are forwarded. The wire shape of an intercepted CALL (result set
 * then final OK) is what mysql2 and the mariadb CLI see for MariaDB's own CALL.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import mysql from 'mysql2/promise';
import { startProxy, type RunningProxy } from '../../src/proxy-app.js';
import { silentLogger } from '../../src/observability/logger.js';
import { captureError, connect, mariadb, proxyConfig, run, type Conn } from './wire-helpers.js';
import { makeRouter, makeWarehouse } from '../unit/router/router-fixtures.js';

describe('CALL routing with a MariaDB upstream', () => {
  let wh: string;
  let proxy: RunningProxy;
  let port: number;
  let direct: Conn;
  let viaProxy: Conn;
  const marker = `m${Date.now().toString(36)}`;

  before(async () => {
    wh = await makeWarehouse();
    // The proxy's own router over a warehouse whose registry has a test-only procedure
    // (test_echo), so the wire shape of a successful intercepted CALL can be checked here.
    proxy = await startProxy(proxyConfig(), { logger: silentLogger(), router: makeRouter(wh) });
    port = proxy.address.port;
    direct = await connect(mariadb().port);
    await direct.query('CREATE DATABASE IF NOT EXISTS sys');
    await direct.query("CREATE OR REPLACE PROCEDURE sys.proxy_probe() SELECT 'mariadb' AS who");
    await direct.query('CREATE OR REPLACE PROCEDURE proxytest.one_result() SELECT 42 AS answer');
    viaProxy = await connect(port);
  });
  after(async () => {
    await viaProxy?.end().catch(() => {});
    await direct?.end().catch(() => {});
    await proxy?.close();
    await rm(wh, { recursive: true, force: true });
  });

  test("the upstream's procedures are forwarded, also a two-part sys CALL while the catalog is not Paimon", async () => {
    const [probe] = await viaProxy.query('CALL sys.proxy_probe()');
    const [probeDirect] = await direct.query('CALL sys.proxy_probe()');
    assert.deepEqual(probe, probeDirect);
    assert.deepEqual((probe as unknown[][])[0], [{ who: 'mariadb' }]);
    const [one] = await viaProxy.query('CALL proxytest.one_result()');
    assert.deepEqual((one as unknown[][])[0], [{ answer: 42 }]);
  });

  test('an intercepted CALL answers a result set and a final OK, shaped like MariaDB\'s own CALL', async () => {
    const [res, fields] = await viaProxy.query(`CALL paimon.sys.test_echo('sales.orders', 5) /* ${marker} */`);
    const [resDirect] = await direct.query('CALL proxytest.one_result()');
    assert.ok(Array.isArray(res) && Array.isArray(resDirect));
    assert.equal((res as unknown[]).length, (resDirect as unknown[]).length);
    const [rows, ok] = res as [unknown[], mysql.ResultSetHeader];
    assert.deepEqual(rows, [{ identifier: 'sales.orders', n: 5, caller_db: null }]);
    assert.equal(ok.constructor.name, (resDirect as unknown[])[1]!.constructor.name);
    assert.equal(ok.warningStatus, 1);
    assert.deepEqual(
      (fields as unknown as mysql.FieldPacket[][])[0]!.map((f) => f.name),
      ['identifier', 'n', 'caller_db'],
    );
    // The connection keeps working for forwarded statements afterwards.
    const [after] = await viaProxy.query('SELECT 1 AS x');
    assert.deepEqual(after, [{ x: 1 }]);
  });

  test('a failed SWITCH (MariaDB has none) leaves the catalog alone: sys CALLs still go upstream', async () => {
    const e = await captureError(viaProxy.query('SWITCH paimon'));
    assert.equal(e.errno, 1064); // MariaDB's own parse error
    const [probe] = await viaProxy.query('CALL sys.proxy_probe()');
    assert.deepEqual((probe as unknown[][])[0], [{ who: 'mariadb' }]);
  });

  test('errors of intercepted CALLs are the proxy\'s: 1064 with position, 1235, 1305, 1146', async () => {
    const parse = await captureError(viaProxy.query("CALL paimon.sys.test_echo('a',"));
    assert.equal(parse.errno, 1064);
    assert.equal(parse.sqlState, '42000');
    assert.match(String(parse.sqlMessage), /CALL syntax: expected a literal .* at line 1, column 31/);
    const multi = await captureError(viaProxy.query("CALL paimon.sys.test_echo('sales.orders'); SELECT 1"));
    assert.equal(multi.errno, 1235);
    const unknown = await captureError(viaProxy.query('CALL paimon.sys.no_such()'));
    assert.equal(unknown.errno, 1305);
    assert.match(String(unknown.sqlMessage), /Available procedures: test_echo/);
    const missing = await captureError(viaProxy.query("CALL paimon.sys.test_echo('sales.none')"));
    assert.equal(missing.errno, 1146);
    assert.equal(missing.sqlState, '42S02');
  });

  test('KILL QUERY from a second connection stops a running procedure with 1317', async () => {
    const victim = await connect(port);
    const killer = await connect(port);
    try {
      const pending = captureError(victim.query("CALL paimon.sys.test_echo(`table` => 'sales.orders', sleep_ms => 20000)"));
      await new Promise((r) => setTimeout(r, 200));
      const started = Date.now();
      await killer.query(`KILL QUERY ${victim.threadId}`);
      const e = await pending;
      assert.equal(e.errno, 1317);
      assert.equal(e.sqlState, '70100');
      assert.match(String(e.sqlMessage), /Nothing was committed/);
      assert.ok(Date.now() - started < 5000);
      // The victim's connection is still usable.
      const [rows] = await victim.query('SELECT 2 AS y');
      assert.deepEqual(rows, [{ y: 2 }]);
    } finally {
      await victim.end().catch(() => {});
      await killer.end().catch(() => {});
    }
  });

  test('the mariadb CLI through the proxy prints an intercepted CALL and still runs MariaDB procedures', async () => {
    const db = mariadb();
    const r = await run('mariadb', [
      '--no-defaults', '-h', '127.0.0.1', '-P', String(port), '-u', db.user, `-p${db.password}`, '--skip-ssl', '--batch', 'proxytest',
      '-e', "CALL paimon.sys.test_echo('ops.events', -3); CALL sys.proxy_probe()",
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /identifier\tn\tcaller_db\nops\.events\t-3\tNULL\n/);
    assert.match(r.stdout, /who\nmariadb\n/);
  });

  test('intercepted CALLs never reach the upstream; forwarded ones do (general query log)', async () => {
    const logPath = mariadb().generalLog;
    assert.ok(logPath, 'MARIADB_GENERAL_LOG is set by tests/setup/mariadb.sh');
    const log = await readFile(logPath, 'utf8');
    assert.ok(!log.includes(marker), 'the intercepted CALL was seen by MariaDB');
    assert.ok(!log.includes('test_echo'), 'an intercepted CALL was seen by MariaDB');
    assert.ok(log.includes('CALL sys.proxy_probe()'));
  });
});
