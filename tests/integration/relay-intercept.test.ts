/**
 * Interception inside a relayed session (MariaDB upstream): a `CALL <catalog>.sys.<proc>` is
 * answered by the proxy (never reaching the FE's general log), encoded with the session's
 * negotiated flags (with and without CLIENT_DEPRECATE_EOF), the session stays in step afterwards,
 * and KILL QUERY from a second connection stops a running local procedure.
 * Uses the router fixtures' read-only test procedure `test_echo`.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { captureError, connect, mariadb, proxyConfig, run } from './wire-helpers.js';
import { startProxy, type RunningProxy } from '../../src/proxy-app.js';
import { silentLogger } from '../../src/observability/logger.js';
import { makeRouter, makeWarehouse } from '../unit/router/router-fixtures.js';

let proxy: RunningProxy;
const marker = `m${Date.now()}`;

describe('relay: intercepted CALL', () => {
  before(async () => {
    const wh = await makeWarehouse();
    proxy = await startProxy(proxyConfig({ catalogs: [{ name: 'paimon', warehouse: wh }] }), { logger: silentLogger(), router: makeRouter(wh) });
  });
  after(async () => {
    await proxy?.close();
  });

  for (const deprecateEof of [true, false]) {
    test(`CALL paimon.sys.test_echo is answered by the proxy (${deprecateEof ? 'with' : 'without'} DEPRECATE_EOF) and the session stays in step`, async () => {
      const c = await connect(proxy.address.port, deprecateEof ? {} : { flags: ['-DEPRECATE_EOF'] });
      try {
        await c.query('USE proxytest');
        const [res] = await c.query(`CALL paimon.sys.test_echo(table => 'sales.orders', n => 5) /* ${marker} */`);
        const sets = res as unknown as [{ identifier: string; n: number; caller_db: string | null }[], { affectedRows: number }];
        assert.equal(sets.length, 2, 'the result set and the final OK');
        // caller_db is null: `USE proxytest` chose a database of the FE's own catalog, not of paimon
        assert.deepEqual(sets[0], [{ identifier: 'sales.orders', n: 5, caller_db: null }]);
        assert.equal(sets[1].affectedRows, 0);
        // errors come from the proxy with its errno
        const e = await captureError(c.query(`CALL paimon.sys.no_such_proc() /* ${marker} */`));
        assert.equal(e.errno, 1305);
        // forwarded statements before and after line up
        const [rows] = await c.query('SELECT DATABASE() AS d, 1 + 1 AS two');
        assert.deepEqual(rows, [{ d: 'proxytest', two: 2 }]);
        const [multi] = await c.query('SELECT 1 AS a; SELECT 2 AS b');
        assert.deepEqual(multi, [[{ a: 1 }], [{ b: 2 }]]);
      } finally {
        await c.end();
      }
      const log = readFileSync(mariadb().generalLog, 'utf8');
      assert.ok(log.includes('SELECT DATABASE() AS d, 1 + 1 AS two'), 'the general log records forwarded statements');
      assert.ok(!log.includes(marker), 'the intercepted CALLs never reached the FE');
    });
  }

  test('a prepared CALL (mysql2 execute: COM_STMT_PREPARE / EXECUTE / CLOSE) is answered by the proxy in the binary protocol', async () => {
    const c = await connect(proxy.address.port);
    try {
      const sql = `CALL paimon.sys.test_echo(table => ?, n => ?) /* ${marker} */`;
      // mysql2 binds JS numbers as DOUBLE (rendered as number literals) and null as NULL
      for (const [table, n] of [['sales.orders', 5], ['ops.events', -4503599627370496], ['sales.items', null]] as const) {
        const [res] = await c.execute(sql, [table, n]);
        const sets = res as unknown as [{ identifier: string; n: number | null; caller_db: string | null }[], { affectedRows: number }];
        assert.equal(sets.length, 2);
        assert.deepEqual(sets[0], [{ identifier: table, n, caller_db: null }]);
      }
      // a quote and a backslash in a string parameter reach the procedure intact (its error names the table)
      const e = await captureError(c.execute(sql, ["it's\\odd.t", 1]));
      assert.match(String(e.sqlMessage), /it's\\odd/);
      await c.unprepare(sql);
      // a CALL of the FE's own procedure is still prepared by the FE
      const [fe] = await c.execute("CALL sys.table_exists(?, ?, @t)", ['proxytest', 'nope']);
      assert.ok(fe);
      const [after] = await c.execute('SELECT ? + 1 AS x', [41]);
      assert.deepEqual(after, [{ x: 42 }]);
    } finally {
      await c.end();
    }
    assert.ok(!readFileSync(mariadb().generalLog, 'utf8').includes(marker), 'the prepared CALL never reached the FE');
  });

  test('Connector/J: a server-side PreparedStatement CALL gets the same rows as a plain statement', async () => {
    const jar = process.env.CONNECTOR_J_JAR;
    if (!jar) throw new Error('CONNECTOR_J_JAR is not set: run through tests/run.sh');
    const db = mariadb();
    const probe = new URL('./jdbc/JdbcProbe.java', import.meta.url).pathname;
    const url = `jdbc:mysql://127.0.0.1:${proxy.address.port}/proxytest?sslMode=DISABLED&useServerPrepStmts=true`;
    const r = await run('java', ['-cp', jar, probe, url, db.user, db.password,
      "CALL paimon.sys.test_echo(table => 'sales.orders', n => 77)",
      '@prepared CALL paimon.sys.test_echo(table => ?, n => ?)|sales.orders|77'], { timeoutMs: 120_000 });
    assert.equal(r.code, 0, r.stderr);
    const blocks = r.stdout.split(/^> /m).filter((b) => b.startsWith('CALL') || b.startsWith('prepared CALL'));
    assert.equal(blocks.length, 2, r.stdout);
    const body = (b: string) => b.slice(b.indexOf('\n') + 1);
    assert.equal(body(blocks[1]), body(blocks[0]));
    assert.match(blocks[1], /ROW\tsales\.orders\t77\tnull/);
  });

  test('Connector/J reads a CALL whose final OK carries an info text, plain and server-prepared', async () => {
    const jar = process.env.CONNECTOR_J_JAR;
    if (!jar) throw new Error('CONNECTOR_J_JAR is not set: run through tests/run.sh');
    const db = mariadb();
    const probe = new URL('./jdbc/JdbcProbe.java', import.meta.url).pathname;
    const url = `jdbc:mysql://127.0.0.1:${proxy.address.port}/proxytest?sslMode=DISABLED&useServerPrepStmts=true`;
    const r = await run('java', ['-cp', jar, probe, url, db.user, db.password,
      "CALL paimon.sys.test_echo(table => 'sales.orders', n => 5, info => 'would echo sales.orders')",
      "@prepared CALL paimon.sys.test_echo(table => ?, n => ?, info => ?)|sales.orders|6|would echo again",
      'SELECT 1 AS after_call'], { timeoutMs: 120_000 });
    assert.equal(r.code, 0, r.stderr);
    for (const b of r.stdout.split(/^> /m).filter((x) => /^(prepared )?CALL/.test(x))) assert.doesNotMatch(b, /^ERR/m, r.stdout);
    assert.match(r.stdout, /ROW\tsales\.orders\t5\tnull/);
    assert.match(r.stdout, /ROW\tsales\.orders\t6\tnull/);
    assert.match(r.stdout, /COLUMNS\tafter_call:\w+\nROW\t1/);
  });

  test('the mariadb CLI shows the intercepted result set', async () => {
    const db = mariadb();
    const r = await run('mariadb', ['--no-defaults', '-h127.0.0.1', `-P${proxy.address.port}`, `-u${db.user}`, `-p${db.password}`, 'proxytest', '--batch', '-e', "CALL paimon.sys.test_echo('ops.events', 9); SELECT 'after' AS x"], { timeoutMs: 30_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'identifier\tn\tcaller_db\nops.events\t9\tNULL\nx\nafter\n');
  });

  test('KILL QUERY <id> from another connection stops a running local procedure with 1317', async () => {
    const victim = await connect(proxy.address.port);
    const killer = await connect(proxy.address.port);
    try {
      const started = Date.now();
      const running = captureError(victim.query("CALL paimon.sys.test_echo(table => 'sales.orders', sleep_ms => 20000)"));
      await new Promise((r) => setTimeout(r, 500));
      await killer.query(`KILL QUERY ${victim.threadId}`);
      const e = await running;
      assert.equal(e.errno, 1317);
      assert.equal(e.sqlState, '70100');
      assert.ok(Date.now() - started < 10_000);
      const [rows] = await victim.query('SELECT 3 AS x');
      assert.deepEqual(rows, [{ x: 3 }]);
    } finally {
      await victim.end();
      await killer.end();
    }
  });
});
