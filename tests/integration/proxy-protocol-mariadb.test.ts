/**
 * The PROXY protocol v1 line against an FE that enforces it. MariaDB reads the header from the
 * networks in `proxy_protocol_networks` and then takes the header's source address as the
 * client's, for host-based grants (as Doris does with `enable_proxy_protocol`). The header is
 * optional from those networks (MariaDB detects it), and refused from any other network.
 *
 * This file starts its own MariaDB (tests/setup/mariadb.sh's mariadb_start with a private data
 * directory) because it changes a global variable; it is stopped by PID at the end. The test
 * user exists only at 127.0.0.7; clients bind that loopback address, the proxy's own upstream
 * connection comes from 127.0.0.1.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect as netConnect } from 'node:net';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { captureError, proxyConfig, startPrivateMariaDb, startTestProxy, tmpDir, type PrivateMariaDb } from './wire-helpers.js';
import type { RunningProxy } from '../../src/proxy-app.js';

const CLIENT_HOST = '127.0.0.7';
const USER = 'pp_user';
const PASSWORD = 'pp-pass-7';

let db: PrivateMariaDb | null = null;
let port = 0;

const rootSql = (sql: string): Promise<string> => db!.rootSql(sql);

/** mysql2 accepts `localAddress` but does not use it: hand it a socket bound to that address. */
function connectAs(targetPort: number, localAddress: string): Promise<mysql.Connection> {
  const stream = netConnect({ host: '127.0.0.1', port: targetPort, localAddress });
  return mysql.createConnection({ stream, user: USER, password: PASSWORD, connectTimeout: 20_000 });
}

async function whoAmI(c: mysql.Connection): Promise<{ user: string; host: string; localPort: number }> {
  const [rows] = await c.query('SELECT USER() AS u, (SELECT HOST FROM information_schema.PROCESSLIST WHERE ID = CONNECTION_ID()) AS h');
  const r = (rows as { u: string; h: string }[])[0];
  const local = (c as unknown as { connection: { stream: { localPort: number } } }).connection.stream;
  return { user: r.u, host: r.h, localPort: local.localPort };
}

describe('PROXY protocol v1 with an FE that enforces it (MariaDB proxy_protocol_networks)', () => {
  before(async () => {
    db = await startPrivateMariaDb(join(tmpDir('pp-mariadb'), 'db'));
    port = db.port;
    await rootSql(
      `SET GLOBAL proxy_protocol_networks = '127.0.0.0/8';
       CREATE USER '${USER}'@'${CLIENT_HOST}' IDENTIFIED BY '${PASSWORD}';
       GRANT SELECT ON *.* TO '${USER}'@'${CLIENT_HOST}';`,
    );
    assert.equal(await rootSql('SELECT @@GLOBAL.proxy_protocol_networks'), '127.0.0.0/8');
  });

  after(async () => {
    await db?.stop();
  });

  test('the grant is host-based: direct from 127.0.0.7 (no header: optional from these networks) is accepted, from 127.0.0.1 refused', async () => {
    const c = await connectAs(port, CLIENT_HOST);
    const me = await whoAmI(c);
    assert.equal(me.user, `${USER}@${CLIENT_HOST}`);
    assert.equal(me.host, `${CLIENT_HOST}:${me.localPort}`);
    await c.end();
    const e = await captureError(connectAs(port, '127.0.0.1'));
    assert.equal(e.errno, 1045);
    assert.match(String(e.sqlMessage), new RegExp(`'${USER}'@'127\\.0\\.0\\.1'`));
  });

  test('through the proxy with upstream.proxy_protocol: the FE sees the client at 127.0.0.7 and accepts it', async () => {
    const proxy: RunningProxy = await startTestProxy(proxyConfig({ upstream: { host: '127.0.0.1', port, proxy_protocol: true } }, { upstream: false }));
    try {
      const c = await connectAs(proxy.address.port, CLIENT_HOST);
      const me = await whoAmI(c);
      assert.equal(me.user, `${USER}@${CLIENT_HOST}`);
      // The processlist shows the client's own address and port, from the header.
      assert.equal(me.host, `${CLIENT_HOST}:${me.localPort}`);
      const [rows] = await c.query('SELECT 40 + 2 AS v');
      assert.deepEqual(rows, [{ v: 42 }]);
      await c.end();
    } finally {
      await proxy.close();
    }
  });

  test('through the proxy without proxy_protocol: the FE sees the proxy at 127.0.0.1 and refuses the user', async () => {
    const proxy: RunningProxy = await startTestProxy(proxyConfig({ upstream: { host: '127.0.0.1', port, proxy_protocol: false } }, { upstream: false }));
    try {
      const e = await captureError(connectAs(proxy.address.port, CLIENT_HOST));
      assert.equal(e.errno, 1045);
      assert.equal(e.sqlState, '28000');
      assert.match(String(e.sqlMessage), new RegExp(`Access denied for user '${USER}'@'127\\.0\\.0\\.1'`));
    } finally {
      await proxy.close();
    }
  });

  test('the FE enforces where headers may come from: outside proxy_protocol_networks the header is refused', async () => {
    await rootSql(`SET GLOBAL proxy_protocol_networks = '10.0.0.0/8'`);
    const proxy: RunningProxy = await startTestProxy(proxyConfig({ upstream: { host: '127.0.0.1', port, proxy_protocol: true } }, { upstream: false }));
    try {
      // MariaDB answers the header with an ERR at sequence id 1 (checked with a raw socket straight
      // to MariaDB: the same); relayed unchanged, mysql2 warns about packet order. When the
      // client's handshake response (relayed at once) reaches MariaDB before it closes, it closes
      // with that input unread, so its kernel resets the connection, and a reset discards what the
      // proxy had not read yet, the ERR included (a raw socket straight to MariaDB that writes
      // before reading gets ECONNRESET and no byte): the client then sees the connection lost.
      const e = await connectAs(proxy.address.port, CLIENT_HOST).then(
        () => assert.fail('the FE accepted a PROXY header from outside proxy_protocol_networks'),
        (x: unknown) => x as { sqlMessage?: string; code?: string },
      );
      if (e.sqlMessage !== undefined) assert.match(e.sqlMessage, /Proxy header is not accepted from 127\.0\.0\.1/);
      else assert.ok(e.code === 'PROTOCOL_CONNECTION_LOST' || e.code === 'ECONNRESET', `neither the FE's ERR nor its reset: ${e.code}`);
      // and the proxy keeps serving once the FE accepts headers again
      await rootSql(`SET GLOBAL proxy_protocol_networks = '127.0.0.0/8'`);
      const c = await connectAs(proxy.address.port, CLIENT_HOST);
      assert.equal((await whoAmI(c)).user, `${USER}@${CLIENT_HOST}`);
      await c.end();
    } finally {
      await rootSql(`SET GLOBAL proxy_protocol_networks = '127.0.0.0/8'`);
      await proxy.close();
    }
  });
});
