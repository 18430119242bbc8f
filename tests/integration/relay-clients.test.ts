/**
 * Real clients through the relay, compared with the same client talking to MariaDB directly:
 * the mariadb command-line client (batch mode, LOAD DATA LOCAL INFILE, mariadb-admin) and
 * MySQL Connector/J 8.4 (text and server-side prepared statements, multiple results, query
 * timeout cancellation).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, mariadb, run, startTestProxy, tmpDir } from './wire-helpers.js';
import type { RunningProxy } from '../../src/proxy-app.js';

let proxy: RunningProxy;

function cli(port: number, args: string[], input?: string) {
  const db = mariadb();
  return run('mariadb', ['--no-defaults', '-h127.0.0.1', `-P${port}`, `-u${db.user}`, `-p${db.password}`, 'proxytest', ...args], { input, timeoutMs: 60_000 });
}

describe('relay: real clients', () => {
  before(async () => {
    proxy = await startTestProxy();
    const c = await connect(mariadb().port);
    await c.query('DROP TABLE IF EXISTS cli_t');
    await c.query("CREATE TABLE cli_t (id INT PRIMARY KEY, name VARCHAR(20), amount DECIMAL(10,2))");
    await c.query("INSERT INTO cli_t VALUES (1, 'alpha', 1.50), (2, NULL, -3.25), (3, 'gamma', 0)");
    await c.query('DROP PROCEDURE IF EXISTS cli_proc');
    await c.query("CREATE PROCEDURE cli_proc() BEGIN SELECT COUNT(*) AS n FROM cli_t; SELECT name FROM cli_t WHERE id = 1; END");
    await c.end();
  });
  after(async () => {
    await proxy?.close();
  });

  test('the mariadb CLI prints the same output through the proxy as directly', async () => {
    const script = [
      'SELECT * FROM cli_t ORDER BY id;',
      'SELECT 1/0; SHOW WARNINGS;',
      'CALL cli_proc();',
      "SELECT 'multi' AS a; SELECT 'results' AS b;",
      'SELECT * FROM missing_table;',
    ].join('\n');
    for (const mode of [['--batch'], ['--table'], ['-vvv', '--force']]) {
      const d = await cli(mariadb().port, [...mode, '--force'], script);
      const p = await cli(proxy.address.port, [...mode, '--force'], script);
      const clean = (s: string) => s.replace(/\(\d+\.\d+ sec\)/g, '(t sec)');
      assert.equal(clean(p.stdout), clean(d.stdout), `stdout ${mode}`);
      assert.equal(p.stderr, d.stderr, `stderr ${mode}`);
      assert.match(p.stderr, /ERROR 1146 \(42S02\) at line \d+: Table 'proxytest.missing_table' doesn't exist/);
    }
  });

  test('LOAD DATA LOCAL INFILE from the mariadb CLI', async () => {
    const file = join(tmpDir('cli-infile'), 'rows.csv');
    writeFileSync(file, Array.from({ length: 20_000 }, (_, i) => `${1000 + i},n${i},${i}.5`).join('\n') + '\n');
    const r = await cli(proxy.address.port, ['--local-infile=1', '-e', `LOAD DATA LOCAL INFILE '${file}' INTO TABLE cli_t FIELDS TERMINATED BY ','; SELECT COUNT(*), SUM(amount) FROM cli_t WHERE id >= 1000`]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim().split('\n')[1], '20000\t200000000.00');
    const c = await connect(mariadb().port);
    await c.query('DELETE FROM cli_t WHERE id >= 1000');
    await c.end();
  });

  test('mariadb-admin ping and status (COM_PING, COM_STATISTICS) through the proxy', async () => {
    const db = mariadb();
    const args = ['--no-defaults', '-h127.0.0.1', `-P${proxy.address.port}`, `-u${db.user}`, `-p${db.password}`];
    const ping = await run('mariadb-admin', [...args, 'ping'], { timeoutMs: 30_000 });
    assert.equal(ping.code, 0, ping.stderr);
    assert.match(ping.stdout, /mysqld is alive/);
    const status = await run('mariadb-admin', [...args, 'status'], { timeoutMs: 30_000 });
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /^Uptime: \d+\s+Threads: \d+/);
  });

  test('Connector/J 8.4 sees the same results through the proxy, with text and server-side prepared statements, and its query timeout cancels through the proxy', async (t) => {
    const jar = process.env.CONNECTOR_J_JAR;
    if (!jar) throw new Error('CONNECTOR_J_JAR is not set: run through tests/run.sh (tests/setup/mariadb.sh fetches Connector/J)');
    const db = mariadb();
    const probe = new URL('./jdbc/JdbcProbe.java', import.meta.url).pathname;
    const statements = [
      'SELECT * FROM cli_t ORDER BY id',
      'CALL cli_proc()',
      'UPDATE cli_t SET amount = amount WHERE id > 0',
      'SELECT * FROM missing_table',
      "SELECT 'a' AS x; SELECT 'b' AS y",
      '@timeout SELECT SLEEP(20)',
    ];
    for (const serverPrep of ['false', 'true']) {
      await t.test(`useServerPrepStmts=${serverPrep}`, async () => {
        const out = async (port: number) => {
          const url = `jdbc:mysql://127.0.0.1:${port}/proxytest?sslMode=DISABLED&allowMultiQueries=true&useServerPrepStmts=${serverPrep}&connectTimeout=20000`;
          const r = await run('java', ['-cp', jar, probe, url, db.user, db.password, ...statements], { timeoutMs: 120_000 });
          assert.equal(r.code, 0, r.stderr);
          return r.stdout;
        };
        const d = await out(db.port);
        const logFrom = statSync(db.generalLog).size;
        const p = await out(proxy.address.port);
        // The timeout's KILL QUERY went through the proxy to the FE, aimed at the connection
        // running SLEEP(20) (MariaDB's general log: "<thread id> Query <statement>").
        const log = readFileSync(db.generalLog).subarray(logFrom).toString('utf8');
        const sleeper = /(\d+) Query\s+SELECT SLEEP\(20\)/.exec(log);
        assert.ok(sleeper, 'SELECT SLEEP(20) reached the FE through the proxy');
        assert.match(log, new RegExp(`\\d+ Query\\s+KILL QUERY ${sleeper[1]}\\b`), 'the query timeout killed it through the proxy');
        const clean = (s: string) => s.replace(/ELAPSED_MS \d+/g, 'ELAPSED_MS x');
        assert.equal(clean(p), clean(d));
        assert.match(p, /ROW\t1\talpha\t1\.50/);
        assert.match(p, /ROW\t42\thi!/);
        assert.match(p, /ERR 1146 42S02/);
        // the timeout was enforced by KILL QUERY through the proxy, long before SLEEP(20) ended
        assert.match(p, /ERR 0 null MySQLTimeoutException: Statement cancelled due to timeout or client request|ERR \d+ \S+ MySQLTimeoutException/);
      });
    }
    await t.test('server-side cursor (useCursorFetch: COM_STMT_EXECUTE with a cursor, then COM_STMT_FETCH)', async () => {
      const out = async (port: number) => {
        const url = `jdbc:mysql://127.0.0.1:${port}/proxytest?sslMode=DISABLED&useServerPrepStmts=true&useCursorFetch=true&defaultFetchSize=100`;
        const r = await run('java', ['-cp', jar, probe, url, db.user, db.password, "@prepared SELECT seq, REPEAT('c', seq % 50) FROM seq_1_to_1000 WHERE seq > ?|0"], { timeoutMs: 120_000 });
        assert.equal(r.code, 0, r.stderr);
        return r.stdout;
      };
      const d = await out(db.port);
      const p = await out(proxy.address.port);
      assert.equal(p, d);
      assert.equal((p.match(/^ROW\t\d+\tc*$/gm) ?? []).length, 1000);
    });
  });
});
