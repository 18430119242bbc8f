/**
 * Through the proxy, results equal a direct connection's (MariaDB as the upstream FE).
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { captureError, connect, fieldShape, mariadb, startTestProxy, tmpDir, type Conn } from './wire-helpers.js';
import type { RunningProxy } from '../../src/proxy-app.js';

let proxy: RunningProxy;
let direct: Conn;
let via: Conn;

/** Runs the same query on both connections and returns both results. */
async function both(sql: string, values?: unknown[]): Promise<[unknown, unknown]> {
  const a = await direct.query({ sql, values, rowsAsArray: true });
  const b = await via.query({ sql, values, rowsAsArray: true });
  return [a, b];
}

describe('relay: results equal a direct connection', () => {
  before(async () => {
    proxy = await startTestProxy();
    direct = await connect(mariadb().port);
    via = await connect(proxy.address.port);
    // No JSON column: MariaDB marks JSON through its extended column metadata, which the proxy
    // masks (it cannot relay MariaDB's extended capabilities), so a direct mysql2 connection
    // would parse JSON and a proxied one would see LONGTEXT. Doris has no such extension.
    await direct.query('DROP TABLE IF EXISTS kv');
    await direct.query(`CREATE TABLE kv (k INT PRIMARY KEY, v VARCHAR(100), d DECIMAL(20,6), ts DATETIME(3), b BLOB, t LONGTEXT)`);
    await direct.query(`INSERT INTO kv VALUES (1,'one',1.5,'2026-01-02 03:04:05.678',x'00ff',JSON_OBJECT('a',1)),(2,NULL,-2.25,NULL,NULL,NULL),(3,'três',12345678901234.5,'1999-12-31 23:59:59',x'','long text')`);
  });
  after(async () => {
    await direct?.end();
    await via?.end().catch(() => undefined);
    await proxy?.close();
  });

  test('the greeting keeps the FE connection id: CONNECTION_ID() equals the id the client saw', async () => {
    const [rows] = await via.query('SELECT CONNECTION_ID() AS id');
    assert.equal(Number((rows as { id: string }[])[0].id), via.threadId);
  });

  test('plain queries: rows and column metadata are identical', async () => {
    for (const sql of [
      'SELECT * FROM kv ORDER BY k',
      'SELECT k, v, d*2 AS dd, HEX(b) FROM kv WHERE k > ? ORDER BY k',
      "SELECT 1, 'a', NULL, 1.5e300, -9223372036854775808, 18446744073709551615, CAST('2026-11-29' AS DATE)",
      'SELECT * FROM kv WHERE 1=0',
      'SHOW COLUMNS FROM kv',
    ]) {
      const [a, b] = await both(sql, [1]);
      assert.deepEqual((b as [unknown])[0], (a as [unknown])[0], sql);
      assert.deepEqual(fieldShape((b as [unknown, unknown])[1]), fieldShape((a as [unknown, unknown])[1]), sql);
    }
  });

  test('errors carry the same errno, SQLSTATE and message', async () => {
    for (const sql of ['SELECT * FROM no_such_table', 'SELEC 1', 'INSERT INTO kv (k) VALUES (1)', 'SELECT no_col FROM kv']) {
      assert.deepEqual(await captureError(via.query(sql)), await captureError(direct.query(sql)), sql);
    }
    // the connection stays usable after an error
    const [rows] = await via.query('SELECT 42 AS x');
    assert.deepEqual(rows, [{ x: 42 }]);
  });

  test('warnings: same count in the OK/EOF and same SHOW WARNINGS', async () => {
    const sql = "SELECT 1/0, CAST('abc' AS INT)";
    const [a] = await direct.query(sql);
    const [wa] = await direct.query('SHOW WARNINGS');
    const [b] = await via.query(sql);
    const [wb] = await via.query('SHOW WARNINGS');
    assert.deepEqual(b, a);
    assert.deepEqual(wb, wa);
    assert.equal((wb as unknown[]).length, 2);
    const [ra] = await direct.query("INSERT IGNORE INTO kv (k, v) VALUES (1, 'dup'), (2, 'dup')");
    const [rb] = await via.query("INSERT IGNORE INTO kv (k, v) VALUES (1, 'dup'), (2, 'dup')");
    assert.equal((rb as { warningStatus: number }).warningStatus, (ra as { warningStatus: number }).warningStatus);
    assert.equal((rb as { warningStatus: number }).warningStatus, 2);
    const [wc] = await via.query('SHOW WARNINGS');
    assert.equal((wc as { Code: number }[])[0].Code, 1062);
  });

  test('prepared statements with parameters (COM_STMT_PREPARE / EXECUTE / CLOSE)', async () => {
    const sql = 'SELECT k, v, d, ts, b FROM kv WHERE k >= ? AND (v IS NULL OR v <> ?) ORDER BY k';
    for (const params of [[1, 'zzz'], [2, 'one'], [10, '']]) {
      const [a, fa] = await direct.execute(sql, params);
      const [b, fb] = await via.execute(sql, params);
      assert.deepEqual(b, a);
      assert.deepEqual(fieldShape(fb), fieldShape(fa));
    }
    const [ins] = await via.execute('INSERT INTO kv (k, v) VALUES (?, ?)', [100, 'prepared']);
    assert.equal((ins as { affectedRows: number }).affectedRows, 1);
    await via.execute('DELETE FROM kv WHERE k = ?', [100]);
    // COM_STMT_CLOSE has no response: the next command must still line up
    await via.unprepare(sql);
    const [rows] = await via.query('SELECT 7 AS x');
    assert.deepEqual(rows, [{ x: 7 }]);
    assert.deepEqual(await captureError(via.execute('SELECT * FROM nope WHERE a = ?', [1])), await captureError(direct.execute('SELECT * FROM nope WHERE a = ?', [1])));
  });

  test('multi-statements and multiple result sets', async () => {
    const sql = "SELECT 1 AS a; SELECT 'x' AS b, 2 AS c; UPDATE kv SET v = v WHERE k = 1; SELECT * FROM kv ORDER BY k";
    const [a] = await direct.query(sql);
    const [b] = await via.query(sql);
    assert.equal((b as unknown[]).length, 4);
    assert.deepEqual(b, a);
    // an error in the middle ends the chain the same way
    const bad = 'SELECT 1; SELECT * FROM missing_t; SELECT 3';
    assert.deepEqual(await captureError(via.query(bad)), await captureError(direct.query(bad)));
    const [rows] = await via.query('SELECT 5 AS x');
    assert.deepEqual(rows, [{ x: 5 }]);
  });

  test('a MariaDB stored procedure via CALL returns its result sets and the final OK', async () => {
    await direct.query('DROP PROCEDURE IF EXISTS two_results');
    await direct.query("CREATE PROCEDURE two_results(IN n INT) BEGIN SELECT n AS n1; SELECT n * 2 AS n2, 'z' AS s; END");
    const [a] = await direct.query('CALL two_results(21)');
    const [b] = await via.query('CALL proxytest.two_results(21)');
    assert.deepEqual(b, a);
    assert.equal((b as unknown[]).length, 3, 'two result sets and the OK');
    // the sys schema's own procedures are MariaDB's, not the proxy's
    const [c] = await via.query("CALL sys.table_exists('proxytest', 'kv', @t)");
    assert.ok(c);
  });

  test('a 200,000-row result is identical', async () => {
    const sql = "SELECT seq, CONCAT('row-', seq, REPEAT('.', seq % 17)), seq * 1.25, IF(seq % 5 = 0, NULL, seq) FROM seq_1_to_200000";
    const [a] = await direct.query({ sql, rowsAsArray: true });
    const [b] = await via.query({ sql, rowsAsArray: true });
    assert.equal((b as unknown[]).length, 200_000);
    assert.deepEqual(b, a);
  });

  test('a 20 MiB BLOB goes up and comes back intact (packets cross the 16 MiB boundary both ways)', async () => {
    await direct.query('CREATE TABLE IF NOT EXISTS blobs (id INT PRIMARY KEY, data LONGBLOB)');
    await direct.query('DELETE FROM blobs');
    const big = Buffer.alloc(20 * 1024 * 1024);
    for (let i = 0; i < big.length; i += 7) big[i] = (i * 31) & 0xff;
    const digest = createHash('sha256').update(big).digest('hex');
    await via.execute('INSERT INTO blobs VALUES (?, ?)', [1, big]);
    await via.query('INSERT INTO blobs VALUES (?, ?)', [2, big]); // COM_QUERY > 16 MiB
    const [d] = await direct.query('SELECT id, SHA2(data, 256) AS h, LENGTH(data) AS n FROM blobs ORDER BY id');
    assert.deepEqual(d, [{ id: 1, h: digest, n: String(big.length) }, { id: 2, h: digest, n: String(big.length) }].map((r) => ({ ...r, n: Number(r.n) })));
    const [rows] = await via.query('SELECT data FROM blobs WHERE id = 1');
    const got = (rows as { data: Buffer }[])[0].data;
    assert.equal(got.length, big.length);
    assert.equal(createHash('sha256').update(got).digest('hex'), digest);
    const [rows2] = await via.execute('SELECT data FROM blobs WHERE id = ?', [2]);
    assert.equal(createHash('sha256').update((rows2 as { data: Buffer }[])[0].data).digest('hex'), digest);
    // exactly 0xFFFFFF bytes in one value: the row packet is followed by an empty continuation
    const [rows3] = await via.query("SELECT LENGTH(REPEAT('a', 16777210)) AS n, REPEAT('a', 16777210) AS s");
    assert.equal((rows3 as { s: string }[])[0].s.length, 16777210);
    await direct.query('DELETE FROM blobs');
  });

  test('LOAD DATA LOCAL INFILE streams the client file through the proxy', async () => {
    await direct.query('CREATE TABLE IF NOT EXISTS loaded (id INT, name VARCHAR(50))');
    await direct.query('DELETE FROM loaded');
    const lines: string[] = [];
    for (let i = 0; i < 50_000; i++) lines.push(`${i}\tname-${i}`);
    const file = join(tmpDir('infile'), 'data.tsv');
    writeFileSync(file, lines.join('\n') + '\n');
    const c = await connect(proxy.address.port, { infileStreamFactory: () => Readable.from([Buffer.from(lines.join('\n') + '\n')]) });
    try {
      const [r] = await c.query(`LOAD DATA LOCAL INFILE '${file}' INTO TABLE loaded`);
      assert.equal((r as { affectedRows: number }).affectedRows, 50_000);
      const [cnt] = await c.query('SELECT COUNT(*) AS n, MAX(name) AS m FROM loaded');
      assert.deepEqual(cnt, [{ n: 50_000, m: 'name-9999' }]);
    } finally {
      await c.end();
    }
    await direct.query('DELETE FROM loaded');
  });

  test('transactions: rollback and commit behave as on the FE, and status flags follow', async () => {
    await via.query('CREATE TABLE IF NOT EXISTS tx (id INT PRIMARY KEY) ENGINE=InnoDB');
    await via.query('DELETE FROM tx');
    await via.beginTransaction();
    await via.query('INSERT INTO tx VALUES (1)');
    const [inside] = await direct.query('SELECT COUNT(*) AS n FROM tx');
    assert.deepEqual(inside, [{ n: 0 }], 'uncommitted row invisible to another session');
    await via.rollback();
    const [afterRollback] = await via.query('SELECT COUNT(*) AS n FROM tx');
    assert.deepEqual(afterRollback, [{ n: 0 }]);
    await via.beginTransaction();
    await via.query('INSERT INTO tx VALUES (2)');
    await via.commit();
    const [afterCommit] = await direct.query('SELECT id FROM tx');
    assert.deepEqual(afterCommit, [{ id: 2 }]);
  });

  test('COM_CHANGE_USER switches the user and resets the session; a bad password gets the FE error', async () => {
    const c = await connect(proxy.address.port);
    try {
      await c.query('SET @v = 1');
      await c.changeUser({ user: 'other', password: 'other-pass', database: 'proxytest' });
      const [rows] = await c.query('SELECT CURRENT_USER() AS u, @v AS v, DATABASE() AS d');
      assert.deepEqual(rows, [{ u: 'other@127.0.0.1', v: null, d: 'proxytest' }]);
      await assert.rejects(c.changeUser({ user: 'other', password: 'wrong' }), (e: { errno?: number }) => e.errno === 1045);
    } finally {
      c.destroy();
    }
  });

  test('COM_PING, COM_INIT_DB and COM_RESET_CONNECTION are forwarded', async () => {
    await via.ping();
    await via.changeUser({ database: 'mysql' }).catch(() => undefined);
    await via.query('USE proxytest');
    const [d] = await via.query('SELECT DATABASE() AS d');
    assert.deepEqual(d, [{ d: 'proxytest' }]);
    await via.query('SET @x = 5');
    await via.reset();
    const [x] = await via.query('SELECT @x AS x');
    assert.deepEqual(x, [{ x: null }]);
  });
});
