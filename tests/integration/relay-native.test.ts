/**
 * The native relay (native/native-relay.c, src/session/native-relay.ts) against MariaDB: it
 * carries the plain statements of idle sessions, and gives a session back, with every byte it
 * held, at a statement the proxy answers, a pipelined mix, a LOCAL INFILE request, a prepared
 * statement, and either side's end. The relay-* files run through it as well (and again in
 * JavaScript, tests/integration/relay-js/); these cases check the hand-over itself.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import mysql from 'mysql2/promise';
import type { Connection as CoreConnection } from 'mysql2';
import { COM_QUERY, SERVER_STATUS_IN_TRANS } from '../../protocol/constants.js';
import { connect, mariadb, proxyConfig, RawClient, startTestProxy, tmpDir, type Conn } from './wire-helpers.js';
import type { RunningProxy } from '../../src/proxy-app.js';
import { until } from '../support/wait.js';

/** The callback connection under mysql2's promise wrapper (streaming, events). */
function core(c: Conn): CoreConnection {
  return (c as unknown as { connection: CoreConnection }).connection;
}

function query(sql: string): Buffer {
  return Buffer.concat([Buffer.of(COM_QUERY), Buffer.from(sql, 'utf8')]);
}

describe('the native relay', () => {
  let proxy: RunningProxy;
  let admin: Conn;

  before(async () => {
    proxy = await startTestProxy(proxyConfig({ jobs: { dir: tmpDir('jobs-native') } }));
    assert.ok(proxy.server.nativeRelay, 'the native relay is built and on (npm ci builds it)');
    const db = mariadb();
    admin = await mysql.createConnection({ host: db.host, port: db.port, user: db.user, password: db.password, database: 'proxytest' });
  });

  after(async () => {
    await admin?.end();
    await proxy?.close();
  });

  const nativeQueries = () => proxy.server.nativeRelay!.counters().queries;

  /** A raw client whose session the native relay holds (its first statement went through JavaScript). */
  async function rawClientHeldNatively(): Promise<RawClient> {
    const c = new RawClient();
    await c.connect(proxy.address.port, mariadb().user, mariadb().password, 'proxytest');
    await c.command(query('SELECT 1'));
    return c;
  }

  test('carries the plain statements of an idle session; its counts are the server statistics', async () => {
    const c = await connect(proxy.address.port);
    try {
      await c.query('SELECT 1');
      const before = nativeQueries();
      const statsBefore = proxy.server.stats;
      for (let i = 0; i < 50; i++) {
        const [rows] = await c.query('SELECT ? AS n, REPEAT(?, 100) AS s', [i, 'x']);
        assert.deepEqual(rows, [{ n: i, s: 'x'.repeat(100) }]);
      }
      assert.equal(nativeQueries() - before, 50, 'every statement after the first went through the native relay');
      const stats = proxy.server.stats;
      assert.equal(stats.forwarded - statsBefore.forwarded, 50);
      assert.equal(stats.questions - statsBefore.questions, 50);
      assert.ok(stats.bytesDownstream - statsBefore.bytesDownstream > 50 * 100);
    } finally {
      await c.end();
    }
  });

  test('a pipelined mix of forwarded and intercepted statements is answered in order, each once', async () => {
    const c = await rawClientHeldNatively();
    try {
      const before = nativeQueries();
      const packets = await c.pipeline([query("SELECT 'a'"), query('CALL paimon.sys.no_such_procedure()'), query("SELECT 'b'"), query("SELECT 'c'")]);
      const texts = packets.map((p) => p.subarray(4).toString('latin1'));
      const errs = packets.filter((p) => p[4] === 0xff);
      assert.equal(errs.length, 1, 'one ERR: the CALL');
      assert.equal(errs[0]!.readUInt16LE(5), 1305);
      const order = ['a', 'b', 'c'].map((v) => texts.findIndex((t) => t === `\u0001${v}`));
      const errAt = packets.indexOf(errs[0]!);
      assert.ok(order.every((i) => i >= 0), `three rows: ${JSON.stringify(texts)}`);
      assert.ok(order[0]! < errAt && errAt < order[1]! && order[1]! < order[2]!, 'in the order sent');
      assert.ok(nativeQueries() - before >= 1, 'the first SELECT went through the native relay');
    } finally {
      c.close();
    }
  });

  test('status flags of a natively relayed response reach the replies the proxy writes', async () => {
    const c = await rawClientHeldNatively();
    try {
      const before = nativeQueries();
      const ok = await c.command(query('START TRANSACTION'));
      assert.equal(nativeQueries() - before, 1);
      assert.ok(ok[0]![4] === 0x00 && ok[0]!.readUInt16LE(7) & SERVER_STATUS_IN_TRANS);
      const listed = await c.command(query('CALL paimon.sys.list_jobs()'));
      const last = listed[listed.length - 1]!;
      assert.equal(last[4], 0xfe, `the result set ends with EOF: ${last.toString('hex')}`);
      assert.ok(last.readUInt16LE(7) & SERVER_STATUS_IN_TRANS, 'the proxy says the transaction is open');
      await c.command(query('ROLLBACK'));
    } finally {
      c.close();
    }
  });

  test('LOAD DATA LOCAL INFILE: the request is relayed natively, the file in JavaScript, and the session comes back', async () => {
    await admin.query('CREATE TABLE IF NOT EXISTS native_infile (id INT PRIMARY KEY, v VARCHAR(20))');
    await admin.query('DELETE FROM native_infile');
    const lines = Array.from({ length: 2000 }, (_, i) => `${i},v${i}`);
    const c = await connect(proxy.address.port, { infileStreamFactory: () => Readable.from([Buffer.from(lines.join('\n') + '\n')]) });
    try {
      await c.query('SELECT 1');
      const before = nativeQueries();
      const [r] = await c.query({ sql: "LOAD DATA LOCAL INFILE 'rows.csv' INTO TABLE native_infile FIELDS TERMINATED BY ','" });
      assert.equal((r as mysql.ResultSetHeader).affectedRows, 2000);
      assert.equal(nativeQueries() - before, 1, 'the LOAD DATA statement went up natively');
      const [rows] = await c.query('SELECT COUNT(*) AS n, MAX(v) AS m FROM native_infile');
      assert.deepEqual(rows, [{ n: 2000, m: 'v999' }]);
      assert.equal(nativeQueries() - before, 2, 'and the next statement too');
    } finally {
      await c.end();
    }
  });

  test('prepared statements and COM_PING go through JavaScript between natively relayed statements', async () => {
    const c = await connect(proxy.address.port);
    try {
      for (let i = 0; i < 3; i++) {
        const [a] = await c.query('SELECT ? AS q', [i]);
        const [b] = await c.execute('SELECT ? AS p', [i]);
        await c.ping();
        assert.deepEqual([a, b], [[{ q: i }], [{ p: i }]]);
      }
    } finally {
      await c.end();
    }
  });

  test('a large result to a client that stops reading arrives whole once it reads again', async () => {
    const c = await connect(proxy.address.port);
    try {
      await c.query('SELECT 1');
      const before = nativeQueries();
      const stream = core(c).query("SELECT seq, REPEAT(CHAR(65 + seq % 26), 65536) AS s FROM seq_0_to_511").stream();
      const hash = createHash('sha256');
      let rows = 0;
      let paused = false;
      for await (const row of stream as AsyncIterable<{ seq: number; s: string }>) {
        hash.update(row.s);
        rows++;
        if (!paused && rows === 10) {
          paused = true;
          // The client reads nothing for a while: the proxy's thread must hold, not drop, the rest.
          stream.pause();
          await new Promise((r) => setTimeout(r, 500));
          stream.resume();
        }
      }
      const expected = createHash('sha256');
      for (let i = 0; i < 512; i++) expected.update(String.fromCharCode(65 + (i % 26)).repeat(65536));
      assert.equal(rows, 512);
      assert.equal(hash.digest('hex'), expected.digest('hex'));
      assert.equal(nativeQueries() - before, 1);
    } finally {
      await c.end();
    }
  });

  test('a client that goes away while the native relay holds its session closes its FE connection', async () => {
    const before = proxy.server.connectionCount;
    const c = await connect(proxy.address.port);
    await c.query('SELECT 1');
    const [[{ id }]] = (await c.query('SELECT CONNECTION_ID() AS id')) as unknown as [[{ id: number }]];
    c.destroy();
    await until(
      async () => {
        const [rows] = await admin.query('SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE ID = ?', [id]);
        return (rows as { n: number }[])[0]!.n === 0;
      },
      'the FE connection to close',
    );
    await until(() => proxy.server.connectionCount <= before, 'the session to close');
  });

  test('an FE that ends the connection while the native relay holds it ends the client connection', async () => {
    const c = await connect(proxy.address.port);
    const closed = new Promise<void>((resolve) => core(c).once('end', () => resolve()).once('error', () => resolve()));
    await c.query('SELECT 1');
    const [[{ id }]] = (await c.query('SELECT CONNECTION_ID() AS id')) as unknown as [[{ id: number }]];
    const before = proxy.server.connectionCount;
    const t0 = Date.now();
    await admin.query(`KILL CONNECTION ${Number(id)}`);
    await closed;
    assert.ok(Date.now() - t0 < 3000, `the client saw the end after ${Date.now() - t0} ms`);
    await until(() => proxy.server.connectionCount <= before - 1, 'the session to close');
    c.destroy();
  });
});
