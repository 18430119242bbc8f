/**
 * Standalone mode (no FE) through mysql2: a Paimon-shaped CALL into a catalog the proxy does not
 * serve is answered with CATALOG_NOT_FOUND (ER_BAD_DB_ERROR) naming the configured catalogs,
 * not with the "no FE configured" error of statements the proxy cannot run.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import mysql from 'mysql2/promise';
import { configSchema } from '../../src/config-schema.js';
import { silentLogger } from '../../src/observability/logger.js';
import { startProxy, type RunningProxy } from '../../src/proxy-app.js';
import { tempDir } from '../support/temp-dir.js';
import { makeWarehouse } from '../unit/router/router-fixtures.js';
import { captureError } from './wire-helpers.js';

describe('standalone mode: CALLs into catalogs the proxy does not serve', () => {
  let wh: string;
  let proxy: RunningProxy;
  before(async () => {
    wh = await makeWarehouse();
    const config = configSchema.parse({
      listen: { host: '127.0.0.1', port: 0 },
      catalogs: [{ name: 'paimon', type: 'filesystem', warehouse: wh }],
      logging: { level: 'silent' },
      jobs: { dir: tempDir('hardening-jobs') },
    });
    proxy = await startProxy(config, { logger: silentLogger() });
  });
  after(async () => {
    await proxy?.close();
    await rm(wh, { recursive: true, force: true });
  });

  test('CALL nocat.sys.x() is 1049 Unknown catalog, and the connection stays usable', async () => {
    const c = await mysql.createConnection({ host: '127.0.0.1', port: proxy.address.port, user: 'root', password: '' });
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
