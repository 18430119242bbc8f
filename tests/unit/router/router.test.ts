import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { classifyStatement, classifyStatementBytes } from '../../../src/router/statement-prefilter.js';
import { Router } from '../../../src/router/router.js';
import { CatalogSet, FileSystemProcedureCatalog } from '../../../src/catalogs.js';
import { LocalFileIO } from '../../../src/paimon/fs/local-file-io.js';
import { ProcedureRegistry } from '../../../procedures/framework/registry.js';
import { ProcedureExecutor } from '../../../procedures/framework/executor.js';
import { configSchema } from '../../../src/config-schema.js';
import { parseKill, parseSwitch, parseUse } from '../../../src/router/session-statement.js';
import { echoProcedure, makeRouter, makeSession, makeWarehouse, runLocal } from './router-fixtures.js';

describe('prefilter', () => {
  const cases: [string, string][] = [
    ['CALL x()', 'call'],
    ['  call\tpaimon.sys.p()', 'call'],
    ['/* ApplicationName=DBeaver 24 */ CALL p()', 'call'],
    ['-- Metabase:: userID: 1\nCALL p()', 'call'],
    ['# hash\ncall`p`()', 'call'],
    ['CALL(1)', 'call'],
    ['CALL/**/p', 'call'],
    ['CALLS p()', 'other'],
    ['CALL_ME()', 'other'],
    ['/*! CALL */ p()', 'other'],
    ['/*+ hint */ CALL p()', 'other'],
    ['--CALL p()', 'other'],
    ['/* unterminated CALL p()', 'other'],
    ['SELECT 1', 'other'],
    ['use db', 'use'],
    ['USE`db`', 'use'],
    ['SWITCH paimon', 'switch'],
    ['kill query 5', 'kill'],
    ['KILLER', 'other'],
    ['SET @paimon_call_timeout = 1', 'set'],
    ['set names utf8', 'set'],
    ['SETTINGS', 'other'],
    ['REFRESH CATALOG lake', 'refresh'],
    ['refresh table t', 'refresh'],
    ['REFRESHED', 'other'],
    ['SELECT 1', 'other'],
    ['', 'other'],
    ['   ', 'other'],
    ['-- only a comment', 'other'],
    ['cäll p()', 'other'],
    ['CALLé()', 'other'],
  ];
  for (const [sql, kind] of cases) {
    test(`${JSON.stringify(sql)} is ${kind}, on strings and on bytes`, () => {
      assert.equal(classifyStatement(sql), kind);
      const buf = Buffer.concat([Buffer.from([0x03]), Buffer.from(sql, 'utf8')]);
      assert.equal(classifyStatementBytes(buf, 1), kind);
    });
  }
});

describe('statement readers', () => {
  test('USE, SWITCH and KILL forms', () => {
    assert.deepEqual(parseUse('USE db'), { catalog: null, db: 'db' });
    assert.deepEqual(parseUse('use `paimon`.`my db`;'), { catalog: 'paimon', db: 'my db' });
    assert.equal(parseUse('USE a.b.c'), null);
    assert.equal(parseUse('USE'), null);
    assert.equal(parseSwitch('SWITCH `lake` ;'), 'lake');
    assert.equal(parseSwitch('SWITCH a b'), null);
    assert.deepEqual(parseKill('KILL 12'), { target: 12n, mode: 'connection' });
    assert.deepEqual(parseKill('kill query 3;'), { target: 3n, mode: 'query' });
    assert.deepEqual(parseKill('KILL CONNECTION 4'), { target: 4n, mode: 'connection' });
    assert.equal(parseKill("KILL QUERY 'a1b2c3'"), null);
  });
});

describe('router with an upstream FE', () => {
  let wh: string;
  let router: Router;
  before(async () => {
    wh = await makeWarehouse();
    router = makeRouter(wh);
  });
  after(async () => rm(wh, { recursive: true, force: true }));

  test('ordinary statements and foreign CALLs are forwarded', () => {
    const s = makeSession();
    for (const sql of [
      'SELECT 1',
      'CALL my_proc(1, @x)',
      'CALL db.my_proc(now())',
      'CALL sys.ps_setup_show_enabled(TRUE, TRUE)', // MariaDB's sys schema while current catalog is internal
      'CALL other.sys.expire_snapshots()', // not a configured catalog
      'CALL PAIMONX.sys.test_echo()', // no configured catalog, in any case
      'CALL paimon.system.test_echo()',
      'CALL paimon.sys',
      'CALL EXECUTE_STMT("jdbc", "select 1")',
      '/*! CALL paimon.sys.test_echo() */',
      'INSERT INTO t VALUES (1)',
    ]) {
      const r = router.route(sql, s);
      assert.equal(r.kind, 'forward', sql);
      assert.equal(r.kind === 'forward' && r.afterOk, undefined, sql);
    }
  });

  test('three-part CALLs for a configured catalog are intercepted, whatever the sys case', () => {
    const s = makeSession();
    for (const sql of ["CALL paimon.sys.test_echo('sales.orders')", "call lake.SYS.TEST_ECHO('sales.orders')", "CALL `paimon`.`sys`.`test_echo`('sales.orders')"]) {
      assert.equal(router.route(sql, s).kind, 'local', sql);
    }
  });

  test('catalog names resolve exactly first, else case-insensitively to the one matching catalog; sys and the procedure name in any case', async () => {
    const s = makeSession();
    for (const sql of ["CALL PAIMON.SYS.TEST_ECHO('sales.orders')", "CALL PAIMON.sys.test_echo('sales.orders')", "CALL Paimon.sys.test_echo('sales.orders')", "CALL `PAIMON`.`sys`.`test_echo`('sales.orders')"]) {
      const r = router.route(sql, s);
      assert.equal(r.kind, 'local', sql);
      const replies = r.kind === 'local' ? await r.run(new AbortController().signal) : [];
      assert.equal(replies[0]?.kind, 'resultset', sql);
    }
    for (const sql of ["CALL paimon.SYS.test_echo('sales.orders')", "CALL paimon.Sys.Test_Echo('sales.orders')", "CALL `paimon`.`SYS`.`TEST_ECHO`('sales.orders')"]) {
      assert.equal(router.route(sql, s).kind, 'local', sql);
    }
    assert.equal(router.interceptCatalog({ parts: ['LAKE', 'sys', 'x'], end: 0 }, s), 'lake');
    const sw = router.route('SWITCH paimon', s);
    if (sw.kind === 'forward') sw.afterOk!(s);
    assert.equal(router.route("CALL SYS.TEST_ECHO('sales.orders')", s).kind, 'local');
  });

  test('database and table names compare exactly, as Doris does with its default lower_case_table_names = 0', async () => {
    const s = makeSession();
    for (const [sql, errno] of [["CALL PAIMON.sys.test_echo('SALES.orders')", 1049], ["CALL paimon.sys.test_echo('sales.ORDERS')", 1146]] as const) {
      const r = router.route(sql, s);
      const replies = r.kind === 'local' ? await r.run(new AbortController().signal) : [];
      const e = replies.at(-1);
      assert.equal(e?.kind, 'error', sql);
      assert.equal(e?.kind === 'error' && e.errno, errno, sql);
    }
  });

  test('a forwarded REFRESH CATALOG rediscovers the catalogs read from the FE once the FE says OK; other REFRESHes do not', () => {
    const catalogs = new CatalogSet([new FileSystemProcedureCatalog('paimon', wh, new LocalFileIO())]);
    const executor = new ProcedureExecutor({ registry: new ProcedureRegistry([echoProcedure]), catalogs, limits: configSchema.parse({}).procedures });
    let refreshes = 0;
    const r2 = new Router({ executor, defaultCatalog: null, onCatalogRefresh: () => refreshes++ });
    const s = makeSession();
    const r = r2.route('REFRESH CATALOG lake', s);
    assert.equal(r.kind, 'forward');
    assert.equal(refreshes, 0, 'not before the FE answers');
    if (r.kind === 'forward') r.afterOk?.(s);
    assert.equal(refreshes, 1);
    const t = r2.route('REFRESH TABLE lake.db.t', s);
    assert.equal(t.kind === 'forward' && t.afterOk, undefined);
  });

  test('a catalog name that matches two configured catalogs ignoring case is refused, naming both', async () => {
    const catalogs = new CatalogSet([new FileSystemProcedureCatalog('paimon', wh, new LocalFileIO()), new FileSystemProcedureCatalog('Paimon', wh, new LocalFileIO())]);
    const executor = new ProcedureExecutor({ registry: new ProcedureRegistry([echoProcedure]), catalogs, limits: configSchema.parse({}).procedures });
    const r2 = new Router({ executor, defaultCatalog: 'paimon' });
    const s = makeSession();
    assert.equal(r2.interceptCatalog({ parts: ['Paimon', 'sys', 'test_echo'], end: 0 }, s), 'Paimon');
    assert.equal(r2.interceptCatalog({ parts: ['paimon', 'sys', 'test_echo'], end: 0 }, s), 'paimon');
    const r = r2.route("CALL PAIMON.sys.test_echo('sales.orders')", s);
    assert.equal(r.kind, 'local');
    const replies = r.kind === 'local' ? await r.run(new AbortController().signal) : [];
    assert.equal(replies.length, 1);
    const e = replies[0]!;
    assert.equal(e.kind, 'error');
    assert.equal(e.kind === 'error' && e.errno, 1049);
    assert.match(e.kind === 'error' ? e.message : '', /'PAIMON' matches the configured catalogs 'paimon', 'Paimon'.*exact name/);
  });

  test('two-part sys CALLs are intercepted only while the current catalog is a Paimon one', () => {
    const s = makeSession();
    assert.equal(router.route("CALL sys.test_echo('sales.orders')", s).kind, 'forward');
    const sw = router.route('SWITCH paimon', s);
    assert.equal(sw.kind, 'forward');
    // Until the FE says OK nothing changes.
    assert.equal(s.currentCatalog, null);
    if (sw.kind === 'forward') sw.afterOk!(s);
    assert.equal(s.currentCatalog, 'paimon');
    assert.equal(router.route("CALL sys.test_echo('sales.orders')", s).kind, 'local');
    const back = router.route('SWITCH internal', s);
    if (back.kind === 'forward') back.afterOk!(s);
    assert.equal(router.route("CALL sys.test_echo('sales.orders')", s).kind, 'forward');
  });

  test('USE mirrors the database (and catalog) after OK; SWITCH restores the last database of a catalog', () => {
    const s = makeSession();
    const u = router.route('USE paimon.sales', s);
    if (u.kind === 'forward') u.afterOk!(s);
    assert.deepEqual([s.currentCatalog, s.currentDatabase], ['paimon', 'sales']);
    const u2 = router.route('USE `ops`', s);
    if (u2.kind === 'forward') u2.afterOk!(s);
    assert.deepEqual([s.currentCatalog, s.currentDatabase], ['paimon', 'ops']);
    const sw = router.route('SWITCH lake', s);
    if (sw.kind === 'forward') sw.afterOk!(s);
    assert.deepEqual([s.currentCatalog, s.currentDatabase], ['lake', null]);
    const sw2 = router.route('SWITCH paimon', s);
    if (sw2.kind === 'forward') sw2.afterOk!(s);
    assert.deepEqual([s.currentCatalog, s.currentDatabase], ['paimon', 'ops']);
    const init = router.initDb('lake.sales', s);
    assert.equal(init.kind, 'forward');
    if (init.kind === 'forward') init.afterOk!(s);
    assert.deepEqual([s.currentCatalog, s.currentDatabase], ['lake', 'sales']);
  });

  test('an intercepted CALL runs the procedure: result set then final OK', async () => {
    const s = makeSession({ currentCatalog: 'paimon', currentDatabase: 'sales' });
    const replies = await runLocal(router.route('CALL sys.test_echo(`table` => \'orders\', n => 9223372036854775807)', s));
    assert.equal(replies.length, 2);
    const [rs, ok] = replies;
    assert.ok(rs!.kind === 'resultset');
    assert.deepEqual(rs.rows, [['sales.orders', '9223372036854775807', 'sales']]);
    assert.ok(ok!.kind === 'ok');
    assert.equal(ok.warnings?.[0]?.message, 'echo warning');
  });

  test('the current database is only used in its own catalog', async () => {
    const s = makeSession({ currentCatalog: 'lake', currentDatabase: 'sales' });
    const replies = await runLocal(router.route("CALL paimon.sys.test_echo('orders')", s));
    assert.ok(replies[0]!.kind === 'error');
    assert.equal(replies[0].errno, 1210); // INVALID_ARGUMENT: no database for a one-part name
  });

  test('errors of intercepted CALLs: 1064 with position, 1235 for a second statement, 1305 listing procedures, 1146', async () => {
    const s = makeSession();
    const parse = await runLocal(router.route("CALL paimon.sys.test_echo('a' 'b'", s));
    assert.ok(parse[0]!.kind === 'error');
    assert.equal(parse[0].errno, 1064);
    assert.equal(parse[0].sqlState, '42000');
    assert.match(parse[0].message, /at line 1, column 34/);
    const multi = await runLocal(router.route("CALL paimon.sys.test_echo('sales.orders'); DROP TABLE x", s));
    assert.ok(multi[0]!.kind === 'error' && multi[0].errno === 1235);
    const unknown = await runLocal(router.route('CALL paimon.sys.nope()', s));
    assert.ok(unknown[0]!.kind === 'error');
    assert.equal(unknown[0].errno, 1305);
    assert.match(unknown[0].message, /PROCEDURE paimon\.sys\.nope does not exist.*test_echo/);
    const missing = await runLocal(router.route("CALL paimon.sys.test_echo('sales.nope')", s));
    assert.ok(missing[0]!.kind === 'error' && missing[0].errno === 1146);
  });

  test('KILL QUERY from another connection of the same user stops a running procedure with 1317', async () => {
    const victim = makeSession({ connectionId: 11 });
    const route = router.route("CALL paimon.sys.test_echo(`table` => 'sales.orders', sleep_ms => 10000)", victim);
    const pending = runLocal(route);
    await new Promise((r) => setTimeout(r, 30));
    assert.ok(router.isRunning(11));
    // Another user may not.
    const intruder = router.route('KILL QUERY 11', makeSession({ connectionId: 12, user: 'mallory' }));
    const denied = await runLocal(intruder);
    assert.ok(denied[0]!.kind === 'error' && denied[0].errno === 1095);
    const kill = router.route('KILL QUERY 11', makeSession({ connectionId: 13 }));
    assert.equal(kill.kind, 'local');
    assert.deepEqual(await runLocal(kill), [{ kind: 'ok' }]);
    const replies = await pending;
    assert.ok(replies[0]!.kind === 'error');
    assert.equal(replies[0].errno, 1317);
    assert.equal(replies[0].sqlState, '70100');
    assert.match(replies[0].message, /KILL QUERY from connection 13.*Nothing was committed/);
    assert.equal(router.isRunning(11), false);
    // KILL of a connection that runs nothing of ours goes to the FE.
    assert.equal(router.route('KILL QUERY 11', makeSession()).kind, 'forward');
  });

  test('KILL CONNECTION of a running procedure stops it and still goes to the FE', async () => {
    const victim = makeSession({ connectionId: 21 });
    const pending = runLocal(router.route("CALL paimon.sys.test_echo(`table` => 'sales.orders', sleep_ms => 10000)", victim));
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(router.route('KILL 21', makeSession({ connectionId: 22 })).kind, 'forward');
    const replies = await pending;
    assert.ok(replies[0]!.kind === 'error' && replies[0].errno === 1317);
  });

  test('SET @paimon_* user variables are mirrored once the FE says OK; other SETs are plain forwards', () => {
    const s = makeSession();
    assert.equal(router.route('SET NAMES utf8mb4', s).kind, 'forward');
    assert.equal((router.route('SET NAMES utf8mb4', s) as { afterOk?: unknown }).afterOk, undefined);
    assert.equal((router.route('SET @x = 1', s) as { afterOk?: unknown }).afterOk, undefined);
    const r = router.route("SET @paimon_call_timeout = '10m', @other = 2, @PAIMON_x = -5", s);
    assert.equal(router.userVariable(s, 'paimon_call_timeout'), undefined);
    assert.ok(r.kind === 'forward' && r.afterOk);
    r.afterOk(s);
    assert.equal(router.userVariable(s, 'paimon_call_timeout'), '10m');
    assert.equal(router.userVariable(s, 'paimon_x'), '-5');
    assert.equal(router.userVariable(s, 'other'), undefined);
    const n = router.route('SET @paimon_call_timeout = NULL', s);
    if (n.kind === 'forward') n.afterOk!(s);
    assert.equal(router.userVariable(s, 'paimon_call_timeout'), null);
    // Anything not a plain literal assignment is not mirrored.
    assert.equal((router.route('SET @paimon_call_timeout = CONCAT(1, 2)', s) as { afterOk?: unknown }).afterOk, undefined);
  });

  test('the session abort signal (client gone) stops the call', async () => {
    const ac = new AbortController();
    const pending = runLocal(router.route("CALL paimon.sys.test_echo(`table` => 'sales.orders', sleep_ms => 10000)", makeSession({ connectionId: 31 })), ac.signal);
    setTimeout(() => ac.abort(), 20);
    const replies = await pending;
    assert.ok(replies[0]!.kind === 'error' && replies[0].errno === 1317);
  });
});
