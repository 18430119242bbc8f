/**
 * rollback_to_watermark on a copy of a table Paimon Java committed with watermarks (through the
 * commit API, RepairTool write-watermark): we pick the snapshot Java's
 * SnapshotManager.earlierOrEqualWatermark picks and leave the table Java's rollbackTo leaves.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { java, copyWarehouse, tempWarehouse } from './peers.js';
import { callNamed, executorFor, listTree } from './procedures-support.js';
import { canonRows } from './compact-support.js';
import { rollbackToWatermark } from '../../procedures/snapshots/rollback-to-watermark.js';
import { closeDataEngine } from '../../src/paimon/data/duckdb-engine.js';

after(async () => {
  await closeDataEngine();
});

test('Paimon 2.0: rollback_to_watermark picks the snapshot Java picks and leaves the same table', async () => {
  const peer = java('2.0');
  const wh = tempWarehouse('watermark');
  await peer.createTable(wh, 'db', 't', { fields: [{ name: 'id', type: 'INT NOT NULL' }, { name: 'v', type: 'STRING' }], primaryKeys: ['id'], partitionKeys: [], options: { bucket: '1' } });
  for (const [i, wm] of [1000, 2000, 3000, 4000].entries()) {
    const f = join(tempWarehouse('wm-rows'), 'rows.jsonl');
    writeFileSync(f, `${JSON.stringify({ id: i, v: `w${wm}` })}\n`);
    const r = await peer.runMain('RepairTool', ['write-watermark', wh, 'db', 't', f, String(wm)]);
    assert.equal(r.code, 0, r.stderr);
  }
  const theirs = copyWarehouse(wh, 'watermark-java');
  const ex = executorFor(wh, [rollbackToWatermark]);
  const dry = await callNamed(ex, 'rollback_to_watermark', { table: 'db.t', watermark: 2500n, dry_run: true });
  assert.ok(dry.ok, dry.ok ? '' : dry.error.message);
  const o = await callNamed(ex, 'rollback_to_watermark', { table: 'db.t', watermark: 2500n });
  assert.ok(o.ok, o.ok ? '' : o.error.message);
  const r = await peer.runMain('RepairTool', ['rollback-to-watermark', theirs, 'db', 't', '2500']);
  assert.equal(r.code, 0, r.stderr);
  const javaTarget = Number((JSON.parse(r.stdout.trim().split('\n').pop()!) as { snapshotId: number }).snapshotId);
  assert.equal(javaTarget, 2);
  assert.deepEqual(canonRows(await peer.read(wh, 'db', 't')), canonRows(await peer.read(theirs, 'db', 't')));
  assert.deepEqual(listTree(join(wh, 'db.db/t')).filter((p) => !p.includes('LATEST') && !p.includes('EARLIEST')), listTree(join(theirs, 'db.db/t')).filter((p) => !p.includes('LATEST') && !p.includes('EARLIEST')));
  // Below every watermark, Java returns the first snapshot with a watermark; so do we.
  const low = await callNamed(ex, 'rollback_to_watermark', { table: 'db.t', watermark: 10n, dry_run: true });
  assert.ok(low.ok, low.ok ? '' : low.error.message);
  await peer.write(wh, 'db', 't', [{ id: 50, v: 'after' }]);
  assert.equal((await peer.check(wh, 'db', 't')).ok, true);
});
