/**
 * The embedded demo table, written only by our library, is a valid Paimon table: Paimon Java
 * 1.4 and 2.0 and pypaimon read exactly the orders the demo's commits leave (inserts, updates,
 * deletes merged), every snapshot reads without a missing file, and the layout is Paimon's.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { LocalFileIO } from '../../src/paimon/fs/local-file-io.js';
import { ensureDemoTable, demoExpectedOrders, type DemoOrder } from '../../src/paimon/table/demo-table.js';
import { closeDataEngine } from '../../src/paimon/data/duckdb-engine.js';
import { java, tempWarehouse, canonicalSort, type Row, pypaimons } from './peers.js';

after(async () => {
  await closeDataEngine();
});

function expectedRow(o: DemoOrder): Row {
  const cents = o.amountCents.toString().padStart(3, '0');
  const iso = new Date(Number(o.updatedAtMillis)).toISOString().slice(0, 23);
  return {
    order_id: Number(o.orderId),
    dt: o.dt,
    customer: o.customer,
    amount: `${cents.slice(0, -2)}.${cents.slice(-2)}`,
    status: o.status,
    updated_at: `${iso}000000`,
  };
}

test('the demo table written by our library reads the same in Paimon Java 1.4, 2.0 and pypaimon', async () => {
  const wh = tempWarehouse('demo-table');
  const io = new LocalFileIO();
  const r = await ensureDemoTable(wh, io);
  assert.deepEqual(r, { created: true, table: 'demo.orders', snapshots: 4 });
  const expected = canonicalSort(demoExpectedOrders().map(expectedRow));
  assert.equal(expected.length, 42);

  assert.deepEqual(await java('1.4').read(wh, 'demo', 'orders'), expected);
  assert.deepEqual(await java('2.0').read(wh, 'demo', 'orders'), expected);
  assert.deepEqual(await pypaimons.read(wh, 'demo', 'orders'), expected);

  // every snapshot of the history reads without a missing file
  const check = await java('1.4').check(wh, 'demo', 'orders');
  assert.equal(check.ok, true);
  const dump = await java('1.4').dump(wh, 'demo', 'orders');
  assert.equal(dump.snapshots.length, 4);
  assert.deepEqual(dump.partitionKeys, ['dt']);

  // a second start does not touch a warehouse that has a database
  assert.deepEqual(await ensureDemoTable(wh, io), { created: false, table: 'demo.orders', snapshots: 0, reason: 'the warehouse is not empty' });
});
