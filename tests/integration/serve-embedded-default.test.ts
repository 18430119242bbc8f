// The embedded default as `npm start` brings it up: no FE, a filesystem catalog `paimon` on a
// local warehouse, and demo.orders created in an empty warehouse so every procedure can be tried.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { startChildProxy, tmpDir } from './wire-helpers.js';

test('an empty embedded warehouse gets demo.orders, and CALLs run on it from a MySQL client', async () => {
  const wh = join(tmpDir('embedded-'), 'warehouse');
  const proxy = await startChildProxy([], { PPP_WAREHOUSE: wh });
  try {
    assert.match(proxy.log(), /created the demo table paimon\.demo\.orders \(4 snapshots\)/);
    const conn = await mysql.createConnection({ host: '127.0.0.1', port: proxy.port, user: 'root', password: '' });
    try {
      const [dbs] = await conn.query('SHOW DATABASES');
      assert.deepEqual((dbs as Record<string, unknown>[]).map((r) => Object.values(r)[0]), ['demo']);
      const [sets] = await conn.query("CALL paimon.sys.expire_snapshots(table => 'demo.orders', retain_max => 2, retain_min => 1, dry_run => true)");
      const rows = (sets as unknown[])[0] as Record<string, unknown>[];
      assert.equal(rows.length, 1);
      assert.equal(Number(rows[0]!.pinned_snapshot_id), 4);
      assert.equal(Number(rows[0]!.deleted_snapshots_count), 2);
      assert.equal(Number(rows[0]!.changed), 0);
    } finally {
      await conn.end();
    }
    assert.deepEqual(readdirSync(join(wh, 'demo.db', 'orders', 'snapshot')).filter((f) => f.startsWith('snapshot-')).sort(), [
      'snapshot-1', 'snapshot-2', 'snapshot-3', 'snapshot-4',
    ]);
  } finally {
    await proxy.stop();
  }
  // A second start finds the warehouse in use and leaves it alone.
  const again = await startChildProxy([], { PPP_WAREHOUSE: wh });
  try {
    assert.doesNotMatch(again.log(), /created the demo table/);
  } finally {
    await again.stop();
  }
});

test('--no-demo leaves an empty embedded warehouse empty', async () => {
  const wh = join(tmpDir('embedded-nodemo-'), 'warehouse');
  const proxy = await startChildProxy(['--no-demo'], { PPP_WAREHOUSE: wh });
  try {
    assert.doesNotMatch(proxy.log(), /created the demo table/);
    assert.equal(existsSync(join(wh, 'demo.db')), false);
  } finally {
    await proxy.stop();
  }
});
