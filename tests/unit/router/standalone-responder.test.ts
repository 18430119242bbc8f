import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import type { Router } from '../../../src/router/router.js';
import type { LocalReply, SessionView } from '../../../src/router/route.js';
import { makeRouter, makeSession, makeWarehouse, one, runLocal } from './router-fixtures.js';
import { likeToRegExp } from '../../../src/router/standalone-responder.js';
import { PROCEDURE_LISTING_COLUMNS } from '../../../procedures/framework/docs.js';

function rs(r: LocalReply): Extract<LocalReply, { kind: 'resultset' }> {
  if (r.kind !== 'resultset') throw new Error(`expected a result set, got ${JSON.stringify(r)}`);
  return r;
}
function errOf(r: LocalReply): Extract<LocalReply, { kind: 'error' }> {
  if (r.kind !== 'error') throw new Error(`expected an error, got ${JSON.stringify(r)}`);
  return r;
}

describe('standalone mode answers client bootstrap statements', () => {
  let wh: string;
  let router: Router;
  let s: SessionView;
  before(async () => {
    wh = await makeWarehouse();
    router = makeRouter(wh);
  });
  after(async () => rm(wh, { recursive: true, force: true }));
  const fresh = (): SessionView => (s = makeSession({ standalone: true }));

  test('mysql CLI banner and status queries', async () => {
    fresh();
    const banner = rs(await one(router, 'select @@version_comment limit 1', s));
    assert.deepEqual(banner.columns, [{ name: '@@version_comment', type: 'string' }]);
    assert.match(banner.rows[0]![0]!, /paimon-procedure-proxy.*no Doris FE/);
    const st = rs(await one(router, 'select DATABASE(), USER() limit 1', s));
    assert.deepEqual(st.columns.map((c) => c.name), ['DATABASE()', 'USER()']);
    assert.deepEqual(st.rows, [[null, 'alice@127.0.0.1']]);
    const cs = rs(await one(router, 'select @@character_set_client, @@character_set_connection, @@character_set_server, @@character_set_database limit 1', s));
    assert.deepEqual(cs.rows, [['utf8mb4', 'utf8mb4', 'utf8mb4', 'utf8mb4']]);
    assert.deepEqual(rs(await one(router, 'SELECT @@version', s)).rows, [['5.7.99']]);
    assert.deepEqual(rs(await one(router, 'SELECT 1', s)).rows, [['1']]);
    assert.deepEqual(rs(await one(router, 'SELECT CONNECTION_ID(), CURRENT_CATALOG()', s)).rows, [['7', 'paimon']]);
  });

  test("Connector/J 8.4's server-variables query, with its comment prefix and aliases", async () => {
    fresh();
    const sql =
      '/* mysql-connector-j-8.4.0 (Revision: 1c3f5c149e0bfe31c7fbeb24e2d260cd890972c4) */SELECT  @@session.auto_increment_increment AS auto_increment_increment, @@character_set_client AS character_set_client, @@character_set_connection AS character_set_connection, @@character_set_results AS character_set_results, @@character_set_server AS character_set_server, @@collation_server AS collation_server, @@collation_connection AS collation_connection, @@init_connect AS init_connect, @@interactive_timeout AS interactive_timeout, @@license AS license, @@lower_case_table_names AS lower_case_table_names, @@max_allowed_packet AS max_allowed_packet, @@net_write_timeout AS net_write_timeout, @@performance_schema AS performance_schema, @@query_cache_size AS query_cache_size, @@query_cache_type AS query_cache_type, @@sql_mode AS sql_mode, @@system_time_zone AS system_time_zone, @@time_zone AS time_zone, @@transaction_isolation AS transaction_isolation, @@wait_timeout AS wait_timeout';
    const r = rs(await one(router, sql, s));
    assert.equal(r.columns.length, 21);
    assert.equal(r.columns[0]!.name, 'auto_increment_increment');
    assert.equal(r.columns[0]!.type, 'bigint');
    const byName = Object.fromEntries(r.columns.map((c, i) => [c.name, r.rows[0]![i]]));
    assert.equal(byName['lower_case_table_names'], '0');
    assert.equal(byName['transaction_isolation'], 'REPEATABLE-READ');
    assert.equal(byName['license'], 'Apache License, Version 2.0');
  });

  test("DBeaver's metadata statements (with its ApplicationName comment) are answered", async () => {
    fresh();
    const pre = '/* ApplicationName=DBeaver 24.1.0 - Main */ ';
    assert.equal(rs(await one(router, pre + 'SHOW ENGINES', s)).rows.length, 1);
    assert.equal(rs(await one(router, pre + 'SHOW CHARSET', s)).rows[0]![0], 'utf8mb4');
    const coll = rs(await one(router, pre + 'SHOW COLLATION', s));
    assert.deepEqual(coll.columns.map((c) => c.name).slice(0, 2), ['Collation', 'Charset']);
    assert.deepEqual(rs(await one(router, pre + 'SELECT @@GLOBAL.character_set_server,@@GLOBAL.collation_server', s)).rows, [['utf8mb4', 'utf8mb4_0900_bin']]);
    assert.deepEqual(rs(await one(router, pre + "SHOW VARIABLES LIKE 'lower_case_table_names'", s)).rows, [['lower_case_table_names', '0']]);
    assert.deepEqual(rs(await one(router, pre + 'SHOW DATABASES', s)).rows.length, 3);
    assert.deepEqual(rs(await one(router, pre + 'SELECT DATABASE()', s)).rows, [[null]]);
    assert.equal(rs(await one(router, pre + 'SHOW GLOBAL STATUS', s)).columns.length, 2);
    // A global SET does not change the session's value, a session SET does not change the global one.
    await one(router, 'SET SESSION sql_mode = ""', s);
    assert.deepEqual(rs(await one(router, 'SELECT @@sql_mode, @@global.sql_mode', s)).rows, [['', 'ONLY_FULL_GROUP_BY']]);
    // information_schema is answered from the catalog: its own database holds no Paimon tables.
    const is = rs(await one(router, pre + "SELECT * FROM information_schema.TABLES t WHERE t.TABLE_SCHEMA = 'information_schema'", s));
    assert.deepEqual([is.columns[2]!.name, is.rows], ['TABLE_NAME', []]);
  });

  test('SET is remembered and SELECT @@ reflects it; unknown variables are 1193', async () => {
    fresh();
    for (const sql of [
      'SET NAMES utf8mb4 COLLATE utf8mb4_general_ci',
      'SET character_set_results = NULL',
      'SET autocommit=1',
      'SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED',
      "SET @@session.time_zone = '+08:00', sql_mode = 'STRICT_TRANS_TABLES'",
      "SET @paimon_call_timeout = '10m'",
      'SET GLOBAL max_connections = 10',
    ]) {
      assert.deepEqual(await one(router, sql, s), { kind: 'ok' }, sql);
    }
    const r = rs(await one(router, 'SELECT @@collation_connection, @@character_set_results, @@transaction_isolation, @@time_zone, @@sql_mode, @paimon_call_timeout', s));
    assert.deepEqual(r.rows, [['utf8mb4_general_ci', null, 'READ-COMMITTED', '+08:00', 'STRICT_TRANS_TABLES', '10m']]);
    const e = errOf(await one(router, 'SELECT @@no_such_variable', s));
    assert.equal(e.errno, 1193);
    assert.equal(router.userVariable(s, 'PAIMON_CALL_TIMEOUT'), '10m');
  });

  test('SHOW VARIABLES with LIKE and WHERE', async () => {
    fresh();
    const like = rs(await one(router, "SHOW VARIABLES LIKE 'lower_case%'", s));
    assert.deepEqual(like.rows, [['lower_case_table_names', '0']]);
    const where = rs(await one(router, "SHOW SESSION VARIABLES WHERE Variable_name = 'sql_mode' OR Variable_name IN ('version', 'license')", s));
    assert.deepEqual(where.rows.map((r) => r[0]), ['license', 'sql_mode', 'version']);
    assert.ok(rs(await one(router, 'SHOW VARIABLES', s)).rows.length > 30);
  });

  test('SHOW CATALOGS, DATABASES and TABLES come from the configured Paimon catalogs', async () => {
    fresh();
    const cats = rs(await one(router, 'SHOW CATALOGS', s));
    assert.deepEqual(cats.rows.map((r) => [r[1], r[3]]), [['paimon', 'Yes'], ['lake', '']]);
    assert.deepEqual(rs(await one(router, 'SHOW DATABASES', s)).rows, [['empty'], ['ops'], ['sales']]);
    const noDb = errOf(await one(router, 'SHOW TABLES', s));
    assert.equal(noDb.errno, 1049);
    assert.deepEqual(rs(await one(router, 'SHOW TABLES FROM sales', s)).rows, [['items'], ['orders']]);
    assert.deepEqual(await one(router, 'USE sales', s), { kind: 'ok' });
    const t = rs(await one(router, "SHOW FULL TABLES LIKE 'ord%'", s));
    assert.deepEqual(t.columns.map((c) => c.name), ['Tables_in_sales', 'Table_type']);
    assert.deepEqual(t.rows, [['orders', 'BASE TABLE']]);
    assert.deepEqual(rs(await one(router, 'SELECT DATABASE()', s)).rows, [['sales']]);
  });

  test('USE and SWITCH check what they name', async () => {
    fresh();
    assert.equal(errOf(await one(router, 'USE nope', s)).errno, 1049);
    assert.equal(errOf(await one(router, 'USE nocat.sales', s)).errno, 1049);
    assert.equal(errOf(await one(router, 'SWITCH nocat', s)).errno, 1049);
    assert.deepEqual(await one(router, 'USE `lake`.`ops`', s), { kind: 'ok' });
    assert.deepEqual([s.currentCatalog, s.currentDatabase], ['lake', 'ops']);
    assert.deepEqual(await one(router, 'SWITCH paimon', s), { kind: 'ok' });
    assert.deepEqual([s.currentCatalog, s.currentDatabase], ['paimon', null]);
    assert.deepEqual(await one(router, 'SWITCH lake', s), { kind: 'ok' });
    assert.deepEqual([s.currentCatalog, s.currentDatabase], ['lake', 'ops']);
    const init = await runLocal(router.initDb('sales', s));
    assert.deepEqual(init, [{ kind: 'ok' }]);
    assert.deepEqual([s.currentCatalog, s.currentDatabase], ['lake', 'sales']);
    assert.equal(errOf((await runLocal(router.initDb('missing', s)))[0]!).errno, 1049);
  });

  test('two-part sys CALLs run in the default catalog; the warnings show in SHOW WARNINGS', async () => {
    fresh();
    const replies = await runLocal(router.route("CALL sys.test_echo('sales.orders', 5)", s));
    assert.equal(replies.length, 2);
    assert.deepEqual(rs(replies[0]!).rows, [['sales.orders', '5', null]]);
    const w = rs(await one(router, 'SHOW WARNINGS', s));
    assert.deepEqual(w.rows, [['Warning', '1105', 'echo warning']]);
    // SHOW WARNINGS does not clear them; the next statement does.
    assert.equal(rs(await one(router, 'SHOW WARNINGS', s)).rows.length, 1);
    assert.deepEqual(rs(await one(router, 'SHOW COUNT(*) WARNINGS', s)).rows, [['1']]);
    await one(router, 'SELECT 1', s);
    assert.equal(rs(await one(router, 'SHOW WARNINGS', s)).rows.length, 0);
    // An error shows as an Error row.
    await runLocal(router.route('CALL sys.nope()', s));
    const e = rs(await one(router, 'SHOW WARNINGS', s));
    assert.equal(e.rows[0]![0], 'Error');
    assert.equal(e.rows[0]![1], '1305');
  });

  test('resetSession forgets session variables (COM_RESET_CONNECTION)', async () => {
    fresh();
    await one(router, "SET time_zone = '+05:00'", s);
    assert.deepEqual(rs(await one(router, 'SELECT @@time_zone', s)).rows, [['+05:00']]);
    router.resetSession(s);
    assert.notDeepEqual(rs(await one(router, 'SELECT @@time_zone', s)).rows, [['+05:00']]);
  });

  test('SHOW PROCEDURES lists the registry', async () => {
    fresh();
    const r = rs(await one(router, 'SHOW PROCEDURES', s));
    assert.deepEqual(r.columns.map((c) => c.name), PROCEDURE_LISTING_COLUMNS.map(([name]) => name));
    assert.deepEqual(r.rows.map((x) => x[0]), ['test_echo']);
    assert.equal(r.rows[0]![1], 'SELECT ON TABLE');
  });

  test('other statements get an error that says there is no FE and what the proxy can do', async () => {
    fresh();
    for (const sql of ['SELECT * FROM t', 'INSERT INTO t VALUES (1)', 'CREATE TABLE x (a int)', 'CALL mysql_proc()', 'CALL db.mysql_proc()', 'CALL other.notsys.x()', 'SELECT 1; SELECT 2', 'SELECT * FROM sales.orders', '']) {
      const e = errOf(await one(router, sql, s));
      assert.equal(e.errno, 1235, sql);
      assert.match(e.message, /No Doris FE is configured.*CALL <catalog>\.sys\.<procedure>/s, sql);
    }
  });

  test('browsing statements name what they cannot find, and a data table\'s rows need an FE', async () => {
    fresh();
    const cases: [string, number, RegExp][] = [
      ['DESC orders', 1049, /No database selected/],
      ['SHOW COLUMNS FROM sales.nope', 1146, /sales\.nope does not exist/],
      ['SHOW KEYS FROM orders FROM nodb', 1049, /Unknown database 'nodb'/],
      ['SHOW CREATE TABLE other.sales.orders', 1049, /Unknown catalog 'other' \(configured: paimon, lake\)/],
      ['SELECT * FROM sales.nope$snapshots', 1146, /sales\.nope does not exist/],
      ['SELECT * FROM sales.orders$manifests', 1235, /\$snapshots, \$tags, \$branches, \$consumers, \$schemas, \$options/],
      ['SELECT * FROM information_schema.ROUTINES', 1146, /SCHEMATA, TABLES, COLUMNS, STATISTICS/],
      ['SELECT COUNT(*) FROM information_schema.TABLES', 1235, /is not supported: standalone mode answers SELECT/],
    ];
    for (const [sql, errno, message] of cases) {
      const e = errOf(await one(router, sql, s));
      assert.equal(e.errno, errno, sql);
      assert.match(e.message, message, sql);
    }
    const dbs = rs(await one(router, "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE 's%' ORDER BY 1", s));
    assert.deepEqual(dbs.rows, [['sales']]);
  });

  test('a sys CALL for a catalog that is not configured is CATALOG_NOT_FOUND, naming the configured catalogs', async () => {
    fresh();
    for (const [sql, catalog] of [
      ['CALL other.sys.x()', 'other'],
      ['CALL nocat.SYS.expire_snapshots(table => 1)', 'nocat'],
    ]) {
      const e = errOf(await one(router, sql!, s));
      assert.deepEqual([e.errno, e.sqlState, e.message], [1049, '42000', `Unknown catalog '${catalog}' (configured: paimon, lake)`], sql);
    }
    assert.deepEqual(rs(await one(router, 'SHOW WARNINGS', s)).rows, [['Error', '1049', "Unknown catalog 'nocat' (configured: paimon, lake)"]]);
  });

  test('transactions are accepted as no-ops; metadata SHOWs are well-shaped', async () => {
    fresh();
    for (const sql of ['BEGIN', 'START TRANSACTION', 'COMMIT', 'ROLLBACK']) assert.deepEqual(await one(router, sql, s), { kind: 'ok' });
    assert.deepEqual(rs(await one(router, 'SHOW ENGINES', s)).columns.length, 6);
    assert.deepEqual(rs(await one(router, "SHOW COLLATION LIKE 'utf8mb4%'", s)).rows.length, 1);
    assert.deepEqual(rs(await one(router, 'SHOW CHARACTER SET', s)).rows[0]![0], 'utf8mb4');
    assert.deepEqual(rs(await one(router, 'SHOW PLUGINS', s)).rows, []);
  });

  test('KILL in standalone: own connection ids are known, unknown ones are 1094', async () => {
    fresh();
    assert.equal(errOf(await one(router, 'KILL QUERY 999', s)).errno, 1094);
    const huge = errOf(await one(router, 'KILL 9223372036854775807', s));
    assert.equal(huge.errno, 1094);
    assert.match(huge.message, /Unknown thread id: 9223372036854775807$/, 'the id as written, not rounded through a double');
    assert.deepEqual(await one(router, `KILL QUERY ${s.connectionId}`, s), { kind: 'ok' });
  });

  test('LIKE patterns follow MySQL', () => {
    assert.ok(likeToRegExp('a%c').test('ABBC'));
    assert.ok(likeToRegExp('a_c').test('abc'));
    assert.ok(!likeToRegExp('a_c').test('abbc'));
    assert.ok(likeToRegExp('a\\_c').test('a_c'));
    assert.ok(!likeToRegExp('a\\_c').test('abc'));
    assert.ok(likeToRegExp('a.c').test('a.c') && !likeToRegExp('a.c').test('abc'));
  });
});
