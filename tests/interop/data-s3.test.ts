/**
 * Data files on an S3-compatible store (moto): our writer uploads its Parquet files through the
 * S3 FileIO (no local warehouse involved), our reader streams them back through a local
 * temporary copy, and Paimon Java 1.4.2 (paimon-s3) and pypaimon read the table we wrote there.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { ensureDemoTable, demoExpectedOrders, type DemoOrder } from '../../src/paimon/table/demo-table.js';
import { closeDataEngine, dataTempDir } from '../../src/paimon/data/duckdb-engine.js';
import { readValueRows } from '../../src/paimon/data/parquet-reader.js';
import { FileSystemCatalog } from '../../src/paimon/catalog/filesystem-catalog.js';
import { FileStoreScan } from '../../src/paimon/table/file-store-scan.js';
import { FileStoreCommit } from '../../src/paimon/table/file-store-commit.js';
import { startS3Peer, s3FileIO, createBucket, type S3Peer } from '../unit/paimon/fs/s3-peer.js';
import { java, pypaimon, canonicalSort, s3CatalogOptions, type Row } from './peers.js';

let peer: S3Peer;
before(async () => {
  peer = await startS3Peer();
});
after(async () => {
  await closeDataEngine();
  await peer?.stop();
});

function expectedRow(o: DemoOrder): Row {
  const cents = o.amountCents.toString().padStart(3, '0');
  return {
    order_id: Number(o.orderId),
    dt: o.dt,
    customer: o.customer,
    amount: `${cents.slice(0, -2)}.${cents.slice(-2)}`,
    status: o.status,
    updated_at: `${new Date(Number(o.updatedAtMillis)).toISOString().slice(0, 23)}000000`,
  };
}

test('a table written to s3:// by our library is read by us, Paimon Java 1.4 and pypaimon', async () => {
  const bucket = `data-s3-${Date.now().toString(36)}`;
  await createBucket(peer, bucket);
  const io = s3FileIO(peer);
  const wh = `s3://${bucket}/wh`;
  assert.deepEqual(await ensureDemoTable(wh, io), { created: true, table: 'demo.orders', snapshots: 4 });

  // our reader, through the S3 FileIO: every live file of the latest snapshot
  const catalog = new FileSystemCatalog(wh, io);
  const t = await catalog.getTable('demo.orders');
  const commit = new FileStoreCommit({
    fileIO: io, tablePath: t.path, commitUser: 'reader', partitionFields: [{ name: 'dt', type: { root: 'VARCHAR' } }], bucketMode: 'HASH_FIXED',
  });
  const scan: FileStoreScan = commit.scan;
  const live = await scan.readLiveEntries(await t.snapshotManager().latestSnapshot());
  assert.ok(live.length >= 6);
  let rows = 0;
  for (const e of live) {
    const path = `${commit.pathFactory.bucketPath(e.partition, e.bucket)}/${e.file.fileName}`;
    assert.match(path, /^s3:\/\//);
    for await (const b of readValueRows({ fileIO: io, path, schema: t.schema })) rows += b.length;
  }
  assert.equal(BigInt(rows), live.reduce((s, e) => s + e.file.rowCount, 0n));
  // the temporary local copies are gone
  assert.deepEqual(readdirSync(dataTempDir()).filter((f) => f.endsWith('.parquet')), []);

  const options = s3CatalogOptions(peer);
  const expected = canonicalSort(demoExpectedOrders().map(expectedRow));
  assert.deepEqual(await java('1.4').withCatalogOptions(options).read(wh, 'demo', 'orders'), expected);
  assert.deepEqual(await pypaimon.withCatalogOptions(options).read(wh, 'demo', 'orders'), expected);
});
