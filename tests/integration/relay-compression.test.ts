/**
 * The compressed protocol (CLIENT_COMPRESS) through the proxy with real clients: the mariadb
 * CLI (-C), mysql2 (compress: true) and Connector/J (useCompression=true), in relay mode with
 * MariaDB upstream and in standalone mode. Relayed, the FE leg is compressed too when MariaDB
 * offers it (MariaDB's own Compression status says so); a session whose FE leg stays
 * uncompressed still gives the client a compressed leg. Large results (several MB, a row over
 * 16 MiB that spans packets and frames) and CALLs, relayed and intercepted, go through each.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type mysql from 'mysql2/promise';
import { silentLogger } from '../../src/observability/logger.js';
import { startProxy, type RunningProxy } from '../../src/proxy-app.js';
import type { StatementRouter } from '../../src/router/route.js';
import { Session, SessionRegistry, type ProxyStats } from '../../src/session/session.js';
import { makeRouter, makeWarehouse } from '../unit/router/router-fixtures.js';
import { startStandaloneProxy, type StandaloneProxy } from '../support/standalone-proxy.js';
import { connect, mariadb, proxyConfig, run } from './wire-helpers.js';

const md5 = (s: string | Buffer) => createHash('md5').update(s).digest('hex');

function cli(port: number, args: string[], opts: { user?: string; password?: string; database?: string } = {}) {
  const db = mariadb();
  const user = opts.user ?? db.user;
  const password = opts.password ?? db.password;
  return run(
    'mariadb',
    ['--no-defaults', '-h127.0.0.1', `-P${port}`, `-u${user}`, ...(password ? [`-p${password}`] : []), '--skip-ssl', '--max-allowed-packet=64M', ...(opts.database === '' ? [] : [opts.database ?? 'proxytest']), ...args],
    { timeoutMs: 120_000 },
  );
}

function jdbc(port: number, database: string, user: string, password: string, statements: string[]) {
  const jar = process.env.CONNECTOR_J_JAR;
  if (!jar) throw new Error('CONNECTOR_J_JAR is not set: run through tests/run.sh (tests/setup/mariadb.sh fetches Connector/J)');
  const probe = new URL('./jdbc/JdbcProbe.java', import.meta.url).pathname;
  const url = `jdbc:mysql://127.0.0.1:${port}/${database}?sslMode=DISABLED&useCompression=true&allowMultiQueries=true&connectTimeout=20000&maxAllowedPacket=67108864`;
  return run('java', ['-cp', jar, probe, url, user, password, ...statements], { timeoutMs: 120_000 });
}

/** A listener whose sessions relay to MariaDB (CALLs of `router` aside), with the FE leg left uncompressed. */
async function startUncompressedFeLeg(router: StatementRouter): Promise<{ port: number; close(): Promise<void> }> {
  const db = mariadb();
  const stats: ProxyStats = { startedAt: Date.now(), questions: 0, connectionsAccepted: 0, forwarded: 0, bytesUpstream: 0, bytesDownstream: 0 };
  const registry = new SessionRegistry();
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    new Session(socket, {
      router,
      logger: silentLogger(),
      secureContext: null,
      tlsRequired: false,
      upstream: { host: db.host, port: db.port, connectTimeoutMs: 10_000, proxyProtocol: false, tls: null },
      users: null,
      registry,
      serverVersion: 'test',
      maxAllowedPacket: 64 << 20,
      upstreamCompression: false,
      nextConnectionId: () => 1,
      stats,
    }).start();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/** Several MB in one result: 3000 rows of 2000 characters, each row different. */
const BIG_RESULT = "SELECT seq, REPEAT(CHAR(65 + seq % 26 USING ascii), 2000) AS s FROM seq_1_to_3000";
/** One row over 16 MiB: a packet split in 0xFFFFFF-byte fragments, and frames. */
const HUGE_ROW = "SELECT REPEAT('z', 17 * 1024 * 1024) AS z";

describe('relay: the compressed protocol', () => {
  let wh: string;
  let proxy: RunningProxy;
  let port: number;

  before(async () => {
    wh = await makeWarehouse();
    proxy = await startProxy(proxyConfig(), { logger: silentLogger(), router: makeRouter(wh) });
    port = proxy.address.port;
    const c = await connect(mariadb().port);
    await c.query('SET GLOBAL max_allowed_packet = 64 * 1024 * 1024');
    await c.query("CREATE OR REPLACE PROCEDURE proxytest.zip_proc() BEGIN SELECT 'first' AS a; SELECT REPEAT('p', 100000) AS b; END");
    await c.end();
  });
  after(async () => {
    await proxy?.close();
  });

  test('mariadb -C: Compression is ON on both legs, large results and CALLs come back as they do directly', async () => {
    const script = `SHOW SESSION STATUS LIKE 'Compression'; SELECT md5(GROUP_CONCAT(s ORDER BY seq)) FROM (${BIG_RESULT}) t; CALL zip_proc(); CALL paimon.sys.test_echo('sales.orders', 7)`;
    const viaProxy = await cli(port, ['-C', '--batch', '-e', script]);
    assert.equal(viaProxy.code, 0, viaProxy.stderr);
    // MariaDB's own view of its session with the proxy: the FE leg is compressed.
    assert.match(viaProxy.stdout, /^Compression\tON$/m);
    assert.match(viaProxy.stdout, /^first$/m);
    assert.ok(viaProxy.stdout.split('\n').includes('p'.repeat(100000)), 'the second result of CALL zip_proc()');
    assert.match(viaProxy.stdout, /^sales\.orders\t7\tNULL$/m);
    const plain = await cli(port, ['--batch', '-e', "SHOW SESSION STATUS LIKE 'Compression'"]);
    assert.match(plain.stdout, /^Compression\tOFF$/m, 'a client without -C gets no compression on either leg');

    // The whole output of a large result, byte for byte as MariaDB prints it directly.
    const big = await cli(port, ['-C', '--batch', '-e', BIG_RESULT]);
    const bigDirect = await cli(mariadb().port, ['--batch', '-e', BIG_RESULT]);
    assert.equal(big.code, 0, big.stderr);
    assert.ok(big.stdout.length > 6_000_000, `${big.stdout.length} bytes`);
    assert.equal(md5(big.stdout), md5(bigDirect.stdout));
    const huge = await cli(port, ['-C', '--batch', '--skip-column-names', '-e', HUGE_ROW]);
    assert.equal(huge.code, 0, huge.stderr);
    assert.ok(huge.stdout === 'z'.repeat(17 * 1024 * 1024) + '\n', `a 17 MiB row (${huge.stdout.length} bytes)`);
  });

  test('mysql2 compress: true, FE leg compressed: large results, a > 16 MiB row, a large statement, CALLs', async () => {
    const c = await connect(port, { compress: true, maxPreparedStatements: 4 });
    try {
      await checkMysql2(c, true);
    } finally {
      await c.end();
    }
  });

  test('mysql2 compress: true, FE leg uncompressed (the FE does not compress): the client leg still is', async () => {
    const fe = await startUncompressedFeLeg(makeRouter(wh));
    const c = await connect(fe.port, { compress: true });
    try {
      const [status] = await c.query("SHOW SESSION STATUS LIKE 'Compression'");
      assert.deepEqual(status, [{ Variable_name: 'Compression', Value: 'OFF' }], "MariaDB's leg is not compressed");
      // The client leg is: mysql2 parses compressed frames only, so every reply below proves it.
      await checkMysql2(c, false);
      const cliOut = await cli(fe.port, ['-C', '--batch', '-e', `SELECT md5(GROUP_CONCAT(s ORDER BY seq)) FROM (${BIG_RESULT}) t; CALL zip_proc()`]);
      assert.equal(cliOut.code, 0, cliOut.stderr);
      assert.match(cliOut.stdout, /^first$/m);
    } finally {
      await c.end();
      await fe.close();
    }
  });

  test('Connector/J useCompression=true: the same results through the proxy as directly', async () => {
    const db = mariadb();
    const statements = [
      "SHOW SESSION STATUS LIKE 'Compression'",
      `SELECT md5(GROUP_CONCAT(s ORDER BY seq)) AS h, COUNT(*) AS n FROM (${BIG_RESULT}) t`,
      "SELECT LENGTH(REPEAT('j', 3000000)) AS n, md5(REPEAT('j', 3000000)) AS h",
      'CALL zip_proc()',
    ];
    const direct = await jdbc(db.port, 'proxytest', db.user, db.password, statements);
    const viaProxy = await jdbc(port, 'proxytest', db.user, db.password, [...statements, "CALL paimon.sys.test_echo('sales.orders', 9)"]);
    assert.equal(direct.code, 0, direct.stderr);
    assert.equal(viaProxy.code, 0, viaProxy.stderr);
    assert.match(viaProxy.stdout, /Compression\tON/);
    assert.ok(viaProxy.stdout.startsWith(direct.stdout.slice(0, direct.stdout.indexOf('> prepared'))), viaProxy.stdout.slice(0, 2000));
    assert.match(viaProxy.stdout, /ROW\tsales\.orders\t9\t/);
  });
});

/**
 * mysql2 warns "got packets out of order" when a response's sequence ids are not the ones a
 * direct connection gets (they follow the frames the FE received the command in): none here.
 */
async function checkMysql2(c: mysql.Connection, feCompressed: boolean): Promise<void> {
  const warnings: string[] = [];
  const warn = console.warn;
  console.warn = (...a: unknown[]) => void warnings.push(a.map(String).join(' '));
  try {
    await checkMysql2Results(c, feCompressed);
  } finally {
    console.warn = warn;
  }
  assert.deepEqual(warnings, []);
}

async function checkMysql2Results(c: mysql.Connection, feCompressed: boolean): Promise<void> {
  if (feCompressed) {
    const [status] = await c.query("SHOW SESSION STATUS LIKE 'Compression'");
    assert.deepEqual(status, [{ Variable_name: 'Compression', Value: 'ON' }]);
  }
  const [rows] = await c.query(BIG_RESULT);
  const list = rows as { seq: number; s: string }[];
  assert.equal(list.length, 3000);
  assert.ok(list[2999]!.s === String.fromCharCode(65 + (3000 % 26)).repeat(2000), 'the last row');
  const [huge] = await c.query(HUGE_ROW);
  const z = (huge as { z: string }[])[0]!.z;
  assert.ok(z === 'z'.repeat(17 * 1024 * 1024), `a 17 MiB row (${z.length})`);
  // A large statement: the client's frames, split across many reads, reassembled.
  const text = 'q'.repeat(5_000_000);
  const [echo] = await c.query('SELECT LENGTH(?) AS n, MD5(?) AS h', [text, text]);
  assert.deepEqual(echo, [{ n: 5_000_000, h: md5(text) }]);
  const [proc] = await c.query('CALL zip_proc()');
  assert.deepEqual((proc as unknown[][])[0], [{ a: 'first' }]);
  assert.equal(((proc as { b: string }[][])[1]![0]!.b).length, 100000);
  const [echoed] = await c.query("CALL paimon.sys.test_echo('sales.orders', 3)");
  assert.deepEqual((echoed as unknown[][])[0], [{ identifier: 'sales.orders', n: 3, caller_db: null }]);
  // Prepared statements and many small commands (compressed sequence ids restart per command).
  for (let i = 0; i < 50; i++) {
    const [r] = await c.execute('SELECT ? + 1 AS n', [i]);
    assert.deepEqual(r, [{ n: i + 1 }]);
  }
}

describe('standalone: the compressed protocol', () => {
  let sp: StandaloneProxy;
  before(async () => {
    sp = await startStandaloneProxy({ testRouter: true });
  });
  after(async () => {
    await sp?.close();
  });

  test('mariadb -C, mysql2 compress: true and Connector/J useCompression=true get answers and CALL results', async () => {
    const r = await cli(sp.port, ['-C', '--batch', '-e', "SHOW DATABASES; CALL paimon.sys.test_echo('sales.orders', 11)"], { user: 'root', password: '', database: '' });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^sales$/m);
    assert.match(r.stdout, /^sales\.orders\t11\tNULL$/m);

    const c = await connect(sp.port, { user: 'root', password: '', database: undefined, compress: true });
    try {
      const [echoed] = await c.query("CALL paimon.sys.test_echo('sales.orders', 12)");
      assert.deepEqual((echoed as unknown[][])[0], [{ identifier: 'sales.orders', n: 12, caller_db: null }]);
      for (let i = 0; i < 20; i++) await c.query('SELECT @@version_comment LIMIT 1');
    } finally {
      await c.end();
    }

    const j = await jdbc(sp.port, '', 'root', '', ["CALL paimon.sys.test_echo('sales.orders', 13)"]);
    assert.equal(j.code, 0, j.stderr);
    assert.match(j.stdout, /ROW\tsales\.orders\t13\t/);
  });
});
