/**
 * Standalone mode (no FE) through mysql2: a Paimon-shaped CALL into a catalog the proxy does not
 * serve is answered with CATALOG_NOT_FOUND (ER_BAD_DB_ERROR) naming the configured catalogs,
 * not with the "no FE configured" error of statements the proxy cannot run.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import mysql from 'mysql2/promise';
import { captureError } from './wire-helpers.js';
import { startStandaloneProxy, type StandaloneProxy } from '../support/standalone-proxy.js';

describe('standalone mode: CALLs into catalogs the proxy does not serve', () => {
  let sp: StandaloneProxy;
  before(async () => {
    sp = await startStandaloneProxy();
  });
  after(async () => {
    await sp?.close();
  });

  test('CALL nocat.sys.x() is 1049 Unknown catalog, and the connection stays usable', async () => {
    const c = await mysql.createConnection({ host: '127.0.0.1', port: sp.port, user: 'root', password: '' });
    try {
      assert.deepEqual(await captureError(c.query('CALL nocat.sys.expire_snapshots(table => "sales.orders")')), {
        errno: 1049,
        sqlState: '42000',
        sqlMessage: "Unknown catalog 'nocat' (configured: paimon)",
      });
      const [rows] = await c.query('SELECT @@version_comment AS v');
      assert.equal((rows as { v: string }[]).length, 1);
    } finally {
      await c.end();
    }
  });
});
