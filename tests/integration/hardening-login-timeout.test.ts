/**
 * listen.connect_timeout: a client that does not finish the connection phase in time is closed
 * without a packet, as MariaDB closes it at its own connect_timeout (checked here on a private
 * MariaDB started with --connect-timeout=2: after the greeting nothing arrives, then the socket
 * closes). The proxy is checked alone (standalone) and relaying to a MariaDB, with a client
 * that sends nothing and one that stops inside a packet; a client that logged in is not
 * affected by the timeout. The default is MySQL's 10 s.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect as netConnect } from 'node:net';
import mysql from 'mysql2/promise';
import { configSchema } from '../../src/config-schema.js';
import { silentLogger } from '../../src/observability/logger.js';
import { startProxy, type RunningProxy } from '../../src/proxy-app.js';
import { makeWarehouse } from '../unit/router/router-fixtures.js';
import { mariadb, startPrivateMariaDb, tmpDir, type PrivateMariaDb } from './wire-helpers.js';

/** Connects, waits for the greeting, optionally sends `partial`, then records what arrives until the server closes (at most `limitMs`). */
function stall(port: number, partial: Buffer | null, limitMs = 15_000): Promise<{ greeting: number; after: number; closedAfterMs: number | null }> {
  return new Promise((resolve) => {
    const s = netConnect({ host: '127.0.0.1', port });
    let greeting = 0;
    let afterGreeting = 0;
    let t0 = 0;
    s.on('error', () => undefined); // MariaDB resets the connection
    s.on('data', (d: Buffer) => {
      if (greeting === 0) {
        greeting = d.length;
        t0 = Date.now();
        if (partial) s.write(partial);
      } else afterGreeting += d.length;
    });
    const timer = setTimeout(() => {
      s.destroy();
      resolve({ greeting, after: afterGreeting, closedAfterMs: null });
    }, limitMs);
    s.once('close', () => {
      clearTimeout(timer);
      resolve({ greeting, after: afterGreeting, closedAfterMs: t0 === 0 ? null : Date.now() - t0 });
    });
  });
}

/** The first bytes of a HandshakeResponse41: a header announcing 80 bytes, and 1 of them. */
const PARTIAL = Buffer.from([0x50, 0, 0, 1, 0x05]);

describe('connect_timeout: a client that does not log in in time is closed, as MariaDB does', () => {
  let maria: PrivateMariaDb;
  let wh: string;
  let alone: RunningProxy;
  let relay: RunningProxy;
  before(async () => {
    maria = await startPrivateMariaDb(tmpDir('mdb-connect-timeout'), '--connect-timeout=2');
    wh = await makeWarehouse();
    const base = { catalogs: [{ name: 'paimon', type: 'filesystem', warehouse: wh }], logging: { level: 'silent' } };
    // Each proxy keeps its own job store (two on one warehouse would share its default).
    alone = await startProxy(configSchema.parse({ ...base, jobs: { dir: tmpDir('jobs-alone') }, listen: { host: '127.0.0.1', port: 0, connect_timeout: 1 } }), { logger: silentLogger() });
    relay = await startProxy(
      // The shared MariaDB keeps its default connect_timeout (10 s): only the proxy's 1 s can close early.
      configSchema.parse({ ...base, jobs: { dir: tmpDir('jobs-relay') }, listen: { host: '127.0.0.1', port: 0, connect_timeout: 1 }, upstream: { host: '127.0.0.1', port: mariadb().port } }),
      { logger: silentLogger() },
    );
  });
  after(async () => {
    await alone?.close();
    await relay?.close();
    await maria?.stop();
  });

  test('the default is 10 s, as MySQL and MariaDB', () => {
    assert.equal(configSchema.parse({}).listen.connect_timeout, 10);
  });

  test('MariaDB itself: greeting, then nothing, then closed at its connect_timeout', async () => {
    for (const partial of [null, PARTIAL]) {
      const r = await stall(maria.port, partial);
      assert.ok(r.greeting > 0, 'a greeting');
      assert.equal(r.after, 0, 'no packet before closing');
      assert.ok(r.closedAfterMs !== null && r.closedAfterMs >= 1500, `closed after ${r.closedAfterMs} ms (connect_timeout 2 s)`);
    }
  });

  for (const mode of ['standalone', 'relaying to MariaDB'] as const) {
    test(`the proxy ${mode}: a client that sends nothing, or stops inside a packet, is closed without a packet`, async () => {
      const port = (mode === 'standalone' ? alone : relay).address.port;
      for (const partial of [null, PARTIAL]) {
        const r = await stall(port, partial);
        assert.ok(r.greeting > 0, 'a greeting');
        assert.equal(r.after, 0, 'no packet before closing, as MariaDB');
        // Closed by the proxy at its 1 s (the FE behind it would wait 10 s).
        assert.ok(r.closedAfterMs !== null && r.closedAfterMs >= 800 && r.closedAfterMs < 5000, `closed after ${r.closedAfterMs} ms`);
      }
    });
  }

  test('a client that logged in stays connected past connect_timeout', async () => {
    const c = await mysql.createConnection({ host: '127.0.0.1', port: alone.address.port, user: 'root', password: '' });
    try {
      await new Promise((r) => setTimeout(r, 1500));
      const [rows] = await c.query('SELECT @@version_comment AS v');
      assert.equal((rows as unknown[]).length, 1);
    } finally {
      await c.end();
    }
  });
});
